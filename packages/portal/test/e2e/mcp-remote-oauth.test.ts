// The real OAuth client: mcp-remote@0.1.38 given only the MCP URL, a scripted chromium signing in and consenting.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { runFileOnEachBackend } from '../../../server/src/testing/backends.js';
import { connectThrough, mcpRemoteTransport } from '../../../server/src/testing/mcp-remote.js';
import { descendants, killAll } from '../../../server/src/testing/process-tree.js';
import { startTestCairn } from '../../../server/src/testing/test-cairn.js';
import { assertAccessible, openBrowser, shot, signUpFirst, skipReason, startPortalServer } from './harness.js';

runFileOnEachBackend();

const skip = skipReason();
if (skip) console.log(`# SKIP mcp-remote OAuth journey: ${skip}`);

const WAIT_MS = 60_000;

let server: Awaited<ReturnType<typeof startPortalServer>>;
let b: Awaited<ReturnType<typeof openBrowser>>;
let page: Page;
const cairnFailures: string[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'cairn-mcp-remote-oauth-'));

before(async () => {
  if (skip) return;
  server = await startPortalServer();
  b = await openBrowser();
  page = b.page;
  page.on('response', (r) => {
    if (r.url().startsWith(server.baseUrl) && r.status() >= 400 && !r.url().endsWith('/api/v1/me'))
      cairnFailures.push(`${r.status()} ${r.url()}`);
  });
});
after(async () => {
  await b?.close();
  await server?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** mcp-remote over stdio with only the URL (no headers), its stderr collected. */
function startMcpRemote(mcpUrl: string, configDir: string) {
  // Never a real browser: the test reads the authorize URL from stderr and drives chromium itself.
  const transport = mcpRemoteTransport(
    { command: 'npx', args: ['-y', 'mcp-remote@0.1.38', mcpUrl, '--transport', 'http-only'] },
    { scratch, configDir },
    { DISPLAY: '' },
  );
  const bridge = connectThrough(transport, 'mcp-remote-oauth-test');
  return {
    ...bridge,
    close: async () => {
      const tree = [transport.pid ?? -1, ...descendants(transport.pid)].filter((pid) => pid > 0);
      await bridge.client.close().catch(() => {});
      killAll(tree);
    },
  };
}

async function listDatapacks(client: Client): Promise<string[]> {
  const result = await within(client.callTool({ name: 'list_datapacks', arguments: {} }), 'list_datapacks');
  if (result.isError) throw new Error(JSON.stringify(result.content));
  return (result.structuredContent as { datapacks: { name: string }[] }).datapacks.map((d) => d.name);
}

test('mcp-remote given only the URL: registers, browser sign-in and consent, lists datapacks; a second start reuses the tokens; revoking in Settings stops them', {
  skip,
  timeout: 240_000,
}, async () => {
  await signUpFirst(page, server.baseUrl, {
    name: 'Alan Turing',
    email: 'alan@example.com',
    password: 'a long enough secret',
    organization: 'Bletchley',
  });
  await b.context.clearCookies();
  const configDir = join(scratch, 'mcp-auth');

  const first = startMcpRemote(server.mcpUrl, configDir);
  try {
    const authorizeUrl = await waitFor(
      () => /Please authorize this client by visiting:\s*(\S+)/.exec(first.stderr())?.[1],
      'the authorize URL on stderr',
      first.stderr,
    );
    assert.ok(authorizeUrl.startsWith(`${server.baseUrl}/api/auth/oauth2/authorize?`), authorizeUrl);
    const callbackPort = new URL(new URL(authorizeUrl).searchParams.get('redirect_uri')!).port;

    // Signed out: the authorize request sends the browser to sign-in, which comes back to consent.
    await page.goto(authorizeUrl);
    await page.getByRole('heading', { name: 'Sign in to Cairn' }).waitFor();
    await page.getByText('An app wants to connect to your Cairn').waitFor();
    await page.getByLabel('Email').fill('alan@example.com');
    await page.getByLabel('Password').fill('a long enough secret');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: /^Connect .+ to Cairn\?$/ }).waitFor({ timeout: 20_000 });
    assert.equal(new URL(page.url()).pathname, '/oauth/consent');
    await page.getByText(`this computer (localhost:${callbackPort})`).waitFor();
    await page.getByText('Read and write your Cairn datapacks').waitFor();
    await page.getByText('Stay connected (refresh)').waitFor();
    await page.getByText('Bletchley').waitFor();
    await shot(page, 'oauth-consent');
    await assertAccessible(page, 'the OAuth consent page');
    await page.getByRole('button', { name: 'Allow' }).click();
    // The 303 lands on mcp-remote's own loopback callback.
    await page.waitForURL((u) => u.port === callbackPort && u.searchParams.has('code'), { timeout: 20_000 });

    await within(first.connected, 'mcp-remote connect after consent');
    assert.ok((await listDatapacks(first.client)).length > 0);
  } finally {
    await first.close();
  }

  const tokenFile = findFile(configDir, '_tokens.json');
  assert.ok(tokenFile, 'mcp-remote stored its tokens');
  const accessToken = (JSON.parse(readFileSync(tokenFile, 'utf8')) as { access_token: string }).access_token;

  // Second start, same config dir: the stored tokens, no browser.
  const second = startMcpRemote(server.mcpUrl, configDir);
  try {
    await within(second.connected, 'mcp-remote second start');
    assert.ok((await listDatapacks(second.client)).length > 0);
    assert.doesNotMatch(second.stderr(), /Please authorize this client/);
  } finally {
    await second.close();
  }
  const stored = (JSON.parse(readFileSync(tokenFile, 'utf8')) as { access_token: string }).access_token;
  assert.equal(await mcpStatus(stored), 200);

  // Settings > Connected apps lists it; Revoke (confirmed) stops its tokens at once.
  await page.goto(`${server.baseUrl}/settings/connected-apps`);
  await page.getByRole('heading', { name: 'Connected apps', level: 1 }).waitFor();
  const row = page.getByRole('row').filter({ hasText: 'this computer (localhost' });
  await row.waitFor();
  await shot(page, 'connected-apps');
  await assertAccessible(page, 'Settings > Connected apps');
  await row.getByRole('button', { name: /^Revoke / }).click();
  const dialog = page.getByRole('dialog', { name: /^Revoke / });
  await dialog.getByRole('button', { name: 'Revoke access' }).click();
  await page.getByText('No connected apps').waitFor();
  assert.equal(await mcpStatus(stored), 401);
  assert.equal(await mcpStatus(accessToken), 401);
  // mcp-remote's callback page has no favicon: only Cairn's own responses and script errors count.
  assert.deepEqual(cairnFailures, []);
  assert.deepEqual(
    b.errors.filter((e) => !/^Failed to load resource/.test(e)),
    [],
  );
});

test('with CAIRN_OAUTH_ALLOW_LOOPBACK=false mcp-remote cannot register and is told to use an API key', {
  skip,
  timeout: 120_000,
}, async () => {
  const strict = await startTestCairn({ env: { CAIRN_OAUTH_ALLOW_LOOPBACK: 'false' } });
  const run = startMcpRemote(strict.mcpUrl, join(scratch, 'strict-auth'));
  try {
    const message = await waitFor(
      () => (/use an API key/i.test(run.stderr()) ? run.stderr() : undefined),
      'the API-key message on stderr',
      run.stderr,
    );
    assert.match(message, /does not accept OAuth callbacks on localhost/);
    assert.doesNotMatch(message, /Please authorize this client/);
    await assert.rejects(within(run.connected, 'connect'));
  } finally {
    await run.close();
    await strict.close();
  }
});

async function mcpStatus(token: string): Promise<number> {
  const answer = await fetch(server.mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  await answer.body?.cancel();
  return answer.status;
}

function findFile(dir: string, suffix: string): string | undefined {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      const found = findFile(path, suffix);
      if (found) return found;
    } else if (name.endsWith(suffix)) return path;
  }
  return undefined;
}

async function waitFor<T>(probe: () => T | undefined, what: string, context: () => string): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${WAIT_MS} ms. stderr:\n${context()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${WAIT_MS} ms`)), WAIT_MS)),
  );
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
