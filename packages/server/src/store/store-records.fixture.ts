import { after, before } from 'node:test';
import { newId } from '../domain/deps.js';
import { contentHash } from '../domain/similarity.js';
import { createTenant, type TestTenant } from '../testing/tenants.js';
import type { TestCairn } from '../testing/test-cairn.js';
import type { KyselyStore } from './kysely-store.js';
import type { Datapack, Entry } from './types.js';

/**
 * The set-up every store conformance suite shares, called inside its describe: a fresh Cairn from
 * `start` with a tenant in it before the tests, closed after them. The Cairn exists only once
 * `before` has run, hence getters; with them come the suite's records, owned by the tenant's member.
 */
export function useCaseStore(start: () => Promise<TestCairn>) {
  let started: { server: TestCairn; tenant: TestTenant } | undefined;
  before(async () => {
    const server = await start();
    started = { server, tenant: await createTenant(server.cairn) };
  });
  after(() => started?.server.close());
  const get = () => {
    if (!started)
      throw new Error('the store suite has not started: use its Cairn inside a test or a later before hook');
    return started;
  };
  const store = (): KyselyStore => get().server.cairn.store;
  const tenant = () => get().tenant;
  return {
    server: () => get().server,
    store,
    tenant,
    ...storeRecords(store, () => tenant().member.id),
  };
}

/**
 * Records for the store's conformance suites: a clock that moves a second per call, personal
 * datapacks stored for `owner`, and entries (not stored) in a datapack.
 */
function storeRecords(store: () => KyselyStore, owner: () => string) {
  let clock = Date.parse('2026-01-01T00:00:00.000Z');
  const tick = () => {
    clock += 1000;
    return new Date(clock).toISOString();
  };
  const datapack = async (name = `pack ${newId('dpk')}`): Promise<Datapack> => {
    const now = tick();
    const d: Datapack = {
      id: newId('dpk'),
      scope: 'personal',
      ownerId: owner(),
      organizationId: null,
      name,
      description: '',
      createdBy: owner(),
      createdAt: now,
      updatedAt: now,
    };
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
