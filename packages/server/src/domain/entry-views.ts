import type { z } from 'zod';
import type { Applies, ConversationTurn, Datapack, Entry, EntryVersion } from '../store/types.js';
import type { Access } from './access.js';
import { readableDatapacks } from './datapacks.js';
import type { DomainDeps } from './deps.js';
import { searchEntries, type searchEntriesInput } from './entries.js';

/** An entry as every adapter shows it (MCP, the JSON API, the portal): storage-only fields left out. */
export interface PublicEntry {
  id: string;
  datapackId: string;
  kind: string;
  title: string;
  content: string;
  tags: string[];
  version: number;
  createdBy: string;
  createdClient: string | null;
  createdAt: string;
  updatedBy: string;
  updatedClient: string | null;
  updatedAt: string;
  /** Where it applies besides its topic (always false and empty lists when nothing was said). */
  applies: Applies;
  /** Entries it replaced. */
  supersedes: string[];
  /** The entry that replaced it, or null. */
  replacedBy: string | null;
}

/** Where an entry lives, as results name it. */
export interface DatapackRef {
  id: string;
  name: string;
  scope: Datapack['scope'];
}

/** One search result, the same through every adapter. */
export interface PublicHit {
  entry: PublicEntry;
  datapack: DatapackRef;
  score: number;
}

/** Strips storage-only fields (content hash, deletion time) from an entry. */
export function publicEntry(e: Entry): PublicEntry {
  return {
    id: e.id,
    datapackId: e.datapackId,
    kind: e.kind,
    title: e.title,
    content: e.content,
    tags: e.tags,
    version: e.version,
    createdBy: e.createdBy,
    createdClient: e.createdClient,
    createdAt: e.createdAt,
    updatedBy: e.updatedBy,
    updatedClient: e.updatedClient,
    updatedAt: e.updatedAt,
    applies: e.applies ?? { always: false, files: [], projects: [] },
    supersedes: e.supersedes ?? [],
    replacedBy: e.replacedBy ?? null,
  };
}

/** One earlier version of an entry, as every adapter shows history. */
export interface PublicVersion {
  version: number;
  change: EntryVersion['change'];
  kind: string;
  title: string;
  content: string;
  tags: string[];
  changedBy: string;
  changedClient: string | null;
  changedAt: string;
  /** For a `restore`: the version whose content it brought back. */
  restoredFrom?: number;
}

/** A history row without its storage key. */
export function publicVersion(v: EntryVersion): PublicVersion {
  return {
    version: v.version,
    change: v.change,
    ...(v.restoredFrom !== null && { restoredFrom: v.restoredFrom }),
    kind: v.kind,
    title: v.title,
    content: v.content,
    tags: v.tags,
    changedBy: v.changedBy,
    changedClient: v.changedClient,
    changedAt: v.changedAt,
  };
}

/** A captured turn as adapters show a conversation: the entry, and who said it in which role. */
export interface PublicTurn {
  entry: PublicEntry;
  role: string | null;
  speaker: string | null;
}

/** get_entry as every adapter answers it. */
export function entryReadView(read: { entry: Entry; history?: EntryVersion[]; conversation?: ConversationTurn[] }): {
  entry: PublicEntry;
  history?: PublicVersion[];
  conversation?: PublicTurn[];
} {
  return {
    entry: publicEntry(read.entry),
    ...(read.history && { history: read.history.map(publicVersion) }),
    ...(read.conversation && { conversation: read.conversation.map((t) => ({ entry: publicEntry(t.entry), role: t.role, speaker: t.speaker })) }),
  };
}

/** Search as adapters answer it: public entries, the datapack each lives in, a score to three decimals. */
export async function searchResults(deps: DomainDeps, access: Access, raw: z.input<typeof searchEntriesInput>): Promise<PublicHit[]> {
  const [hits, packs] = await Promise.all([searchEntries(deps, access, raw), readableDatapacks(deps, access)]);
  const byId = new Map(packs.map((p) => [p.id, p]));
  return hits.map(({ entry, score }) => {
    const d = byId.get(entry.datapackId)!;
    return { entry: publicEntry(entry), datapack: { id: d.id, name: d.name, scope: d.scope }, score: Math.round(score * 1000) / 1000 };
  });
}
