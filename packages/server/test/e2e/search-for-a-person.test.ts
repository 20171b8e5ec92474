import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { forEachBackend } from '../../src/testing/backends.js';
import { callTool, connectMcpClient } from '../../src/testing/mcp-client.js';
import { startTenantCairn, type TestTenant } from '../../src/testing/tenants.js';
import type { TestCairn } from '../../src/testing/test-cairn.js';

// Issue #40's three searches, as a person meets them through the JSON API (the portal's) and the
// MCP search tool: the right rule first, no unrelated entry padding the list, rules before the
// captured turns that say the same, and a one-character term that tells two entries apart. Each
// backend runs with the hybrid ranking (the default) and with the lexical one alone
// (CAIRN_SEARCH_SEMANTIC=false), which finds its candidates with the dialect's full-text index.

forEachBackend(({ name: backend, skip, options }) => {
  for (const ranking of ['hybrid', 'lexical'] as const) {
    describe(`search for a person: ${backend}, ${ranking} ranking`, { skip }, () => {
      let server: TestCairn;
      let tenant: TestTenant;
      const id: Record<string, string> = {};
      before(async () => {
        ({ server, tenant } = await startTenantCairn({
          ...options,
          env: ranking === 'lexical' ? { CAIRN_SEARCH_SEMANTIC: 'false' } : {},
        }));
        const saved: [string, Record<string, unknown>][] = [
          [
            'rollback',
            {
              kind: 'policy',
              title: 'Database migration rollback',
              content: 'Every database migration ships with a rollback script, tested on a copy of production first.',
            },
          ],
          ['pnpm', { kind: 'preference', title: 'Use pnpm', content: 'Always use pnpm for JavaScript projects.' }],
          ['review', { kind: 'standard', title: 'Code review', content: 'Every pull request needs one approval.' }],
          // Saved in this order, the same words but the number: the newer one wins a tie.
          ['tool2', { kind: 'note', title: 'Tool number 2', content: 'Listed on the tools page.', allowSimilar: true }],
          ['tool3', { kind: 'note', title: 'Tool number 3', content: 'Listed on the tools page.', allowSimilar: true }],
          ['release', { kind: 'note', title: 'Release notes', content: 'Version 3.1 drops the old importer.' }],
        ];
        for (const [name, body] of saved) id[name] = await save(body);
        const turns: [string, string, 'user' | 'assistant', string][] = [
          ['hello', 'monday', 'user', 'hello again'],
          ['hi', 'monday', 'assistant', 'Hi! What shall we work on today?'],
          ['failed', 'tuesday', 'user', 'The database migration failed last night, can we roll it back?'],
          ['undone', 'tuesday', 'assistant', 'Yes: the rollback script ran and the migration is undone.'],
          ['setup', 'wednesday', 'user', 'Set up the new project with pnpm, please.'],
          ['installed', 'wednesday', 'assistant', 'Done: pnpm installed every dependency.'],
        ];
        await capture(
          turns.map(([name, session, role, text], i) => ({
            id: name,
            role,
            text,
            client: 'claude-code',
            sessionId: session,
            at: new Date(Date.UTC(2026, 0, 5, 10, i)).toISOString(),
          })),
        );
      });
      after(() => server?.close());

      /** Captures turns as the member's hook would, and learns their entries' ids by turn id. */
      async function capture(turns: Record<string, unknown>[]): Promise<void> {
        const r = await fetch(`${server.baseUrl}/api/v1/capture`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${tenant.member.key}`,
            'content-type': 'application/json',
            'user-agent': 'cairn-capture/1.0',
          },
          body: JSON.stringify({ turns }),
        });
        assert.equal(r.status, 200, await r.clone().text());
        const rows = await server.cairn.store.db.selectFrom('capture_turn').select(['turn_id', 'entry_id']).execute();
        for (const row of rows) id[row.turn_id] = row.entry_id;
      }

      async function save(body: Record<string, unknown>): Promise<string> {
        const r = await fetch(`${server.baseUrl}/api/v1/entries`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${tenant.member.key}` },
          body: JSON.stringify(body),
        });
        assert.equal(r.status, 201, await r.clone().text());
        // updated_at has millisecond precision: keep "newest" unambiguous.
        await new Promise((res) => setTimeout(res, 15));
        return ((await r.json()) as { entry: { id: string } }).entry.id;
      }

      /** The names of the entries the JSON API returns for a query, best first. */
      async function search(q: string, extra = ''): Promise<string[]> {
        const r = await fetch(`${server.baseUrl}/api/v1/search?q=${encodeURIComponent(q)}&limit=20${extra}`, {
          headers: { authorization: `Bearer ${tenant.member.key}` },
        });
        assert.equal(r.status, 200, await r.clone().text());
        const { results } = (await r.json()) as { results: { entry: { id: string } }[] };
        const nameOf = new Map(Object.entries(id).map(([name, entryId]) => [entryId, name]));
        return results.map((h) => nameOf.get(h.entry.id) ?? h.entry.id);
      }

      test('"database migration rollback": the rule, then the turns that say it, and nothing unrelated', async () => {
        const found = await search('database migration rollback');
        assert.equal(found[0], 'rollback', `${found}`);
        assert.deepEqual(found.slice(1).sort(), ['failed', 'undone'], `${found}`);
      });

      test('"tool number 2": the entry with the 2 comes first', async () => {
        assert.deepEqual(await search('tool number 2'), ['tool2', 'tool3']);
        // The release note says "3" too: BM25 alone keeps a hit that matches one rare word of three.
        assert.deepEqual(
          await search('tool number 3'),
          ranking === 'hybrid' ? ['tool3', 'tool2'] : ['tool3', 'tool2', 'release'],
        );
        // "3.1" is one token to PostgreSQL's parser and two words to FTS5 and to ranking: found alike.
        assert.equal((await search('3.1'))[0], 'release');
      });

      test('a preference comes before the captured turns that mention it, through the MCP tool too', async () => {
        const found = await search('pnpm');
        // The shorter turn says "pnpm" in fewer words: it scores more of the two.
        assert.deepEqual(found, ['pnpm', 'installed', 'setup']);
        const client = await connectMcpClient(server.mcpUrl, tenant.member.key);
        try {
          const out = await callTool<{ results: { entry: { id: string } }[] }>(client, 'search', { query: 'pnpm' });
          assert.deepEqual(
            out.results.map((h) => h.entry.id),
            found.map((name) => id[name]),
          );
        } finally {
          await client.close();
        }
      });

      test('a query about a conversation ranks its turns as they score', async () => {
        // Hybrid: turns borrow from the turns around them, so as scored they lead; asked about what
        // was said, they keep that lead. Lexical: the rule's title words count 8×, so it leads anyway.
        assert.deepEqual(
          await search('what did we say about the database migration'),
          ranking === 'hybrid' ? ['failed', 'rollback', 'undone'] : ['rollback', 'failed', 'undone'],
        );
        assert.deepEqual(
          await search('pnpm', '&kind=preference,conversation'),
          ranking === 'hybrid' ? ['installed', 'setup', 'pnpm'] : ['pnpm', 'installed', 'setup'],
          'asking for conversations by kind is asking about them',
        );
      });

      test('words that match nothing find nothing, not the nearest padding', async () => {
        assert.deepEqual(await search('quantum chromodynamics'), []);
        assert.deepEqual(await search('xyzzyq'), []);
      });

      // Last: its turns would take part in the searches above.
      test('a query naming a speaker of captured turns is about a conversation', async () => {
        const turns = [
          ['melanie-asks', 'user', 'Melanie', 'My pull request still waits for its approval.'],
          ['melanie-thanks', 'user', 'Melanie', 'Thanks, the approval came through.'],
        ] as const;
        await capture(
          turns.map(([name, role, speaker, text], i) => ({
            id: name,
            role,
            speaker,
            text,
            client: 'claude-code',
            sessionId: 'thursday',
            at: new Date(Date.UTC(2026, 0, 8, 10, i)).toISOString(),
          })),
        );
        const asked = await search('code review approval');
        assert.equal(asked[0], 'review', `${asked}`);
        // Hybrid ranking knows each turn's speaker, and her turn scores above the rule, though not 1.5 times
        // above it; lexical ranking reads only the words, as before.
        const named = await search('Melanie code review approval');
        assert.equal(named[0], ranking === 'hybrid' ? 'melanie-asks' : 'review', `${named}`);
        assert.ok(named.includes('review'), `${named}`);
      });
    });
  }
});
