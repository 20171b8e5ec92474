import { KEY_PREFIX } from '@cairn/clients';
import { redact } from '@cairn/contract/redaction';
import { terminalSafe } from '@cairn/contract/terminal';
import type { Machine } from '../install/context.js';
import { maskKey } from '../install/resolve-key.js';

const CAIRN_KEY = new RegExp(`${KEY_PREFIX}[0-9A-Za-z]{8,}`, 'g');
/** A Cairn key, whole or already masked (`cairn_tkn_…1a2b`). */
const CAIRN_KEY_OR_MASK = new RegExp(`${KEY_PREFIX}(?:[0-9A-Za-z]{8,}|…[0-9A-Za-z]{4})`, 'g');

/**
 * A line the installer prints, made safe: every Cairn key shortened as maskKey does (the one it
 * wrote, the one it replaces, another entry's), and control and bidirectional characters shown as
 * escapes (the newlines and tabs of the installer's own messages stay).
 */
export function safeLine(line: string): string {
  return terminalSafe(
    line.replace(CAIRN_KEY, (key) => maskKey(key)),
    { lines: true },
  );
}

/**
 * Text from someone's files (a config's lines in a diff) with every secret-looking value replaced by
 * the redaction rules' marker: a neighbouring server's token, a password. Cairn keys are set aside
 * while the rules run and come back as they were, for safeLine to mask readably ("Bearer cairn_tkn_…1a2b").
 */
export function redactFileText(text: string): string {
  const keys: string[] = [];
  const held = text.replace(CAIRN_KEY_OR_MASK, (key) => `\ue000${keys.push(key) - 1}\ue001`);
  return redact(held).text.replace(/\ue000(\d+)\ue001/g, (_, i: string) => keys[Number(i)]!);
}

/** The same machine, printing only safe lines. */
export function withSafeOutput(machine: Machine): Machine {
  return { ...machine, out: (line) => machine.out(safeLine(line)) };
}
