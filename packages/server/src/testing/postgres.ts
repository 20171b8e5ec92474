import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The PostgreSQL server tests may use, or why they are skipped. Tests only; the service reads config. */
export function postgresTestUrl(): { url: string } | { skip: string } {
  const url = process.env.CAIRN_TEST_DATABASE_URL;
  if (!url)
    return {
      skip: 'CAIRN_TEST_DATABASE_URL is not set, so the PostgreSQL backend is not tested here (CI sets it; see README.md, "Set-up")',
    };
  return { url };
}

/**
 * Creates a database for one test file, empty or a copy of `template` (postgres-template.ts), and
 * returns its URL and a way to drop it.
 */
export async function createTestDatabase(
  serverUrl: string,
  template?: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `cairn_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => dropTestDatabase(url.toString()) };
}

/** Drops a database createTestDatabase made, by its URL (a process other than the one that made it may hold only that). */
export async function dropTestDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = url.pathname.slice(1);
  if (!/^cairn_test_[0-9a-f]{12}$/.test(name))
    throw new Error(`refusing to drop ${name}: not a database createTestDatabase made`);
  const server = new URL(databaseUrl);
  server.pathname = '/postgres';
  const client = new pg.Client({ connectionString: server.toString() });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await client.end();
}
