/**
 * A page for `tests/e2e/uppy_browser_test.ts`: Uppy with its tus plugin,
 * bundled for the browser by the test. `uppyUpload(endpoint, token, bytes)`
 * uploads one file and resolves with the upload URLs Uppy reports. Plain
 * JavaScript: Uppy's types want the DOM library, which the tests' type
 * check does not load.
 */
import Uppy from "@uppy/core";
import Tus from "@uppy/tus";

Object.assign(globalThis, {
  async uppyUpload(endpoint, token, bytes) {
    const uppy = new Uppy({ autoProceed: false }).use(Tus, {
      endpoint,
      headers: { authorization: token },
      chunkSize: 100_000,
      retryDelays: [],
    });
    uppy.addFile({
      name: "movie.mp4",
      type: "video/mp4",
      data: new Blob([new Uint8Array(bytes)], { type: "video/mp4" }),
    });
    const result = await uppy.upload();
    if (!result || result.failed?.length) {
      throw new Error(`Uppy failed: ${result?.failed?.map((f) => String(f.error)).join(", ")}`);
    }
    return result.successful.map((f) => f.uploadURL ?? f.response?.uploadURL ?? "");
  },
});
