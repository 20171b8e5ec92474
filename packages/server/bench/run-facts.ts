import { availableParallelism } from 'node:os';

/** What every benchmark report starts with: when, on which backend, Node and how many cores. */
export function runFacts(backend: string): { date: string; backend: string; node: string; cpus: number } {
  return { date: new Date().toISOString(), backend, node: process.version, cpus: availableParallelism() };
}
