import type { TrashView } from '@cairn/contract';
import { z } from 'zod';
import { CairnError } from '../errors/cairn-error.js';
import { isDatabaseUnavailable } from '../errors/database-unavailable.js';
import type { Logger } from '../log/logger.js';
import type { Datapack, Entry, EntryVersion } from '../store/types.js';
import type { Access } from './access.js';
import { auditDatapack, auditEntry } from './audit.js';
import { purgeAuditTrail } from './audit-read.js';
import { PERSONAL_DATAPACK_NAME, readableDatapacks } from './datapacks.js';
import type { DomainDeps } from './deps.js';
import { publicEntry } from './entry-views.js';
import { ownerOf, restoredOwner } from './lifecycle.js';
import { parse } from './parse-input.js';
import { purgeRuleUsage } from './rule-usage.js';
import { contentHash } from './similarity.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** The trash lists at most this many deleted entries (the most recently deleted). */
const TRASH_LIST_LIMIT = 500;
/** Rows the purge deletes per step; requests are served between steps. */
const PURGE_BATCH = 200;
/** How often a serving Cairn purges the trash (and once at start-up). */
export const PURGE_EVERY_MS = 60 * 60 * 1000;

const id = z.string().trim().min(1).max(200);

/** Input of restoreEntry: the entry, and optionally which earlier version to bring back. */
export const restoreEntryInput = z.object({
  id: id.describe('Entry id, live or in the trash'),
  version: z.number().int().min(1).optional().describe('Earlier version to restore; omit to undelete'),
});

/** The instant before which trashed things are past restoring (and due for the purge). */
export function trashCutoff(deps: DomainDeps): string {
  return new Date(Date.parse(deps.now()) - deps.trashDays * DAY_MS).toISOString();
}

function purgeAt(deps: DomainDeps, deletedAt: string): string {
  return new Date(Date.parse(deletedAt) + deps.trashDays * DAY_MS).toISOString();
}

/**
 * Deleted entries and datapacks the caller may read, newest deletion first, still within the
 * retention. With `datapackId`, only that datapack's deleted entries (or, if it is itself in the
 * trash, that datapack).
 */
export async function listTrash(deps: DomainDeps, access: Access, datapackId?: string): Promise<TrashView> {
  const since = trashCutoff(deps);
  let packs: readonly Datapack[];
  let trashedPacks: Awaited<ReturnType<DomainDeps['store']['listTrashedDatapacks']>>;
  if (datapackId !== undefined) {
    const ref = parse(id, datapackId);
    const live = await deps.store.getDatapack(ref);
    const trashed = live ? undefined : await deps.store.getTrashedDatapack(ref);
    access.assertRead(live ?? (trashed && trashed.deletedAt >= since ? trashed : undefined));
    packs = live ? [live] : [];
    trashedPacks = trashed ? [trashed] : [];
  } else {
    [packs, trashedPacks] = await Promise.all([
      readableDatapacks(deps, access),
      deps.store.listTrashedDatapacks(access.readableOwners(), since),
    ]);
  }
  const byId = new Map(packs.map((p) => [p.id, p]));
  const entries = await deps.store.listTrashedEntries([...byId.keys()], since, TRASH_LIST_LIMIT);
  return {
    retentionDays: deps.trashDays,
    entries: entries.map((e) => {
      const d = byId.get(e.datapackId)!;
      return {
        entry: publicEntry(e),
        datapack: { id: d.id, name: d.name, scope: d.scope },
        deletedAt: e.deletedAt!,
        deletedBy: e.updatedBy,
        purgeAt: purgeAt(deps, e.deletedAt!),
        writable: access.canWrite(d),
      };
    }),
    datapacks: trashedPacks
      .filter((d) => access.canRead(d))
      .map((d) => ({
        id: d.id,
        name: d.name,
        scope: d.scope,
        description: d.description,
        organizationId: d.organizationId,
        entryCount: d.entryCount,
        deletedAt: d.deletedAt,
        deletedBy: d.deletedBy,
        purgeAt: purgeAt(deps, d.deletedAt),
        writable: access.canWrite(d),
      })),
  };
}

/** What a restore did. */
export interface RestoreResult {
  entry: Entry;
  /** The version whose content came back. */
  restoredFrom: number;
  /** True when the entry came back from the trash (it was deleted). */
  undeleted: boolean;
}

/**
 * Brings an entry back as a NEW version (change `restore`; history keeps every version before it):
 * a deleted entry as it was when deleted, or with `version` the content of that earlier version,
 * for a live entry too. Only who may write the datapack may; refused when the datapack already
 * holds another live entry with the same content.
 */
export async function restoreEntry(
  deps: DomainDeps,
  access: Access,
  raw: z.input<typeof restoreEntryInput>,
): Promise<RestoreResult> {
  const input = parse(restoreEntryInput, raw);
  const notFound = () =>
    new CairnError(
      'not_found',
      `No entry ${input.id} is visible to you, live or in the trash; list the trash or search to find the entry you want.`,
    );
  const current = await deps.store.getEntry(input.id);
  if (!current) throw notFound();
  const datapack = await deps.store.getDatapack(current.datapackId);
  if (!datapack) {
    const trashed = await deps.store.getTrashedDatapack(current.datapackId);
    if (trashed && access.canRead(trashed) && trashed.deletedAt >= trashCutoff(deps)) {
      throw new CairnError(
        'conflict',
        `Entry ${input.id} is in the datapack "${trashed.name}", which is in the trash; restore that datapack (${trashed.id}) first.`,
      );
    }
    throw notFound();
  }
  if (!access.canRead(datapack)) throw notFound();
  if (current.deletedAt && current.deletedAt < trashCutoff(deps)) throw notFound();
  access.assertWrite(datapack);

  const history = await deps.store.listEntryVersions(current.id);
  let source: Pick<EntryVersion, 'kind' | 'title' | 'content' | 'tags' | 'version' | 'applies' | 'lifecycle'>;
  if (input.version === undefined) {
    if (!current.deletedAt) {
      throw new CairnError(
        'invalid_input',
        `Entry ${current.id} is not in the trash; to bring back an earlier version pass version (1 to ${current.version - 1}), see get_entry with includeHistory.`,
      );
    }
    // The delete row holds the content the entry had when it was deleted; restore names that version.
    const beforeDelete = [...history].reverse().find((v) => v.change !== 'delete');
    source = { ...current, version: beforeDelete?.version ?? current.version - 1 };
  } else {
    const found = history.find((v) => v.version === input.version);
    if (!found)
      throw new CairnError(
        'not_found',
        `Entry ${current.id} has no version ${input.version}; its versions are 1 to ${current.version}.`,
      );
    source = found;
  }

  const hash = contentHash(source.title, source.content);
  const twin = await deps.store.findEntryByContentHash(datapack.id, hash);
  if (twin && twin.id !== current.id) {
    throw new CairnError(
      'conflict',
      `"${datapack.name}" already holds a live entry with the same title and content (${twin.id}, "${twin.title}"); restoring would duplicate it. Use that entry, or delete it first.`,
      {
        duplicateOf: twin.id,
      },
    );
  }
  const owner = await restoredOwner(deps, access, datapack, [
    // A version's null owner is its author.
    source.lifecycle ? (source.lifecycle.owner ?? current.createdBy) : ownerOf(current),
    ownerOf(current),
  ]);
  const now = deps.now();
  const next: Entry = {
    ...current,
    kind: source.kind,
    title: source.title,
    content: source.content,
    tags: source.tags,
    // Versions saved before history kept applicability leave it as it is now.
    ...(source.applies !== undefined && { applies: source.applies }),
    // So do versions saved before history kept the lifecycle; a restored expiry may be past (then listed as expired).
    ...source.lifecycle,
    owner,
    contentHash: hash,
    version: current.version + 1,
    updatedBy: access.caller.userId,
    updatedClient: access.caller.client,
    updatedAt: now,
    deletedAt: null,
  };
  if (!(await deps.store.restoreEntryVersion(next, current.version, source.version))) {
    throw new CairnError(
      'version_conflict',
      `Entry ${current.id} changed while restoring it; read it again and retry.`,
    );
  }
  auditEntry(deps, access.caller, 'entry.restored', next, datapack);
  return { entry: next, restoredFrom: source.version, undeleted: current.deletedAt !== null };
}

/**
 * Deletes an entry in the trash for good, before the retention would: its content and every version
 * are gone, and it cannot be restored. Only who may write its datapack may; a live entry is refused
 * (delete it first), so nothing live is lost by one call.
 */
export async function deleteEntryForever(deps: DomainDeps, access: Access, id: string): Promise<void> {
  const notFound = () =>
    new CairnError('not_found', `No entry ${id} is in a trash visible to you; list the trash to find the entry.`);
  const current = await deps.store.getEntry(id);
  if (!current) throw notFound();
  const datapack = await deps.store.getDatapack(current.datapackId);
  if (!datapack || !access.canRead(datapack)) throw notFound();
  if (!current.deletedAt) {
    throw new CairnError(
      'conflict',
      `Entry ${id} is not in the trash; delete it first (it stays restorable for the retention period), then delete it for good.`,
    );
  }
  if (current.deletedAt < trashCutoff(deps)) throw notFound();
  access.assertWrite(datapack);
  if (!(await deps.store.purgeEntry(id))) throw notFound();
  auditEntry(deps, access.caller, 'entry.purged', current, datapack);
}

/** Moves a datapack and its entries to the trash; restorable for the retention period. */
export async function deleteDatapack(
  deps: DomainDeps,
  access: Access,
  datapackId: string,
): Promise<Datapack & { deletedAt: string }> {
  const ref = parse(id, datapackId);
  const datapack = await deps.store.getDatapack(ref);
  access.assertRead(datapack);
  access.assertWrite(datapack);
  if (datapack.scope === 'personal' && datapack.name === PERSONAL_DATAPACK_NAME) {
    throw new CairnError(
      'invalid_input',
      `"${PERSONAL_DATAPACK_NAME}" is your default datapack and cannot be deleted; delete its entries instead.`,
    );
  }
  const now = deps.now();
  if (!(await deps.store.trashDatapack(datapack.id, now, access.caller.userId))) {
    throw new CairnError(
      'not_found',
      'No datapack with that id is visible to you; list your datapacks to see what you can use.',
    );
  }
  auditDatapack(deps, access.caller, 'datapack.deleted', datapack);
  return { ...datapack, deletedAt: now };
}

/** Brings a datapack back from the trash with the entries it held. */
export async function restoreDatapack(deps: DomainDeps, access: Access, datapackId: string): Promise<Datapack> {
  const ref = parse(id, datapackId);
  const found = await deps.store.getTrashedDatapack(ref);
  const trashed = found && found.deletedAt >= trashCutoff(deps) ? found : undefined;
  if (!trashed) {
    const live = await deps.store.getDatapack(ref);
    if (live && access.canRead(live))
      throw new CairnError(
        'invalid_input',
        `The datapack "${live.name}" is not in the trash; there is nothing to restore.`,
      );
  }
  access.assertRead(trashed);
  access.assertWrite(trashed);
  const now = deps.now();
  if (!(await deps.store.restoreDatapack(trashed.id, now))) {
    throw new CairnError('not_found', 'No datapack with that id is in the trash.');
  }
  const { deletedAt: _at, deletedBy: _by, entryCount: _n, ...datapack } = trashed;
  auditDatapack(deps, access.caller, 'datapack.restored', datapack);
  return { ...datapack, updatedAt: now };
}

/** Deletes for good what has been in the trash longer than the retention; a step at a time, yielding in between. */
export async function purgeTrash(deps: DomainDeps): Promise<{ entries: number; datapacks: number }> {
  const before = trashCutoff(deps);
  const total = { entries: 0, datapacks: 0 };
  for (;;) {
    const step = await deps.store.purgeTrash(before, PURGE_BATCH);
    total.entries += step.entries;
    total.datapacks += step.datapacks;
    if (step.entries === 0 && step.datapacks === 0) return total;
    // Let requests in: on SQLite every step runs synchronously inside this process.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Purges the trash at start and then every hour, in the background; never fails a request or the process. */
export class TrashPurger {
  private timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly deps: DomainDeps,
    private readonly log: Logger,
    private readonly everyMs = PURGE_EVERY_MS,
  ) {}

  start(): void {
    if (this.timer) return;
    void this.runNow();
    this.timer = setInterval(() => void this.runNow(), this.everyMs);
    this.timer.unref();
  }

  /** One purge now (or the one already under way). */
  runNow(): Promise<void> {
    this.running ??= purgeTrash(this.deps)
      .then(
        (purged) => {
          if (purged.entries || purged.datapacks)
            this.log.info('trash purged', { ...purged, olderThanDays: this.deps.trashDays });
        },
        (error: unknown) => {
          if (isDatabaseUnavailable(error)) return;
          this.log.warn('could not purge the trash', { error: (error as Error).message });
        },
      )
      .then(() => purgeAuditTrail(this.deps, this.log))
      .then(async () => {
        await purgeRuleUsage(this.deps, this.log);
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
