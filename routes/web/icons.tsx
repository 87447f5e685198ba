/** @jsxImportSource hono/jsx */
/**
 * Lucide icons drawn by the server into the page (the frame's navigation,
 * menus and notices), so the sidebar needs no script. Each is decorative
 * (`aria-hidden`): the link or button beside it carries the label. The
 * dashboard's own components draw theirs with `client/icons.tsx`.
 */
import {
  ArrowLeftRight,
  BookOpen,
  ChartLine,
  ChevronDown,
  CircleAlert,
  CircleCheck,
  ExternalLink,
  Files,
  FileText,
  FileUp,
  Folder,
  House,
  Inbox,
  Link,
  LogIn,
  LogOut,
  MailPlus,
  Menu,
  Palette,
  ScrollText,
  SearchX,
  Settings,
  Shield,
  ShieldX,
  Tags,
  TriangleAlert,
  UserPlus,
  UserRound,
  Users,
  Webhook,
  Wrench,
  X,
} from "lucide";
import { svgAttributes, svgChildren } from "../../client/icon_svg.ts";

type IconNode = typeof House;

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
