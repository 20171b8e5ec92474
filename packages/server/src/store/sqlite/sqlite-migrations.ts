import { type Kysely, type Migration, sql } from 'kysely';
import { ACCESS_TABLES } from '../access-tables.js';

/**
 * Cairn's schema on SQLite; FTS5 over title, content and tags is kept in step by triggers.
 * A released migration is never renamed (deployed databases record the names); migration-names.test.ts
 * lists each migration on both dialects, and where their numbers differ.
 */
export const sqliteMigrations: Record<string, Migration> = {
  '0001_core': {
    async up(db: Kysely<unknown>) {
      for (const statement of [
        sql`CREATE TABLE datapack (
          id TEXT PRIMARY KEY,
          scope TEXT NOT NULL CHECK (scope IN ('personal', 'team', 'organization')),
          owner_id TEXT NOT NULL,
          organization_id TEXT,
          name TEXT NOT NULL,
          description TEXT NOT NULL DEFAULT '',
          created_by TEXT NOT NULL,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL)`,
        sql`CREATE UNIQUE INDEX datapack_owner_name ON datapack (scope, owner_id, lower(name))`,
        // seq is the stable rowid FTS5 points at: an implicit rowid may be renumbered by VACUUM.
        sql`CREATE TABLE entry (
          seq INTEGER PRIMARY KEY,
          id TEXT NOT NULL UNIQUE,
          datapack_id TEXT NOT NULL REFERENCES datapack (id) ON DELETE CASCADE,
          kind TEXT NOT NULL,
          title TEXT NOT NULL,
          content TEXT NOT NULL,
          tags TEXT NOT NULL DEFAULT '[]',
          content_hash TEXT NOT NULL,
          version INTEGER NOT NULL,
          created_by TEXT NOT NULL,
          created_client TEXT,
          created_at TEXT NOT NULL,
          updated_by TEXT NOT NULL,
          updated_client TEXT,
          updated_at TEXT NOT NULL,
          deleted_at TEXT)`,
        sql`CREATE INDEX entry_datapack ON entry (datapack_id, deleted_at, updated_at)`,
        sql`CREATE INDEX entry_hash ON entry (datapack_id, content_hash)`,
        sql`CREATE TABLE entry_version (
          entry_id TEXT NOT NULL REFERENCES entry (id) ON DELETE CASCADE,
          version INTEGER NOT NULL,
          change TEXT NOT NULL,
          kind TEXT NOT NULL,
          title TEXT NOT NULL,
          content TEXT NOT NULL,
          tags TEXT NOT NULL,
          changed_by TEXT NOT NULL,
          changed_client TEXT,
          changed_at TEXT NOT NULL,
          PRIMARY KEY (entry_id, version))`,
        sql`CREATE TABLE api_key (
          id TEXT PRIMARY KEY,
          user_id TEXT NOT NULL REFERENCES "user" (id) ON DELETE CASCADE,
          name TEXT NOT NULL,
          start TEXT NOT NULL,
          last4 TEXT NOT NULL,
          key_hash TEXT NOT NULL UNIQUE,
          created_at TEXT NOT NULL,
          revoked_at TEXT,
          last_used_at TEXT,
          last_used_client TEXT)`,
        sql`CREATE INDEX api_key_user ON api_key (user_id)`,
        sql`CREATE VIRTUAL TABLE entry_fts USING fts5(
          title, content, tags, content='entry', content_rowid='seq', tokenize='porter unicode61')`,
        sql`CREATE TRIGGER entry_fts_insert AFTER INSERT ON entry BEGIN
          INSERT INTO entry_fts (rowid, title, content, tags) VALUES (new.seq, new.title, new.content, new.tags);
        END`,
        sql`CREATE TRIGGER entry_fts_delete AFTER DELETE ON entry BEGIN
          INSERT INTO entry_fts (entry_fts, rowid, title, content, tags) VALUES ('delete', old.seq, old.title, old.content, old.tags);
        END`,
        sql`CREATE TRIGGER entry_fts_update AFTER UPDATE OF title, content, tags ON entry BEGIN
          INSERT INTO entry_fts (entry_fts, rowid, title, content, tags) VALUES ('delete', old.seq, old.title, old.content, old.tags);
          INSERT INTO entry_fts (rowid, title, content, tags) VALUES (new.seq, new.title, new.content, new.tags);
        END`,
      ]) {
        await statement.execute(db);
      }
    },
  },
  '0002_setup_codes': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE setup_code (
        code_hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES "user" (id) ON DELETE CASCADE,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        used_at TEXT)`.execute(db);
    },
  },
  '0003_capture': {
    async up(db: Kysely<unknown>) {
      // One row per captured turn: the idempotency record that makes a resend harmless.
      await sql`CREATE TABLE capture_turn (
        user_id TEXT NOT NULL REFERENCES "user" (id) ON DELETE CASCADE,
        turn_id TEXT NOT NULL,
        entry_id TEXT NOT NULL REFERENCES entry (id) ON DELETE CASCADE,
        created_at TEXT NOT NULL,
        PRIMARY KEY (user_id, turn_id))`.execute(db);
    },
  },
  '0004_invites': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE invite (
        token_hash TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organization (id) ON DELETE CASCADE,
        role TEXT NOT NULL,
        created_by TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        used_at TEXT,
        used_by TEXT)`.execute(db);
    },
  },
  '0005_api_key_scope_expiry': {
    async up(db: Kysely<unknown>) {
      // Keys made before scopes existed could do everything, so they stay read-write and never expire.
      await sql`ALTER TABLE api_key ADD COLUMN scope TEXT NOT NULL DEFAULT 'read-write' CHECK (scope IN ('read', 'read-write'))`.execute(
        db,
      );
      await sql`ALTER TABLE api_key ADD COLUMN expires_at TEXT`.execute(db);
    },
  },
  '0006_search_per_datapack': {
    async up(db: Kysely<unknown>) {
      // The index gains a `pack` column holding one token per datapack (sqlitePackToken), so a
      // search intersects its terms with the caller's datapacks inside MATCH instead of matching
      // every tenant's rows first. The view is the external content FTS5 reads that column from.
      for (const statement of [
        sql`DROP TRIGGER entry_fts_insert`,
        sql`DROP TRIGGER entry_fts_delete`,
        sql`DROP TRIGGER entry_fts_update`,
        sql`DROP TABLE entry_fts`,
        sql`CREATE VIEW entry_fts_source AS
          SELECT seq, title, content, tags, 'p' || lower(hex(datapack_id)) || '0' AS pack FROM entry`,
        sql`CREATE VIRTUAL TABLE entry_fts USING fts5(
          title, content, tags, pack, content='entry_fts_source', content_rowid='seq', tokenize='porter unicode61')`,
        sql`CREATE TRIGGER entry_fts_insert AFTER INSERT ON entry BEGIN
          INSERT INTO entry_fts (rowid, title, content, tags, pack)
          VALUES (new.seq, new.title, new.content, new.tags, 'p' || lower(hex(new.datapack_id)) || '0');
        END`,
        sql`CREATE TRIGGER entry_fts_delete AFTER DELETE ON entry BEGIN
          INSERT INTO entry_fts (entry_fts, rowid, title, content, tags, pack)
          VALUES ('delete', old.seq, old.title, old.content, old.tags, 'p' || lower(hex(old.datapack_id)) || '0');
        END`,
        sql`CREATE TRIGGER entry_fts_update AFTER UPDATE OF title, content, tags, datapack_id ON entry BEGIN
          INSERT INTO entry_fts (entry_fts, rowid, title, content, tags, pack)
          VALUES ('delete', old.seq, old.title, old.content, old.tags, 'p' || lower(hex(old.datapack_id)) || '0');
          INSERT INTO entry_fts (rowid, title, content, tags, pack)
          VALUES (new.seq, new.title, new.content, new.tags, 'p' || lower(hex(new.datapack_id)) || '0');
        END`,
        sql`INSERT INTO entry_fts (entry_fts) VALUES ('rebuild')`,
      ]) {
        await statement.execute(db);
      }
    },
  },
  '0007_conversation_turns': {
    async up(db: Kysely<unknown>) {
      // Where a captured turn sits in its conversation, for search to rank it with its neighbours.
      // Turns captured before keep their session from the `session:` tag capture gave them.
      for (const statement of [
        sql`ALTER TABLE capture_turn ADD COLUMN session_id TEXT`,
        sql`ALTER TABLE capture_turn ADD COLUMN speaker TEXT`,
        sql`ALTER TABLE capture_turn ADD COLUMN role TEXT`,
        sql`CREATE INDEX capture_turn_entry ON capture_turn (entry_id)`,
        sql`UPDATE capture_turn SET
          session_id = (SELECT substr(t.value, 9) FROM entry e, json_each(e.tags) t WHERE e.id = capture_turn.entry_id AND t.value LIKE 'session:%' LIMIT 1),
          role = (SELECT CASE WHEN e.title LIKE 'Prompt%' THEN 'user' ELSE 'assistant' END FROM entry e WHERE e.id = capture_turn.entry_id)`,
      ]) {
        await statement.execute(db);
      }
    },
  },
  '0008_entry_embeddings': {
    async up(db: Kysely<unknown>) {
      // Vectors from the optional embeddings provider, per entry version and model: a new version or
      // another model is simply missing, and the background embedder fills it in.
      await sql`CREATE TABLE entry_embedding (
        entry_id TEXT PRIMARY KEY REFERENCES entry (id) ON DELETE CASCADE,
        version INTEGER NOT NULL,
        model TEXT NOT NULL,
        vector BLOB NOT NULL,
        created_at TEXT NOT NULL)`.execute(db);
    },
  },
  '0009_oauth_client_use': {
    async up(db: Kysely<unknown>) {
      // Which client (as MCP initialize named it) last used each OAuth grant, and when.
      await sql`CREATE TABLE oauth_client_use (
        user_id TEXT NOT NULL,
        client_id TEXT NOT NULL,
        last_used_at TEXT NOT NULL,
        last_used_client TEXT,
        PRIMARY KEY (user_id, client_id))`.execute(db);
    },
  },
  '0010_trash': {
    async up(db: Kysely<unknown>) {
      // A deleted datapack stays, with who deleted it and when, until the trash retention purges it;
      // its name is free again meanwhile (the unique index covers live datapacks only). A restore is
      // a new entry version that names the version it brought back.
      for (const statement of [
        sql`ALTER TABLE datapack ADD COLUMN deleted_at TEXT`,
        sql`ALTER TABLE datapack ADD COLUMN deleted_by TEXT`,
        sql`DROP INDEX datapack_owner_name`,
        sql`CREATE UNIQUE INDEX datapack_owner_name ON datapack (scope, owner_id, lower(name)) WHERE deleted_at IS NULL`,
        sql`CREATE INDEX datapack_deleted ON datapack (deleted_at) WHERE deleted_at IS NOT NULL`,
        sql`CREATE INDEX entry_deleted ON entry (deleted_at) WHERE deleted_at IS NOT NULL`,
        sql`ALTER TABLE entry_version ADD COLUMN restored_from INTEGER`,
      ]) {
        await statement.execute(db);
      }
    },
  },
  '0011_audit_events': {
    async up(db: Kysely<unknown>) {
      // The audit trail: who did what, with which credential and client. No foreign keys: an event
      // outlives the user, key or datapack it names, until the CAIRN_AUDIT_DAYS purge.
      for (const statement of [
        sql`CREATE TABLE audit_events (
          id TEXT PRIMARY KEY,
          at TEXT NOT NULL,
          kind TEXT NOT NULL,
          actor_user_id TEXT,
          actor_email TEXT,
          organization_id TEXT,
          credential_type TEXT,
          credential_id TEXT,
          credential_name TEXT,
          client TEXT,
          target_type TEXT,
          target_id TEXT,
          target_name TEXT,
          outcome TEXT NOT NULL)`,
        sql`CREATE INDEX audit_events_at ON audit_events (at, id)`,
        sql`CREATE INDEX audit_events_org ON audit_events (organization_id, at, id)`,
        sql`CREATE INDEX audit_events_actor ON audit_events (actor_user_id, at, id)`,
      ]) {
        await statement.execute(db);
      }
    },
  },
  '0012_datapack_entry_stats': {
    async up(db: Kysely<unknown>) {
      // Each datapack counts its live entries and every change to them, kept by triggers so no write
      // path can miss one (the CLI's too): search checks its cached pool with one row per datapack
      // instead of counting the caller's entries on every call.
      for (const statement of [
        sql`ALTER TABLE datapack ADD COLUMN live_entries INTEGER NOT NULL DEFAULT 0`,
        sql`ALTER TABLE datapack ADD COLUMN entry_revision INTEGER NOT NULL DEFAULT 0`,
        sql`UPDATE datapack SET live_entries = (SELECT count(*) FROM entry WHERE entry.datapack_id = datapack.id AND entry.deleted_at IS NULL)`,
        sql`CREATE TRIGGER entry_stats_insert AFTER INSERT ON entry BEGIN
          UPDATE datapack SET live_entries = live_entries + (NEW.deleted_at IS NULL), entry_revision = entry_revision + 1 WHERE id = NEW.datapack_id;
        END`,
        sql`CREATE TRIGGER entry_stats_update AFTER UPDATE ON entry
          WHEN OLD.updated_at IS NOT NEW.updated_at OR OLD.deleted_at IS NOT NEW.deleted_at OR OLD.datapack_id IS NOT NEW.datapack_id
                OR OLD.version IS NOT NEW.version OR OLD.kind IS NOT NEW.kind BEGIN
          UPDATE datapack
            SET live_entries = live_entries - (id = OLD.datapack_id AND OLD.deleted_at IS NULL) + (id = NEW.datapack_id AND NEW.deleted_at IS NULL),
                entry_revision = entry_revision + 1
            WHERE id IN (OLD.datapack_id, NEW.datapack_id);
        END`,
        sql`CREATE TRIGGER entry_stats_delete AFTER DELETE ON entry BEGIN
          UPDATE datapack SET live_entries = live_entries - (OLD.deleted_at IS NULL), entry_revision = entry_revision + 1 WHERE id = OLD.datapack_id;
        END`,
      ]) {
        await statement.execute(db);
      }
    },
  },
  '0013_access_epoch': {
    async up(db: Kysely<unknown>) {
      // One row counts every change to who may use what; a request reads it instead of its key,
      // memberships and datapacks, cached under it (cache/epoch-cache.ts). Triggers, so the CLI's
      // changes, another process's and an operator's SQL count too. Key usage and entry counts are not access.
      await sql`CREATE TABLE access_epoch (id INTEGER PRIMARY KEY CHECK (id = 1), epoch INTEGER NOT NULL)`.execute(db);
      await sql`INSERT INTO access_epoch (id, epoch) VALUES (1, 0)`.execute(db);
      for (const [table, update] of ACCESS_TABLES) {
        for (const event of ['INSERT', update ? `UPDATE OF ${update.join(', ')}` : 'UPDATE', 'DELETE']) {
          const name = `access_epoch_${table}_${event.split(' ')[0]!.toLowerCase()}`;
          await sql
            .raw(
              `CREATE TRIGGER ${name} AFTER ${event} ON "${table}" BEGIN UPDATE access_epoch SET epoch = epoch + 1; END`,
            )
            .execute(db);
        }
      }
    },
  },
  '0014_guidance': {
    async up(db: Kysely<unknown>) {
      // Where an entry applies (JSON, null when only its topic says), the entries it replaced (JSON
      // list) and the entry that replaced it. Guidance reads the annotated and the replaced ones of a
      // caller's datapacks; both are few, so partial indexes.
      for (const statement of [
        sql`ALTER TABLE entry ADD COLUMN applies TEXT`,
        sql`ALTER TABLE entry ADD COLUMN supersedes TEXT NOT NULL DEFAULT '[]'`,
        sql`ALTER TABLE entry ADD COLUMN replaced_by TEXT`,
        sql`CREATE INDEX entry_applies ON entry (datapack_id) WHERE applies IS NOT NULL AND deleted_at IS NULL`,
        sql`CREATE INDEX entry_replaced ON entry (datapack_id) WHERE replaced_by IS NOT NULL AND deleted_at IS NULL`,
      ]) {
        await statement.execute(db);
      }
    },
  },
  '0016_client_names': {
    async up(db: Kysely<unknown>) {
      // The name an MCP client gave itself (initialize, or 2026-07-28's per-request clientInfo), kept
      // beside the credential's usage so every instance names a bare call's client. Apart from
      // last_used_client, which a call that names no client may overwrite. Not access: no epoch trigger.
      await sql`ALTER TABLE api_key ADD COLUMN client_name TEXT`.execute(db);
      await sql`ALTER TABLE oauth_client_use ADD COLUMN client_name TEXT`.execute(db);
    },
  },
  '0017_rule_usage': {
    async up(db: Kysely<unknown>) {
      // One row per guidance answer: who asked, through which client, the rules given in full and
      // the rules named (JSON lists of { id, title, reason }), and the task. Pruned with the audit trail.
      for (const statement of [
        sql`CREATE TABLE rule_usage_answer (id TEXT PRIMARY KEY, at TEXT NOT NULL, user_id TEXT NOT NULL, organization_ids TEXT NOT NULL, client TEXT, session TEXT, task TEXT NOT NULL, given TEXT NOT NULL, named TEXT NOT NULL)`,
        sql`CREATE INDEX rule_usage_answer_at ON rule_usage_answer (at)`,
        sql`CREATE INDEX rule_usage_answer_user ON rule_usage_answer (user_id, at)`,
      ]) {
        await statement.execute(db);
      }
    },
  },
  '0018_lifecycle_version_applies': {
    async up(db: Kysely<unknown>) {
      // Where each version applied, so a change of applies is visible in history and a restore brings
      // it back. NULL on the versions saved before: restoring those leaves applies as it is.
      await sql`ALTER TABLE entry_version ADD COLUMN applies TEXT`.execute(db);
    },
  },
  '0019_rule_lifecycle': {
    async up(db: Kysely<unknown>) {
      // A rule's owner (a user id; NULL on entries saved before: their author), the date to review it
      // by and the date it expires, as YYYY-MM-DD (UTC), so that they compare as text on both dialects.
      // Versions keep all three as one JSON object, SQL NULL on versions saved before: restoring those
      // leaves the lifecycle as it is. Expired entries are few and listed: a partial index.
      for (const statement of [
        sql`ALTER TABLE entry ADD COLUMN owner_id TEXT`,
        sql`ALTER TABLE entry ADD COLUMN review_by TEXT`,
        sql`ALTER TABLE entry ADD COLUMN expires TEXT`,
        sql`ALTER TABLE entry_version ADD COLUMN lifecycle TEXT`,
        sql`CREATE INDEX entry_expires ON entry (datapack_id, expires) WHERE expires IS NOT NULL AND deleted_at IS NULL`,
      ]) {
        await statement.execute(db);
      }
    },
  },
};
