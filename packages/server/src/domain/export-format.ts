import { z } from 'zod';
import { appliesInput } from './applies.js';
import { ENTRY_KINDS } from './entries.js';
import { dateInput } from './lifecycle.js';

/** The first line's `format`; JSON Lines: a header, the datapacks, their entries, rule usage, an end line. */
export const EXPORT_FORMAT = 'cairn-export';
/** The version this Cairn writes and reads; a newer file is refused with a message saying to upgrade. */
export const EXPORT_VERSION = 1;

const time = z.iso.datetime({ offset: true });
const text = (max: number) => z.string().max(max);
const tags = z.array(text(200)).max(100);
/** A person as the file names them: an email, or the stored id when the user no longer exists. */
const person = text(320);

/** Who owns a datapack, by name: ids differ between Cairns, emails and names do not. */
export const ownerLine = z.union([
  z.object({ user: person }).strict(),
  z.object({ organization: text(200) }).strict(),
  z.object({ team: text(200), organization: text(200) }).strict(),
]);

/** The header line. */
export const headerLine = z.object({
  format: z.literal(EXPORT_FORMAT),
  version: z.number().int(),
  exportedAt: time,
  source: z.object({ backend: z.string(), selection: z.record(z.string(), z.string()) }).passthrough(),
});

/** A datapack line: its metadata, owner by name, and deleted state. */
export const datapackLine = z
  .object({
    type: z.literal('datapack'),
    id: text(100).min(1),
    scope: z.enum(['personal', 'team', 'organization']),
    owner: ownerLine,
    name: text(200).min(1),
    description: text(2000),
    createdBy: person,
    createdAt: time,
    updatedAt: time,
    deletedAt: time.nullable(),
    deletedBy: person.nullable(),
  })
  .strict();

const versionLine = z
  .object({
    version: z.number().int().min(1),
    change: z.enum(['create', 'update', 'delete', 'restore']),
    restoredFrom: z.number().int().min(1).nullable(),
    kind: z.enum(ENTRY_KINDS),
    title: text(1000),
    content: text(1_000_000),
    tags,
    changedBy: person,
    changedClient: text(400).nullable(),
    changedAt: time,
    // Absent in files from before history kept where a version applied (null: nothing said) and its
    // lifecycle; present, all three lifecycle fields come together (a null owner is the author).
    applies: appliesInput.nullable().optional(),
    owner: person.nullable().optional(),
    reviewBy: dateInput.nullable().optional(),
    expires: dateInput.nullable().optional(),
  })
  .strict();

/** An entry line: the current state, provenance, deleted state, capture fields and every version. */
export const entryLine = z
  .object({
    type: z.literal('entry'),
    id: text(100).min(1),
    datapack: text(100).min(1),
    kind: z.enum(ENTRY_KINDS),
    title: text(1000).min(1),
    content: text(1_000_000).min(1),
    tags,
    version: z.number().int().min(1),
    createdBy: person,
    createdClient: text(400).nullable(),
    createdAt: time,
    updatedBy: person,
    updatedClient: text(400).nullable(),
    updatedAt: time,
    deletedAt: time.nullable(),
    // Absent in files from before guidance could say where a rule applies and what it replaced.
    applies: appliesInput.optional(),
    supersedes: z.array(text(100).min(1)).max(20).optional(),
    replacedBy: text(100).min(1).nullable().optional(),
    // Absent in files from before rules had a lifecycle (the owner is then the author).
    owner: person.optional(),
    reviewBy: dateInput.nullable().optional(),
    expires: dateInput.nullable().optional(),
    turn: z
      .object({
        user: person,
        turnId: text(200).min(1),
        at: time,
        sessionId: text(200).nullable(),
        speaker: text(200).nullable(),
        role: z.enum(['user', 'assistant']).nullable(),
      })
      .strict()
      .optional(),
    history: z.array(versionLine).min(1),
  })
  .strict()
  .refine((e) => e.history.every((v, i) => i === 0 || v.version > e.history[i - 1]!.version), {
    message: 'history versions must increase',
    path: ['history'],
  })
  .refine((e) => e.history.at(-1)!.version === e.version, {
    message: "the last history version must be the entry's version",
    path: ['history'],
  });

/** A rule as one guidance answer gave or named it: an entry of the file, and why. */
const usageItem = z.object({ entry: text(100).min(1), reason: text(1000) }).strict();

/**
 * A usage line, after the entries: one guidance answer's rules of this file, given in full and
 * named. Without the task (a user's words) and the session; the user is there so that they, and
 * their organization's admins, count it again after an import, as on the Rule usage page.
 */
export const usageLine = z
  .object({
    type: z.literal('usage'),
    id: text(100).min(1),
    at: time,
    user: person,
    client: text(400).nullable(),
    given: z.array(usageItem).max(500),
    named: z.array(usageItem).max(500),
  })
  .strict()
  .refine((u) => u.given.length + u.named.length > 0, { message: 'names no rule', path: ['given'] });

/** The last line: how many datapacks, entries and usage lines came before it, so a cut-off file is noticed. */
export const endLine = z
  .object({
    type: z.literal('end'),
    datapacks: z.number().int().min(0),
    entries: z.number().int().min(0),
    // Absent in files from before exports carried rule usage.
    usage: z.number().int().min(0).optional(),
  })
  .strict();

export type HeaderLine = z.infer<typeof headerLine>;
export type DatapackLine = z.infer<typeof datapackLine>;
export type EntryLine = z.infer<typeof entryLine>;
export type VersionLine = EntryLine['history'][number];
export type OwnerLine = z.infer<typeof ownerLine>;
export type EndLine = z.infer<typeof endLine>;
export type UsageLine = z.infer<typeof usageLine>;
