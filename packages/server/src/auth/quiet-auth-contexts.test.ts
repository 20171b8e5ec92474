import assert from 'node:assert/strict';
import type { AsyncLocalStorage } from 'node:async_hooks';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  getCurrentAuthContextAsyncLocalStorage,
  getCurrentDBAdapterAsyncLocalStorage,
  getRequestStateAsyncLocalStorage,
} from '@better-auth/core/context';
import { runFileOnEachBackend } from '../testing/backends.js';
import { signIn } from '../testing/oauth-flow.js';
import { createTenant, type TestTenant } from '../testing/tenants.js';
import { startTestCairn, type TestCairn } from '../testing/test-cairn.js';
import { quietAuthContexts } from './quiet-auth-contexts.js';

runFileOnEachBackend();

const IDLE_MS = 60;

// Node before 24 keeps its promise hooks on while any AsyncLocalStorage is enabled; `enabled` is
// that runtime's own flag (Node 24's storages have none: there are no hooks to turn off).
const enabled = (storage: AsyncLocalStorage<unknown>) => (storage as unknown as { enabled?: boolean }).enabled;
const hasFlag = enabled(new (await import('node:async_hooks')).AsyncLocalStorage()) !== undefined;

describe('better-auth’s context storages are switched off while it is idle, and never under a call', () => {
  let server: TestCairn;
  let tenant: TestTenant;
  let storages: AsyncLocalStorage<unknown>[];
  let quiet: { stop(): void };

  before(async () => {
    server = await startTestCairn();
    tenant = await createTenant(server.cairn);
    quiet = await quietAuthContexts(IDLE_MS);
    storages = (await Promise.all([
      getCurrentAuthContextAsyncLocalStorage(),
      getCurrentDBAdapterAsyncLocalStorage(),
      getRequestStateAsyncLocalStorage(),
    ])) as AsyncLocalStorage<unknown>[];
  });
  after(async () => {
    quiet?.stop();
    await server?.close();
  });

  test('a sign-in switches them on; idle, they go off; the next sign-in works and switches them on again', {
    skip: hasFlag ? undefined : 'this Node carries contexts without promise hooks',
  }, async () => {
    await signIn(server.baseUrl, tenant.owner.email);
    assert.ok(
      storages.some((s) => enabled(s)),
      'better-auth ran in its context storages',
    );
    await sleep(IDLE_MS * 4);
    assert.deepEqual(storages.map(enabled), [false, false, false]);
    const cookie = await signIn(server.baseUrl, tenant.owner.email);
    const me = await fetch(`${server.baseUrl}/api/v1/me`, { headers: { cookie } });
    assert.equal(
      (await me.json()).user.email,
      tenant.owner.email,
      'the session better-auth made while its storages were off works',
    );
    assert.ok(storages.some((s) => enabled(s)));
  });

  test('a call under way keeps its context however many idle checks pass', async () => {
    const [storage] = storages;
    const store = { marker: 'call under way' };
    const seen = await storage!.run(store, async () => {
      await sleep(IDLE_MS * 5);
      return storage!.getStore();
    });
    assert.equal(seen, store);
  });
});
