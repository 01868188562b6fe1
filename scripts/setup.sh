#!/usr/bin/env bash
# Installs what the build and tests need, and nothing that is already there.
# Safe to run repeatedly: a second run on a ready machine takes about a second.
#
#   scripts/setup.sh            everything (build + tests + browser)
#   scripts/setup.sh --demo     only what the demo needs (no Chromium, no test-only packages)
#
# Needs root on a Debian 12 machine (apt). Reaches only Debian's apt repositories and the npm registry.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mode="${1:-all}"

# Debian packages. emscripten 3.1.6 + binaryen 108 build the wasm; g++/gtest/valgrind the native tests;
# dpkg-dev gives `apt-get source`; nlohmann-json reads the Wycheproof files in native tests.
pkgs=(emscripten binaryen cmake ninja-build g++ pkg-config dpkg-dev)
# Node >= 20 runs the loader, the tests and the demo; any node on PATH will do (Debian's or another).
if ! command -v node >/dev/null || ! node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)'; then
  pkgs+=(nodejs npm)
fi
if [ "$mode" != "--demo" ]; then
  pkgs+=(libgtest-dev valgrind nlohmann-json3-dev chromium)
fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# libsodium source, fetched with apt-get source (Debian's tarball plus its security patches), used
# by all three builds (native, scalar wasm, SIMD wasm). Never committed: fetched here.
SODIUM_VERSION="1.0.18-1+deb12u1"
tp="$here/third_party"
if [ ! -f "$tp/libsodium-1.0.18/src/libsodium/include/sodium.h" ]; then
  src_list=/etc/apt/sources.list.d/debian-src.sources
  if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
    # The machine's own deb822 sources file with Types switched to deb-src: same mirrors, same suites.
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > "$src_list"
    apt-get update -qq
  fi
  mkdir -p "$tp"
  (cd "$tp" && apt-get source -qq "libsodium=$SODIUM_VERSION" >/dev/null 2>&1) || {
    apt-get update -qq
    (cd "$tp" && apt-get source -qq "libsodium=$SODIUM_VERSION" >/dev/null)
  }
  rm -f "$tp"/libsodium_*
fi

# npm dependencies of the repository (test runner, browser driver, interop peers). Pinned in
# package-lock.json; reinstalled only when the lock file changes.
if [ "$mode" != "--demo" ]; then
  stamp="$here/node_modules/.lock-stamp"
  want="$(sha256sum "$here/package-lock.json" | cut -d' ' -f1)"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "setup: npm ci"
    (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$want" > "$stamp"
  fi
fi
