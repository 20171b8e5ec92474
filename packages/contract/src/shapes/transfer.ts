// What moving data between Cairns answers: the import report (`POST /api/v1/import`, `cairn import`)
// and the lists of rules taken out of guidance (`GET /api/v1/replaced`).
import type { DatapackRef, PublicEntry } from './knowledge.js';

/** How many of one thing an import created, updated, left unchanged and skipped. */
export interface ImportCounts {
  created: number;
  updated: number;
  unchanged: number;
  skipped: number;
}

/** What an import did, or with dryRun would do: counts, why things were skipped, secrets removed. */
export interface ImportReport {
  dryRun: boolean;
  lines: number;
  datapacks: ImportCounts;
  entries: ImportCounts;
  /** History rows written (or that would be, in a dry run). */
  versions: number;
  /** Guidance answers of the file's usage lines (never updated: an answer already here is unchanged). */
  usage: ImportCounts;
  /** Why things were skipped, one line per reason, in file order. */
  problems: string[];
  /** Secrets removed on the way in, by rule (never the secrets). */
  redacted: { rule: string; count: number }[];
}

/** A rule a newer one replaced, as `GET /api/v1/replaced` lists it (`{ entries: ReplacedEntryView[] }`). */
export interface ReplacedEntryView {
  entry: PublicEntry;
  datapack: DatapackRef;
  /** The entry that replaced it, when the caller can read it; null when it is not visible to them. */
  replacedBy: { id: string; title: string; datapackId: string } | null;
  /** Whether the caller may reinstate it. */
  writable: boolean;
}
