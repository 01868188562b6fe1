#!/usr/bin/env bash
# Runs every test: native (plain, constant-time under valgrind, and ASan+UBSan), libFuzzer on the
# binary codec, the Noise frame decoder and handshake parsers, Signal sessions and the
# sender-key/app-state parsers, the wasm build checks, the Node suites against both wasm variants,
# Chromium, the packed package in fresh projects (bundlers, runtimes, types), and the benchmarks in
# quick mode (Node and Chromium). Installs what is missing first (scripts/setup.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
# Each stage's time is printed as it ends, and all of them again at the end.
start=$SECONDS
stage_start=$SECONDS
stage_name=""
times=()
close_stage() {
  [ -n "$stage_name" ] && times+=("$(printf '%5ss  %s' "$((SECONDS - stage_start))" "$stage_name")")
  [ -n "$stage_name" ] && printf '=== %s: %ss\n' "$stage_name" "$((SECONDS - stage_start))"
  stage_start=$SECONDS
}
step() {
  close_stage
  stage_name="$1"
  printf '\n=== %s (at %ss)\n' "$1" "$((SECONDS - start))"
}

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
ctest --test-dir build/native --output-on-failure -j "$(nproc)"

step "native tests under AddressSanitizer + UndefinedBehaviorSanitizer (clang; the fuzz targets are built on the same core)"
scripts/fuzz.sh --build
ctest --test-dir build/sanitize --output-on-failure -j "$(nproc)"

# A fixed fuzzing seed unless one is given: the same inputs in every test run (scripts/fuzz.sh).
export WACORE_FUZZ_SEED="${WACORE_FUZZ_SEED:-20261201}"

step "fuzzing, two targets at a time: the binary codec (30 s), the Noise frame decoder and handshake parsers (15 s), Signal sessions as a stateful conversation (20 s) and their parsers (10 s), sender keys and app-state patches (15 s; seeds from tests/fuzz/make-groups-corpus.mjs)"
fuzz_lane() {  # fuzz_lane LOG SECONDS TARGET [SECONDS TARGET ...]: one after another, stops at the first failure
  local log="$1"; shift
  while [ $# -gt 0 ]; do
    echo "-- $2 ($1 s)" >>"$log"
    WACORE_FUZZ_BUILT=1 scripts/fuzz.sh "$1" "$2" >>"$log" 2>&1 || return 1
    shift 2
  done
}
fuzz_logs="$(mktemp -d /tmp/wacore-fuzzlanes.XXXXXX)"
fuzz_lane "$fuzz_logs/1" 30 binary 10 signal_parse & lane1=$!
fuzz_lane "$fuzz_logs/2" 20 signal_session 15 noise 15 groups & lane2=$!
fuzz_ok=1
wait "$lane1" || fuzz_ok=0
wait "$lane2" || fuzz_ok=0
cat "$fuzz_logs/1" "$fuzz_logs/2"
rm -rf "$fuzz_logs"
[ "$fuzz_ok" = 1 ] || { echo "fuzzing failed (above)" >&2; exit 1; }

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

step "instruction-count gate: wasm instructions of the headline operations, both builds, within 3% of bench/instructions-baseline.json; then its self-test (a slowed build must fail)"
node bench/instruction-gate.mjs
node bench/instruction-gate.mjs --self-test

step "benchmarks, quick mode (keeps bench/ working; no timing assertions)"
node bench/all.mjs --quick >/dev/null
node bench/browser.mjs --quick >/dev/null
node bench/scaling.mjs --sessions 40 --rounds 1 --batch 10 >/dev/null
node bench/startup.mjs --runs 1 >/dev/null

close_stage
printf '\n=== all suites passed in %ss; each stage:\n' "$((SECONDS - start))"
printf '%s\n' "${times[@]}"
