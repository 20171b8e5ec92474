import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { capturePaths } from './paths.js';
import { appendToSpool, claimSpool, settleClaim } from './spool.js';
import type { CaptureTurn } from './turn.js';

const turn = (n: number): CaptureTurn => ({
  id: `id-${n}`,
  role: 'user',
  text: `text ${n}`,
  client: 'codex',
  at: new Date(n).toISOString(),
});
const freshPaths = () => capturePaths(mkdtempSync(join(tmpdir(), 'cairn-capture-spool-')));

describe('spool', () => {
  it('is created 0600 in a 0700 directory, one JSON line per turn', () => {
    const paths = freshPaths();
    appendToSpool(paths, [turn(1), turn(2)]);
    assert.equal(statSync(paths.dir).mode & 0o777, 0o700);
    assert.equal(statSync(paths.spool).mode & 0o777, 0o600);
    assert.deepEqual(
      readFileSync(paths.spool, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
      ['id-1', 'id-2'],
    );
  });

  it('can be claimed by one run only', () => {
    const paths = freshPaths();
    appendToSpool(paths, [turn(1)]);
    const first = claimSpool(paths);
    assert.deepEqual(
      first?.turns.map((t) => t.id),
      ['id-1'],
    );
    assert.equal(claimSpool(paths), null);
    assert.equal(existsSync(paths.spool), false);
  });

  it('settling puts back only what was not acknowledged, including lines a racing writer added to the claimed file', () => {
    const paths = freshPaths();
    appendToSpool(paths, [turn(1), turn(2), turn(3)]);
    const claim = claimSpool(paths)!;
    // A hook that opened the spool just before the rename writes into the claimed file.
    renameSync(claim.files[0]!, paths.spool);
    appendToSpool(paths, [turn(4)]);
    renameSync(paths.spool, claim.files[0]!);
    appendToSpool(paths, [turn(5)]);
    settleClaim(paths, claim, new Set(['id-1', 'id-3']));
    assert.deepEqual(
      readFileSync(paths.spool, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
      ['id-5', 'id-2', 'id-4'],
    );
    assert.deepEqual(
      readdirSync(paths.dir).filter((n) => n.endsWith('.processing')),
      [],
    );
  });

  it('takes over the claim of a run that died, oldest first, each turn once, and skips torn lines', () => {
    const paths = freshPaths();
    appendToSpool(paths, [turn(1), turn(2)]);
    claimSpool(paths, Date.now() - 60_000);
    appendToSpool(paths, [turn(2), turn(3)]);
    appendFileSync(paths.spool, '{"id":"id-9","te');
    const takeover = claimSpool(paths)!;
    assert.deepEqual(
      takeover.turns.map((t) => t.id),
      ['id-1', 'id-2', 'id-3'],
    );
    assert.equal(takeover.files.length, 2);
  });

  it('leaves the fresh claim of a run still at work alone', () => {
    const paths = freshPaths();
    appendToSpool(paths, [turn(1)]);
    claimSpool(paths);
    assert.equal(claimSpool(paths), null);
  });
});
