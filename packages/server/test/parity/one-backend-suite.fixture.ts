// For backend-parity.test.ts: a made-up suite that starts a Cairn through a new helper and declares no
// backend, so the runner would run it on SQLite only. The guard must name it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TestCairn } from '../../src/testing/test-cairn.js';
import { startShinyCairn } from './shiny-cairn.fixture.js';

let server: TestCairn;
before(async () => {
  server = await startShinyCairn();
});
after(() => server?.close());

test('answers /healthz', async () => {
  assert.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200);
});
