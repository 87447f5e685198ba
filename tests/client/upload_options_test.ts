/**
 * The upload options the dashboard remembers and sends: every Zipline option
 * becomes its header, the expiry presets stop at the server's maximum, and
 * the browser keeps all but the password.
 */
import assert from "node:assert/strict";
import {
  expiryChoices,
  loadOptions,
  optionHeaders,
  OPTIONS_KEY,
  saveOptions,
} from "../../client/upload_options.ts";

/** A `Storage` in memory. */
function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    key: (i) => [...items.keys()][i] ?? null,
    removeItem: (key) => void items.delete(key),
    setItem: (key, value) => void items.set(key, String(value)),
  };
}

Deno.test("client: every upload option is its x-service header", () => {
  assert.deepEqual(
    optionHeaders({
      format: "date",
      deletesAt: "7d",
      password: "pw",
      maxViews: "3",
      folder: "f1",
      domain: "a.example",
      filename: "mine",
      compressionPercent: "80",
      compressionType: "webp",
      originalName: true,
      uploadOnDrop: true,
    }),
    {
      "x-service-format": "date",
      "x-service-deletes-at": "7d",
      "x-service-password": "pw",
      "x-service-max-views": "3",
      "x-service-folder": "f1",
      "x-service-domain": "a.example",
      "x-service-filename": "mine",
      "x-service-image-compression-percent": "80",
      "x-service-image-compression-type": "webp",
      "x-service-original-name": "true",
    },
  );
  assert.deepEqual(
    optionHeaders({ compressionType: "webp" }),
    {},
    "a type alone compresses nothing",
  );
});

Deno.test("client: the expiry presets stop at the server's maximum, 'never' only without one", () => {
  assert.equal(expiryChoices(null)[0][0], "");
  assert.equal(expiryChoices(null).at(-1)![0], "365d");
  assert.deepEqual(expiryChoices(24 * 3_600_000).map(([v]) => v), ["1h", "6h", "12h", "1d"]);
});

Deno.test("client: the options are remembered but the password, and cleared", () => {
  const storage = memoryStorage();
  saveOptions(storage, {
    format: "uuid",
    password: "secret",
    deletesAt: "30d",
    originalName: true,
  });
  assert.deepEqual(JSON.parse(storage.getItem(OPTIONS_KEY)!), {
    format: "uuid",
    deletesAt: "30d",
    originalName: true,
  });
  assert.deepEqual(loadOptions(storage, null), {
    format: "uuid",
    deletesAt: "30d",
    originalName: true,
  });
  // A server that now allows a week at most drops the remembered 30 days.
  assert.deepEqual(loadOptions(storage, 7 * 86_400_000), { format: "uuid", originalName: true });
  saveOptions(storage, {});
  assert.equal(storage.getItem(OPTIONS_KEY), null);
  storage.setItem(OPTIONS_KEY, "{broken");
  assert.deepEqual(loadOptions(storage, null), {});
});
