/**
 * The files a site answers at its root: `/robots.txt` (crawlers kept out when
 * `featuresRobotsTxt` is on), `/manifest.json` (the installable web app, when
 * `pwaEnabled`), and the icon as `/favicon.svg` and `/favicon.ico`. Each is a
 * 404 when its setting is off.
 */
import { Hono } from "hono";
import type { AppEnv } from "../env.ts";
import { assetPath, findAsset } from "./assets.ts";

/** The root files' routes. */
export const siteFileRoutes = new Hono<AppEnv>()
  .get("/robots.txt", (c) => {
    if (!c.var.services.settings.get("featuresRobotsTxt")) return c.notFound();
    return c.text("User-agent: *\nDisallow: /\n", 200, { "cache-control": "public, max-age=3600" });
  })
  .get("/manifest.json", (c) => {
    const settings = c.var.services.settings.all();
    if (!settings.pwaEnabled) return c.notFound();
    const manifest = {
      name: settings.pwaTitle,
      short_name: settings.pwaShortName,
      description: settings.pwaDescription,
      start_url: "/dashboard",
      scope: "/",
      display: "standalone",
      theme_color: settings.pwaThemeColor,
      background_color: settings.pwaBackgroundColor,
      icons: [{ src: assetPath("icon.svg"), sizes: "any", type: "image/svg+xml" }],
    };
    return c.body(JSON.stringify(manifest), 200, {
      "content-type": "application/manifest+json",
      "cache-control": "no-cache",
    });
  })
  .on("GET", ["/favicon.svg", "/favicon.ico"], (c) => {
    const { asset } = findAsset("icon.svg")!;
    return c.body(asset.body, 200, {
      "content-type": asset.type,
      "cache-control": "public, max-age=86400",
      "x-content-type-options": "nosniff",
    });
  });
