import { KEY_PREFIX } from '@cairn/clients';
import { protectConfig, writeConfig } from '../files/write-config.js';
import { editBlock } from '../install/edit-block.js';
import type { ConfigReport } from './scan-config.js';

/** What fixConfig changed: the file written (or chmod-ed), and its backup. */
export interface FixResult {
  target: string;
  rewritten: string[];
  chmod: boolean;
  backup?: string;
}

/** Rewrites the repairable entries of one file to the current shape and tightens its mode, through the install write path (backup, atomic, symlink target, comments kept). */
export function fixConfig(report: ConfigReport): FixResult | undefined {
  const { inspection, client } = report;
  if (!inspection) return undefined;
  let text = inspection.text;
  const rewritten: string[] = [];
  for (const finding of report.findings) {
    const { entry: name, repair } = finding;
    if (repair?.kind !== 'entry' || name === undefined || rewritten.includes(name)) continue;
    text = editBlock(
      client,
      { ...inspection, text, existing: { value: inspection.entries[name] } },
      name,
      repair.value,
      repair.url,
    );
    rewritten.push(name);
  }
  const secret = text.includes(KEY_PREFIX);
  if (text !== inspection.text) {
    const written = writeConfig(inspection.path, text, { secret });
    return { target: written.target, rewritten, chmod: false, ...(written.backup && { backup: written.backup }) };
  }
  const chmod = report.findings.some((f) => f.repair?.kind === 'mode') && protectConfig(inspection.path);
  return rewritten.length > 0 || chmod ? { target: inspection.target, rewritten, chmod } : undefined;
}
