import { terminalSafe } from '@cairn/contract/terminal';
import { readRpcAnswer } from './read-rpc-answer.js';

/** How long the check waits for Cairn before calling it unreachable. */
export const CHECK_TIMEOUT_MS = 5_000;

/** Why a check failed; each cause gets its own diagnosis. */
export type CheckCause =
  | 'bad-key'
  | 'bad-authorization'
  | 'no-credentials'
  | 'user-agent'
  | 'forbidden'
  | 'unreachable'
  | 'timeout'
  | 'tls'
  | 'redirect'
  | 'not-cairn'
  | 'server-error';

/** The outcome of checkConnection: who Cairn says the key belongs to, or the diagnosed cause. */
export type CheckResult =
  | { ok: true; user: string; datapacks: number }
  | { ok: false; cause: CheckCause; message: string };

const CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'list_datapacks', arguments: {} },
});

/**
 * Calls `list_datapacks` at the MCP URL with the client's own headers (Cairn's /mcp is stateless: no
 * initialize needed). What the server said (its error, its user's name) is escaped: a server posing as
 * Cairn cannot clear the terminal or write lines of its own into the installer's or doctor's report.
 */
export async function checkConnection(
  url: string,
  headers: Record<string, string>,
  fetchImpl: typeof fetch,
  timeoutMs = CHECK_TIMEOUT_MS,
): Promise<CheckResult> {
  const result = await check(url, headers, fetchImpl, timeoutMs);
  return result.ok
    ? { ...result, user: terminalSafe(result.user) }
    : { ...result, message: terminalSafe(result.message) };
}

async function check(
  url: string,
  headers: Record<string, string>,
  fetchImpl: typeof fetch,
  timeoutMs: number,
): Promise<CheckResult> {
  let status: number;
  let contentType: string;
  let authenticate: string;
  let location: string;
  let body: string;
  try {
    const response = await fetchImpl(url, {
      method: 'POST',
      headers: {
        ...headers,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: CALL,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    ({ status } = response);
    contentType = response.headers.get('content-type') ?? '';
    authenticate = response.headers.get('www-authenticate') ?? '';
    location = response.headers.get('location') ?? '';
    body = await response.text();
  } catch (error) {
    return networkFailure(url, error, timeoutMs);
  }
  const answer = readRpcAnswer(contentType, body);
  const said = answer?.error?.message ?? '';
  const fail = (cause: CheckCause, message: string): CheckResult => ({ ok: false, cause, message });
  if (status >= 300 && status < 400)
    return fail(
      'redirect',
      `${url} redirects (HTTP ${status}) to ${location || 'another address'}: MCP clients do not follow it. Install with the final address as --url.`,
    );
  if (status === 401) {
    if (!answer)
      return fail(
        'not-cairn',
        `${url} asks for a login (HTTP 401) but not the way Cairn does: a proxy in front of it? Check --url.`,
      );
    const error = /error="([^"]+)"/.exec(authenticate)?.[1];
    if (error === 'invalid_token')
      return fail('bad-key', `the API key was refused — bad or revoked key. Cairn says: ${said}`);
    if (error === 'invalid_request')
      return fail(
        'bad-authorization',
        `the Authorization header was refused (it must be "Bearer <key>"). Cairn says: ${said}`,
      );
    return fail('no-credentials', `no key reached Cairn. Cairn says: ${said}`);
  }
  if (status === 403) {
    if (/user-agent/i.test(said)) return fail('user-agent', `missing or wrong User-Agent header. Cairn says: ${said}`);
    return fail('forbidden', `refused (HTTP 403): ${said || body.slice(0, 200).trim() || 'no reason given'}`);
  }
  if (status === 404 || status === 405)
    return fail(
      'not-cairn',
      `nothing answers MCP at ${url} (HTTP ${status}): this is not a Cairn, or --url is not its address.`,
    );
  if (status >= 500)
    return fail('server-error', `Cairn answered HTTP ${status}${said ? `: ${said}` : ''}. See the server's log.`);
  if (!answer)
    return fail(
      'not-cairn',
      `${url} answered HTTP ${status} (${contentType || 'no content type'}) but not with MCP JSON-RPC: this is not a Cairn, or --url is not its address.`,
    );
  if (answer.error) {
    const noTool =
      answer.error.code === -32601 || answer.error.code === -32602 || /list_datapacks|not found/i.test(said);
    return noTool
      ? fail('not-cairn', `an MCP server answered, but not a Cairn (no list_datapacks tool): ${said}`)
      : fail('server-error', `Cairn answered with an error: ${said}`);
  }
  const text = answer.result?.content?.find((c) => c.type === 'text')?.text ?? '';
  if (answer.result?.isError) return fail('server-error', `list_datapacks failed: ${text}`);
  const content = answer.result?.structuredContent as
    | { you?: { name?: string; email?: string }; datapacks?: unknown[] }
    | undefined;
  if (!content?.you || !Array.isArray(content.datapacks))
    return fail('not-cairn', `an MCP server answered list_datapacks, but not as Cairn does: is ${url} your Cairn?`);
  return {
    ok: true,
    user: content.you.name || content.you.email || 'unknown user',
    datapacks: content.datapacks.length,
  };
}

function networkFailure(url: string, error: unknown, timeoutMs: number): CheckResult {
  const where = new URL(url).host;
  const seconds = `${timeoutMs / 1000} s`;
  if ((error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError') {
    return {
      ok: false,
      cause: 'timeout',
      message: `${where} did not answer within ${seconds}: server unreachable (down, firewalled, or a wrong port?).`,
    };
  }
  const cause = (error as { cause?: { code?: string; message?: string; errors?: Array<{ code?: string }> } }).cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code ?? '';
  const detail = cause?.message ?? (error as Error).message;
  if (/CERT|SSL|TLS/i.test(code)) {
    return {
      ok: false,
      cause: 'tls',
      message: `TLS problem with ${where}: ${code} (${detail}). The client will fail the same way: fix the server's certificate, or, for a private CA, point NODE_EXTRA_CA_CERTS at it.`,
    };
  }
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT')
    return {
      ok: false,
      cause: 'timeout',
      message: `${where} did not accept a connection: server unreachable (${code}).`,
    };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return {
      ok: false,
      cause: 'unreachable',
      message: `server unreachable: the name ${new URL(url).hostname} does not resolve (${code}). Check --url, DNS or VPN.`,
    };
  if (code === 'ECONNREFUSED')
    return {
      ok: false,
      cause: 'unreachable',
      message: `server unreachable: nothing listens at ${where} (ECONNREFUSED). Is Cairn running, and is the port right?`,
    };
  if (detail === 'bad port')
    return {
      ok: false,
      cause: 'unreachable',
      message: `port ${new URL(url).port} is on the list of ports HTTP clients refuse to use: run Cairn on another port.`,
    };
  return { ok: false, cause: 'unreachable', message: `server unreachable: ${where}: ${code || detail}.` };
}
