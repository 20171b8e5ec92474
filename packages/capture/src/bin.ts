// Run by hooks as `node cairn-capture.js <client-id> <prompt|stop>`. Whatever happens it prints
// nothing, exits 0 and is gone within 2 seconds of starting: the agent must never wait for Cairn.
import { performance } from 'node:perf_hooks';
import { runCapture } from './capture.js';
import { CLIENT_IDS, type ClientId, readsStdin } from './hook-input.js';
import { logReason } from './log.js';
import { capturePaths } from './paths.js';
import { readStdin } from './read-stdin.js';

/** Requests are aborted this long after the process started… */
const NETWORK_DEADLINE_MS = 1_400;
/** …and the process ends here even if something still hangs. */
const HARD_EXIT_MS = 1_800;
/** Clients write the hook input at once and close the pipe; one that leaves it open must not eat the network's time. */
const STDIN_DEADLINE_MS = 800;
const MAX_STDIN_BYTES = 16 * 1024 * 1024;

const [client, event] = process.argv.slice(2);
const paths = capturePaths();
const exit = () => process.exit(0);
const crash = (error: unknown) => {
  logReason(paths, `${client ?? '?'} ${event ?? '?'}`, `internal error: ${(error as Error)?.name ?? 'unknown'} ${(error as { code?: string })?.code ?? ''}`);
  exit();
};
setTimeout(exit, msLeftUntil(HARD_EXIT_MS)).unref();
process.on('uncaughtException', crash);
process.on('unhandledRejection', crash);

const signal = AbortSignal.timeout(msLeftUntil(NETWORK_DEADLINE_MS));
const stdin = (CLIENT_IDS as readonly string[]).includes(client ?? '') && readsStdin(client as ClientId) ? await readStdin(MAX_STDIN_BYTES, AbortSignal.timeout(msLeftUntil(STDIN_DEADLINE_MS))) : '';
await runCapture({ client, event, stdin, env: process.env, cwd: process.cwd(), paths, now: new Date(), signal });
exit();

/** Whole milliseconds from now until the given time since process start (timers reject fractions). */
function msLeftUntil(msSinceStart: number): number {
  return Math.max(1, Math.ceil(msSinceStart - performance.now()));
}
