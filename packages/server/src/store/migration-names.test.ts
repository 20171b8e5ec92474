// The two dialects' migrations, side by side. Their names are recorded in every deployed database
// (cairn_migration), and Kysely refuses to start when a recorded name is missing, so a migration is
// never renamed once released: where the dialects' numbers differ, this table says so, and why.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { postgresMigrations } from './postgres/postgres-migrations.js';
import { sqliteMigrations } from './sqlite/sqlite-migrations.js';

/** Each schema change, in order: its SQLite and PostgreSQL migration (null where a dialect has none). */
const MIGRATIONS: { change: string; sqlite: string | null; postgres: string | null }[] = [
  { change: 'the core tables', sqlite: '0001_core', postgres: '0001_core' },
  { change: 'setup codes', sqlite: '0002_setup_codes', postgres: '0002_setup_codes' },
  { change: 'captured turns', sqlite: '0003_capture', postgres: '0003_capture' },
  { change: 'invitations', sqlite: '0004_invites', postgres: '0004_invites' },
  { change: 'API key scope and expiry', sqlite: '0005_api_key_scope_expiry', postgres: '0005_api_key_scope_expiry' },
  // FTS5 gains a per-datapack token so MATCH stays within the caller's datapacks; PostgreSQL's
  // tsvector query filters by datapack in its WHERE clause and needed no change.
  { change: "SQLite's full-text index per datapack", sqlite: '0006_search_per_datapack', postgres: null },
  // Hence PostgreSQL's next three migrations are numbered one lower than SQLite's.
  {
    change: 'session, speaker and role of captured turns',
    sqlite: '0007_conversation_turns',
    postgres: '0006_conversation_turns',
  },
  { change: 'entry embeddings', sqlite: '0008_entry_embeddings', postgres: '0007_entry_embeddings' },
  {
    change: 'the client that last used an OAuth grant',
    sqlite: '0009_oauth_client_use',
    postgres: '0008_oauth_client_use',
  },
  // From here on the numbers agree again (0009 is unused on PostgreSQL, 0015 on both).
  { change: 'the trash', sqlite: '0010_trash', postgres: '0010_trash' },
  { change: 'the audit trail', sqlite: '0011_audit_events', postgres: '0011_audit_events' },
  { change: 'entry counts per datapack', sqlite: '0012_datapack_entry_stats', postgres: '0012_datapack_entry_stats' },
  { change: 'the access epoch', sqlite: '0013_access_epoch', postgres: '0013_access_epoch' },
  { change: 'guidance: applies, supersedes, replaced by', sqlite: '0014_guidance', postgres: '0014_guidance' },
  { change: 'client names kept with keys and grants', sqlite: '0016_client_names', postgres: '0016_client_names' },
  { change: 'rule usage: one row per guidance answer', sqlite: '0017_rule_usage', postgres: '0017_rule_usage' },
  {
    change: 'applies kept in entry history',
    sqlite: '0018_lifecycle_version_applies',
    postgres: '0018_lifecycle_version_applies',
  },
  {
    change: "a rule's owner, review-by and expiry dates",
    sqlite: '0019_rule_lifecycle',
    postgres: '0019_rule_lifecycle',
  },
];

test('each dialect runs exactly the migrations the table lists for it, in its order', () => {
  // The Migrator runs them in name order, so the table's order must be that order too.
  const listed = (dialect: 'sqlite' | 'postgres') =>
    MIGRATIONS.map((m) => m[dialect]).filter((n): n is string => n !== null);
  assert.deepEqual(listed('sqlite'), Object.keys(sqliteMigrations).sort());
  assert.deepEqual(listed('postgres'), Object.keys(postgresMigrations).sort());
});

test('a change has the same name on both dialects after its number, and only the listed three differ in number', () => {
  const suffix = (name: string) => name.replace(/^\d{4}_/, '');
  const number = (name: string) => name.slice(0, 4);
  const both = MIGRATIONS.filter((m) => m.sqlite !== null && m.postgres !== null) as {
    change: string;
    sqlite: string;
    postgres: string;
  }[];
  for (const m of both) assert.equal(suffix(m.sqlite), suffix(m.postgres), m.change);
  assert.deepEqual(
    both.filter((m) => number(m.sqlite) !== number(m.postgres)).map((m) => [m.sqlite, m.postgres]),
    [
      ['0007_conversation_turns', '0006_conversation_turns'],
      ['0008_entry_embeddings', '0007_entry_embeddings'],
      ['0009_oauth_client_use', '0008_oauth_client_use'],
    ],
  );
  assert.deepEqual(
    MIGRATIONS.filter((m) => m.sqlite === null || m.postgres === null).map((m) => m.sqlite ?? m.postgres),
    ['0006_search_per_datapack'],
  );
});
