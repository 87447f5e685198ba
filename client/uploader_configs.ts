/**
 * The uploader configurations the account page generates for this user and
 * server: ShareX custom uploaders (`.sxcu`) for files and for short URLs, an
 * iShare custom uploader (`.iscu`), and a shell script for Flameshot (or any
 * screenshot tool) that uploads with curl and copies the link. Each holds an
 * API key made for it with only the scope it needs ({@link UPLOADER_TOOLS}),
 * or the account's token when asked. Pure functions, so a test can check
 * what they write.
 */
import { optionHeaders, type UploadOptions } from "./upload_options.ts";

/** What every configuration needs: where the server is and what it authenticates with. */
export interface ConfigTarget {
  origin: string;
  /** The `Authorization` value: an API key made for the tool, or the account's token. */
  token: string;
  /** A name for the configuration, e.g. the site's title. */
  name: string;
}

/** A ShareX custom uploader for files (images, text and any file). */
export function sharexFiles(target: ConfigTarget, options: UploadOptions): string {
  return JSON.stringify(
    {
      Version: "17.0.0",
      Name: `${target.name} (files)`,
      DestinationType: "ImageUploader, TextUploader, FileUploader",
      RequestMethod: "POST",
      RequestURL: `${target.origin}/api/upload`,
      Headers: { Authorization: target.token, ...optionHeaders(options) },
      Body: "MultipartFormData",
      FileFormName: "file",
      URL: "{json:files[0].url}",
      ErrorMessage: "{json:error}",
    },
    null,
    2,
  );
}

/** A ShareX custom uploader that shortens URLs. */
export function sharexUrls(target: ConfigTarget): string {
  return JSON.stringify(
    {
      Version: "17.0.0",
      Name: `${target.name} (URLs)`,
      DestinationType: "URLShortener, URLSharingService",
      RequestMethod: "POST",
      RequestURL: `${target.origin}/api/user/urls`,
      Headers: { Authorization: target.token },
      Body: "JSON",
      Data: '{"destination":"{input}"}',
      URL: "{json:url}",
      ErrorMessage: "{json:error}",
    },
    null,
    2,
  );
}

/** An iShare (macOS) custom uploader for files; iShare shortens no URLs. */
export function ishareFiles(target: ConfigTarget, options: UploadOptions): string {
  return JSON.stringify(
    {
      name: `${target.name} (files)`,
      requesturl: `${target.origin}/api/upload`,
      headers: { Authorization: target.token, ...optionHeaders(options) },
      fileformname: "file",
      responseurl: "{{files[0].url}}",
    },
    null,
    2,
  );
}

/** The configurations the account page offers. */
export type UploaderTool = "sharex-files" | "sharex-urls" | "ishare" | "flameshot";

/**
 * Per tool: the name its key gets, the one scope the key holds (uploads, or
 * short URLs), and the file it is offered as.
 */
export const UPLOADER_TOOLS: Record<
  UploaderTool,
  { keyName: string; scope: "files:write" | "urls:write"; file: string; type: string }
> = {
  "sharex-files": {
    keyName: "ShareX (files)",
    scope: "files:write",
    file: "files.sxcu",
    type: "application/json",
  },
  "sharex-urls": {
    keyName: "ShareX (URLs)",
    scope: "urls:write",
    file: "urls.sxcu",
    type: "application/json",
  },
  ishare: {
    keyName: "iShare",
    scope: "files:write",
    file: "ishare.iscu",
    type: "application/json",
  },
  flameshot: {
    keyName: "Flameshot",
    scope: "files:write",
    file: "flameshot.sh",
    type: "text/x-shellscript",
  },
};

/** The text of `tool`'s configuration for `target` with the upload `options`. */
export function uploaderConfig(
  tool: UploaderTool,
  target: ConfigTarget,
  options: UploadOptions,
): string {
  switch (tool) {
    case "sharex-files":
      return sharexFiles(target, options);
    case "sharex-urls":
      return sharexUrls(target);
    case "ishare":
      return ishareFiles(target, options);
    case "flameshot":
      return flameshotScript(target, options);
  }
}

/** `value` quoted for a POSIX shell. */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'"'"'`)}'`;
}

/**
 * A shell script that takes a region screenshot with Flameshot, uploads it
 * with curl and copies the link (Wayland's wl-copy or X11's xclip).
 */
export function flameshotScript(target: ConfigTarget, options: UploadOptions): string {
  const headers = Object.entries({
    Authorization: target.token,
    ...optionHeaders(options),
    "x-service-no-json": "true",
  })
    .map(([name, value]) => `  -H ${shellQuote(`${name}: ${value}`)} \\`);
  return [
    "#!/bin/sh",
    `# Uploads a Flameshot screenshot to ${target.origin} and copies its link.`,
    "set -eu",
    'shot="$(mktemp --suffix=.png)"',
    "trap 'rm -f \"$shot\"' EXIT",
    'flameshot gui --raw > "$shot"',
    '[ -s "$shot" ] || exit 0 # cancelled',
    'link="$(curl -fsS \\',
    ...headers,
    '  -F "file=@$shot;type=image/png" \\',
    `  ${shellQuote(`${target.origin}/api/upload`)})"`,
    'if command -v wl-copy >/dev/null; then printf %s "$link" | wl-copy',
    'else printf %s "$link" | xclip -selection clipboard; fi',
    'notify-send "Uploaded" "$link" 2>/dev/null || echo "$link"',
    "",
  ].join("\n");
}
