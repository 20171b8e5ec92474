;; Cosines of one 16-bit query with n rows of 8-bit integers, with SIMD (i32x4.dot_i16x8_s: eight
;; multiply-adds an instruction), two rows at a time: the query's chunks are loaded once for both, and
;; the two running sums do not wait on each other. Source of int8-dots.wasm.ts; rebuild with
;; `npm run build:wasm -w @cairn/server`.
;;
;;   dots(query, matrix, n, stride, scales, step, out):
;;     out[i] = (sum over d < stride of query[d] * matrix[i * stride + d]) * step * scales[i],
;;              or NaN where scales[i] is 0 (a row without a vector)
;;
;; query:  i16 values at `query`, padded with zeros to a multiple of 16 past `stride`;
;; matrix: n rows of `stride` i8 values, followed by stride + 15 readable bytes (for an odd n the
;;         last pair's second row is read past the end, and each row's tail chunk reads up to 15
;;         bytes of the next; the query's zero padding cancels those);
;; scales: n + 1 f32 values (the one past the end is read for an odd n, its result not used);
;; out:    n + 1 f64 values (out[n] is written for an odd n). |query| <= 32767 and |matrix| <= 128:
;;         a row of up to 512 values cannot overflow.
(module
  (memory (export "memory") 1)
  (func (export "dots") (param $query i32) (param $matrix i32) (param $n i32) (param $stride i32) (param $scales i32) (param $step f64) (param $out i32)
    (local $i i32) (local $a i32) (local $b i32) (local $d i32) (local $q i32)
    (local $sumA v128) (local $sumB v128) (local $low v128) (local $high v128) (local $va v128) (local $vb v128)
    (local $scale f32)
    (local.set $a (local.get $matrix))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $b (i32.add (local.get $a) (local.get $stride)))
        (local.set $sumA (v128.const i32x4 0 0 0 0))
        (local.set $sumB (v128.const i32x4 0 0 0 0))
        (local.set $d (i32.const 0))
        (local.set $q (local.get $query))
        (loop $columns
          (local.set $low (v128.load (local.get $q)))
          (local.set $high (v128.load offset=16 (local.get $q)))
          (local.set $va (v128.load (i32.add (local.get $a) (local.get $d))))
          (local.set $vb (v128.load (i32.add (local.get $b) (local.get $d))))
          (local.set $sumA (i32x4.add (local.get $sumA) (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $va)) (local.get $low))))
          (local.set $sumB (i32x4.add (local.get $sumB) (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $vb)) (local.get $low))))
          (local.set $sumA (i32x4.add (local.get $sumA) (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $va)) (local.get $high))))
          (local.set $sumB (i32x4.add (local.get $sumB) (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $vb)) (local.get $high))))
          (local.set $q (i32.add (local.get $q) (i32.const 32)))
          (local.set $d (i32.add (local.get $d) (i32.const 16)))
          (br_if $columns (i32.lt_u (local.get $d) (local.get $stride))))
        ;; Row i, then row i + 1: the lanes' sum, times the step, times the row's scale (NaN for 0).
        (local.set $scale (f32.load (i32.add (local.get $scales) (i32.shl (local.get $i) (i32.const 2)))))
        (f64.store
          (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 3)))
          (select
            (f64.const nan)
            (f64.mul
              (f64.mul
                (f64.convert_i32_s
                  (i32.add
                    (i32.add (i32x4.extract_lane 0 (local.get $sumA)) (i32x4.extract_lane 1 (local.get $sumA)))
                    (i32.add (i32x4.extract_lane 2 (local.get $sumA)) (i32x4.extract_lane 3 (local.get $sumA)))))
                (local.get $step))
              (f64.promote_f32 (local.get $scale)))
            (f32.eq (local.get $scale) (f32.const 0))))
        (local.set $scale (f32.load offset=4 (i32.add (local.get $scales) (i32.shl (local.get $i) (i32.const 2)))))
        (f64.store offset=8
          (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 3)))
          (select
            (f64.const nan)
            (f64.mul
              (f64.mul
                (f64.convert_i32_s
                  (i32.add
                    (i32.add (i32x4.extract_lane 0 (local.get $sumB)) (i32x4.extract_lane 1 (local.get $sumB)))
                    (i32.add (i32x4.extract_lane 2 (local.get $sumB)) (i32x4.extract_lane 3 (local.get $sumB)))))
                (local.get $step))
              (f64.promote_f32 (local.get $scale)))
            (f32.eq (local.get $scale) (f32.const 0))))
        (local.set $a (i32.add (local.get $b) (local.get $stride)))
        (local.set $i (i32.add (local.get $i) (i32.const 2)))
        (br $rows)))))
