import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { recallFigures } from '../../eval/recall-metrics.js';
import { parseSessionDate } from '../../measure/locomo.js';
import { percentile } from '../../measure/percentile.js';

describe('recall harness arithmetic', () => {
  test('strict recall counts the share of evidence in the top k; hit rate counts any', () => {
    const figures = recallFigures([
      { category: 1, evidence: ['D1:1', 'D1:2'], ranked: ['D1:1', 'x', 'x', 'x', 'x', 'D1:2'] },
      { category: 4, evidence: ['D2:1'], ranked: [] },
    ]);
    assert.equal(figures.questions, 2);
    assert.deepEqual([figures.strict[5], figures.strict[10], figures.strict[25]], [25, 50, 50]);
    assert.deepEqual([figures.hit[5], figures.hit[10], figures.hit[25]], [50, 50, 50]);
  });

  test('percentiles are nearest-rank', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    assert.deepEqual([percentile(sorted, 0.5), percentile(sorted, 0.95), percentile([7], 0.99)], [50, 95, 7]);
  });

  test('LoCoMo session dates parse to UTC', () => {
    assert.equal(parseSessionDate('1:56 pm on 8 May, 2023')?.toISOString(), '2023-05-08T13:56:00.000Z');
    assert.equal(parseSessionDate('12:09 am on 13 September, 2023')?.toISOString(), '2023-09-13T00:09:00.000Z');
    assert.equal(parseSessionDate('yesterday'), undefined);
  });
});
