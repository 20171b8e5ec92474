import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Options for {@link startHeaderProxy}. */
export interface HeaderProxyOptions {
  /** Origin to forward to, e.g. `http://127.0.0.1:1234`. */
  target: string;
  /** Headers set (overriding any client value) on every forwarded request. */
  headers: Record<string, string>;
}

/** A running header-injecting proxy. */
export interface HeaderProxy {
  /** Origin of the proxy, e.g. `http://127.0.0.1:5678`. */
  url: string;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

function forwardable(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}

/** Starts a 127.0.0.1 proxy on a random port that adds `headers` to each request and streams responses (SSE included) back unbuffered. */
export async function startHeaderProxy(options: HeaderProxyOptions): Promise<HeaderProxy> {
  const target = new URL(options.target);
  const injected = Object.fromEntries(
    Object.entries(options.headers).map(([name, value]) => [name.toLowerCase(), value]),
  );

  const server = http.createServer((req, res) => {
    // Host and Origin pass through untouched so Host/Origin validation (DNS-rebinding checks) still sees the client's values.
    const upstream = http.request({
      protocol: target.protocol,
      hostname: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: { ...forwardable(req.headers), ...injected },
    });
    upstream.on('response', (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.statusMessage, forwardable(upRes.headers));
      // Without this an SSE stream's headers wait for its first event.
      res.flushHeaders();
      upRes.pipe(res);
      upRes.on('error', () => res.destroy());
    });
    upstream.on('error', (error) => {
      if (res.headersSent) res.destroy();
      else res.writeHead(502, { 'content-type': 'text/plain' }).end(`header-proxy: ${error.message}`);
    });
    // A client hanging up (e.g. closing an SSE stream) must tear down the upstream exchange too.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
