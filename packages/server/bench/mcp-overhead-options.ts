// The command line of bench/mcp-overhead.ts (its usage is at the top of that file).
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadLocomo } from '../measure/locomo.js';

export interface Options {
  /** Cairn from its sources through tsx instead of its build (dist/). */
  source: boolean;
  duration: number;
  warmup: number;
  connections: number;
  rounds: number;
  entries: number;
  /** One query for every search, or undefined: each request asks the next LoCoMo question. */
  query?: string;
  questions: string[];
  backend: 'sqlite' | 'postgres';
  databaseUrl?: string;
  dataPath: string;
  out?: string;
  profile?: string;
  profileSeconds: number;
  profileOut: string;
  compare?: string;
}

export async function parseOptions(): Promise<Options> {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '3' },
      connections: { type: 'string', default: '10' },
      rounds: { type: 'string', default: '1' },
      entries: { type: 'string', default: '2000' },
      query: { type: 'string' },
      backend: { type: 'string', default: 'sqlite' },
      'database-url': { type: 'string' },
      source: { type: 'boolean', default: false },
      // The shared folder sits beside the repository: <repo>/../shared/data.
      data: { type: 'string', default: new URL('../../../../shared/data/locomo-dev.json', import.meta.url).pathname },
      out: { type: 'string' },
      profile: { type: 'string' },
      'profile-seconds': { type: 'string', default: '5' },
      'profile-out': { type: 'string' },
      compare: { type: 'string' },
    },
  });
  const backend = values.backend;
  if (backend !== 'sqlite' && backend !== 'postgres')
    throw new Error(`--backend must be sqlite or postgres, not ${backend}`);
  if (backend === 'postgres' && !values['database-url'])
    throw new Error('--backend postgres needs --database-url <postgres server url>');
  return {
    duration: Number(values.duration),
    warmup: Number(values.warmup),
    connections: Number(values.connections),
    rounds: Number(values.rounds),
    entries: Number(values.entries),
    query: values.query,
    // Every question of the file, in order: searches meet many words, as an agent's do, not one cached query.
    questions: values.query
      ? [values.query]
      : (await loadLocomo(values.data)).flatMap((c) => c.questions.map((q) => q.question)),
    backend,
    databaseUrl: values['database-url'],
    source: values.source ?? false,
    dataPath: values.data,
    out: values.out,
    profile: values.profile,
    compare: values.compare,
    profileSeconds: Number(values['profile-seconds']),
    profileOut:
      values['profile-out'] ??
      join(tmpdir(), `cairn-bench-${values.profile?.replace(/\W+/g, '-')}-${Date.now()}.cpuprofile`),
  };
}
