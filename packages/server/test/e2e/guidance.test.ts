// Guidance that applies: rules scoped by always/files/projects, replaced rules, the relevance floor and the budget, through MCP and the JSON API.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { callTool, callToolError } from '../../src/testing/mcp-client.js';
import { member, outsider, owner, server, tenant, useTenantCairn } from './tenant-cairn.fixture.js';

let teamPack: string;
useTenantCairn(async () => {
  teamPack = (
    await callTool(member, 'create_datapack', { name: 'Team standards', scope: 'team', teamId: tenant.teamId })
  ).datapack.id;
});

const api = async (path: string, init: RequestInit = {}, key = tenant.member.key) => {
  const res = await fetch(`${server.baseUrl}/api/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

type Item = { entry: { id: string; title: string }; reason: string; score?: number };
type Answer = Record<string, any>;
const items = (g: Answer): Item[] => (g as { levels: { items: Item[] }[] }).levels.flatMap((l) => l.items);
const byTitle = (g: Answer) => new Map(items(g).map((i) => [i.entry.title, i]));

describe('applicability', () => {
  before(async () => {
    await callTool(owner, 'save_entry', {
      datapack: tenant.orgName,
      kind: 'policy',
      title: 'Card numbers never reach logs',
      content: 'Mask every primary account number before it is written anywhere.',
      applies: { always: true },
    });
    await callTool(member, 'save_entry', {
      datapack: teamPack,
      kind: 'standard',
      title: 'Expand and contract schema changes',
      content: 'Add the new column first, backfill, switch reads, drop the old one a release later.',
      applies: { files: ['**/migrations/**', '*.sql'] },
    });
    await callTool(member, 'save_entry', {
      datapack: teamPack,
      kind: 'standard',
      title: 'Journal entries balance',
      content: 'Every posting writes a debit and a credit of equal amounts in one transaction.',
      applies: { projects: ['ledger-service'] },
    });
  });

  test('an "always" rule comes with any task, a file rule with a matching file, a project rule in its project, each with its reason', async () => {
    const plain = await callTool(member, 'get_guidance', { task: 'rename a button on the settings page' });
    const found = byTitle(plain);
    assert.equal(found.get('Card numbers never reach logs')?.reason, 'always');
    assert.ok(
      !found.has('Expand and contract schema changes'),
      'a file-scoped rule stays out of a task that touches no such file',
    );
    assert.ok(!found.has('Journal entries balance'), 'a project-scoped rule stays out of other projects');

    const withFile = byTitle(
      await callTool(member, 'get_guidance', {
        task: 'rename a button on the settings page',
        files: ['services/api/migrations/0042_add_label.ts'],
      }),
    );
    assert.equal(withFile.get('Expand and contract schema changes')?.reason, 'file: **/migrations/**');
    assert.ok(!withFile.has('Journal entries balance'));

    const basename = byTitle(
      await callTool(member, 'get_guidance', { task: 'tidy up', files: ['/home/mo/repo/db/seed.sql'] }),
    );
    assert.equal(
      basename.get('Expand and contract schema changes')?.reason,
      'file: *.sql',
      'a glob without a slash matches the file name anywhere',
    );

    const inProject = byTitle(
      await callTool(member, 'get_guidance', {
        task: 'rename a button on the settings page',
        project: 'Ledger-Service',
      }),
    );
    assert.equal(inProject.get('Journal entries balance')?.reason, 'project: ledger-service');
    assert.ok(!inProject.has('Expand and contract schema changes'));
  });

  test('the JSON API gives the same guidance, with files and project as query parameters', async () => {
    const { status, body } = await api(
      `/guidance?task=${encodeURIComponent('tidy up')}&file=migrations/1.sql&project=ledger-service`,
    );
    assert.equal(status, 200);
    const found = byTitle(body);
    assert.equal(found.get('Journal entries balance')?.reason, 'project: ledger-service');
    assert.match(found.get('Expand and contract schema changes')?.reason ?? '', /^file: /);
    assert.equal(found.get('Card numbers never reach logs')?.reason, 'always');
  });

  test('an outsider gets none of the organization or team rules', async () => {
    const g = await callTool(outsider, 'get_guidance', {
      task: 'anything at all',
      files: ['migrations/1.sql'],
      project: 'ledger-service',
    });
    assert.deepEqual(items(g), []);
  });

  test('update_entry changes and clears where a rule applies, as a new version', async () => {
    const saved = await callTool(member, 'save_entry', {
      datapack: teamPack,
      kind: 'standard',
      title: 'Terraform plans reviewed',
      content: 'Post the plan output in the pull request.',
    });
    assert.deepEqual(saved.entry.applies, { always: false, files: [], projects: [] });
    const updated = await callTool(member, 'update_entry', {
      id: saved.entry.id,
      expectedVersion: 1,
      applies: { files: ['**/*.tf'] },
    });
    assert.deepEqual(updated.entry.applies, { always: false, files: ['**/*.tf'], projects: [] });
    const g = byTitle(await callTool(member, 'get_guidance', { task: 'tidy up', files: ['infra/main.tf'] }));
    assert.equal(g.get('Terraform plans reviewed')?.reason, 'file: **/*.tf');
    const cleared = await api(`/entries/${saved.entry.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ expectedVersion: 2, applies: null }),
    });
    assert.equal(cleared.status, 200);
    assert.deepEqual(cleared.body.entry.applies, { always: false, files: [], projects: [] });
    assert.equal(cleared.body.entry.version, 3);
  });
});

describe('what is refused', () => {
  test('an invalid glob is refused with what is wrong, through MCP and the JSON API, and nothing is stored', async () => {
    const text = await callToolError(member, 'save_entry', {
      title: 'Broken glob rule',
      content: 'x y z',
      applies: { files: ['src/[abc'] },
    });
    assert.match(text, /"src\/\[abc" is not a valid glob/);
    assert.match(text, /is not closed/);
    const viaApi = await api('/entries', {
      method: 'POST',
      body: JSON.stringify({ title: 'Broken glob rule', content: 'x y z', applies: { files: ['{a,b'] } }),
    });
    assert.equal(viaApi.status, 400);
    assert.match(JSON.stringify(viaApi.body), /not a valid glob/);
    const search = await callTool(member, 'search', { query: 'Broken glob rule' });
    assert.ok(!search.results.some((r: Item) => r.entry.title === 'Broken glob rule'));
  });

  test('too many globs, an unknown applies field, a NUL byte and an oversized project are refused', async () => {
    const many = await api('/entries', {
      method: 'POST',
      body: JSON.stringify({
        title: 't',
        content: 'c',
        applies: { files: Array.from({ length: 21 }, (_, i) => `d${i}/**`) },
      }),
    });
    assert.equal(many.status, 400);
    const unknown = await api('/entries', {
      method: 'POST',
      body: JSON.stringify({ title: 't', content: 'c', applies: { alwaysApply: true } }),
    });
    assert.equal(unknown.status, 400);
    const nul = await api('/entries', {
      method: 'POST',
      body: JSON.stringify({ title: 't', content: 'c', applies: { projects: ['led\u0000ger'] } }),
    });
    assert.equal(nul.status, 400);
    assert.match(JSON.stringify(nul.body), /NUL/);
    const long = await api('/entries', {
      method: 'POST',
      body: JSON.stringify({ title: 't', content: 'c', applies: { projects: ['x'.repeat(101)] } }),
    });
    assert.equal(long.status, 400);
    const files = await callToolError(member, 'get_guidance', {
      task: 'x',
      files: Array.from({ length: 51 }, (_, i) => `f${i}.ts`),
    });
    assert.match(files, /files/);
  });
});

describe('replaced rules', () => {
  let old: { id: string };
  let newer: { id: string };
  before(async () => {
    old = (
      await callTool(member, 'save_entry', {
        datapack: teamPack,
        kind: 'standard',
        title: 'Install dependencies with npm',
        content: 'Run npm ci in every pipeline of the monorepo.',
      })
    ).entry;
    const saved = await callTool(member, 'save_entry', {
      datapack: teamPack,
      kind: 'standard',
      title: 'Install dependencies with pnpm',
      content: 'Run pnpm install --frozen-lockfile in every pipeline of the monorepo.',
      supersedes: [old.id],
    });
    assert.equal(saved.status, 'created', 'a rule that replaces another is no duplicate of it');
    newer = saved.entry;
  });

  test('get_guidance never returns a replaced rule, even for a task in its own words', async () => {
    for (const task of ['Install dependencies with npm', 'run npm ci in every pipeline of the monorepo']) {
      const ids = items(await callTool(member, 'get_guidance', { task })).map((i) => i.entry.id);
      assert.ok(!ids.includes(old.id), task);
      assert.ok(ids.includes(newer.id), task);
    }
  });

  test('search hides it unless asked; the replaced view lists it; reinstating brings it back', async () => {
    const hidden = await callTool(member, 'search', { query: 'npm ci pipeline' });
    assert.ok(!hidden.results.some((r: Item) => r.entry.id === old.id));
    const shown = await callTool(member, 'search', { query: 'npm ci pipeline', includeReplaced: true });
    const hit = shown.results.find((r: Item) => r.entry.id === old.id);
    assert.equal(hit?.entry.replacedBy, newer.id);
    const viaApi = await api('/search?q=npm%20ci%20pipeline&replaced=true');
    assert.ok(viaApi.body.results.some((r: Item) => r.entry.id === old.id));

    const entry = await callTool(member, 'get_entry', { id: newer.id });
    assert.deepEqual(entry.entry.supersedes, [old.id]);
    const view = await api(`/replaced?datapack=${teamPack}`);
    assert.equal(view.status, 200);
    const listed = view.body.entries.find((e: { entry: { id: string } }) => e.entry.id === old.id);
    assert.deepEqual(listed?.replacedBy, {
      id: newer.id,
      title: 'Install dependencies with pnpm',
      datapackId: teamPack,
    });
    assert.equal(listed?.writable, true);
    assert.equal((await api(`/replaced?datapack=${teamPack}`, {}, tenant.outsider.key)).status, 404);
    assert.equal((await api(`/entries/${old.id}/reinstate`, { method: 'POST' }, tenant.outsider.key)).status, 404);

    const back = await api(`/entries/${old.id}/reinstate`, { method: 'POST' });
    assert.equal(back.status, 200);
    assert.equal(back.body.entry.replacedBy, null);
    const found = await callTool(member, 'search', { query: 'npm ci pipeline' });
    assert.ok(
      found.results.some((r: Item) => r.entry.id === old.id),
      'reinstated, it is found again',
    );
    assert.equal(
      (await api(`/entries/${old.id}/reinstate`, { method: 'POST' })).status,
      400,
      'a rule that is not replaced has nothing to reinstate',
    );
  });

  test('only entries you can change can be replaced, and a refused replacement stores nothing', async () => {
    const policy = (
      await callTool(owner, 'save_entry', {
        datapack: tenant.orgName,
        kind: 'policy',
        title: 'Quarterly access review',
        content: 'Admins review access every quarter.',
      })
    ).entry;
    const refused = await callToolError(member, 'save_entry', {
      title: 'Yearly access review',
      content: 'I review access once a year.',
      supersedes: [policy.id],
    });
    assert.match(refused, /Only organization admins/);
    const stranger = await callToolError(outsider, 'save_entry', {
      title: 'Stranger rule',
      content: 'Replacing what I cannot see.',
      supersedes: [policy.id],
    });
    assert.match(stranger, /No entry/);
    const personal = await callToolError(member, 'save_entry', {
      title: 'My own pnpm rule',
      content: 'Only for me.',
      supersedes: [newer.id],
    });
    assert.match(
      personal,
      /same datapack or in its organization/,
      'a personal rule cannot hide a team rule from the team',
    );
    const mixed = await callToolError(member, 'save_entry', {
      datapack: teamPack,
      title: 'Half a replacement',
      content: 'One id is real, one is not.',
      supersedes: [newer.id, 'ent_doesnotexist'],
    });
    assert.match(mixed, /No entry ent_doesnotexist/);
    const after = await callTool(member, 'get_entry', { id: newer.id });
    assert.equal(after.entry.replacedBy, null, 'the real one was not replaced');
    const stored = (await callTool(member, 'search', { query: 'Half a replacement' })).results;
    assert.ok(!stored.some((r: Item) => r.entry.title === 'Half a replacement'), 'and the new one was not stored');
    const g = items(await callTool(member, 'get_guidance', { task: 'quarterly access review by admins' })).map(
      (i) => i.entry.id,
    );
    assert.ok(g.includes(policy.id));
  });
});

describe('relevance and budget', () => {
  test('topic matches carry a score and rules unrelated to the task are not returned', async () => {
    const tea = (
      await callTool(member, 'save_entry', {
        kind: 'preference',
        title: 'Green tea in the afternoon',
        content: 'Brew sencha at seventy degrees.',
      })
    ).entry;
    const g = await callTool(member, 'get_guidance', { task: 'Install dependencies with pnpm in the pipeline' });
    const topic = items(g).filter((i) => i.reason === 'topic');
    assert.ok(topic.length > 0);
    for (const i of topic) assert.equal(typeof i.score, 'number');
    assert.ok(!items(g).some((i) => i.entry.id === tea.id), 'nothing about tea comes back for a pipeline task');
    const teaTask = await callTool(member, 'get_guidance', { task: 'brew sencha tea in the afternoon' });
    assert.ok(
      items(teaTask).some((i) => i.entry.id === tea.id),
      'and it comes back when the task is about it',
    );
  });

  test('the answer fits maxChars and says how many more matched and how to read them', async () => {
    const texts = [
      'Hold every deploy to the freeze calendar and the change advisory board during the last week of a quarter. ',
      'Rotate the on-call pager weekly; handovers happen on Monday mornings with a written summary of open incidents. ',
      'Vendor contracts above ten thousand euros need procurement sign-off and a security questionnaire before signature. ',
    ];
    for (const [n, t] of texts.entries()) {
      const saved = await callTool(owner, 'save_entry', {
        datapack: tenant.orgName,
        kind: 'policy',
        title: `Freeze rule ${n + 1}`,
        content: t.repeat(3),
        applies: { always: true },
      });
      assert.equal(saved.status, 'created');
    }
    const small = await member.callTool({
      name: 'get_guidance',
      arguments: { task: 'ship the release', maxChars: 800 },
    });
    const g = small.structuredContent as Answer;
    const kept = items(g);
    const size = kept.reduce(
      (n, i) => n + i.entry.title.length + (i as unknown as { entry: { content: string } }).entry.content.length,
      0,
    );
    assert.ok(size <= 800, `kept ${size} characters of rules`);
    assert.ok(g.omitted && g.omitted.count >= 2, JSON.stringify(g.omitted));
    assert.match(g.omitted.note, /search/);
    const text = (small.content as { text: string }[]).map((c) => c.text).join('');
    assert.match(text, /did not fit/);
    // The rules given in full are the list items above the conflicts, the note and the pointers.
    const rulesPart = text.split(/\n(?:Conflicts|\d+ more rules? matched|May also apply)/)[0]!;
    const shown = rulesPart.split('\n').filter((line) => line.startsWith('- '));
    assert.equal(shown.length, kept.length, text);
    const shownChars = shown.reduce((n, line) => n + line.length + 1, 0);
    assert.ok(
      shownChars <= 800,
      `the text shows ${shownChars} characters of rules (reason and all), over the budget of 800`,
    );
    assert.ok(
      text.length <= 800,
      `the whole answer is ${text.length} characters (headings, conflicts and the note included), over the budget of 800`,
    );
    const roomy = await callTool(member, 'get_guidance', { task: 'ship the release', maxChars: 20_000 });
    assert.equal(roomy.omitted, null);
    assert.ok(items(roomy).filter((i) => i.entry.title.startsWith('Freeze rule')).length === 3);
  });
});

describe('conflicts', () => {
  test('two rules on one subject that say different things conflict, within one level too; rules that only share a tag do not', async () => {
    const pack = (
      await callTool(member, 'create_datapack', { name: 'Conflict standards', scope: 'team', teamId: tenant.teamId })
    ).datapack.id;
    await callTool(member, 'save_entry', {
      datapack: pack,
      kind: 'standard',
      title: 'Rounding of money amounts',
      content: 'Round half up to two decimals.',
      tags: ['money'],
    });
    await callTool(member, 'save_entry', {
      datapack: pack,
      kind: 'standard',
      title: 'Rounding money amounts',
      content: 'Use banker rounding, half to even.',
      tags: ['money'],
    });
    await callTool(member, 'save_entry', {
      datapack: pack,
      kind: 'standard',
      title: 'Currency codes are ISO 4217',
      content: 'Store currency as a three-letter code.',
      tags: ['money'],
    });
    const g = await callTool(member, 'get_guidance', { task: 'rounding money amounts in currency conversion' });
    const titles = (c: { prevails: Item; overridden: Item }) =>
      [c.prevails.entry.title, c.overridden.entry.title].sort().join(' / ');
    const pairs = g.conflicts.map(titles);
    assert.ok(pairs.includes('Rounding money amounts / Rounding of money amounts'), JSON.stringify(pairs));
    assert.ok(!pairs.some((p: string) => p.includes('Currency codes')), JSON.stringify(pairs));
  });
});

describe('concerns, when and what may also apply', () => {
  let pack: string;
  let migration: { id: string };
  let flags: { id: string };
  before(async () => {
    pack = (await callTool(member, 'create_datapack', { name: 'When standards', scope: 'team', teamId: tenant.teamId }))
      .datapack.id;
    migration = (
      await callTool(member, 'save_entry', {
        datapack: pack,
        kind: 'standard',
        title: 'Expand, then contract',
        content: 'Add the new shape first, move readers over, remove the old shape a release later.',
        applies: {
          when: 'Renaming or dropping a database column or table; any schema migration that old code still reads.',
        },
      })
    ).entry;
    flags = (
      await callTool(member, 'save_entry', {
        datapack: pack,
        kind: 'standard',
        title: 'Dark launches',
        content: 'Anything a customer can notice ships behind a toggle, ramped per cohort.',
        applies: { when: 'Changing behaviour customers can see: new screens, new fields in responses, pricing.' },
      })
    ).entry;
    for (let n = 0; n < 14; n++)
      await callTool(member, 'save_entry', {
        datapack: pack,
        kind: 'note',
        title: `Release note ${n}`,
        content: `Release train ${n} leaves on day ${n} with change ${n * 13} of the quarter.`,
      });
  });

  test('applies.when is stored, shown and cleared through MCP and the JSON API; a rule with only when is a topic rule', async () => {
    const got = await callTool(member, 'get_entry', { id: migration.id });
    assert.equal(
      got.entry.applies.when,
      'Renaming or dropping a database column or table; any schema migration that old code still reads.',
    );
    assert.equal(got.entry.applies.always, false);
    const viaApi = await api(`/entries/${flags.id}`);
    assert.match(viaApi.body.entry.applies.when, /customers can see/);
    const changed = await api(`/entries/${flags.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ expectedVersion: 1, applies: { when: 'Launching anything a customer can notice.' } }),
    });
    assert.equal(changed.status, 200);
    assert.equal(changed.body.entry.applies.when, 'Launching anything a customer can notice.');
  });

  test("the task says nothing of the rule, its concerns and the rule's when meet: the rule is given", async () => {
    const task = 'rename the amount field of the orders table';
    const without = await callTool(member, 'get_guidance', { task: 'tidy the orders module' });
    assert.ok(!items(without).some((i) => i.entry.id === migration.id));
    const withConcerns = await callTool(member, 'get_guidance', {
      task,
      concerns: ['schema migration', 'column rename', 'old code reads'],
    });
    const given = items(withConcerns).find((i) => i.entry.id === migration.id);
    assert.equal(given?.reason, 'topic', JSON.stringify(withConcerns.levels));
    const viaApi = await api(
      `/guidance?task=${encodeURIComponent(task)}&concern=schema%20migration&concern=column%20rename`,
    );
    assert.equal(viaApi.status, 200);
    assert.ok(items(viaApi.body).some((i) => i.entry.id === migration.id));
  });

  test('mayAlsoApply names the next candidates, never one given in full or replaced, within maxChars, and the text says how to open them', async () => {
    const res = await member.callTool({
      name: 'get_guidance',
      arguments: { task: 'plan the release train changes of the quarter', maxChars: 3000 },
    });
    const g = res.structuredContent as Answer;
    const text = (res.content as { text: string }[]).map((c) => c.text).join('');
    assert.ok(text.length <= 3000, `${text.length} characters`);
    const given = new Set(items(g).map((i) => i.entry.id));
    const named = g.mayAlsoApply as {
      id: string;
      title: string;
      level: string;
      datapack: { scope: string };
      score: number;
    }[];
    assert.ok(named.length > 0 && named.length <= 10, JSON.stringify(named));
    for (const p of named) {
      assert.ok(!given.has(p.id), `${p.title} is given in full and named`);
      assert.equal(p.level, p.datapack.scope);
      assert.equal(typeof p.score, 'number');
      assert.ok(text.includes(`- ${p.title} (${p.id})`), `${p.title} is in the text`);
    }
    assert.match(
      text,
      /May also apply(, the first( \d+)? matched but did not fit)? \(open with get_entry if it applies\):/,
    );
    const old = (
      await callTool(member, 'save_entry', {
        datapack: pack,
        kind: 'note',
        title: 'Release note old',
        content: 'Release trains leave on Fridays of the quarter.',
      })
    ).entry;
    await callTool(member, 'save_entry', {
      datapack: pack,
      kind: 'note',
      title: 'Release note new',
      content: 'Release trains now leave on Thursdays.',
      supersedes: [old.id],
    });
    const after = await callTool(member, 'get_guidance', {
      task: 'plan the release train changes of the quarter on Fridays',
    });
    assert.ok(
      ![...items(after).map((i) => i.entry.id), ...after.mayAlsoApply.map((p: { id: string }) => p.id)].includes(
        old.id,
      ),
      'a replaced rule is never named',
    );
  });

  test('a task that matches nothing gets no list', async () => {
    const g = await callTool(member, 'get_guidance', { task: 'zyxwv qqqq' });
    assert.deepEqual(g.mayAlsoApply, []);
    assert.equal(g.more, 0);
  });

  test('bad concerns and bad when are clear errors through MCP and the JSON API', async () => {
    const tooMany = await callToolError(member, 'get_guidance', {
      task: 'x',
      concerns: Array.from({ length: 13 }, (_, i) => `c${i}`),
    });
    assert.match(tooMany, /concerns/);
    const tooLong = await api(`/guidance?task=x&concern=${'c'.repeat(81)}`);
    assert.equal(tooLong.status, 400);
    assert.match(JSON.stringify(tooLong.body), /concerns/);
    const longWhen = await api('/entries', {
      method: 'POST',
      body: JSON.stringify({ title: 'Long when', content: 'c d e', applies: { when: 'w'.repeat(301) } }),
    });
    assert.equal(longWhen.status, 400);
    assert.match(JSON.stringify(longWhen.body), /when/);
    const emptyWhen = await callToolError(member, 'save_entry', {
      title: 'Empty when',
      content: 'c d e',
      applies: { when: '   ' },
    });
    assert.match(emptyWhen, /when cannot be empty/);
  });
});
