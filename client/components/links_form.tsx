/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * The settings page's form for `websiteExternalLinks`: one row per link
 * (its label and its address, a URL or a path on this server), each
 * removable, and "Add a link"; written back as the JSON text the page sends.
 */

/** One external link as the setting holds it. */
interface Link {
  name: string;
  url: string;
}

/** A link's fields: key, label (after "Link N") and placeholder. */
const FIELDS = [["name", "name", "Name"], ["url", "URL", "https://… or /path"]] as const;

/** Whether the setting `meta` is edited by this form. */
export function isLinkList(meta: { key: string }): boolean {
  return meta.key === "websiteExternalLinks";
}

/** The links the text `value` holds (none when it is not a list). */
function parse(value: string): Link[] {
  try {
    const parsed = JSON.parse(value);
    return Array.isArray(parsed)
      ? parsed.map((l) => ({ name: String(l?.name ?? ""), url: String(l?.url ?? "") }))
      : [];
  } catch {
    return [];
  }
}

/** The link rows of the setting `id`, whose text is `value`. */
export function LinkListFields(
  { id, value, locked, onChange }: {
    id: string;
    value: string | boolean;
    locked: boolean;
    onChange: (value: string) => void;
  },
) {
  const links = parse(String(value));
  const write = (next: Link[]) => onChange(JSON.stringify(next, null, 2));
  const set = (i: number, change: Partial<Link>) =>
    write(links.map((l, j) => j === i ? { ...l, ...change } : l));
  return (
    <fieldset class="link-list" id={id} aria-labelledby={`${id}-label`} disabled={locked}>
      {links.length === 0 && <p class="muted">No links.</p>}
      {links.map((link, i) => (
        <div class="link-row" key={i}>
          {FIELDS.map(([field, label, placeholder]) => (
            <input
              key={field}
              type="text"
              aria-label={`Link ${i + 1} ${label}`}
              placeholder={placeholder}
              value={link[field]}
              onInput={(e) => set(i, { [field]: e.currentTarget.value })}
            />
          ))}
          <button
            type="button"
            aria-label={`Remove link ${i + 1}`}
            onClick={() => write(links.filter((_, j) => j !== i))}
          >
            Remove
          </button>
        </div>
      ))}
      <button type="button" onClick={() => write([...links, { name: "", url: "" }])}>
        Add a link
      </button>
    </fieldset>
  );
}
