import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { CAPTURE_LIMITS } from '@cairn/contract';
import { redact } from '@cairn/contract/redaction';
import type { CaptureEvent, ClientId, HookText } from './hook-input.js';

/** Longest text the capture endpoint accepts per turn. */
export const MAX_TURN_TEXT = CAPTURE_LIMITS.maxTurnChars;

/** One turn as the capture endpoint takes it (and as the spool keeps it). */
export interface CaptureTurn {
  id: string;
  role: 'user' | 'assistant';
  text: string;
  client: ClientId;
  sessionId?: string;
  project?: string;
  at: string;
}

/** Redacts, bounds and identifies one turn. The id is computed once here and travels with the turn, so any resend is a duplicate. */
export function buildTurn(client: ClientId, event: CaptureEvent, input: HookText, at: Date): CaptureTurn {
  // Redact before truncating: a cut through a secret could leave a fragment no pattern recognizes.
  const text = redact(input.text).text.slice(0, MAX_TURN_TEXT);
  const iso = at.toISOString();
  // Without a session (Kiro IDE) the same words would collide across sessions forever; the time separates them.
  const scope = input.turnId ?? (input.sessionId ? '' : iso);
  const id = createHash('sha256')
    .update(JSON.stringify([client, input.sessionId ?? '', scope, event, text]))
    .digest('hex');
  const project = input.cwd ? basename(input.cwd) : undefined;
  return {
    id,
    role: input.role,
    text,
    client,
    ...(input.sessionId && { sessionId: input.sessionId }),
    ...(project && { project }),
    at: iso,
  };
}
