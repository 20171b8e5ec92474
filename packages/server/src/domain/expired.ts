import type { ExpiredEntryView } from '@cairn/contract';
import { CairnError } from '../errors/cairn-error.js';
import type { Access } from './access.js';
import { readableDatapacks } from './datapacks.js';
import type { DomainDeps } from './deps.js';
import { publicEntry } from './entry-views.js';
import { today } from './lifecycle.js';

/** How many expired entries the view lists at most, latest expiry first. */
const EXPIRED_PAGE = 200;

/**
 * Entries past their expiry date in the datapacks the caller can read (or in one of them), latest
 * expiry first: no longer served by guidance; renewed by changing `expires` (update_entry, PATCH).
 */
export async function listExpired(
  deps: DomainDeps,
  access: Access,
  datapackId?: string,
): Promise<{ entries: ExpiredEntryView[] }> {
  const packs = (await readableDatapacks(deps, access)).filter((d) => !datapackId || d.id === datapackId);
  if (datapackId && packs.length === 0)
    throw new CairnError(
      'not_found',
      'No datapack with that id is visible to you; list your datapacks to see what you can use.',
    );
  const byId = new Map(packs.map((d) => [d.id, d]));
  const entries = await deps.store.expiredEntries([...byId.keys()], today(deps), EXPIRED_PAGE);
  return {
    entries: entries.map((entry) => {
      const d = byId.get(entry.datapackId)!;
      return {
        entry: publicEntry(entry),
        datapack: { id: d.id, name: d.name, scope: d.scope },
        writable: access.canWrite(d),
      };
    }),
  };
}
