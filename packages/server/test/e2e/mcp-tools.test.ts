import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { callTool, callToolError } from '../../src/testing/mcp-client.js';
import { member, outsider, owner, tenant, useTenantCairn } from './tenant-cairn.fixture.js';

useTenantCairn();

const packs = async (client: Client) =>
  (await callTool(client, 'list_datapacks')).datapacks as {
    id: string;
    name: string;
    scope: string;
    writable: boolean;
    entryCount: number;
  }[];

describe('the initialize result and tool list', () => {
  test('server instructions tell the agent when to use Cairn', () => {
    const instructions = owner.getInstructions() ?? '';
    assert.match(instructions, /list my datapacks/i);
    assert.match(instructions, /never save secrets/i);
  });

  test('every tool has input and output schemas and honest annotations', async () => {
    const { tools } = await owner.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    assert.deepEqual([...byName.keys()].sort(), [
      'create_datapack',
      'delete_entry',
      'get_entry',
      'get_guidance',
      'list_datapacks',
      'restore_entry',
      'save_entry',
      'search',
      'update_entry',
    ]);
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.ok(tool.outputSchema, `${tool.name} has an output schema`);
      assert.ok(tool.description && tool.description.length > 40, `${tool.name} explains itself`);
    }
    for (const name of ['list_datapacks', 'search', 'get_entry', 'get_guidance'])
      assert.equal(byName.get(name)!.annotations?.readOnlyHint, true, name);
    assert.equal(byName.get('delete_entry')!.annotations?.destructiveHint, true);
    // MCP's defaults (readOnlyHint false, idempotentHint false) are left out of the list, not stated.
    for (const name of ['save_entry', 'update_entry', 'delete_entry', 'restore_entry', 'create_datapack'])
      assert.notEqual(byName.get(name)!.annotations?.readOnlyHint, true, name);
    assert.equal(byName.get('save_entry')!.annotations?.destructiveHint, false, 'saving keeps what was there');
  });
});

describe('datapacks', () => {
  test('"list my datapacks" answers with personal, team-less org and membership facts', async () => {
    const result = await callTool(owner, 'list_datapacks');
    const names = result.datapacks.map((d: { name: string; scope: string }) => `${d.scope}:${d.name}`);
    assert.deepEqual(names, ['personal:Personal', `organization:${tenant.orgName}`]);
    assert.equal(result.organizations[0].role, 'owner');
    assert.deepEqual([result.you.id, result.you.email], [tenant.owner.id, tenant.owner.email]);
  });

  test('members see the organization datapack read-only and their team', async () => {
    const list = await packs(member);
    const org = list.find((d) => d.scope === 'organization')!;
    assert.equal(org.writable, false);
    const result = await callTool(member, 'list_datapacks');
    assert.equal(result.teams[0].id, tenant.teamId);
  });

  test('a team member creates a team datapack; other users cannot see it', async () => {
    const { datapack } = await callTool(member, 'create_datapack', {
      name: 'Backend standards',
      scope: 'team',
      teamId: tenant.teamId,
    });
    assert.equal(datapack.scope, 'team');
    assert.ok((await packs(member)).some((d) => d.id === datapack.id));
    assert.ok(!(await packs(outsider)).some((d) => d.id === datapack.id));
    assert.ok(!(await packs(owner)).some((d) => d.id === datapack.id), 'the owner is not in that team');
  });

  test('a team datapack needs a team the caller belongs to', async () => {
    const error = await callToolError(outsider, 'create_datapack', {
      name: 'Sneaky',
      scope: 'team',
      teamId: tenant.teamId,
    });
    assert.match(error, /^forbidden: .*team you belong to/);
  });

  test('only organization admins create organization datapacks', async () => {
    assert.match(
      await callToolError(member, 'create_datapack', { name: 'Rules', scope: 'organization' }),
      /^forbidden: Only admins/,
    );
    const { datapack } = await callTool(owner, 'create_datapack', { name: 'Security policies', scope: 'organization' });
    assert.ok(
      (await packs(member)).some((d) => d.id === datapack.id),
      'members can read it',
    );
  });

  test('names are unique per owner, case-insensitively', async () => {
    await callTool(member, 'create_datapack', { name: 'Scratch' });
    assert.match(
      await callToolError(member, 'create_datapack', { name: 'scratch' }),
      /^conflict: A personal datapack named "scratch" already exists/,
    );
  });
});

describe('entries', () => {
  test('save, get with provenance, update with version check, history, delete', async () => {
    const saved = await callTool(member, 'save_entry', {
      kind: 'preference',
      title: 'Package manager',
      content: 'Always use pnpm, never npm or yarn.',
      tags: ['JS', 'tooling'],
    });
    assert.equal(saved.status, 'created');
    const id = saved.entry.id as string;
    assert.deepEqual(saved.entry.tags, ['js', 'tooling']);
    assert.equal(saved.entry.createdBy, tenant.member.id);
    assert.match(
      saved.entry.createdClient,
      /^cairn-test 1\.0\.0 · key “.+”$/,
      'provenance names the client from its initialize, not the shared User-Agent, and the key',
    );

    const updated = await callTool(member, 'update_entry', {
      id,
      expectedVersion: 1,
      content: 'Always use pnpm (v9+), never npm or yarn.',
    });
    assert.equal(updated.entry.version, 2);
    assert.match(
      await callToolError(member, 'update_entry', { id, expectedVersion: 1, title: 'stale' }),
      /^version_conflict: .*version 2, not 1/,
    );

    const { entry, history } = await callTool(member, 'get_entry', { id, includeHistory: true });
    assert.equal(entry.content, 'Always use pnpm (v9+), never npm or yarn.');
    assert.deepEqual(
      history.map((h: { version: number; change: string }) => `${h.version}:${h.change}`),
      ['1:create', '2:update'],
    );

    const deleted = await callTool(member, 'delete_entry', { id, expectedVersion: 2 });
    assert.deepEqual(deleted, { id, deleted: true, version: 3 });
    assert.match(await callToolError(member, 'get_entry', { id }), /^not_found/);
    const search = await callTool(member, 'search', { query: 'pnpm' });
    assert.ok(
      !search.results.some((r: { entry: { id: string } }) => r.entry.id === id),
      'deleted entries are not found',
    );
  });

  test('a near-duplicate is detected instead of stored twice', async () => {
    const first = await callTool(owner, 'save_entry', {
      title: 'Code review',
      content: 'Every pull request needs one approving review before merge.',
    });
    const again = await callTool(owner, 'save_entry', {
      title: 'Code review',
      content: 'Every pull request needs one approving review before merge.',
    });
    assert.equal(again.status, 'duplicate');
    assert.equal(again.entry.id, first.entry.id);
    const near = await callTool(owner, 'save_entry', {
      title: 'Code review rule',
      content: 'Every pull request needs one approving review before the merge.',
    });
    assert.equal(near.status, 'duplicate');
    assert.ok(near.similarity >= 0.8 && near.similarity < 1);
    const different = await callTool(owner, 'save_entry', {
      title: 'Release cadence',
      content: 'We ship to production every Tuesday morning.',
    });
    assert.equal(different.status, 'created');
    // The same words by another speaker are another thing said.
    assert.equal(
      (await callTool(owner, 'save_entry', { title: 'Farewell', content: 'Nate: Bye Joanna!' })).status,
      'created',
    );
    assert.equal(
      (await callTool(owner, 'save_entry', { title: 'Farewell', content: 'Joanna: Bye Nate!' })).status,
      'created',
    );
  });

  test('nobody reads or writes outside their scopes', async () => {
    const secret = await callTool(member, 'save_entry', {
      title: 'My editor',
      content: 'I use Helix with the gruvbox theme.',
    });
    const id = secret.entry.id as string;
    for (const other of [owner, outsider]) {
      assert.match(await callToolError(other, 'get_entry', { id }), /^not_found/);
      assert.match(await callToolError(other, 'update_entry', { id, expectedVersion: 1, title: 'x' }), /^not_found/);
      assert.match(await callToolError(other, 'delete_entry', { id }), /^not_found/);
      const found = await callTool(other, 'search', { query: 'helix gruvbox' });
      assert.ok(
        !found.results.some((r: { entry: { id: string } }) => r.entry.id === id),
        'the entry stays out of their results',
      );
    }
    const personalOfMember = (await packs(member)).find((d) => d.scope === 'personal')!;
    assert.match(
      await callToolError(outsider, 'save_entry', { datapack: personalOfMember.id, title: 't', content: 'c' }),
      /^not_found/,
    );
  });

  test('organization policies are writable by organization admins only', async () => {
    const orgPack = tenant.orgName;
    const policy = await callTool(owner, 'save_entry', {
      datapack: orgPack,
      kind: 'policy',
      title: 'Secrets handling',
      content: 'Secrets live in the vault; never in the repository.',
      tags: ['security'],
    });
    assert.equal(policy.status, 'created');
    assert.match(
      await callToolError(member, 'save_entry', {
        datapack: orgPack,
        kind: 'policy',
        title: 'Mine',
        content: 'Members cannot write this.',
      }),
      /^forbidden: Only organization admins/,
    );
    assert.match(
      await callToolError(member, 'update_entry', { id: policy.entry.id, expectedVersion: 1, content: 'changed' }),
      /^forbidden/,
    );
    assert.match(await callToolError(member, 'delete_entry', { id: policy.entry.id }), /^forbidden/);
    const seen = await callTool(member, 'get_entry', { id: policy.entry.id });
    assert.equal(seen.entry.title, 'Secrets handling', 'members can read policies');
    assert.match(await callToolError(outsider, 'get_entry', { id: policy.entry.id }), /^not_found/);
  });

  test('bad input gets a clear tool error naming the field', async () => {
    const error = await callToolError(member, 'save_entry', { title: '', content: 'x' });
    assert.match(error, /title/);
    assert.match(
      await callToolError(member, 'save_entry', { datapack: 'No such pack', title: 't', content: 'c' }),
      /^not_found: No datapack named "No such pack"\. Yours are: /,
    );
  });
});

describe('search and guidance', () => {
  test('search ranks a title match above a passing mention and filters by kind', async () => {
    await callTool(member, 'save_entry', {
      kind: 'note',
      title: 'Deployment checklist',
      content: 'Run migrations, then roll out canary first.',
    });
    await callTool(member, 'save_entry', {
      kind: 'decision',
      title: 'Logging',
      content: 'We decided structured logs help every deployment debug faster.',
    });
    const { results } = await callTool(member, 'search', { query: 'deployment' });
    assert.equal(results[0].entry.title, 'Deployment checklist');
    assert.ok(results.some((r: { entry: { title: string } }) => r.entry.title === 'Logging'));
    const decisions = await callTool(member, 'search', { query: 'deployment', kinds: ['decision'] });
    assert.deepEqual(
      decisions.results.map((r: { entry: { title: string } }) => r.entry.title),
      ['Logging'],
    );
    // Query syntax in user text is inert: the words still match as words, and nothing else is found.
    const odd = await callTool(member, 'search', { query: 'deploy* OR "x" NEAR(a b) : -- ;' });
    assert.deepEqual(odd.results.map((r: { entry: { title: string } }) => r.entry.title).sort(), [
      'Deployment checklist',
      'Logging',
    ]);
    const inert = await callTool(member, 'search', { query: 'NEAR(x y) OR "' });
    assert.deepEqual(inert.results, []);
  });

  test('guidance orders organization policy, team standard, personal preference and shows conflicts', async () => {
    const { datapack: team } = await callTool(member, 'create_datapack', {
      name: 'Team rules',
      scope: 'team',
      teamId: tenant.teamId,
    });
    await callTool(owner, 'save_entry', {
      datapack: tenant.orgName,
      kind: 'policy',
      title: 'Python formatting',
      content: 'All Python code is formatted with ruff format.',
      tags: ['python-formatting'],
    });
    await callTool(member, 'save_entry', {
      datapack: team.id,
      kind: 'standard',
      title: 'Python formatting',
      content: 'The team formats Python with black, line length 100.',
      tags: ['python-formatting'],
    });
    await callTool(member, 'save_entry', {
      kind: 'preference',
      title: 'Python formatting',
      content: 'I like yapf for Python formatting.',
      tags: ['python-formatting'],
    });
    const g = await callTool(member, 'get_guidance', { task: 'set up python formatting for the code in this repo' });
    assert.deepEqual(
      g.levels.map((l: { scope: string }) => l.scope),
      ['organization', 'team', 'personal'],
    );
    assert.match(g.levels[0].items[0].entry.content, /ruff/);
    assert.match(g.levels[1].items[0].entry.content, /black/);
    assert.match(g.levels[2].items[0].entry.content, /yapf/);
    const rules = g.conflicts.map((c: { rule: string }) => c.rule);
    assert.ok(
      rules.some((r: string) => /Organization policy "Python formatting" takes precedence over team standard/.test(r)),
      rules.join('\n'),
    );
    assert.ok(
      rules.some((r: string) => /Team standard "Python formatting" takes precedence over personal preference/.test(r)),
      rules.join('\n'),
    );
    const outsiderView = await callTool(outsider, 'get_guidance', { task: 'format the python code' });
    assert.equal(
      outsiderView.levels.flatMap((l: { items: unknown[] }) => l.items).length,
      0,
      'an outsider gets none of it',
    );
  });
});
