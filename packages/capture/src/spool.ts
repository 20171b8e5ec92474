import { readdirSync, readFileSync, renameSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { CapturePaths } from './paths.js';
import { appendPrivate, ensurePrivateDir } from './private-files.js';
import type { CaptureTurn } from './turn.js';

/** A claim older than this belongs to a run that died (runs last under 2 s); a later run takes it over. */
const STALE_CLAIM_MS = 30_000;

/** Spool files this run took over exclusively, and the turns they held (oldest first, each id once). */
export interface SpoolClaim {
  files: string[];
  turns: CaptureTurn[];
}

/** Appends turns (already redacted) to the spool, one JSON line each, in a single write. */
export function appendToSpool(paths: CapturePaths, turns: CaptureTurn[]): void {
  if (turns.length === 0) return;
  ensurePrivateDir(paths.dir);
  appendPrivate(paths.spool, turns.map((t) => `${JSON.stringify(t)}\n`).join(''));
}

/**
 * Takes the spool by renaming it to a name only this run knows, so two hooks running at once never
 * both send it; abandoned claims of dead runs are taken over the same way. Null when there is nothing.
 */
export function claimSpool(paths: CapturePaths, now = Date.now()): SpoolClaim | null {
  const files: string[] = [];
  const prefix = `${basename(paths.spool)}.`;
  let names: string[];
  try {
    names = readdirSync(paths.dir);
  } catch {
    return null;
  }
  const stale = names
    .filter(
      (n) =>
        n.startsWith(prefix) &&
        n.endsWith('.processing') &&
        now - Number(n.slice(prefix.length).split('.')[0]) > STALE_CLAIM_MS,
    )
    .sort();
  for (const source of [...stale.map((n) => join(paths.dir, n)), paths.spool]) {
    const claimed = join(
      dirname(paths.spool),
      `${prefix}${now}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.processing`,
    );
    try {
      renameSync(source, claimed);
      files.push(claimed);
    } catch {
      // Another run got there first, or there is no spool.
    }
  }
  if (files.length === 0) return null;
  const seen = new Set<string>();
  const turns = files.flatMap(readTurns).filter((t) => !seen.has(t.id) && seen.add(t.id));
  return { files, turns };
}

/** Puts back every claimed turn the server did not acknowledge (including lines a racing writer added late), then drops the claim. */
export function settleClaim(paths: CapturePaths, claim: SpoolClaim, acknowledged: ReadonlySet<string>): void {
  const seen = new Set<string>();
  const keep = claim.files
    .flatMap(readTurns)
    .filter((t) => !acknowledged.has(t.id) && !seen.has(t.id) && seen.add(t.id));
  appendToSpool(paths, keep);
  for (const file of claim.files) unlinkSync(file);
}

function readTurns(file: string): CaptureTurn[] {
  const turns: CaptureTurn[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const t = JSON.parse(line) as CaptureTurn;
      if (typeof t?.id === 'string' && typeof t.text === 'string') turns.push(t);
    } catch {
      // A torn line from a writer killed mid-write: it cannot be sent as it is.
    }
  }
  return turns;
}
