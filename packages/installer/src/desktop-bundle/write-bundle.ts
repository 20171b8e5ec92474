import { existsSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { InstallerError } from '../files/config-error.js';
import type { Machine } from '../install/context.js';
import { buildDesktopBundle, DESKTOP_BUNDLE_FILE } from './build-bundle.js';
import { bundleMcpUrl } from './manifest.js';

/** What `--client claude-desktop --bundle` is asked to do. */
export interface BundleRequest {
  /** Base or MCP URL as given with --url. */
  url: string;
  /** `--out`: a file path, or a folder to write cairn-claude-desktop.mcpb into; default the current folder. */
  out?: string;
}

/** Writes the Claude Desktop extension for this Cairn and says how to open and remove it; returns the exit code. */
export function writeDesktopBundle(request: BundleRequest, machine: Machine): number {
  const target = outputPath(request.out, machine.cwd);
  const bytes = buildDesktopBundle(request.url);
  // Written beside the target and renamed over it: a file already there is replaced whole or not at all.
  const temp = join(dirname(target), `.${basename(target)}.${process.pid}.tmp`);
  try {
    writeFileSync(temp, bytes, { flag: 'wx', mode: 0o644 });
    renameSync(temp, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') rmSync(temp, { force: true });
    throw new InstallerError(
      `Could not write ${target}: ${(error as Error).message}. Nothing there was changed; choose another place with --out PATH.`,
      1,
    );
  }
  machine.out(`Wrote ${target}: the Claude Desktop extension for ${bundleMcpUrl(request.url)}. It holds no API key.`);
  machine.out(
    'Install: double-click the file, or in Claude Desktop open Settings > Extensions > Install Extension… and choose it; paste your Cairn API key when asked.',
  );
  machine.out('Remove: Claude Desktop > Settings > Extensions.');
  const url = new URL(bundleMcpUrl(request.url));
  if (url.protocol === 'http:' && url.hostname !== 'localhost' && url.hostname !== '127.0.0.1')
    machine.out(
      `Warning: the bridge (mcp-remote) refuses plain http:// for any host but localhost and 127.0.0.1, so this extension cannot connect to ${url.host}: give Cairn an https:// address and write the bundle again.`,
    );
  return 0;
}

function outputPath(out: string | undefined, cwd: string): string {
  if (out === undefined) return join(cwd, DESKTOP_BUNDLE_FILE);
  const path = resolve(cwd, out);
  return existsSync(path) && statSync(path).isDirectory() ? join(path, DESKTOP_BUNDLE_FILE) : path;
}
