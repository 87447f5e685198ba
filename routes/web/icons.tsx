/** @jsxImportSource hono/jsx */
/**
 * Lucide icons drawn by the server into the page (the frame's navigation,
 * menus and notices), so the sidebar needs no script. Each is decorative
 * (`aria-hidden`): the link or button beside it carries the label. The
 * dashboard's own components draw theirs with `client/icons.tsx`.
 */
// Each icon from its own module: the package's index holds every icon (some 16 MiB of a
// server's memory, bench/results/memory.md), of which the frame draws these.
import type { IconNode } from "lucide";
import ArrowLeftRight from "lucide/dist/esm/icons/arrow-left-right.mjs";
import BookOpen from "lucide/dist/esm/icons/book-open.mjs";
import ChartLine from "lucide/dist/esm/icons/chart-line.mjs";
import ChevronDown from "lucide/dist/esm/icons/chevron-down.mjs";
import CircleAlert from "lucide/dist/esm/icons/circle-alert.mjs";
import CircleCheck from "lucide/dist/esm/icons/circle-check.mjs";
import ExternalLink from "lucide/dist/esm/icons/external-link.mjs";
import Files from "lucide/dist/esm/icons/files.mjs";
import FileText from "lucide/dist/esm/icons/file-text.mjs";
import FileUp from "lucide/dist/esm/icons/file-up.mjs";
import Folder from "lucide/dist/esm/icons/folder.mjs";
import House from "lucide/dist/esm/icons/house.mjs";
import Inbox from "lucide/dist/esm/icons/inbox.mjs";
import Link from "lucide/dist/esm/icons/link.mjs";
import LogIn from "lucide/dist/esm/icons/log-in.mjs";
import LogOut from "lucide/dist/esm/icons/log-out.mjs";
import MailPlus from "lucide/dist/esm/icons/mail-plus.mjs";
import Menu from "lucide/dist/esm/icons/menu.mjs";
import Palette from "lucide/dist/esm/icons/palette.mjs";
import ScrollText from "lucide/dist/esm/icons/scroll-text.mjs";
import SearchX from "lucide/dist/esm/icons/search-x.mjs";
import Settings from "lucide/dist/esm/icons/settings.mjs";
import Shield from "lucide/dist/esm/icons/shield.mjs";
import ShieldX from "lucide/dist/esm/icons/shield-x.mjs";
import Tags from "lucide/dist/esm/icons/tags.mjs";
import TriangleAlert from "lucide/dist/esm/icons/triangle-alert.mjs";
import UserPlus from "lucide/dist/esm/icons/user-plus.mjs";
import UserRound from "lucide/dist/esm/icons/user-round.mjs";
import Users from "lucide/dist/esm/icons/users.mjs";
import Webhook from "lucide/dist/esm/icons/webhook.mjs";
import Wrench from "lucide/dist/esm/icons/wrench.mjs";
import X from "lucide/dist/esm/icons/x.mjs";
import { svgAttributes, svgChildren } from "../../client/icon_svg.ts";

/** The icons the frame uses, by name. */
export const FRAME_ICONS = {
  home: House,
  "upload-file": FileUp,
  "upload-text": FileText,
  requests: Inbox,
  files: Files,
  urls: Link,
  folders: Folder,
  tags: Tags,
  stats: ChartLine,
  users: Users,
  invites: MailPlus,
  settings: Settings,
  audit: ScrollText,
  webhooks: Webhook,
  transfer: ArrowLeftRight,
  maintenance: Wrench,
  account: UserRound,
  security: Shield,
  logout: LogOut,
  login: LogIn,
  register: UserPlus,
  menu: Menu,
  close: X,
  chevron: ChevronDown,
  external: ExternalLink,
  docs: BookOpen,
  ok: CircleCheck,
  alert: CircleAlert,
  warning: TriangleAlert,
  "not-found": SearchX,
  forbidden: ShieldX,
  theme: Palette,
} satisfies Record<string, IconNode>;

/** A frame icon's name. */
export type FrameIcon = keyof typeof FRAME_ICONS;

/** One icon at the text's colour. */
export function Icon({ name, size = 18 }: { name: FrameIcon; size?: number }) {
  return (
    <svg {...svgAttributes(size)}>
      {svgChildren(FRAME_ICONS[name]).map(([Tag, attrs], i) => <Tag key={i} {...attrs} />)}
    </svg>
  );
}
