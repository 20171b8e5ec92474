/** Roles that may manage an organization and write its datapacks. */
const ADMIN_ROLES = ['owner', 'admin'] as const;

/** Whether a stored role holds `role`; better-auth stores several roles comma-joined ("admin,member"). */
export function hasRole(roles: string, role: string): boolean {
  return roles.split(',').some((r) => r.trim() === role);
}

/** Whether a stored role makes its holder an organization admin (owners are admins too). */
export function isAdminRole(roles: string): boolean {
  return ADMIN_ROLES.some((role) => hasRole(roles, role));
}
