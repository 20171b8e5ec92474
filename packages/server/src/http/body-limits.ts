import type { IncomingMessage } from 'node:http';
import { CAPTURE_LIMITS } from '@cairn/contract';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { findNul, nulMessage } from '../domain/parse-input.js';
import { edgeError } from './edge-error.js';
import { MAX_JSON_DEPTH, scanJson } from './json-scan.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/** The body limit of one group of routes. */
export interface BodyLimitRule {
  /** An exact path, or a prefix ending in `/*`; `*` matches every path. */
  path: string;
  maxBytes: number;
  /** What to do instead, said in the 413. */
  hint: string;
  /** Leave NUL characters to the handler: MCP tools name the argument, capture replaces them so no turn is lost. */
  nulsHandledDownstream?: boolean;
  /** The route takes the bytes read here from `bodyRead`, so the Request is not rebuilt around them. */
  routeTakesBytes?: boolean;
}

/** Every body limit, first match wins. Unauthenticated routes get small limits: they are read before anyone is known. */
export const BODY_LIMIT_RULES: readonly BodyLimitRule[] = [
  {
    path: '/mcp',
    maxBytes: 4 * MiB,
    nulsHandledDownstream: true,
    routeTakesBytes: true,
    hint: 'send less in one call (an entry holds at most 20,000 characters)',
  },
  {
    path: '/api/auth/*',
    maxBytes: 64 * KiB,
    hint: 'sign-in, sign-up and OAuth requests need only a few hundred bytes',
  },
  { path: '/api/v1/signup', maxBytes: 64 * KiB, hint: 'sign-up needs only an email, a name, a password and an invite' },
  {
    path: '/api/v1/setup-codes/exchange',
    maxBytes: 64 * KiB,
    hint: 'the exchange needs only the code, the client and the host name',
  },
  {
    path: '/api/v1/capture',
    maxBytes: CAPTURE_LIMITS.maxBodyBytes,
    nulsHandledDownstream: true,
    hint: 'send fewer turns at a time',
  },
  {
    path: '/api/v1/import',
    maxBytes: 16 * MiB,
    hint: 'import a larger export on the server with cairn import FILE.jsonl',
  },
  { path: '/api/v1/*', maxBytes: 1 * MiB, hint: 'an entry holds at most 20,000 characters; send less at a time' },
  { path: '*', maxBytes: 64 * KiB, hint: 'send a smaller request' },
];

/**
 * Enforces the body limits while reading (a declared Content-Length over the limit is refused
 * before a byte is read; a chunked body is cut off as soon as it passes the limit), then checks a
 * JSON body's nesting depth and NUL characters, and hands the body on, readable again, as
 * `c.req.raw`: better-auth and the MCP SDK read that Request themselves.
 */
export function bodyLimits(rules: readonly BodyLimitRule[] = BODY_LIMIT_RULES): MiddlewareHandler {
  const limiters = rules.map((rule) => ({
    rule,
    limit: bodyLimit({ maxSize: rule.maxBytes, onError: (c) => edgeError(c, 413, tooLargeMessage(c, rule)) }),
  }));
  return async (c, next) => {
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    if (!(incoming ? declaresBody(incoming) : c.req.raw.body)) return next();
    const { rule, limit } = limiters.find((l) => matches(l.rule.path, c.req.path))!;
    const declared =
      incoming && !incoming.headers['transfer-encoding'] ? Number(incoming.headers['content-length']) : Number.NaN;
    if (declared > rule.maxBytes) return edgeError(c, 413, tooLargeMessage(c, rule));
    // Node's parser holds a body to its declared length, so it is read directly (no web stream in
    // between); a chunked one goes through hono's limiter, which cuts it off past the limit.
    if (!(declared >= 0)) {
      let withinLimit = false;
      const refused = await limit(c, async () => {
        withinLimit = true;
      });
      if (!withinLimit) return refused as Response;
    }
    const bytes = new Uint8Array(await c.req.raw.arrayBuffer());
    const scan = scanJson(bytes);
    if (scan.tooDeep) {
      return edgeError(
        c,
        400,
        `The JSON body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels, the most Cairn accepts; flatten it and send it again.`,
      );
    }
    if (!rule.nulsHandledDownstream) {
      const nulAt = scan.hasNul ? nulPath(bytes) : isForm(c) ? formNulField(bytes) : undefined;
      if (nulAt !== undefined) return edgeError(c, 400, nulMessage(nulAt));
    }
    if (rule.routeTakesBytes) readBodies.set(c.req.raw, bytes);
    else c.req.raw = new Request(c.req.raw, { body: bytes });
    return next();
  };
}

// Module-level on purpose: keyed weakly by the Request itself, a field of one request of one Cairn, so nothing is shared.
const readBodies = new WeakMap<Request, Uint8Array>();

/** The body of a request whose route takes the bytes the limits read (`routeTakesBytes`), or undefined. */
export function bodyRead(request: Request): Uint8Array | undefined {
  return readBodies.get(request);
}

/** Whether a request that came through Node's server has a body (RFC 9112: only with Content-Length or Transfer-Encoding). */
function declaresBody(incoming: IncomingMessage): boolean {
  const length = incoming.headers['content-length'];
  return incoming.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function matches(pattern: string, path: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('/*')) return path.startsWith(pattern.slice(0, -1));
  return path === pattern || path === `${pattern}/`;
}

function tooLargeMessage(c: Context, rule: BodyLimitRule): string {
  return `The request body is larger than ${formatBytes(rule.maxBytes)}, the most ${c.req.path} accepts: ${rule.hint}.`;
}

function formatBytes(n: number): string {
  return n >= MiB ? `${n / MiB} MiB` : `${n / KiB} KiB`;
}

/** Where in the body the NUL is, for the message: `title`, `turns.0.text`, or `body` when it does not parse. */
function nulPath(bytes: Uint8Array): string {
  try {
    return findNul(JSON.parse(new TextDecoder().decode(bytes))) || 'body';
  } catch {
    return 'body';
  }
}

function isForm(c: Context): boolean {
  return (c.req.header('content-type') ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');
}

/** The first form field (OAuth token requests, the consent form) whose name or value holds a NUL (`%00`). */
function formNulField(bytes: Uint8Array): string | undefined {
  for (const [name, value] of new URLSearchParams(new TextDecoder().decode(bytes))) {
    if (name.includes('\u0000') || value.includes('\u0000')) return name.replaceAll('\u0000', '') || 'body';
  }
  return undefined;
}
