/** @jsxImportSource hono/jsx */
/**
 * The pages for what went wrong, in the dashboard's frame (the shell for a
 * signed-in user, the plain column otherwise), never a JSON body: a page
 * that does not exist (404), a page the user's role does not open (403), a
 * short link past its expiry (410), and an error of the server (500, or 503
 * while a service is out of reach).
 */
import { Icon } from "./icons.tsx";
import { Layout } from "./layout.tsx";

/** Which problem. */
export type Problem = "not-found" | "forbidden" | "expired" | "error" | "unavailable";

const TEXT: Record<Problem, { title: string; message: string }> = {
  "not-found": {
    title: "Page not found",
    message: "There is no page at this address. It may have moved, or the link has a typo.",
  },
  forbidden: {
    title: "Not allowed",
    message: "This page is for administrators. Your account does not open it.",
  },
  expired: {
    title: "This link has expired",
    message: "Its owner set it to stop working after a date, and that date has passed. Ask " +
      "whoever sent it for a new one.",
  },
  error: {
    title: "Something went wrong",
    message: "The server could not show this page. Try again; if it keeps failing, the " +
      "server's log says why.",
  },
  unavailable: {
    title: "Back in a moment",
    message: "The server cannot reach its database or storage just now. Try again shortly.",
  },
};

/** The page for `problem`; `signedIn` chooses where the way back leads. */
export function ProblemPage(
  { site, problem, signedIn }: { site: string; problem: Problem; signedIn: boolean },
) {
  const { title, message } = TEXT[problem];
  const icon = problem === "not-found" || problem === "expired"
    ? "not-found"
    : problem === "forbidden"
    ? "forbidden"
    : "warning";
  return (
    <Layout site={site} title={title}>
      <section class="card problem" aria-labelledby="problem-title">
        <Icon name={icon} size={40} />
        <h1 id="problem-title">{title}</h1>
        <p>{message}</p>
        <p class="page-actions">
          {signedIn
            ? <a class="button" href="/dashboard">Back to the dashboard</a>
            : <a class="button" href="/auth/login">Sign in</a>}
        </p>
      </section>
    </Layout>
  );
}
