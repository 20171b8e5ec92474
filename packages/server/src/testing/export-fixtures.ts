import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { captureTurns } from '../capture/capture-turns.js';
import { loadAccess } from '../domain/access.js';
import { createUser } from '../domain/accounts.js';
import { createDatapack } from '../domain/datapacks.js';
import { deleteEntry, saveEntry, updateEntry } from '../domain/entries.js';
import { exportLines, planOperatorExport } from '../domain/export.js';
import { addUserToTeam, createTeam } from '../domain/teams.js';
import { deleteDatapack, restoreEntry } from '../domain/trash.js';
import type { Cairn } from '../runtime/open-cairn.js';
import type { Entry } from '../store/types.js';

/** The people of an export test, the same emails and names in every Cairn of the test. */
export interface ExportPeople {
  tag: string;
  owner: { id: string; email: string };
  member: { id: string; email: string };
  teamId: string;
  orgName: string;
}

/** Creates an owner (of a new organization), a member, and a team holding the member: what an import needs to exist first. */
export async function createPeople(cairn: Cairn, tag: string): Promise<ExportPeople> {
  const orgName = `Acme ${tag}`;
  const owner = (
    await createUser(cairn.domain, cairn.auth, {
      email: `owner-${tag}@example.test`,
      name: 'Olive Owner',
      password: 'correct horse battery',
      org: orgName,
    })
  ).user;
  const member = (
    await createUser(cairn.domain, cairn.auth, {
      email: `member-${tag}@example.test`,
      name: 'Mo Member',
      password: 'correct horse battery',
      org: orgName,
      join: true,
    })
  ).user;
  const orgId = (await cairn.store.getMemberships(owner.id)).organizations[0]!.id;
  const team = await createTeam(cairn.domain, cairn.auth, orgId, `Team ${tag}`);
  await addUserToTeam(cairn.domain, cairn.auth, team.id, member.id);
  return {
    tag,
    owner: { id: owner.id, email: owner.email },
    member: { id: member.id, email: member.email },
    teamId: team.id,
    orgName,
  };
}

/**
 * Fills a Cairn with every kind of thing an export must carry: an entry with four versions (update,
 * delete, restore), team and organization entries, captured turns with session and speaker, a
 * datapack in the trash, and `bulk` plain entries written straight through the store (fast).
 */
export async function seedMemory(cairn: Cairn, people: ExportPeople, bulk: number): Promise<void> {
  const deps = cairn.domain;
  const session = (userId: string) =>
    loadAccess(deps, { userId, client: 'cairn-portal', via: 'session', scope: 'read-write' });
  const owner = await session(people.owner.id);
  const member = await session(people.member.id);
  const saved = await saveEntry(deps, owner, {
    title: 'Deploy rotation',
    content: 'Deploys go out on Tuesdays.\nNever on Fridays — "ever".',
    tags: ['deploy', 'Ops'],
    kind: 'policy',
  });
  const updated = await updateEntry(deps, owner, {
    id: saved.entry.id,
    expectedVersion: 1,
    content: 'Deploys go out on Tuesdays and Thursdays. Ünïcödé ✓ \u2028 line sep.',
  });
  await deleteEntry(deps, owner, updated.entry.id);
  await restoreEntry(deps, owner, { id: updated.entry.id });
  const team = await createDatapack(deps, member, {
    name: 'Team notes',
    scope: 'team',
    teamId: people.teamId,
    description: 'What the team agreed',
  });
  await saveEntry(deps, member, {
    datapack: team.id,
    title: 'Team review rule',
    content: 'Two approvals for anything touching billing.',
    kind: 'standard',
    tags: ['review'],
  });
  await saveEntry(deps, owner, {
    datapack: people.orgName,
    title: 'Org policy on vendors',
    content: 'New vendors need a security review first.',
    kind: 'policy',
  });
  await saveEntry(deps, member, { title: 'Gone soon', content: 'This one is deleted and stays deleted.' }).then((r) =>
    deleteEntry(deps, member, r.entry.id),
  );
  const at = '2026-01-02T03:04:05.678Z';
  await captureTurns(
    deps,
    { userId: people.member.id, client: 'claude-code', via: 'api_key', scope: 'read-write' },
    {
      turns: [
        {
          id: `turn-1-${people.tag}`,
          role: 'user',
          text: 'How do we deploy on Fridays?',
          client: 'claude-code',
          sessionId: 'sess-1',
          at,
        },
        {
          id: `turn-2-${people.tag}`,
          role: 'assistant',
          text: 'We do not deploy on Fridays.',
          client: 'claude-code',
          sessionId: 'sess-1',
          speaker: 'Claude',
          at,
        },
      ],
    },
  );
  const scratch = await createDatapack(deps, member, { name: 'Scratch', description: 'Throwaway notes' });
  await saveEntry(deps, member, {
    datapack: scratch.id,
    title: 'Scratch note',
    content: 'Kept only in the trash now.',
  });
  await deleteDatapack(deps, member, scratch.id);
  const pack = await createDatapack(deps, owner, { name: 'Bulk', description: 'Ten thousand facts' });
  const kinds = ['note', 'preference', 'decision', 'standard'] as const;
  const base = Date.parse('2026-03-01T00:00:00.000Z');
  for (let i = 0; i < bulk; i++) {
    const when = new Date(base + i * 1000).toISOString();
    const content = `Fact ${i}: service-${i % 97} talks to queue-${i % 13} over gRPC; timeout ${i % 30} s. Ä "quoted" \\ back\\slash\ttab.`;
    const entry: Entry = {
      id: deps.newId('ent'),
      datapackId: pack.id,
      kind: kinds[i % kinds.length]!,
      title: `Fact ${i} about service-${i % 97}`,
      content,
      tags: [`svc-${i % 97}`, 'bulk'],
      contentHash: `seed-${i}`,
      version: 1,
      createdBy: people.owner.id,
      createdClient: 'seed',
      createdAt: when,
      updatedBy: people.owner.id,
      updatedClient: 'seed',
      updatedAt: when,
      deletedAt: null,
    };
    await cairn.store.insertEntry(entry);
  }
}

/** Everything a Cairn holds, exported in memory as the CLI would write it. */
export async function exportAll(cairn: Cairn): Promise<string> {
  let text = '';
  for await (const chunk of exportLines(cairn.domain, await planOperatorExport(cairn.domain, undefined, {})))
    text += chunk;
  return text;
}

/** A file's lines, read the way `cairn import` reads them. */
export function fileLines(path: string): () => AsyncIterable<string> {
  return () => createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
}

/**
 * An export with what differs between two Cairns holding the same data taken out: the time it was
 * made, the backend, and datapack ids (an import may land in an existing datapack of the same name).
 */
export function comparable(text: string): unknown[] {
  const ids = new Map<string, string>();
  return text
    .trimEnd()
    .split('\n')
    .map((l, i) => {
      const value = JSON.parse(l);
      if (i === 0) return { ...value, exportedAt: undefined, source: { ...value.source, backend: undefined } };
      if (value.type === 'datapack') {
        ids.set(value.id, `datapack#${ids.size}`);
        return { ...value, id: ids.get(value.id) };
      }
      if (value.type === 'entry') return { ...value, datapack: ids.get(value.datapack) };
      return value;
    });
}
