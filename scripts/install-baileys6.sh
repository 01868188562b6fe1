#!/usr/bin/env bash
# Installs npm Baileys 6.17.16 together with its dependencies into third_party/baileys6-app/, so that
# tests/js/baileys6.test.mjs can run Baileys 6's own Signal repository, socket helpers and codec
# against wacore-wasm/baileys. third_party/ is ignored by git: nothing here is committed.
#
#   scripts/install-baileys6.sh
#
# Why a script and not a devDependency: the package.json of @whiskeysockets/baileys@6.17.16 names
# two dependencies as GitHub repositories,
#   "libsignal": "github:WhiskeySockets/libsignal-node"
#   "@whiskeysockets/eslint-config": "github:whiskeysockets/eslint-config"
# and this workplace reaches only the npm registry (and Debian's archive), so a plain
# `npm install @whiskeysockets/baileys@6.17.16` fails while fetching them.
#
# What the script does about it:
# - libsignal: the GitHub repository is the one that publishes the npm package "libsignal"
#   (its package.json names WhiskeySockets/libsignal-node as its repository), so the registry's
#   libsignal@6.0.0 is the same code line, and it is the version Baileys 7 itself depends on.
# - @whiskeysockets/eslint-config: a lint configuration, needed only to develop Baileys; nothing in
#   Baileys' lib/ loads it. It is dropped rather than replaced: the registry has a version of it,
#   but that brings ESLint and its plugins (about a hundred packages) for nothing.
# npm's "overrides" field can swap the libsignal spec for a registry one (that works with the npm
# used here), but it cannot remove a dependency. So instead the script rewrites the dependency list
# in Baileys' own package.json: it takes the registry tarball (npm pack, or the copy already
# unpacked at third_party/baileys-6.17.16 by scripts/setup.sh), changes "libsignal" to "6.0.0",
# deletes the eslint config, packs it again as a local tarball and installs that from a small
# private package.json. Nothing else in Baileys' files is changed. An "overrides" entry for
# libsignal is kept as well, so that no other path can bring the GitHub spec back.
#
# The optional peers of Baileys 6 (sharp, jimp, link-preview-js, qrcode-terminal; image and link
# preview helpers) are marked optional in its peerDependenciesMeta, so npm does not install them;
# the script checks that they are absent. Install scripts of the dependencies are not run
# (--ignore-scripts): none of them is needed to load Baileys.
#
# Idempotent: when the directory already holds this exact install (same rewritten manifest), the
# script only prints the version. Exits non-zero on any failure.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
app="$here/third_party/baileys6-app"
version="6.17.16"
unpacked="$here/third_party/baileys-$version"
libsignal_version="6.0.0"

say() { echo "install-baileys6: $*"; }
fail() { echo "install-baileys6: error: $*" >&2; exit 1; }
command -v node >/dev/null || fail "node is not on PATH"
command -v npm >/dev/null || fail "npm is not on PATH"

installed_version() {
  node -e 'try { const p = require(process.argv[1]); process.stdout.write(p.version) } catch {}' \
    "$app/node_modules/@whiskeysockets/baileys/package.json"
}

mkdir -p "$app/upstream"

# 1. The registry tarball of Baileys 6.17.16, kept in upstream/ once fetched.
upstream_tgz="$app/upstream/whiskeysockets-baileys-$version.tgz"
stage="$app/upstream/stage"
if [ ! -f "$upstream_tgz" ]; then
  tmp="$(mktemp -d "$app/upstream/pack.XXXXXX")"
  if (cd "$tmp" && npm pack --silent "@whiskeysockets/baileys@$version" >/dev/null 2>"$tmp/err"); then
    mv "$tmp"/whiskeysockets-baileys-"$version".tgz "$upstream_tgz"
    say "fetched @whiskeysockets/baileys@$version with npm pack"
  elif [ -f "$unpacked/package.json" ]; then
    say "npm pack failed ($(tail -n1 "$tmp/err")); using the unpacked copy at third_party/baileys-$version"
  else
    cat "$tmp/err" >&2
    rm -rf "$tmp"
    fail "npm pack @whiskeysockets/baileys@$version failed and third_party/baileys-$version is absent"
  fi
  rm -rf "$tmp"
fi

# 2. Baileys' files with the rewritten dependency list, in upstream/stage/package/.
rm -rf "$stage"
mkdir -p "$stage"
if [ -f "$upstream_tgz" ]; then
  tar xzf "$upstream_tgz" -C "$stage"
else
  mkdir -p "$stage/package"
  cp -R "$unpacked/." "$stage/package/"
fi
node - "$stage/package/package.json" "$version" "$libsignal_version" <<'EOF'
const fs = require('fs');
const [file, version, libsignalVersion] = process.argv.slice(2);
const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
if (pkg.name !== '@whiskeysockets/baileys' || pkg.version !== version) {
  console.error(`install-baileys6: error: ${file} is ${pkg.name}@${pkg.version}, not @whiskeysockets/baileys@${version}`);
  process.exit(1);
}
const deps = pkg.dependencies ?? {};
if (!String(deps.libsignal).startsWith('github:')) {
  console.error(`install-baileys6: error: unexpected libsignal spec ${deps.libsignal}`);
  process.exit(1);
}
deps.libsignal = libsignalVersion;
delete deps['@whiskeysockets/eslint-config'];
for (const [name, spec] of Object.entries(deps)) {
  if (/^(github:|git[+:]|https?:)/.test(spec)) {
    console.error(`install-baileys6: error: dependency ${name} is still not from the registry: ${spec}`);
    process.exit(1);
  }
}
// Lifecycle scripts (prepare/prepack run tsc) only matter to Baileys' own developers.
delete pkg.scripts;
delete pkg.devDependencies;
fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + '\n');
EOF
# Packed with fixed names, owners and times, so the same input gives the same tarball.
local_tgz="$app/upstream/whiskeysockets-baileys-$version-registry-deps.tgz"
tar --sort=name --mtime='2000-01-01 00:00:00Z' --owner=0 --group=0 --numeric-owner \
  -czf "$local_tgz.new" -C "$stage" package
rm -rf "$stage"
manifest_sum="$(tar xzOf "$local_tgz.new" package/package.json | sha256sum | cut -d' ' -f1)"

# 3. The private project that depends on it.
cat > "$app/package.json.new" <<EOF
{
  "name": "baileys6-app",
  "private": true,
  "description": "Baileys $version with registry dependencies, for tests/js/baileys6.test.mjs (made by scripts/install-baileys6.sh)",
  "dependencies": {
    "@whiskeysockets/baileys": "file:./upstream/whiskeysockets-baileys-$version-registry-deps.tgz"
  },
  "overrides": {
    "libsignal": "$libsignal_version"
  }
}
EOF
stamp="$app/node_modules/.install-baileys6-stamp"
want="$manifest_sum $(sha256sum "$app/package.json.new" | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ "$(installed_version)" = "$version" ]; then
  rm -f "$local_tgz.new" "$app/package.json.new"
  say "already installed"
else
  mv "$local_tgz.new" "$local_tgz"
  mv "$app/package.json.new" "$app/package.json"
  rm -rf "$app/node_modules" "$app/package-lock.json"
  say "npm install in third_party/baileys6-app (registry only)"
  # Once more after 10 s when the registry drops the connection (ECONNRESET happens).
  (cd "$app" && npm install --no-audit --no-fund --ignore-scripts --loglevel=error) ||
    { sleep 10; (cd "$app" && npm install --no-audit --no-fund --ignore-scripts --loglevel=error); } ||
    fail "npm install failed"
  echo "$want" > "$stamp"
fi

# 4. Checks: the versions asked for, no GitHub package, no optional peer, and Baileys loads.
[ "$(installed_version)" = "$version" ] || fail "node_modules/@whiskeysockets/baileys is not $version"
got_libsignal="$(node -e 'process.stdout.write(require(process.argv[1]).version)' "$app/node_modules/libsignal/package.json")"
[ "$got_libsignal" = "$libsignal_version" ] || fail "libsignal is $got_libsignal, not $libsignal_version"
[ ! -e "$app/node_modules/@whiskeysockets/eslint-config" ] || fail "@whiskeysockets/eslint-config was installed"
for peer in sharp jimp link-preview-js qrcode-terminal; do
  [ ! -e "$app/node_modules/$peer" ] || say "note: optional peer $peer is installed"
done
(cd "$app" && node -e '
  const b = require("@whiskeysockets/baileys");
  const { makeLibSignalRepository } = require("@whiskeysockets/baileys/lib/Signal/libsignal.js");
  for (const f of ["initAuthCreds", "makeCacheableSignalKeyStore", "addTransactionCapability", "parseAndInjectE2ESessions", "getNextPreKeysNode", "decryptMessageNode", "encodeBinaryNode", "decodeBinaryNode"]) {
    if (typeof b[f] !== "function") throw new Error("Baileys does not export " + f);
  }
  if (typeof makeLibSignalRepository !== "function") throw new Error("no makeLibSignalRepository");
') || fail "the installed Baileys does not load"
say "installed @whiskeysockets/baileys@$(installed_version) (libsignal@$got_libsignal) in third_party/baileys6-app"
