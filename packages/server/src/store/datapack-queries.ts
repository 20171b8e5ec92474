import { CairnError } from '../errors/cairn-error.js';
import { ownedBy, ownerColumns } from './hot-queries.js';
import { iso, toDatapack, toTrashedDatapack } from './row-mappers.js';
import type { StoreContext } from './store-context.js';
import type { Datapack, DatapackSummary, OwnerRef, TrashedDatapack } from './types.js';

// Datapacks, live and in the trash; a name is unique per owner among the live ones.

export async function insertDatapack(s: StoreContext, d: Datapack): Promise<void> {
  try {
    await s.db
      .insertInto('datapack')
      .values({
        id: d.id,
        scope: d.scope,
        owner_id: d.ownerId,
        organization_id: d.organizationId,
        name: d.name,
        description: d.description,
        created_by: d.createdBy,
        created_at: d.createdAt,
        updated_at: d.updatedAt,
      })
      .execute();
  } catch (error) {
    if (s.isUniqueViolation(error)) {
      throw new CairnError(
        'conflict',
        `A ${d.scope} datapack named "${d.name}" already exists; pick another name or use that one.`,
      );
    }
    throw error;
  }
}

export async function updateDatapack(
  s: StoreContext,
  id: string,
  change: { name: string; description: string; updatedAt: string },
): Promise<boolean> {
  try {
    const result = await s.db
      .updateTable('datapack')
      .set({ name: change.name, description: change.description, updated_at: change.updatedAt })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  } catch (error) {
    if (s.isUniqueViolation(error))
      throw new CairnError('conflict', `A datapack named "${change.name}" already exists here.`);
    throw error;
  }
}

export async function getDatapack(s: StoreContext, id: string): Promise<Datapack | undefined> {
  const [row] = await s.hot.datapackById(id);
  return row && toDatapack(row);
}

export async function findDatapacks(s: StoreContext, owners: OwnerRef[]): Promise<Datapack[]> {
  if (owners.length === 0) return [];
  const rows = await s.hot.datapacksOwnedBy(...ownerColumns(owners));
  return rows.map(toDatapack);
}

export async function listDatapacks(s: StoreContext, owners: OwnerRef[]): Promise<DatapackSummary[]> {
  if (owners.length === 0) return [];
  const rows = await s.hot.datapackSummaries(...ownerColumns(owners));
  return rows.map((row) => {
    const base = toDatapack(row);
    const lastEntry = row.last_entry_at ? iso(row.last_entry_at) : null;
    return {
      ...base,
      entryCount: Number(row.live_entries),
      lastChangedAt: lastEntry && lastEntry > base.updatedAt ? lastEntry : base.updatedAt,
    };
  });
}

export async function getTrashedDatapack(s: StoreContext, id: string): Promise<TrashedDatapack | undefined> {
  const row = await trashedDatapacks(s).where('d.id', '=', id).executeTakeFirst();
  return row && toTrashedDatapack(row);
}

export async function listTrashedDatapacks(
  s: StoreContext,
  owners: OwnerRef[],
  since: string,
): Promise<TrashedDatapack[]> {
  if (owners.length === 0) return [];
  const rows = await trashedDatapacks(s)
    .where((eb) => ownedBy(eb, ...ownerColumns(owners)))
    .where('d.deleted_at', '>=', since)
    .orderBy('d.deleted_at', 'desc')
    .orderBy('d.id')
    .execute();
  return rows.map(toTrashedDatapack);
}

function trashedDatapacks(s: StoreContext) {
  return s.db
    .selectFrom('datapack as d')
    .selectAll('d')
    .select('d.live_entries as entry_count')
    .where('d.deleted_at', 'is not', null);
}

export async function trashDatapack(s: StoreContext, id: string, at: string, by: string): Promise<boolean> {
  const result = await s.db
    .updateTable('datapack')
    .set({ deleted_at: at, deleted_by: by })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function restoreDatapack(s: StoreContext, id: string, at: string): Promise<boolean> {
  try {
    const result = await s.db
      .updateTable('datapack')
      .set({ deleted_at: null, deleted_by: null, updated_at: at })
      .where('id', '=', id)
      .where('deleted_at', 'is not', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  } catch (error) {
    if (!s.isUniqueViolation(error)) throw error;
    const d = await s.db.selectFrom('datapack').select(['name', 'scope']).where('id', '=', id).executeTakeFirst();
    throw new CairnError(
      'conflict',
      `Another ${d?.scope ?? ''} datapack is now named "${d?.name ?? ''}", so this one cannot come back under that name; rename or delete that datapack, then restore this one.`,
    );
  }
}
