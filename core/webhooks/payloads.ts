/**
 * Webhook bodies (spec §6.1). Each is built field by field from the event, so
 * nothing secret (password hashes, tokens, TOTP secrets, passkeys, OAuth
 * providers, file passwords) can ride along.
 */

/** A completed upload, as webhooks tell it. */
export interface UploadEvent {
  user: { id: string; username: string; role: string; avatar: string | null; createdAt: Date };
  file: {
    id: string;
    name: string;
    originalName: string | null;
    size: number;
    type: string;
    createdAt: Date;
    views: number;
    favorite: boolean;
  };
  /** `raw`: the file's raw URL. */
  link: { raw: string };
}

/**
 * The `user` of an upload sent without an account into a folder open to
 * uploads (reference §5.7): a placeholder, not the folder's owner.
 */
export function anonymousUploader(at: Date): UploadEvent["user"] {
  return { id: "anonymous", username: "anonymous", role: "USER", avatar: null, createdAt: at };
}

/**
 * A file received through an upload request, as webhooks tell it: `user` is
 * the request's owner (whose file it is), `uploader` the name its sender gave.
 */
export interface RequestUploadEvent extends UploadEvent {
  request: { id: string; name: string; files: number; bytes: number };
  uploader: string | null;
}

/** A shortened URL, as webhooks tell it. */
export interface ShortenEvent {
  user: { id: string; username: string; role: string };
  url: { id: string; code: string; destination: string; views: number; createdAt: Date };
  /** `raw`: the short URL. */
  link: { raw: string };
}

/** The HTTP webhook body for an upload. */
export function uploadBody(e: UploadEvent) {
  return {
    type: "upload" as const,
    data: {
      user: {
        id: e.user.id,
        username: e.user.username,
        role: e.user.role,
        avatar: e.user.avatar,
        createdAt: e.user.createdAt.toISOString(),
      },
      file: {
        id: e.file.id,
        name: e.file.name,
        originalName: e.file.originalName,
        size: e.file.size,
        type: e.file.type,
        createdAt: e.file.createdAt.toISOString(),
        views: e.file.views,
        favorite: e.file.favorite,
      },
      link: { raw: e.link.raw },
    },
  };
}

/** The HTTP webhook body for a file received through an upload request. */
export function requestUploadBody(e: RequestUploadEvent) {
  return {
    type: "request-upload" as const,
    data: {
      ...uploadBody(e).data,
      request: {
        id: e.request.id,
        name: e.request.name,
        files: e.request.files,
        bytes: e.request.bytes,
      },
      uploader: e.uploader,
    },
  };
}

/** The HTTP webhook body for a shortened URL. */
export function shortenBody(e: ShortenEvent) {
  return {
    type: "shorten" as const,
    data: {
      user: { id: e.user.id, username: e.user.username, role: e.user.role },
      url: {
        id: e.url.id,
        code: e.url.code,
        destination: e.url.destination,
        views: e.url.views,
        createdAt: e.url.createdAt.toISOString(),
      },
      link: { raw: e.link.raw },
    },
  };
}
