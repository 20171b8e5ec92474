import { createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';
import type { Context } from 'hono';
import { authenticateMcpRequest, type McpAuthDeps } from '../auth/mcp-auth.js';
import type { Caller } from '../domain/caller.js';
import type { DomainDeps } from '../domain/deps.js';
import { isDatabaseUnavailable } from '../errors/database-unavailable.js';
import { busyReason } from '../errors/server-busy.js';
import type { Logger } from '../log/logger.js';
import { ClientNames, clientLabel } from '../mcp/client-names.js';
import { createServerFactory, type OutageLatch } from '../mcp/server-factory.js';
import type { Limit } from '../rate-limits/rate-limits.js';
import { busyJsonRpc } from './admission/busy-response.js';
import { bodyRead } from './body-limits.js';
import { jsonRpcId } from './json-rpc-id.js';
import { jsonLegacyHandler } from './mcp-json-legacy.js';
import { rebindingRefusal, refusalResponse } from './mcp-refusal.js';
import { requestLimitMessage, takeRequest } from './rate-limit/request-limit.js';
import { tooManyJsonRpc } from './rate-limit/too-many.js';
import { unavailableJsonRpcResponse } from './unavailable-response.js';

/** What `/mcp` is made with: the domain, its credential gate, the log and the per-credential request limit. */
export interface McpRouteSettings {
  domain: DomainDeps;
  mcpAuth: McpAuthDeps;
  log: Logger;
  requestLimit: Limit;
}

/** The `/mcp` endpoint: the contract's auth gate, then the stateless MCP handler (no per-process session state). */
export function createMcpRoute({ domain: deps, mcpAuth: authDeps, log, requestLimit }: McpRouteSettings) {
  const factory = createServerFactory(deps, log);
  const handler = createMcpHandler(factory, {
    onerror: (error) => log.debug('mcp request rejected', { error: error.message }),
  });
  const legacyJson = jsonLegacyHandler(factory);
  const clientNames = new ClientNames(deps.store, log);
  /** The caller with its client named as the client names itself (initialize, or 2026-07-28's per-request clientInfo), for provenance and "last used by". */
  const namedClient = async (caller: Caller, body: unknown): Promise<Caller> => {
    const credential = caller.keyId
      ? { keyId: caller.keyId }
      : caller.oauthClientId
        ? { userId: caller.userId, oauthClientId: caller.oauthClientId }
        : `${caller.via}:${caller.userId}`;
    const client = (await clientNames.of(credential, clientLabel(body))) ?? caller.client;
    if (caller.keyId) authDeps.keys.noteUse(caller.keyId, client);
    if (caller.oauthClientId) authDeps.oauthUsage?.note(caller.userId, caller.oauthClientId, client);
    return client === caller.client ? caller : { ...caller, client };
  };
  const serve = async (c: Context): Promise<Response> => {
    const rebinding = rebindingRefusal(c.req.raw, authDeps.config);
    if (rebinding) return rebinding;
    const auth = await authenticateMcpRequest(c.req.raw, authDeps);
    if (!auth.ok) return refusalResponse(authDeps.config.baseUrl, auth.refusal);
    const wait = await takeRequest(requestLimit, auth.caller);
    if (wait > 0) return tooManyJsonRpc(wait, requestLimitMessage(auth.caller, requestLimit.points));
    // The body is parsed once, here; a 2025-era call (what clients send today) gets a JSON answer.
    const { request, parsedBody } = await withParsedBody(c.req.raw, bodyRead(c.req.raw));
    const caller = await namedClient(auth.caller, parsedBody);
    const outage: OutageLatch = {};
    const authInfo = {
      token: `cairn:${caller.via}:${caller.keyId ?? caller.userId}`,
      clientId: caller.keyId ?? caller.userId,
      scopes: [],
      extra: { caller, outage },
    };
    const response =
      parsedBody !== undefined && (await isLegacyRequest(request, parsedBody))
        ? await legacyJson(request, { authInfo, parsedBody })
        : await handler.fetch(request, { authInfo, ...(parsedBody !== undefined && { parsedBody }) });
    for (const [name, value] of Object.entries(auth.responseHeaders)) response.headers.set(name, value);
    return unavailableIfTripped(response, outage);
  };
  const route = async (c: Context): Promise<Response> => {
    try {
      return await serve(c);
    } catch (error) {
      // Mostly the key or token lookup meeting the outage (or a busy pool), before the body was read.
      const busy = busyReason(error);
      if (busy) return busyJsonRpc(await jsonRpcId(c.req.raw), busy.retryAfterSeconds, busy.why);
      if (isDatabaseUnavailable(error)) return unavailableJsonRpcResponse(await jsonRpcId(c.req.raw));
      throw error;
    }
  };
  return { route, close: () => handler.close() };
}

/**
 * A tool call that failed on an unreachable database becomes HTTP 503 with a JSON-RPC error, so clients
 * and load balancers see the outage instead of a 200. A streamed (SSE) answer is held until its first
 * event: a stateless call's first event is its result, so the latch is settled by then.
 */
async function unavailableIfTripped(response: Response, outage: OutageLatch): Promise<Response> {
  if (outage.tripped) {
    await response.body?.cancel().catch(() => {});
    return trippedResponse(outage.tripped);
  }
  // The content type first: reading `body` would turn the Node server's lightweight response into a streamed one.
  if (!response.headers.get('content-type')?.startsWith('text/event-stream') || !response.body) return response;
  const reader = response.body.getReader();
  const first = await reader.read();
  // Re-read: the tool may have tripped the latch while the first event was awaited.
  const tripped = (outage as OutageLatch).tripped;
  if (tripped) {
    await reader.cancel().catch(() => {});
    return trippedResponse(tripped);
  }
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (first.done) controller.close();
      else controller.enqueue(first.value);
    },
    async pull(controller) {
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

function trippedResponse(tripped: NonNullable<OutageLatch['tripped']>): Response {
  return tripped.busy
    ? busyJsonRpc(tripped.id, tripped.busy.retryAfterSeconds, tripped.busy.why)
    : unavailableJsonRpcResponse(tripped.id);
}

/** A POST's JSON body, read once (by the body limits, when they did); a body that is not JSON is handed on for the SDK to answer. */
async function withParsedBody(
  request: Request,
  bytes: Uint8Array | undefined,
): Promise<{ request: Request; parsedBody: unknown }> {
  if (request.method !== 'POST' || !(bytes || request.body)) return { request, parsedBody: undefined };
  const text = bytes ? new TextDecoder().decode(bytes) : await request.text();
  try {
    return { request, parsedBody: JSON.parse(text) as unknown };
  } catch {
    return { request: new Request(request, { body: text }), parsedBody: undefined };
  }
}
