// A migrated PostgreSQL database to copy for each test Cairn. Migrating a fresh database takes a few
// seconds on PostgreSQL (better-auth's tables, then Cairn's migrations), and the suites start a Cairn on
// it well over a hundred times a run; a copy of a database migrated once (CREATE DATABASE … TEMPLATE)
// takes a fraction of that. The template is named after a hash of what decides the schema (the server's
// sources and the lock file), so a changed migration gets a template of its own. A fresh, empty database
// still meets the migrations in every run: the template's own build, multi-instance.test.ts, the store
// suite and the CLI's empty storage (createTestDatabase).
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../config/load-config.js';
import { createLogger } from '../log/logger.js';
import { openCairn } from '../runtime/open-cairn.js';
import { createTestDatabase } from './postgres.js';

const SERVER_SRC = fileURLToPath(new URL('..', import.meta.url));
const LOCK_FILE = fileURLToPath(new URL('../../../../package-lock.json', import.meta.url));
/** Templates older than this are dropped when another is built: a run is minutes, not hours. */
const TEMPLATE_MAX_AGE_MS = 2 * 60 * 60 * 1000;
const TEMPLATE_NAME = /^cairn_tpl_[0-9a-f]{16}$/;

/**
 * Creates a database for one test, migrated as a Cairn leaves it at its first start (without that
 * start's auth secret and OAuth resource, which each Cairn writes for itself), and returns its URL and
 * a way to drop it. Falls back to an empty database, which the Cairn then migrates, if the copy fails.
 */
export async function createMigratedTestDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const template = templateName();
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      return await createTestDatabase(serverUrl, template);
    } catch (error) {
      // 3D000: no template yet (or another run's clean-up dropped it): build it, once for all files.
      if ((error as { code?: string }).code !== '3D000' || attempt > 0) break;
      await buildTemplate(serverUrl, template).catch(() => {});
    }
  }
  return createTestDatabase(serverUrl);
}

let name: string | undefined;

function templateName(): string {
  if (name) return name;
  const hash = createHash('sha256');
  // Paths from src/, so that worktrees with the same sources share one template.
  for (const file of sources(SERVER_SRC)) hash.update(relative(SERVER_SRC, file)).update(readFileSync(file));
  hash.update(readFileSync(LOCK_FILE));
  name = `cairn_tpl_${hash.digest('hex').slice(0, 16)}`;
  return name;
}

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'testing') yield* sources(path);
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) yield path;
  }
}

/** Migrates a new database with a real Cairn and renames it to `template`, under a lock, so parallel files build it once. */
async function buildTemplate(serverUrl: string, template: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [template]);
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
    if (exists.rowCount === 0) {
      const database = await createTestDatabase(serverUrl);
      try {
        await migrate(database.url);
        const building = new URL(database.url).pathname.slice(1);
        await admin.query(`ALTER DATABASE ${building} RENAME TO ${template}`);
        await admin.query(`COMMENT ON DATABASE ${template} IS '${new Date().toISOString()}'`);
      } catch (error) {
        await database.drop().catch(() => {});
        throw error;
      }
      await dropOldTemplates(admin, template);
    }
  } finally {
    await admin.end();
  }
}

async function migrate(databaseUrl: string): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-template-'));
  try {
    const config = loadConfig({ HOST: '127.0.0.1', PORT: '1', DATABASE_URL: databaseUrl, CAIRN_DATA_DIR: dataDir });
    const cairn = await openCairn(config, { log: createLogger('error', () => {}), background: false });
    await cairn.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  // What the first start wrote beyond the schema: each Cairn makes its own, as on an empty database.
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`DELETE FROM cairn_setting WHERE name = 'auth_secret'`);
    await client.query(`DELETE FROM "oauthResource"`);
  } finally {
    await client.end();
  }
}

async function dropOldTemplates(admin: pg.Client, keep: string): Promise<void> {
  const { rows } = await admin.query<{ datname: string; built: string | null }>(
    `SELECT datname, shobj_description(oid, 'pg_database') AS built FROM pg_database WHERE datname LIKE 'cairn_tpl_%'`,
  );
  for (const { datname, built } of rows) {
    const age = Date.now() - Date.parse(built ?? '');
    if (datname === keep || !TEMPLATE_NAME.test(datname) || !(age > TEMPLATE_MAX_AGE_MS)) continue;
    await admin.query(`DROP DATABASE IF EXISTS ${datname}`).catch(() => {});
  }
}
