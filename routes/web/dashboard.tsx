/** @jsxImportSource hono/jsx */
/** The signed-in start page: for now, who is signed in and where to go. */
import { Layout } from "./layout.tsx";

/** The dashboard of `username`. */
export function DashboardPage({ site, username }: { site: string; username: string }) {
  return (
    <Layout site={site} title="Dashboard" username={username}>
      <h1>Dashboard</h1>
      <p>
        Signed in as <strong id="signed-in-as">{username}</strong>.
      </p>
      <p>
        <a href="/dashboard/security">Security: two-factor codes and passkeys</a>
      </p>
    </Layout>
  );
}
