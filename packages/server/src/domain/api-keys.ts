import { redact } from '@cairn/contract/redaction';
import { cleanName } from '@cairn/contract/terminal';
import { z } from 'zod';
import { displayParts, generateApiKey, hashApiKey } from '../auth/api-keys/key-format.js';
import { CairnError } from '../errors/cairn-error.js';
import type { ApiKeyRecord, KeyUsage } from '../store/types.js';
import { loadAccess } from './access.js';
import { audit } from './audit.js';
import type { Caller } from './caller.js';
import { listDatapacks } from './datapacks.js';
import type { DomainDeps } from './deps.js';
import { KEY_SCOPES, type KeyScope } from './key-scope.js';
import { parse } from './parse-input.js';

/** The longest key name. */
export const MAX_KEY_NAME = 64;
const keyName = z.string().trim().min(1, 'give the key a name').max(MAX_KEY_NAME);
const DAY_MS = 24 * 60 * 60 * 1000;
/** The longest lifetime a key may be given; beyond it, choose no expiry. */
export const MAX_KEY_DAYS = 3650;

/** How a key is scoped and when it expires, as an adapter received it (checked here, not there). */
export interface KeyOptions {
  /** `read` or `read-write` (default). */
  scope?: unknown;
  /** A date (`2027-01-31`, the key works through that day, UTC) or an ISO timestamp; null or absent: no expiry. */
  expiresAt?: unknown;
  /** Days from now; the alternative to `expiresAt`. */
  expiresInDays?: unknown;
}

/** Mints a named key for a user. The plaintext key is in the result and nowhere else, ever. */
export async function createApiKey(
  deps: DomainDeps,
  userId: string,
  name: string,
  options: KeyOptions = {},
  by?: Caller,
): Promise<{ key: string; record: ApiKeyRecord }> {
  const { key, record, keyHash } = prepareApiKey(deps, userId, name, options);
  await deps.store.insertApiKey(record, keyHash);
  auditKeyCreated(deps, record, by);
  return { key, record };
}

/**
 * Checks everything about a new key and mints it, storing nothing: what can be refused is refused
 * here, before anything (a setup code) is spent on it.
 */
export function prepareApiKey(
  deps: DomainDeps,
  userId: string,
  name: string,
  options: KeyOptions = {},
): { key: string; record: ApiKeyRecord; keyHash: string } {
  // A name is shown in Settings, the key list and the audit trail: a secret pasted into it is kept as a marker,
  // and a control or bidirectional character (which could rewrite a terminal or reorder a list) is dropped.
  const validName = redact(parse(keyName, typeof name === 'string' ? cleanName(name) : name)).text;
  const scope = parseScope(options.scope);
  const createdAt = deps.now();
  const expiresAt = parseExpiry(options, createdAt);
  const key = generateApiKey();
  const record: ApiKeyRecord = {
    id: deps.newId('key'),
    userId,
    name: validName,
    ...displayParts(key),
    scope,
    createdAt,
    expiresAt,
    revokedAt: null,
    lastUsedAt: null,
    lastUsedClient: null,
  };
  return { key, record, keyHash: hashApiKey(key) };
}

/** The audit event of a stored key. */
export function auditKeyCreated(deps: DomainDeps, record: ApiKeyRecord, by?: Caller): void {
  audit(deps, {
    kind: 'key.created',
    by,
    target: { type: 'api_key', id: record.id, name: `${record.name} (${record.scope})` },
  });
}

/** A user's keys, newest first, as they may be shown (start and last four only). */
/**
 * A user's keys; with `pendingUse`, usage this instance has seen but not yet written (it writes every
 * 15 s) counts too, so "last used" agrees with what the Connect dialog just said.
 */
export async function listApiKeys(
  deps: DomainDeps,
  userId: string,
  pendingUse?: (keyId: string) => KeyUsage | undefined,
): Promise<ApiKeyRecord[]> {
  const keys = await deps.store.listApiKeys(userId);
  if (!pendingUse) return keys;
  return keys.map((k) => {
    const pending = pendingUse(k.id);
    return pending && (!k.lastUsedAt || pending.at >= k.lastUsedAt)
      ? { ...k, lastUsedAt: pending.at, lastUsedClient: pending.client }
      : k;
  });
}

/** Revokes a key; `ownerId` limits it to that user's keys (omit for operator use from the CLI, where `by` is absent too). */
export async function revokeApiKey(deps: DomainDeps, id: string, ownerId?: string, by?: Caller): Promise<ApiKeyRecord> {
  const key = await deps.store.getApiKey(id);
  if (!key || (ownerId !== undefined && key.userId !== ownerId))
    throw new CairnError('not_found', `No API key ${id}; list the keys to see their ids.`);
  if (key.revokedAt) return key;
  const at = deps.now();
  await deps.store.revokeApiKey(id, at);
  audit(deps, { kind: 'key.revoked', by, target: { type: 'api_key', id, name: key.name } });
  return { ...key, revokedAt: at };
}

/** Whether a stored key may still be used at `now`: neither revoked nor past its expiry. Checked on every request. */
export function keyState(
  record: Pick<ApiKeyRecord, 'revokedAt' | 'expiresAt'>,
  now: string,
): 'active' | 'revoked' | 'expired' {
  if (record.revokedAt) return 'revoked';
  if (record.expiresAt !== null && Date.parse(record.expiresAt) <= Date.parse(now)) return 'expired';
  return 'active';
}

/**
 * Reads the CLI's `--expires` value: `30d`, `90d` (any number of days), a date `YYYY-MM-DD`, or `never`.
 * Returns the options createApiKey checks further (range, future).
 */
export function parseExpiresFlag(value: string): Pick<KeyOptions, 'expiresAt' | 'expiresInDays'> {
  const text = value.trim().toLowerCase();
  if (text === 'never') return {};
  const days = /^(\d{1,6})d$/.exec(text);
  if (days) return { expiresInDays: Number(days[1]) };
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return { expiresAt: text };
  throw new CairnError(
    'invalid_input',
    `--expires must be a number of days such as 30d or 90d, a date such as 2027-01-31, or "never" (got "${value.slice(0, 40)}").`,
  );
}

function parseScope(raw: unknown): KeyScope {
  if (raw === undefined || raw === null) return 'read-write';
  if (typeof raw === 'string' && (KEY_SCOPES as readonly string[]).includes(raw)) return raw as KeyScope;
  throw new CairnError(
    'invalid_input',
    `The key scope must be "read" (list, search, guidance, get) or "read-write" (everything) (got ${JSON.stringify(raw)?.slice(0, 40)}).`,
  );
}

function parseExpiry(options: KeyOptions, now: string): string | null {
  const { expiresAt, expiresInDays } = options;
  const hasAt = expiresAt !== undefined && expiresAt !== null && expiresAt !== '';
  const hasDays = expiresInDays !== undefined && expiresInDays !== null;
  if (hasAt && hasDays) throw new CairnError('invalid_input', 'Give either expiresAt or expiresInDays, not both.');
  const nowMs = Date.parse(now);
  if (hasDays) {
    if (
      typeof expiresInDays !== 'number' ||
      !Number.isInteger(expiresInDays) ||
      expiresInDays < 1 ||
      expiresInDays > MAX_KEY_DAYS
    ) {
      throw new CairnError(
        'invalid_input',
        `The expiry must be a whole number of days from 1 to ${MAX_KEY_DAYS} (got ${JSON.stringify(expiresInDays)?.slice(0, 40)}); omit it for a key that never expires.`,
      );
    }
    return new Date(nowMs + expiresInDays * DAY_MS).toISOString();
  }
  if (!hasAt) return null;
  const at = typeof expiresAt === 'string' ? expiryInstant(expiresAt.trim()) : undefined;
  if (at === undefined) {
    throw new CairnError(
      'invalid_input',
      `The expiry date must be a date such as 2027-01-31 or an ISO timestamp such as 2027-01-31T12:00:00Z (got ${JSON.stringify(expiresAt)?.slice(0, 40)}).`,
    );
  }
  if (at <= nowMs)
    throw new CairnError(
      'invalid_input',
      `The expiry ${new Date(at).toISOString()} is not in the future; choose a later date, or no expiry.`,
    );
  if (at > nowMs + MAX_KEY_DAYS * DAY_MS)
    throw new CairnError(
      'invalid_input',
      `The expiry is more than ${MAX_KEY_DAYS} days away; choose an earlier date, or no expiry.`,
    );
  return new Date(at).toISOString();
}

/** A date means "through that day (UTC)"; a timestamp needs an explicit offset so it is not read in the server's zone. */
function expiryInstant(text: string): number | undefined {
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (date) {
    const start = Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3]));
    // Date.UTC rolls 2027-02-30 over to March; refuse it instead.
    if (new Date(start).toISOString().slice(0, 10) !== text) return undefined;
    return start + DAY_MS - 1;
  }
  if (!z.iso.datetime({ offset: true }).safeParse(text).success) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/** A client's first contact through one of the user's keys, as the Connect dialog reports it live. */
export interface KeyConnection {
  keyId: string;
  keyName: string;
  /** The client as it named itself at initialize ("Cursor 1.7"), else its User-Agent. */
  client: string | null;
  at: string;
  userName: string;
  datapacks: number;
}

/**
 * The most recently used of the user's keys made at or after `since` (an ISO time: when the dialog
 * made its key or setup code), or undefined. Keys made earlier are other clients already connected.
 * Usage not yet flushed to the database counts too (`pendingUse`), so the answer is live here.
 */
export async function latestConnection(
  deps: DomainDeps,
  userId: string,
  since: unknown,
  pendingUse: (keyId: string) => KeyUsage | undefined,
): Promise<KeyConnection | undefined> {
  const from = parse(
    z.iso.datetime({ offset: true, error: 'since must be an ISO date and time, such as 2026-01-01T00:00:00Z' }),
    since,
  );
  const used = (await deps.store.listApiKeys(userId))
    .filter((k) => !k.revokedAt && Date.parse(k.createdAt) >= Date.parse(from))
    .map((k) => {
      const pending = pendingUse(k.id);
      const fresher = pending && (!k.lastUsedAt || pending.at >= k.lastUsedAt);
      return { key: k, at: fresher ? pending.at : k.lastUsedAt, client: fresher ? pending.client : k.lastUsedClient };
    })
    .filter((u): u is typeof u & { at: string } => u.at !== null && Date.parse(u.at) >= Date.parse(from))
    .sort((a, b) => b.at.localeCompare(a.at));
  const latest = used[0];
  if (!latest) return undefined;
  const access = await loadAccess(deps, { userId, client: 'cairn-portal', via: 'session', scope: 'read-write' });
  const packs = await listDatapacks(deps, access);
  return {
    keyId: latest.key.id,
    keyName: latest.key.name,
    client: latest.client,
    at: latest.at,
    userName: access.user?.name ?? '',
    datapacks: packs.length,
  };
}
