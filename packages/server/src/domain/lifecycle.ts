import { z } from 'zod';
import { CairnError } from '../errors/cairn-error.js';
import type { Datapack, Entry } from '../store/types.js';
import { type Access, membershipReads } from './access.js';
import type { DomainDeps } from './deps.js';

// A rule's lifecycle: who answers for it, when to review it, when it stops being served. Dates are
// calendar days in UTC, compared with the domain's clock (deps.now), which tests can set.

/** Whether `text` is a real calendar date written YYYY-MM-DD (2027-02-30 is not). */
export function isCalendarDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text;
}

/** A date field as adapters take it; refined rather than given a pattern, so tools/list stays short. */
export const dateInput = z
  .string()
  .trim()
  .refine(isCalendarDate, 'must be a real date written YYYY-MM-DD, such as 2027-03-31');

/** An owner's user id; bounded by a refinement, not minLength and maxLength, for the same reason. */
export const ownerInput = z
  .string()
  .trim()
  .refine((id) => id.length > 0 && id.length <= 100, 'must be a user id (up to 100 characters)');

/** Today's date (UTC) by the domain's clock. */
export function today(deps: Pick<DomainDeps, 'now'>): string {
  return deps.now().slice(0, 10);
}

/** Past its expiry date: no longer served by guidance (served through the day itself). */
export function isExpired(e: Pick<Entry, 'expires'>, day: string): boolean {
  return !!e.expires && e.expires < day;
}

/** Past its review-by date: flagged to its owner and admins, still served. */
export function isReviewDue(e: Pick<Entry, 'reviewBy'>, day: string): boolean {
  return !!e.reviewBy && e.reviewBy < day;
}

/** An entry's owner: who was named, else its author. */
export function ownerOf(e: Pick<Entry, 'owner' | 'createdBy'>): string {
  return e.owner ?? e.createdBy;
}

/** Refuses a new expiry date before today: an entry saved already expired would never be served. */
export function assertExpiresAhead(deps: Pick<DomainDeps, 'now'>, expires: string | null | undefined): void {
  if (!expires) return;
  const day = today(deps);
  if (expires < day)
    throw new CairnError(
      'invalid_input',
      `Invalid input — expires: ${expires} is before today (${day}); give today or a later date, or null for no expiry.`,
    );
}

/**
 * Refuses an owner who could not read the datapack: whoever answers for a rule must be able to see
 * it. Only a writer of the datapack gets here (the caller's write access is checked first).
 */
export async function assertOwnerMayRead(
  deps: DomainDeps,
  access: Access,
  datapack: Datapack,
  owner: string,
): Promise<void> {
  if (owner === access.caller.userId || (await mayOwn(deps, datapack, owner))) return;
  throw new CairnError(
    'invalid_input',
    `Invalid input — owner: ${owner} is not a member who can read "${datapack.name}"; name a user id from the datapack's members, or leave owner out to keep its author.`,
  );
}

/** Whether `userId` is an existing user who can read `datapack` now: who may answer for its rules. */
export async function mayOwn(deps: DomainDeps, datapack: Datapack, userId: string): Promise<boolean> {
  const [user, memberships] = await Promise.all([deps.store.getUser(userId), deps.store.getMemberships(userId)]);
  return !!user && membershipReads(userId, memberships, datapack);
}

/**
 * The owner a restored version gets: the version's own owner while they can still read the
 * datapack, else the entry's current owner if they can, else the restorer (who may write it, so
 * read it). A restore never brings back an owner who left the organization or team.
 */
export async function restoredOwner(
  deps: DomainDeps,
  access: Access,
  datapack: Datapack,
  candidates: readonly string[],
): Promise<string> {
  for (const who of new Set(candidates)) if (await mayOwn(deps, datapack, who)) return who;
  return access.caller.userId;
}
