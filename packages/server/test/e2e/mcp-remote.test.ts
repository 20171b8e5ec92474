import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { connectThrough, mcpRemoteTransport } from '../../src/testing/mcp-remote.js';
import { descendants, killAll } from '../../src/testing/process-tree.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

const WAIT_MS = 30_000;

/** The spec's bridge entry (part 2), as a chat desktop client holds it under mcpServers.cairn. */
function bridgeBlock(mcpUrl: string, env: Record<string, string>) {
  return {
    command: 'npx',
    args: [
      '-y',
      'mcp-remote@0.1.38',
      mcpUrl,
      '--transport',
      'http-only',
      '--header',
      'Authorization:${AUTH_HEADER}',
      '--header',
      'User-Agent:cairn-mcp-installer/1.0',
    ],
    env,
  };
}

interface Bridge {
  client: Client;
  connected: Promise<void>;
  stderr: () => string;
  npmCache: string;
  close(): Promise<void>;
}

/** Spawns the entry like the desktop client does: no shell, args unchanged, env set for the process. */
function launch(entry: ReturnType<typeof bridgeBlock>): Bridge {
  const scratch = mkdtempSync(join(tmpdir(), 'cairn-mcp-remote-'));
  const npmCache = join(scratch, 'npm-cache');
  // Fresh OAuth state per run, and a fresh npm cache so a download would show up as <cache>/_npx.
  const transport = mcpRemoteTransport(
    entry,
    { scratch, configDir: join(scratch, 'mcp-auth') },
    { npm_config_cache: npmCache },
  );
  const bridge = connectThrough(transport, 'chat-desktop-stand-in');
  return {
    ...bridge,
    npmCache,
    async close() {
      const tree = descendants(transport.pid);
      await bridge.client.close().catch(() => {});
      killAll(tree);
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

interface Exchange {
  method: string;
  path: string;
  authorization: string | undefined;
  status: number;
  body: string;
}

/** A pass-through proxy that records each request's Authorization header and the answer. */
async function startRecordingProxy(target: string) {
  const exchanges: Exchange[] = [];
  const proxy = createServer((req, res) => {
    const exchange: Exchange = {
      method: req.method!,
      path: req.url!,
      authorization: req.headers.authorization,
      status: 0,
      body: '',
    };
    exchanges.push(exchange);
    const upstream = request(new URL(req.url!, target), { method: req.method, headers: req.headers }, (answer) => {
      exchange.status = answer.statusCode!;
      res.writeHead(answer.statusCode!, answer.headers);
      answer.on('data', (chunk: Buffer) => (exchange.body += chunk.toString())).pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    exchanges,
    close: () => {
      proxy.closeAllConnections();
      return new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${WAIT_MS} ms`)), WAIT_MS)),
  );
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

let server: TestCairn;
let tenant: TestTenant;

before(async () => {
  server = await startTestCairn();
  tenant = await createTenant(server.cairn);
});

after(async () => {
  await server?.close();
});

describe('the bridge entry through the real mcp-remote@0.1.38', () => {
  test("with AUTH_HEADER set, the agent lists the user's datapacks", { timeout: 2 * WAIT_MS }, async () => {
    const config = { mcpServers: { cairn: bridgeBlock(server.mcpUrl, { AUTH_HEADER: `Bearer ${tenant.owner.key}` }) } };
    const bridge = launch(config.mcpServers.cairn);
    try {
      await within(bridge.connected, 'connect');
      const { tools } = await within(bridge.client.listTools(), 'tools/list');
      assert.ok(
        tools.some((t) => t.name === 'list_datapacks'),
        tools.map((t) => t.name).join(', '),
      );
      const result = await within(bridge.client.callTool({ name: 'list_datapacks', arguments: {} }), 'list_datapacks');
      assert.equal(result.isError, undefined, JSON.stringify(result.content));
      const names = (result.structuredContent as { datapacks: { name: string }[] }).datapacks.map((d) => d.name);
      assert.deepEqual(names, ['Personal', tenant.orgName]);
      assert.match(bridge.stderr(), /Replacing \$\{AUTH_HEADER\} with environment value in header 'Authorization'/);
      assert.equal(
        existsSync(join(bridge.npmCache, '_npx')),
        false,
        'npx downloaded mcp-remote instead of using the local install',
      );
    } finally {
      await bridge.close();
    }
  });

  test('with the env name not matching ${AUTH_HEADER}, the connection is refused with the helpful 401', {
    timeout: 2 * WAIT_MS,
  }, async () => {
    // mcp-remote prints neither the 401 status nor its body (only with --debug), so watch the wire.
    const wire = await startRecordingProxy(server.baseUrl);
    const config = {
      mcpServers: { cairn: bridgeBlock(`${wire.url}/mcp`, { AUTH_TOKEN: `Bearer ${tenant.owner.key}` }) },
    };
    const bridge = launch(config.mcpServers.cairn);
    try {
      await assert.rejects(within(bridge.connected, 'connect'), 'no MCP session, so no datapacks');
      assert.match(bridge.stderr(), /Environment variable 'AUTH_HEADER' not found for header 'Authorization'/);
      const toMcp = wire.exchanges.filter((e) => e.path === '/mcp');
      assert.ok(toMcp.length > 0, 'mcp-remote reached the server');
      for (const exchange of toMcp) {
        // An unset variable is replaced by "": the header arrives present but empty.
        assert.equal(exchange.authorization, '', `${exchange.method} /mcp`);
        assert.equal(exchange.status, 401);
        assert.match(JSON.parse(exchange.body).error.message, /must be set under "env" with exactly the same name/);
      }
    } finally {
      await bridge.close();
      await wire.close();
    }
  });
});
