#!/usr/bin/env bash
# The demo: builds the package if needed and runs examples/demo.mjs (identities, signatures,
# agreements, in both wasm variants).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
scripts/setup.sh --demo
scripts/build-wasm.sh >/dev/null
node examples/demo.mjs
