import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ClientId } from '@cairn/clients';
import { removeEmptyDirs, writeConfig } from '../files/write-config.js';

/** A whole file the installer created; `sha256` is what it last wrote, so a later edit by the user is recognised. */
export interface OwnedFile {
  path: string;
  sha256: string;
  /** The clients that need it (capture.json serves several); the file goes when the last one is uninstalled. */
  clients: ClientId[];
  /** Its folder did not exist before either: removed too when left empty (older manifests). */
  createdDir?: boolean;
  /** The folders made to hold it: removed too when left empty. */
  createdDirs?: string[];
}

/** A value the installer put inside a file it does not own: a hook entry appended to an array, or a settings key. */
export interface InsertedValue {
  client: ClientId;
  path: string;
  keyPath: string[];
  value: unknown;
  /** `value` is one element of the array at `keyPath`, beside whatever else is there. */
  arrayItem: boolean;
  /** The file did not exist before: it is deleted once nothing but empty containers is left in it. */
  createdFile: boolean;
  /** `keyPath[createdFrom…]` did not exist before (containers made to hold the value): removed again once empty. */
  createdFrom?: number;
  /** With createdFile: the folders made to hold the file, removed with it once empty. */
  createdDirs?: string[];
}

/** Something done through a client's own CLI, undone through it on uninstall. */
export interface CliStep {
  client: ClientId;
  step: 'marketplace-add' | 'install';
  /** For marketplace-add: the source it was added from. */
  source?: string;
}

/** A client config file that did not exist (or had no entry container) before the installer wrote an MCP entry there. */
export interface ConfigCreated {
  client: ClientId;
  path: string;
  /** The file did not exist: deleted once no entry is left in it. */
  createdFile: boolean;
  /** `mcpServers` (or `servers`, `mcp_servers`) did not exist: removed once empty. */
  createdContainer: boolean;
  /** Folders made to hold the file: removed once empty. */
  createdDirs: string[];
}

/** An API key the installer made (from a setup code) for an entry: uninstall revokes it; a key the user gave it is theirs. */
export interface CreatedKey {
  client: ClientId;
  serverName: string;
  /** SHA-256 of the key, never the key. */
  sha256: string;
}

/** `~/.cairn/installed.json`: exactly what automatic mode added, and what writing MCP entries created. */
export interface Manifest {
  version: 1;
  files: OwnedFile[];
  values: InsertedValue[];
  cli: CliStep[];
  configs: ConfigCreated[];
  keys: CreatedKey[];
}

/** The empty manifest. */
export function emptyManifest(): Manifest {
  return { version: 1, files: [], values: [], cli: [], configs: [], keys: [] };
}

/** Reads the manifest; a missing or unreadable one is empty (nothing is then removed that it does not list). */
export function readManifest(path: string): Manifest {
  if (!existsSync(path)) return emptyManifest();
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<Manifest>;
    return {
      version: 1,
      files: parsed.files ?? [],
      values: parsed.values ?? [],
      cli: parsed.cli ?? [],
      configs: parsed.configs ?? [],
      keys: parsed.keys ?? [],
    };
  } catch {
    return emptyManifest();
  }
}

/** Writes the manifest in a stable order (so an unchanged install rewrites nothing), or deletes it when it lists nothing. */
export function saveManifest(path: string, manifest: Manifest): void {
  if (
    manifest.files.length +
      manifest.values.length +
      manifest.cli.length +
      manifest.configs.length +
      manifest.keys.length ===
    0
  ) {
    rmSync(path, { force: true });
    // ~/.cairn is the installer's own folder: once it lists nothing and holds nothing, it goes too.
    removeEmptyDirs([dirname(path)]);
    return;
  }
  const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const sorted: Omit<Manifest, 'keys'> & { keys?: CreatedKey[] } = {
    version: 1,
    files: [...manifest.files]
      .map((f) => ({ ...f, clients: [...f.clients].sort() }))
      .sort((a, b) => byText(a.path, b.path)),
    values: [...manifest.values].sort((a, b) =>
      byText(
        `${a.path}\0${a.keyPath.join('\0')}\0${JSON.stringify(a.value)}\0${a.client}`,
        `${b.path}\0${b.keyPath.join('\0')}\0${JSON.stringify(b.value)}\0${b.client}`,
      ),
    ),
    cli: [...manifest.cli].sort((a, b) => byText(`${a.client}${a.step}`, `${b.client}${b.step}`)),
    configs: [...manifest.configs].sort((a, b) => byText(`${a.path}\0${a.client}`, `${b.path}\0${b.client}`)),
    ...(manifest.keys.length > 0 && {
      keys: [...manifest.keys].sort((a, b) =>
        byText(`${a.client}\0${a.serverName}\0${a.sha256}`, `${b.client}\0${b.serverName}\0${b.sha256}`),
      ),
    }),
  };
  const text = `${JSON.stringify(sorted, null, 2)}\n`;
  if (existsSync(path) && readFileSync(path, 'utf8') === text) return;
  writeConfig(path, text, { secret: true, backup: false });
}

/** Whether the manifest lists anything for the client. */
export function hasClient(manifest: Manifest, client: ClientId): boolean {
  return (
    manifest.files.some((f) => f.clients.includes(client)) ||
    manifest.values.some((v) => v.client === client) ||
    manifest.cli.some((c) => c.client === client)
  );
}

/** SHA-256 of a file's text, as recorded in OwnedFile. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
