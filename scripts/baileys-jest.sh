#!/usr/bin/env bash
# Runs Baileys' own jest suite (src/__tests__/**/*.test.ts) with wacore-wasm in place of two of its
# crypto dependencies, to show that Baileys behaves the same on top of our package:
#   - whatsapp-rust-bridge      -> npm/whatsapp-rust-bridge.mjs (md5, hkdf, expandAppStateKeys, LTHash)
#   - libsignal/src/curve       -> tests/baileys-jest/curve.mjs (X25519 and XEdDSA, libsignal-node's contract)
# The aliases are moduleNameMapper entries added to Baileys' jest config by
# tests/baileys-jest/jest.config.mjs; no file of Baileys is edited.
#
# Usage: BAILEYS_SRC=/path/to/Baileys scripts/baileys-jest.sh [extra jest arguments]
#   WACORE_ALIASES=0   run the unmodified suite instead (the baseline to compare against)
#   JEST_MAX_WORKERS   jest worker count (default 1, so as to leave the other cores alone)
# Baileys' devDependencies are installed with npm inside the checkout (its node_modules), once;
# nothing is installed in this repository. Needs the wasm built (npm/dist) and Node 20.16+.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

if [ -z "${BAILEYS_SRC:-}" ]; then
  echo "baileys-jest: skipped (BAILEYS_SRC is not set)."
  echo "  To run it: git clone https://github.com/WhiskeySockets/Baileys /tmp/baileys-src"
  echo "             BAILEYS_SRC=/tmp/baileys-src $0"
  exit 0
fi
src="$(cd "$BAILEYS_SRC" && pwd)"
[ -f "$src/jest.config.ts" ] && [ -d "$src/src/__tests__" ] || {
  echo "baileys-jest: $src does not look like a Baileys checkout (no jest.config.ts or src/__tests__)" >&2
  exit 1
}
# WAProto/index.js is committed in Baileys but over 4 MiB; partial copies may lack it.
[ -f "$src/WAProto/index.js" ] || {
  echo "baileys-jest: $src/WAProto/index.js is missing; generate it with Baileys' own 'yarn gen:protobuf'" >&2
  exit 1
}
[ -f "$here/npm/dist/wacore.scalar.wasm" ] || {
  echo "baileys-jest: npm/dist is not built; run scripts/build-wasm.sh first" >&2
  exit 1
}

# Install Baileys' dependencies once, from the npm registry (npm, since Yarn 4 is not at hand).
# --ignore-scripts skips Baileys' "prepare" build, which the tests do not need;
# --no-package-lock leaves its lockfiles (yarn.lock) untouched. A stamp records which
# package.json the install was for, so a rerun installs again only if that changes.
stamp="$src/node_modules/.wacore-baileys-jest.stamp"
want="$(sha256sum "$src/package.json" | cut -d' ' -f1)"
if [ ! -x "$src/node_modules/.bin/jest" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "== installing Baileys' dependencies in $src/node_modules"
  (cd "$src" && npm install --ignore-scripts --no-package-lock --no-audit --no-fund --loglevel=error)
  echo "$want" >"$stamp"
fi

commit="$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)"
version="$(node -p "require('$src/package.json').version")"
mode="aliased to wacore-wasm"; [ "${WACORE_ALIASES:-1}" = 0 ] && mode="unaliased baseline"
echo "== Baileys $version ($commit), jest suite, $mode"

# Same invocation as Baileys' "npm test" (ES modules need --experimental-vm-modules), with our
# config wrapper. The JSON report is only read back for the one-line summary at the end.
report="$(mktemp /tmp/baileys-jest.XXXXXX.json)"
trap 'rm -f "$report"' EXIT
status=0
(cd "$src" && BAILEYS_SRC="$src" node --experimental-vm-modules node_modules/jest/bin/jest.js \
  --config "$here/tests/baileys-jest/jest.config.mjs" --testMatch '**/*.test.ts' \
  --maxWorkers="${JEST_MAX_WORKERS:-1}" --json --outputFile="$report" "$@") || status=$?

node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(`baileys-jest: tests ${r.numPassedTests} passed, ${r.numFailedTests} failed, ` +
    `${r.numPendingTests + r.numTodoTests} skipped, ${r.numTotalTests} total ` +
    `(suites ${r.numPassedTestSuites} passed, ${r.numFailedTestSuites} failed, ${r.numTotalTestSuites} total)`);
' "$report" || echo "baileys-jest: jest wrote no report (exit status $status)"
exit "$status"
