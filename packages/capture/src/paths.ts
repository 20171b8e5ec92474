import { homedir } from 'node:os';
import { join } from 'node:path';

/** The files capture keeps under `~/.cairn/`. */
export interface CapturePaths {
  dir: string;
  config: string;
  spool: string;
  log: string;
  /** Which rules each agent session has been given already (ids only). */
  given: string;
}

/** Paths of the capture files under the given home directory. */
export function capturePaths(home: string = homedir()): CapturePaths {
  const dir = join(home, '.cairn');
  return {
    dir,
    config: join(dir, 'capture.json'),
    spool: join(dir, 'capture-spool.jsonl'),
    log: join(dir, 'capture.log'),
    given: join(dir, 'guidance-given.json'),
  };
}
