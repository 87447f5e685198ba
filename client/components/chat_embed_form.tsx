/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * A Discord embed setting (`chatOnUploadEmbed`, `chatOnShortenEmbed`) as a
 * form, as Zipline's Discord settings page has it: whether to send one, its
 * title, description, footer and colour, and whether it shows the thumbnail,
 * the image or video, the time and a link. The settings page keeps every
 * value as the text it sends; this reads and writes the embed's JSON in the
 * order the server answers it, so an untouched embed is not "changed".
 */

/** The embed's fields, in the server's order. */
interface Embed {
  title: string | null;
  description: string | null;
  footer: string | null;
  color: string | null;
  thumbnail: boolean;
  imageOrVideo: boolean;
  timestamp: boolean;
  url: boolean;
}

const EMPTY: Embed = {
  title: null,
  description: null,
  footer: null,
  color: null,
  thumbnail: false,
  imageOrVideo: false,
  timestamp: false,
  url: false,
};

const SWITCHES: [keyof Embed, string][] = [
  ["thumbnail", "Show the thumbnail"],
  ["imageOrVideo", "Show the image or video"],
  ["timestamp", "Show the time"],
  ["url", "Link the title to the file"],
];

/** Whether the setting `meta` is an embed, edited by {@link EmbedFields}. */
export function isEmbed(meta: { key: string; control: string }): boolean {
  return meta.control === "json" && /^chatOn\w+Embed$/.test(meta.key);
}

/** The embed the text `value` holds, or `null` for none. */
function parse(value: string): Embed | null {
  if (value.trim() === "") return null;
  try {
    return { ...EMPTY, ...JSON.parse(value) };
  } catch {
    return { ...EMPTY };
  }
}

/** `embed` as the text the settings page sends (the server's order: unchanged stays equal). */
function write(embed: Embed | null): string {
  if (embed === null) return "";
  const ordered = Object.fromEntries(
    (Object.keys(EMPTY) as (keyof Embed)[]).map((k) => [k, embed[k]]),
  );
  return JSON.stringify(ordered, null, 2);
}

/** The embed form of the setting `id`, whose text is `value`. */
export function EmbedFields(
  { id, value, locked, onChange }: {
    id: string;
    value: string | boolean;
    locked: boolean;
    onChange: (value: string) => void;
  },
) {
  const embed = parse(String(value));
  const set = (change: Partial<Embed>) => onChange(write({ ...(embed ?? EMPTY), ...change }));
  const text = (field: "title" | "description" | "footer" | "color", label: string) => (
    <label class="field">
      <span>{label}</span>
      {field === "description"
        ? (
          <textarea
            rows={3}
            disabled={locked}
            value={embed?.[field] ?? ""}
            onInput={(e) => set({ [field]: e.currentTarget.value || null })}
          />
        )
        : (
          <input
            type="text"
            disabled={locked}
            placeholder={field === "color" ? "#5865f2" : undefined}
            value={embed?.[field] ?? ""}
            onInput={(e) => set({ [field]: e.currentTarget.value || null })}
          />
        )}
    </label>
  );
  return (
    <fieldset class="embed-fields" id={id} aria-labelledby={`${id}-label`} disabled={locked}>
      <label class="check">
        <input
          type="checkbox"
          checked={embed !== null}
          onChange={(e) => onChange(write(e.currentTarget.checked ? embed ?? EMPTY : null))}
        />
        Send an embed
      </label>
      {embed && (
        <div class="options-grid">
          {text("title", "Embed title")}
          {text("description", "Embed description")}
          {text("footer", "Embed footer")}
          {text("color", "Embed colour")}
          {SWITCHES.map(([field, label]) => (
            <label key={field} class="check">
              <input
                type="checkbox"
                checked={embed[field] as boolean}
                onChange={(e) => set({ [field]: e.currentTarget.checked })}
              />
              {label}
            </label>
          ))}
        </div>
      )}
    </fieldset>
  );
}
