/**
 * Chat-platform webhooks (spec §6.2): sent only when the event has a
 * configuration of its own; to the event's URL, else the global one; text
 * with template variables substituted, unknown ones left as they are.
 */
import { fillPlaceholders } from "../placeholders.ts";
import type { Settings } from "../settings/registry.ts";
import type { RequestUploadEvent, ShortenEvent, UploadEvent } from "./payloads.ts";

/** The event a chat message is about. */
export type ChatEvent =
  | { type: "upload"; event: UploadEvent }
  | { type: "shorten"; event: ShortenEvent }
  | { type: "request-upload"; event: RequestUploadEvent };

/** The variables a template may use, by name. */
function variables(e: ChatEvent): Record<string, string> {
  const common = {
    "user.username": e.event.user.username,
    "user.id": e.event.user.id,
    "link.raw": e.event.link.raw,
  };
  if (e.type === "shorten") {
    return { ...common, "url.destination": e.event.url.destination, "url.code": e.event.url.code };
  }
  const file = {
    ...common,
    "file.name": e.event.file.name,
    "file.size": String(e.event.file.size),
    "file.type": e.event.file.type,
  };
  if (e.type === "upload") return file;
  return {
    ...file,
    "request.name": e.event.request.name,
    "request.uploader": e.event.uploader ?? "someone",
  };
}

/** The settings of the chat message for events of `type`. */
function configOf(settings: Settings, type: ChatEvent["type"]) {
  switch (type) {
    case "upload":
      return {
        url: settings.chatOnUploadWebhookUrl,
        username: settings.chatOnUploadUsername,
        avatar: settings.chatOnUploadAvatarUrl,
        content: settings.chatOnUploadContent,
        embed: settings.chatOnUploadEmbed,
      };
    case "shorten":
      return {
        url: settings.chatOnShortenWebhookUrl,
        username: settings.chatOnShortenUsername,
        avatar: settings.chatOnShortenAvatarUrl,
        content: settings.chatOnShortenContent,
        embed: settings.chatOnShortenEmbed,
      };
    case "request-upload":
      return {
        url: settings.chatOnRequestUploadWebhookUrl,
        username: settings.chatOnRequestUploadUsername,
        avatar: settings.chatOnRequestUploadAvatarUrl,
        content: settings.chatOnRequestUploadContent,
        embed: settings.chatOnRequestUploadEmbed,
      };
  }
}

/** `#rgb` or `#rrggbb` (the `#` optional) as the integer chat platforms take. */
export function colourNumber(hex: string): number {
  const digits = hex.replace("#", "");
  const full = digits.length === 3 ? [...digits].map((d) => d + d).join("") : digits;
  return parseInt(full, 16);
}

/** A chat message to send: where, and the JSON body. */
export interface ChatMessage {
  url: string;
  body: {
    username: string | null;
    avatar_url: string | null;
    content: string | null;
    embeds: Record<string, unknown>[];
  };
}

/** The message for `e` under `settings`, or `null` when nothing is to be sent. */
export function chatMessage(settings: Settings, e: ChatEvent): ChatMessage | null {
  const on = configOf(settings, e.type);
  if (Object.values(on).every((v) => v === null)) return null;
  const url = on.url ?? settings.chatWebhookUrl;
  if (!url) return null;
  const values = variables(e);
  const fill = (text: string | null) => text === null ? null : fillPlaceholders(text, values);
  const embeds: Record<string, unknown>[] = [];
  if (on.embed) {
    const embed: Record<string, unknown> = {};
    if (on.embed.title !== null) embed.title = fill(on.embed.title);
    if (on.embed.description !== null) embed.description = fill(on.embed.description);
    if (on.embed.color !== null) embed.color = colourNumber(on.embed.color);
    if (on.embed.footer !== null) embed.footer = { text: fill(on.embed.footer) };
    if (on.embed.timestamp) {
      embed.timestamp = (e.type === "shorten" ? e.event.url.createdAt : e.event.file.createdAt)
        .toISOString();
    }
    const media = e.type !== "shorten" && /^(image|video)\//.test(e.event.file.type);
    if (media && on.embed.imageOrVideo) embed.image = { url: e.event.link.raw };
    if (media && on.embed.thumbnail) embed.thumbnail = { url: e.event.link.raw };
    embeds.push(embed);
  }
  return {
    url,
    body: {
      username: on.username ?? settings.chatUsername,
      avatar_url: on.avatar ?? settings.chatAvatarUrl,
      content: fill(on.content),
      embeds,
    },
  };
}
