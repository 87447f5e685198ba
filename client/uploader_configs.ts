/**
 * The uploader configurations the account page generates for this user and
 * server, as Zipline's generators make them: ShareX custom uploaders
 * (`.sxcu`) for files and for short URLs (optionally for the Xshare app),
 * an iShare custom uploader (`.iscu`), a Flameshot script, and shell
 * scripts that upload a file or shorten a URL with curl; the scripts copy
 * the link with xclip (X11), wl-copy (Wayland) or pbcopy (macOS), or print
 * it. Each holds an API key made for it with only the scope it needs
 * ({@link UPLOADER_TOOLS}), or the account's token when asked. Pure
 * functions, so a test can check what they write.
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

/** How a generated configuration differs by platform (Zipline's generator options). */
export interface ToolOptions {
  /** Where a script puts the link: X11's clipboard, Wayland's, macOS's, or printed. */
  clipboard?: "x11" | "wayland" | "macos" | "echo";
  /**
   * Flameshot on a Wayland compositor other than GNOME, KDE or Sway (Hyprland…):
   * the script sets `XDG_CURRENT_DESKTOP=sway`, as Zipline's does.
   */
  otherCompositor?: boolean;
  /** ShareX for Android's Xshare app, which reads `$json:…$` in place of `{json:…}`. */
  xshare?: boolean;
}

/** A ShareX custom uploader for files (images, text and any file). */
export function sharexFiles(
  target: ConfigTarget,
  options: UploadOptions,
  tool: ToolOptions = {},
): string {
  const read = (path: string) => tool.xshare ? `$json:${path}$` : `{json:${path}}`;
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
      URL: read("files[0].url"),
      ErrorMessage: read("error"),
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
export type UploaderTool =
  | "sharex-files"
  | "sharex-urls"
  | "ishare"
  | "flameshot"
  | "script-files"
  | "script-urls";

/**
 * Per tool: the name its key gets, the one scope the key holds (uploads, or
 * short URLs), the file it is offered as, and whether it is a shell script
 * (which the clipboard choice applies to).
 */
export const UPLOADER_TOOLS: Record<
  UploaderTool,
  {
    keyName: string;
    scope: "files:write" | "urls:write";
    file: string;
    type: string;
    script: boolean;
  }
> = {
  "sharex-files": {
    keyName: "ShareX (files)",
    scope: "files:write",
    file: "files.sxcu",
    type: "application/json",
    script: false,
  },
  "sharex-urls": {
    keyName: "ShareX (URLs)",
    scope: "urls:write",
    file: "urls.sxcu",
    type: "application/json",
    script: false,
  },
  ishare: {
    keyName: "iShare",
    scope: "files:write",
    file: "ishare.iscu",
    type: "application/json",
    script: false,
  },
  flameshot: {
    keyName: "Flameshot",
    scope: "files:write",
    file: "flameshot.sh",
    type: "text/x-shellscript",
    script: true,
  },
  "script-files": {
    keyName: "Shell script (files)",
    scope: "files:write",
    file: "upload.sh",
    type: "text/x-shellscript",
    script: true,
  },
  "script-urls": {
    keyName: "Shell script (URLs)",
    scope: "urls:write",
    file: "shorten.sh",
    type: "text/x-shellscript",
    script: true,
  },
};

/** The text of `tool`'s configuration for `target` with the upload `options`. */
export function uploaderConfig(
  tool: UploaderTool,
  target: ConfigTarget,
  options: UploadOptions,
  platform: ToolOptions = {},
): string {
  switch (tool) {
    case "sharex-files":
      return sharexFiles(target, options, platform);
    case "sharex-urls":
      return sharexUrls(target);
    case "ishare":
      return ishareFiles(target, options);
    case "flameshot":
      return flameshotScript(target, options, platform);
    case "script-files":
      return fileScript(target, options, platform);
    case "script-urls":
      return urlScript(target, options, platform);
  }
}

/** `value` quoted for a POSIX shell. */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'"'"'`)}'`;
}

/** The command a script pipes the link into: each platform's clipboard, or none. */
const COPIERS = {
  x11: "xclip -selection clipboard",
  wayland: "wl-copy",
  macos: "pbcopy",
  echo: null,
} as const;

/** The `-H` lines of curl for `headers`. */
function curlHeaders(headers: Record<string, string>): string[] {
  return Object.entries(headers).map(([name, value]) =>
    `  -H ${shellQuote(`${name}: ${value}`)} \\`
  );
}

/** Prints the link on its own line. */
const PRINT = `printf '%s\\n' "$link"`;

/** The end of every script: the link to the clipboard (and a notice), or printed. */
function deliver(platform: ToolOptions): string[] {
  const copier = COPIERS[platform.clipboard ?? "x11"];
  if (copier === null) return [PRINT];
  const notice = platform.clipboard === "macos"
    ? `osascript -e 'display notification "Link copied" with title "Uploaded"' 2>/dev/null || true`
    : 'notify-send "Uploaded" "$link" 2>/dev/null || true';
  return [`printf %s "$link" | ${copier}`, notice, PRINT];
}

/**
 * A shell script that takes a region screenshot with Flameshot, uploads it
 * with curl and copies the link.
 */
export function flameshotScript(
  target: ConfigTarget,
  options: UploadOptions,
  platform: ToolOptions = {},
): string {
  const compositor = platform.otherCompositor && platform.clipboard !== "macos"
    ? ["export XDG_CURRENT_DESKTOP=sway # Flameshot on a compositor other than GNOME, KDE or Sway"]
    : [];
  return [
    "#!/bin/sh",
    `# Uploads a Flameshot screenshot to ${target.origin} and copies its link.`,
    "set -eu",
    ...compositor,
    'shot="$(mktemp "${TMPDIR:-/tmp}/shot.XXXXXX")"',
    "trap 'rm -f \"$shot\"' EXIT",
    'flameshot gui --raw > "$shot"',
    '[ -s "$shot" ] || exit 0 # cancelled',
    'link="$(curl -fsS \\',
    ...curlHeaders({
      Authorization: target.token,
      ...optionHeaders(options),
      "x-service-no-json": "true",
    }),
    '  -F "file=@$shot;type=image/png" \\',
    `  ${shellQuote(`${target.origin}/api/upload`)})"`,
    ...deliver(platform),
    "",
  ].join("\n");
}

/** A shell script that uploads the file it is given (`upload.sh notes.txt`) and copies the link. */
export function fileScript(
  target: ConfigTarget,
  options: UploadOptions,
  platform: ToolOptions = {},
): string {
  return [
    "#!/bin/sh",
    `# Uploads a file to ${target.origin} and copies its link: upload.sh FILE`,
    "set -eu",
    'file="${1:?usage: upload.sh FILE}"',
    'type="$(file --mime-type -b "$file" 2>/dev/null || echo application/octet-stream)"',
    'link="$(curl -fsS \\',
    ...curlHeaders({
      Authorization: target.token,
      ...optionHeaders(options),
      "x-service-no-json": "true",
    }),
    '  -F "file=@$file;type=$type" \\',
    `  ${shellQuote(`${target.origin}/api/upload`)})"`,
    ...deliver(platform),
    "",
  ].join("\n");
}

/**
 * A shell script that shortens the URL it is given (`shorten.sh https://…`)
 * and copies the short link; of the upload options, max views and the
 * domain apply to short URLs.
 */
export function urlScript(
  target: ConfigTarget,
  options: UploadOptions,
  platform: ToolOptions = {},
): string {
  const all = optionHeaders(options);
  const kept = Object.fromEntries(
    Object.entries(all).filter(([name]) =>
      name === "x-service-max-views" || name === "x-service-domain"
    ),
  );
  return [
    "#!/bin/sh",
    `# Shortens a URL on ${target.origin} and copies the short link: shorten.sh URL`,
    "set -eu",
    'destination="${1:?usage: shorten.sh URL}"',
    "# The URL as a JSON string: backslashes and quotes escaped.",
    `escaped="$(printf %s "$destination" | sed 's/\\\\/\\\\\\\\/g; s/"/\\\\"/g')"`,
    'link="$(curl -fsS \\',
    ...curlHeaders({
      Authorization: target.token,
      ...kept,
      "x-service-no-json": "true",
      "content-type": "application/json",
    }),
    `  -d "{\\"destination\\":\\"$escaped\\"}" \\`,
    `  ${shellQuote(`${target.origin}/api/user/urls`)})"`,
    ...deliver(platform),
    "",
  ].join("\n");
}
