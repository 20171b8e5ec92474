import type { ReplacedEntryView } from '@cairn/contract';
import { CairnError } from '../errors/cairn-error.js';
import type { Entry } from '../store/types.js';
import type { Access } from './access.js';
import { auditEntry } from './audit.js';
import { provenanceOf } from './caller.js';
import { readableDatapacks } from './datapacks.js';
import type { DomainDeps } from './deps.js';
import { writableEntry } from './entries.js';
import { publicEntry } from './entry-views.js';

/** How many replaced entries the view lists at most, newest first. */
const REPLACED_PAGE = 200;

/** A rule a newer one replaced, as the "replaced rules" view lists it: the contract's shape. */
export type { ReplacedEntryView } from '@cairn/contract';

/** Replaced entries of the datapacks the caller can read (or of one of them), most recently replaced first. */
export async function listReplaced(
  deps: DomainDeps,
  access: Access,
  datapackId?: string,
): Promise<{ entries: ReplacedEntryView[] }> {
  const readable = await readableDatapacks(deps, access);
  const packs = readable.filter((d) => !datapackId || d.id === datapackId);
  if (datapackId && packs.length === 0)
    throw new CairnError(
      'not_found',
      'No datapack with that id is visible to you; list your datapacks to see what you can use.',
    );
  // The successor may sit in another readable datapack than the one listed.
  const byId = new Map(readable.map((d) => [d.id, d]));
  const entries = await deps.store.replacedEntries(
    packs.map((d) => d.id),
    REPLACED_PAGE,
  );
  const views: ReplacedEntryView[] = [];
  for (const entry of entries) {
    const d = byId.get(entry.datapackId)!;
    const by = entry.replacedBy ? await deps.store.getEntry(entry.replacedBy) : undefined;
    const byPack = by && !by.deletedAt ? byId.get(by.datapackId) : undefined;
    views.push({
      entry: publicEntry(entry),
      datapack: { id: d.id, name: d.name, scope: d.scope },
      replacedBy: by && byPack ? { id: by.id, title: by.title, datapackId: by.datapackId } : null,
      writable: access.canWrite(d),
    });
  }
  return { entries: views };
}

/** Brings a replaced entry back into guidance and search, as a new version; the entry that replaced it is left as it is. */
export async function reinstateEntry(deps: DomainDeps, access: Access, id: string): Promise<Entry> {
  const { entry: current, datapack } = await writableEntry(deps, access, id);
  if (!current.replacedBy)
    throw new CairnError('invalid_input', `Entry ${id} is not replaced; there is nothing to restore.`);
  const next: Entry = {
    ...current,
    replacedBy: null,
    version: current.version + 1,
    updatedBy: access.caller.userId,
    updatedClient: provenanceOf(access.caller),
    updatedAt: deps.now(),
  };
  if (!(await deps.store.replaceEntry(next, current.version, 'update'))) {
    throw new CairnError('version_conflict', `Entry ${id} changed while restoring it; read it again and retry.`);
  }
  auditEntry(deps, access.caller, 'entry.restored', next, datapack);
  return next;
}
