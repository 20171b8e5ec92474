import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Data the tests read from the shared folder beside the repository (`<repo>/../shared/data/<name>`, or
 * the path in `env`), never copied into the repository. On a fresh clone with nothing beside it the
 * tests that need it are skipped, with the reason printed; with CAIRN_TEST_STRICT set (CI, which has
 * the data) they run, and fail on the missing file instead.
 */
export interface SharedData {
  /** Where the file was found, or undefined. */
  path: string | undefined;
  /** The node:test `skip` option: the reason, when the file is missing outside strict mode. */
  skip: string | undefined;
  /** The path, or an error that says where to put the file (for the test body). */
  require(): string;
}

const REPO = new URL('../../../../', import.meta.url);

export function sharedData(name: string, env?: string): SharedData {
  // A worktree sits one folder deeper than a checkout (<root>/wt/<name>): the shared folder may be two up.
  const candidates = [
    env ? process.env[env] : undefined,
    ...['../shared/data/', '../../shared/data/'].map((dir) => fileURLToPath(new URL(`${dir}${name}`, REPO))),
  ].filter((p): p is string => !!p);
  const path = candidates.find((p) => existsSync(p));
  const strict = ['1', 'true', 'yes'].includes((process.env.CAIRN_TEST_STRICT ?? '').toLowerCase());
  const missing = `${name} from the shared folder beside the repository, which is not there (looked in ${candidates.join(', ')}); put it in ../shared/data/${env ? ` or set ${env} to its path` : ''}`;
  const skip = path || strict ? undefined : `needs ${missing}`;
  if (skip) console.log(`# SKIP: ${skip}`);
  return {
    path,
    skip,
    require() {
      if (!path) throw new Error(`This test ${skip ?? `needs ${missing}`}.`);
      return path;
    },
  };
}
