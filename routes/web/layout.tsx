/** @jsxImportSource hono/jsx */
/**
 * The frame of every page Ferry renders for people: the document head, the
 * header with the signed-in navigation, and one stylesheet and one script,
 * both served by Ferry (`/assets/…`). No inline script or style; each script
 * tag carries the response's nonce ({@link ScriptNonce}), the only scripts
 * the page's Content-Security-Policy lets run.
 */
import { type Child, createContext, useContext } from "hono/jsx";
import { assetPath } from "./assets.ts";
import type { NavLink } from "./admin_pages.ts";
import { LookContext } from "./look.ts";

/**
 * The nonce of the page being rendered, drawn for each response: its
 * `script-src 'nonce-…' 'strict-dynamic'` runs the tags that carry it (and
 * what they load) and nothing else, not even a script of this origin.
 */
export const ScriptNonce = createContext("");

/** What a page shows in its frame. */
export interface LayoutProps {
  /** The site title (`websiteTitle`). */
  site: string;
  /** The page's own title. */
  title: string;
  /** The signed-in user's name, for the navigation; absent on the login page. */
  username?: string;
  /** The path of this page, marked in the navigation. */
  current?: string;
  /** Statistics and administration links the user may open (`admin_pages.ts`). */
  links?: readonly NavLink[];
  /** More of the document head (a file page's card tags). */
  head?: Child;
  /** Loads the dashboard's bundle and stylesheet (pages with a client component). */
  app?: boolean;
  children: Child;
}

/** The signed-in navigation: each dashboard page, then the account's. */
const NAV = [
  ["/dashboard", "Home"],
  ["/dashboard/upload", "Upload"],
  ["/dashboard/files", "Files"],
  ["/dashboard/urls", "URLs"],
  ["/dashboard/folders", "Folders"],
  ["/dashboard/tags", "Tags"],
  ["/dashboard/settings", "Account"],
  ["/dashboard/security", "Security"],
] as const;

/** The page frame. */
export function Layout(
  { site, title, username, current, links = [], app, head, children }: LayoutProps,
) {
  const look = useContext(LookContext);
  const nonce = useContext(ScriptNonce);
  return (
    <html lang="en" data-theme={look.theme ?? undefined}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · ${site}`}</title>
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        {look.installable && <link rel="manifest" href="/manifest.json" />}
        {head}
        <link rel="stylesheet" href={assetPath("ferry.css")} />
        {app && <link rel="stylesheet" href={assetPath("dashboard.css")} />}
        <script src={assetPath("ferry.js")} nonce={nonce} defer />
        {app && <script type="module" src={assetPath("dashboard.js")} nonce={nonce} />}
      </head>
      <body>
        <header class="site">
          <a class="brand" href="/">
            {look.logo && <img class="logo" src={look.logo} alt="" />}
            {site}
          </a>
          <button type="button" id="theme-switch" class="link" aria-label="Theme">Theme</button>
          {username && (
            <button
              type="button"
              id="menu-toggle"
              class="link menu-toggle"
              aria-expanded="false"
              aria-controls="site-menu"
            >
              Menu
            </button>
          )}
          {username && (
            <div id="site-menu" class="site-menu">
              <nav aria-label="Dashboard">
                {NAV.map(([href, label]) => (
                  <a href={href} aria-current={href === current ? "page" : undefined}>{label}</a>
                ))}
                <span class="who">
                  Signed in as <strong id="signed-in-as">{username}</strong>
                </span>
                <button type="button" id="logout" class="link">Log out</button>
              </nav>
              {links.length > 0 && (
                <nav aria-label="Administration" class="admin-nav">
                  {links.map(([href, label]) => (
                    <a href={href} aria-current={href === current ? "page" : undefined}>{label}</a>
                  ))}
                </nav>
              )}
            </div>
          )}
        </header>
        <main>
          {children}
          <p id="message" role="status" aria-live="polite"></p>
        </main>
        {look.links.length > 0 && (
          <footer class="site">
            <nav aria-label="Links">
              {look.links.map((link) => (
                <a key={link.url} href={link.url} rel="noopener">{link.name}</a>
              ))}
            </nav>
          </footer>
        )}
      </body>
    </html>
  );
}
