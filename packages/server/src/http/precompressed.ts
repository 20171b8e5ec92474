import { existsSync } from 'node:fs';

/** The encodings the portal build writes beside each asset, best first. */
const ENCODINGS = [
  { name: 'br', suffix: '.br' },
  { name: 'gzip', suffix: '.gz' },
] as const;

/**
 * Picks the precompressed sibling of `file` the client accepts (`Accept-Encoding`, q=0 refuses),
 * or the file itself. Only what the build wrote is served; nothing is compressed per request.
 */
export function precompressedVariant(file: string, acceptEncoding: string | undefined): { file: string; encoding?: string } {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const wildcard = accepted.get('*');
  for (const { name, suffix } of ENCODINGS) {
    const q = accepted.get(name) ?? wildcard ?? 0;
    if (q > 0 && existsSync(file + suffix)) return { file: file + suffix, encoding: name };
  }
  return { file };
}
