/** @jsxImportSource hono/jsx */
/**
 * The frame of a dashboard page whose content is a client component
 * (`client/pages/…`): the server renders the frame (the signed-in shell when
 * the page is rendered for a user) and an `#app` element
 * naming the page and carrying its configuration as a data attribute (no
 * inline script, for the CSP); the bundle mounts the page there.
 */
import { Layout } from "./layout.tsx";

/** A client-rendered dashboard page. */
export interface AppPageProps {
  site: string;
  title: string;
  /** The page's path, marked in the navigation. */
  path: string;
  /** The component `client/main.tsx` mounts: `home`, `upload`, `files`, `urls`, `account`, `security`, `folders`, `folder`, `tags`, and those of `admin_pages.ts`. */
  page: string;
  /** What the page needs to know of the server (`client/config.ts`). */
  config: Record<string, unknown>;
}

/** The page's frame; "Loading…" until the script runs, and a note when scripts are off. */
export function AppPage({ site, title, path, page, config }: AppPageProps) {
  return (
    <Layout site={site} title={title} current={path} app>
      <div id="app" data-page={page} data-config={JSON.stringify(config)}>
        <p class="muted">Loading…</p>
        <noscript>
          <p>The dashboard needs JavaScript. The API works without it: see /api/docs.</p>
        </noscript>
      </div>
    </Layout>
  );
}
