/**
 * The administrators' dashboard pages and the statistics page: which role
 * each needs, and the navigation links a user is shown for them. The server
 * refuses the API calls behind them anyway; this keeps people from pages that
 * would only fail.
 */
import { statsRefusal } from "../../core/metrics.ts";
import { hasRole } from "../../core/roles.ts";
import type { Settings } from "../../core/settings/registry.ts";
import type { Role } from "../../db/users.ts";

/** One page: its path, navigation label, `client/main.tsx` page name and the role it needs. */
export interface AdminPage {
  path: string;
  label: string;
  page: string;
  title: string;
  role: Role;
}

/** The pages, in navigation order. */
export const ADMIN_PAGES: readonly AdminPage[] = [
  { path: "/dashboard/admin/users", label: "Users", page: "users", title: "Users", role: "ADMIN" },
  {
    path: "/dashboard/admin/settings",
    label: "Server settings",
    page: "server-settings",
    title: "Server settings",
    role: "ADMIN",
  },
  {
    path: "/dashboard/admin/audit",
    label: "Audit trail",
    page: "audit",
    title: "Audit trail",
    role: "SUPERADMIN",
  },
  {
    path: "/dashboard/admin/webhooks",
    label: "Webhooks",
    page: "webhooks",
    title: "Webhooks",
    role: "SUPERADMIN",
  },
  {
    path: "/dashboard/admin/transfer",
    label: "Import and export",
    page: "transfer",
    title: "Import and export",
    role: "SUPERADMIN",
  },
  {
    path: "/dashboard/admin/maintenance",
    label: "Maintenance",
    page: "maintenance",
    title: "Maintenance",
    role: "ADMIN",
  },
];

/** A navigation link: path and label. */
export type NavLink = readonly [string, string];

/** The statistics and administration links a user of `role` is shown. */
export function adminLinks(role: Role, settings: Settings): NavLink[] {
  const links: NavLink[] = statsRefusal(settings, role) === null
    ? [["/dashboard/stats", "Statistics"]]
    : [];
  for (const p of ADMIN_PAGES) if (hasRole(role, p.role)) links.push([p.path, p.label]);
  return links;
}
