/** The company of a guidance file, built in a Cairn through its public tools (eval/guidance.ts, eval/guidance-tune.ts). */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Client } from '@modelcontextprotocol/client';
import { createUser } from '../src/domain/accounts.js';
import { createApiKey } from '../src/domain/api-keys.js';
import { addUserToTeam, createTeam } from '../src/domain/teams.js';
import { callTool, connectMcpClient } from '../src/testing/mcp-client.js';
import type { TestCairn } from '../src/testing/test-cairn.js';
import type { RuleFacts } from './guidance-metrics.js';

export interface Rule {
  id: string;
  level: 'organization' | 'team' | 'personal';
  team?: string;
  user?: string;
  kind: string;
  title: string;
  content: string;
  tags: string[];
  applies?: { always?: boolean; files?: string[]; projects?: string[] };
  /** Its author's words for when it is needed (beside `applies` in the file). */
  when?: string;
  superseded_by?: string;
}

export interface Company {
  company: string;
  teams: { id: string; name: string }[];
  users: { id: string; name: string; teams: string[] }[];
  entries: Rule[];
  tasks: {
    id: string;
    user: string;
    task: string;
    files: string[];
    project: string;
    concerns?: string[];
    applies: string[];
  }[];
}

export interface People {
  adminKey: string;
  /** Dataset user id → API key. */
  keys: Map<string, string>;
  /** Dataset user id → Cairn user id. */
  userIds: Map<string, string>;
  /** Dataset team id → Cairn team id. */
  teams: Map<string, string>;
}

/** An organization owned by an admin (who writes the organization's and the teams' rules), its teams, and its people. */
export async function buildCompany(cairn: TestCairn, company: Company): Promise<People> {
  const tag = randomBytes(4).toString('hex');
  const org = `${company.company} ${tag}`;
  const password = randomBytes(18).toString('base64url');
  const newUser = async (id: string, name: string, join: boolean) => {
    const { user } = await createUser(cairn.cairn.domain, cairn.cairn.auth, {
      email: `${id}-${tag}@guidance.test`,
      password,
      org,
      join,
      name,
    });
    return { userId: user.id, key: (await createApiKey(cairn.cairn.domain, user.id, 'guidance harness')).key };
  };
  const admin = await newUser('admin', 'Rulebook admin', false);
  const orgId = (await cairn.cairn.store.getMemberships(admin.userId)).organizations[0]!.id;
  const teams = new Map<string, string>();
  for (const team of company.teams) {
    const created = await createTeam(cairn.cairn.domain, cairn.cairn.auth, orgId, team.name);
    teams.set(team.id, created.id);
    await addUserToTeam(cairn.cairn.domain, cairn.cairn.auth, created.id, admin.userId);
  }
  const keys = new Map<string, string>();
  const userIds = new Map<string, string>();
  for (const person of company.users) {
    const user = await newUser(person.id, person.name, true);
    keys.set(person.id, user.key);
    userIds.set(person.id, user.userId);
    for (const team of person.teams)
      await addUserToTeam(cairn.cairn.domain, cairn.cairn.auth, teams.get(team)!, user.userId);
  }
  return { adminKey: admin.key, keys, userIds, teams };
}

/** Saves every rule where its level puts it; replaced rules first, so the rule replacing them can name them. */
export async function saveRules(
  cairn: TestCairn,
  company: Company,
  people: People,
  admin: Client,
  annotate: boolean,
): Promise<{ idOf: Map<string, string>; refused: string[] }> {
  const orgPack = (
    await callTool<{ datapack: { id: string } }>(admin, 'create_datapack', {
      name: `${company.company} policies`,
      scope: 'organization',
    })
  ).datapack.id;
  const teamPacks = new Map<string, string>();
  for (const team of company.teams) {
    const teamId = people.teams.get(team.id)!;
    teamPacks.set(
      team.id,
      (
        await callTool<{ datapack: { id: string } }>(admin, 'create_datapack', {
          name: `${team.name} standards`,
          scope: 'team',
          teamId,
        })
      ).datapack.id,
    );
  }
  const idOf = new Map<string, string>();
  const refused: string[] = [];
  const personal = new Map<string, Client>();
  const ordered = [
    ...company.entries.filter((e) => e.superseded_by),
    ...company.entries.filter((e) => !e.superseded_by),
  ];
  try {
    for (const rule of ordered) {
      let client = admin;
      let datapack: string | undefined;
      if (rule.level === 'organization') datapack = orgPack;
      else if (rule.level === 'team') datapack = teamPacks.get(rule.team!);
      else {
        client = personal.get(rule.user!) ?? (await connectMcpClient(cairn.mcpUrl, people.keys.get(rule.user!)!));
        personal.set(rule.user!, client);
      }
      const args: Record<string, unknown> = {
        kind: rule.kind,
        title: rule.title,
        content: rule.content,
        tags: rule.tags,
        ...(datapack && { datapack }),
      };
      if (annotate) {
        const { always, files, projects } = rule.applies ?? {};
        const when = rule.when;
        if (always || files?.length || projects?.length || when)
          args.applies = {
            ...(always && { always }),
            ...(files?.length && { files }),
            ...(projects?.length && { projects }),
            ...(when && { when }),
          };
        const replaces = company.entries.filter((e) => e.superseded_by === rule.id).map((e) => idOf.get(e.id)!);
        if (replaces.length) args.supersedes = replaces;
      }
      const saved = await callTool<{ status: string; entry: { id: string } }>(client, 'save_entry', args);
      if (saved.status !== 'created') refused.push(rule.id);
      else idOf.set(rule.id, saved.entry.id);
    }
  } finally {
    for (const client of personal.values()) await client.close();
  }
  return { idOf, refused };
}

export async function loadCompany(file: string): Promise<Company> {
  return JSON.parse(await readFile(file, 'utf8')) as Company;
}

/** Which rules are "always" (left out of precision) and which a newer rule replaced. */
export function ruleFacts(company: Company): RuleFacts {
  return {
    always: new Set(company.entries.filter((e) => e.applies?.always).map((e) => e.id)),
    replaced: new Set(company.entries.filter((e) => e.superseded_by).map((e) => e.id)),
  };
}
