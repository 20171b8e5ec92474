import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for an OpenAI-compatible embeddings API (the one boundary the tests cannot reach for
 * real: no model runs here). Its vectors put words of one concept on one axis, so texts that share
 * no word can still be close: what only a provider's model could know ("zork" and "frobozz" are
 * one thing; GloVe knows neither word).
 */
const CONCEPTS: Record<string, number> = { zork: 0, frobozz: 0, grue: 1, lantern: 1, brass: 1 };
const DIMS = 8;

export interface FakeEmbeddings {
  /** Base URL to give as CAIRN_EMBEDDINGS_URL. */
  url: string;
  /** `down` answers 503; `garbage` answers vectors that hold a string. */
  mode: 'ok' | 'down' | 'garbage';
  requests: { model: string; inputs: string[]; authorization: string | undefined }[];
  close(): Promise<void>;
}

export function conceptVector(text: string): number[] {
  const v = new Array<number>(DIMS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const axis = CONCEPTS[word];
    if (axis !== undefined) v[axis]! += 1;
    else v[2 + ([...word].reduce((h, c) => h * 31 + c.charCodeAt(0), 7) % (DIMS - 2))]! += 0.2;
  }
  return v;
}

export async function startFakeEmbeddings(): Promise<FakeEmbeddings> {
  const fake: FakeEmbeddings = { url: '', mode: 'ok', requests: [], close: async () => {} };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') return void res.writeHead(404).end();
      const { model, input } = JSON.parse(body) as { model: string; input: string[] };
      fake.requests.push({ model, inputs: input, authorization: req.headers.authorization });
      if (fake.mode === 'down')
        return void res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"model loading"}');
      const data = input.map((text, index) => ({
        object: 'embedding',
        index,
        embedding: fake.mode === 'garbage' ? [1, 'x'] : conceptVector(text),
      }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', model, data }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = () => new Promise((resolve) => server.close(() => resolve()));
  return fake;
}
