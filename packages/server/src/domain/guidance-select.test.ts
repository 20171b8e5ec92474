import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Applies, Entry } from '../store/types.js';
import {
  type GuidanceCandidate,
  selectGuidance,
  TOPIC_TUNING,
  TOPIC_TUNING_NO_CONCERNS,
  TOPIC_TUNING_WORDS_ONLY,
  type TopicTuning,
  topicTuningFor,
} from './guidance-select.js';

const candidate = (
  n: number,
  text: number,
  applies: Applies | null = null,
  extra: Partial<Entry> = {},
): GuidanceCandidate => ({
  entry: {
    id: `ent_${String(n).padStart(2, '0')}`,
    datapackId: 'dp',
    kind: 'standard',
    title: `Rule ${n}`,
    content: 'x',
    tags: [],
    applies,
    deletedAt: null,
    replacedBy: null,
    ...extra,
  } as unknown as Entry,
  datapack: { id: 'dp', name: 'team', scope: 'team' },
  signals: { text, concern: 0, search: 0, title: 0 },
});

const tuning: TopicTuning = {
  ...TOPIC_TUNING,
  weights: { text: 1, concern: 0, search: 0, title: 0 },
  full: 3,
  relative: 0.5,
  named: 4,
  namedRelative: 0.2,
};
const ids = (list: { entry: { id: string } }[]) => list.map((s) => s.entry.id);

test('topicTuningFor: titles count only when the task names no files or project and no rule says where or when it applies', () => {
  assert.equal(topicTuningFor({}, false), TOPIC_TUNING_WORDS_ONLY);
  assert.ok(TOPIC_TUNING_WORDS_ONLY.weights.title > 0);
  assert.equal(TOPIC_TUNING.weights.title, 0);
  assert.equal(topicTuningFor({ files: ['a.ts'], concerns: ['x'] }, false), TOPIC_TUNING);
  assert.equal(topicTuningFor({ project: 'ledger', concerns: ['x'] }, false), TOPIC_TUNING);
  assert.equal(topicTuningFor({ concerns: ['x'] }, true), TOPIC_TUNING);
  assert.equal(topicTuningFor({}, true), TOPIC_TUNING_NO_CONCERNS, 'without concerns, a lower floor');
  assert.equal(topicTuningFor({ files: ['a.ts'], concerns: [] }, false), TOPIC_TUNING_NO_CONCERNS);
  assert.equal(topicTuningFor({ files: [] }, false), TOPIC_TUNING_WORDS_ONLY, 'an empty file list is no context');
});

test('the best topic matches are given in full up to the cap and the floor; the next are named, then counted', () => {
  const ranked = [1, 0.9, 0.45, 0.8, 0.7, 0.3, 0.25, 0.21, 0.1, 0.05].map((s, i) => candidate(i, s));
  const s = selectGuidance(ranked, tuning);
  assert.deepEqual(ids(s.given), ['ent_00', 'ent_01', 'ent_03'], 'three in full, best first');
  assert.deepEqual(ids(s.mayAlsoApply), ['ent_04', 'ent_02', 'ent_05', 'ent_06'], 'the next four, best first');
  assert.equal(s.more, 1, 'ent_07 (0.21) is counted; ent_08 and ent_09 are under the floor of 0.2');
  const named = new Set(ids(s.mayAlsoApply));
  assert.ok(
    ids(s.given).every((id) => !named.has(id)),
    'a rule given in full is never named again',
  );
});

test('a replaced or deleted rule is neither given nor named; always and context rules come first whatever their topic', () => {
  const list = [
    candidate(1, 1, null, { replacedBy: 'ent_99' }),
    candidate(2, 0.9, null, { deletedAt: '2026-01-01T00:00:00Z' }),
    candidate(3, 0.8),
    candidate(4, 0, { always: true, files: [], projects: [] }),
    {
      ...candidate(5, 0.1, { always: false, files: ['db/**'], projects: [] }),
      context: { type: 'file' as const, glob: 'db/**' },
    },
    candidate(6, 0.5),
  ];
  const s = selectGuidance(list, tuning);
  assert.deepEqual(ids(s.given), ['ent_04', 'ent_05', 'ent_03', 'ent_06']);
  assert.deepEqual(
    s.given.map((g) => g.reason.type),
    ['always', 'file', 'topic', 'topic'],
  );
  const all = [...ids(s.given), ...ids(s.mayAlsoApply)];
  assert.ok(!all.includes('ent_01') && !all.includes('ent_02'));
});

test('a rule scoped to other files is not given in full on a topic match, but may be named', () => {
  const scoped = candidate(9, 0.9, { always: false, files: ['**/migrations/**'], projects: [] });
  const s = selectGuidance([candidate(1, 1), scoped], tuning);
  assert.deepEqual(ids(s.given), ['ent_01']);
  assert.deepEqual(ids(s.mayAlsoApply), ['ent_09']);
});

test('the signals are weighed as the tuning says: a concern alone can lift a rule into the answer', () => {
  const a = candidate(1, 1);
  const b = { ...candidate(2, 0.3), signals: { text: 0.3, concern: 2, search: 0, title: 0 } };
  assert.deepEqual(ids(selectGuidance([a, b], tuning).given), ['ent_01']);
  assert.deepEqual(ids(selectGuidance([a, b], { ...tuning, weights: { ...tuning.weights, concern: 0.5 } }).given), [
    'ent_02',
    'ent_01',
  ]);
});

test('with concerns, a topic match no concern ranks near its top is named, not given in full', () => {
  const near = { ...candidate(1, 1), concernPlace: 0 };
  const third = { ...candidate(2, 0.9), concernPlace: 2 };
  const none = { ...candidate(3, 0.8), concernPlace: Number.POSITIVE_INFINITY };
  const s = selectGuidance([near, third, none], { ...tuning, concernPlaces: 2 });
  assert.deepEqual(ids(s.given), ['ent_01']);
  assert.deepEqual(ids(s.mayAlsoApply), ['ent_02', 'ent_03'], 'still named, best first');
  assert.deepEqual(ids(selectGuidance([near, third, none], { ...tuning, concernPlaces: 3 }).given), [
    'ent_01',
    'ent_02',
  ]);
  assert.deepEqual(
    ids(selectGuidance([candidate(2, 0.9), candidate(3, 0.8)], { ...tuning, concernPlaces: 1 }).given),
    ['ent_02', 'ent_03'],
    'without concerns (no place) the floor alone decides',
  );
});
