import { CairnError } from '../errors/cairn-error.js';
import type { Datapack, Memberships, OwnerRef, UserRecord } from '../store/types.js';
import type { Caller } from './caller.js';
import type { DomainDeps } from './deps.js';
import { assertMayWrite, mayWrite } from './key-scope.js';
import { isAdminRole } from './roles.js';

/**
 * A caller's reach: their personal datapacks, their teams' and their organizations'.
 * Reading follows membership; writing an organization datapack needs an admin or owner role.
 */
export class Access {
  constructor(
    readonly caller: Caller,
    readonly memberships: Memberships,
    /** The caller's account (undefined once deleted), read with the memberships and kept as long. */
    readonly user: Readonly<UserRecord> | undefined,
  ) {}

  /** Owner selectors for everything this caller may read. */
  readableOwners(): OwnerRef[] {
    return [
      { scope: 'personal', ownerId: this.caller.userId },
      ...this.memberships.teams.map((t) => ({ scope: 'team' as const, ownerId: t.id })),
      ...this.memberships.organizations.map((o) => ({ scope: 'organization' as const, ownerId: o.id })),
    ];
  }

  canRead(d: Datapack): boolean {
    return membershipReads(this.caller.userId, this.memberships, d);
  }

  canWrite(d: Datapack): boolean {
    if (!mayWrite(this.caller)) return false;
    if (d.scope === 'organization') return this.isOrgAdmin(d.ownerId);
    return this.canRead(d);
  }

  /**
   * Whether the caller may make (or change) an entry of `d` that every agent receives with every task
   * (`applies.always`): at team level only the organization's admins and owners (Cairn has no team
   * admin role), since a teammate's "always" rule reaches every teammate's agent unasked; at
   * organization level whoever may write there (admins); in a personal datapack its owner.
   */
  canMarkAlways(d: Datapack): boolean {
    if (!this.canWrite(d)) return false;
    if (d.scope === 'team') return d.organizationId !== null && this.isOrgAdmin(d.organizationId);
    return true;
  }

  assertMayMarkAlways(d: Datapack): void {
    if (this.canMarkAlways(d)) return;
    throw new CairnError(
      'forbidden',
      `Only an admin or owner of the organization can make or change an "always" rule in the team datapack "${d.name}": it reaches every teammate's agent with every task. Save it without "always" (with files or projects it applies where they match), or ask an organization admin.`,
    );
  }

  isOrgAdmin(organizationId: string): boolean {
    return this.memberships.organizations.some((o) => o.id === organizationId && isAdminRole(o.role));
  }

  /** Throws a not_found (not forbidden) error, so a datapack's existence never leaks to outsiders. */
  assertRead(d: Datapack | undefined, what = 'datapack'): asserts d is Datapack {
    if (!d || !this.canRead(d))
      throw new CairnError(
        'not_found',
        `No ${what} with that id is visible to you; list your datapacks to see what you can use.`,
      );
  }

  /** Refuses any change by a read-only caller; every write verb passes through here or assertWrite. */
  assertMayWrite(): void {
    assertMayWrite(this.caller);
  }

  assertWrite(d: Datapack): void {
    this.assertMayWrite();
    if (this.canWrite(d)) return;
    const why =
      d.scope === 'organization'
        ? `Only organization admins can change "${d.name}" (organization policies). Ask an admin, or save it to your personal datapack.`
        : `You cannot change "${d.name}".`;
    throw new CairnError('forbidden', why);
  }
}

/** Whether a user with these memberships can read `d`: their own personal datapack, their teams' and their organizations'. */
export function membershipReads(userId: string, memberships: Memberships, d: Datapack): boolean {
  if (d.scope === 'personal') return d.ownerId === userId;
  if (d.scope === 'team') return memberships.teams.some((t) => t.id === d.ownerId);
  return memberships.organizations.some((o) => o.id === d.ownerId);
}

/**
 * The caller's memberships, once per request: read at the epoch the credential was checked under,
 * or the current one. The same Memberships object comes back until the epoch moves, so what is
 * derived from it (readableDatapacks) is kept as long.
 */
export async function loadAccess(deps: DomainDeps, caller: Caller): Promise<Access> {
  const cache = deps.caches.access;
  const epoch = caller.accessEpoch ?? (await deps.store.accessEpoch());
  let held = cache.get(caller.userId, epoch);
  if (!held) {
    const [memberships, user] = await Promise.all([
      deps.store.getMemberships(caller.userId),
      deps.store.getUser(caller.userId),
    ]);
    held = { memberships: Object.freeze(memberships), user: user && Object.freeze(user) };
    cache.set(caller.userId, epoch, held);
  }
  return new Access(caller, held.memberships, held.user);
}
