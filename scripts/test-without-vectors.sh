#!/usr/bin/env bash
# Proves that the suites reading test vectors pass where ../shared is absent, as in a user's clone:
# runs the native GoogleTest suite and the Node suites that read vectors (both builds) with the
# Wycheproof folder pointed at a path that does not exist, and checks that they said so and skipped
# those tests. Both read the folder at run time ($WACORE_WYCHEPROOF_DIR, tests/native/test_util.cpp
# and tests/js/vectors.mjs), so the builds scripts/test.sh made are reused. Run by .ci/run after
# scripts/test.sh (CI's clone has ../shared beside it).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
start=$SECONDS
log="$(mktemp -d /tmp/wacore-novectors.XXXXXX)"
trap 'rm -rf "$log"' EXIT
export WACORE_WYCHEPROOF_DIR="$log/absent"

# Nothing else may reach for ../shared: only the two defaults of the vector folder name it.
refs="$(git grep -l -e '\.\./shared' -e '\.\./\.\./\.\./shared' -- ':!*.md' ':!scripts/test-without-vectors.sh' | sort | tr '\n' ' ')"
[ "$refs" = "CMakeLists.txt scripts/test.sh tests/js/vectors.mjs tests/native/test_util.h " ] ||
  { echo "test-without-vectors: unexpected references to ../shared in: $refs" >&2; exit 1; }

echo "== native suite without the Wycheproof folder"
ctest --test-dir build/native --output-on-failure -j "$(nproc)" | tee "$log/ctest.log" | tail -3
grep -q 'Wycheproof.*(Skipped)' "$log/ctest.log"
if grep -Eq 'Wycheproof.*Passed' "$log/ctest.log"; then
  echo "test-without-vectors: a Wycheproof test ran without its vectors" >&2; exit 1
fi

echo "== Node suites that read vectors, both builds, without the Wycheproof folder"
npx vitest run tests/js/kat.test.mjs tests/js/crypto.test.mjs tests/js/curve.test.mjs 2>&1 | tee "$log/vitest.log" | tail -6
grep -Eq 'Tests .* skipped' "$log/vitest.log"
echo "without vectors: passed in $((SECONDS - start)) s, Wycheproof reported absent and skipped"
