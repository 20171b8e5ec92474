import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Applies, Entry } from '../store/types.js';
import { type GuidanceCandidate, selectGuidance, TOPIC_TUNING, TOPIC_TUNING_WORDS_ONLY, topicTuningFor } from './guidance-select.js';

const candidate = (n: number, score: number, applies: Applies | null = null): GuidanceCandidate => ({
  entry: { id: `ent_${n}`, datapackId: 'dp', kind: 'standard', title: `Rule ${n}`, content: 'x', tags: [], applies, deletedAt: null } as unknown as Entry,
  datapack: { id: 'dp', name: 'team', scope: 'team' },
  score,
});

test('topicTuningFor: the wide tuning only when the task names no files or project and no rule says where it applies', () => {
  assert.equal(topicTuningFor({}, false), TOPIC_TUNING_WORDS_ONLY);
  assert.equal(topicTuningFor({ files: ['a.ts'] }, false), TOPIC_TUNING);
  assert.equal(topicTuningFor({ project: 'ledger' }, false), TOPIC_TUNING);
  assert.equal(topicTuningFor({}, true), TOPIC_TUNING);
  assert.equal(topicTuningFor({ files: [] }, false), TOPIC_TUNING_WORDS_ONLY, 'an empty file list is no context');
});

test('selectGuidance: words only, more of the weaker topic matches come back, up to the cap; a scoped rule still needs a close match', () => {
  const ranked = Array.from({ length: 20 }, (_, i) => candidate(i, 1 - i * 0.03));
  const narrow = selectGuidance(ranked, TOPIC_TUNING);
  const wide = selectGuidance(ranked, TOPIC_TUNING_WORDS_ONLY);
  assert.ok(narrow.length <= TOPIC_TUNING.max);
  assert.ok(wide.length > narrow.length, `${wide.length} against ${narrow.length}`);
  assert.ok(wide.length <= TOPIC_TUNING_WORDS_ONLY.max);
  const scoped = candidate(99, 0.5, { always: false, files: ['**/migrations/**'], projects: [] });
  const withScoped = selectGuidance([candidate(1, 0.55), scoped], TOPIC_TUNING_WORDS_ONLY);
  assert.deepEqual(
    withScoped.map((s) => s.entry.id),
    ['ent_1'],
    'a rule scoped to files is not given on a weak topic match, even under the wide floor',
  );
});
