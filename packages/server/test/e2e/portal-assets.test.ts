// The portal's files as a browser gets them: compressed when it accepts it, never a source map.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { PORTAL_DIST } from '../../src/http/portal-route.js';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

let server: TestCairn;
before(async () => {
  server = await startTestCairn();
});
after(() => server?.close());

const script = readdirSync(join(PORTAL_DIST, 'assets')).find((n) => n.endsWith('.js'));

describe('portal assets', () => {
  test('the built portal has its script and no source map', () => {
    assert.ok(script, `npm run build -w @cairn/portal should have written a script to ${PORTAL_DIST}assets`);
    assert.equal(readdirSync(join(PORTAL_DIST, 'assets')).filter((n) => n.endsWith('.map')).length, 0);
  });

  test('brotli, gzip or plain, as the browser accepts; the body is the same script', async () => {
    const original = readFileSync(join(PORTAL_DIST, 'assets', script!));
    // node:http, not fetch: fetch would undo the encoding before the test could see it.
    const get = (acceptEncoding: string) =>
      new Promise<{ headers: { get(name: string): string | null }; body: Buffer }>((resolve, reject) => {
        httpGet(`${server.baseUrl}/assets/${script}`, { headers: { 'accept-encoding': acceptEncoding } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({
              headers: { get: (name) => (res.headers[name] as string | undefined) ?? null },
              body: Buffer.concat(chunks),
            }),
          );
        }).on('error', reject);
      });

    const br = await get('gzip, deflate, br, zstd');
    assert.equal(br.headers.get('content-encoding'), 'br');
    assert.equal(br.headers.get('vary'), 'Accept-Encoding');
    const brBody = br.body;
    assert.ok(brBody.length < original.length / 3, `brotli body ${brBody.length} bytes vs ${original.length}`);
    assert.ok(brotliDecompressSync(brBody).equals(original));

    const gz = await get('gzip');
    assert.equal(gz.headers.get('content-encoding'), 'gzip');
    assert.ok(gunzipSync(gz.body).equals(original));

    for (const refusal of ['identity', 'br;q=0, gzip;q=0', '']) {
      const plain = await get(refusal);
      assert.equal(plain.headers.get('content-encoding'), null, refusal);
      assert.ok(plain.body.equals(original));
    }
    assert.equal((await get('br')).headers.get('content-type'), 'text/javascript; charset=utf-8');
  });

  test('a source map or any missing asset is a 404, not the portal page', async () => {
    for (const path of [`/assets/${script}.map`, '/assets/index-old.js']) {
      const res = await fetch(`${server.baseUrl}${path}`);
      assert.equal(res.status, 404, path);
      assert.doesNotMatch(await res.text(), /<html|<!doctype/i);
    }
  });

  test('no path reaches a file outside the portal build, however it is spelled', async () => {
    const secret = readFileSync(join(PORTAL_DIST, '..', 'package.json'), 'utf8');
    for (const path of [
      '/../package.json',
      '/%2e%2e/package.json',
      '/..%2fpackage.json',
      '/assets/..%2f..%2fpackage.json',
      '/%2e%2e%2f%2e%2e%2fserver%2fpackage.json',
      '/.%2e/package.json',
      '/assets%5c..%5c..%5cpackage.json',
    ]) {
      // node:http sends the path as written (fetch would normalise the dots away first).
      const body = await new Promise<string>((resolve, reject) => {
        httpGet({ host: '127.0.0.1', port: new URL(server.baseUrl).port, path }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
          res.on('end', () => resolve(text));
        }).on('error', reject);
      });
      assert.ok(!body.includes('"name": "@cairn/portal"') && body !== secret, `${path} served a file outside dist`);
    }
  });
});
