import { newId } from '../domain/deps.js';
import { contentHash } from '../domain/similarity.js';
import type { KyselyStore } from './kysely-store.js';
import type { Datapack, Entry } from './types.js';

/**
 * Records for the store's conformance suites: a clock that moves a second per call, personal
 * datapacks stored for `owner`, and entries (not stored) in a datapack.
 */
export function storeRecords(store: () => KyselyStore, owner: () => string) {
  let clock = Date.parse('2026-01-01T00:00:00.000Z');
  const tick = () => {
    clock += 1000;
    return new Date(clock).toISOString();
  };
  const datapack = async (name = `pack ${newId('dpk')}`): Promise<Datapack> => {
    const now = tick();
    const d: Datapack = { id: newId('dpk'), scope: 'personal', ownerId: owner(), organizationId: null, name, description: '', createdBy: owner(), createdAt: now, updatedAt: now };
    await store().insertDatapack(d);
    return d;
  };
  const entry = (datapackId: string, over: Partial<Entry> = {}): Entry => {
    const now = tick();
    const title = over.title ?? 'A title';
    const content = over.content ?? 'Some content';
    return {
      id: newId('ent'),
      datapackId,
      kind: 'note',
      title,
      content,
      tags: [],
      contentHash: contentHash(title, content),
      version: 1,
      createdBy: owner(),
      createdClient: 'test-client/1',
      createdAt: now,
      updatedBy: owner(),
      updatedClient: 'test-client/1',
      updatedAt: now,
      deletedAt: null,
      ...over,
    };
  };
  return { tick, datapack, entry };
}
