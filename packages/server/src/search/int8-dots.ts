import { INT8_DOTS_WASM } from './wasm/int8-dots.wasm.js';

/**
 * Cosines of a float query with the rows of an 8-bit integer matrix, as search's cosine pass needs
 * them: the query is scaled to 16-bit integers (relative error about 1e-5, far below the rows' own
 * 8-bit rounding) and the products run in WebAssembly SIMD, eight multiply-adds an instruction, two
 * rows at a time, each times its row's scale there too (wasm/int8-dots.wat). The same pass in
 * JavaScript was a large share of a search's CPU (docs/benchmarks.md).
 */

/** Bytes kept for the 16-bit query at the start of the module's memory: up to 512 dimensions. */
const QUERY_BYTES = 1024;
const PAGE = 65536;
/** Matrices of at most this many rows are copied in on every call, not kept resident. */
const SMALL_ROWS = 64;

/**
 * Where a call's scales, matrix and products sit in the module's memory from `from` on: the kernel
 * works on pairs of rows, so one past the last row is read (scales, matrix) and written (out) for an odd n.
 */
function layout(from: number, n: number, dims: number): { scales: number; matrix: number; out: number; end: number } {
  const scales = from;
  const matrix = scales + 8 * Math.ceil(((n + 1) * 4) / 8);
  const out = 8 * Math.ceil((matrix + (n + 1) * dims + 16) / 8);
  return { scales, matrix, out, end: out + (n + 1) * 8 };
}

/** Where resident matrices start: past the place small ones are copied to (of up to 512 dimensions). */
const SMALL_END = layout(QUERY_BYTES, SMALL_ROWS, QUERY_BYTES / 2).end;

interface Kernel {
  memory: WebAssembly.Memory;
  dots: (query: number, matrix: number, n: number, stride: number, scales: number, step: number, out: number) => void;
}

// Module-level on purpose: one compiled WebAssembly module per process; `resident` is checked by the matrix's identity, so a Cairn only ever reads back its own.
let kernel: Kernel | null | undefined;
/**
 * The matrix and scales the module's memory holds now: a user's searches keep meeting the same
 * pool, so its rows (200 KB at 2,000 entries) are copied in once, not per search. Matrices and
 * scales are never changed once passed here (a pool's are built once; a changed pool is a new one).
 * `scales` undefined: the rows' scales are all 1.
 */
let resident:
  | { matrix: WeakRef<Int8Array>; scales: WeakRef<Float32Array> | undefined; n: number; dims: number }
  | undefined;

/** The compiled module, or null where this Node has no WebAssembly SIMD (then the JavaScript pass runs). */
function loadKernel(): Kernel | null {
  if (kernel !== undefined) return kernel;
  const bytes = Buffer.from(INT8_DOTS_WASM, 'base64');
  kernel = WebAssembly.validate(bytes)
    ? (new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports as unknown as Kernel)
    : null;
  return kernel;
}

/** What int8Dots may be told besides its operands. */
export interface DotOptions {
  /** Each row's scale: its product is multiplied by it, and is NaN where it is 0 (a row without a vector). Unscaled when absent. */
  scales?: Float32Array;
  /** false: the JavaScript pass, as where this Node has no WebAssembly SIMD (for tests). */
  useWasm?: boolean;
}

/**
 * For each of the n rows of `matrix` (row i at i × dims), the dot product of `query` with it,
 * times the row's scale when `scales` are given. `out` receives n values.
 */
export function int8Dots(
  query: Float32Array,
  matrix: Int8Array,
  n: number,
  dims: number,
  out: Float64Array,
  { scales, useWasm = true }: DotOptions = {},
): void {
  const k = useWasm ? loadKernel() : null;
  if (!k || dims > QUERY_BYTES / 2) {
    jsDots(query, matrix, n, dims, out, scales);
    return;
  }
  let max = 0;
  for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(query[d]!));
  if (max === 0 || n === 0) {
    // A zero query meets every row at 0, but for those without a vector.
    for (let i = 0; i < n; i++) out[i] = scales?.[i] === 0 ? Number.NaN : 0;
    return;
  }
  const step = max / 32767;
  // A pool's few recent rows (pool.ts) are copied in on each call, to a place of their own, so
  // that ranking a pool of two segments keeps its main matrix resident.
  const small = n <= SMALL_ROWS;
  const at = layout(small ? QUERY_BYTES : SMALL_END, n, dims);
  if (k.memory.buffer.byteLength < at.end) k.memory.grow(Math.ceil((at.end - k.memory.buffer.byteLength) / PAGE));
  const buffer = k.memory.buffer;
  if (
    small ||
    resident?.matrix.deref() !== matrix ||
    resident.scales?.deref() !== scales ||
    resident.n !== n ||
    resident.dims !== dims
  ) {
    new Int8Array(buffer, at.matrix, n * dims).set(matrix.subarray(0, n * dims));
    const held = new Float32Array(buffer, at.scales, n + 1);
    if (scales) held.set(scales.subarray(0, n));
    else held.fill(1);
    if (!small) resident = { matrix: new WeakRef(matrix), scales: scales && new WeakRef(scales), n, dims };
  }
  const q = new Int16Array(buffer, 0, QUERY_BYTES / 2);
  // Zero past `dims` up to the padded width: those lanes meet the next row's bytes.
  q.fill(0, 0, Math.ceil(dims / 16) * 16);
  for (let d = 0; d < dims; d++) q[d] = Math.round(query[d]! / step);
  k.dots(0, at.matrix, n, dims, at.scales, step, at.out);
  out.set(new Float64Array(buffer, at.out, n));
}

/** The same products in JavaScript (four running sums: one sum waits on each addition before the next). */
function jsDots(
  query: Float32Array,
  matrix: Int8Array,
  n: number,
  dims: number,
  out: Float64Array,
  scales: Float32Array | undefined,
): void {
  for (let i = 0; i < n; i++) {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    const at = i * dims;
    let d = 0;
    for (; d + 3 < dims; d += 4) {
      s0 += query[d]! * matrix[at + d]!;
      s1 += query[d + 1]! * matrix[at + d + 1]!;
      s2 += query[d + 2]! * matrix[at + d + 2]!;
      s3 += query[d + 3]! * matrix[at + d + 3]!;
    }
    for (; d < dims; d++) s0 += query[d]! * matrix[at + d]!;
    const dot = s0 + s1 + (s2 + s3);
    out[i] = !scales ? dot : scales[i] === 0 ? Number.NaN : dot * scales[i]!;
  }
}
