import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

// npx finds mcp-remote@0.1.38 in the workspace's node_modules only when run from the repo.
const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** A bridge entry as a chat desktop client holds it: the command, its arguments, its environment. */
export interface BridgeCommand {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/**
 * A stdio transport that launches a bridge entry (mcp-remote through npx) the way a desktop client
 * does: no shell, args unchanged, the entry's env plus PATH and HOME (`scratch` when there is none),
 * mcp-remote's OAuth state in `configDir`, and never a real browser. `env` adds to or overrides it.
 */
export function mcpRemoteTransport(
  entry: BridgeCommand,
  dirs: { scratch: string; configDir: string },
  env: Record<string, string> = {},
): StdioClientTransport {
  return new StdioClientTransport({
    command: entry.command,
    args: entry.args,
    env: {
      ...entry.env,
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? dirs.scratch,
      MCP_REMOTE_CONFIG_DIR: dirs.configDir,
      npm_config_update_notifier: 'false',
      // No DISPLAY is passed, so if mcp-remote ever reaches its browser step, open's xdg-open runs
      // $BROWSER: `true` rather than a text browser that would linger (macOS ignores it; the tree kill covers it).
      BROWSER: 'true',
      ...env,
    },
    cwd: REPO_ROOT,
    stderr: 'pipe',
  });
}

/** An MCP client connecting through a launched bridge: `connected` settles once it has (a failure is left to whoever awaits it), and the bridge's stderr so far. */
export function connectThrough(
  transport: StdioClientTransport,
  clientName: string,
): { client: Client; connected: Promise<void>; stderr: () => string } {
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: clientName, version: '1.0.0' });
  const connected = client.connect(transport);
  connected.catch(() => {});
  return { client, connected, stderr: () => stderr };
}
