/** The uploader configurations the account page offers for download (client/uploader_configs.ts). */
import assert from "node:assert/strict";
import { flameshotScript, sharexFiles, sharexUrls } from "../../client/uploader_configs.ts";

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
