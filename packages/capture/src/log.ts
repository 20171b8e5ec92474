import { renameSync, statSync } from 'node:fs';
import type { CapturePaths } from './paths.js';
import { appendPrivate, ensurePrivateDir } from './private-files.js';

const MAX_LOG_BYTES = 256 * 1024;

/** Records why capture did not do its normal thing. Reasons only: never prompt text, responses or keys. Never throws. */
export function logReason(paths: CapturePaths, context: string, reason: string): void {
  try {
    ensurePrivateDir(paths.dir);
    if (sizeOf(paths.log) > MAX_LOG_BYTES) renameSync(paths.log, `${paths.log}.1`);
    appendPrivate(paths.log, `${new Date().toISOString()} ${context} ${reason.replace(/\s+/g, ' ')}\n`);
  } catch {
    // Nowhere left to report to, and the agent must not notice.
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
