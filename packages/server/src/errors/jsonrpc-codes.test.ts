import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { JSONRPC_CODES } from './jsonrpc-codes.js';

const SRC = fileURLToPath(new URL('../', import.meta.url));

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (/\.ts$/.test(entry.name) && !entry.name.endsWith('.test.ts')) yield path;
  }
}

test('each JSON-RPC error code is declared once, here, and nowhere else in the server spells one out', () => {
  const codes = Object.values(JSONRPC_CODES);
  assert.equal(new Set(codes).size, codes.length, 'no two errors share a code');
  const spelled = [...sources(SRC)]
    .filter((f) => !f.endsWith('jsonrpc-codes.ts'))
    .flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/-32[0-9]{3}\b/g)].map((m) => `${relative(SRC, f)}: ${m[0]}`));
  assert.deepEqual(spelled, [], 'use JSONRPC_CODES from errors/jsonrpc-codes.ts');
});
