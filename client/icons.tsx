/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/// <reference lib="dom" />
/**
 * Lucide icons as Preact elements. Only the icons named here end up in the
 * bundle; each is decorative (`aria-hidden`), its control carries the label.
 */
import {
  AudioLines,
  ChartLine,
  Check,
  CircleAlert,
  Copy,
  Download,
  ExternalLink,
  File,
  FileText,
  Film,
  Folder,
  Grid2x2,
  Image,
  Link,
  List,
  Lock,
  Pencil,
  QrCode,
  Search,
  Star,
  Trash,
  Upload,
  X,
} from "lucide";
import { svgAttributes, svgChildren } from "./icon_svg.ts";

type IconNode = typeof Upload;

/** The icons the dashboard uses, by name. */
export const ICONS = {
  alert: CircleAlert,
  check: Check,
  copy: Copy,
  download: Download,
  open: ExternalLink,
  file: File,
  text: FileText,
  video: Film,
  folder: Folder,
  grid: Grid2x2,
  image: Image,
  link: Link,
  list: List,
  search: Search,
  lock: Lock,
  edit: Pencil,
  qr: QrCode,
  audio: AudioLines,
  star: Star,
  trash: Trash,
  upload: Upload,
  visits: ChartLine,
  close: X,
} satisfies Record<string, IconNode>;

/** An icon's name. */
export type IconName = keyof typeof ICONS;

/** One icon, drawn at the text's size in its colour. */
export function Icon({ name, size = 18 }: { name: IconName; size?: number }) {
  return (
    <svg {...svgAttributes(size)}>
      {svgChildren(ICONS[name]).map(([Tag, attrs], i) => <Tag key={i} {...attrs} />)}
    </svg>
  );
}

/** The icon that stands for a MIME type. */
export function typeIcon(type: string): IconName {
  if (type.startsWith("image/")) return "image";
  if (type.startsWith("video/")) return "video";
  if (type.startsWith("audio/")) return "audio";
  if (type.startsWith("text/")) return "text";
  return "file";
}

/** A button showing only an icon; `label` is its accessible name, `title` its tooltip. */
export function IconButton(
  { icon, label, title, danger, disabled, pressed, expanded, onClick }: {
    icon: IconName;
    label: string;
    title?: string;
    danger?: boolean;
    disabled?: boolean;
    pressed?: boolean;
    expanded?: boolean;
    onClick?: () => void;
  },
) {
  return (
    <button
      type="button"
      class={danger ? "icon-button danger" : "icon-button"}
      aria-label={label}
      title={title}
      disabled={disabled}
      aria-pressed={pressed}
      aria-expanded={expanded}
      onClick={onClick}
    >
      <Icon name={icon} />
    </button>
  );
}
