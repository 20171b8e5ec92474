import { type Kysely, type Migration, sql } from 'kysely';
import { ACCESS_TABLES } from '../access-tables.js';

/**
 * Cairn's schema on PostgreSQL; a generated, weighted tsvector column carries full-text search.
 * A released migration is never renamed (deployed databases record the names); migration-names.test.ts
 * lists each migration on both dialects, and where their numbers differ.
 */
export const postgresMigrations: Record<string, Migration> = {
  '0001_core': {
    async up(db: Kysely<unknown>) {
      for (const statement of [
        sql`CREATE TABLE datapack (
          id text PRIMARY KEY,
          scope text NOT NULL CHECK (scope IN ('personal', 'team', 'organization')),
          owner_id text NOT NULL,
          organization_id text,
          name text NOT NULL,
          description text NOT NULL DEFAULT '',
          created_by text NOT NULL,
          created_at timestamptz NOT NULL,
          updated_at timestamptz NOT NULL)`,
        sql`CREATE UNIQUE INDEX datapack_owner_name ON datapack (scope, owner_id, lower(name))`,
        sql`CREATE TABLE entry (
          id text PRIMARY KEY,
          datapack_id text NOT NULL REFERENCES datapack (id) ON DELETE CASCADE,
          kind text NOT NULL,
          title text NOT NULL,
          content text NOT NULL,
          tags text NOT NULL DEFAULT '[]',
          content_hash text NOT NULL,
          version integer NOT NULL,
          created_by text NOT NULL,
          created_client text,
          created_at timestamptz NOT NULL,
          updated_by text NOT NULL,
          updated_client text,
          updated_at timestamptz NOT NULL,
          deleted_at timestamptz,
          search tsvector GENERATED ALWAYS AS (
            setweight(to_tsvector('english', title), 'A') ||
            setweight(to_tsvector('english', tags), 'B') ||
            setweight(to_tsvector('english', content), 'C')) STORED)`,
        sql`CREATE INDEX entry_datapack ON entry (datapack_id, deleted_at, updated_at)`,
        sql`CREATE INDEX entry_hash ON entry (datapack_id, content_hash)`,
        sql`CREATE INDEX entry_search ON entry USING GIN (search)`,
        sql`CREATE TABLE entry_version (
          entry_id text NOT NULL REFERENCES entry (id) ON DELETE CASCADE,
          version integer NOT NULL,
          change text NOT NULL,
          kind text NOT NULL,
          title text NOT NULL,
          content text NOT NULL,
          tags text NOT NULL,
          changed_by text NOT NULL,
          changed_client text,
          changed_at timestamptz NOT NULL,
          PRIMARY KEY (entry_id, version))`,
        sql`CREATE TABLE api_key (
          id text PRIMARY KEY,
          user_id text NOT NULL REFERENCES "user" (id) ON DELETE CASCADE,
          name text NOT NULL,
          start text NOT NULL,
          last4 text NOT NULL,
          key_hash text NOT NULL UNIQUE,
          created_at timestamptz NOT NULL,
          revoked_at timestamptz,
          last_used_at timestamptz,
          last_used_client text)`,
        sql`CREATE INDEX api_key_user ON api_key (user_id)`,
      ]) {
        await statement.execute(db);
      }
    },
  },
  '0002_setup_codes': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE setup_code (
        code_hash text PRIMARY KEY,
        user_id text NOT NULL REFERENCES "user" (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz)`.execute(db);
    },
  },
  '0003_capture': {
    async up(db: Kysely<unknown>) {
      // One row per captured turn: the idempotency record that makes a resend harmless.
      await sql`CREATE TABLE capture_turn (
        user_id text NOT NULL REFERENCES "user" (id) ON DELETE CASCADE,
        turn_id text NOT NULL,
        entry_id text NOT NULL REFERENCES entry (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (user_id, turn_id))`.execute(db);
    },
  },
  '0004_invites': {
    async up(db: Kysely<unknown>) {
      await sql`CREATE TABLE invite (
        token_hash text PRIMARY KEY,
        organization_id text NOT NULL REFERENCES organization (id) ON DELETE CASCADE,
        role text NOT NULL,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        used_by text)`.execute(db);
    },
  },
  '0005_api_key_scope_expiry': {
    async up(db: Kysely<unknown>) {
      // Keys made before scopes existed could do everything, so they stay read-write and never expire.
      await sql`ALTER TABLE api_key ADD COLUMN scope text NOT NULL DEFAULT 'read-write' CHECK (scope IN ('read', 'read-write'))`.execute(
        db,
      );
      await sql`ALTER TABLE api_key ADD COLUMN expires_at timestamptz`.execute(db);
    },
  },
  '0006_conversation_turns': {
    async up(db: Kysely<unknown>) {
      // Where a captured turn sits in its conversation, for search to rank it with its neighbours.
      // Turns captured before keep their session from the `session:` tag capture gave them.
      for (const statement of [
        sql`ALTER TABLE capture_turn ADD COLUMN session_id text`,
        sql`ALTER TABLE capture_turn ADD COLUMN speaker text`,
        sql`ALTER TABLE capture_turn ADD COLUMN role text`,
        sql`CREATE INDEX capture_turn_entry ON capture_turn (entry_id)`,
        sql`UPDATE capture_turn SET
          session_id = (SELECT substr(t, 9) FROM entry e, jsonb_array_elements_text(e.tags::jsonb) t WHERE e.id = capture_turn.entry_id AND t LIKE 'session:%' LIMIT 1),
          role = (SELECT CASE WHEN e.title LIKE 'Prompt%' THEN 'user' ELSE 'assistant' END FROM entry e WHERE e.id = capture_turn.entry_id)`,
      ]) {
        await statement.execute(db);
      }
    },
  },
  '0007_entry_embeddings': {
    async up(db: Kysely<unknown>) {
      // Vectors from the optional embeddings provider, per entry version and model: a new version or
      // another model is simply missing, and the background embedder fills it in.
      await sql`CREATE TABLE entry_embedding (
        entry_id text PRIMARY KEY REFERENCES entry (id) ON DELETE CASCADE,
        version integer NOT NULL,
        model text NOT NULL,
        vector bytea NOT NULL,
        created_at timestamptz NOT NULL)`.execute(db);
    },
  },
  '0008_oauth_client_use': {
    async up(db: Kysely<unknown>) {
      // Which client (as MCP initialize named it) last used each OAuth grant, and when.
      await sql`CREATE TABLE oauth_client_use (
        user_id text NOT NULL,
        client_id text NOT NULL,
        last_used_at timestamptz NOT NULL,
        last_used_client text,
        PRIMARY KEY (user_id, client_id))`.execute(db);
    },
  },
  '0010_trash': {
    async up(db: Kysely<unknown>) {
      // A deleted datapack stays, with who deleted it and when, until the trash retention purges it;
      // its name is free again meanwhile (the unique index covers live datapacks only). A restore is
      // a new entry version that names the version it brought back.
      for (const statement of [
        sql`ALTER TABLE datapack ADD COLUMN deleted_at timestamptz`,
        sql`ALTER TABLE datapack ADD COLUMN deleted_by text`,
        sql`DROP INDEX datapack_owner_name`,
        sql`CREATE UNIQUE INDEX datapack_owner_name ON datapack (scope, owner_id, lower(name)) WHERE deleted_at IS NULL`,
        sql`CREATE INDEX datapack_deleted ON datapack (deleted_at) WHERE deleted_at IS NOT NULL`,
        sql`CREATE INDEX entry_deleted ON entry (deleted_at) WHERE deleted_at IS NOT NULL`,
        sql`ALTER TABLE entry_version ADD COLUMN restored_from integer`,
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
          id text PRIMARY KEY,
          at timestamptz NOT NULL,
          kind text NOT NULL,
          actor_user_id text,
          actor_email text,
          organization_id text,
          credential_type text,
          credential_id text,
          credential_name text,
          client text,
          target_type text,
          target_id text,
          target_name text,
          outcome text NOT NULL)`,
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
      // path can miss one (another instance's too): search checks its cached pool with one row per
      // datapack instead of counting the caller's entries on every call. Statement-level triggers
      // with transition tables: a bulk INSERT of a thousand rows updates each datapack once.
      for (const statement of [
        sql`ALTER TABLE datapack ADD COLUMN live_entries integer NOT NULL DEFAULT 0`,
        sql`ALTER TABLE datapack ADD COLUMN entry_revision bigint NOT NULL DEFAULT 0`,
        sql`UPDATE datapack SET live_entries = (SELECT count(*) FROM entry WHERE entry.datapack_id = datapack.id AND entry.deleted_at IS NULL)`,
        sql`CREATE FUNCTION entry_stats_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
          UPDATE datapack d SET live_entries = d.live_entries + c.live, entry_revision = d.entry_revision + 1
          FROM (SELECT datapack_id, count(*) FILTER (WHERE deleted_at IS NULL) AS live FROM new_rows GROUP BY datapack_id) c
          WHERE d.id = c.datapack_id;
          RETURN NULL;
        END $$`,
        // Only changes search sees (not, say, a rewrite of the same row by an import that finds it unchanged).
        sql`CREATE FUNCTION entry_stats_update() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
          WITH changed AS (
            SELECT o.datapack_id AS old_pack, (o.deleted_at IS NULL)::integer AS old_live, n.datapack_id AS new_pack, (n.deleted_at IS NULL)::integer AS new_live
            FROM old_rows o JOIN new_rows n ON n.id = o.id
            WHERE o.updated_at IS DISTINCT FROM n.updated_at OR o.deleted_at IS DISTINCT FROM n.deleted_at OR o.datapack_id IS DISTINCT FROM n.datapack_id
              OR o.version IS DISTINCT FROM n.version OR o.kind IS DISTINCT FROM n.kind)
          UPDATE datapack d SET live_entries = d.live_entries + c.live, entry_revision = d.entry_revision + 1
          FROM (SELECT pack, sum(live) AS live FROM (SELECT old_pack AS pack, -old_live AS live FROM changed UNION ALL SELECT new_pack, new_live FROM changed) p GROUP BY pack) c
          WHERE d.id = c.pack;
          RETURN NULL;
        END $$`,
        sql`CREATE FUNCTION entry_stats_delete() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
          UPDATE datapack d SET live_entries = d.live_entries - c.live, entry_revision = d.entry_revision + 1
          FROM (SELECT datapack_id, count(*) FILTER (WHERE deleted_at IS NULL) AS live FROM old_rows GROUP BY datapack_id) c
          WHERE d.id = c.datapack_id;
          RETURN NULL;
        END $$`,
        sql`CREATE TRIGGER entry_stats_insert AFTER INSERT ON entry REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entry_stats_insert()`,
        sql`CREATE TRIGGER entry_stats_update AFTER UPDATE ON entry REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entry_stats_update()`,
        sql`CREATE TRIGGER entry_stats_delete AFTER DELETE ON entry REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION entry_stats_delete()`,
      ]) {
        await statement.execute(db);
      }
    },
  },
  '0013_access_epoch': {
    async up(db: Kysely<unknown>) {
      // One row counts every change to who may use what; a request reads it instead of its key,
      // memberships and datapacks, cached under it (cache/epoch-cache.ts). Triggers, so another
      // instance's changes and an operator's SQL count too; statement-level, so a bulk change counts
      // once. The row is locked until the changing transaction commits: readers never wait, and a
      // reader that sees the new epoch sees the change. Key usage and entry counts are not access.
      await sql`CREATE TABLE access_epoch (id integer PRIMARY KEY CHECK (id = 1), epoch bigint NOT NULL)`.execute(db);
      await sql`INSERT INTO access_epoch (id, epoch) VALUES (1, 0)`.execute(db);
      await sql`CREATE FUNCTION bump_access_epoch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        UPDATE access_epoch SET epoch = epoch + 1;
        RETURN NULL;
      END $$`.execute(db);
      for (const [table, update] of ACCESS_TABLES) {
        const updates = update ? `UPDATE OF ${update.join(', ')}` : 'UPDATE';
        await sql
          .raw(
            `CREATE TRIGGER access_epoch AFTER INSERT OR ${updates} OR DELETE ON "${table}" FOR EACH STATEMENT EXECUTE FUNCTION bump_access_epoch()`,
          )
          .execute(db);
      }
    },
  },
  '0014_guidance': {
    async up(db: Kysely<unknown>) {
      // Where an entry applies (JSON, null when only its topic says), the entries it replaced (JSON
      // list) and the entry that replaced it. Guidance reads the annotated and the replaced ones of a
      // caller's datapacks; both are few, so partial indexes.
      for (const statement of [
        sql`ALTER TABLE entry ADD COLUMN applies text`,
        sql`ALTER TABLE entry ADD COLUMN supersedes text NOT NULL DEFAULT '[]'`,
        sql`ALTER TABLE entry ADD COLUMN replaced_by text`,
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
      await sql`ALTER TABLE api_key ADD COLUMN client_name text`.execute(db);
      await sql`ALTER TABLE oauth_client_use ADD COLUMN client_name text`.execute(db);
    },
  },
  '0017_rule_usage': {
    async up(db: Kysely<unknown>) {
      // One row per guidance answer: who asked, through which client, the rules given in full and
      // the rules named (JSON lists of { id, title, reason }), and the task. Pruned with the audit trail.
      for (const statement of [
        sql`CREATE TABLE rule_usage_answer (id text PRIMARY KEY, at timestamptz NOT NULL, user_id text NOT NULL, organization_ids text NOT NULL, client text, session text, task text NOT NULL, given text NOT NULL, named text NOT NULL)`,
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
      await sql`ALTER TABLE entry_version ADD COLUMN applies text`.execute(db);
    },
  },
  '0019_rule_lifecycle': {
    async up(db: Kysely<unknown>) {
      // A rule's owner (a user id; NULL on entries saved before: their author), the date to review it
      // by and the date it expires, as YYYY-MM-DD (UTC), so that they compare as text on both dialects.
      // Versions keep all three as one JSON object, SQL NULL on versions saved before: restoring those
      // leaves the lifecycle as it is. Expired entries are few and listed: a partial index.
      for (const statement of [
        sql`ALTER TABLE entry ADD COLUMN owner_id text`,
        sql`ALTER TABLE entry ADD COLUMN review_by text`,
        sql`ALTER TABLE entry ADD COLUMN expires text`,
        sql`ALTER TABLE entry_version ADD COLUMN lifecycle text`,
        sql`CREATE INDEX entry_expires ON entry (datapack_id, expires) WHERE expires IS NOT NULL AND deleted_at IS NULL`,
      ]) {
        await statement.execute(db);
      }
    },
  },
};
