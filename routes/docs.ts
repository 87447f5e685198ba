/**
 * `GET /api/docs`: a readable reference of `/api/openapi.json`, rendered in the
 * browser by Swagger UI from the `swagger-ui-dist` package installed with the
 * project. The page and every file it loads come from Ferry itself, so it works
 * on a server without internet access; its Content-Security-Policy keeps the
 * browser from fetching anything from elsewhere.
 *
 * Not part of the OpenAPI document: it is a page for people, not an API.
 */
import css from "swagger-ui-dist/swagger-ui.css" with { type: "text" };
import bundle from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "text" };
import { newRouter } from "./define.ts";

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

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Ferry API reference</title>
<link rel="stylesheet" href="${ASSETS}/swagger-ui.css">
</head>
<body>
<div id="docs"></div>
<script src="${ASSETS}/swagger-ui-bundle.js"></script>
<script src="${ASSETS}/init.js"></script>
</body>
</html>
`;

/** Only this origin: the page cannot load a script, font or image from anywhere else. */
const CSP = [
  "default-src 'self'",
  "img-src 'self' data:",
  "style-src 'self' 'unsafe-inline'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

const JS = "text/javascript; charset=utf-8";

/** The files under `/api/docs/assets/`: inlined text imports, so they ship in a bundle too. */
const FILES: Record<string, { type: string; body: string }> = {
  "swagger-ui.css": { type: "text/css; charset=utf-8", body: css },
  "swagger-ui-bundle.js": { type: JS, body: bundle },
  "init.js": { type: JS, body: INIT_SCRIPT },
};

/** The reference page and its assets. */
export const docsRoutes = newRouter()
  .get("/docs", (c) => {
    c.header("content-security-policy", CSP);
    return c.html(PAGE);
  })
  .get("/docs/assets/:file", (c) => {
    const file = FILES[c.req.param("file")];
    if (!file) return c.notFound();
    return c.body(file.body, 200, {
      "content-type": file.type,
      "cache-control": "public, max-age=3600",
    });
  });
