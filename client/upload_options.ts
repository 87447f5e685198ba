/** The upload options of `POST /api/upload` and the headers that carry them (no DOM: tested alone). */

/** The upload options of `POST /api/upload`, sent as `x-service-*` headers. */
export interface UploadOptions {
  format?: string;
  deletesAt?: string;
  password?: string;
  maxViews?: string;
  folder?: string;
  originalName?: boolean;
  domain?: string;
  /** Headers sent as they are (an upload request's `x-service-request…`). */
  extra?: Record<string, string>;
}

/** The `x-service-*` headers of `options`. */
export function optionHeaders(options: UploadOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const set = (name: string, value: string | undefined) => {
    if (value !== undefined && value.trim() !== "") headers[`x-service-${name}`] = value.trim();
  };
  set("format", options.format);
  set("deletes-at", options.deletesAt);
  set("password", options.password);
  set("max-views", options.maxViews);
  set("folder", options.folder);
  set("domain", options.domain);
  if (options.originalName) headers["x-service-original-name"] = "true";
  return { ...headers, ...options.extra };
}
