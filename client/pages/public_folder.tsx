/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * `/folder/<id>`: a public folder for anyone: its files a page at a time, and,
 * where the owner allows it, an upload box that uploads anonymously into it.
 */
import { useCallback, useEffect, useState } from "preact/hooks";
import { publicFolder, type PublicFolderPage } from "../api/files.ts";
import type { PageConfig } from "../config.ts";
import { formatBytes } from "../format.ts";
import { Icon, typeIcon } from "../icons.tsx";
import { DropZone } from "../components/drop_zone.tsx";
import { enqueue, UploadList } from "../components/uploads.tsx";

const PER_PAGE = 48;

/** The public folder page for the folder `id`. */
export function PublicFolderPage({ config, id }: { config: PageConfig; id: string }) {
  const [data, setData] = useState<PublicFolderPage | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [page, setPage] = useState(1);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    publicFolder(id, page, PER_PAGE).then(setData, (e: Error) => setError(e.message));
  }, [id, page, version]);
  // Uploads name the folder by its id (the page may have been opened by a public folder's name).
  const folderId = data?.folder.id ?? id;
  const onFiles = useCallback(
    (files: File[]) =>
      enqueue(files, { folder: folderId }, config.chunkSize, () => setVersion((v) => v + 1), true),
    [folderId, config],
  );
  if (error) return <p class="error" role="alert">{error}</p>;
  if (!data) return <p class="muted">Loading…</p>;
  const { folder } = data;
  return (
    <>
      <h1>
        <Icon name="folder" size={24} /> {folder.name}
      </h1>
      {folder.allowUploads && (
        <div class="uploader">
          <DropZone onFiles={onFiles} />
          <UploadList />
        </div>
      )}
      {folder.public && (
        <>
          <p class="muted">{data.total} {data.total === 1 ? "file" : "files"}</p>
          <ul class="file-grid" aria-label="Files">
            {data.page.map((file) => (
              <li key={file.id} class="file-card">
                <a href={file.url} title={file.name}>
                  {file.type.startsWith("image/") && file.type !== "image/svg+xml" && !file.password
                    ? (
                      <img
                        class="thumb"
                        src={`/raw/${encodeURIComponent(file.name)}`}
                        alt=""
                        loading="lazy"
                      />
                    )
                    : (
                      <div class="thumb icon-thumb">
                        <Icon name={typeIcon(file.type)} size={36} />
                      </div>
                    )}
                  <span class="file-name">{file.name}</span>
                </a>
                <span class="muted">{formatBytes(file.size)}</span>
              </li>
            ))}
          </ul>
          {data.pages > 1 && (
            <nav class="pager" aria-label="Pages">
              <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                Previous
              </button>
              <span>Page {page} of {data.pages}</span>
              <button type="button" disabled={page >= data.pages} onClick={() => setPage(page + 1)}>
                Next
              </button>
            </nav>
          )}
        </>
      )}
    </>
  );
}
