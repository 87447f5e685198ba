/** @jsxImportSource hono/jsx */
/**
 * The frame of every page Ferry renders for people. Signed in, it is an app's
 * shell: a sidebar of the dashboard's pages, each with its icon (grouped as
 * Zipline groups them, with an Administration group for those who may), the
 * external links and the version at its foot; a top bar with the menu button
 * that folds the sidebar away on a phone, and the user menu (avatar, account,
 * security, log out); and a region for notices (toasts). Signed out, a plain
 * centred column. Stylesheets and scripts are files served by Ferry
 * (`/assets/…`). No inline script or style; each script tag carries the
 * response's nonce ({@link ScriptNonce}), the only scripts the page's
 * Content-Security-Policy lets run.
 */
import { type Child, createContext, useContext } from "hono/jsx";
import { raw } from "hono/html";
import { assetPath } from "./assets.ts";
import type { NavGroup, NavLink } from "./admin_pages.ts";
import { Icon } from "./icons.tsx";
import { LookContext } from "./look.ts";

/** What the shell shows of the signed-in user. */
export interface Frame {
  username: string;
  /** Where the avatar image is served, or `null` for the initial instead. */
  avatar: string | null;
  /** The user's pages, grouped. */
  main: NavGroup[];
  /** The administration pages the user may open. */
  admin: NavLink[];
}

/** The signed-in user's frame, set by the page renderer; `null` on pages for visitors. */
export const FrameContext = createContext<Frame | null>(null);

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
  /** The path of this page, marked in the navigation. */
  current?: string;
  /** More of the document head (a file page's card tags). */
  head?: Child;
  /** Loads the dashboard's bundle and stylesheet (pages with a client component). */
  app?: boolean;
  children: Child;
}

/** A sidebar link, marked when it is the current page. */
function SideLink({ link, current }: { link: NavLink; current?: string }) {
  return (
    <li>
      <a href={link.href} aria-current={link.href === current ? "page" : undefined}>
        <Icon name={link.icon} />
        <span>{link.label}</span>
      </a>
    </li>
  );
}

/** The sidebar: the user's pages, the administration, external links and the version. */
function Sidebar({ frame, current }: { frame: Frame; current?: string }) {
  const look = useContext(LookContext);
  return (
    <aside id="sidebar" class="sidebar">
      <nav aria-label="Dashboard">
        {frame.main.map((group, i) =>
          group.label
            ? (
              <div class="nav-group" key={group.label}>
                <h2 class="nav-heading" id={`nav-group-${i}`}>{group.label}</h2>
                <ul aria-labelledby={`nav-group-${i}`}>
                  {group.links.map((link) => (
                    <SideLink key={link.href} link={link} current={current} />
                  ))}
                </ul>
              </div>
            )
            : (
              <ul key={i}>
                {group.links.map((link) => (
                  <SideLink key={link.href} link={link} current={current} />
                ))}
              </ul>
            )
        )}
      </nav>
      {frame.admin.length > 0 && (
        <nav aria-label="Administration" class="nav-group">
          <h2 class="nav-heading">Administration</h2>
          <ul>
            {frame.admin.map((link) => <SideLink key={link.href} link={link} current={current} />)}
          </ul>
        </nav>
      )}
      <div class="sidebar-foot">
        {look.links.length > 0 && (
          <nav aria-label="Links" class="external-links">
            <ul>
              {look.links.map((link) => (
                <li key={link.url}>
                  <a href={link.url} rel="noopener">
                    <Icon name={link.url.startsWith("/") ? "docs" : "external"} size={16} />
                    <span>{link.name}</span>
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        )}
        <p class="version" id="version" data-version={look.version}>
          <span class="version-tag">v{look.version}</span>
          <span id="version-state" class="version-state" role="status"></span>
        </p>
      </div>
    </aside>
  );
}

/** The user menu: avatar and name, opening to the account, security and log out. */
function UserMenu({ frame }: { frame: Frame }) {
  return (
    <details class="user-menu" id="user-menu">
      <summary>
        <span class="visually-hidden">Account menu of</span>
        {frame.avatar
          ? <img class="user-avatar" src={frame.avatar} alt="" width="28" height="28" />
          : (
            <span class="user-avatar initial" aria-hidden="true">
              {[...frame.username][0]?.toUpperCase()}
            </span>
          )}
        <span class="who" id="signed-in-as">{frame.username}</span>
        <Icon name="chevron" size={16} />
      </summary>
      <div class="menu-panel">
        <a href="/dashboard/settings">
          <Icon name="account" />Account
        </a>
        <a href="/dashboard/settings#appearance">
          <Icon name="theme" />Theme
        </a>
        <a href="/dashboard/security">
          <Icon name="security" />Security
        </a>
        <button type="button" id="logout" class="menu-item">
          <Icon name="logout" />Log out
        </button>
      </div>
    </details>
  );
}

/** The page frame. */
export function Layout({ site, title, current, app, head, children }: LayoutProps) {
  const look = useContext(LookContext);
  const frame = useContext(FrameContext);
  const nonce = useContext(ScriptNonce);
  const brand = (
    <a class="brand" href="/">
      {look.logo && <img class="logo" src={look.logo} alt="" />}
      <span>{site}</span>
    </a>
  );
  // The doctype puts the page in standards mode (without it, browsers lay it out in quirks
  // mode, where KaTeX refuses to typeset).
  return (
    <>
      {raw("<!DOCTYPE html>")}
      <html lang="en" {...look.theme}>
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>{`${title} · ${site}`}</title>
          <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
          {look.installable && <link rel="manifest" href="/manifest.json" />}
          {head}
          <link rel="stylesheet" href={assetPath("ferry.css")} />
          {look.themesCss && <link rel="stylesheet" href={look.themesCss} />}
          {app && <link rel="stylesheet" href={assetPath("dashboard.css")} />}
          <script src={assetPath("ferry.js")} nonce={nonce} defer />
          {app && <script type="module" src={assetPath("dashboard.js")} nonce={nonce} />}
        </head>
        {frame
          ? (
            <body class="signed-in">
              <a class="skip-link" href="#main">Skip to the content</a>
              <header class="topbar">
                <button
                  type="button"
                  id="menu-toggle"
                  class="icon-button menu-toggle"
                  aria-expanded="false"
                  aria-controls="sidebar"
                  aria-label="Menu"
                >
                  <Icon name="menu" />
                </button>
                {brand}
                <UserMenu frame={frame} />
              </header>
              <div class="shell">
                <Sidebar frame={frame} current={current} />
                <main id="main" tabindex={-1}>
                  {children}
                  <p id="message" role="status" aria-live="polite"></p>
                </main>
              </div>
              <div id="toasts" class="toasts"></div>
            </body>
          )
          : (
            <body>
              <header class="site">
                {brand}
                <button
                  type="button"
                  id="theme-switch"
                  class="link"
                  aria-label="Theme"
                  data-light={look.switchThemes.light}
                  data-dark={look.switchThemes.dark}
                >
                  Theme
                </button>
              </header>
              <main id="main">
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
              <div id="toasts" class="toasts"></div>
            </body>
          )}
      </html>
    </>
  );
}
