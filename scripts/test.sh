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

# Runs the given shell functions at the same time, each logging to a file of its own; prints each
# log in turn, with the lane's time, once all have ended, and fails when any lane failed. Lanes run
# work that leaves a core idle on its own (a fuzzer is one process; browser tests wait on pages).
run_lanes() {
  local dir pids=() ok=1 i=0 fn
  dir="$(mktemp -d /tmp/wacore-lanes.XXXXXX)"
  for fn in "$@"; do
    (
      set -e
      t0=$SECONDS
      "$fn"
      echo "(lane $fn: $((SECONDS - t0)) s)"
    ) >"$dir/$i" 2>&1 &
    pids+=($!)
    i=$((i + 1))
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || { ok=0; echo "(lane ${*:$((i + 1)):1} FAILED)" >>"$dir/$i"; }
  done
  for i in "${!pids[@]}"; do
    echo "--- lane ${*:$((i + 1)):1}"
    cat "$dir/$i"
  done
  rm -rf "$dir"
  [ "$ok" = 1 ] || { echo "a lane failed (above)" >&2; return 1; }
}

step "setup: apt packages and C sources"
scripts/setup.sh --system
# Known answers come from Debian's python3-cryptography-vectors (installed by setup); Wycheproof is
# an extra run when its folder is there (tests/js/vectors.mjs, tests/native/test_util.h).
wycheproof="${WACORE_WYCHEPROOF_DIR:-$here/../shared/vectors/wycheproof}"
if [ -d "$wycheproof" ]; then
  echo "Wycheproof vectors: $wycheproof (their tests run)"
else
  echo "Wycheproof vectors: not found at $wycheproof (their tests are skipped; set WACORE_WYCHEPROOF_DIR to run them)"
fi

# The npm registry's part of setup (the test runner, the Baileys peers whose WAProto.proto the builds
# generate the message schema from, a second Node) is network-bound: the C libraries of the four
# builds, which need none of it, compile meanwhile.
step "setup from npm, beside the C libraries (libsodium, zlib) of the native, sanitized and both wasm builds"
npm_log="$(mktemp /tmp/wacore-setup-npm.XXXXXX)"
# In a session of its own, so that a failure below (or Ctrl-C) stops it and its npm with it.
setsid -w scripts/setup.sh --npm >"$npm_log" 2>&1 &
npm_pid=$!
trap 'kill -- -"$npm_pid" 2>/dev/null; rm -f "$npm_log"' EXIT
# Quiet unless it fails: then its whole output.
quiet() {
  local log
  log="$(mktemp /tmp/wacore-step.XXXXXX)"
  "$@" >"$log" 2>&1 || { cat "$log"; rm -f "$log"; return 1; }
  rm -f "$log"
}
quiet cmake -S . -B build/native -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
quiet cmake --build build/native --target sodium_native zlib_native
quiet scripts/fuzz.sh --libs
quiet scripts/build-wasm.sh --libs
echo "C libraries built at $((SECONDS - stage_start)) s"
if ! wait "$npm_pid"; then
  cat "$npm_log"
  echo "setup --npm failed (above)" >&2
  exit 1
fi
trap - EXIT
cat "$npm_log"
rm -f "$npm_log"

step "native build and tests (incl. the valgrind constant-time check)"
cmake --build build/native
ctest --test-dir build/native --output-on-failure -j "$(nproc)"

step "native tests under AddressSanitizer + UndefinedBehaviorSanitizer (clang; the fuzz targets are built on the same core)"
scripts/fuzz.sh --build
ctest --test-dir build/sanitize --output-on-failure -j "$(nproc)"

# A fixed fuzzing seed unless one is given: the same inputs in every test run (scripts/fuzz.sh).
export WACORE_FUZZ_SEED="${WACORE_FUZZ_SEED:-20261201}"

step "fuzzing in two lanes of 24 s: the binary codec (12 s), sender keys and app-state patches (6 s; seeds from tests/fuzz/make-groups-corpus.mjs), the WAProto codec (6 s) | Signal sessions as a stateful conversation (10 s), the Noise frame decoder and handshake parsers (8 s), the Signal parsers (6 s)"
fuzz() { WACORE_FUZZ_BUILT=1 scripts/fuzz.sh "$@"; }
fuzz_lane1() { fuzz 12 binary && fuzz 6 groups && fuzz 6 proto; }
fuzz_lane2() { fuzz 10 signal_session && fuzz 8 noise && fuzz 6 signal_parse; }
run_lanes fuzz_lane1 fuzz_lane2

step "wasm builds (scalar, SIMD) and their checks"
scripts/build-wasm.sh
ctest --test-dir build/wasm --output-on-failure

step "Node: every suite against the scalar and the SIMD build"
npx vitest run

step "two lanes: Chromium (page and worker, each build), the web chat client (two browsers, a second device and two Baileys bots on the local WhatsApp network), the benchmarks in quick mode (no timing assertions) | the packed package in fresh projects (webpack, esbuild, Rollup, Vite, Parcel in Chromium; Node, Bun, Deno; types), the instruction-count gate and its self-test"
browser_lane() {
  node tests/browser/run.mjs
  node tests/browser/chat.mjs
  node bench/all.mjs --quick >/dev/null
  node bench/browser.mjs --quick >/dev/null
  node bench/scaling.mjs --sessions 40 --rounds 1 --batch 10 >/dev/null
  node bench/startup.mjs --runs 1 >/dev/null
  echo "benchmarks in quick mode: ran"
}
package_lane() {
  node tests/consumers/run.mjs
  # wasm instructions of the headline operations, both builds, within 3% of
  # bench/instructions-baseline.json; then a slowed build must fail it
  node bench/instruction-gate.mjs
  node bench/instruction-gate.mjs --self-test
}
run_lanes browser_lane package_lane

close_stage
printf '\n=== all suites passed in %ss; each stage:\n' "$((SECONDS - start))"
printf '%s\n' "${times[@]}"
