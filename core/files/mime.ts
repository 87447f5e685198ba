/**
 * MIME types by extension, for `filesAssumeMimetypes` and for uploads whose
 * client sent none. A short table of what people share; anything else is
 * `application/octet-stream`.
 */

const TYPES: Record<string, string> = {
  aac: "audio/aac",
  avif: "image/avif",
  bmp: "image/bmp",
  cast: "application/x-asciicast",
  css: "text/css",
  csv: "text/csv",
  flac: "audio/flac",
  gif: "image/gif",
  gz: "application/gzip",
  heic: "image/heic",
  htm: "text/html",
  html: "text/html",
  ico: "image/vnd.microsoft.icon",
  jpeg: "image/jpeg",
  jpg: "image/jpeg",
  js: "text/javascript",
  json: "application/json",
  jxl: "image/jxl",
  log: "text/plain",
  m4a: "audio/mp4",
  md: "text/markdown",
  mjs: "text/javascript",
  mkv: "video/x-matroska",
  mov: "video/quicktime",
  mp3: "audio/mpeg",
  mp4: "video/mp4",
  ogg: "audio/ogg",
  opus: "audio/opus",
  pdf: "application/pdf",
  png: "image/png",
  svg: "image/svg+xml",
  tar: "application/x-tar",
  tex: "text/x-tex",
  tiff: "image/tiff",
  ts: "video/mp2t",
  txt: "text/plain",
  wasm: "application/wasm",
  wav: "audio/wav",
  webm: "video/webm",
  webp: "image/webp",
  xml: "application/xml",
  zip: "application/zip",
  "7z": "application/x-7z-compressed",
};

/** The MIME type of `extension` (with or without its dot); `application/octet-stream` when unknown. */
export function mimeOf(extension: string): string {
  const last = extension.toLowerCase().split(".").pop() ?? "";
  return TYPES[last] ?? "application/octet-stream";
}
