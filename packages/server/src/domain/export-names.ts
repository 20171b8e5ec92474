import type { Store } from '../store/store.js';
import type { Datapack } from '../store/types.js';
import type { OwnerLine } from './export-format.js';

/**
 * Translates between this Cairn's ids and the names an export file uses (user emails, organization
 * and team names), caching each lookup: a file names the same few people thousands of times.
 */
export class NameDirectory {
  private readonly emails = new Map<string, string>();
  private readonly userIds = new Map<string, string | undefined>();
  private orgs: { id: string; name: string }[] | undefined;
  private readonly teams = new Map<string, { id: string; name: string }[]>();

  /**
   * `self`: a signed-in caller's import (the JSON API). Only their own email is linked to an account
   * here; anyone else the file names stays the text it gives, so a crafted file cannot credit
   * entries to another user of this Cairn. The operator's `cairn import` links every known email.
   */
  constructor(
    private readonly store: Store,
    private readonly self?: { userId: string; email: string },
  ) {}

  /** A user's email; a stored value that names no user (someone removed) is kept as it is. */
  async email(userId: string): Promise<string> {
    let email = this.emails.get(userId);
    if (email === undefined) {
      email = (await this.store.getUser(userId))?.email ?? userId;
      this.emails.set(userId, email);
    }
    return email;
  }

  /** The id of the user with this email, or undefined when there is none here. */
  async userId(email: string): Promise<string | undefined> {
    if (!this.userIds.has(email)) this.userIds.set(email, (await this.store.findUserByEmail(email))?.id);
    return this.userIds.get(email);
  }

  /** A person named in provenance: their id here when they exist, otherwise the name as the file gave it. */
  async person(name: string): Promise<string> {
    if (this.self) return name.toLowerCase() === this.self.email.toLowerCase() ? this.self.userId : name;
    return name.includes('@') ? ((await this.userId(name)) ?? name) : name;
  }

  async organizations(): Promise<{ id: string; name: string }[]> {
    this.orgs ??= await this.store.listOrganizations();
    return this.orgs;
  }

  async organizationByName(name: string): Promise<{ id: string; name: string } | undefined> {
    return (await this.organizations()).find((o) => o.name.toLowerCase() === name.toLowerCase());
  }

  async teamsOf(organizationId: string): Promise<{ id: string; name: string }[]> {
    let teams = this.teams.get(organizationId);
    if (!teams) {
      teams = (await this.store.listTeams(organizationId)).map(({ id, name }) => ({ id, name }));
      this.teams.set(organizationId, teams);
    }
    return teams;
  }

  /** A datapack's owner by name, as the file records it. */
  async owner(d: Datapack): Promise<OwnerLine> {
    if (d.scope === 'personal') return { user: await this.email(d.ownerId) };
    const org = (await this.organizations()).find((o) => o.id === (d.organizationId ?? d.ownerId));
    const organization = org?.name ?? d.organizationId ?? d.ownerId;
    if (d.scope === 'organization') return { organization };
    const team = (await this.teamsOf(d.organizationId ?? '')).find((t) => t.id === d.ownerId);
    return { team: team?.name ?? d.ownerId, organization };
  }

  /** The owner a file names, resolved here, or why it cannot be (a missing user, organization or team). */
  async resolveOwner(
    owner: OwnerLine,
  ): Promise<{ ownerId: string; organizationId: string | null } | { missing: string }> {
    if ('user' in owner) {
      const id = await this.userId(owner.user);
      return id ? { ownerId: id, organizationId: null } : { missing: `user ${owner.user}` };
    }
    const org = await this.organizationByName(owner.organization);
    if (!org) return { missing: `organization "${owner.organization}"` };
    if (!('team' in owner)) return { ownerId: org.id, organizationId: org.id };
    const team = (await this.teamsOf(org.id)).find((t) => t.name.toLowerCase() === owner.team.toLowerCase());
    return team
      ? { ownerId: team.id, organizationId: org.id }
      : { missing: `team "${owner.team}" of "${owner.organization}"` };
  }
}
