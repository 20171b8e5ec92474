import assert from 'node:assert/strict';
import { test } from 'node:test';
import { int8Dots } from './int8-dots.js';

/** Deterministic pseudo-random numbers in [0, 1). */
function random(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

/** The products in float64, one at a time: the reference both passes are held to. */
function reference(query: Float32Array, matrix: Int8Array, n: number, dims: number): number[] {
  return Array.from({ length: n }, (_, i) => {
    let s = 0;
    for (let d = 0; d < dims; d++) s += query[d]! * matrix[i * dims + d]!;
    return s;
  });
}

for (const dims of [100, 16, 3, 17, 512]) {
  test(`int8Dots matches the float64 products at ${dims} dimensions, in WebAssembly and in JavaScript`, () => {
    const next = random(dims);
    const n = 257;
    const matrix = Int8Array.from({ length: n * dims }, () => Math.round(next() * 254) - 127);
    const query = Float32Array.from({ length: dims }, () => next() * 2 - 1);
    const want = reference(query, matrix, n, dims);
    const scale = Math.max(...want.map(Math.abs));
    for (const useWasm of [true, false]) {
      const out = new Float64Array(n);
      int8Dots(query, matrix, n, dims, out, { useWasm });
      want.forEach((w, i) => {
        assert.ok(Math.abs(out[i]! - w) <= scale * 1e-4, `${useWasm ? 'wasm' : 'js'} row ${i}: ${out[i]} vs ${w}`);
      });
    }
  });
}

test('int8Dots multiplies each row by its scale, and answers NaN for a row whose scale is 0, over an odd and an even number of rows', () => {
  const dims = 100;
  const next = random(7);
  for (const n of [1, 2, 63, 64, 65, 300, 301]) {
    const matrix = Int8Array.from({ length: n * dims }, () => Math.round(next() * 254) - 127);
    const query = Float32Array.from({ length: dims }, () => next() * 2 - 1);
    const scales = Float32Array.from({ length: n }, (_, i) => (i % 5 === 3 ? 0 : next() / 50));
    const want = reference(query, matrix, n, dims);
    // The query is rounded to 16 bits: each of its values by up to half a step of max|query| / 32767.
    const bound = (dims * 128 * Math.max(...query.map(Math.abs))) / 32767 / 2;
    for (const useWasm of [true, false]) {
      const out = new Float64Array(n);
      int8Dots(query, matrix, n, dims, out, { scales, useWasm });
      want.forEach((w, i) => {
        if (scales[i] === 0)
          assert.ok(Number.isNaN(out[i]), `${useWasm ? 'wasm' : 'js'} ${n} rows, row ${i} has no vector: ${out[i]}`);
        else
          assert.ok(
            Math.abs(out[i]! - w * scales[i]!) <= bound * scales[i]!,
            `${useWasm ? 'wasm' : 'js'} ${n} rows, row ${i}: ${out[i]} vs ${w * scales[i]!}`,
          );
      });
    }
    const zero = new Float64Array(n);
    int8Dots(new Float32Array(dims), matrix, n, dims, zero, { scales });
    zero.forEach((v, i) => {
      assert.ok(scales[i] === 0 ? Number.isNaN(v) : v === 0);
    });
  }
});

test('int8Dots does not overflow at the extremes, and reads nothing of the next row', () => {
  const dims = 100;
  const n = 3;
  // Row 0 all +127, row 1 all -128 (the extreme of int8), row 2 zero but for its last value.
  const matrix = new Int8Array(n * dims);
  matrix.fill(127, 0, dims);
  matrix.fill(-128, dims, 2 * dims);
  matrix[3 * dims - 1] = 5;
  const query = new Float32Array(dims).fill(1);
  const out = new Float64Array(n);
  int8Dots(query, matrix, n, dims, out);
  assert.deepEqual([...out], [127 * dims, -128 * dims, 5]);
});

test('int8Dots over a smaller matrix after a larger one, and with a zero query', () => {
  const dims = 100;
  const next = random(3);
  const big = Int8Array.from({ length: 5000 * dims }, () => Math.round(next() * 254) - 127);
  const query = Float32Array.from({ length: dims }, () => next() - 0.5);
  const outBig = new Float64Array(5000);
  int8Dots(query, big, 5000, dims, outBig);
  const small = big.slice(0, 2 * dims);
  const out = new Float64Array(2);
  int8Dots(query, small, 2, dims, out);
  assert.deepEqual([...out], [outBig[0], outBig[1]]);
  int8Dots(new Float32Array(dims), small, 2, dims, out);
  assert.deepEqual([...out], [0, 0]);
});

test('int8Dots copies a matrix into the module once, and never answers one matrix with another of the same size', () => {
  const dims = 100;
  const n = 50;
  const next = random(11);
  const matrices = [0, 1].map(() => Int8Array.from({ length: n * dims }, () => Math.round(next() * 254) - 127));
  const query = Float32Array.from({ length: dims }, () => next() - 0.5);
  const want = matrices.map((m) => {
    const out = new Float64Array(n);
    int8Dots(query, m, n, dims, out, { useWasm: false });
    return out;
  });
  const want0 = want[0]!;
  for (const pick of [0, 0, 1, 1, 0, 1]) {
    const out = new Float64Array(n);
    int8Dots(query, matrices[pick]!, n, dims, out);
    out.forEach((v, i) => {
      assert.ok(Math.abs(v - want[pick]![i]!) <= 1e-3 * dims, `matrix ${pick} row ${i}: ${v} vs ${want[pick]![i]}`);
    });
  }
  // A small matrix (a pool's recent rows) between two calls over a large one answers both right.
  const large = Int8Array.from({ length: 500 * dims }, () => Math.round(next() * 254) - 127);
  const expected = reference(query, large, 500, dims);
  for (const m of [large, matrices[0]!, large]) {
    const out = new Float64Array(m === large ? 500 : n);
    int8Dots(query, m, m === large ? 500 : n, dims, out);
    const want = m === large ? expected : [...want0];
    out.forEach((v, i) => {
      assert.ok(Math.abs(v - want[i]!) <= 1e-3 * dims, `row ${i}: ${v} vs ${want[i]}`);
    });
  }
  const fewer = new Float64Array(n - 1);
  int8Dots(query, matrices[1]!, n - 1, dims, fewer);
  fewer.forEach((v, i) => {
    assert.ok(Math.abs(v - want[1]![i]!) <= 1e-3 * dims);
  });
});
