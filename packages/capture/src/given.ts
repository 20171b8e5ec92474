import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { CapturePaths } from './paths.js';
import { ensurePrivateDir } from './private-files.js';

/** Sessions remembered at most: the most recently used are kept. */
export const MAX_SESSIONS = 50;
/** A session not seen for this long is forgotten (an agent session rarely lasts a day). */
export const SESSION_TTL_MS = 24 * 60 * 60 * 1000;
/** Rule ids remembered per session; past this the oldest go (and may be given again). */
const MAX_IDS = 500;

/** Per session (its id hashed), the rule ids already handed to the agent and when it was last seen. Ids only: never a prompt. */
type GivenFile = { sessions: Record<string, { at: number; ids: string[] }> };

/** The rules a session has been given, or an empty set for a new (or unknown) session. */
export function givenTo(paths: CapturePaths, session: string): Set<string> {
  return new Set(read(paths).sessions[key(session)]?.ids ?? []);
}

/**
 * Records that a session was given these rule ids, drops sessions past their time and beyond the
 * count, and replaces the file in one rename (0600), so a hook killed midway leaves the old file.
 */
export function recordGiven(paths: CapturePaths, session: string, ids: readonly string[], now: number): void {
  const file = read(paths);
  const k = key(session);
  const merged = [...new Set([...(file.sessions[k]?.ids ?? []), ...ids])].slice(-MAX_IDS);
  file.sessions[k] = { at: now, ids: merged };
  const kept = Object.entries(file.sessions)
    .filter(([, s]) => now - s.at < SESSION_TTL_MS)
    .sort((a, b) => b[1].at - a[1].at)
    .slice(0, MAX_SESSIONS);
  ensurePrivateDir(paths.dir);
  const temp = `${paths.given}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`;
  writeFileSync(temp, JSON.stringify({ sessions: Object.fromEntries(kept) }), { mode: 0o600 });
  renameSync(temp, paths.given);
}

function read(paths: CapturePaths): GivenFile {
  try {
    const parsed = JSON.parse(readFileSync(paths.given, 'utf8')) as GivenFile;
    if (parsed && typeof parsed.sessions === 'object' && parsed.sessions && !Array.isArray(parsed.sessions)) {
      for (const [k, s] of Object.entries(parsed.sessions))
        if (!s || typeof s.at !== 'number' || !Array.isArray(s.ids)) delete parsed.sessions[k];
      return parsed;
    }
  } catch {
    // Missing or torn: start afresh; at worst a rule is given twice.
  }
  return { sessions: {} };
}

/** A session id as stored: hashed, so the file says nothing about which sessions ran. */
function key(session: string): string {
  return createHash('sha256').update(session).digest('hex').slice(0, 32);
}
