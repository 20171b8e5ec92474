import { mergeFindings, type RedactionFinding, redact } from '@cairn/contract/redaction';
import { z } from 'zod';
import { CairnError } from '../errors/cairn-error.js';
import type { ConversationTurn, Datapack, Entry, EntryVersion, SearchHit } from '../store/types.js';
import type { Access } from './access.js';
import { appliesInput, normalApplies } from './applies.js';
import { auditEntry } from './audit.js';
import { provenanceOf } from './caller.js';
import { readableDatapacks, resolveDatapack } from './datapacks.js';
import type { DomainDeps } from './deps.js';
import { assertExpiresAhead, assertOwnerMayRead, dateInput, ownerInput } from './lifecycle.js';
import { newEntry } from './new-entry.js';
import { parse } from './parse-input.js';
import { contentHash, NEAR_DUPLICATE_THRESHOLD, similarityTo } from './similarity.js';

/** The kinds of knowledge Cairn holds; guidance ranks them by the level of their datapack. */
export const ENTRY_KINDS = ['preference', 'standard', 'policy', 'decision', 'note', 'conversation'] as const;

// Lower-cased and de-duplicated by the domain (normalTags), after redaction: lower-casing first
// would hide secrets from case-sensitive patterns such as AWS key ids.
// No default here: update_entry without tags must keep the entry's tags (a default would replace them with []).
const tags = z.array(z.string().trim().min(1).max(40)).max(20).describe('Short lower-case labels, e.g. "testing"');

/** Input of saveEntry. */
export const saveEntryInput = z.object({
  datapack: z.string().optional().describe('Datapack id or name; default: personal'),
  kind: z.enum(ENTRY_KINDS).default('note'),
  title: z.string().trim().min(1).max(200),
  content: z.string().trim().min(1).max(20_000).describe('The knowledge, self-contained'),
  tags: tags.default([]),
  allowSimilar: z
    .boolean()
    .default(false)
    .describe('Save even if a similar entry exists, once you found yours differs'),
  applies: appliesInput.optional().describe('Where it applies besides its topic'),
  supersedes: z
    .array(z.string().trim().min(1).max(100))
    .max(20)
    .optional()
    .describe('Ids of entries this one replaces'),
  owner: ownerInput.optional().describe('User id'),
  reviewBy: dateInput.optional().describe('YYYY-MM-DD'),
  expires: dateInput.optional().describe('YYYY-MM-DD'),
});

/** Input of updateEntry: the fields to change plus the version the caller last saw. */
export const updateEntryInput = z.object({
  id: z.string(),
  expectedVersion: z.number().int().min(1).describe('The version you read'),
  kind: z.enum(ENTRY_KINDS).optional(),
  title: z.string().trim().min(1).max(200).optional(),
  content: z.string().trim().min(1).max(20_000).optional(),
  tags: tags.optional(),
  applies: appliesInput.nullable().optional().describe('Replaces where it applies; null clears it'),
  owner: ownerInput.optional(),
  reviewBy: dateInput.nullable().optional(),
  expires: dateInput.nullable().optional().describe('null clears'),
});

/** Input of searchEntries. */
export const searchEntriesInput = z.object({
  query: z.string().trim().max(1000).default('').describe('Plain words; none, with a filter, lists newest first'),
  datapack: z.string().optional().describe('One datapack (id or name)'),
  kinds: z.array(z.enum(ENTRY_KINDS)).optional(),
  tags: z
    .array(z.string().trim().toLowerCase().min(1).max(60))
    .max(10)
    .optional()
    .describe('Entries with all these tags'),
  scopes: z.array(z.enum(['personal', 'team', 'organization'])).optional(),
  author: z.string().max(200).optional().describe('User id of its author'),
  limit: z.number().int().min(1).max(50).default(10),
  includeReplaced: z.boolean().default(false).describe('Also entries a newer one replaced'),
});

/** Replaced entries are few: this many more ranked entries are looked at so that hiding them rarely shortens a page. */
const REPLACED_MARGIN = 20;

/** A page of a list. Out of range is refused, not clamped: a client that reads "fewer than limit" as "the end" must not be misled. */
export const pageInput = z.object({
  limit: z
    .number()
    .int()
    .min(1, 'must be at least 1')
    .max(200, 'must be at most 200; page with offset for more')
    .default(50)
    .describe('How many entries, 1 to 200'),
  offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0).describe('How many to skip'),
});

/**
 * What saving produced: a new entry, or the existing one it nearly duplicates; and which secrets
 * were removed from what the caller sent (by rule and count, never the secrets).
 */
export type SaveResult = (
  | { status: 'created'; entry: Entry }
  | { status: 'duplicate'; entry: Entry; similarity: number; exact: boolean }
) & { redacted: RedactionFinding[] };

/** Saves an entry unless the datapack already holds the same or nearly the same knowledge. */
export async function saveEntry(
  deps: DomainDeps,
  access: Access,
  raw: z.input<typeof saveEntryInput>,
): Promise<SaveResult> {
  const { fields, redacted } = redactFields(raw);
  const input = parse(saveEntryInput, fields);
  const datapack = await resolveDatapack(deps, access, input.datapack);
  access.assertWrite(datapack);
  if (input.applies?.always) access.assertMayMarkAlways(datapack);
  assertExpiresAhead(deps, input.expires);
  if (input.owner) await assertOwnerMayRead(deps, access, datapack, input.owner);
  const hash = contentHash(input.title, input.content);
  const exact = await deps.store.findEntryByContentHash(datapack.id, hash);
  if (exact && !exact.replacedBy) return { status: 'duplicate', entry: exact, similarity: 1, exact: true, redacted };
  const replacing = await entriesToReplace(deps, access, input.supersedes ?? [], datapack);
  if (!input.allowSimilar) {
    const text = `${input.title}\n${input.content}`;
    const candidates = await deps.store.rankedEntries({
      datapackIds: [datapack.id],
      text,
      limit: 5,
      forDuplicateCheck: true,
    });
    const similarityOf = similarityTo(text);
    for (const { entry } of candidates) {
      // A rule that replaces another may say nearly the same; a replaced rule is no longer there to duplicate.
      if (entry.replacedBy || replacing.some((r) => r.entry.id === entry.id)) continue;
      const score = similarityOf(`${entry.title}\n${entry.content}`);
      if (score >= NEAR_DUPLICATE_THRESHOLD)
        return { status: 'duplicate', entry, similarity: round(score), exact: false, redacted };
    }
  }
  const now = deps.now();
  const { userId } = access.caller;
  const client = provenanceOf(access.caller);
  const entry = newEntry(deps, {
    datapackId: datapack.id,
    kind: input.kind,
    title: input.title,
    content: input.content,
    tags: normalTags(input.tags),
    contentHash: hash,
    by: userId,
    client,
    createdAt: now,
    updatedAt: now,
    applies: normalApplies(input.applies),
    supersedes: replacing.map((r) => r.entry.id),
    replacedBy: null,
    owner: input.owner ?? userId,
    reviewBy: input.reviewBy ?? null,
    expires: input.expires ?? null,
  });
  const replaced = replacing.map(({ entry: old }) => ({
    next: {
      ...old,
      replacedBy: entry.id,
      version: old.version + 1,
      updatedBy: userId,
      updatedClient: client,
      updatedAt: now,
    },
    expectedVersion: old.version,
  }));
  await deps.store.insertEntry(entry, replaced);
  auditEntry(deps, access.caller, 'entry.created', entry, datapack);
  for (const [i, r] of replacing.entries())
    auditEntry(deps, access.caller, 'entry.updated', replaced[i]!.next, r.datapack);
  return { status: 'created', entry, redacted };
}

/** What an agent or script is told when a save was refused as a duplicate: what exists, and what to do instead. */
export function duplicateMessage(result: { entry: Entry; similarity: number; exact: boolean }): string {
  const existing = `"${result.entry.title}" (${result.entry.id}, version ${result.entry.version})`;
  if (result.exact) return `Not saved: ${existing} already holds exactly this text. To change it, update that entry.`;
  return `Not saved: it is ${Math.round(result.similarity * 100)}% like ${existing}. Read that entry: if yours says the same, update that entry instead; if it is different knowledge, save again with allowSimilar: true.`;
}

/** Changes an entry if it is still at the version the caller saw; says which secrets were removed from the change. */
export async function updateEntry(
  deps: DomainDeps,
  access: Access,
  raw: z.input<typeof updateEntryInput>,
): Promise<{ entry: Entry; redacted: RedactionFinding[] }> {
  const { fields, redacted } = redactFields(raw);
  const input = parse(updateEntryInput, fields);
  const { entry: current, datapack } = await writableEntry(deps, access, input.id);
  const title = input.title ?? current.title;
  const content = input.content ?? current.content;
  const next: Entry = {
    ...current,
    kind: input.kind ?? current.kind,
    title,
    content,
    tags: input.tags ? normalTags(input.tags) : current.tags,
    applies: input.applies === undefined ? (current.applies ?? null) : normalApplies(input.applies),
    owner: input.owner ?? current.owner ?? current.createdBy,
    reviewBy: input.reviewBy === undefined ? (current.reviewBy ?? null) : input.reviewBy,
    expires: input.expires === undefined ? (current.expires ?? null) : input.expires,
    contentHash: contentHash(title, content),
    version: current.version + 1,
    updatedBy: access.caller.userId,
    updatedClient: provenanceOf(access.caller),
    updatedAt: deps.now(),
  };
  // An "always" rule reaches every agent of the datapack: making one, or changing one that stays so, is for those who may.
  if (next.applies?.always) access.assertMayMarkAlways(datapack);
  // An expiry already past may stay as it is (a change of another field); a new one must be ahead.
  if (input.expires !== undefined && input.expires !== current.expires) assertExpiresAhead(deps, input.expires);
  if (input.owner && input.owner !== (current.owner ?? current.createdBy))
    await assertOwnerMayRead(deps, access, datapack, input.owner);
  await replaceOrConflict(deps, next, input.expectedVersion, 'update');
  auditEntry(deps, access.caller, 'entry.updated', next, datapack);
  return { entry: next, redacted };
}

function normalTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((t) => t.toLowerCase()))];
}

/**
 * Removes secrets from the text a caller sent (title, content, tags) before anything validates,
 * stores or compares it, so whatever the adapter, no secret is stored or echoed back.
 */
function redactFields<T>(raw: T): { fields: T; redacted: RedactionFinding[] } {
  if (!raw || typeof raw !== 'object') return { fields: raw, redacted: [] };
  const found: RedactionFinding[] = [];
  const clean = (value: unknown) => {
    if (typeof value !== 'string') return value;
    const { text, findings } = redact(value);
    found.push(...findings);
    return text;
  };
  const input = raw as Record<string, unknown>;
  const fields: Record<string, unknown> = { ...input };
  if ('title' in input) fields.title = clean(input.title);
  if ('content' in input) fields.content = clean(input.content);
  if (Array.isArray(input.tags)) fields.tags = input.tags.map(clean);
  if (input.applies && typeof input.applies === 'object') {
    const applies = { ...(input.applies as Record<string, unknown>) };
    for (const list of ['files', 'projects'])
      if (Array.isArray(applies[list])) applies[list] = applies[list].map(clean);
    if ('when' in applies) applies.when = clean(applies.when);
    fields.applies = applies;
  }
  return { fields: fields as T, redacted: mergeFindings(found) };
}

/** Soft-deletes an entry; its history stays. Without expectedVersion, deletes whatever version is current. */
export async function deleteEntry(
  deps: DomainDeps,
  access: Access,
  id: string,
  expectedVersion?: number,
): Promise<Entry> {
  const { entry: current, datapack } = await writableEntry(deps, access, id);
  const now = deps.now();
  const next: Entry = {
    ...current,
    version: current.version + 1,
    updatedBy: access.caller.userId,
    updatedClient: provenanceOf(access.caller),
    updatedAt: now,
    deletedAt: now,
  };
  await replaceOrConflict(deps, next, expectedVersion ?? current.version, 'delete');
  auditEntry(deps, access.caller, 'entry.deleted', next, datapack);
  return next;
}

/** An entry the caller can read, with its history when asked. */
/** How many turns before and after a captured turn get_entry may add. */
export const MAX_TURNS_AROUND = 10;

export async function getEntry(
  deps: DomainDeps,
  access: Access,
  id: string,
  withHistory = false,
  around = 0,
): Promise<{ entry: Entry; history?: EntryVersion[]; conversation?: ConversationTurn[] }> {
  if (!Number.isInteger(around) || around < 0 || around > MAX_TURNS_AROUND)
    throw new CairnError('invalid_input', `around must be a whole number from 0 to ${MAX_TURNS_AROUND}`);
  const { entry } = await readableEntry(deps, access, id);
  // The turns come from the entry's own datapack, which the caller can read.
  const [history, conversation] = await Promise.all([
    withHistory ? deps.store.listEntryVersions(id) : undefined,
    around > 0 ? deps.store.listTurnsAround(id, around) : undefined,
  ]);
  return { entry, ...(history && { history }), ...(conversation && { conversation }) };
}

/** A page of a readable datapack's live entries, most recently changed first. */
export async function listEntries(
  deps: DomainDeps,
  access: Access,
  datapackId: string,
  page: z.input<typeof pageInput> = {},
): Promise<Entry[]> {
  const datapack = await deps.store.getDatapack(datapackId);
  access.assertRead(datapack);
  const { limit, offset } = parse(pageInput, page);
  return deps.store.listEntries(datapack.id, { limit, offset });
}

/** Ranked full-text search over every datapack the caller can read (or one of them). */
export async function searchEntries(
  deps: DomainDeps,
  access: Access,
  raw: z.input<typeof searchEntriesInput>,
): Promise<SearchHit[]> {
  const input = parse(searchEntriesInput, raw);
  const filtered = Boolean(
    input.datapack || input.kinds?.length || input.tags?.length || input.scopes?.length || input.author,
  );
  if (!input.query && !filtered) {
    throw new CairnError(
      'invalid_input',
      'query: say a few words to search for, or give a filter (datapack, kinds, tags, scopes, author) to list entries newest first.',
    );
  }
  const packs = input.datapack
    ? [await resolveDatapack(deps, access, input.datapack)]
    : await readableDatapacks(deps, access);
  const datapackIds = packs.filter((d) => !input.scopes?.length || input.scopes.includes(d.scope)).map((d) => d.id);
  const { tags, author, kinds, includeReplaced } = input;
  const shown = (h: SearchHit) => includeReplaced || !h.entry.replacedBy;
  // Filters choose the candidates before ranking: a match ranked anywhere is found, not only near the top.
  if (!input.query) {
    const listed = await deps.store.filteredEntries({ datapackIds, kinds, tags, author, includeReplaced }, input.limit);
    return listed.map((entry) => ({ entry, score: 0 }));
  }
  const only =
    tags?.length || author ? await deps.store.filteredEntryIds({ datapackIds, kinds, tags, author }) : undefined;
  const limit = includeReplaced ? input.limit : input.limit + REPLACED_MARGIN;
  const hits = await deps.store.rankedEntries({
    datapackIds,
    text: input.query,
    kinds,
    limit,
    forReader: true,
    ...(only && { only }),
  });
  return hits.filter(shown).slice(0, input.limit);
}

async function readableEntry(
  deps: DomainDeps,
  access: Access,
  id: string,
): Promise<{ entry: Entry; datapack: Datapack }> {
  const entry = await deps.store.getEntry(id);
  const datapack = entry && !entry.deletedAt ? await deps.store.getDatapack(entry.datapackId) : undefined;
  if (!entry || !datapack || !access.canRead(datapack)) {
    throw new CairnError('not_found', `No entry ${id} is visible to you; search to find the entry you want.`);
  }
  return { entry, datapack };
}

/** The entries a new one replaces: each one the caller can change, live and not replaced already. */
async function entriesToReplace(
  deps: DomainDeps,
  access: Access,
  ids: readonly string[],
  into: Datapack,
): Promise<{ entry: Entry; datapack: Datapack }[]> {
  const found: { entry: Entry; datapack: Datapack }[] = [];
  for (const id of new Set(ids)) {
    const target = await writableEntry(deps, access, id);
    // Everyone who got the old rule must be able to read the new one: its own datapack, or its organization's.
    const seenByAll =
      target.datapack.id === into.id ||
      (into.scope === 'organization' && target.datapack.organizationId === into.ownerId);
    if (!seenByAll) {
      throw new CairnError(
        'invalid_input',
        `Entry ${id} is in "${target.datapack.name}"; a rule can be replaced only by one saved in the same datapack or in its organization's, so that everyone who had it gets the new one.`,
      );
    }
    if (target.entry.replacedBy) {
      throw new CairnError(
        'conflict',
        `Entry ${id} ("${target.entry.title}") was already replaced by ${target.entry.replacedBy}; replace that one instead, or restore ${id} first.`,
      );
    }
    found.push(target);
  }
  return found;
}

export async function writableEntry(
  deps: DomainDeps,
  access: Access,
  id: string,
): Promise<{ entry: Entry; datapack: Datapack }> {
  const found = await readableEntry(deps, access, id);
  access.assertWrite(found.datapack);
  return found;
}

async function replaceOrConflict(
  deps: DomainDeps,
  next: Entry,
  expectedVersion: number,
  change: 'update' | 'delete',
): Promise<void> {
  if (await deps.store.replaceEntry(next, expectedVersion, change)) return;
  const now = await deps.store.getEntry(next.id);
  throw new CairnError(
    'version_conflict',
    `Entry ${next.id} is at version ${now?.version ?? 'unknown'}, not ${expectedVersion}: someone changed it. Read it again, then retry with the new version.`,
    {
      currentVersion: now?.version,
    },
  );
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
