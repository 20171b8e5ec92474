import type { Insertable, Kysely } from 'kysely';
import { CairnError } from '../errors/cairn-error.js';
import { speakerWords } from '../search/index.js';
import { ENTRY_COLUMNS } from './hot-queries.js';
import { toEntry, toEntryRow, toVersion, toVersionRow } from './row-mappers.js';
import type { Database } from './schema.js';
import type { StoreContext } from './store-context.js';
import { takeIntoHeldPools } from './store-search.js';
import type { ConversationTurn, Entry, EntryVersion, TurnFields } from './types.js';

// Entries and their versions: writes keep the two in one transaction; reads see live entries unless named otherwise.

const entriesOf = (db: Kysely<Database>, datapackIds: readonly string[]) =>
  db.selectFrom('entry').select(ENTRY_COLUMNS).where('datapack_id', 'in', datapackIds);

/** The entries of these datapacks that `narrow` keeps, in its order; none without a datapack (`in ()` is no SQL). */
export async function entriesIn(
  db: Kysely<Database>,
  datapackIds: readonly string[],
  narrow: (q: ReturnType<typeof entriesOf>) => ReturnType<typeof entriesOf>,
): Promise<Entry[]> {
  if (datapackIds.length === 0) return [];
  const rows = await narrow(entriesOf(db, datapackIds)).execute();
  return rows.map(toEntry);
}

export async function insertEntry(
  s: StoreContext,
  entry: Entry,
  replaced: readonly { next: Entry; expectedVersion: number }[] = [],
): Promise<void> {
  await s.db.transaction().execute(async (tx) => {
    await tx.insertInto('entry').values(toEntryRow(entry)).execute();
    await tx.insertInto('entry_version').values(toVersionRow(entry, 'create')).execute();
    for (const { next, expectedVersion } of replaced) {
      const { id, ...row } = toEntryRow(next);
      const result = await tx
        .updateTable('entry')
        .set(row)
        .where('id', '=', id)
        .where('version', '=', expectedVersion)
        .where('deleted_at', 'is', null)
        .where('replaced_by', 'is', null)
        .executeTakeFirst();
      // Thrown inside the transaction: the new entry is not stored either.
      if (Number(result.numUpdatedRows) !== 1)
        throw new CairnError(
          'version_conflict',
          `Entry ${id} changed, was deleted or was replaced while this one was saved; read it again and retry.`,
        );
      await tx.insertInto('entry_version').values(toVersionRow(next, 'update')).execute();
    }
  });
  s.embedder?.notify();
  if (replaced.length === 0) await takeIntoHeldPools(s, entry);
}

export async function insertCapturedTurn(
  s: StoreContext,
  entry: Entry,
  userId: string,
  turnId: string,
  turn: TurnFields,
): Promise<{ stored: boolean; entryId: string }> {
  const earlier = (db: Kysely<Database> = s.db) =>
    db
      .selectFrom('capture_turn')
      .select('entry_id')
      .where('user_id', '=', userId)
      .where('turn_id', '=', turnId)
      .executeTakeFirst();
  return s.db
    .transaction()
    .execute(async (tx) => {
      const seen = await earlier(tx);
      if (seen) return { stored: false, entryId: seen.entry_id };
      await tx.insertInto('entry').values(toEntryRow(entry)).execute();
      await tx.insertInto('entry_version').values(toVersionRow(entry, 'create')).execute();
      // A concurrent sender of the same turn loses here on the primary key, and its whole transaction rolls back.
      await tx
        .insertInto('capture_turn')
        .values({
          user_id: userId,
          turn_id: turnId,
          entry_id: entry.id,
          created_at: entry.createdAt,
          session_id: turn.sessionId ?? null,
          speaker: turn.speaker ?? null,
          role: turn.role,
        })
        .execute();
      return { stored: true, entryId: entry.id };
    })
    .then(async (outcome) => {
      if (!outcome.stored) return outcome;
      s.embedder?.notify();
      await takeIntoHeldPools(
        s,
        entry,
        turn.sessionId
          ? {
              session: turn.sessionId,
              at: entry.createdAt,
              speaker: turn.speaker ? speakerWords(turn.speaker) : undefined,
            }
          : null,
      );
      return outcome;
    })
    .catch(async (error: unknown) => {
      if (!s.isUniqueViolation(error) && (error as { code?: string }).code !== 'SQLITE_CONSTRAINT_PRIMARYKEY')
        throw error;
      const winner = await earlier();
      if (!winner) throw error;
      return { stored: false, entryId: winner.entry_id };
    });
}

export async function replaceEntry(
  s: StoreContext,
  next: Entry,
  expectedVersion: number,
  change: 'update' | 'delete',
): Promise<boolean> {
  const replaced = await writeNextVersion(s, next, expectedVersion, toVersionRow(next, change), true);
  if (replaced && change === 'update') s.embedder?.notify();
  return replaced;
}

export async function restoreEntryVersion(
  s: StoreContext,
  next: Entry,
  expectedVersion: number,
  restoredFrom: number,
): Promise<boolean> {
  const version = { ...toVersionRow(next, 'restore'), restored_from: restoredFrom };
  // A restore may bring a deleted entry back, so it does not ask for a live one.
  const restored = await writeNextVersion(s, next, expectedVersion, version, false);
  if (restored) s.embedder?.notify();
  return restored;
}

/** Writes `next` over the entry still at `expectedVersion`, and its version row, in one transaction; false if it moved on. */
async function writeNextVersion(
  s: StoreContext,
  next: Entry,
  expectedVersion: number,
  version: Insertable<Database['entry_version']>,
  liveOnly: boolean,
): Promise<boolean> {
  return s.db.transaction().execute(async (tx) => {
    const { id, ...row } = toEntryRow(next);
    let update = tx.updateTable('entry').set(row).where('id', '=', id).where('version', '=', expectedVersion);
    if (liveOnly) update = update.where('deleted_at', 'is', null);
    const result = await update.executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    await tx.insertInto('entry_version').values(version).execute();
    return true;
  });
}

export async function getEntry(s: StoreContext, id: string): Promise<Entry | undefined> {
  const [row] = await s.hot.entryById(id);
  return row && toEntry(row);
}

export async function listEntries(
  s: StoreContext,
  datapackId: string,
  page: { limit: number; offset: number },
): Promise<Entry[]> {
  const rows = await s.db
    .selectFrom('entry')
    .select(ENTRY_COLUMNS)
    .where('datapack_id', '=', datapackId)
    .where('deleted_at', 'is', null)
    .orderBy('updated_at', 'desc')
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(toEntry);
}

export async function listEntryVersions(s: StoreContext, entryId: string): Promise<EntryVersion[]> {
  const rows = await s.db
    .selectFrom('entry_version')
    .selectAll()
    .where('entry_id', '=', entryId)
    .orderBy('version')
    .execute();
  return rows.map(toVersion);
}

export async function findEntryByContentHash(
  s: StoreContext,
  datapackId: string,
  contentHash: string,
): Promise<Entry | undefined> {
  const [row] = await s.hot.entryByContentHash(datapackId, contentHash);
  return row && toEntry(row);
}

export async function listTurnsAround(s: StoreContext, entryId: string, around: number): Promise<ConversationTurn[]> {
  const self = await s.db
    .selectFrom('capture_turn as ct')
    .innerJoin('entry as e', 'e.id', 'ct.entry_id')
    .select(['ct.user_id', 'ct.session_id', 'ct.created_at', 'e.datapack_id'])
    .where('ct.entry_id', '=', entryId)
    .where('e.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!self?.session_id) return [];
  const side = (direction: 'before' | 'after', limit: number) =>
    limit === 0
      ? Promise.resolve([])
      : s.db
          .selectFrom('capture_turn as ct')
          .innerJoin('entry as e', 'e.id', 'ct.entry_id')
          .select([...ENTRY_COLUMNS.map((c) => `e.${c}` as const), 'ct.role', 'ct.speaker', 'ct.created_at as said_at'])
          .where('ct.user_id', '=', self.user_id)
          .where('ct.session_id', '=', self.session_id)
          .where('e.datapack_id', '=', self.datapack_id)
          .where('e.deleted_at', 'is', null)
          .where((eb) =>
            direction === 'before'
              ? eb.or([
                  eb('ct.created_at', '<', self.created_at),
                  eb.and([eb('ct.created_at', '=', self.created_at), eb('ct.entry_id', '<', entryId)]),
                ])
              : eb.or([
                  eb('ct.created_at', '>', self.created_at),
                  eb.and([eb('ct.created_at', '=', self.created_at), eb('ct.entry_id', '>=', entryId)]),
                ]),
          )
          .orderBy('ct.created_at', direction === 'before' ? 'desc' : 'asc')
          .orderBy('ct.entry_id', direction === 'before' ? 'desc' : 'asc')
          .limit(limit)
          .execute();
  const [before, after] = await Promise.all([side('before', around), side('after', around + 1)]);
  return [...before.reverse(), ...after].map((r) => ({ entry: toEntry(r), role: r.role, speaker: r.speaker }));
}

export function listTrashedEntries(
  s: StoreContext,
  datapackIds: string[],
  since: string,
  limit: number,
): Promise<Entry[]> {
  return entriesIn(s.db, datapackIds, (q) =>
    q
      .where('deleted_at', 'is not', null)
      .where('deleted_at', '>=', since)
      .orderBy('deleted_at', 'desc')
      .orderBy('id')
      .limit(limit),
  );
}

/** One entry in the trash deleted for good; its versions and vectors go with it (ON DELETE CASCADE). */
export async function purgeEntry(s: StoreContext, id: string): Promise<boolean> {
  const result = await s.db
    .deleteFrom('entry')
    .where('id', '=', id)
    .where('deleted_at', 'is not', null)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function purgeTrash(
  s: StoreContext,
  before: string,
  batch: number,
): Promise<{ entries: number; datapacks: number }> {
  // One short step per call (a batch of entries, or a batch of one expired datapack's entries and
  // then the datapack), so the caller can let requests in between steps.
  const deleteEntries = (rows: { id: string }[]) =>
    s.db
      .deleteFrom('entry')
      .where(
        'id',
        'in',
        rows.map((r) => r.id),
      )
      .execute();
  const expired = await s.db
    .selectFrom('entry')
    .select('id')
    .where('deleted_at', 'is not', null)
    .where('deleted_at', '<', before)
    .limit(batch)
    .execute();
  if (expired.length > 0) {
    await deleteEntries(expired);
    return { entries: expired.length, datapacks: 0 };
  }
  const pack = await s.db
    .selectFrom('datapack')
    .select('id')
    .where('deleted_at', 'is not', null)
    .where('deleted_at', '<', before)
    .limit(1)
    .executeTakeFirst();
  if (!pack) return { entries: 0, datapacks: 0 };
  const held = await s.db.selectFrom('entry').select('id').where('datapack_id', '=', pack.id).limit(batch).execute();
  if (held.length > 0) {
    await deleteEntries(held);
    if (held.length === batch) return { entries: held.length, datapacks: 0 };
  }
  // Only an expired datapack is emptied, and the domain refuses to restore an expired one.
  const result = await s.db
    .deleteFrom('datapack')
    .where('id', '=', pack.id)
    .where('deleted_at', 'is not', null)
    .where('deleted_at', '<', before)
    .executeTakeFirst();
  return { entries: held.length, datapacks: Number(result.numDeletedRows) };
}
