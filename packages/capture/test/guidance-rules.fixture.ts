// What the guidance hook tests ask a real Cairn about: an organization's "always" policy, a team
// standard for one project, one for migrations, and one for another project; and a git checkout
// whose remote names the project.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { callTool, connectMcpClient } from '../../server/src/testing/mcp-client.js';
import type { TestTenant } from '../../server/src/testing/tenants.js';
import type { TestCairn } from '../../server/src/testing/test-cairn.js';

/** The project the rules are scoped to, and the last path segment of the checkout's remote. */
export const PROJECT = 'billing-service';
/** A project the checkout is not. */
export const OTHER_PROJECT = 'ledger-service';

/** The rules, by role; each title and content holds a word no other text does, to look for in what the agent was sent. */
export const RULES = {
  always: {
    kind: 'policy',
    title: 'Card numbers never reach logs',
    content: 'Mask every primary account number (alwaysmarkq7) before it is written anywhere.',
    applies: { always: true },
  },
  project: {
    kind: 'standard',
    title: 'Invoices are immutable',
    content: 'Correct an issued invoice with a credit note (projectmarkz3), never by editing it.',
    applies: { projects: [PROJECT] },
  },
  migrations: {
    kind: 'standard',
    title: 'Expand and contract schema changes',
    content: 'Add the new column first, backfill, switch reads, drop the old one a release later (migrationmarkw8).',
    applies: { files: ['migrations/**'] },
  },
  other: {
    kind: 'standard',
    title: 'Journal entries balance',
    content: 'Every posting writes a debit and a credit of equal amounts (othermarkv5).',
    applies: { projects: [OTHER_PROJECT] },
  },
} as const;

/** Each rule's marker word, by role. */
export const MARK = {
  always: 'alwaysmarkq7',
  project: 'projectmarkz3',
  migrations: 'migrationmarkw8',
  other: 'othermarkv5',
} as const;

/** Saves the rules: the policy in the organization's datapack (by its owner), the standards in the team's (by the member whose key hooks use). */
export async function seedRules(cairn: TestCairn, tenant: TestTenant): Promise<Record<keyof typeof RULES, string>> {
  const owner = await connectMcpClient(cairn.mcpUrl, tenant.owner.key);
  const member = await connectMcpClient(cairn.mcpUrl, tenant.member.key);
  try {
    const team = (
      await callTool(member, 'create_datapack', { name: 'Team standards', scope: 'team', teamId: tenant.teamId })
    ).datapack.id as string;
    const save = async (client: typeof owner, datapack: string, rule: (typeof RULES)[keyof typeof RULES]) =>
      (await callTool(client, 'save_entry', { datapack, ...rule })).entry.id as string;
    return {
      always: await save(owner, tenant.orgName, RULES.always),
      project: await save(member, team, RULES.project),
      migrations: await save(member, team, RULES.migrations),
      other: await save(member, team, RULES.other),
    };
  } finally {
    await Promise.all([owner.close(), member.close()]);
  }
}

/** A git checkout at `dir` whose origin remote ends in `/<PROJECT>.git`, with a subfolder to run from. */
export function checkout(dir: string, remote = `https://git.example.test/acme/${PROJECT}.git`): string {
  mkdirSync(join(dir, 'src', 'invoices'), { recursive: true });
  for (const args of [
    ['init', '-q'],
    ['remote', 'add', 'origin', remote],
  ]) {
    const r = spawnSync('git', args, {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' },
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  }
  return dir;
}
