;; Dot products of one 16-bit query with n rows of 8-bit integers, with SIMD (i32x4.dot_i16x8_s: eight
;; multiply-adds an instruction). Source of int8-dots.wasm.ts; rebuild with `npm run build:wasm -w @cairn/server`.
;;
;;   dots(query, matrix, n, stride, out): out[i] = sum over d < stride of query[d] * matrix[i * stride + d]
;;
;; query:  i16 values at `query`, padded with zeros to a multiple of 16 past `stride`;
;; matrix: n rows of `stride` i8 values, followed by 15 readable bytes (the last row's tail chunk
;;         reads past its end; the query's zero padding cancels what it reads);
;; out:    n i32 values. |query| <= 32767 and |matrix| <= 127: a row of up to 512 values cannot overflow.
(module
  (memory (export "memory") 1)
  (func (export "dots") (param $query i32) (param $matrix i32) (param $n i32) (param $stride i32) (param $out i32)
    (local $i i32) (local $row i32) (local $d i32) (local $q i32) (local $acc v128) (local $v v128)
    (local.set $row (local.get $matrix))
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $d (i32.const 0))
        (local.set $q (local.get $query))
        (loop $columns
          (local.set $v (v128.load (i32.add (local.get $row) (local.get $d))))
          (local.set $acc
            (i32x4.add (local.get $acc)
              (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $v)) (v128.load (local.get $q)))))
          (local.set $acc
            (i32x4.add (local.get $acc)
              (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $v)) (v128.load offset=16 (local.get $q)))))
          (local.set $q (i32.add (local.get $q) (i32.const 32)))
          (local.set $d (i32.add (local.get $d) (i32.const 16)))
          (br_if $columns (i32.lt_u (local.get $d) (local.get $stride))))
        (i32.store
          (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2)))
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
            (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
        (local.set $row (i32.add (local.get $row) (local.get $stride)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows)))))
