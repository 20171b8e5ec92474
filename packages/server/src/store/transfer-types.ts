import type { Datapack, Entry, EntryVersion } from './types.js';

/** The capture record of an entry that began as a captured turn: who sent it, its turn id and where it was said. */
export interface TurnRecord {
  userId: string;
  turnId: string;
  createdAt: string;
  sessionId: string | null;
  speaker: string | null;
  role: string | null;
}

/** An entry with everything an export carries: every version, oldest first, and its capture record. */
export interface EntryRecord {
  entry: Entry;
  versions: EntryVersion[];
  turn?: TurnRecord;
}

/** Which datapacks, live and in the trash, an export covers: every one, or those matching any selector given. */
export type ExportSelection =
  | 'all'
  | { owners?: { scope: Datapack['scope']; ownerId: string }[]; organizationId?: string; ids?: string[] };

/**
 * One datapack's part of an import, written in one transaction: the datapack is created, has its
 * description and times refreshed, or is kept as it is; new entries are inserted with their history;
 * entries stored at an older version get the newer versions appended.
 */
export interface DatapackImport {
  datapack: Datapack;
  mode: 'create' | 'refresh' | 'keep';
  inserts: EntryRecord[];
  updates: { record: EntryRecord; storedVersion: number }[];
}
