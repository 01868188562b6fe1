#!/usr/bin/env bash
# Proves that a clone with nothing beside it tests green: clones this repository's HEAD into a fresh
# folder under /tmp (no ../shared there), then runs the suites that read test vectors — the native
# GoogleTest suite and every Node suite on both builds — with the Wycheproof folder absent, and
# checks that they said so. Run by .ci/run after scripts/test.sh; needs what scripts/setup.sh
# installs. Third-party sources and node_modules are linked from this checkout to save the
# downloads (they sit inside the repository, not beside it).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="$(mktemp -d /tmp/wacore-bare.XXXXXX)"
trap 'rm -rf "$root"' EXIT
git clone -q "$here" "$root/wacore"
cd "$root/wacore"
[ ! -e ../shared ] || { echo "test-bare-clone: $root/shared exists" >&2; exit 1; }
ln -s "$here/third_party" third_party
ln -s "$here/node_modules" node_modules
unset WACORE_WYCHEPROOF_DIR

echo "== bare clone at $root/wacore: native suite"
status="$(cmake -S . -B build/native -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo | grep 'Wycheproof vectors')"
echo "$status"
case "$status" in *"not found"*) ;; *) echo "test-bare-clone: Wycheproof was not reported absent" >&2; exit 1 ;; esac
cmake --build build/native >/dev/null
ctest --test-dir build/native --output-on-failure | tee ctest.log | tail -4
grep -q 'Wycheproof.*(Skipped)' ctest.log

echo "== bare clone: wasm builds and every Node suite on both"
scripts/build-wasm.sh >/dev/null
npx vitest run 2>&1 | tee vitest.log | tail -6
grep -Eq 'Tests .* skipped' vitest.log
echo "bare clone: passed, Wycheproof reported absent and skipped"
