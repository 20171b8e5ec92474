// Rule usage: every guidance answer is recorded, and who may see whose counts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RuleUsageRow } from '@cairn/contract';
import { PLANTED_SECRETS } from '@cairn/contract/testing/planted-secrets';
import { sql } from 'kysely';
import { flushRuleUsage, purgeRuleUsage, useRuleUsageLog } from '../../src/domain/rule-usage.js';
import { createLogger } from '../../src/log/logger.js';
import { callTool } from '../../src/testing/mcp-client.js';
import { member, outsider, owner, server, tenant, useTenantCairn } from './tenant-cairn.fixture.js';

let always: string;
let never: string;
let outsidersOwn: string;
const TASK = 'refactor the billing-secret-task module';

useTenantCairn(async () => {
  always = (
    await callTool(owner, 'save_entry', {
      datapack: tenant.orgName,
      kind: 'policy',
      title: 'Every repository has a CODEOWNERS file',
      content: 'Every repository has a CODEOWNERS file naming its owners.',
      applies: { always: true },
    })
  ).entry.id;
  never = (
    await callTool(owner, 'save_entry', {
      datapack: tenant.orgName,
      kind: 'standard',
      title: 'Greenhouse irrigation valves',
      content: 'Irrigation valves in the greenhouse are flushed weekly.',
    })
  ).entry.id;
  outsidersOwn = (
    await callTool(outsider, 'save_entry', {
      kind: 'preference',
      title: 'Outsider always rule',
      content: 'Answer the outsider in British English.',
      applies: { always: true },
    })
  ).entry.id;
  for (let i = 0; i < 3; i++) await callTool(member, 'get_guidance', { task: TASK });
  for (let i = 0; i < 2; i++) {
    const res = await api(
      tenant.member.key,
      `/guidance?task=${encodeURIComponent(TASK)}&session=sess-1`,
      'UsageHook/1.0',
    );
    assert.equal(res.status, 200);
  }
  await callTool(owner, 'get_guidance', { task: 'plan the release' });
  await callTool(outsider, 'get_guidance', { task: 'plan the release' });
  await flushRuleUsage(server.cairn.domain);
});

async function api(key: string, path: string, userAgent = 'UsageTest/1.0') {
  const res = await fetch(`${server.baseUrl}/api/v1${path}`, {
    headers: { authorization: `Bearer ${key}`, 'user-agent': userAgent },
  });
  return { status: res.status, body: (await res.json()) as any };
}

type Row = RuleUsageRow;
const rowOf = (rules: Row[], id: string) => rules.find((r) => r.entryId === id);

describe('rule usage', () => {
  test("an organization admin counts every member's answers, MCP and JSON API alike; never-given rules come first", async () => {
    const { status, body } = await api(tenant.owner.key, '/rules/usage');
    assert.equal(status, 200);
    const rules = body.rules as Row[];
    const given = rowOf(rules, always)!;
    assert.equal(given.given, 6, '3 MCP + 2 JSON API answers to the member, 1 to the owner');
    assert.ok(given.lastGivenAt);
    assert.ok(given.clients.includes('UsageHook/1.0'), JSON.stringify(given.clients));
    assert.ok(given.clients.length >= 2, `the MCP client too: ${JSON.stringify(given.clients)}`);
    const unused = rowOf(rules, never)!;
    assert.deepEqual([unused.given, unused.lastGivenAt], [0, null]);
    assert.ok(rules.indexOf(unused) < rules.indexOf(given), 'never given is listed first');
    assert.equal(rowOf(rules, outsidersOwn), undefined, "another organization's rule is not listed");
  });

  test('an expired rule is not "never given": it is marked expired and listed after the live rules', async () => {
    const deps = server.cairn.domain;
    const saved = await callTool(owner, 'save_entry', {
      datapack: tenant.orgName,
      kind: 'policy',
      title: 'Fax machines are inventoried',
      content: 'Every fax machine is on the inventory list.',
      expires: deps.now().slice(0, 10),
    });
    const before = rowOf((await api(tenant.owner.key, '/rules/usage')).body.rules, saved.entry.id)!;
    assert.deepEqual([before.given, before.expired], [0, false], 'served through its expiry day');
    const real = deps.now;
    deps.now = () => new Date(Date.parse(real()) + 2 * 86_400_000).toISOString();
    try {
      const rules = (await api(tenant.owner.key, '/rules/usage')).body.rules as Row[];
      const row = rowOf(rules, saved.entry.id)!;
      assert.deepEqual(
        { given: row.given, expired: row.expired, expires: row.expires },
        { given: 0, expired: true, expires: real().slice(0, 10) },
      );
      assert.equal(rowOf(rules, never)!.expired, false);
      assert.ok(rules.indexOf(row) > rules.indexOf(rowOf(rules, always)!), 'after every live rule, given or not');
      assert.deepEqual(
        rules.map((r) => r.expired),
        [...rules.filter((r) => !r.expired).map(() => false), true],
      );
    } finally {
      deps.now = real;
      await callTool(owner, 'delete_entry', { id: saved.entry.id });
    }
  });

  test('a person without admin rights sees only their own answers', async () => {
    const { status, body } = await api(tenant.member.key, '/rules/usage');
    assert.equal(status, 200);
    assert.equal(rowOf(body.rules, always)!.given, 5);
  });

  test("one organization never sees another's usage", async () => {
    const { body } = await api(tenant.outsider.key, '/rules/usage');
    assert.equal(rowOf(body.rules, always), undefined);
    assert.equal(rowOf(body.rules, outsidersOwn)!.given, 1);
    const org = await api(tenant.owner.key, `/rules/usage?datapack=${encodeURIComponent(tenant.orgName)}`);
    assert.equal(org.status, 200);
    assert.deepEqual(
      (org.body.rules as Row[]).map((r) => r.entryId).sort(),
      [always, never].sort(),
      'only the datapack asked for',
    );
  });

  test('one answer shows what was given and why, to its user and the admins, to nobody else', async () => {
    const rows = await server.cairn.store.db
      .selectFrom('rule_usage_answer')
      .selectAll()
      .where('user_id', '=', tenant.member.id)
      .execute();
    assert.equal(rows.length, 5);
    const withSession = rows.find((r) => r.session === 'sess-1')!;
    const mine = await api(tenant.member.key, `/rules/usage/answers/${withSession.id}`);
    assert.equal(mine.status, 200);
    assert.equal(mine.body.task, TASK);
    assert.equal(mine.body.client, 'UsageHook/1.0');
    assert.deepEqual(
      mine.body.given.find((g: { id: string }) => g.id === always),
      { id: always, title: 'Every repository has a CODEOWNERS file', reason: 'always' },
    );
    assert.equal((await api(tenant.owner.key, `/rules/usage/answers/${withSession.id}`)).status, 200);
    assert.equal((await api(tenant.outsider.key, `/rules/usage/answers/${withSession.id}`)).status, 404);
  });

  test('bad query parameters are a clear 400', async () => {
    for (const q of ['days=abc', 'days=0', 'days=-3']) {
      const res = await api(tenant.owner.key, `/rules/usage?${q}`);
      assert.equal(res.status, 400, q);
      assert.match(JSON.stringify(res.body), /days/, q);
    }
    const unknown = await api(tenant.owner.key, '/rules/usage?datapack=no-such-pack');
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.error.message, /datapack/);
  });

  test('answers older than the retention are pruned, newer ones stay', async () => {
    const deps = server.cairn.domain;
    const old = new Date(Date.now() - (deps.audit.retentionDays + 1) * 86_400_000).toISOString();
    await deps.store.appendRuleUsage([
      {
        id: 'rua_old',
        at: old,
        userId: tenant.member.id,
        organizationIds: [tenant.orgId],
        client: null,
        session: null,
        task: 't',
        given: [],
        named: [],
      },
    ]);
    const before = (await server.cairn.store.db.selectFrom('rule_usage_answer').select('id').execute()).length;
    assert.equal(await purgeRuleUsage(deps, createLogger('silent')), 1);
    const left = await server.cairn.store.db.selectFrom('rule_usage_answer').select('id').execute();
    assert.equal(left.length, before - 1);
    assert.ok(!left.some((r) => r.id === 'rua_old'));
  });

  test('a failed write never fails the answer and is logged without the task', async () => {
    const lines: string[] = [];
    const db = server.cairn.store.db;
    useRuleUsageLog(
      server.cairn.domain,
      createLogger('warn', (line) => lines.push(line)),
    );
    await sql`ALTER TABLE rule_usage_answer RENAME TO rule_usage_answer_away`.execute(db);
    try {
      const g = await callTool(member, 'get_guidance', { task: 'the secret-word-zebra task' });
      assert.ok(g.levels.length > 0);
      await flushRuleUsage(server.cairn.domain);
    } finally {
      await sql`ALTER TABLE rule_usage_answer_away RENAME TO rule_usage_answer`.execute(db);
      useRuleUsageLog(server.cairn.domain, createLogger('silent'));
    }
    assert.ok(
      lines.some((l) => l.includes('could not record rule usage')),
      lines.join('\n'),
    );
    assert.ok(!lines.join('\n').includes('zebra'), 'the task is never logged');
  });

  test('secrets in a task are redacted before the answer is stored', async () => {
    const planted = PLANTED_SECRETS.slice(0, 5);
    const task = `deploy with ${planted.map((p) => p.line).join(' ')}`.slice(0, 2000);
    await callTool(member, 'get_guidance', { task });
    await flushRuleUsage(server.cairn.domain);
    const stored = JSON.stringify(await server.cairn.store.db.selectFrom('rule_usage_answer').selectAll().execute());
    for (const { secret, kind } of planted) assert.ok(!stored.includes(secret), `${kind} reached storage`);
    assert.match(stored, /\[redacted:/);
  });
});
