// For backend-parity.test.ts: one-backend-suite.fixture.ts with its declaration, which the guard accepts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import type { TestCairn } from '../../src/testing/test-cairn.js';
import { startShinyCairn } from './shiny-cairn.fixture.js';

runFileOnEachBackend();

let server: TestCairn;
before(async () => {
  server = await startShinyCairn();
});
after(() => server?.close());

test('answers /healthz', async () => {
  assert.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200);
});
