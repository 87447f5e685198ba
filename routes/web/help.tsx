/** @jsxImportSource hono/jsx */
/**
 * Ferry's own documentation, served by Ferry at `/dashboard/help` (the
 * README) and `/dashboard/help/<name>` (the pages of `docs/`), rendered from
 * the Markdown built into the program, so the default "Documentation" link
 * works offline and matches the running version. Links between the documents
 * stay inside these pages; links into the source tree show as text.
 */
import { raw } from "hono/html";
import readme from "../../README.md" with { type: "text" };
import architecture from "../../docs/architecture.md" with { type: "text" };
import development from "../../docs/development.md" with { type: "text" };
import scaling from "../../docs/scaling.md" with { type: "text" };
import security from "../../docs/security.md" with { type: "text" };
import transfer from "../../docs/transfer.md" with { type: "text" };
import zipline from "../../docs/zipline.md" with { type: "text" };
import { Layout } from "./layout.tsx";
import { renderMarkdown } from "./markdown.ts";

/** The documents: name in the address, title in the list, and the Markdown. */
const DOCUMENTS: readonly { name: string; title: string; markdown: string }[] = [
  { name: "", title: "Overview and configuration", markdown: readme },
  { name: "zipline", title: "Coming from Zipline", markdown: zipline },
  { name: "transfer", title: "Export and import", markdown: transfer },
  { name: "security", title: "Security", markdown: security },
  { name: "scaling", title: "Scaling", markdown: scaling },
  { name: "architecture", title: "Architecture", markdown: architecture },
  { name: "development", title: "Development", markdown: development },
];

const pathOf = (name: string) => name ? `/dashboard/help/${name}` : "/dashboard/help";

/** A relative link of a document: another document's page, else text only. */
function relative(href: string): string | null {
  const [file, fragment] = href.split("#", 2);
  const name = file.replace(/^(\.\.\/|\.\/)*(docs\/)?/, "").replace(/\.md$/, "");
  const target = file === "" ? "" : name === "README" ? "" : name;
  if (file !== "" && !DOCUMENTS.some((d) => d.name === target)) return null;
  return (file === "" ? "" : pathOf(target)) + (fragment ? `#${fragment}` : "");
}

const rendered = new Map<string, string>();

/** The document at `/dashboard/help/<name>` (`""`: the README), or `null`. */
export function helpDocument(name: string) {
  const doc = DOCUMENTS.find((d) => d.name === name);
  if (!doc) return null;
  let html = rendered.get(name);
  if (html === undefined) {
    html = renderMarkdown(doc.markdown, relative);
    rendered.set(name, html);
  }
  return { ...doc, html };
}

/** The help page of `doc`. */
export function HelpPage(
  { site, doc }: { site: string; doc: NonNullable<ReturnType<typeof helpDocument>> },
) {
  return (
    <Layout site={site} title={doc.title} current={pathOf(doc.name)}>
      <div class="help">
        <nav aria-label="Documentation" class="card help-index">
          <h2>Documentation</h2>
          <ul>
            {DOCUMENTS.map((d) => (
              <li>
                <a
                  href={pathOf(d.name)}
                  aria-current={d.name === doc.name ? "page" : undefined}
                >
                  {d.title}
                </a>
              </li>
            ))}
            <li>
              <a href="/api/docs">API reference</a>
            </li>
          </ul>
        </nav>
        <article class="card markdown">{raw(doc.html)}</article>
      </div>
    </Layout>
  );
}

/** The terms of service (`websiteTos`), rendered from their Markdown. */
export function TermsPage(
  { site, markdown, registration }: { site: string; markdown: string; registration: boolean },
) {
  return (
    <Layout site={site} title="Terms of service">
      <article class="card markdown" aria-label="Terms of service">
        {raw(renderMarkdown(markdown))}
      </article>
      <p class="below-card">
        {registration && (
          <>
            <a href="/auth/register">Create an account</a> ·{" "}
          </>
        )}
        <a href="/auth/login">Sign in</a>
      </p>
    </Layout>
  );
}
