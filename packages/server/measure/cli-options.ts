// What the evals' and benchmarks' command lines share: which backend to run on, and the input file.
import { isAbsolute, resolve } from 'node:path';

/** parseArgs options for the backend; spread into an eval's own. */
export const BACKEND_OPTIONS = {
  backend: { type: 'string', default: 'sqlite' },
  'database-url': { type: 'string' },
} as const;

/** --backend and --database-url checked: for postgres, the server a throwaway database is created on. */
export function backendOf(values: { backend?: string; 'database-url'?: string }): {
  backend: 'sqlite' | 'postgres';
  databaseUrl?: string;
} {
  const backend = values.backend;
  if (backend !== 'sqlite' && backend !== 'postgres')
    throw new Error(`--backend must be sqlite or postgres, not ${backend}`);
  const databaseUrl =
    values['database-url'] ?? (backend === 'postgres' ? process.env.CAIRN_TEST_DATABASE_URL : undefined);
  if (backend === 'postgres' && !databaseUrl)
    throw new Error(
      '--backend postgres needs --database-url <postgres server url> (or CAIRN_TEST_DATABASE_URL); a throwaway database is created on it',
    );
  return { backend, databaseUrl };
}

/** The input file, required (`missing` says which and how); a relative path is the caller's, not the workspace folder npm runs in. */
export function inputFile(file: string | undefined, missing: string): string {
  if (!file) throw new Error(missing);
  return isAbsolute(file) ? file : resolve(process.env.INIT_CWD ?? process.cwd(), file);
}
