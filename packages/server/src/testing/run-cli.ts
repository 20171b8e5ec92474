import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { cairnCommand } from './cairn-process.js';
import { createTestDatabase } from './postgres.js';
import type { TestCairn } from './test-cairn.js';

const run = promisify(execFile);
const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url));

/** What a `cairn` command printed, and how it exited. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `cairn` command (the current build, else the sources: cairnCommand), in its own process, on a test Cairn's database; a failure resolves with its exit code. */
export async function runCli(server: TestCairn, ...args: string[]): Promise<CliResult> {
  const { config } = server.cairn;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CAIRN_DATA_DIR: config.dataDir,
    CAIRN_LOG_LEVEL: 'error',
    DATABASE_URL: config.databaseUrl,
  };
  if (!config.databaseUrl) delete env.DATABASE_URL;
  try {
    const { stdout, stderr } = await run(process.execPath, [...cairnCommand(), ...args], { cwd: SERVER_DIR, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as CliResult;
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/**
 * Empty storage for `cairn` commands run with no server: a fresh database on the PostgreSQL server
 * when one is given, else a SQLite data folder named with `prefix`; the env that points a command at
 * it, and how to remove it.
 */
export async function emptyStorage(
  postgresServerUrl: string | undefined,
  prefix: string,
): Promise<{ env: Record<string, string>; remove: () => Promise<void> }> {
  if (postgresServerUrl) {
    const database = await createTestDatabase(postgresServerUrl);
    return { env: { DATABASE_URL: database.url }, remove: () => database.drop() };
  }
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { env: { CAIRN_DATA_DIR: dir }, remove: async () => rmSync(dir, { recursive: true, force: true }) };
}
