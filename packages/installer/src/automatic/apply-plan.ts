import type { ClientId } from '@cairn/clients';
import { removeEmptyDirs } from '../files/write-config.js';
import { syncValues, type ValuesResult } from './json-values.js';
import type { Manifest } from './manifest.js';
import { type FileChange, placeFile, type Release, releaseFile } from './owned-files.js';
import type { AutomaticPlan } from './plan.js';

/** What applying a plan did, for the user. */
export interface PlanOutcome {
  written: string[];
  hooked: string[];
  removed: string[];
  unchanged: number;
  /** Files and values kept because the user changed them since the installer wrote them. */
  keptEdited: string[];
  /** Shared files kept because another client still uses them. */
  stillUsed: string[];
}

/**
 * Makes the client's share of the machine match the plan and records it in the manifest: writes its
 * files and values, and removes what the manifest lists for it but the plan no longer has. An empty
 * plan is the uninstall.
 */
export function applyPlan(
  manifest: Manifest,
  client: ClientId,
  plan: Pick<AutomaticPlan, 'files' | 'values'>,
  platform: NodeJS.Platform,
): PlanOutcome {
  const outcome: PlanOutcome = { written: [], hooked: [], removed: [], unchanged: 0, keptEdited: [], stillUsed: [] };
  for (const file of plan.files) {
    const change: FileChange = placeFile(manifest, client, file, platform);
    if (change === 'unchanged') outcome.unchanged++;
    else outcome.written.push(file.path);
  }
  const wanted = new Set(plan.files.map((f) => f.path));
  const dirs: string[] = [];
  for (const record of manifest.files.filter((f) => f.clients.includes(client) && !wanted.has(f.path))) {
    const release: Release = releaseFile(manifest, client, record.path);
    if (release.kind === 'removed' || release.kind === 'gone') dirs.push(...release.dirs);
    if (release.kind === 'removed') outcome.removed.push(record.path);
    if (release.kind === 'edited') outcome.keptEdited.push(`${record.path} (changed since the installer wrote it)`);
    if (release.kind === 'still-used')
      outcome.stillUsed.push(`${record.path} (still used by ${release.by.join(', ')})`);
  }
  const paths = [
    ...new Set([
      ...plan.values.map((v) => v.path),
      ...manifest.values.filter((v) => v.client === client).map((v) => v.path),
    ]),
  ];
  for (const path of paths) {
    const result: ValuesResult = syncValues(
      manifest,
      client,
      path,
      plan.values.filter((v) => v.path === path),
    );
    dirs.push(...result.dirs);
    if (result.change === 'unchanged') outcome.unchanged++;
    else if (result.change === 'deleted') outcome.removed.push(path);
    else if (result.change === 'removed') outcome.removed.push(`Cairn's entries in ${path}`);
    else outcome.hooked.push(path);
    outcome.keptEdited.push(...result.keptEdited.map((what) => `${what} (changed since the installer set it)`));
  }
  removeEmptyDirs(dirs);
  return outcome;
}
