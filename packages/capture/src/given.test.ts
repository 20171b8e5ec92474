import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, it } from 'node:test';
import { givenTo, MAX_SESSIONS, recordGiven, SESSION_TTL_MS } from './given.js';
import { type CapturePaths, capturePaths } from './paths.js';

let paths: CapturePaths;
beforeEach(() => {
  paths = capturePaths(mkdtempSync(join(tmpdir(), 'cairn-given-')));
});

describe('the rules each session was given', () => {
  it('remembers ids per session, in a 0600 file that names no session', () => {
    assert.deepEqual([...givenTo(paths, 'claude-code s1')], []);
    recordGiven(paths, 'claude-code s1', ['ent_a', 'ent_b'], 1_000);
    recordGiven(paths, 'claude-code s1', ['ent_b', 'ent_c'], 2_000);
    assert.deepEqual([...givenTo(paths, 'claude-code s1')].sort(), ['ent_a', 'ent_b', 'ent_c']);
    assert.deepEqual([...givenTo(paths, 'claude-code s2')], []);
    assert.equal(statSync(paths.given).mode & 0o777, 0o600);
    assert.ok(!readFileSync(paths.given, 'utf8').includes('s1'));
  });

  it(`keeps the ${MAX_SESSIONS} most recent sessions and forgets those unseen for a day`, () => {
    const now = 10 * SESSION_TTL_MS;
    recordGiven(paths, 'stale', ['ent_old'], now - SESSION_TTL_MS - 1);
    for (let i = 0; i <= MAX_SESSIONS; i++) recordGiven(paths, `s${i}`, [`ent_${i}`], now + i);
    const file = JSON.parse(readFileSync(paths.given, 'utf8')) as { sessions: Record<string, unknown> };
    assert.equal(Object.keys(file.sessions).length, MAX_SESSIONS);
    assert.deepEqual([...givenTo(paths, 's0')], [], 'the oldest went first');
    assert.deepEqual([...givenTo(paths, `s${MAX_SESSIONS}`)], [`ent_${MAX_SESSIONS}`]);
    assert.deepEqual([...givenTo(paths, 'stale')], []);
  });

  it('starts afresh from a torn or foreign file instead of failing', () => {
    mkdirSync(paths.dir);
    writeFileSync(paths.given, '{"sessions": {"x": ');
    assert.deepEqual([...givenTo(paths, 's')], []);
    writeFileSync(paths.given, JSON.stringify({ sessions: { bad: { at: 'x' } } }));
    recordGiven(paths, 's', ['ent_1'], Date.now());
    assert.deepEqual([...givenTo(paths, 's')], ['ent_1']);
  });
});
