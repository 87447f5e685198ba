/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * A file's picture: its thumbnail or the image itself where there is one, else
 * its type's icon; a lock for a file behind a password (its bytes need it).
 */
import { signal } from "@preact/signals";
import type { ApiFile } from "../api.ts";
import { Icon, typeIcon } from "../icons.tsx";

/** The user's "Disable media preview": every file drawn as its type's icon. */
export const noMediaPreview = signal(false);

/** The thumbnail of `file` (or the image), served to its owner by `/api/user/files/<…>/raw`. */
export function FileThumb({ file }: { file: ApiFile }) {
  const image = file.thumbnail !== null ||
    (file.type.startsWith("image/") && file.type !== "image/svg+xml");
  if (!image || file.password || noMediaPreview.value) {
    return (
      <div class="thumb icon-thumb">
        <Icon name={file.password ? "lock" : typeIcon(file.type)} size={36} />
      </div>
    );
  }
  const src = `/api/user/files/${encodeURIComponent(file.thumbnail?.path ?? file.id)}/raw`;
  return <img class="thumb" src={src} alt="" loading="lazy" decoding="async" />;
}
