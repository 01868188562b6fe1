#!/usr/bin/env bash
# Fuzzes the binary node codec, the Noise frame decoder, Signal sessions, the sender-key and
# app-state patch parsers or the WAProto codec with libFuzzer (ASan + UBSan) for a bounded time;
# exits non-zero on any crash, sanitizer report, property violation, timeout or out-of-memory.
#
#   scripts/fuzz.sh [seconds] [binary|noise|signal_parse|signal_session|groups|proto]     default 30 binary
#
# Builds build/sanitize with clang first if needed: the sanitized native tree, whose core the
# GoogleTest suite under ASan + UBSan shares (cmake/Fuzz.cmake). `scripts/fuzz.sh --build` builds that
# whole tree and runs nothing (scripts/test.sh does it once, runs the suite, then runs two fuzz
# targets at a time with WACORE_FUZZ_BUILT=1, which skips the build step so that two runs never
# share ninja). The run works on a
# temporary copy of tests/fuzz/corpus/<target>: inputs it finds never land in the repository. On a
# failure the temporary directory is kept and the failing input is printed in hex.
#
# WACORE_FUZZ_SEED=N fixes libFuzzer's seed (scripts/test.sh sets one, so that a test run explores the
# same inputs on every machine and a failure in CI replays here); unset, each run draws its own seed,
# which is how longer campaigns should run.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
build="$here/build/sanitize"
configure() {
  if [ ! -f "$build/build.ninja" ]; then
    CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWACORE_SANITIZE=ON -DWACORE_FUZZ=ON >/dev/null
  fi
}
if [ "${1:-}" = "--build" ]; then
  configure
  cmake --build "$build"
  exit 0
fi
# The tree's C libraries alone (libsodium, zlib): what scripts/test.sh compiles while npm installs.
if [ "${1:-}" = "--libs" ]; then
  configure
  cmake --build "$build" --target sodium_native zlib_native
  exit 0
fi
secs="${1:-30}"
target="${2:-binary}"
[[ "$secs" =~ ^[0-9]+$ && "$target" =~ ^(binary|noise|signal_parse|signal_session|groups|proto)$ ]] ||
  { echo "usage: scripts/fuzz.sh [seconds] [binary|noise|signal_parse|signal_session|groups|proto]" >&2; exit 2; }

if [ -z "${WACORE_FUZZ_BUILT:-}" ]; then
  configure
  cmake --build "$build" --target "wacore_${target}_fuzz" >/dev/null
fi

work="$(mktemp -d -t wacore-fuzz.XXXXXX)"
cp -r "tests/fuzz/corpus/$target" "$work/corpus"
log="$work/fuzz.log"
rc=0
UBSAN_OPTIONS=print_stacktrace=1 "$build/wacore_${target}_fuzz" "$work/corpus" \
  ${WACORE_FUZZ_SEED:+-seed="$WACORE_FUZZ_SEED"} -max_total_time="$secs" -timeout=5 -rss_limit_mb=2048 -artifact_prefix="$work/" >"$log" 2>&1 || rc=$?

# libFuzzer's last status line ("#N DONE cov: ... exec/s: ... rss: ...") and its run count.
grep -E '^#[0-9]+[[:space:]]+DONE|^Done [0-9]+ runs' "$log" || true
if [ "$rc" -ne 0 ]; then
  tail -n 60 "$log"
  for f in "$work"/crash-* "$work"/timeout-* "$work"/oom-* "$work"/leak-*; do
    [ -f "$f" ] || continue
    echo "fuzz: failing input $f ($(wc -c <"$f") bytes):"
    od -An -v -tx1 "$f" | tr -d ' \n' | head -c 8192
    echo
  done
  echo "fuzz: FAILED (exit $rc); log and inputs kept in $work" >&2
  exit 1
fi
rm -rf "$work"
