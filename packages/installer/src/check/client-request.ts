import { classifyBlock, urlProblem } from '@cairn/clients';

/** What a client will send for an entry: its URL and headers; or OAuth (a browser sign-in, nothing to send); or why it cannot send anything. */
export type ClientRequest =
  | { kind: 'http'; url: string; headers: Record<string, string> }
  | { kind: 'oauth' }
  | { kind: 'unusable'; reason: string };

const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((a): a is string => typeof a === 'string') : [];

/**
 * The request a client makes from its entry. Bridge entries are read as mcp-remote reads them
 * (`--header Name:value`, `${VAR}` from the entry's env, empty when unset); Codex sends
 * `Bearer <key>` from its token variable, which holds `apiKey`.
 */
export function clientRequest(value: unknown, apiKey: string | undefined): ClientRequest {
  const info = classifyBlock(value);
  if (!info?.url) return { kind: 'unusable', reason: 'the entry has no URL' };
  const bad = urlProblem(info.url);
  if (bad) return { kind: 'unusable', reason: `the entry's address "${info.url}" ${bad}` };
  if (info.method === 'oauth') return { kind: 'oauth' };
  const entry = record(value);
  if (info.bridge) {
    const args = strings(entry.args);
    const env = record(entry.env);
    const url = new URL(info.url);
    const local = url.protocol === 'http:' && (url.hostname === 'localhost' || url.hostname === '127.0.0.1');
    if (url.protocol !== 'https:' && !local && !args.includes('--allow-http')) {
      return {
        kind: 'unusable',
        reason: `the bridge (mcp-remote) refuses plain http:// for any host but localhost: give Cairn an https:// address (${info.url})`,
      };
    }
    const headers: Record<string, string> = {};
    for (const [i, arg] of args.entries()) {
      const match = args[i - 1] === '--header' ? /^([A-Za-z0-9_-]+):\s*(.*)$/.exec(arg) : null;
      if (match)
        headers[match[1]!] = match[2]!.replace(/\$\{([^}]+)\}/g, (_, name: string) =>
          typeof env[name] === 'string' ? (env[name] as string) : '',
        );
    }
    return { kind: 'http', url: info.url, headers };
  }
  const headers = Object.fromEntries(
    Object.entries(record(entry.headers ?? entry.http_headers)).filter(
      (e): e is [string, string] => typeof e[1] === 'string',
    ),
  );
  const tokenVar = entry.bearer_token_env_var;
  if (typeof tokenVar === 'string') {
    if (!apiKey) return { kind: 'unusable', reason: `${tokenVar} is not set, so Codex sends no key` };
    headers.Authorization = `Bearer ${apiKey}`;
  }
  return { kind: 'http', url: info.url, headers };
}
