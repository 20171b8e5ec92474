import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { INSTALLER_USER_AGENT } from '../../src/auth/mcp-auth.js';
import { forEachBackend } from '../../src/testing/backends.js';
import { callTool, callToolError, connectMcpClient } from '../../src/testing/mcp-client.js';
import { sendBody } from '../../src/testing/send-body.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const NUL = '\u0000';

forEachBackend(({ name: backend, skip, options }) => {
  describe(`malformed input is a 400 that says what is wrong, never a 500 (${backend})`, { skip }, () => {
    let server: TestCairn;
    let tenant: TestTenant;
    let origin: string;
    before(async () => {
      server = await startTestCairn(options);
      tenant = await createTenant(server.cairn);
      origin = new URL(server.baseUrl).origin;
    });
    after(() => server?.close());

    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${server.baseUrl}${path}`, {
        ...init,
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${tenant.member.key}`,
          ...(init.headers as Record<string, string>),
        },
      });
    const post = (path: string, body: string, headers: Record<string, string> = {}) =>
      fetch(`${server.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
    const mcpHeaders = () => ({
      authorization: `Bearer ${tenant.member.key}`,
      'user-agent': INSTALLER_USER_AGENT,
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    });
    async function assertInvalid(response: Response, message: RegExp): Promise<void> {
      const text = await response.text();
      assert.equal(response.status, 400, `${response.url}: ${response.status} ${text.slice(0, 300)}`);
      const body = JSON.parse(text) as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'invalid_input');
      assert.match(body.error.message, message);
    }
    const oauthClients = async () => (await server.cairn.auth.$context).adapter.count({ model: 'oauthClient' });

    test('JSON nested deeper than 64 levels is 400 on registration, sign-in, the JSON API and /mcp; 64 levels pass', async () => {
      const tooDeep = /nests arrays and objects deeper than 64 levels/;
      await assertInvalid(
        await post(
          '/api/auth/oauth2/register',
          `{"client_name":"x","redirect_uris":["http://127.0.0.1:1/cb"],"x":${nested(5000)}}`,
        ),
        tooDeep,
      );
      await assertInvalid(
        await post('/api/auth/sign-in/email', `{"email":"a@b.example","password":${nested(5000)}}`, { origin }),
        tooDeep,
      );
      await assertInvalid(
        await api('/api/v1/entries', { method: 'POST', body: `{"title":"t","content":"c","x":${nested(65)}}` }),
        tooDeep,
      );
      const mcp = await post(
        '/mcp',
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":${nested(5000)}}}}`,
        mcpHeaders(),
      );
      assert.equal(mcp.status, 400);
      const rpc = (await mcp.json()) as { jsonrpc: string; id: null; error: { code: number; message: string } };
      assert.equal(rpc.jsonrpc, '2.0');
      assert.equal(rpc.error.code, -32600);
      assert.match(rpc.error.message, tooDeep);
      // The object itself is level 1, so `x` may nest 63 more.
      const deepEnough = await api('/api/v1/entries', {
        method: 'POST',
        body: `{"title":"Depth sixty-four","content":"Nesting at the limit passes","x":${nested(63)}}`,
      });
      assert.equal(deepEnough.status, 201, await deepEnough.text());
    });

    test('a malformed percent-escape in a path is 400 naming the segment', async () => {
      await assertInvalid(
        await api('/api/v1/entries/%E0%A4%A'),
        /path segment "%E0%A4%A" has a malformed percent-escape/,
      );
      await assertInvalid(await api('/api/v1/datapacks/%'), /path segment "%" has a malformed percent-escape.*"%25"/);
      await assertInvalid(await api('/api/v1/entries/%ZZ', { method: 'DELETE' }), /malformed percent-escape/);
    });

    test('limit and offset must be whole numbers in range; valid ones page correctly', async () => {
      const { datapack } = (await (
        await api('/api/v1/datapacks', { method: 'POST', body: JSON.stringify({ name: `Paging ${backend}` }) })
      ).json()) as { datapack: { id: string } };
      for (const n of [1, 2, 3]) {
        const saved = await api('/api/v1/entries', {
          method: 'POST',
          body: JSON.stringify({
            datapack: datapack.id,
            title: `Paging entry ${n}`,
            content: `Distinct content number ${n} for paging ${'abc'.repeat(n * 7)}`,
          }),
        });
        assert.equal(saved.status, 201);
      }
      const list = `/api/v1/datapacks/${datapack.id}/entries`;
      for (const [query, message] of [
        ['limit=abc', /limit: must be a whole number/],
        ['limit=-1', /limit: must be a whole number/],
        ['limit=1.5', /limit: must be a whole number/],
        ['limit=1e3', /limit: must be a whole number/],
        ['limit=', /limit: must be a whole number/],
        ['limit=0', /limit: must be at least 1/],
        ['limit=201', /limit: must be at most 200/],
        ['limit=99999999999999999999', /limit: must be a whole number/],
        ['offset=abc', /offset: must be a whole number/],
        ['offset=-5', /offset: must be a whole number/],
        ['offset=99999999999999999999', /offset: must be a whole number/],
        ['offset=9999999999999999', /offset: Too big/],
      ] as const) {
        await assertInvalid(await api(`${list}?${query}`), message);
      }
      for (const [query, message] of [
        ['limit=abc', /limit: must be a whole number/],
        ['limit=-1', /limit: must be a whole number/],
        ['limit=2.5', /limit: must be a whole number/],
        ['limit=51', /limit: Too big/],
        ['limit=99999999999999999999', /limit: must be a whole number/],
      ] as const) {
        await assertInvalid(await api(`/api/v1/search?q=paging&${query}`), message);
      }
      const page = async (query: string) =>
        ((await (await api(`${list}?${query}`)).json()) as { entries: { title: string }[] }).entries.map(
          (e) => e.title,
        );
      const firstTwo = await page('limit=2');
      assert.equal(firstTwo.length, 2);
      const rest = await page('limit=2&offset=2');
      assert.equal(rest.length, 1);
      assert.deepEqual(
        new Set([...firstTwo, ...rest]),
        new Set(['Paging entry 1', 'Paging entry 2', 'Paging entry 3']),
      );
      assert.deepEqual(await page('offset=1000000'), []);
      const hits = (await (await api('/api/v1/search?q=paging&limit=1')).json()) as { results: unknown[] };
      assert.equal(hits.results.length, 1);
    });

    test('NUL characters in bodies, paths and query strings are 400 naming where, and nothing is stored', async () => {
      const before = ((await (await api('/api/v1/search?q=nulcheck&limit=50')).json()) as { results: unknown[] })
        .results.length;
      const nulField = (field: string) => new RegExp(`${field.replaceAll('.', '\\.')}: contains a NUL character`);
      await assertInvalid(
        await api('/api/v1/entries', {
          method: 'POST',
          body: JSON.stringify({ title: `nulcheck${NUL}title`, content: 'nulcheck body' }),
        }),
        nulField('title'),
      );
      await assertInvalid(
        await api('/api/v1/entries', {
          method: 'POST',
          body: JSON.stringify({ title: 'nulcheck', content: `nulcheck${NUL}` }),
        }),
        nulField('content'),
      );
      await assertInvalid(
        await api('/api/v1/entries', {
          method: 'POST',
          body: JSON.stringify({ title: 'nulcheck', content: 'nulcheck', tags: ['ok', `t${NUL}`] }),
        }),
        nulField('tags.1'),
      );
      await assertInvalid(
        await api('/api/v1/datapacks', { method: 'POST', body: JSON.stringify({ name: `nul${NUL}pack` }) }),
        nulField('name'),
      );
      const saved = (await (
        await api('/api/v1/entries', {
          method: 'POST',
          body: JSON.stringify({ title: 'nulcheck target', content: 'nulcheck an entry to update' }),
        })
      ).json()) as {
        entry: { id: string };
      };
      await assertInvalid(
        await api(`/api/v1/entries/${saved.entry.id}`, {
          method: 'PATCH',
          body: JSON.stringify({ expectedVersion: 1, content: `x${NUL}y` }),
        }),
        nulField('content'),
      );
      await assertInvalid(await api('/api/v1/search?q=nul%00check'), /query parameter "q" contains a NUL character/);
      await assertInvalid(await api('/api/v1/entries/ent_%00'), /path contains a NUL character/);
      await assertInvalid(
        await post(
          '/api/auth/oauth2/register',
          JSON.stringify({ client_name: `Evil${NUL}`, redirect_uris: ['http://127.0.0.1:1/cb'] }),
        ),
        nulField('client_name'),
      );
      await assertInvalid(
        await post(
          '/api/auth/sign-in/email',
          JSON.stringify({ email: `${tenant.member.email}${NUL}`, password: 'correct horse battery' }),
          { origin },
        ),
        nulField('email'),
      );
      await assertInvalid(
        await post(
          '/api/v1/signup',
          JSON.stringify({ email: `x${NUL}@example.test`, password: 'long enough password', invite: 'x' }),
        ),
        nulField('email'),
      );
      await assertInvalid(
        await post(
          '/api/v1/setup-codes/exchange',
          JSON.stringify({ code: `cairn_stp_${NUL}`, client: 'cursor', host: 'laptop' }),
        ),
        nulField('code'),
      );
      await assertInvalid(
        await fetch(`${server.baseUrl}/api/auth/oauth2/authorize?client_id=a%00b&response_type=code`),
        /query parameter "client_id" contains a NUL/,
      );
      const token = await fetch(`${server.baseUrl}/api/auth/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=authorization_code&client_id=a%00b&code=c%00d&code_verifier=x',
      });
      await assertInvalid(token, nulField('client_id'));
      const after = ((await (await api('/api/v1/search?q=nulcheck&limit=50')).json()) as { results: unknown[] }).results
        .length;
      assert.equal(after, before + 1, 'only the clean entry was stored');
      const entry = (await (await api(`/api/v1/entries/${saved.entry.id}`)).json()) as { entry: { version: number } };
      assert.equal(entry.entry.version, 1, 'the refused update changed nothing');
    });

    test('MCP tool arguments with a NUL are a tool error naming the argument', async () => {
      const client = await connectMcpClient(server.mcpUrl, tenant.member.key);
      try {
        assert.match(
          await callToolError(client, 'save_entry', { title: `mcp${NUL}`, content: 'body' }),
          /invalid_input: .*title: contains a NUL character/,
        );
        assert.match(
          await callToolError(client, 'get_entry', { id: `ent_${NUL}` }),
          /invalid_input: .*id: contains a NUL character/,
        );
        assert.match(await callToolError(client, 'delete_entry', { id: `ent_${NUL}` }), /id: contains a NUL character/);
        assert.match(await callToolError(client, 'search', { query: `a${NUL}b` }), /query: contains a NUL character/);
        assert.match(
          await callToolError(client, 'create_datapack', { name: `p${NUL}` }),
          /name: contains a NUL character/,
        );
        // The session still works afterwards.
        const { results } = await callTool<{ results: unknown[] }>(client, 'search', {
          query: 'nothing like this anywhere',
        });
        assert.ok(Array.isArray(results));
      } finally {
        await client.close();
      }
    });

    test('a captured turn with a NUL is kept, the NUL replaced by U+FFFD', async () => {
      const turn = {
        id: `nul-turn-${backend}`,
        role: 'user',
        text: `Deploy the capturenul service${NUL}now`,
        client: 'claude-code',
        at: new Date().toISOString(),
      };
      const captured = await api('/api/v1/capture', {
        method: 'POST',
        body: JSON.stringify({ turns: [turn] }),
        headers: { 'user-agent': 'cairn-capture/1.0' },
      });
      assert.equal(captured.status, 200, await captured.clone().text());
      const { stored, duplicates } = (await captured.json()) as { stored: number; duplicates: number };
      assert.deepEqual({ stored, duplicates }, { stored: 1, duplicates: 0 });
      const { results } = (await (await api('/api/v1/search?q=capturenul')).json()) as {
        results: { entry: { content: string } }[];
      };
      assert.equal(results.length, 1);
      assert.equal(results[0]!.entry.content, 'Deploy the capturenul service\uFFFDnow');
    });

    test('client registration bounds its fields (RFC 7591 invalid_client_metadata) and a refused registration stores nothing', async () => {
      const register = (metadata: Record<string, unknown>) =>
        post(
          '/api/auth/oauth2/register',
          JSON.stringify({ redirect_uris: ['http://127.0.0.1:1/cb'], token_endpoint_auth_method: 'none', ...metadata }),
        );
      const start = await oauthClients();
      const uri = (n: number) => `http://127.0.0.1:1/cb${n}`;
      for (const [metadata, field] of [
        [{ client_name: 'N'.repeat(10_000) }, /client_name must be at most 200 characters/],
        [{ redirect_uris: Array.from({ length: 11 }, (_, i) => uri(i)) }, /redirect_uris must list at most 10 URIs/],
        [
          { redirect_uris: [`http://127.0.0.1:1/${'p'.repeat(2001)}`] },
          /redirect_uris\.0 must be at most 2,000 characters/,
        ],
        [{ logo_uri: `https://evil.example/${'l'.repeat(3000)}` }, /logo_uri must be at most 2,000 characters/],
        [{ client_uri: `https://evil.example/${'c'.repeat(3000)}` }, /client_uri must be at most 2,000 characters/],
        [
          { contacts: Array.from({ length: 11 }, (_, i) => `c${i}@evil.example`) },
          /contacts must list at most 10 values/,
        ],
        [{ scope: 'mcp '.repeat(400) }, /scope must be at most 1,000 characters/],
        [{ metadata: { blob: 'm'.repeat(5000) } }, /metadata must be at most 4,000 characters as JSON/],
      ] as const) {
        const answer = await register(metadata);
        assert.equal(answer.status, 400, JSON.stringify(Object.keys(metadata)));
        const body = (await answer.json()) as { error: string; error_description: string };
        assert.equal(body.error, 'invalid_client_metadata');
        assert.match(body.error_description, field);
      }
      // The case: a 100 MB client_name. Refused on its Content-Length, before it is read.
      const huge = await sendBody(`${server.baseUrl}/api/auth/oauth2/register`, 100 * 1000 * 1000, 'content-length');
      assert.equal(huge.status, 413);
      assert.equal(await oauthClients(), start, 'no refused registration was stored');
      const fine = await register({
        client_name: 'N'.repeat(200),
        redirect_uris: Array.from({ length: 10 }, (_, i) => uri(i)),
      });
      assert.equal(fine.status, 201, await fine.text());
      assert.equal(await oauthClients(), start + 1, 'a registration at the limits is stored');
    });
  });
});
