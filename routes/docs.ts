/**
 * `GET /api/docs`: a readable reference of `/api/openapi.json`, rendered in the
 * browser by Swagger UI from the `swagger-ui-dist` package installed with the
 * project. The page and every file it loads come from Ferry itself, so it works
 * on a server without internet access; its Content-Security-Policy keeps the
 * browser from fetching anything from elsewhere.
 *
 * Not part of the OpenAPI document: it is a page for people, not an API.
 */
import { newRouter } from "./define.ts";
import { scriptNonce } from "./web/mod.tsx";

const DOCUMENT = "/api/openapi.json";
const ASSETS = "/api/docs/assets";

/** Starts Swagger UI on the page; a file rather than an inline script, for the CSP. */
const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(DOCUMENT)},
  dom_id: "#docs",
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
});
`;

/** The page, its script tags carrying `nonce`. */
const page = (nonce: string) =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Ferry API reference</title>
<link rel="stylesheet" href="${ASSETS}/swagger-ui.css">
</head>
<body>
<div id="docs"></div>
<script src="${ASSETS}/swagger-ui-bundle.js" nonce="${nonce}"></script>
<script src="${ASSETS}/init.js" nonce="${nonce}"></script>
</body>
</html>
`;

/**
 * Only this origin: the page cannot load a script, font or image from anywhere
 * else; scripts only by the response's nonce (as on every page, so no other
 * script of this origin, such as an uploaded file, runs here).
 */
const csp = (nonce: string) =>
  [
    "default-src 'self'",
    `script-src 'nonce-${nonce}' 'strict-dynamic'`,
    "img-src 'self' data:",
    "style-src 'self' 'unsafe-inline'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; ");

const JS = "text/javascript; charset=utf-8";

/** A file under `/api/docs/assets/`. */
interface Asset {
  type: string;
  body: string;
}

let assets: Promise<Record<string, Asset>> | undefined;

/**
 * The files under `/api/docs/assets/`, imported as text on the first ask
 * (Swagger UI's bundle costs the process some 20 MiB once loaded); literal
 * specifiers, so they ship in a bundle too.
 */
function docsAssets(): Promise<Record<string, Asset>> {
  return assets ??= (async () => {
    const [css, bundle] = await Promise.all([
      import("swagger-ui-dist/swagger-ui.css", { with: { type: "text" } }),
      import("swagger-ui-dist/swagger-ui-bundle.js", { with: { type: "text" } }),
    ]);
    return {
      "swagger-ui.css": { type: "text/css; charset=utf-8", body: css.default },
      "swagger-ui-bundle.js": { type: JS, body: bundle.default },
      "init.js": { type: JS, body: INIT_SCRIPT },
    };
  })();
}

/** The reference page and its assets. */
export const docsRoutes = newRouter()
  .get("/docs", (c) => {
    const nonce = scriptNonce(c);
    c.header("content-security-policy", csp(nonce));
    return c.html(page(nonce));
  })
  .get("/docs/assets/:file", async (c) => {
    const file = (await docsAssets())[c.req.param("file")];
    if (!file) return c.notFound();
    return c.body(file.body, 200, {
      "content-type": file.type,
      "cache-control": "public, max-age=3600",
    });
  });
