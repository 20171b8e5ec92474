import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { loadConfig } from '../../src/config/load-config.js';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { type FakeEmbeddings, startFakeEmbeddings } from '../../src/testing/fake-embeddings.js';
import { callTool, connectMcpClient } from '../../src/testing/mcp-client.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

const API_KEY = 'sk-test-embeddings-0123456789abcdef';

let fake: FakeEmbeddings;
let server: TestCairn;
let tenant: TestTenant;
let client: Client;

before(async () => {
  fake = await startFakeEmbeddings();
  server = await startTestCairn({
    env: { CAIRN_EMBEDDINGS_URL: fake.url, CAIRN_EMBEDDINGS_MODEL: 'concept-1', CAIRN_EMBEDDINGS_API_KEY: API_KEY },
  });
  tenant = await createTenant(server.cairn);
  client = await connectMcpClient(server.mcpUrl, tenant.member.key);
});
after(async () => {
  await client?.close();
  await server?.close();
  await fake?.close();
});

/** Waits until every live entry has a current vector from the model (the embedder works in the background). */
async function embedded(model = 'concept-1'): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const { embedded, entries } = await server.cairn.store.embeddingProgress(model);
    if (entries > 0 && embedded === entries) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`entries were not embedded: ${JSON.stringify(await server.cairn.store.embeddingProgress(model))}`);
}

const titles = (results: { entry: { title: string } }[]) => results.map((r) => r.entry.title);

describe('an OpenAI-compatible embeddings provider (CAIRN_EMBEDDINGS_URL)', () => {
  test('new entries get vectors in the background; search finds by the provider’s meaning what words and word vectors cannot', async () => {
    await callTool(client, 'save_entry', { title: 'Feeding', content: 'The zork is fed at dawn.' });
    await callTool(client, 'save_entry', { title: 'Light', content: 'Carry the brass lantern below.' });
    await callTool(client, 'save_entry', { title: 'Lunch', content: 'Sandwiches on Fridays.' });
    await embedded();
    const { results } = await callTool(client, 'search', { query: 'frobozz' });
    assert.equal(titles(results)[0], 'Feeding', `${titles(results)}`);
    assert.ok(!titles(results).includes('Lunch'));
    const queries = fake.requests.filter((r) => r.inputs.length === 1 && r.inputs[0] === 'frobozz');
    assert.equal(queries.length, 1, 'the query was embedded by the provider');
    assert.ok(
      fake.requests.every((r) => r.model === 'concept-1' && r.authorization === `Bearer ${API_KEY}`),
      'model and key sent on every call',
    );
    // Without the provider's vectors nothing relates the two words.
    server.cairn.store.semanticSearch = false;
    try {
      assert.deepEqual((await callTool(client, 'search', { query: 'frobozz' })).results, []);
    } finally {
      server.cairn.store.semanticSearch = true;
    }
  });

  test('an edited entry is embedded again in its new version', async () => {
    const { results } = await callTool(client, 'search', { query: 'Sandwiches Fridays' });
    const lunch = results.find((r: { entry: { title: string } }) => r.entry.title === 'Lunch').entry;
    await callTool(client, 'update_entry', {
      id: lunch.id,
      expectedVersion: lunch.version,
      content: 'The grue eats sandwiches on Fridays.',
    });
    await embedded();
    const stored = await server.cairn.store.loadEmbeddings('concept-1', [lunch.id]);
    assert.equal(stored.get(lunch.id)?.version, lunch.version + 1);
  });

  test('a provider outage degrades search to the offline ranking with one warning, never an error, and the key is never logged', async () => {
    fake.mode = 'down';
    try {
      const logsBefore = server.logs.length;
      for (const query of ['zork feeding time', 'brass lantern', 'when is the zork fed']) {
        const { results } = await callTool(client, 'search', { query });
        assert.ok(results.length > 0, `${query}: words still find entries`);
      }
      await callTool(client, 'save_entry', { title: 'Outage note', content: 'Written while the provider was down.' });
      await new Promise((r) => setTimeout(r, 300));
      const warnings = server.logs.slice(logsBefore).filter((l) => l.includes('embeddings provider unavailable'));
      assert.equal(warnings.length, 1, `one warning per outage: ${warnings}`);
      assert.match(warnings[0]!, /503/);
      fake.mode = 'ok';
      // The first answer (to a search here) ends the outage, and the backlog is embedded at once.
      await callTool(client, 'search', { query: 'lantern below' });
      await embedded();
      assert.ok(
        server.logs.some((l) => l.includes('embeddings provider answers again')),
        'recovery is logged',
      );
    } finally {
      fake.mode = 'ok';
    }
    assert.ok(!server.logs.join('\n').includes(API_KEY), 'the provider key never reaches the log');
  });

  test('vectors of the wrong shape are refused and logged, and search still answers', async () => {
    fake.mode = 'garbage';
    try {
      const { results } = await callTool(client, 'search', { query: 'brass lantern light' });
      assert.equal(titles(results)[0], 'Light');
      assert.ok(server.logs.some((l) => l.includes('same length')));
    } finally {
      fake.mode = 'ok';
    }
  });
});

test('CAIRN_EMBEDDINGS_URL needs a model and an http(s) URL; the message says what to set', () => {
  assert.throws(
    () => loadConfig({ CAIRN_EMBEDDINGS_URL: 'http://127.0.0.1:11434/v1' }),
    /CAIRN_EMBEDDINGS_MODEL: name the embedding model too/,
  );
  assert.throws(
    () => loadConfig({ CAIRN_EMBEDDINGS_URL: 'ftp://x', CAIRN_EMBEDDINGS_MODEL: 'm' }),
    /CAIRN_EMBEDDINGS_URL: must be the http\(s\) base URL/,
  );
  const config = loadConfig({
    CAIRN_EMBEDDINGS_URL: 'http://127.0.0.1:11434/v1/',
    CAIRN_EMBEDDINGS_MODEL: 'nomic-embed-text',
  });
  assert.deepEqual(config.embeddings, {
    url: 'http://127.0.0.1:11434/v1',
    model: 'nomic-embed-text',
    apiKey: undefined,
  });
  assert.equal(loadConfig({}).embeddings, undefined);
});
