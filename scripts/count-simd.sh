#!/bin/sh
# Counts v128 instructions in a .wasm file (disassembled with Binaryen's wasm-dis).
#   count-simd.sh FILE [--expect-some | --expect-none]
set -eu
file="$1"
n=$(wasm-dis "$file" | grep -cE '\((v128|i8x16|i16x8|i32x4|i64x2|f32x4|f64x2)\.' || true)
echo "$file: $n v128 instructions"
case "${2:-}" in
  --expect-some) [ "$n" -gt 0 ] || { echo "expected SIMD instructions, found none" >&2; exit 1; } ;;
  --expect-none) [ "$n" -eq 0 ] || { echo "expected no SIMD instructions, found $n" >&2; exit 1; } ;;
esac
