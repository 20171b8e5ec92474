import type { DatapackView } from '@cairn/contract';
import { redact } from '@cairn/contract/redaction';
import { z } from 'zod';
import { CairnError } from '../errors/cairn-error.js';
import type { Datapack, Scope } from '../store/types.js';
import type { Access } from './access.js';
import { auditDatapack } from './audit.js';
import type { DomainDeps } from './deps.js';
import { parse, storedName } from './parse-input.js';

/** Name of the datapack every user gets. */
export const PERSONAL_DATAPACK_NAME = 'Personal';

/** Input of createDatapack, shared by every adapter. */
export const createDatapackInput = z.object({
  // Names are shown in terminals and lists: control and bidirectional characters never get stored.
  name: z.string().overwrite(storedName).min(1).max(80).describe('Unique within its owner'),
  scope: z.enum(['personal', 'team', 'organization']).default('personal').describe('Who owns it'),
  teamId: z.string().optional().describe('For scope "team"'),
  organizationId: z.string().optional().describe('If you are in several organizations'),
  description: z.string().max(500).default('').describe('What belongs in it'),
});

/** Every datapack the caller can read, with entry counts; creates their personal one on first use. */
export async function listDatapacks(deps: DomainDeps, access: Access): Promise<DatapackView[]> {
  await readableDatapacks(deps, access);
  return (await deps.store.listDatapacks(access.readableOwners()))
    .sort(byScopeThenName)
    .map((d) => ({ ...d, writable: access.canWrite(d) }));
}

/** One datapack the caller can read, with its counts; not_found for any other (existence never leaks). */
export async function getDatapack(deps: DomainDeps, access: Access, id: string): Promise<DatapackView> {
  const datapack = await deps.store.getDatapack(id);
  access.assertRead(datapack);
  const [summary] = (await deps.store.listDatapacks([{ scope: datapack.scope, ownerId: datapack.ownerId }])).filter(
    (d) => d.id === id,
  );
  access.assertRead(summary);
  return { ...summary, writable: access.canWrite(summary) };
}

/**
 * Every datapack the caller can read, without counts; fetched once per Memberships object, which
 * loadAccess keeps until the access epoch moves (a datapack change moves it), so most requests
 * fetch nothing. The list is shared between requests: never change it or its datapacks.
 */
export function readableDatapacks(deps: DomainDeps, access: Access): Promise<readonly Datapack[]> {
  const readableMemo = deps.caches.readable;
  const key = access.memberships;
  let packs = readableMemo.get(key);
  if (!packs) {
    packs = (async () => {
      let found = await deps.store.findDatapacks(access.readableOwners());
      if (!found.some((p) => p.scope === 'personal')) {
        await ensurePersonalDatapack(deps, access.caller.userId);
        found = await deps.store.findDatapacks(access.readableOwners());
      }
      // Frozen: a verb that changed a shared datapack would change it for every later request.
      return Object.freeze(found.sort(byScopeThenName).map((d) => Object.freeze(d)));
    })();
    packs.catch(() => readableMemo.delete(key));
    readableMemo.set(key, packs);
  }
  return packs;
}

/** Creates a datapack at the requested scope if the caller may. A secret in its name or description is stored as a visible [redacted:<rule>] marker. */
export async function createDatapack(
  deps: DomainDeps,
  access: Access,
  raw: z.input<typeof createDatapackInput>,
): Promise<Datapack> {
  access.assertMayWrite();
  const input = parse(createDatapackInput, raw);
  const { ownerId, organizationId } = resolveOwner(access, input);
  const now = deps.now();
  const datapack: Datapack = {
    id: deps.newId('dpk'),
    scope: input.scope,
    ownerId,
    organizationId,
    name: redact(input.name).text,
    description: redact(input.description).text,
    createdBy: access.caller.userId,
    createdAt: now,
    updatedAt: now,
  };
  await deps.store.insertDatapack(datapack);
  auditDatapack(deps, access.caller, 'datapack.created', datapack);
  return datapack;
}

/** Input of updateDatapack: what changes (a field left out stays). */
export const updateDatapackInput = z.object({
  name: z.string().overwrite(storedName).min(1, 'give the datapack a name').max(80).optional(),
  description: z.string().max(500).optional(),
});

/** Renames or redescribes a datapack the caller may write; secrets in either are stored as markers. */
export async function updateDatapack(
  deps: DomainDeps,
  access: Access,
  id: string,
  raw: z.input<typeof updateDatapackInput>,
): Promise<Datapack> {
  const datapack = await deps.store.getDatapack(id);
  access.assertRead(datapack);
  access.assertWrite(datapack);
  const input = parse(updateDatapackInput, raw);
  const name = input.name === undefined ? datapack.name : redact(input.name).text;
  const description = input.description === undefined ? datapack.description : redact(input.description).text;
  if (datapack.scope === 'personal' && datapack.name === PERSONAL_DATAPACK_NAME && name !== datapack.name) {
    throw new CairnError(
      'invalid_input',
      `"${PERSONAL_DATAPACK_NAME}" is where your agents save by default; it keeps its name (its description can change).`,
    );
  }
  const updatedAt = deps.now();
  if (!(await deps.store.updateDatapack(id, { name, description, updatedAt })))
    throw new CairnError('not_found', 'No such datapack among yours.');
  auditDatapack(deps, access.caller, 'datapack.updated', { ...datapack, name });
  return { ...datapack, name, description, updatedAt };
}

/** Makes sure the user has a personal datapack of this name (by default their own); safe to call concurrently. */
export async function ensurePersonalDatapack(
  deps: DomainDeps,
  userId: string,
  name = PERSONAL_DATAPACK_NAME,
  description = 'Your own preferences and notes',
): Promise<void> {
  const now = deps.now();
  try {
    await deps.store.insertDatapack({
      id: deps.newId('dpk'),
      scope: 'personal',
      ownerId: userId,
      organizationId: null,
      name,
      description,
      createdBy: userId,
      createdAt: now,
      updatedAt: now,
    });
  } catch (error) {
    if (!(error instanceof CairnError && error.code === 'conflict')) throw error;
  }
}

/**
 * Finds a readable datapack by id or by name (case-insensitive). Without a reference, the caller's
 * personal datapack. An ambiguous name is an error that lists the candidates.
 */
export async function resolveDatapack(deps: DomainDeps, access: Access, ref: string | undefined): Promise<Datapack> {
  if (ref?.startsWith('dpk_')) {
    const d = await deps.store.getDatapack(ref);
    access.assertRead(d);
    return d;
  }
  const packs = await readableDatapacks(deps, access);
  if (!ref)
    return (
      packs.find((p) => p.scope === 'personal' && p.name === PERSONAL_DATAPACK_NAME) ??
      packs.find((p) => p.scope === 'personal')!
    );
  const matches = packs.filter((p) => p.name.toLowerCase() === ref.trim().toLowerCase());
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) {
    throw new CairnError(
      'not_found',
      `No datapack named "${ref}". Yours are: ${packs.map((p) => `"${p.name}" (${p.scope})`).join(', ')}.`,
    );
  }
  throw new CairnError(
    'invalid_input',
    `Several datapacks are named "${ref}"; pass one of these ids instead: ${matches.map((p) => `${p.id} (${p.scope})`).join(', ')}.`,
  );
}

function resolveOwner(
  access: Access,
  input: z.output<typeof createDatapackInput>,
): { ownerId: string; organizationId: string | null } {
  const { memberships, caller } = access;
  if (input.scope === 'personal') return { ownerId: caller.userId, organizationId: null };
  if (input.scope === 'team') {
    const team = memberships.teams.find((t) => t.id === input.teamId);
    if (!team) {
      const yours = memberships.teams.map((t) => `${t.id} (${t.name})`).join(', ') || 'none';
      throw new CairnError(
        'forbidden',
        `A team datapack needs the id of a team you belong to (teamId). Your teams: ${yours}.`,
      );
    }
    return { ownerId: team.id, organizationId: team.organizationId };
  }
  const orgs = memberships.organizations;
  const org = input.organizationId
    ? orgs.find((o) => o.id === input.organizationId)
    : orgs.length === 1
      ? orgs[0]
      : undefined;
  if (!org)
    throw new CairnError(
      'invalid_input',
      'Pass organizationId: you belong to several organizations, or to none with that id.',
    );
  if (!access.isOrgAdmin(org.id))
    throw new CairnError('forbidden', `Only admins of "${org.name}" can create organization datapacks.`);
  return { ownerId: org.id, organizationId: org.id };
}

const SCOPE_ORDER: Record<Scope, number> = { personal: 0, team: 1, organization: 2 };

function byScopeThenName(a: Datapack, b: Datapack): number {
  return SCOPE_ORDER[a.scope] - SCOPE_ORDER[b.scope] || a.name.localeCompare(b.name);
}
