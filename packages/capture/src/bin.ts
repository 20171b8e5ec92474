// Run by hooks as `node cairn-capture.js <client-id> <prompt|stop|edit>`. Whatever happens it exits 0
// and is gone within 2 seconds of starting: the agent must never wait for Cairn. On a prompt or a file
// edit it prints the guidance Cairn gives (when it answers in time), and nothing else, ever.
import { performance } from 'node:perf_hooks';
import { keepUnsent, runCapture } from './capture.js';
import { deliversGuidance, runGuidance } from './guidance.js';
import { CLIENT_IDS, type ClientId, readsStdin } from './hook-input.js';
import { logReason } from './log.js';
import { capturePaths } from './paths.js';
import { readStdin } from './read-stdin.js';
import type { CaptureTurn } from './turn.js';

/** Requests are aborted this long after the process started, and guidance that has not arrived by then is not printed… */
const NETWORK_DEADLINE_MS = 1_400;
/** …and the process ends here even if something still hangs. */
const HARD_EXIT_MS = 1_800;
/** Clients write the hook input at once and close the pipe; one that leaves it open must not eat the network's time. */
const STDIN_DEADLINE_MS = 800;
const MAX_STDIN_BYTES = 16 * 1024 * 1024;

const [client, event] = process.argv.slice(2);
const paths = capturePaths();
const inFlight = new Set<CaptureTurn>();
const exit = () => {
  try {
    keepUnsent({ paths, inFlight, client, event });
  } finally {
    process.exit(0);
  }
};
const crash = (error: unknown) => {
  logReason(
    paths,
    `${client ?? '?'} ${event ?? '?'}`,
    `internal error: ${(error as Error)?.name ?? 'unknown'} ${(error as { code?: string })?.code ?? ''}`,
  );
  exit();
};
setTimeout(exit, msLeftUntil(HARD_EXIT_MS)).unref();
process.on('uncaughtException', crash);
process.on('unhandledRejection', crash);

const signal = AbortSignal.timeout(msLeftUntil(NETWORK_DEADLINE_MS));
const stdin =
  (CLIENT_IDS as readonly string[]).includes(client ?? '') && readsStdin(client as ClientId)
    ? await readStdin(MAX_STDIN_BYTES, AbortSignal.timeout(msLeftUntil(STDIN_DEADLINE_MS)))
    : '';
const run = { client, event, stdin, env: process.env, cwd: process.cwd(), paths, now: new Date(), signal };
// In one process, so the agent pays for one Node start, not two. Capture sends as it always has;
// guidance asks Cairn once this turn is sent (while the spool drains), never competing with it.
let sent: () => void = () => {};
const captured = new Promise<void>((resolve) => {
  sent = resolve;
});
await Promise.all([
  runCapture({ ...run, sent, inFlight }),
  deliversGuidance(client, event) ? runGuidance({ ...run, captured }).then(print) : undefined,
]);
exit();

function print(text: string | null): Promise<void> | undefined {
  if (!text || signal.aborted) return;
  return new Promise((resolve) => process.stdout.write(text, () => resolve()));
}

/** Whole milliseconds from now until the given time since process start (timers reject fractions). */
function msLeftUntil(msSinceStart: number): number {
  return Math.max(1, Math.ceil(msSinceStart - performance.now()));
}
