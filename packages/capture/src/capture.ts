import { CAPTURE_LIMITS } from '@cairn/contract';
import { type CaptureConfig, loadCaptureConfig } from './config.js';
import { CLIENT_IDS, EVENTS, readHookInput } from './hook-input.js';
import { logReason } from './log.js';
import type { CapturePaths } from './paths.js';
import { postTurns } from './send.js';
import { appendToSpool, claimSpool, settleClaim } from './spool.js';
import { buildTurn, type CaptureTurn } from './turn.js';

/** Most turns the endpoint takes in one request. */
const MAX_TURNS_PER_REQUEST = CAPTURE_LIMITS.maxTurnsPerRequest;
/** Keeps a spool batch under the endpoint's body limit with room for the wrapper; one turn alone always goes in a batch of its own. */
const MAX_BATCH_BYTES = CAPTURE_LIMITS.maxBodyBytes - 48 * 1024;

/** Everything one hook invocation needs, passed in so tests can run it in-process. */
export interface CaptureRun {
  client: string | undefined;
  event: string | undefined;
  stdin: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  paths: CapturePaths;
  now: Date;
  /** Aborts every request when the hook's time is up. */
  signal: AbortSignal;
  /** Called once this hook's own turn is sent, spooled or found absent (before the spool is sent). */
  sent?: () => void;
  /**
   * This hook's turn while its request is out: the hard exit spools what is still here
   * (keepUnsent), so a loaded machine that reaches it before the request settles loses nothing.
   */
  inFlight?: Set<CaptureTurn>;
}

/**
 * Spools the turns whose request had not settled when the hook's time ran out; synchronous, for the
 * exit handler. A turn Cairn took but did not answer in time is sent again later and counted as a
 * duplicate there (turns are keyed by their id).
 */
export function keepUnsent(run: Pick<CaptureRun, 'paths' | 'inFlight' | 'client' | 'event'>): void {
  const turns = [...(run.inFlight ?? [])];
  if (turns.length === 0) return;
  run.inFlight?.clear();
  appendToSpool(run.paths, turns);
  logReason(
    run.paths,
    `${run.client ?? '?'} ${run.event ?? '?'}`,
    `spooled ${turns.length} turn: the hook's time ran out`,
  );
}

/** Captures one hook's text: send it, spool it when Cairn cannot take it now, and send the spool after a success. Never throws. */
export async function runCapture(run: CaptureRun): Promise<void> {
  const context = `${run.client ?? '?'} ${run.event ?? '?'}`;
  try {
    await captureTurn(run, context);
  } finally {
    run.sent?.();
  }
}

async function captureTurn(run: CaptureRun, context: string): Promise<void> {
  try {
    if (!isOneOf(CLIENT_IDS, run.client) || !isOneOf(EVENTS, run.event)) {
      logReason(run.paths, context, `usage: cairn-capture <${CLIENT_IDS.join('|')}> <${EVENTS.join('|')}>`);
      return;
    }
    // A file edit is only a moment for guidance: nothing is captured, and the spool waits for the next prompt.
    if (run.event === 'edit') return;
    const reading = readHookInput(run.client, run.event, run.stdin, run.env, run.cwd);
    if (!reading.ok && reading.reason) logReason(run.paths, context, reading.reason);
    const loaded = loadCaptureConfig(run.env, run.paths);
    if (!loaded.ok) {
      // Only worth a line when there was something to capture.
      if (reading.ok) logReason(run.paths, context, loaded.reason);
      return;
    }
    if (reading.ok) {
      const turn = buildTurn(run.client, run.event, reading.value, run.now);
      if (!(await sendCurrent(loaded.config, turn, run, context))) return;
    }
    run.sent?.();
    await drainSpool(loaded.config, run, context);
  } catch (error) {
    logReason(run.paths, context, `internal error: ${(error as Error)?.name ?? 'unknown'}`);
  }
}

/** Sends this hook's turn; true when Cairn took it, so the spool is worth sending too. */
async function sendCurrent(
  config: CaptureConfig,
  turn: CaptureTurn,
  run: CaptureRun,
  context: string,
): Promise<boolean> {
  run.inFlight?.add(turn);
  const outcome = await postTurns(config, [turn], run.signal);
  // The exit handler may have spooled it meanwhile: then it is kept, and nothing more is done here.
  if (run.inFlight && !run.inFlight.delete(turn)) return false;
  if (outcome.kind === 'acknowledged') return true;
  if (outcome.kind === 'retry') {
    appendToSpool(run.paths, [turn]);
    logReason(run.paths, context, `spooled 1 turn: ${outcome.reason}`);
  } else {
    logReason(run.paths, context, `dropped 1 turn: ${outcome.reason}`);
  }
  return false;
}

/** Sends the spool oldest first, and puts back whatever the server did not acknowledge. */
async function drainSpool(config: CaptureConfig, run: CaptureRun, context: string): Promise<void> {
  const claim = claimSpool(run.paths, run.now.getTime());
  if (!claim) return;
  const acknowledged = new Set<string>();
  try {
    const queue = batches(claim.turns);
    while (queue.length > 0 && !run.signal.aborted) {
      const batch = queue.shift()!;
      const outcome = await postTurns(config, batch, run.signal);
      if (outcome.kind === 'acknowledged') {
        for (const t of batch) acknowledged.add(t.id);
      } else if (outcome.kind === 'retry' || outcome.status === 401 || outcome.status === 403) {
        // Cairn is away or the key is wrong now: the spool waits for a better moment.
        logReason(run.paths, context, `spool kept: ${outcome.reason}`);
        break;
      } else if (batch.length > 1) {
        // One bad turn must not sink the others: halve until it stands alone.
        const half = Math.ceil(batch.length / 2);
        queue.unshift(batch.slice(0, half), batch.slice(half));
      } else {
        acknowledged.add(batch[0]!.id);
        logReason(run.paths, context, `dropped 1 spooled turn: ${outcome.reason}`);
      }
    }
  } finally {
    settleClaim(run.paths, claim, acknowledged);
  }
}

function batches(turns: CaptureTurn[]): CaptureTurn[][] {
  const out: CaptureTurn[][] = [];
  let current: CaptureTurn[] = [];
  let bytes = 0;
  for (const turn of turns) {
    const size = Buffer.byteLength(JSON.stringify(turn));
    if (current.length > 0 && (current.length >= MAX_TURNS_PER_REQUEST || bytes + size > MAX_BATCH_BYTES)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(turn);
    bytes += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}

function isOneOf<T extends string>(values: readonly T[], value: string | undefined): value is T {
  return (values as readonly string[]).includes(value ?? '');
}
