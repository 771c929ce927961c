;; XXH64 (https://github.com/Cyan4973/xxHash/blob/dev/doc/xxhash_spec.md) of many byte ranges in one call: the
;; row digests hash every row of a column at once instead of crossing into WebAssembly once per value.
;; Built into xxh64-module.ts by `npm run build:xxh64` (scripts/build-xxh64.ts); never edited by hand there.
(module
  (memory (export "memory") 1)

  (func $round (param $acc i64) (param $input i64) (result i64)
    (i64.mul
      (i64.rotl
        (i64.add (local.get $acc) (i64.mul (local.get $input) (i64.const 0xC2B2AE3D27D4EB4F)))
        (i64.const 31))
      (i64.const 0x9E3779B185EBCA87)))

  (func $merge (param $acc i64) (param $val i64) (result i64)
    (i64.add
      (i64.mul
        (i64.xor (local.get $acc) (call $round (i64.const 0) (local.get $val)))
        (i64.const 0x9E3779B185EBCA87))
      (i64.const 0x85EBCA77C2B2AE63)))

  ;; XXH64 of bytes [p, p + len) with a seed.
  (func $xxh64 (param $p i32) (param $len i32) (param $seed i64) (result i64)
    (local $end i32) (local $limit i32) (local $h i64)
    (local $v1 i64) (local $v2 i64) (local $v3 i64) (local $v4 i64)
    (local.set $end (i32.add (local.get $p) (local.get $len)))
    (if (i32.ge_u (local.get $len) (i32.const 32))
      (then
        (local.set $limit (i32.sub (local.get $end) (i32.const 32)))
        (local.set $v1 (i64.add (local.get $seed) (i64.const 0x60EA27EEADC0B5D6))) ;; seed + P1 + P2
        (local.set $v2 (i64.add (local.get $seed) (i64.const 0xC2B2AE3D27D4EB4F)))
        (local.set $v3 (local.get $seed))
        (local.set $v4 (i64.sub (local.get $seed) (i64.const 0x9E3779B185EBCA87)))
        (loop $stripes
          (local.set $v1 (call $round (local.get $v1) (i64.load (local.get $p))))
          (local.set $v2 (call $round (local.get $v2) (i64.load offset=8 (local.get $p))))
          (local.set $v3 (call $round (local.get $v3) (i64.load offset=16 (local.get $p))))
          (local.set $v4 (call $round (local.get $v4) (i64.load offset=24 (local.get $p))))
          (local.set $p (i32.add (local.get $p) (i32.const 32)))
          (br_if $stripes (i32.le_u (local.get $p) (local.get $limit))))
        (local.set $h
          (i64.add
            (i64.add (i64.rotl (local.get $v1) (i64.const 1)) (i64.rotl (local.get $v2) (i64.const 7)))
            (i64.add (i64.rotl (local.get $v3) (i64.const 12)) (i64.rotl (local.get $v4) (i64.const 18)))))
        (local.set $h (call $merge (local.get $h) (local.get $v1)))
        (local.set $h (call $merge (local.get $h) (local.get $v2)))
        (local.set $h (call $merge (local.get $h) (local.get $v3)))
        (local.set $h (call $merge (local.get $h) (local.get $v4))))
      (else
        (local.set $h (i64.add (local.get $seed) (i64.const 0x27D4EB2F165667C5)))))
    (local.set $h (i64.add (local.get $h) (i64.extend_i32_u (local.get $len))))
    (block $done8
      (loop $eights
        (br_if $done8 (i32.gt_u (i32.add (local.get $p) (i32.const 8)) (local.get $end)))
        (local.set $h
          (i64.add
            (i64.mul
              (i64.rotl
                (i64.xor (local.get $h) (call $round (i64.const 0) (i64.load (local.get $p))))
                (i64.const 27))
              (i64.const 0x9E3779B185EBCA87))
            (i64.const 0x85EBCA77C2B2AE63)))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (br $eights)))
    (if (i32.le_u (i32.add (local.get $p) (i32.const 4)) (local.get $end))
      (then
        (local.set $h
          (i64.add
            (i64.mul
              (i64.rotl
                (i64.xor (local.get $h)
                  (i64.mul (i64.load32_u (local.get $p)) (i64.const 0x9E3779B185EBCA87)))
                (i64.const 23))
              (i64.const 0xC2B2AE3D27D4EB4F))
            (i64.const 0x165667B19E3779F9)))
        (local.set $p (i32.add (local.get $p) (i32.const 4)))))
    (block $done1
      (loop $ones
        (br_if $done1 (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $h
          (i64.mul
            (i64.rotl
              (i64.xor (local.get $h) (i64.mul (i64.load8_u (local.get $p)) (i64.const 0x27D4EB2F165667C5)))
              (i64.const 11))
            (i64.const 0x9E3779B185EBCA87)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $ones)))
    (local.set $h (i64.mul (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 33))) (i64.const 0xC2B2AE3D27D4EB4F)))
    (local.set $h (i64.mul (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 29))) (i64.const 0x165667B19E3779F9)))
    (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 32))))

  ;; out[i] = XXH64(data + offsets[i] .. data + offsets[i + 1], seed) for i < n; offsets are n + 1 i32s.
  (func (export "batch") (param $data i32) (param $offsets i32) (param $n i32) (param $seed i64) (param $out i32)
    (local $i i32) (local $from i32) (local $to i32)
    (block $done
      (loop $rows
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $from (i32.load (i32.add (local.get $offsets) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $to (i32.load offset=4 (i32.add (local.get $offsets) (i32.shl (local.get $i) (i32.const 2)))))
        (i64.store
          (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 3)))
          (call $xxh64 (i32.add (local.get $data) (local.get $from)) (i32.sub (local.get $to) (local.get $from)) (local.get $seed)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows))))
)
