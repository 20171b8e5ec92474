import { rmSync } from 'node:fs';
import type { ClientId } from '@cairn/clients';
import { appendToJsonArray, editJson, parseJsonConfig, removeFromJsonArray } from '../files/json-edit.js';
import { missingDirs, readConfig, removeBackups, removeEmptyDirs, writeConfig } from '../files/write-config.js';
import { sameValue } from '../install/edit-block.js';
import type { InsertedValue, Manifest } from './manifest.js';

/** A value automatic mode keeps inside someone else's JSON file: an element of the array at `keyPath`, or the value at `keyPath`. */
export interface DesiredValue {
  path: string;
  keyPath: string[];
  value: unknown;
  arrayItem: boolean;
}

/** What syncing one file did, and which of the client's old values were left because the user changed them. */
export interface ValuesResult {
  change: 'added' | 'updated' | 'removed' | 'deleted' | 'unchanged';
  keptEdited: string[];
  /** Folders the installer made for a file it deleted now: the caller removes them once empty. */
  dirs: string[];
}

/**
 * Brings the client's values in one JSON file to exactly `desired`: inserts what is missing, takes out
 * what the manifest lists but is no longer wanted, and leaves every other key and array element alone.
 * A file the installer created is deleted once only empty containers remain in it.
 */
export function syncValues(manifest: Manifest, client: ClientId, path: string, desired: DesiredValue[]): ValuesResult {
  const before = readConfig(path);
  const text = before ?? '';
  parseJsonConfig(path, text, false);
  const previous = manifest.values.filter((v) => v.client === client && v.path === path);
  const createdFile = before === undefined || previous.some((v) => v.createdFile);
  const createdDirs =
    previous.find((v) => v.createdDirs)?.createdDirs ?? (before === undefined ? missingDirs(path) : []);
  const keptEdited: string[] = [];
  let next = text;
  for (const old of previous) {
    if (desired.some((d) => sameSpot(d, old) && sameValue(d.value, old.value))) continue;
    const removed = removeValue(path, next, old);
    if (removed === undefined) keptEdited.push(`${path}: ${old.keyPath.join('.')}`);
    else next = removed;
  }
  const inserted: InsertedValue[] = [];
  // Measured before any insertion: two values sharing a new parent both count it as created, whichever goes last.
  const untouched = parseJsonConfig(path, next, false);
  for (const value of desired) {
    const ours = previous.find((v) => sameSpot(v, value));
    // A value that was there before the installer is the user's: uninstall must not take it away.
    if (!ours && isPresent(untouched, value)) continue;
    const createdFrom = ours?.createdFrom ?? missingFrom(untouched, value.keyPath);
    next = insertValue(path, next, value);
    inserted.push({
      client,
      ...value,
      createdFile,
      ...(createdFrom !== undefined && { createdFrom }),
      ...(createdFile && createdDirs.length > 0 && { createdDirs }),
    });
  }
  const others = manifest.values.filter((v) => !(v.client === client && v.path === path));
  manifest.values = [...others, ...inserted];
  if (next === text) return { change: 'unchanged', keptEdited, dirs: [] };
  if (createdFile && desired.length === 0 && isHollow(parseJsonConfig(path, next, false))) {
    rmSync(path, { force: true });
    removeBackups(path);
    removeEmptyDirs(createdDirs);
    return { change: 'deleted', keptEdited, dirs: createdDirs };
  }
  // Taking the installer's own values out needs no backup, and the ones it made (holding old hooks) go.
  writeConfig(path, next, { secret: false, backup: desired.length > 0 && before !== undefined && !createdFile });
  if (desired.length === 0) removeBackups(path);
  return {
    change: before === undefined ? 'added' : desired.length === 0 ? 'removed' : 'updated',
    keptEdited,
    dirs: [],
  };
}

function insertValue(path: string, text: string, desired: DesiredValue): string {
  const current = valueAt(parseJsonConfig(path, text, false), desired.keyPath);
  if (!desired.arrayItem)
    return sameValue(current, desired.value) ? text : editJson(text, desired.keyPath, desired.value, path);
  if (Array.isArray(current) && current.some((item) => sameValue(item, desired.value))) return text;
  return appendToJsonArray(text, desired.keyPath, desired.value, path);
}

function isPresent(doc: unknown, desired: DesiredValue): boolean {
  const current = valueAt(doc, desired.keyPath);
  return desired.arrayItem
    ? Array.isArray(current) && current.some((item) => sameValue(item, desired.value))
    : current !== undefined && sameValue(current, desired.value);
}

/** The text without the value; undefined when it is no longer there as written (the user changed it), so it stays. */
function removeValue(path: string, text: string, old: InsertedValue): string | undefined {
  const current = valueAt(parseJsonConfig(path, text, false), old.keyPath);
  if (!old.arrayItem) {
    if (current === undefined) return text;
    return sameValue(current, old.value)
      ? pruneCreated(path, editJson(text, old.keyPath, undefined, path), old)
      : undefined;
  }
  if (!Array.isArray(current)) return text;
  const index = current.findIndex((item) => sameValue(item, old.value));
  if (index < 0) return text;
  return pruneCreated(path, removeFromJsonArray(text, old.keyPath, index), old);
}

/** Takes out the containers the installer made to hold the value, once they are empty; ones that were there before stay. */
function pruneCreated(path: string, text: string, old: InsertedValue): string {
  let next = text;
  for (let i = old.keyPath.length - 1; i >= (old.createdFrom ?? old.keyPath.length); i--) {
    const spot = old.keyPath.slice(0, i + 1);
    const value = valueAt(parseJsonConfig(path, next, false), spot);
    if (value === undefined) continue;
    const empty = Array.isArray(value)
      ? value.length === 0
      : value !== null && typeof value === 'object' && Object.keys(value).length === 0;
    if (!empty) break;
    next = editJson(next, spot, undefined, path);
  }
  return next;
}

/** The index of the first key in `keyPath` that the document does not have yet. */
function missingFrom(doc: unknown, keyPath: string[]): number | undefined {
  for (let i = 0; i < keyPath.length; i++) if (valueAt(doc, keyPath.slice(0, i + 1)) === undefined) return i;
  return undefined;
}

function valueAt(doc: unknown, keyPath: string[]): unknown {
  let value = doc;
  for (const key of keyPath) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function isHollow(value: unknown): boolean {
  if (Array.isArray(value)) return value.every(isHollow);
  if (value !== null && typeof value === 'object') return Object.values(value).every(isHollow);
  return false;
}

function sameSpot(
  a: { path: string; keyPath: string[]; arrayItem: boolean },
  b: { path: string; keyPath: string[]; arrayItem: boolean },
): boolean {
  return a.path === b.path && a.arrayItem === b.arrayItem && a.keyPath.join('\0') === b.keyPath.join('\0');
}
