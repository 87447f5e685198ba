/**
 * Avatars: a base64 data URI of a raster image, or an http(s) URL. Kept in
 * the store (not on disk), so they travel with exports and every instance
 * sees them; hence the size cap.
 */
import { badRequest } from "./errors.ts";
import type { Services } from "./services.ts";

/** The longest avatar accepted, in characters of the data URI (512 KiB). */
export const AVATAR_MAX_LENGTH = 512 * 1024;

const DATA_URI = /^data:image\/(png|jpeg|gif|webp|avif);base64,([A-Za-z0-9+/]+={0,2})$/;

/** Returns the avatar when valid; 400 naming the problem otherwise. SVG is refused: it can carry script. */
export function checkAvatar(value: string): string {
  if (value.length > AVATAR_MAX_LENGTH) {
    throw badRequest(`avatar is too large: at most ${AVATAR_MAX_LENGTH} characters`);
  }
  if (value.startsWith("data:")) {
    const match = value.match(DATA_URI);
    if (!match || match[2].length % 4 !== 0) {
      throw badRequest("avatar must be a base64 data URI of a png, jpeg, gif, webp or avif image");
    }
    return value;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw badRequest("avatar must be a base64 image data URI or an http(s) URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw badRequest("avatar must be a base64 image data URI or an http(s) URL");
  }
  return value;
}

const IMAGE_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
};

/**
 * The avatar new users get: the image file named by `websiteDefaultAvatar`,
 * as a data URI; `null` when none is set or it cannot be used (logged).
 */
export async function defaultAvatar(s: Services): Promise<string | null> {
  const path = s.settings.get("websiteDefaultAvatar");
  if (!path) return null;
  const type = IMAGE_TYPES[path.split(".").pop()?.toLowerCase() ?? ""];
  try {
    if (!type) throw new Error("not a png, jpeg, gif, webp or avif file");
    return checkAvatar(`data:${type};base64,${encodeBase64(await Deno.readFile(path))}`);
  } catch (error) {
    s.logger.warn("websiteDefaultAvatar cannot be used", { path, error: (error as Error).message });
    return null;
  }
}

function encodeBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}
