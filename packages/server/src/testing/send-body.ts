import { Agent, request } from 'node:http';

/** How to send a large body: declared up front (Content-Length) or streamed with no length (chunked). */
export type BodyFraming = 'content-length' | 'chunked';

/** What the server answered. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * POSTs `size` bytes of JSON-looking body to `url` the way an attacker would: streamed in 64 KiB
 * pieces with back-pressure, until the whole body is sent or the server answers. fetch cannot be
 * used: a server that answers 413 and closes before the upload ends is a network error to fetch.
 */
export function sendBody(
  url: string,
  size: number,
  framing: BodyFraming,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const prefix = Buffer.from('{"email":"eve@evil.example","password":"x","client_name":"');
    const suffix = Buffer.from('"}');
    const padding = Math.max(size - prefix.length - suffix.length, 0);
    // A connection of its own (one the server closed after a 413 must not be reused), but keep-alive:
    // with "Connection: close" the server may close before this side has read the 413.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const req = request(url, {
      method: 'POST',
      agent,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(framing === 'content-length'
          ? { 'content-length': String(prefix.length + padding + suffix.length) }
          : { 'transfer-encoding': 'chunked' }),
        ...headers,
      },
    });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
        req.destroy();
        agent.destroy();
      });
      res.on('error', () => undefined);
    });
    req.on('error', (error) => {
      // The server may close the connection once it has answered; only a failure before any answer counts.
      if (!answered) reject(error);
      agent.destroy();
    });
    const piece = Buffer.alloc(64 * 1024, 'a');
    let left = padding;
    const pump = () => {
      while (!answered && left > 0) {
        const n = Math.min(left, piece.length);
        left -= n;
        if (!req.write(n === piece.length ? piece : piece.subarray(0, n))) return void req.once('drain', pump);
      }
      if (!answered) req.end(suffix);
    };
    req.write(prefix);
    pump();
  });
}

/** POSTs `text` with no Content-Length, in pieces of `pieceSize` bytes (Transfer-Encoding: chunked). */
export function postChunked(
  url: string,
  text: string,
  headers: Record<string, string> = {},
  pieceSize = 1000,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    const bytes = Buffer.from(text);
    for (let i = 0; i < bytes.length; i += pieceSize) req.write(bytes.subarray(i, i + pieceSize));
    req.end();
  });
}
