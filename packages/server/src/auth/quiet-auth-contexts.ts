import type { AsyncLocalStorage } from 'node:async_hooks';
import {
  getCurrentAuthContextAsyncLocalStorage,
  getCurrentDBAdapterAsyncLocalStorage,
  getRequestStateAsyncLocalStorage,
} from '@better-auth/core/context';

/** How long no better-auth call may have run before its context storages are switched off. */
export const AUTH_CONTEXT_IDLE_MS = 5_000;

type Storage = AsyncLocalStorage<unknown>;

// Module-level on purpose: better-auth's context storages are its own module's, one per process, whatever the Cairns.
/** Calls into better-auth under way in this process, and when the last one ended. */
const calls = { running: 0, lastEnd: 0 };
const watched = new WeakSet<Storage>();

/**
 * better-auth carries its request context in AsyncLocalStorage. On Node before 24 a storage that
 * has run once turns V8's promise hooks on for good, and from then on every promise of every
 * request pays for carrying contexts along (a share of an MCP search's CPU: docs/benchmarks.md), though API-key
 * requests never enter better-auth. Once no better-auth call has run for `idleMs` (portal sign-ins
 * and OAuth come in bursts), its storages are disabled, which turns the hooks off with the last
 * one; better-auth's next call enables them again (AsyncLocalStorage.run does). A call still under
 * way keeps them on however long it takes; a background task better-auth left behind has `idleMs`
 * to finish before its context reads as empty (as outside any call, where better-auth falls back).
 */
export async function quietAuthContexts(idleMs = AUTH_CONTEXT_IDLE_MS): Promise<{ stop(): void }> {
  const storages = (await Promise.all([
    getCurrentAuthContextAsyncLocalStorage(),
    getCurrentDBAdapterAsyncLocalStorage(),
    getRequestStateAsyncLocalStorage(),
  ])) as Storage[];
  for (const storage of storages) countCalls(storage);
  const timer = setInterval(() => {
    if (calls.running === 0 && performance.now() - calls.lastEnd >= idleMs)
      for (const storage of storages) storage.disable();
  }, idleMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** Wraps the storage's run so the calls under way are known (once per storage: they are process-wide). */
function countCalls(storage: Storage): void {
  if (watched.has(storage)) return;
  watched.add(storage);
  const run = storage.run;
  const end = () => {
    calls.running--;
    calls.lastEnd = performance.now();
  };
  storage.run = function (
    this: Storage,
    store: unknown,
    callback: (...args: unknown[]) => unknown,
    ...args: unknown[]
  ) {
    calls.running++;
    let result: unknown;
    try {
      result = run.call(this, store, callback, ...args);
    } catch (error) {
      end();
      throw error;
    }
    if (result instanceof Promise) result.then(end, end);
    else end();
    return result;
  } as Storage['run'];
}
