import { BRIDGE_AUTH_ENV } from './constants.js';

/** What an existing MCP entry is: its method, whether it is an older variant, and the URL and key it holds. */
export interface BlockInfo {
  method: 'api-key' | 'oauth';
  /** Bridge over stdio (the chat desktop client's shape) rather than a direct HTTP entry. */
  bridge: boolean;
  /** The spec's older variant: an `API_KEY` header, or bridge args with `--allow-http` and the key in `env.*API_KEY`. */
  legacy: boolean;
  url?: string;
  /** The key found in the entry (without `Bearer `), so a legacy entry can be migrated without asking again. */
  apiKey?: string;
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const stripBearer = (value: string): string => value.replace(/^Bearer\s+/i, '');

/** Reads an entry of any client's shape (current or legacy); undefined when it is no MCP entry this catalog understands. */
export function classifyBlock(value: unknown): BlockInfo | undefined {
  const entry = record(value);
  if (!entry) return undefined;
  const args = Array.isArray(entry.args) ? entry.args.filter((a): a is string => typeof a === 'string') : undefined;
  if (text(entry.command) !== undefined && args?.some((a) => a.startsWith('mcp-remote')))
    return classifyBridge(args, record(entry.env) ?? {});
  const url = text(entry.url) ?? text(entry.serverUrl) ?? text(entry.httpUrl);
  if (url === undefined) return undefined;
  const headers = record(entry.headers) ?? record(entry.http_headers) ?? {};
  const authorization = text(headers.Authorization) ?? text(headers.authorization);
  const legacyKey = text(headers.API_KEY);
  if (authorization !== undefined)
    return { method: 'api-key', bridge: false, legacy: false, url, apiKey: stripBearer(authorization) };
  if (legacyKey !== undefined) return { method: 'api-key', bridge: false, legacy: true, url, apiKey: legacyKey };
  if (text(entry.bearer_token_env_var) !== undefined) return { method: 'api-key', bridge: false, legacy: false, url };
  return { method: 'oauth', bridge: false, legacy: false, url };
}

function classifyBridge(args: string[], env: Record<string, unknown>): BlockInfo {
  // The address follows the package; a scheme-less one is still reported (as the entry's address) so it can be diagnosed.
  const afterPackage = args[args.findIndex((a) => a.startsWith('mcp-remote')) + 1];
  const url =
    args.find((a) => /^https?:\/\//.test(a)) ??
    (afterPackage !== undefined && !afterPackage.startsWith('-') ? afterPackage : undefined);
  const authHeader = text(env[BRIDGE_AUTH_ENV]);
  const legacyName = Object.keys(env).find((name) => /(^|_)API_KEY$/.test(name));
  const legacy = args.includes('--allow-http') || (legacyName !== undefined && authHeader === undefined);
  const apiKey =
    authHeader !== undefined ? stripBearer(authHeader) : legacyName !== undefined ? text(env[legacyName]) : undefined;
  const sendsAuth = args.some((a) => /^Authorization:|^API_KEY:/i.test(a)) || apiKey !== undefined;
  return {
    method: sendsAuth ? 'api-key' : 'oauth',
    bridge: true,
    legacy,
    ...(url && { url }),
    ...(apiKey && { apiKey }),
  };
}
