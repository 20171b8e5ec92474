import type { PublicEntry, PublicHit, PublicTurn, PublicVersion } from '@cairn/contract';
import type { z } from 'zod';
import type { ConversationTurn, Entry, EntryVersion } from '../store/types.js';
import type { Access } from './access.js';
import { readableDatapacks } from './datapacks.js';
import type { DomainDeps } from './deps.js';
import { searchEntries, type searchEntriesInput } from './entries.js';
import { ownerOf } from './lifecycle.js';

// The views' shapes are the contract's, shared with the portal.
export type { DatapackRef, PublicEntry, PublicHit, PublicTurn, PublicVersion } from '@cairn/contract';

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
    owner: ownerOf(e),
    reviewBy: e.reviewBy ?? null,
    expires: e.expires ?? null,
  };
}

/** A history row without its storage key. */
export function publicVersion(v: EntryVersion): PublicVersion {
  return {
    version: v.version,
    change: v.change,
    ...(v.restoredFrom !== null && { restoredFrom: v.restoredFrom }),
    ...(v.applies !== undefined && { applies: v.applies ?? { always: false, files: [], projects: [] } }),
    ...(v.lifecycle && {
      owner: v.lifecycle.owner ?? v.changedBy,
      reviewBy: v.lifecycle.reviewBy,
      expires: v.lifecycle.expires,
    }),
    kind: v.kind,
    title: v.title,
    content: v.content,
    tags: v.tags,
    changedBy: v.changedBy,
    changedClient: v.changedClient,
    changedAt: v.changedAt,
  };
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
    ...(read.conversation && {
      conversation: read.conversation.map((t) => ({ entry: publicEntry(t.entry), role: t.role, speaker: t.speaker })),
    }),
  };
}

/** Search as adapters answer it: public entries, the datapack each lives in, a score to three decimals. */
export async function searchResults(
  deps: DomainDeps,
  access: Access,
  raw: z.input<typeof searchEntriesInput>,
): Promise<PublicHit[]> {
  const [hits, packs] = await Promise.all([searchEntries(deps, access, raw), readableDatapacks(deps, access)]);
  const byId = new Map(packs.map((p) => [p.id, p]));
  return hits.map(({ entry, score }) => {
    const d = byId.get(entry.datapackId)!;
    return {
      entry: publicEntry(entry),
      datapack: { id: d.id, name: d.name, scope: d.scope },
      score: Math.round(score * 1000) / 1000,
    };
  });
}
