import { CairnError } from '../errors/cairn-error.js';
import type { RuleUsageItem, RuleUsageRecord } from '../store/rule-usage-store.js';
import type { EntryRecord } from '../store/transfer-types.js';
import type { Datapack } from '../store/types.js';
import type { Access } from './access.js';
import { audit } from './audit.js';
import type { Caller } from './caller.js';
import type { DomainDeps } from './deps.js';
import {
  type DatapackLine,
  type EntryLine,
  EXPORT_FORMAT,
  EXPORT_VERSION,
  type HeaderLine,
  type UsageLine,
} from './export-format.js';
import { NameDirectory } from './export-names.js';
import { type AnswerViewer, answersSeenBy, answerViewer } from './rule-usage.js';

/** Entries read per query while exporting. */
const PAGE = 1000;

/** What an export covers: its datapacks, and for some only the entries one user created. */
export interface ExportPlan {
  selection: Record<string, string>;
  datapacks: { datapack: Datapack; createdBy?: string }[];
  /**
   * Whose guidance answers its usage lines may come from, as the Rule usage page shows them: every
   * answer (the operator), or one user's own and those of the organizations they administer.
   */
  answers: 'all' | AnswerViewer;
}

/** What a signed-in caller or API key asks to export; always within what they can read. */
export interface CallerExportRequest {
  datapack?: string;
  /** The whole organization (id or name), its teams' datapacks included: admins and owners only. */
  organization?: string;
  /** Only the caller's own data: their personal datapacks, and in shared ones the entries they created. */
  mine?: boolean;
}

/** Plans an export of what the caller can read; someone else's datapack or organization is not_found. Recorded in the audit trail. */
export async function planCallerExport(
  deps: DomainDeps,
  access: Access,
  request: CallerExportRequest,
): Promise<ExportPlan> {
  const plan = await planReadable(deps, access, request);
  auditExport(deps, access.caller, plan);
  return plan;
}

async function planReadable(deps: DomainDeps, access: Access, request: CallerExportRequest): Promise<ExportPlan> {
  const answers = request.mine ? { userId: access.caller.userId, adminOf: [] } : answerViewer(access);
  return { ...(await planDatapacks(deps, access, request)), answers };
}

async function planDatapacks(
  deps: DomainDeps,
  access: Access,
  request: CallerExportRequest,
): Promise<Omit<ExportPlan, 'answers'>> {
  const { datapack, organization, mine } = request;
  if (datapack) {
    const found = await deps.store.getAnyDatapack(datapack);
    access.assertRead(found);
    return { selection: { datapack }, datapacks: [{ datapack: found }] };
  }
  if (organization) {
    const org = access.memberships.organizations.find(
      (o) => o.id === organization || o.name.toLowerCase() === organization.toLowerCase(),
    );
    if (!org)
      throw new CairnError(
        'not_found',
        'No organization with that id or name is visible to you; export the datapacks you can read instead (leave out organization).',
      );
    if (!access.isOrgAdmin(org.id))
      throw new CairnError(
        'forbidden',
        `Only admins and owners of "${org.name}" can export the whole organization; export the datapacks you can read instead.`,
      );
    return {
      selection: { organization: org.name },
      datapacks: (await deps.store.exportDatapacks({ organizationId: org.id })).map((d) => ({ datapack: d })),
    };
  }
  const readable = await deps.store.exportDatapacks({ owners: access.readableOwners() });
  const { userId } = access.caller;
  const email = (await deps.store.getUser(userId))?.email ?? userId;
  if (!mine) return { selection: { readableBy: email }, datapacks: readable.map((d) => ({ datapack: d })) };
  const datapacks: ExportPlan['datapacks'] = [];
  for (const d of readable) {
    if (d.scope === 'personal') datapacks.push({ datapack: d });
    else if ((await deps.store.exportEntries(d.id, '', 1, userId)).length > 0)
      datapacks.push({ datapack: d, createdBy: userId });
  }
  return { selection: { writtenBy: email }, datapacks };
}

/** What the operator's CLI asks to export: everything, one user's readable data, or one organization; optionally one datapack of it. */
export interface OperatorExportRequest {
  userId?: string;
  organization?: string;
  datapack?: string;
}

/** Plans an operator export (the CLI on the server, which may read everything); recorded as the operator's. */
export async function planOperatorExport(
  deps: DomainDeps,
  access: Access | undefined,
  request: OperatorExportRequest,
): Promise<ExportPlan> {
  const plan = await planEverything(deps, access, request);
  auditExport(deps, undefined, plan);
  return plan;
}

async function planEverything(
  deps: DomainDeps,
  access: Access | undefined,
  request: OperatorExportRequest,
): Promise<ExportPlan> {
  let plan: ExportPlan;
  if (access) plan = await planReadable(deps, access, {});
  else if (request.organization) {
    const org = await new NameDirectory(deps.store).organizationByName(request.organization);
    if (!org)
      throw new CairnError(
        'not_found',
        `No organization named "${request.organization}"; the portal's Settings > Organization shows its exact name.`,
      );
    plan = {
      selection: { organization: org.name },
      datapacks: (await deps.store.exportDatapacks({ organizationId: org.id })).map((d) => ({ datapack: d })),
      answers: 'all',
    };
  } else
    plan = {
      selection: { all: 'true' },
      datapacks: (await deps.store.exportDatapacks('all')).map((d) => ({ datapack: d })),
      answers: 'all',
    };
  if (!request.datapack) return plan;
  const one = plan.datapacks.filter((p) => p.datapack.id === request.datapack);
  if (one.length === 0)
    throw new CairnError(
      'not_found',
      `No datapack ${request.datapack} in what this export covers; check the id (the portal shows it on the datapack's page).`,
    );
  return { ...plan, selection: { ...plan.selection, datapack: request.datapack }, datapacks: one };
}

/** The export as JSON Lines (each string one line, newline included): header, datapacks, entries, usage, end. */
export async function* exportLines(
  deps: DomainDeps,
  plan: ExportPlan,
  onProgress?: (entries: number) => void,
): AsyncGenerator<string> {
  const names = new NameDirectory(deps.store);
  const header: HeaderLine = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exportedAt: deps.now(),
    source: { backend: deps.store.dialect, selection: plan.selection },
  };
  yield line(header);
  const packs = await Promise.all(
    plan.datapacks.map(async (p) => ({ ...p, line: await datapackLine(names, p.datapack) })),
  );
  packs.sort((a, b) => (sortKey(a.line) < sortKey(b.line) ? -1 : sortKey(a.line) > sortKey(b.line) ? 1 : 0));
  for (const p of packs) yield line(p.line);
  let entries = 0;
  const exported = new Map<string, Datapack>();
  for (const p of packs) {
    for (let after = ''; ; ) {
      const page = await deps.store.exportEntries(p.datapack.id, after, PAGE, p.createdBy);
      if (page.length === 0) break;
      let chunk = '';
      for (const record of page) {
        chunk += line(await entryLine(names, record));
        exported.set(record.entry.id, p.datapack);
      }
      yield chunk;
      entries += page.length;
      onProgress?.(entries);
      after = page.at(-1)!.entry.id;
      if (page.length < PAGE) break;
    }
  }
  let usage = 0;
  for (const answer of await answersOf(deps, plan.answers)) {
    const u = await usageLine(names, answer, exported);
    if (!u) continue;
    yield line(u);
    usage += 1;
  }
  yield line({ type: 'end', datapacks: packs.length, entries, usage });
}

/** The answers a plan's usage lines may come from, oldest first (the store keeps them for CAIRN_AUDIT_DAYS). */
async function answersOf(deps: DomainDeps, answers: ExportPlan['answers']): Promise<RuleUsageRecord[]> {
  const since = '1970-01-01T00:00:00.000Z';
  if (answers === 'all') return deps.store.listRuleUsage({ since });
  return (await answersSeenBy(deps, answers, since)).sort((a, b) =>
    a.at < b.at ? -1 : a.at > b.at ? 1 : a.id < b.id ? -1 : 1,
  );
}

/**
 * An answer's usage line, with only the rules of this file that the answer counts for: a personal
 * datapack's for its owner's answers, a team or organization datapack's for answers given while in
 * its organization. So no other organization's usage is ever written; undefined when none is left.
 */
async function usageLine(
  names: NameDirectory,
  a: RuleUsageRecord,
  exported: Map<string, Datapack>,
): Promise<UsageLine | undefined> {
  const counts = (i: RuleUsageItem) => {
    const d = exported.get(i.id);
    if (!d) return false;
    return d.scope === 'personal' ? d.ownerId === a.userId : a.organizationIds.includes(d.organizationId ?? '');
  };
  const item = (i: RuleUsageItem) => ({ entry: i.id, reason: i.reason });
  const given = a.given.filter(counts).map(item);
  const named = a.named.filter(counts).map(item);
  if (given.length + named.length === 0) return undefined;
  return { type: 'usage', id: a.id, at: a.at, user: await names.email(a.userId), client: a.client, given, named };
}

/** A file name for an export made now: `cairn-export-<what>-<date>.jsonl`. */
export function exportFileName(deps: DomainDeps, what: string): string {
  const slug =
    what
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 60) || 'data';
  return `cairn-export-${slug}-${deps.now().slice(0, 10)}.jsonl`;
}

/** An export is a read of many people's data at once: the trail records who took what (`data.exported`). */
function auditExport(deps: DomainDeps, by: Caller | undefined, plan: ExportPlan): void {
  const orgs = new Set(plan.datapacks.map((p) => p.datapack.organizationId));
  const what = Object.entries(plan.selection)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  audit(deps, {
    kind: 'data.exported',
    ...(by && { by }),
    organizationId: orgs.size === 1 ? [...orgs][0] : null,
    target: {
      type: 'export',
      id: plan.selection.datapack ?? null,
      name: `${plan.datapacks.length} datapacks (${what})`,
    },
  });
}

function line(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

const SCOPE_ORDER = { personal: 0, team: 1, organization: 2 } as const;

// Names, not ids, order the file: the same data exported from two Cairns gives the same file.
function sortKey(d: DatapackLine): string {
  return [
    SCOPE_ORDER[d.scope],
    JSON.stringify(d.owner),
    d.name.toLowerCase(),
    d.deletedAt ?? '',
    d.createdAt,
    d.id,
  ].join('\u0001');
}

async function datapackLine(names: NameDirectory, d: Datapack): Promise<DatapackLine> {
  return {
    type: 'datapack',
    id: d.id,
    scope: d.scope,
    owner: await names.owner(d),
    name: d.name,
    description: d.description,
    createdBy: await names.email(d.createdBy),
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    deletedAt: d.deletedAt ?? null,
    deletedBy: d.deletedBy ? await names.email(d.deletedBy) : null,
  };
}

async function entryLine(names: NameDirectory, { entry: e, versions, turn }: EntryRecord): Promise<EntryLine> {
  const history: EntryLine['history'] = [];
  for (const v of versions) {
    history.push({
      version: v.version,
      change: v.change,
      restoredFrom: v.restoredFrom,
      kind: v.kind as EntryLine['kind'],
      title: v.title,
      content: v.content,
      tags: v.tags,
      changedBy: await names.email(v.changedBy),
      changedClient: v.changedClient,
      changedAt: v.changedAt,
      ...(v.applies !== undefined && { applies: v.applies }),
      ...(v.lifecycle && {
        owner: v.lifecycle.owner && (await names.email(v.lifecycle.owner)),
        reviewBy: v.lifecycle.reviewBy,
        expires: v.lifecycle.expires,
      }),
    });
  }
  return {
    type: 'entry',
    id: e.id,
    datapack: e.datapackId,
    kind: e.kind as EntryLine['kind'],
    title: e.title,
    content: e.content,
    tags: e.tags,
    version: e.version,
    createdBy: await names.email(e.createdBy),
    createdClient: e.createdClient,
    createdAt: e.createdAt,
    updatedBy: await names.email(e.updatedBy),
    updatedClient: e.updatedClient,
    updatedAt: e.updatedAt,
    deletedAt: e.deletedAt,
    ...(e.applies && { applies: e.applies }),
    ...(e.supersedes?.length && { supersedes: e.supersedes }),
    ...(e.replacedBy && { replacedBy: e.replacedBy }),
    ...(e.owner && { owner: await names.email(e.owner) }),
    ...(e.reviewBy && { reviewBy: e.reviewBy }),
    ...(e.expires && { expires: e.expires }),
    ...(turn && {
      turn: {
        user: await names.email(turn.userId),
        turnId: turn.turnId,
        at: turn.createdAt,
        sessionId: turn.sessionId,
        speaker: turn.speaker,
        role: turn.role as 'user' | 'assistant' | null,
      },
    }),
    history,
  };
}
