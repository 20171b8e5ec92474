import type { ClientInfo } from './catalog.js';
import { type BlockInfo, classifyBlock } from './classify-block.js';
import {
  BRIDGE_AUTH_ENV,
  BRIDGE_PACKAGE,
  CODEX_TOKEN_ENV,
  DEFAULT_SERVER_NAME,
  INSTALLER_USER_AGENT,
  KEY_PREFIX,
  urlProblem,
} from './constants.js';
import { codexBlock, codexEnvBlock, type ServerBlock } from './server-blocks.js';

/** What can be wrong with an entry that points at Cairn. */
export type BlockProblemCode =
  | 'wrong-shape'
  | 'missing-bearer'
  | 'missing-user-agent'
  | 'bridge-env-mismatch'
  | 'bridge-header-space'
  | 'legacy'
  | 'missing-key'
  | 'oauth-unsupported'
  | 'bad-url';

/** One problem of an entry: what is wrong and how to put it right. */
export interface BlockProblem {
  code: BlockProblemCode;
  problem: string;
  fix: string;
}

/** What diagnoseBlock found: the problems, and the entry in the current shape when it can be rebuilt from what it holds. */
export interface BlockDiagnosis {
  info: BlockInfo;
  /** The key the entry holds (or a `${VAR}` it sends as the key), without `Bearer `. */
  apiKey?: string;
  problems: BlockProblem[];
  /** Same URL and key, current shape, unknown fields kept; undefined when nothing needs rewriting or it cannot be rebuilt (no key, no URL). */
  repaired?: ServerBlock;
}

const KEY_IN_TEXT = new RegExp(`${KEY_PREFIX}[A-Za-z0-9_-]+`);
const USER_AGENT_OK = /^cairn-mcp-installer\/1\.\d+/;
const SHAPE_KEYS = new Set([
  'url',
  'serverUrl',
  'httpUrl',
  'type',
  'headers',
  'http_headers',
  'command',
  'args',
  'env',
  'bearer_token_env_var',
]);
const AUTH_HEADERS = new Set(['authorization', 'user-agent', 'api_key']);

const record = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((a): a is string => typeof a === 'string') : [];
const header = (headers: Record<string, unknown>, name: string): string | undefined => {
  const found = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return found !== undefined && typeof headers[found] === 'string' ? (headers[found] as string) : undefined;
};

/** Whether an entry is Cairn's: named like the server, or carrying a Cairn key, the installer's User-Agent or Codex's Cairn token variable. */
export function looksLikeCairn(name: string, value: unknown, serverName = DEFAULT_SERVER_NAME): boolean {
  if (name === serverName || /cairn/i.test(name)) return true;
  const text = JSON.stringify(value) ?? '';
  return text.includes(KEY_PREFIX) || text.includes('cairn-mcp-installer') || text.includes(CODEX_TOKEN_ENV);
}

/** Checks an entry against the client's current shape (docs/clients.md); undefined when it is no MCP entry the catalog understands. */
export function diagnoseBlock(client: ClientInfo, value: unknown): BlockDiagnosis | undefined {
  const info = classifyBlock(value);
  if (!info) return undefined;
  const entry = value as Record<string, unknown>;
  const apiKey = info.apiKey || KEY_IN_TEXT.exec(JSON.stringify(entry))?.[0];
  const problems = info.bridge ? bridgeProblems(entry, info) : directProblems(client, entry, info, apiKey);
  const codexEnv = client.id === 'codex' && typeof entry.bearer_token_env_var === 'string';
  if (info.method === 'api-key' && !apiKey && !codexEnv) {
    problems.push({
      code: 'missing-key',
      problem: 'the entry holds no API key',
      fix: `run the installer again with --api-key or --setup-code (create a key in the portal: Settings > API Keys)`,
    });
  }
  const badUrl = info.url === undefined ? undefined : urlProblem(info.url);
  if (badUrl) {
    const example =
      badUrl === 'has no scheme' ? `https://${info.url!.replace(/\/mcp\/?$/, '')}` : 'https://<your Cairn>';
    problems.unshift({
      code: 'bad-url',
      problem: `the address "${info.url}" ${badUrl}, so the client cannot connect`,
      fix: `run the installer again with the whole address: --url ${example}`,
    });
    // The scheme (or the address) cannot be guessed: no rebuilt entry.
    return { info, ...(apiKey && { apiKey }), problems };
  }
  if (problems.length === 0) return { info, ...(apiKey && { apiKey }), problems };
  const repaired = rebuild(client, entry, info, apiKey);
  return { info, ...(apiKey && { apiKey }), problems, ...(repaired && { repaired }) };
}

function bridgeProblems(entry: Record<string, unknown>, info: BlockInfo): BlockProblem[] {
  if (info.legacy)
    return [
      {
        code: 'legacy',
        problem: 'older bridge entry (--allow-http, key in env API_KEY)',
        fix: `rewrite as ${BRIDGE_PACKAGE} with --header Authorization:\${${BRIDGE_AUTH_ENV}} and env ${BRIDGE_AUTH_ENV}`,
      },
    ];
  const problems: BlockProblem[] = [];
  const args = strings(entry.args);
  const env = record(entry.env) ?? {};
  const headerArgs = args.filter((_, i) => args[i - 1] === '--header');
  const auth = headerArgs.find((a) => /^authorization\s*:/i.test(a));
  if (!args.includes(BRIDGE_PACKAGE))
    problems.push({
      code: 'wrong-shape',
      problem: `the bridge is not pinned to ${BRIDGE_PACKAGE}`,
      fix: `use ${BRIDGE_PACKAGE} in args`,
    });
  const spaced = headerArgs.filter((a) => /\s/.test(a));
  if (spaced.length > 0) {
    problems.push({
      code: 'bridge-header-space',
      problem: `space in bridge header arg ${spaced.map((a) => JSON.stringify(a)).join(', ')} (some clients split it)`,
      fix: `write it without spaces: "Authorization:\${${BRIDGE_AUTH_ENV}}"; the space of "Bearer <key>" lives in env`,
    });
  }
  if (info.method === 'api-key' && auth === undefined) {
    problems.push({
      code: 'wrong-shape',
      problem: 'no --header Authorization argument: the bridge sends no key',
      fix: `add --header Authorization:\${${BRIDGE_AUTH_ENV}} to args`,
    });
  }
  const references = [...(auth ?? '').matchAll(/\$\{(\w+)\}/g)].map((m) => m[1]!);
  const unset = references.filter((name) => typeof env[name] !== 'string');
  if (unset.length > 0) {
    const names = Object.keys(env);
    problems.push({
      code: 'bridge-env-mismatch',
      problem: `args reference \${${unset.join('}, ${')}} but env sets ${names.length ? names.join(', ') : 'nothing'}: the request goes out unauthenticated`,
      fix: `name the env variable exactly as the reference: env.${BRIDGE_AUTH_ENV} = "Bearer <key>" with Authorization:\${${BRIDGE_AUTH_ENV}}`,
    });
  } else if (auth !== undefined) {
    const value = auth.replace(/^[^:]*:\s*/, '').replace(/\$\{(\w+)\}/g, (_, name: string) => String(env[name]));
    if (!/^Bearer\s/i.test(value) && value.trim() !== '')
      problems.push({
        code: 'missing-bearer',
        problem: 'the Authorization value lacks the "Bearer " prefix',
        fix: `set env.${BRIDGE_AUTH_ENV} to "Bearer <key>"`,
      });
  }
  const userAgent = headerArgs.find((a) => /^user-agent\s*:/i.test(a));
  if (info.method === 'api-key' && !USER_AGENT_OK.test(userAgent?.replace(/^[^:]*:\s*/, '') ?? '')) {
    problems.push({
      code: 'missing-user-agent',
      problem: `no --header User-Agent:${INSTALLER_USER_AGENT} argument (Cairn refuses a key without it)`,
      fix: `add --header User-Agent:${INSTALLER_USER_AGENT} to args`,
    });
  }
  return problems;
}

function directProblems(
  client: ClientInfo,
  entry: Record<string, unknown>,
  info: BlockInfo,
  apiKey: string | undefined,
): BlockProblem[] {
  const problems: BlockProblem[] = [];
  if (client.id === 'claude-desktop') {
    const fix =
      info.method === 'oauth'
        ? 'delete it and add Cairn under Settings > Customize > Connectors'
        : `rewrite it as the ${BRIDGE_PACKAGE} bridge entry`;
    problems.push({
      code: 'wrong-shape',
      problem: 'Claude Desktop runs only command (stdio) entries from this file: this url entry is ignored',
      fix,
    });
  } else if (info.method === 'oauth' && !client.methods.oauth.supported) {
    // Only where OAuth is not offered at all: a url-only entry the user added by hand (Connect > OAuth) is fine.
    problems.push({
      code: 'oauth-unsupported',
      problem: `OAuth entry, but ${client.methods.oauth.reason}`,
      fix: `npx cairn-mcp-installer@latest --client ${client.id} --api-key <key>`,
    });
  }
  if (info.legacy) {
    problems.push({
      code: 'legacy',
      problem: 'older entry with an API_KEY header (no Bearer, no User-Agent)',
      fix: 'rewrite with Authorization: Bearer <key> and the User-Agent header',
    });
  } else if (info.method === 'api-key') {
    const headers = record(entry.headers) ?? record(entry.http_headers) ?? {};
    const authorization = header(headers, 'authorization');
    if (authorization !== undefined && apiKey && !/^Bearer\s/i.test(authorization)) {
      problems.push({
        code: 'missing-bearer',
        problem: 'the Authorization header lacks the "Bearer " prefix',
        fix: 'write it as "Authorization": "Bearer <key>"',
      });
    }
    const userAgent = header(headers, 'user-agent');
    if (!USER_AGENT_OK.test(userAgent ?? '')) {
      problems.push({
        code: 'missing-user-agent',
        problem: `no "User-Agent: ${INSTALLER_USER_AGENT}" header${userAgent ? ` (it is "${userAgent}")` : ''}; Cairn refuses a key without it`,
        fix: `add "User-Agent": "${INSTALLER_USER_AGENT}"`,
      });
    }
  }
  if (client.id !== 'claude-desktop' && info.url !== undefined) {
    const expected = info.method === 'oauth' ? client.block(info.url) : client.block(info.url, 'k');
    const urlKey = 'serverUrl' in expected ? 'serverUrl' : 'url';
    if (entry[urlKey] === undefined)
      problems.push({
        code: 'wrong-shape',
        problem: `the address is not under "${urlKey}", which ${client.displayName} reads`,
        fix: `move it to "${urlKey}"`,
      });
    if (expected.type !== undefined && entry.type !== expected.type) {
      problems.push({
        code: 'wrong-shape',
        problem: `no "type": "${String(expected.type)}" (${client.displayName} skips or misreads the entry without it)`,
        fix: `add "type": "${String(expected.type)}"`,
      });
    }
  }
  return problems;
}

function rebuild(
  client: ClientInfo,
  entry: Record<string, unknown>,
  info: BlockInfo,
  apiKey: string | undefined,
): ServerBlock | undefined {
  if (info.url === undefined) return undefined;
  let current: ServerBlock | undefined;
  if (info.method === 'oauth')
    current = client.installerOAuth.supported && !info.bridge ? client.block(info.url) : undefined;
  else if (client.id === 'codex')
    current = apiKey
      ? codexBlock(info.url, apiKey)
      : typeof entry.bearer_token_env_var === 'string'
        ? codexEnvBlock(info.url)
        : undefined;
  else current = apiKey ? client.block(info.url, apiKey) : undefined;
  if (!current) return undefined;
  // Keep what the user added: unknown fields, and headers other than the auth ones.
  for (const container of ['headers', 'http_headers']) {
    const before = record(entry[container]);
    const after = record(current[container]);
    if (!before || !after) continue;
    for (const [name, value] of Object.entries(before))
      if (!AUTH_HEADERS.has(name.toLowerCase()) && !(name in after)) after[name] = value;
  }
  for (const [name, value] of Object.entries(entry))
    if (!SHAPE_KEYS.has(name) && !(name in current)) current[name] = value;
  return current;
}
