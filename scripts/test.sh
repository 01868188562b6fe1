#!/usr/bin/env bash
# Runs every test: native (plain, constant-time under valgrind, and ASan+UBSan), libFuzzer on the
# binary codec, the Noise frame decoder and handshake parsers, Signal sessions and the
# sender-key/app-state parsers, the wasm build checks, the Node suites against both wasm variants,
# Chromium, the packed package in fresh projects (bundlers, runtimes, types), and the benchmarks in
# quick mode (Node and Chromium). Installs what is missing first (scripts/setup.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
start=$SECONDS
step() { printf '\n=== %s (%ss)\n' "$1" "$((SECONDS - start))"; }

step "setup"
scripts/setup.sh
# Known answers come from Debian's python3-cryptography-vectors (installed by setup); Wycheproof is
# an extra run when its folder is there (tests/js/vectors.mjs, tests/native/test_util.h).
wycheproof="${WACORE_WYCHEPROOF_DIR:-$here/../shared/vectors/wycheproof}"
if [ -d "$wycheproof" ]; then
  echo "Wycheproof vectors: $wycheproof (their tests run)"
else
  echo "Wycheproof vectors: not found at $wycheproof (their tests are skipped; set WACORE_WYCHEPROOF_DIR to run them)"
fi

step "native build and tests (incl. the valgrind constant-time check)"
cmake -S . -B build/native -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build/native
ctest --test-dir build/native --output-on-failure

step "native tests under AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S . -B build/native-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DWACORE_SANITIZE=ON >/dev/null
cmake --build build/native-asan
ctest --test-dir build/native-asan --output-on-failure

# A fixed fuzzing seed unless one is given: the same inputs in every test run (scripts/fuzz.sh).
export WACORE_FUZZ_SEED="${WACORE_FUZZ_SEED:-20261201}"

step "fuzzing the binary codec (30 s) and the Noise frame decoder and handshake parsers (15 s)"
scripts/fuzz.sh 30
scripts/fuzz.sh 15 noise

step "fuzzing Signal sessions: a stateful conversation (20 s) and the parsers (10 s)"
scripts/fuzz.sh 20 signal_session
scripts/fuzz.sh 10 signal_parse

step "fuzzing sender keys and app-state patches (15 s; seeds from tests/fuzz/make-groups-corpus.mjs)"
scripts/fuzz.sh 15 groups

step "wasm builds (scalar, SIMD) and their checks"
scripts/build-wasm.sh
ctest --test-dir build/wasm --output-on-failure

step "Node: every suite against the scalar and the SIMD build"
npx vitest run

step "Chromium"
node tests/browser/run.mjs

step "the web chat client in Chromium: three users on the relay, offline delivery, a reload, a new device (web/chat/)"
node tests/browser/chat.mjs

step "the packed package in fresh projects: webpack, esbuild, Rollup, Vite (build and dev), Parcel in Chromium; Node, Bun, Deno; types"
node tests/consumers/run.mjs

step "instruction-count gate: the headline operations under callgrind, both builds, within 3% of bench/instructions-baseline.json"
node bench/instruction-gate.mjs

step "benchmarks, quick mode (keeps bench/ working; no timing assertions)"
node bench/all.mjs --quick >/dev/null
node bench/browser.mjs --quick >/dev/null
node bench/scaling.mjs --sessions 40 --rounds 1 --batch 10 >/dev/null
node bench/startup.mjs --runs 1 >/dev/null

step "all suites passed"
