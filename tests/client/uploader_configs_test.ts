/** The uploader configurations the account page offers for download (client/uploader_configs.ts). */
import assert from "node:assert/strict";
import {
  flameshotScript,
  ishareFiles,
  sharexFiles,
  sharexUrls,
  UPLOADER_TOOLS,
  uploaderConfig,
  urlScript,
} from "../../client/uploader_configs.ts";

const target = { origin: "https://files.example", token: "tok'en", name: "Ferry" };

Deno.test("the ShareX file uploader posts multipart to /api/upload with the token and options", () => {
  const sxcu = JSON.parse(sharexFiles(target, { format: "date", maxViews: "3", deletesAt: "" }));
  assert.equal(sxcu.RequestMethod, "POST");
  assert.equal(sxcu.RequestURL, "https://files.example/api/upload");
  assert.equal(sxcu.Body, "MultipartFormData");
  assert.equal(sxcu.FileFormName, "file");
  assert.deepEqual(sxcu.Headers, {
    Authorization: "tok'en",
    "x-service-format": "date",
    "x-service-max-views": "3",
  });
  assert.equal(sxcu.URL, "{json:files[0].url}");
  assert.equal(sxcu.ErrorMessage, "{json:error}");
});

Deno.test("the ShareX URL shortener posts the destination as JSON to /api/user/urls", () => {
  const sxcu = JSON.parse(sharexUrls(target));
  assert.equal(sxcu.RequestURL, "https://files.example/api/user/urls");
  assert.equal(sxcu.Body, "JSON");
  assert.deepEqual(JSON.parse(sxcu.Data.replace("{input}", "https://a.example/")), {
    destination: "https://a.example/",
  });
  assert.equal(sxcu.URL, "{json:url}");
});

Deno.test("the Flameshot script quotes the token for the shell and asks for a plain link", () => {
  const script = flameshotScript(target, { originalName: true });
  assert.match(script, /^#!\/bin\/sh\n/);
  assert.ok(script.includes(`-H 'Authorization: tok'"'"'en'`), script);
  assert.ok(script.includes("-H 'x-service-original-name: true'"));
  assert.ok(script.includes("-H 'x-service-no-json: true'"));
  assert.ok(script.includes("'https://files.example/api/upload'"));
});

Deno.test("the iShare uploader posts multipart to /api/upload and reads the first file's URL", () => {
  const iscu = JSON.parse(ishareFiles(target, { format: "uuid" }));
  assert.deepEqual(iscu, {
    name: "Ferry (files)",
    requesturl: "https://files.example/api/upload",
    headers: { Authorization: "tok'en", "x-service-format": "uuid" },
    fileformname: "file",
    responseurl: "{{files[0].url}}",
  });
});

Deno.test("each tool's key holds only the scope its requests need", () => {
  for (const [tool, spec] of Object.entries(UPLOADER_TOOLS)) {
    const text = uploaderConfig(tool as keyof typeof UPLOADER_TOOLS, target, {});
    const posts = text.includes("/api/user/urls") ? "urls:write" : "files:write";
    assert.equal(spec.scope, posts, tool);
  }
  assert.equal(UPLOADER_TOOLS["sharex-urls"].scope, "urls:write");
});

Deno.test("the scripts copy the link with each platform's tool, or only print it", () => {
  const script = (clipboard?: "x11" | "wayland" | "macos" | "echo") =>
    uploaderConfig("script-files", target, {}, { clipboard });
  assert.match(script(), /\| xclip -selection clipboard\n/);
  assert.match(script("x11"), /\| xclip -selection clipboard\n/);
  assert.match(script("wayland"), /\| wl-copy\n/);
  assert.match(script("macos"), /\| pbcopy\n/);
  assert.doesNotMatch(script("echo"), /xclip|wl-copy|pbcopy/);
  assert.match(script("echo"), /printf '%s\\n' "\$link"\n$/);
});

Deno.test("Flameshot on another Wayland compositor poses as Sway, as Zipline's script does", () => {
  const other = flameshotScript(target, {}, { clipboard: "wayland", otherCompositor: true });
  assert.match(other, /^export XDG_CURRENT_DESKTOP=sway/m);
  const mac = flameshotScript(target, {}, { clipboard: "macos", otherCompositor: true });
  assert.doesNotMatch(mac, /XDG_CURRENT_DESKTOP/);
});

Deno.test("the URL script posts JSON to /api/user/urls with only the options URLs take", () => {
  const script = urlScript(target, { maxViews: "3", format: "uuid", originalName: true });
  assert.ok(script.includes("'https://files.example/api/user/urls'"));
  assert.ok(script.includes("-H 'x-service-max-views: 3'"));
  assert.ok(!script.includes("x-service-format") && !script.includes("original-name"));
  assert.ok(script.includes("-H 'content-type: application/json'"));
  assert.ok(script.includes(`-d "{\\"destination\\":\\"$escaped\\"}"`), script);
});

Deno.test("ShareX for Xshare reads the answer as $json:…$", () => {
  const sxcu = JSON.parse(sharexFiles(target, {}, { xshare: true }));
  assert.equal(sxcu.URL, "$json:files[0].url$");
  assert.equal(sxcu.ErrorMessage, "$json:error$");
});
