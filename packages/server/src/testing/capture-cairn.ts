import type { Entry, TurnFields } from '../store/types.js';
import { createTenant } from './tenants.js';
import { startTestCairn, type TestCairn } from './test-cairn.js';

/** One captured turn as a real Cairn stored it. */
export interface StoredTurn {
  client: string | null;
  role: 'user' | 'assistant';
  text: string;
  project: string | undefined;
}

/** A real Cairn for capture hooks: the URL and key a hook is configured with, and what arrived. */
export interface CaptureCairn {
  server: TestCairn;
  url: string;
  apiKey: string;
  /** The user the key belongs to. */
  userId: string;
  /** The turns stored in the key owner's Conversations datapack. */
  turns(): Promise<StoredTurn[]>;
  /** How many times each turn id reached the store, duplicates included (counted below Cairn's own dedupe). */
  arrivals: Map<string, number>;
  close(): Promise<void>;
}

/** Starts a real Cairn (SQLite, or PostgreSQL in the runner's postgres pass) with a user whose key hooks use. */
export async function startCaptureCairn(): Promise<CaptureCairn> {
  const arrivals = new Map<string, number>();
  const server = await startTestCairn({
    wrapStore: (store) => {
      const insert = store.insertCapturedTurn.bind(store);
      store.insertCapturedTurn = (entry: Entry, userId: string, turnId: string, turn: TurnFields) => {
        arrivals.set(turnId, (arrivals.get(turnId) ?? 0) + 1);
        return insert(entry, userId, turnId, turn);
      };
      return store;
    },
  });
  const tenant = await createTenant(server.cairn);
  const userId = tenant.member.id;
  return {
    server,
    url: server.baseUrl,
    apiKey: tenant.member.key,
    userId,
    arrivals,
    async turns() {
      const pack = (await server.cairn.store.findDatapacks([{ scope: 'personal', ownerId: userId }])).find(
        (d) => d.name === 'Conversations',
      );
      if (!pack) return [];
      const entries = await server.cairn.store.listEntries(pack.id, { limit: 1000, offset: 0 });
      return entries.map((e) => ({
        client: e.createdClient,
        role: e.title.startsWith('Prompt') ? 'user' : 'assistant',
        text: e.content,
        project: e.tags.find((t) => t.startsWith('project:'))?.slice('project:'.length),
      }));
    },
    close: () => server.close(),
  };
}
