import { createHash } from 'node:crypto';
import { CAPTURE_LIMITS } from '@cairn/contract';
import { mergeFindings, type RedactionFinding, redact } from '@cairn/contract/redaction';
import { z } from 'zod';
import { loadAccess } from '../domain/access.js';
import type { Caller } from '../domain/caller.js';
import { ensurePersonalDatapack, resolveDatapack } from '../domain/datapacks.js';
import type { DomainDeps } from '../domain/deps.js';
import { assertMayWrite } from '../domain/key-scope.js';
import { newEntry } from '../domain/new-entry.js';
import { parse } from '../domain/parse-input.js';

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
        // Who spoke, when the sender knows a name (an imported conversation); search favours a named speaker's turns.
        speaker: z
          .string()
          .trim()
          .min(1)
          .max(100)
          // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters (NUL above all) are what is refused
          .regex(/^[^\u0000-\u001f\u007f]+$/, 'a speaker name has no control characters')
          .optional(),
        project: z.string().max(200).optional(),
        at: z.iso.datetime({ offset: true }),
      }),
    )
    .min(1)
    .max(CAPTURE_LIMITS.maxTurnsPerRequest),
  datapack: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe('Id or name of a datapack you may write; without it, your personal Conversations datapack'),
});

/** What became of each turn sent, in order: the entry that holds it, new or stored before. */
export interface CapturedTurnOutcome {
  id: string;
  entryId: string;
  duplicate: boolean;
}

/**
 * Stores each new turn (redacted again: the client may be old or modified); a turn id seen before
 * is a duplicate. `redacted` says which secrets the server still found, by rule.
 */
export async function captureTurns(
  deps: DomainDeps,
  caller: Caller,
  raw: unknown,
): Promise<{ stored: number; duplicates: number; redacted: RedactionFinding[]; entries: CapturedTurnOutcome[] }> {
  assertMayWrite(caller);
  const { turns, datapack } = parse(captureInput, raw);
  const datapackId = datapack
    ? await writableDatapack(deps, caller, datapack)
    : await conversationsDatapack(deps, caller.userId);
  let stored = 0;
  const entries: CapturedTurnOutcome[] = [];
  const found: RedactionFinding[] = [];
  for (const turn of turns) {
    const { text, findings } = redact(turn.text);
    found.push(...findings);
    const title = `${turn.role === 'user' ? 'Prompt' : 'Response'}${turn.project ? ` · ${turn.project}` : ''} · ${snippet(text)}`;
    const tags = [
      'captured',
      turn.client,
      ...(turn.sessionId ? [`session:${turn.sessionId}`] : []),
      ...(turn.project ? [`project:${turn.project}`] : []),
    ].map((t) => t.toLowerCase());
    const entry = newEntry(deps, {
      datapackId,
      kind: 'conversation',
      title,
      content: text,
      tags,
      // A turn has always been hashed by its text alone; stored turns keep meaning the same.
      contentHash: createHash('sha256').update(text).digest('hex'),
      by: caller.userId,
      client: turn.client,
      createdAt: turn.at,
    });
    const outcome = await deps.store.insertCapturedTurn(entry, caller.userId, turn.id, {
      role: turn.role,
      sessionId: turn.sessionId,
      speaker: turn.speaker && redact(turn.speaker).text,
    });
    if (outcome.stored) stored++;
    entries.push({ id: turn.id, entryId: outcome.entryId, duplicate: !outcome.stored });
  }
  return { stored, duplicates: turns.length - stored, redacted: mergeFindings(found), entries };
}

/** A datapack named by the sender: one the caller can read and write, or the same error save_entry gives. */
async function writableDatapack(deps: DomainDeps, caller: Caller, ref: string): Promise<string> {
  const access = await loadAccess(deps, caller);
  const datapack = await resolveDatapack(deps, access, ref);
  access.assertWrite(datapack);
  return datapack.id;
}

async function conversationsDatapack(deps: DomainDeps, userId: string): Promise<string> {
  const find = async () =>
    (await deps.store.findDatapacks([{ scope: 'personal', ownerId: userId }])).find(
      (d) => d.name === CONVERSATIONS_DATAPACK,
    );
  const existing = await find();
  if (existing) return existing.id;
  await ensurePersonalDatapack(
    deps,
    userId,
    CONVERSATIONS_DATAPACK,
    'Prompts and final responses captured from your AI clients',
  );
  return (await find())!.id;
}

function snippet(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
