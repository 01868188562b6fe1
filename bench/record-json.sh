#!/usr/bin/env bash
# Native timing of the session record formats (bench/native/record_json.cpp): writes the record a
# short conversation leaves (libsignal-node's JSON and the binary form, through the package), builds
# the timer against the native core (build/native, from `cmake -S . -B build/native -G Ninja`) and
# runs it. Needs the wasm built (npm/dist) for the record and a native build for the core.
#   bash bench/record-json.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
node --input-type=module -e "
  import { load } from '$here/npm/index.mjs';
  import { Party } from '$here/tests/js/signal-parties.mjs';
  import { writeFileSync } from 'node:fs';
  const api = await load();
  const a = new Party(api, 'alice'), b = new Party(api, 'bob');
  await a.connect(b);
  await b.receive(a, await a.send(b, 'x'));
  await a.receive(b, await b.send(a, 'y'));
  writeFileSync('$work/record.json', a.record(b));
  writeFileSync('$work/record.bin', api.SessionRecord.deserialize(JSON.parse(a.record(b))).toBytes());
"
g++ -std=c++20 -O2 -I"$here/src" -I"$here/third_party/libsodium-1.0.18/src/libsodium/include" \
  "$here/bench/native/record_json.cpp" "$here/build/native/libwacore_native.a" "$here/build/native/libsodium_native.a" \
  -o "$work/record_json"
"$work/record_json" "$work/record.json" "$work/record.bin"
