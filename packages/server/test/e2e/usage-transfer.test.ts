// Rule usage in the JSON Lines export: answers without their task, only an organization's own, and
// an import that counts them again (once) in a fresh Cairn; older files without usage still import.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RuleUsageRow } from '@cairn/contract';
import { PLANTED_SECRETS } from '@cairn/contract/testing/planted-secrets';
import { loadAccess } from '../../src/domain/access.js';
import { createUser } from '../../src/domain/accounts.js';
import { exportLines, planCallerExport, planOperatorExport } from '../../src/domain/export.js';
import { importFile } from '../../src/domain/import.js';
import { flushRuleUsage, ruleUsage } from '../../src/domain/rule-usage.js';
import type { Cairn } from '../../src/runtime/open-cairn.js';
import { callTool } from '../../src/testing/mcp-client.js';
import { startTestCairn } from '../../src/testing/test-cairn.js';
import { member, outsider, owner, server, tenant, useTenantCairn } from './tenant-cairn.fixture.js';

let policy: string;
let personal: string;
let personalPack: string;
let outsidersOwn: string;
const TASK = 'ship the payroll-zebra-task release';

useTenantCairn(async () => {
  const always = (title: string) => ({
    kind: 'policy',
    title,
    content: `${title}, always.`,
    applies: { always: true },
  });
  policy = (await callTool(owner, 'save_entry', { datapack: tenant.orgName, ...always('Sign every release tag') }))
    .entry.id;
  const mine = await callTool(member, 'save_entry', { ...always('Answer me in short sentences') });
  personal = mine.entry.id;
  personalPack = mine.entry.datapackId;
  outsidersOwn = (await callTool(outsider, 'save_entry', always('Outsider rule'))).entry.id;
  for (let i = 0; i < 2; i++) await callTool(member, 'get_guidance', { task: TASK });
  await callTool(owner, 'get_guidance', { task: TASK });
  await callTool(outsider, 'get_guidance', { task: TASK });
  await flushRuleUsage(server.cairn.domain);
  // A crafted answer to a stranger naming the organization's policy: never exported with it.
  await server.cairn.store.appendRuleUsage([
    {
      id: 'rua_stranger',
      at: new Date().toISOString(),
      userId: tenant.outsider.id,
      organizationIds: ['org_elsewhere'],
      client: null,
      session: null,
      task: 'stranger task',
      given: [{ id: policy, title: 'Sign every release tag', reason: 'always' }],
      named: [],
    },
  ]);
});

type Line = Record<string, any>;
const parse = (text: string): Line[] =>
  text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
const session = (cairn: Cairn, userId: string) =>
  loadAccess(cairn.domain, { userId, client: null, via: 'session', scope: 'read-write' });

async function collect(lines: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const chunk of lines) text += chunk;
  return text;
}
const orgExport = async () =>
  collect(
    exportLines(
      server.cairn.domain,
      await planOperatorExport(server.cairn.domain, undefined, { organization: tenant.orgName }),
    ),
  );
const callerExport = async (userId: string) =>
  collect(
    exportLines(
      server.cairn.domain,
      await planCallerExport(server.cairn.domain, await session(server.cairn, userId), {}),
    ),
  );
const usageOf = (lines: Line[]) => lines.filter((l) => l.type === 'usage');
const rulesOf = (u: Line) => (u.given as { entry: string }[]).map((g) => g.entry).sort();

/** A fresh Cairn with the tenant's owner and member (same emails, organization of the same name). */
async function freshCairn() {
  const other = await startTestCairn();
  const make = (email: string, join: boolean) =>
    createUser(other.cairn.domain, other.cairn.auth, {
      email,
      password: 'correct horse battery',
      name: email.split('@')[0]!,
      org: tenant.orgName,
      join,
    });
  const o = (await make(tenant.owner.email, false)).user;
  const m = (await make(tenant.member.email, true)).user;
  return { other, ownerId: o.id, memberId: m.id };
}

const counts = (rows: RuleUsageRow[], id: string) => {
  const r = rows.find((x) => x.entryId === id);
  return r && { given: r.given, named: r.named, lastGivenAt: r.lastGivenAt, clients: r.clients };
};

describe('rule usage in the export', () => {
  test("an organization's export carries its members' answers to its rules, without task or session, no stranger's", async () => {
    const lines = parse(await orgExport());
    const usage = usageOf(lines);
    assert.deepEqual(
      usage.map((u) => [u.user, rulesOf(u), Object.keys(u).sort()]),
      [tenant.member.email, tenant.member.email, tenant.owner.email].map((user) => [
        user,
        [policy],
        ['at', 'client', 'given', 'id', 'named', 'type', 'user'],
      ]),
    );
    assert.deepEqual(usage[0]!.given, [{ entry: policy, reason: 'always' }]);
    assert.equal(usage[0]!.client, 'cairn-test 1.0.0');
    assert.deepEqual(lines.at(-1), { type: 'end', datapacks: 1, entries: 1, usage: 3 });
    const text = JSON.stringify(lines);
    for (const absent of ['zebra', 'stranger', personal, outsidersOwn, 'rua_stranger'])
      assert.ok(!text.includes(absent), absent);
  });

  test('a member exports only their own answers; an admin their members’ answers to the rules they can read', async () => {
    const mine = usageOf(parse(await callerExport(tenant.member.id)));
    assert.deepEqual(
      mine.map((u) => [u.user, rulesOf(u)]),
      [
        [tenant.member.email, [policy, personal].sort()],
        [tenant.member.email, [policy, personal].sort()],
      ],
    );
    const admin = usageOf(parse(await callerExport(tenant.owner.id)));
    assert.deepEqual(
      admin.map((u) => [u.user, rulesOf(u)]),
      [
        [tenant.member.email, [policy]],
        [tenant.member.email, [policy]],
        [tenant.owner.email, [policy]],
      ],
      "the member's personal rule is not the admin's to export",
    );
    const stranger = usageOf(parse(await callerExport(tenant.outsider.id)));
    assert.deepEqual(
      stranger.map((u) => rulesOf(u)),
      [[outsidersOwn]],
      'the crafted answer names a rule the outsider cannot export',
    );
  });

  test('export → import into a fresh Cairn counts the same usage; a second import changes nothing', async () => {
    const text = await orgExport();
    const before = await ruleUsage(server.cairn.domain, await session(server.cairn, tenant.owner.id), {});
    const { other, ownerId, memberId } = await freshCairn();
    try {
      const report = await importFile(other.cairn.domain, () => text.trimEnd().split('\n'));
      assert.deepEqual(report.problems, []);
      assert.deepEqual(report.usage, { created: 3, updated: 0, unchanged: 0, skipped: 0 });
      const after = await ruleUsage(other.cairn.domain, await session(other.cairn, ownerId), {});
      assert.deepEqual(counts(after.rules, policy), counts(before.rules, policy));
      assert.deepEqual(counts(after.rules, policy)!.given, 3);
      const own = await ruleUsage(other.cairn.domain, await session(other.cairn, memberId), {});
      assert.equal(counts(own.rules, policy)!.given, 2, 'the member counts their own answers');
      const stored = await other.cairn.store.listRuleUsage({ since: '1970-01-01T00:00:00.000Z' });
      assert.deepEqual(
        stored.map((r) => [r.task, r.session, r.userId]),
        [
          ['', null, memberId],
          ['', null, memberId],
          ['', null, ownerId],
        ],
      );
      const again = await importFile(other.cairn.domain, () => text.trimEnd().split('\n'));
      assert.deepEqual(again.usage, { created: 0, updated: 0, unchanged: 3, skipped: 0 });
      assert.equal((await other.cairn.store.listRuleUsage({ since: '1970-01-01T00:00:00.000Z' })).length, 3);
    } finally {
      await other.close();
    }
  });

  test('a file from before exports carried usage imports; a bad usage line stops the import before anything is written', async () => {
    const lines = parse(await orgExport());
    const old = lines.filter((l) => l.type !== 'usage').map((l) => (l.type === 'end' ? { ...l, usage: undefined } : l));
    const usage = usageOf(lines)[0]!;
    const entry = lines.find((l) => l.type === 'entry')!;
    const end = lines.at(-1)!;
    const head = lines.filter((l) => l.type !== 'usage' && l.type !== 'end');
    const bad: [string, Line[], RegExp][] = [
      [
        'a rule not in the file',
        [...head, { ...usage, given: [{ entry: 'ent_elsewhere', reason: 'always' }] }, end],
        /names entry ent_elsewhere, which no entry line/,
      ],
      ['the task', [...head, { ...usage, task: TASK }, end], /Unrecognized key: "task"/],
      [
        'a miscount',
        [...head, usage, { ...end, usage: 2 }],
        /end line counts 1 datapacks, 1 entries and 2 usage lines but the file holds 1, 1 and 1/,
      ],
      ['no count', [...head, usage, { ...end, usage: undefined }], /0 usage lines but the file holds 1, 1 and 1/],
      ['an entry after usage', [...head, usage, { ...entry, id: 'ent_late' }, end], /an entry line comes after usage/],
      ['a NUL', [...head, { ...usage, client: 'evil\u0000' }, end], /NUL character/],
    ];
    const { other, ownerId } = await freshCairn();
    try {
      for (const [what, file, message] of bad) {
        await assert.rejects(
          importFile(other.cairn.domain, () => file.map((l) => JSON.stringify(l))),
          (e: Error) => message.test(e.message),
          what,
        );
      }
      assert.ok(!(await other.cairn.store.getEntry(policy)), 'nothing was written');
      const report = await importFile(other.cairn.domain, () => old.map((l) => JSON.stringify(l)));
      assert.deepEqual([report.problems, report.entries.created, report.usage.created], [[], 1, 0]);
      const after = await ruleUsage(other.cairn.domain, await session(other.cairn, ownerId), {});
      assert.equal(counts(after.rules, policy)!.given, 0);
    } finally {
      await other.close();
    }
  });

  test("a member's own import keeps only their own answers, and redacts what it stores", async () => {
    const res = await fetch(`${server.baseUrl}/api/v1/export?datapack=${personalPack}`, {
      headers: { authorization: `Bearer ${tenant.member.key}` },
    });
    assert.equal(res.status, 200);
    const lines = parse(await res.text());
    const mine = usageOf(lines);
    assert.deepEqual(
      mine.map((u) => rulesOf(u)),
      [[personal], [personal]],
    );
    const { line: planted, secret } = PLANTED_SECRETS[0]!;
    const forged = { ...mine[0]!, id: 'rua_forged', user: tenant.owner.email };
    const redacted = { ...mine[1]!, client: `hook ${planted}`.slice(0, 400) };
    const file = [
      ...lines.filter((l) => l.type !== 'usage' && l.type !== 'end'),
      mine[0],
      redacted,
      forged,
      { ...lines.at(-1)!, usage: 3 },
    ];
    const { other, memberId } = await freshCairn();
    try {
      const access = await loadAccess(other.cairn.domain, {
        userId: memberId,
        client: null,
        via: 'api_key',
        scope: 'read-write',
      });
      const report = await importFile(other.cairn.domain, () => file.map((l) => JSON.stringify(l)), { access });
      assert.deepEqual(report.usage, { created: 2, updated: 0, unchanged: 0, skipped: 1 });
      assert.deepEqual(report.problems, ['1 rule usage answer(s) were not imported: they were given to someone else.']);
      const stored = await other.cairn.store.listRuleUsage({ since: '1970-01-01T00:00:00.000Z' });
      assert.deepEqual(
        stored.map((r) => [r.userId, r.given.map((g) => g.id)]),
        [
          [memberId, [personal]],
          [memberId, [personal]],
        ],
      );
      assert.ok(!JSON.stringify(stored).includes(secret), 'the client was redacted');
      assert.match(stored.map((r) => r.client).join(' '), /\[redacted:/);
    } finally {
      await other.close();
    }
  });
});
