/** @jsxImportSource hono/jsx */
/**
 * The frame of every page Ferry renders for people: the document head, the
 * header with the signed-in navigation, and one stylesheet and one script,
 * both served by Ferry (`/assets/…`). No inline script or style, so the
 * Content-Security-Policy can allow `'self'` only.
 */
import type { Child } from "hono/jsx";

/** What a page shows in its frame. */
export interface LayoutProps {
  /** The site title (`websiteTitle`). */
  site: string;
  /** The page's own title. */
  title: string;
  /** The signed-in user's name, for the navigation; absent on the login page. */
  username?: string;
  children: Child;
}

/** The page frame. */
export function Layout({ site, title, username, children }: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · ${site}`}</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href="/assets/ferry.css" />
        <script src="/assets/ferry.js" defer />
      </head>
      <body>
        <header class="site">
          <a class="brand" href="/">{site}</a>
          {username && (
            <nav aria-label="Account">
              <a href="/dashboard">Dashboard</a>
              <a href="/dashboard/security">Security</a>
              <button type="button" id="logout" class="link">Log out</button>
            </nav>
          )}
        </header>
        <main>
          {children}
          <p id="message" role="status" aria-live="polite"></p>
        </main>
      </body>
    </html>
  );
}
