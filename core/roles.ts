/**
 * The role order and the "may act on" rules. Every route that checks a role
 * asks this module; nothing else compares roles.
 */
import { type Role, ROLES } from "../db/users.ts";

const rank = (role: Role) => ROLES.indexOf(role);

/** `true` for ADMIN and SUPERADMIN. */
export function isAdministrator(role: Role): boolean {
  return rank(role) >= rank("ADMIN");
}

/** `true` when `role` is at least `needed`. */
export function hasRole(role: Role, needed: Role): boolean {
  return rank(role) >= rank(needed);
}

/** `true` when a caller of role `actor` may manage a user of role `target`: strictly lower only. */
export function canManage(actor: Role, target: Role): boolean {
  return isAdministrator(actor) && rank(target) < rank(actor);
}

/** `true` when a caller of role `actor` may give a user the role `role`: at or below its own. */
export function canAssign(actor: Role, role: Role): boolean {
  return isAdministrator(actor) && rank(role) <= rank(actor);
}
