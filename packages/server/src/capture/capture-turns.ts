import { createHash } from 'node:crypto';
import { CAPTURE_LIMITS } from '@cairn/contract';
import { mergeFindings, type RedactionFinding, redact } from '@cairn/contract/redaction';
import { z } from 'zod';
import type { Caller } from '../domain/caller.js';
import { ensurePersonalDatapack } from '../domain/datapacks.js';
import type { DomainDeps } from '../domain/deps.js';
import { assertMayWrite } from '../domain/key-scope.js';
import { parse } from '../domain/parse-input.js';
import type { Entry } from '../store/types.js';

/** Captured turns land here, a personal datapack of their own. */
export const CONVERSATIONS_DATAPACK = 'Conversations';

/** Body of POST /api/v1/capture. */
export const captureInput = z.object({
  turns: z
    .array(
      z.object({
        id: z.string().min(1).max(128).describe('Idempotency key, stable per turn'),
        role: z.enum(['user', 'assistant']),
        // A NUL cannot be stored (PostgreSQL text); the turn is kept with U+FFFD in its place rather than lost.
        text: z
          .string()
          .min(1)
          .max(CAPTURE_LIMITS.maxTurnChars)
          .transform((t) => t.replaceAll('\u0000', '\uFFFD')),
        client: z.string().regex(/^[a-z0-9-]{1,40}$/),
        sessionId: z.string().max(200).optional(),
        project: z.string().max(200).optional(),
        at: z.iso.datetime({ offset: true }),
      }),
    )
    .min(1)
    .max(CAPTURE_LIMITS.maxTurnsPerRequest),
});

/**
 * Stores each new turn (redacted again: the client may be old or modified); a turn id seen before
 * is a duplicate. `redacted` says which secrets the server still found, by rule.
 */
export async function captureTurns(deps: DomainDeps, caller: Caller, raw: unknown): Promise<{ stored: number; duplicates: number; redacted: RedactionFinding[] }> {
  assertMayWrite(caller);
  const { turns } = parse(captureInput, raw);
  const datapackId = await conversationsDatapack(deps, caller.userId);
  let stored = 0;
  const found: RedactionFinding[] = [];
  for (const turn of turns) {
    const { text, findings } = redact(turn.text);
    found.push(...findings);
    const now = deps.now();
    const title = `${turn.role === 'user' ? 'Prompt' : 'Response'}${turn.project ? ` · ${turn.project}` : ''} · ${snippet(text)}`;
    const tags = ['captured', turn.client, ...(turn.sessionId ? [`session:${turn.sessionId}`] : []), ...(turn.project ? [`project:${turn.project}`] : [])].map((t) => t.toLowerCase());
    const entry: Entry = {
      id: deps.newId('ent'),
      datapackId,
      kind: 'conversation',
      title,
      content: text,
      tags,
      contentHash: createHash('sha256').update(text).digest('hex'),
      version: 1,
      createdBy: caller.userId,
      createdClient: turn.client,
      createdAt: turn.at,
      updatedBy: caller.userId,
      updatedClient: turn.client,
      updatedAt: now,
      deletedAt: null,
    };
    if (await deps.store.insertCapturedTurn(entry, caller.userId, turn.id)) stored++;
  }
  return { stored, duplicates: turns.length - stored, redacted: mergeFindings(found) };
}

async function conversationsDatapack(deps: DomainDeps, userId: string): Promise<string> {
  const find = async () => (await deps.store.findDatapacks([{ scope: 'personal', ownerId: userId }])).find((d) => d.name === CONVERSATIONS_DATAPACK);
  const existing = await find();
  if (existing) return existing.id;
  await ensurePersonalDatapack(deps, userId, CONVERSATIONS_DATAPACK, 'Prompts and final responses captured from your AI clients');
  return (await find())!.id;
}

function snippet(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
