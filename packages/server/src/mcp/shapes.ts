import type { RedactionFinding } from '@cairn/contract/redaction';
import { z } from 'zod';
import { publicEntry } from '../domain/entry-views.js';
import type { Datapack, Entry } from '../store/types.js';

/** An entry as tools return it, with its provenance. */
export const entryShape = z.object({
  id: z.string(),
  datapackId: z.string(),
  kind: z.string(),
  title: z.string(),
  content: z.string(),
  tags: z.array(z.string()),
  version: z.number().int(),
  createdBy: z.string(),
  createdClient: z.string().nullable(),
  createdAt: z.string(),
  updatedBy: z.string(),
  updatedClient: z.string().nullable(),
  updatedAt: z.string(),
  applies: z.object({
    always: z.boolean(),
    files: z.array(z.string()),
    projects: z.array(z.string()),
    when: z.string().optional(),
  }),
  supersedes: z.array(z.string()),
  replacedBy: z.string().nullable(),
  owner: z.string(),
  reviewBy: z.string().nullable(),
  expires: z.string().nullable(),
});

/** Secrets removed from what the agent sent, by rule (never the secrets themselves). */
export const redactedShape = z
  .array(z.object({ rule: z.string(), count: z.number().int() }))
  .describe('Secrets removed before storing, by rule; each is stored as a [redacted:<rule>] marker');

/** Where an entry lives. */
export const datapackRefShape = z.object({
  id: z.string(),
  name: z.string(),
  scope: z.enum(['personal', 'team', 'organization']),
});

/** A datapack as tools return it. */
export const datapackShape = datapackRefShape.extend({
  description: z.string(),
  organizationId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** Strips storage-only fields from an entry: the one public entry shape (domain/entry-views.ts). */
export const entryOut: (e: Entry) => z.output<typeof entryShape> = publicEntry;

/** A datapack as tools return it. */
export function datapackOut(d: Datapack): z.output<typeof datapackShape> {
  return {
    id: d.id,
    name: d.name,
    scope: d.scope,
    description: d.description,
    organizationId: d.organizationId,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

/** One line naming an entry, for text results. */
export function entryLine(e: Pick<Entry, 'kind' | 'title' | 'id' | 'version' | 'tags'>): string {
  return `[${e.kind}] ${e.title} (id ${e.id}, v${e.version}${e.tags.length ? `, tags: ${e.tags.join(', ')}` : ''})`;
}

/** A sentence telling the agent which secrets were removed, or '' when none were. */
export function redactionNote(findings: readonly RedactionFinding[]): string {
  if (findings.length === 0) return '';
  const total = findings.reduce((n, f) => n + f.count, 0);
  const list = findings.map((f) => `${f.rule} ×${f.count}`).join(', ');
  return ` Removed ${total} secret${total === 1 ? '' : 's'} before storing (${list}); each is stored as a [redacted:<rule>] marker. Never save secrets, keys or passwords.`;
}
