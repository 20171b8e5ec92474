import { INT8_DOTS_WASM } from './wasm/int8-dots.wasm.js';

/**
 * Dot products of a float query with the rows of an 8-bit integer matrix, as search's cosine pass
 * needs them: the query is scaled to 16-bit integers (relative error about 1e-5, far below the rows'
 * own 8-bit rounding) and the products run in WebAssembly SIMD, eight multiply-adds an instruction
 * (wasm/int8-dots.wat). The same pass in JavaScript was a quarter of a search's CPU at 2,000 entries.
 */

/** Bytes kept for the 16-bit query at the start of the module's memory: up to 512 dimensions. */
const QUERY_BYTES = 1024;
const PAGE = 65536;

interface Kernel {
  memory: WebAssembly.Memory;
  dots: (query: number, matrix: number, n: number, stride: number, out: number) => void;
}

let kernel: Kernel | null | undefined;
/**
 * The matrix the module's memory holds now: a user's searches keep meeting the same pool, so its
 * rows (200 KB at 2,000 entries) are copied in once, not per search. Matrices are never changed
 * once passed here (a pool's are built once; a changed pool is a new one).
 */
let resident: { matrix: WeakRef<Int8Array>; n: number; dims: number } | undefined;

/** The compiled module, or null where this Node has no WebAssembly SIMD (then the JavaScript pass runs). */
function loadKernel(): Kernel | null {
  if (kernel !== undefined) return kernel;
  const bytes = Buffer.from(INT8_DOTS_WASM, 'base64');
  kernel = WebAssembly.validate(bytes) ? (new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports as unknown as Kernel) : null;
  return kernel;
}

/**
 * For each of the n rows of `matrix` (row i at i × dims), the dot product of `query` with it.
 * `out` receives n values; rows are unscaled (the caller multiplies by its per-row scale).
 */
export function int8Dots(query: Float32Array, matrix: Int8Array, n: number, dims: number, out: Float64Array, useWasm = true): void {
  const k = useWasm ? loadKernel() : null;
  if (!k || dims > QUERY_BYTES / 2) {
    jsDots(query, matrix, n, dims, out);
    return;
  }
  let max = 0;
  for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(query[d]!));
  if (max === 0 || n === 0) {
    out.fill(0, 0, n);
    return;
  }
  const step = max / 32767;
  const outAt = QUERY_BYTES;
  const matrixAt = outAt + n * 4;
  // The last row's tail chunk reads up to 15 bytes past the matrix.
  const needed = matrixAt + n * dims + 16;
  if (k.memory.buffer.byteLength < needed) k.memory.grow(Math.ceil((needed - k.memory.buffer.byteLength) / PAGE));
  const buffer = k.memory.buffer;
  if (resident?.matrix.deref() !== matrix || resident.n !== n || resident.dims !== dims) {
    new Int8Array(buffer, matrixAt, n * dims).set(matrix.subarray(0, n * dims));
    resident = { matrix: new WeakRef(matrix), n, dims };
  }
  const q = new Int16Array(buffer, 0, QUERY_BYTES / 2);
  // Zero past `dims` up to the padded width: those lanes meet the next row's bytes.
  q.fill(0, 0, Math.ceil(dims / 16) * 16);
  for (let d = 0; d < dims; d++) q[d] = Math.round(query[d]! / step);
  k.dots(0, matrixAt, n, dims, outAt);
  const dots = new Int32Array(buffer, outAt, n);
  for (let i = 0; i < n; i++) out[i] = dots[i]! * step;
}

/** The same products in JavaScript (four running sums: one sum waits on each addition before the next). */
function jsDots(query: Float32Array, matrix: Int8Array, n: number, dims: number, out: Float64Array): void {
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
    out[i] = s0 + s1 + (s2 + s3);
  }
}
