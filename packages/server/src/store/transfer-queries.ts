import type { Insertable, Kysely, Transaction } from 'kysely';
import { CairnError } from '../errors/cairn-error.js';
import { ENTRY_COLUMNS } from './hot-queries.js';
import { iso, toDatapack, toEntry, toEntryRow, toVersion } from './row-mappers.js';
import type { Database } from './schema.js';
import type { DatapackImport, EntryRecord, ExportSelection, TurnRecord } from './transfer-types.js';
import type { Datapack, EntryVersion } from './types.js';

// Rows per multi-row INSERT: well under SQLite's and PostgreSQL's bound-parameter limits.
const ROWS_PER_INSERT = 300;

type Db = Kysely<Database> | Transaction<Database>;
type Row<T extends keyof Database> = Insertable<Database[T]>;

/** Datapacks, live and in the trash, for an export, ordered by id. */
export async function exportDatapacks(db: Kysely<Database>, selection: ExportSelection): Promise<Datapack[]> {
  let q = db.selectFrom('datapack as d').selectAll('d');
  if (selection !== 'all') {
    const { owners = [], organizationId, ids = [] } = selection;
    if (owners.length === 0 && !organizationId && ids.length === 0) return [];
    q = q.where((eb) =>
      eb.or([
        ...owners.map((o) => eb.and([eb('d.scope', '=', o.scope), eb('d.owner_id', '=', o.ownerId)])),
        ...(organizationId ? [eb('d.organization_id', '=', organizationId)] : []),
        ...(ids.length ? [eb('d.id', 'in', ids)] : []),
      ]),
    );
  }
  return (await q.orderBy('d.id').execute()).map(toDatapack);
}

/** A datapack by id whether live or in the trash. */
export async function getAnyDatapack(db: Kysely<Database>, id: string): Promise<Datapack | undefined> {
  const row = await db.selectFrom('datapack').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toDatapack(row);
}

/** A page of a datapack's entries (deleted ones too) after `afterId` by id, with their history and capture records. */
export async function exportEntries(
  db: Kysely<Database>,
  datapackId: string,
  afterId: string,
  limit: number,
  createdBy?: string,
): Promise<EntryRecord[]> {
  let q = db.selectFrom('entry').select(ENTRY_COLUMNS).where('datapack_id', '=', datapackId).where('id', '>', afterId);
  if (createdBy) q = q.where('created_by', '=', createdBy);
  const rows = await q.orderBy('id').limit(limit).execute();
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [versions, turns] = await Promise.all([
    db
      .selectFrom('entry_version')
      .selectAll()
      .where('entry_id', 'in', ids)
      .orderBy('entry_id')
      .orderBy('version')
      .execute(),
    db.selectFrom('capture_turn').selectAll().where('entry_id', 'in', ids).execute(),
  ]);
  const history = new Map<string, EntryVersion[]>();
  for (const v of versions) {
    const list = history.get(v.entry_id) ?? [];
    list.push(toVersion(v));
    history.set(v.entry_id, list);
  }
  const turnOf = new Map(turns.map((t) => [t.entry_id, t]));
  return rows.map((row) => {
    const t = turnOf.get(row.id);
    const turn: TurnRecord | undefined = t && {
      userId: t.user_id,
      turnId: t.turn_id,
      createdAt: iso(t.created_at),
      sessionId: t.session_id,
      speaker: t.speaker,
      role: t.role,
    };
    return { entry: toEntry(row), versions: history.get(row.id) ?? [], ...(turn && { turn }) };
  });
}

/** The datapack and stored version of those of these entries that exist. */
export async function entryStates(
  db: Kysely<Database>,
  ids: string[],
): Promise<Map<string, { datapackId: string; version: number }>> {
  const states = new Map<string, { datapackId: string; version: number }>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db
      .selectFrom('entry')
      .select(['id', 'datapack_id', 'version'])
      .where('id', 'in', ids.slice(i, i + 500))
      .execute();
    for (const r of rows) states.set(r.id, { datapackId: r.datapack_id, version: Number(r.version) });
  }
  return states;
}

/** Writes one datapack's part of an import in one transaction (see DatapackImport). */
export async function importDatapack(db: Kysely<Database>, write: DatapackImport): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await writeDatapack(tx, write);
    const entries = write.inserts.map((r) => toEntryRow(r.entry));
    const versions = write.inserts.flatMap((r) => r.versions.map(versionRow));
    for (const u of write.updates) {
      const { id, ...row } = toEntryRow(u.record.entry);
      const result = await tx
        .updateTable('entry')
        .set(row)
        .where('id', '=', id)
        .where('version', '=', u.storedVersion)
        .executeTakeFirst();
      // Changed since the import looked: the whole datapack's transaction rolls back.
      if (Number(result.numUpdatedRows) !== 1)
        throw new CairnError(
          'version_conflict',
          `Entry ${id} changed while it was being imported; run the import again.`,
        );
      versions.push(...u.record.versions.filter((v) => v.version > u.storedVersion).map(versionRow));
    }
    await insertChunks(tx, 'entry', entries);
    await insertChunks(tx, 'entry_version', versions);
    const turns = [...write.inserts, ...write.updates.map((u) => u.record)].flatMap((r) =>
      r.turn ? [turnRow(r.entry.id, r.turn)] : [],
    );
    for (let i = 0; i < turns.length; i += ROWS_PER_INSERT) {
      await tx
        .insertInto('capture_turn')
        .values(turns.slice(i, i + ROWS_PER_INSERT))
        .onConflict((oc) => oc.columns(['user_id', 'turn_id']).doNothing())
        .execute();
    }
  });
}

async function writeDatapack(tx: Db, { datapack: d, mode }: DatapackImport): Promise<void> {
  if (mode === 'keep') return;
  const times = {
    description: d.description,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
    created_by: d.createdBy,
  };
  if (mode === 'refresh') {
    await tx.updateTable('datapack').set(times).where('id', '=', d.id).execute();
    return;
  }
  await tx
    .insertInto('datapack')
    .values({
      ...times,
      id: d.id,
      scope: d.scope,
      owner_id: d.ownerId,
      organization_id: d.organizationId,
      name: d.name,
      deleted_at: d.deletedAt ?? null,
      deleted_by: d.deletedBy ?? null,
    })
    .execute();
}

async function insertChunks<T extends 'entry' | 'entry_version'>(tx: Db, table: T, rows: Row<T>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    await tx
      .insertInto(table)
      .values(rows.slice(i, i + ROWS_PER_INSERT) as never)
      .execute();
  }
}

function versionRow(v: EntryVersion): Row<'entry_version'> {
  return {
    entry_id: v.entryId,
    version: v.version,
    change: v.change,
    restored_from: v.restoredFrom,
    kind: v.kind,
    title: v.title,
    content: v.content,
    tags: JSON.stringify(v.tags),
    changed_by: v.changedBy,
    changed_client: v.changedClient,
    changed_at: v.changedAt,
    // Left SQL NULL, as on versions saved before history kept them, when the file did not say.
    ...(v.applies !== undefined && { applies: JSON.stringify(v.applies) }),
    ...(v.lifecycle && { lifecycle: JSON.stringify(v.lifecycle) }),
  };
}

function turnRow(entryId: string, t: TurnRecord): Row<'capture_turn'> {
  return {
    user_id: t.userId,
    turn_id: t.turnId,
    entry_id: entryId,
    created_at: t.createdAt,
    session_id: t.sessionId,
    speaker: t.speaker,
    role: t.role,
  };
}
