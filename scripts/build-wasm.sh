#!/usr/bin/env bash
# Builds both wasm variants into npm/dist/ (incremental; about 70 s from scratch on 2 cores).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
# emcc 3.1.6 needs Debian's JS modules (acorn) on NODE_PATH, also inside cmake --build.
export NODE_PATH=/usr/share/nodejs
if [ ! -f build/wasm/build.ninja ]; then
  # emcmake sets the test emulator to `node --experimental-wasm-threads`, which Node 20 rejects.
  emcmake cmake -S . -B build/wasm -G Ninja -DCMAKE_CROSSCOMPILING_EMULATOR="$(command -v node)" >/dev/null
fi
# The C libraries alone (libsodium, zlib, each variant): what scripts/test.sh compiles while npm installs.
if [ "${1:-}" = "--libs" ]; then
  cmake --build build/wasm --target sodium_scalar zlib_scalar sodium_simd zlib_simd
  exit 0
fi
# The generated boundary (bindings/boundary.json) must be current: it is committed, not rebuilt.
node scripts/gen-boundary.mjs --check
cmake --build build/wasm
# The package's one-module entry (npm/bundle.mjs), where the bundler is installed (npm ci): the demo
# and the tests import npm/index.mjs itself; the published package serves the bundle.
if [ -d node_modules/rolldown ]; then
  node scripts/bundle.mjs
fi
