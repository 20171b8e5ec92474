// Runs a chat-desktop bridge entry (command/args/env) the way the desktop client does, through the real mcp-remote.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { mcpRemoteTransport } from '../../../server/src/testing/mcp-remote.js';
import { descendants, killAll } from '../../../server/src/testing/process-tree.js';

const WAIT_MS = 30_000;

/** The entry as the Connect dialog shows it. */
export interface BridgeEntry {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** Lists datapack names through the entry exactly as written (no shell, args unchanged, env set). */
export async function listDatapacksThrough(entry: BridgeEntry): Promise<string[]> {
  const scratch = mkdtempSync(join(tmpdir(), 'cairn-portal-bridge-'));
  const transport = mcpRemoteTransport(entry, { scratch, configDir: join(scratch, 'mcp-auth') });
  const client = new Client({ name: 'chat-desktop-stand-in', version: '1.0.0' });
  try {
    await within(client.connect(transport), 'connect');
    const result = await within(client.callTool({ name: 'list_datapacks', arguments: {} }), 'list_datapacks');
    if (result.isError) throw new Error(JSON.stringify(result.content));
    return (result.structuredContent as { datapacks: { name: string }[] }).datapacks.map((d) => d.name);
  } finally {
    const tree = descendants(transport.pid);
    await client.close().catch(() => {});
    killAll(tree);
    rmSync(scratch, { recursive: true, force: true });
  }
}

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${WAIT_MS} ms`)), WAIT_MS)),
  );
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
