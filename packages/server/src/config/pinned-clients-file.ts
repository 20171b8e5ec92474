import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { invalidSetting } from './config-error.js';

/** The variable naming the file of pinned Client ID Metadata Documents. */
export const PINNED_CLIENTS_VARIABLE = 'CAIRN_OAUTH_PINNED_CLIENTS';

/** Client ID Metadata Documents the operator trusts without fetching: the file, and each client_id URL's document as written there. */
export interface PinnedClientsFile {
  /** The file's absolute path, for messages. */
  file: string;
  documents: Record<string, Record<string, unknown>>;
}

const EXAMPLE =
  '{"https://chatgpt.com/oauth/codex/client.json": {"client_id": "https://chatgpt.com/oauth/codex/client.json", …}}';

/** How an entry is named in a message: its key, quoted, and never longer than a line. */
export function entryName(key: string): string {
  return JSON.stringify(key.length > 200 ? `${key.slice(0, 200)}…` : key);
}

/**
 * Reads the file once at start-up. Only its shape is checked here (an object of objects); each
 * document then meets the same checks as a fetched one (auth/oauth/pinned-clients.ts).
 */
export function readPinnedClientsFile(path: string): PinnedClientsFile {
  const file = resolve(path);
  const refuse = (message: string) => invalidSetting(PINNED_CLIENTS_VARIABLE, message);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw refuse(
      `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): point it at a JSON file that maps each client_id URL to its metadata document, or unset it.`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw refuse(`${file} is not valid JSON (${(error as Error).message}).`);
  }
  if (!isObject(parsed))
    throw refuse(
      `${file} must hold one JSON object mapping each client_id URL to its metadata document, e.g. ${EXAMPLE}`,
    );
  for (const [key, document] of Object.entries(parsed)) {
    if (!isObject(document))
      throw refuse(
        `${file}, entry ${entryName(key)}: the value must be the metadata document itself (a JSON object, as the URL serves it).`,
      );
  }
  return { file, documents: parsed as Record<string, Record<string, unknown>> };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
