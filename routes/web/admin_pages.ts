/**
 * The dashboard's navigation: every page a signed-in user reaches from the
 * sidebar, and the administrators' pages and the statistics page with the
 * role each needs (and, for a page of a feature that can be off, the setting
 * that shows it: Invites with `invitesEnabled`, as Zipline's sidebar does).
 * The server refuses the API calls behind them anyway; this keeps people from
 * pages that would only fail.
 */
import { statsRefusal } from "../../core/metrics.ts";
import { hasRole } from "../../core/roles.ts";
import type { Settings } from "../../core/settings/registry.ts";
import type { Role } from "../../db/users.ts";
import type { FrameIcon } from "./icons.tsx";

/** One page: its path, navigation label and icon, `client/main.tsx` page name and the role it needs. */
export interface AdminPage {
  path: string;
  label: string;
  icon: FrameIcon;
  page: string;
  title: string;
  role: Role;
  /** Whether the page exists under these settings (absent: always); hidden, it is a 404. */
  shown?: (settings: Settings) => boolean;
}

/** The pages, in navigation order. */
export const ADMIN_PAGES: readonly AdminPage[] = [
  {
    path: "/dashboard/admin/users",
    icon: "users",
    label: "Users",
    page: "users",
    title: "Users",
    role: "ADMIN",
  },
  {
    path: "/dashboard/admin/invites",
    icon: "invites",
    label: "Invites",
    page: "invites",
    title: "Invites",
    role: "ADMIN",
    shown: (settings) => settings.invitesEnabled,
  },
  {
    path: "/dashboard/admin/settings",
    icon: "settings",
    label: "Server settings",
    page: "server-settings",
    title: "Server settings",
    role: "ADMIN",
  },
  {
    path: "/dashboard/admin/audit",
    icon: "audit",
    label: "Audit trail",
    page: "audit",
    title: "Audit trail",
    role: "SUPERADMIN",
  },
  {
    path: "/dashboard/admin/webhooks",
    icon: "webhooks",
    label: "Webhooks",
    page: "webhooks",
    title: "Webhooks",
    role: "SUPERADMIN",
  },
  {
    path: "/dashboard/admin/transfer",
    icon: "transfer",
    label: "Import and export",
    page: "transfer",
    title: "Import and export",
    role: "SUPERADMIN",
  },
  {
    path: "/dashboard/admin/maintenance",
    icon: "maintenance",
    label: "Maintenance",
    page: "maintenance",
    title: "Maintenance",
    role: "ADMIN",
  },
];

/** A navigation link: its path, label and icon. */
export interface NavLink {
  href: string;
  label: string;
  icon: FrameIcon;
}

/** A group of links under a heading (`Upload`), or links of their own (no heading). */
export interface NavGroup {
  label?: string;
  links: NavLink[];
}

/** The pages every signed-in user has, grouped as Zipline's sidebar groups them. */
const USER_NAV: readonly NavGroup[] = [
  { links: [{ href: "/dashboard", label: "Home", icon: "home" }] },
  {
    label: "Upload",
    links: [
      { href: "/dashboard/upload", label: "File", icon: "upload-file" },
      { href: "/dashboard/upload/text", label: "Text", icon: "upload-text" },
      { href: "/dashboard/requests", label: "Requests", icon: "requests" },
    ],
  },
  {
    links: [
      { href: "/dashboard/files", label: "Files", icon: "files" },
      { href: "/dashboard/urls", label: "URLs", icon: "urls" },
      { href: "/dashboard/folders", label: "Folders", icon: "folders" },
      { href: "/dashboard/tags", label: "Tags", icon: "tags" },
    ],
  },
];

/** Whether the administration page `page` exists under `settings` (Invites: while invites are on). */
export function pageShown(page: AdminPage, settings: Settings): boolean {
  return page.shown?.(settings) ?? true;
}

/** The sidebar of a user of `role`: its own pages, statistics where allowed, and its administration. */
export function navigationOf(
  role: Role,
  settings: Settings,
): { main: NavGroup[]; admin: NavLink[] } {
  const main = USER_NAV.map((g) => ({ ...g, links: [...g.links] }));
  if (statsRefusal(settings, role) === null) {
    main[2].links.push({ href: "/dashboard/stats", label: "Statistics", icon: "stats" });
  }
  const admin = ADMIN_PAGES.filter((p) => hasRole(role, p.role) && pageShown(p, settings))
    .map((p) => ({ href: p.path, label: p.label, icon: p.icon }));
  return { main, admin };
}
