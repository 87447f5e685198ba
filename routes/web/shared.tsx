/** @jsxImportSource hono/jsx */
/**
 * The page of a share link, `/s/<code>` (`core/shared.ts`): a file link shows
 * the file as its own page does (`view.tsx`), its bytes from
 * `/s/<code>/raw`; a folder link shows the files directly in the folder as a
 * gallery, each from `/s/<code>/files/<fileId>`, with the whole as one zip
 * (`/s/<code>/zip`). A link with a password first asks for it;
 * `/assets/ferry.js` sends it to `POST /api/shares/<code>/password`, whose
 * cookie opens the link when the page reloads.
 */
import type { ShareVisit } from "../../core/shared.ts";
import { formatSize } from "../../core/units/size.ts";
import { Layout } from "./layout.tsx";
import { Preview, ViewPage } from "./view.tsx";

/** The page of the live link `visit`, reached by `code`. */
export function SharePage(
  { site, code, visit }: { site: string; code: string; visit: ShareVisit },
) {
  const base = `/s/${encodeURIComponent(code)}`;
  const title = visit.kind === "file"
    ? visit.file.originalName ?? visit.file.name
    : visit.folder.name;
  if (visit.locked) {
    return (
      <Layout site={site} title={title}>
        <h1>{title}</h1>
        <form id="share-password-form" class="card" data-code={code}>
          <p>This link is protected by a password.</p>
          <label for="share-password">Password</label>
          <input id="share-password" type="password" autocomplete="off" required />
          <button type="submit">Open</button>
        </form>
      </Layout>
    );
  }
  if (visit.kind === "file") {
    return <ViewPage site={site} file={visit.file} locked={false} raw={`${base}/raw`} />;
  }
  return (
    <Layout site={site} title={title}>
      <h1 id="shared-folder">{title}</h1>
      <p>
        {visit.files.length === 1 ? "1 file" : `${visit.files.length} files`}{" "}
        {visit.files.length > 0 && (
          <a id="shared-zip" class="button" href={`${base}/zip`}>Download all (zip)</a>
        )}
      </p>
      <ul class="shared-gallery">
        {visit.files.map((file) => {
          const raw = `${base}/files/${encodeURIComponent(file.id)}`;
          return (
            <li class="card">
              <Preview file={file} raw={raw} />
              <p>
                <a href={`${raw}?download=true`}>{file.originalName ?? file.name}</a>{" "}
                <span>{formatSize(file.size)}</span>
              </p>
            </li>
          );
        })}
      </ul>
    </Layout>
  );
}
