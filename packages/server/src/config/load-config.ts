import { resolve } from 'node:path';
import proxyAddr from 'proxy-addr';
import { z } from 'zod';
import { ConfigError, invalidSetting } from './config-error.js';
import { type PinnedClientsFile, readPinnedClientsFile } from './pinned-clients-file.js';

export { ConfigError } from './config-error.js';
export type { PinnedClientsFile } from './pinned-clients-file.js';

const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])
    .optional()
    .transform((v) => (v === undefined ? fallback : ['true', '1', 'yes', 'on'].includes(v)));

const list = z
  .string()
  .optional()
  .transform((v) =>
    v
      ? v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : [],
  );

const count = (fallback: number) => z.coerce.number().int().min(1).default(fallback);

/** Requests handled at once on SQLite unless CAIRN_MAX_CONCURRENT_REQUESTS says otherwise. */
export const SQLITE_CONCURRENT_REQUESTS = 4;

/** Custom URI schemes of known MCP clients whose callbacks register by default (not RFC 8252 reverse-domain ones). */
export const DEFAULT_OAUTH_CLIENT_SCHEMES = ['cursor', 'vscode', 'vscode-insiders', 'windsurf'] as const;

const envSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(7411),
  CAIRN_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  CAIRN_DATA_DIR: z.string().min(1).default('./.cairn'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL (leave it unset for the embedded SQLite)')
    .optional(),
  CAIRN_AUTH_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  CAIRN_REQUIRE_USER_AGENT: bool(true),
  CAIRN_ALLOW_LEGACY_API_KEY_HEADER: bool(true),
  CAIRN_ALLOWED_HOSTS: list,
  CAIRN_ALLOWED_ORIGINS: list,
  CAIRN_OAUTH_ALLOW_LOOPBACK: bool(true),
  // A JSON file of Client ID Metadata Documents trusted as written, never fetched (behind a firewall).
  CAIRN_OAUTH_PINNED_CLIENTS: z
    .string()
    .trim()
    .optional()
    .transform((v) => v || undefined),
  // Tests only, not a user option: lets the Client ID Metadata Document fetch reach http://127.0.0.1.
  CAIRN_OAUTH_CIMD_ALLOW_LOOPBACK_FOR_TESTS: bool(false),
  // Unset: the defaults; set to an empty string: none.
  CAIRN_OAUTH_CLIENT_SCHEMES: z
    .string()
    .optional()
    .transform((v) =>
      v === undefined
        ? [...DEFAULT_OAUTH_CLIENT_SCHEMES]
        : v
            .split(',')
            .map((s) => s.trim().toLowerCase().replace(/:$/, ''))
            .filter(Boolean),
    )
    .pipe(
      z.array(
        z
          .string()
          .regex(/^[a-z][a-z0-9+.-]*$/, 'must be a comma-separated list of URI schemes, e.g. cursor,vscode')
          .refine(
            (s) => !['http', 'https', 'javascript', 'data', 'vbscript', 'file', 'ftp', 'mailto'].includes(s),
            'http(s) and unsafe schemes cannot be listed',
          ),
      ),
    ),
  CAIRN_INSTALLER_PUBLISHED: bool(false),
  // Where users' Claude Code fetches the cairn plugin marketplace from; unset: the installer's own copy.
  CAIRN_PLUGIN_MARKETPLACE: z
    .string()
    .trim()
    .optional()
    .transform((v) => v || undefined)
    .pipe(
      z
        .string()
        .max(500)
        .regex(
          /^((https|ssh|git):\/\/[^\s'"`$\\]+|[\w.-]+@[\w.-]+:[^\s'"`$\\]+|[\w-]+\/[\w.-]+)$/,
          'must be a git URL (https://…, ssh://…, git@host:owner/repo) or a GitHub owner/repo',
        )
        .optional(),
    ),
  CAIRN_CAPTURE_TURNS_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  CAIRN_SEARCH_SEMANTIC: bool(true),
  // The search cache's bound (docs/capacity.md): about 1.5 MB per active user of 1,000 entries.
  CAIRN_SEARCH_CACHE_MB: z.coerce
    .number()
    .int('must be a whole number of megabytes')
    .min(8, 'must be at least 8 (MB)')
    .max(65536, 'must be at most 65536 (MB)')
    .default(256),
  CAIRN_TRASH_DAYS: z.coerce
    .number()
    .int('must be a whole number of days')
    .min(1, 'must be at least 1 day')
    .max(3650, 'must be at most 3650 days')
    .default(30),
  CAIRN_AUDIT_DAYS: z.coerce
    .number()
    .int('must be a whole number of days')
    .min(1, 'must be at least 1 day')
    .max(36500, 'must be at most 36500 days')
    .default(365),
  // An OpenAI-compatible embeddings API (OpenAI, Ollama, llama.cpp, vLLM…): the base URL its /embeddings hangs under.
  CAIRN_EMBEDDINGS_URL: z
    .url({
      protocol: /^https?$/,
      error: 'must be the http(s) base URL of an OpenAI-compatible API, e.g. http://127.0.0.1:11434/v1',
    })
    .optional(),
  CAIRN_EMBEDDINGS_MODEL: z.string().trim().min(1).max(200).optional(),
  CAIRN_EMBEDDINGS_API_KEY: z.string().min(1).optional(),
  // Unset or empty: no proxy is trusted and X-Forwarded-For is ignored.
  CAIRN_TRUSTED_PROXIES: list.superRefine((entries, ctx) => {
    try {
      proxyAddr.compile(entries);
    } catch (error) {
      ctx.addIssue({
        code: 'custom',
        message: `${(error as Error).message}; list proxy addresses or CIDR ranges (e.g. 10.0.0.0/8,::1) or loopback, linklocal, uniquelocal, comma-separated`,
      });
    }
  }),
  CAIRN_SIGN_IN_FAILURES_PER_ACCOUNT_AND_ADDRESS: count(10),
  CAIRN_SIGN_IN_FAILURES_PER_ACCOUNT: count(50),
  CAIRN_SIGN_IN_FAILURES_PER_ADDRESS: count(100),
  CAIRN_CODE_FAILURES_PER_ADDRESS: count(20),
  CAIRN_OAUTH_REGISTRATIONS_PER_ADDRESS: count(20),
  CAIRN_OAUTH_CIMD_FETCHES_PER_ADDRESS: count(20),
  CAIRN_REQUESTS_PER_MINUTE: count(600),
  // Overload: requests beyond these get 503 "busy" at once (docs/overload.md).
  // Unset: 4 on SQLite (its queries run on the event loop: more at once only interleaves them), the pool size on PostgreSQL.
  CAIRN_MAX_CONCURRENT_REQUESTS: z.coerce
    .number()
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(10_000, 'must be at most 10000')
    .optional(),
  CAIRN_MAX_QUEUED_REQUESTS: z.coerce
    .number()
    .int('must be a whole number')
    .min(0, 'must be 0 (no queue) or more')
    .max(100_000, 'must be at most 100000')
    .default(64),
  CAIRN_MAX_QUEUE_WAIT_MS: z.coerce
    .number()
    .int('must be a whole number of milliseconds')
    .min(1, 'must be at least 1 ms')
    .max(60_000, 'must be at most 60000 ms (a client waiting longer has usually given up)')
    .default(2_000),
  CAIRN_DATABASE_POOL_SIZE: z.coerce
    .number()
    .int('must be a whole number')
    .min(2, 'must be at least 2 (start-up holds one connection for its lock while another migrates)')
    .max(1_000, 'must be at most 1000 (PostgreSQL allows 100 connections by default)')
    .default(10),
  CAIRN_DATABASE_CONNECT_TIMEOUT_MS: z.coerce
    .number()
    .int('must be a whole number of milliseconds')
    .min(100, 'must be at least 100 ms')
    .max(60_000, 'must be at most 60000 ms')
    .default(5_000),
  CAIRN_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
});

/** Where to reach an OpenAI-compatible embeddings API. */
export interface EmbeddingsConfig {
  /** Base URL, no trailing slash: requests go to `<url>/embeddings`. */
  url: string;
  model: string;
  /** Sent as a Bearer token; never logged. */
  apiKey: string | undefined;
}

/** Resolved, validated settings; built once at start-up and passed down. */
export interface CairnConfig {
  host: string;
  port: number;
  /** Public base URL without a trailing slash; `<baseUrl>/mcp` is the MCP URL. */
  baseUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  authSecret: string | undefined;
  requireUserAgent: boolean;
  allowLegacyApiKeyHeader: boolean;
  allowedHosts: string[];
  allowedOrigins: string[];
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** Whether OAuth clients may register loopback callbacks (RFC 8252); when false they are told to use an API key. */
  oauthAllowLoopback: boolean;
  /** Custom URI schemes (e.g. `cursor`) OAuth clients may register callbacks on, besides https, loopback and reverse-domain ones. */
  oauthClientSchemes: string[];
  /** Client ID Metadata Documents used as pinned instead of fetched (CAIRN_OAUTH_PINNED_CLIENTS); undefined: none. */
  oauthPinnedClients: PinnedClientsFile | undefined;
  /** Tests only: the CIMD SSRF guard admits http and loopback targets. Never documented as a user option. */
  oauthCimdAllowLoopbackForTests: boolean;
  /** Per API key; bursts of twice this are allowed. */
  captureTurnsPerMinute: number;
  /** Days a deleted entry or datapack stays in the trash, restorable, before it is purged for good (CAIRN_TRASH_DAYS). */
  trashDays: number;
  /** Days an audit event is kept before the hourly purge deletes it (CAIRN_AUDIT_DAYS). */
  auditDays: number;
  /** Search fuses word vectors and conversation context with the lexical ranking (CAIRN_SEARCH_SEMANTIC, default on). */
  semanticSearch: boolean;
  /** Megabytes of indexed search pools kept between searches (CAIRN_SEARCH_CACHE_MB, see docs/capacity.md). */
  searchCacheMb: number;
  /** An embeddings provider whose vectors replace the word vectors' when it answers; unset: offline word vectors only. */
  embeddings: EmbeddingsConfig | undefined;
  /** cairn-mcp-installer is on the npm registry the users' machines reach; otherwise the portal shows only this server's own copy. */
  installerPublished: boolean;
  /** The cairn plugin marketplace the Connect dialog gives Claude Code's automatic mode (CAIRN_PLUGIN_MARKETPLACE); unset: the installer's own copy. */
  pluginMarketplace: string | undefined;
  /** Proxies (addresses, CIDR ranges or proxy-addr names) whose X-Forwarded-For is believed; empty: the socket address is the client's. */
  trustedProxies: string[];
  rateLimits: RateLimitSettings;
  overload: OverloadSettings;
  /** PostgreSQL only: connections per instance, and how long a query waits for one (new or free) before failing. */
  databasePool: { size: number; connectTimeoutMs: number };
}

/** The per-instance bound on work in progress (docs/overload.md). */
export interface OverloadSettings {
  /** Requests to /mcp and /api handled at once (default 4 on SQLite, the pool size on PostgreSQL); the rest wait in the queue. */
  maxConcurrent: number;
  /** Requests waiting for a turn; beyond it they are refused 503 "busy" at once. */
  maxQueued: number;
  /** Longest a request waits in the queue before it is refused (a request expected to wait longer is refused at once). */
  maxQueueWaitMs: number;
}

/** How many attempts each limit allows in its window (the windows are fixed; see docs/security.md). */
export interface RateLimitSettings {
  /** Failed sign-ins per account from one address, per 15 minutes. */
  signInFailuresPerAccountAndAddress: number;
  /** Failed sign-ins per account from all addresses, per hour (distributed guessing). */
  signInFailuresPerAccount: number;
  /** Failed sign-ins from one address to any accounts, per hour (password spraying). */
  signInFailuresPerAddress: number;
  /** Failed invite sign-ups and setup-code exchanges per address, per hour. */
  codeFailuresPerAddress: number;
  /** OAuth dynamic client registrations per address, per 10 minutes. */
  oauthRegistrationsPerAddress: number;
  /** Client ID Metadata Document fetches caused by one address, per 10 minutes. */
  oauthCimdFetchesPerAddress: number;
  /** Requests per minute per API key, OAuth user or portal user on /mcp and /api/v1 (per instance). */
  requestsPerMinute: number;
}

/** Reads and validates the environment once; the only place that looks at `process.env`. */
export function loadConfig(env: Record<string, string | undefined>): CairnConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid Cairn settings:\n${lines.join('\n')}\nFix the variable(s) above and start again.`);
  }
  const e = parsed.data;
  if (e.CAIRN_EMBEDDINGS_URL && !e.CAIRN_EMBEDDINGS_MODEL) {
    throw invalidSetting(
      'CAIRN_EMBEDDINGS_MODEL',
      'name the embedding model too (for example nomic-embed-text on Ollama, text-embedding-3-small on OpenAI), or unset CAIRN_EMBEDDINGS_URL.',
    );
  }
  const displayHost = e.HOST === '0.0.0.0' || e.HOST === '::' ? 'localhost' : e.HOST;
  const baseUrl = (
    e.CAIRN_BASE_URL ?? `http://${displayHost.includes(':') ? `[${displayHost}]` : displayHost}:${e.PORT}`
  ).replace(/\/+$/, '');
  const baseHost = new URL(baseUrl).hostname;
  const localhostNames = ['localhost', '127.0.0.1', '[::1]'];
  return {
    host: e.HOST,
    port: e.PORT,
    baseUrl,
    dataDir: resolve(e.CAIRN_DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    authSecret: e.CAIRN_AUTH_SECRET,
    requireUserAgent: e.CAIRN_REQUIRE_USER_AGENT,
    allowLegacyApiKeyHeader: e.CAIRN_ALLOW_LEGACY_API_KEY_HEADER,
    allowedHosts: unique([baseHost, ...localhostNames, ...e.CAIRN_ALLOWED_HOSTS]),
    allowedOrigins: unique([baseHost, ...localhostNames, ...e.CAIRN_ALLOWED_ORIGINS]),
    logLevel: e.CAIRN_LOG_LEVEL,
    oauthAllowLoopback: e.CAIRN_OAUTH_ALLOW_LOOPBACK,
    oauthClientSchemes: e.CAIRN_OAUTH_CLIENT_SCHEMES,
    oauthPinnedClients: e.CAIRN_OAUTH_PINNED_CLIENTS ? readPinnedClientsFile(e.CAIRN_OAUTH_PINNED_CLIENTS) : undefined,
    oauthCimdAllowLoopbackForTests: e.CAIRN_OAUTH_CIMD_ALLOW_LOOPBACK_FOR_TESTS,
    captureTurnsPerMinute: e.CAIRN_CAPTURE_TURNS_PER_MINUTE,
    semanticSearch: e.CAIRN_SEARCH_SEMANTIC,
    searchCacheMb: e.CAIRN_SEARCH_CACHE_MB,
    trashDays: e.CAIRN_TRASH_DAYS,
    auditDays: e.CAIRN_AUDIT_DAYS,
    embeddings: e.CAIRN_EMBEDDINGS_URL
      ? {
          url: e.CAIRN_EMBEDDINGS_URL.replace(/\/+$/, ''),
          model: e.CAIRN_EMBEDDINGS_MODEL!,
          apiKey: e.CAIRN_EMBEDDINGS_API_KEY,
        }
      : undefined,
    installerPublished: e.CAIRN_INSTALLER_PUBLISHED,
    pluginMarketplace: e.CAIRN_PLUGIN_MARKETPLACE,
    trustedProxies: e.CAIRN_TRUSTED_PROXIES,
    rateLimits: {
      signInFailuresPerAccountAndAddress: e.CAIRN_SIGN_IN_FAILURES_PER_ACCOUNT_AND_ADDRESS,
      signInFailuresPerAccount: e.CAIRN_SIGN_IN_FAILURES_PER_ACCOUNT,
      signInFailuresPerAddress: e.CAIRN_SIGN_IN_FAILURES_PER_ADDRESS,
      codeFailuresPerAddress: e.CAIRN_CODE_FAILURES_PER_ADDRESS,
      oauthRegistrationsPerAddress: e.CAIRN_OAUTH_REGISTRATIONS_PER_ADDRESS,
      oauthCimdFetchesPerAddress: e.CAIRN_OAUTH_CIMD_FETCHES_PER_ADDRESS,
      requestsPerMinute: e.CAIRN_REQUESTS_PER_MINUTE,
    },
    overload: {
      maxConcurrent:
        e.CAIRN_MAX_CONCURRENT_REQUESTS ?? (e.DATABASE_URL ? e.CAIRN_DATABASE_POOL_SIZE : SQLITE_CONCURRENT_REQUESTS),
      maxQueued: e.CAIRN_MAX_QUEUED_REQUESTS,
      maxQueueWaitMs: e.CAIRN_MAX_QUEUE_WAIT_MS,
    },
    databasePool: { size: e.CAIRN_DATABASE_POOL_SIZE, connectTimeoutMs: e.CAIRN_DATABASE_CONNECT_TIMEOUT_MS },
  };
}

function unique(values: string[]): string[] {
  return [...new Set(values.map((v) => v.toLowerCase()))];
}
