import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const TEST_CLIENTS = fileURLToPath(new URL('../../../../test-clients/node_modules/', import.meta.url));

/** The official MCP Bundle CLI (`@anthropic-ai/mcpb`), which `npm test` installs into test-clients/. */
export const MCPB_BIN = join(TEST_CLIENTS, '.bin', 'mcpb');

/** What the official tool makes of a bundle: its `validate`, `info` and `unpack` output, and the unpacked files. */
export interface InspectedBundle {
  manifest: Record<string, unknown>;
  /** Every file `mcpb unpack` wrote, by path inside the bundle. */
  files: Record<string, string>;
  validate: string;
  info: string;
}

/** Runs `mcpb info`, `mcpb unpack` and `mcpb validate` on the bundle bytes; throws (with the tool's output) if any fails. */
export async function inspectBundle(bytes: Uint8Array): Promise<InspectedBundle> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-mcpb-'));
  try {
    const file = join(dir, 'bundle.mcpb');
    writeFileSync(file, bytes);
    const info = (await run(MCPB_BIN, ['info', file])).stdout;
    await run(MCPB_BIN, ['unpack', file, join(dir, 'out')]);
    const validate = (await run(MCPB_BIN, ['validate', join(dir, 'out', 'manifest.json')])).stdout;
    const files: Record<string, string> = {};
    for (const path of walk(join(dir, 'out'))) files[relative(join(dir, 'out'), path)] = readFileSync(path, 'utf8');
    return { manifest: JSON.parse(files['manifest.json']!), files, validate, info };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The command Claude Desktop would run for this manifest and these settings, per the official library's substitution. */
export async function resolvedServerConfig(
  manifest: unknown,
  userConfig: Record<string, string>,
): Promise<{ command: string; args: string[]; env: Record<string, string> }> {
  const mcpb = (await import(pathToFileURL(join(TEST_CLIENTS, '@anthropic-ai/mcpb/dist/index.js')).href)) as {
    getMcpConfigForManifest: (
      options: Record<string, unknown>,
    ) => Promise<{ command: string; args: string[]; env: Record<string, string> } | undefined>;
  };
  const config = await mcpb.getMcpConfigForManifest({
    manifest,
    extensionPath: '/ext',
    systemDirs: { HOME: '/home/u' },
    userConfig,
    pathSeparator: '/',
  });
  if (!config)
    throw new Error('the official library produced no server config (a required user_config value missing?)');
  return config;
}

function* walk(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}
