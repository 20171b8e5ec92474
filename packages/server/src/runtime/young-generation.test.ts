import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { growthFactor, operatorSizedYoungGeneration } from './young-generation.js';

const MB = 1024 * 1024;

test('young generation: doubles while a doubling stays within the limit, then stays', () => {
  assert.equal(growthFactor(2 * MB, 16), 2);
  assert.equal(growthFactor(8 * MB, 16), 2);
  assert.equal(growthFactor(12 * MB, 16), 1);
  assert.equal(growthFactor(16 * MB, 16), 1);
  assert.equal(growthFactor(32 * MB, 16), 1);
});

test('young generation: left alone when the operator gave node a setting of their own', () => {
  assert.equal(operatorSizedYoungGeneration([]), false);
  assert.equal(operatorSizedYoungGeneration(['--max-old-space-size=512', '--heap-growing-percent=30']), false);
  assert.equal(operatorSizedYoungGeneration(['--max-semi-space-size=8']), true);
  assert.equal(operatorSizedYoungGeneration(['--min_semi_space_size=2']), true);
  assert.equal(operatorSizedYoungGeneration(['--semi-space-growth-factor=2']), true);
});

/** The largest new space a fresh process reached while allocating like a server: a burst per turn of the event loop, some of it kept a while. */
function largestNewSpace(limitMb: number | undefined): number {
  const script = `
    import { EventEmitter } from 'node:events';
    import { getHeapSpaceStatistics } from 'node:v8';
    import { limitYoungGeneration } from ${JSON.stringify(new URL('./young-generation.ts', import.meta.url).href)};
    ${limitMb ? `limitYoungGeneration(new EventEmitter(), ${limitMb}, []);` : ''}
    const kept = [];
    let largest = 0;
    for (let turn = 0; turn < 400; turn++) {
      for (let i = 0; i < 2000; i++) kept[(turn * 2000 + i) % 30000] = { turn, i, text: 'x'.repeat(i % 50) + turn };
      await new Promise((r) => setImmediate(r));
      largest = Math.max(largest, getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size);
    }
    console.log(largest);`;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  return Number(run.stdout.trim()) / MB;
}

test('young generation: a busy process keeps its new space within the limit (V8 alone grows it past)', () => {
  assert.ok(largestNewSpace(undefined) > 8, 'without a limit V8 grows it past 8 MB');
  assert.ok(largestNewSpace(8) <= 8, 'with an 8 MB limit it stays within');
});
