import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const TEST_CLIENTS = fileURLToPath(new URL('../../../../test-clients/node_modules/.bin/', import.meta.url));

/** Path of a real AI client CLI (claude, gemini, codex) or the official MCP Bundle tool (mcpb) that `npm test` installs into test-clients/. */
export function clientBin(name: 'claude' | 'gemini' | 'codex' | 'mcpb'): string {
  return join(TEST_CLIENTS, name);
}
