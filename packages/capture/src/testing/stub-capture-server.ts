import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CAPTURE_LIMITS } from '@cairn/contract';
import type { CaptureTurn } from '../turn.js';

/** How the stub answers: the contract's normal path, or one of its failures. */
/** `refuse-bad`: refuses any batch holding a turn with the id "bad", as a validator would. */
export type StubMode = 'ok' | 'slow' | 'down-500' | 'rate-limited' | 'bad-request' | 'unauthorized' | 'refuse-bad';

/** One request the stub received, kept raw so tests can look for leaks in the exact bytes sent. */
export interface StubRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local HTTP server answering as the capture endpoint does, for unit tests that need failures on demand and to record the exact bytes a hook sends. */
export interface StubCaptureServer {
  url: string;
  mode: StubMode;
  apiKey: string;
  requests: StubRequest[];
  /** Stored turns by id: what Cairn would hold. */
  stored: Map<string, CaptureTurn>;
  /** How many times each id arrived, duplicates included. */
  arrivals: Map<string, number>;
  close(): Promise<void>;
}

/** Starts the stub on a free loopback port. */
export async function startStubCaptureServer(apiKey = 'cairn_tkn_stubkey0123456789'): Promise<StubCaptureServer> {
  const stub: StubCaptureServer = {
    url: '',
    mode: 'ok',
    apiKey,
    requests: [],
    stored: new Map(),
    arrivals: new Map(),
    close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      stub.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const send = (status: number, json: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(json));
      };
      if (stub.mode === 'slow') return void setTimeout(() => send(200, { stored: 0, duplicates: 0 }), 10_000).unref();
      if (stub.mode === 'down-500') return send(503, { error: { code: 'unavailable', message: 'down' } });
      if (stub.mode === 'rate-limited')
        return send(429, { error: { code: 'rate_limited', message: 'slow down' } }, { 'Retry-After': '30' });
      if (req.method !== 'POST' || req.url !== '/api/v1/capture')
        return send(404, { error: { code: 'not_found', message: 'no route' } });
      if (stub.mode === 'unauthorized' || req.headers.authorization !== `Bearer ${stub.apiKey}`) {
        return send(401, { error: { code: 'unauthenticated', message: 'bad key' } });
      }
      if (stub.mode === 'bad-request') return send(400, { error: { code: 'invalid_input', message: 'bad turn' } });
      // The real endpoint's limits and error codes (packages/server: body-limits.ts, capture-turns.ts).
      if (Buffer.byteLength(body) > CAPTURE_LIMITS.maxBodyBytes)
        return send(413, { error: { code: 'payload_too_large', message: 'body too large' } });
      const turns = (JSON.parse(body) as { turns: CaptureTurn[] }).turns;
      if (
        !Array.isArray(turns) ||
        turns.length === 0 ||
        turns.length > CAPTURE_LIMITS.maxTurnsPerRequest ||
        turns.some((t) => t.text.length > CAPTURE_LIMITS.maxTurnChars)
      ) {
        return send(400, { error: { code: 'invalid_input', message: 'turns out of limits' } });
      }
      if (stub.mode === 'refuse-bad' && turns.some((t) => t.id === 'bad'))
        return send(400, { error: { code: 'invalid_input', message: 'bad turn' } });
      let stored = 0;
      for (const t of turns) {
        stub.arrivals.set(t.id, (stub.arrivals.get(t.id) ?? 0) + 1);
        if (!stub.stored.has(t.id)) {
          stub.stored.set(t.id, t);
          stored++;
        }
      }
      send(200, { stored, duplicates: turns.length - stored });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stub.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return stub;
}

/** A loopback URL where nothing listens (a port just released), for "Cairn is unreachable". */
export async function unreachableUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}
