#!/usr/bin/env node
// Turns WhatsApp's message schema (WAProto.proto, as published in the Baileys devDependency) into the
// compact schema the protobuf codec reads (src/proto/schema.h), at build time:
//
//   node scripts/gen-proto.mjs OUT.h [WAProto.proto]
//   node scripts/gen-proto.mjs --types [--check]
//
// --types writes the TypeScript declarations of every message and enum into npm/index.d.ts,
// between its "WAProto" markers (committed: the package ships them); --check only compares.
//
// The .proto is parsed by protobufjs (the parser Baileys itself generates its code with), so field
// names are the camelCase names Baileys users know, and "packed" is what protobufjs encodes. The
// output is one byte array, the same bytes the core reads (native and wasm) and the JS side reads
// out of the module at first use (so the schema is shipped once, inside the .wasm):
//
//   "WAP1"
//   varint  length of the names, then every name, LF-separated, in the order the structure below
//           uses them (each "name" below takes the next one; the core skips them, JS reads them)
//   varint  enum count; per enum: name, value count, per value: name, zigzag(value - previous - 1)
//   varint  message count; per message: name, field count, per field:
//             zigzag(number - previous - 1), name, kind (u8), flags (u8), [type: enum or message
//             index], [map: key kind (u8), value kind (u8), [value type]],
//           oneof count, per oneof: name, member count, member field indexes
//
// Names kept apart from the numbers and deltas in place of values: both compress better (26.6 KB
// gzip against 34.8 KB for names inline with absolute numbers).
// Names are relative to the package ("Message.ImageMessage"). Fields are in field-number order,
// which is the order protobufjs writes them in. Kinds are descriptor.proto's TYPE_ numbers.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const typesMode = args.includes('--types');
const checkMode = args.includes('--check');
const [out, protoArg] = typesMode ? ['npm/index.d.ts'] : args;
const PROTO = protoArg ?? join(root, 'node_modules/@whiskeysockets/baileys/WAProto/WAProto.proto');
const fail = (msg) => {
  console.error(`gen-proto: ${msg}`);
  process.exit(1);
};
if (!out) fail('usage: gen-proto.mjs OUT.h [WAProto.proto]');

// protobufjs is Baileys' dependency: resolved from the Baileys package, wherever npm put it.
let pb;
try {
  const require = createRequire(join(root, 'node_modules/@whiskeysockets/baileys/package.json'));
  pb = require('protobufjs');
} catch {
  fail('protobufjs not found: run scripts/setup.sh (npm ci) first');
}

const KIND = { double: 1, float: 2, int64: 3, uint64: 4, int32: 5, fixed64: 6, fixed32: 7, bool: 8, string: 9, message: 11, bytes: 12, uint32: 13, enum: 14, sfixed32: 15, sfixed64: 16, sint32: 17, sint64: 18 };
const PACKABLE = new Set(['double', 'float', 'int64', 'uint64', 'int32', 'fixed64', 'fixed32', 'bool', 'uint32', 'sfixed32', 'sfixed64', 'sint32', 'sint64']);
const FLAG = { repeated: 1, packed: 2, presence: 4, map: 8, optional: 16 };

const rootNs = pb.loadSync(PROTO);
rootNs.resolveAll();
const pkg = rootNs.lookup('proto');
if (!pkg) fail(`${PROTO}: no package "proto"`);
const rel = (fullName) => fullName.replace(/^\.proto\./, '');

// Every message and enum, depth first in declaration order.
const messages = [];
const enums = [];
const walk = (ns) => {
  for (const o of ns.nestedArray) {
    if (o instanceof pb.Type) {
      messages.push(o);
      walk(o);
    } else if (o instanceof pb.Enum) enums.push(o);
    else if (o instanceof pb.Namespace) walk(o);
  }
};
walk(pkg);
const messageIndex = new Map(messages.map((m, i) => [m, i]));
const enumIndex = new Map(enums.map((e, i) => [e, i]));

// The names, in the order the structure uses them.
const nameText = [];
const name = (s) => {
  if (!/^[A-Za-z0-9_.]+$/.test(s)) fail(`unexpected name ${JSON.stringify(s)}`);
  nameText.push(s);
};

const bytes = [];
const u8 = (v) => bytes.push(v & 0xff);
const varint = (v) => {
  if (!Number.isSafeInteger(v) || v < 0) fail(`varint ${v}`);
  while (v >= 0x80) {
    bytes.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  bytes.push(v);
};
const zigzag = (v) => varint(v >= 0 ? v * 2 : -v * 2 - 1);

const kindOf = (typeName, resolved) => {
  if (resolved instanceof pb.Type) return KIND.message;
  if (resolved instanceof pb.Enum) return KIND.enum;
  const k = KIND[typeName];
  if (!k || typeName === 'message' || typeName === 'enum') fail(`unknown field type ${typeName}`);
  return k;
};
const typeRef = (resolved) => (resolved instanceof pb.Type ? messageIndex.get(resolved) : enumIndex.get(resolved));

// --- TypeScript declarations (--types) -------------------------------------------------------------
const TS_SCALAR = { double: 'number', float: 'number', int32: 'number', uint32: 'number', sint32: 'number', fixed32: 'number', sfixed32: 'number', int64: 'Long64', uint64: 'Long64', sint64: 'Long64', fixed64: 'Long64', sfixed64: 'Long64', bool: 'boolean', string: 'string', bytes: 'Uint8Array' };
function writeTypes() {
  const tsType = (typeName, resolved) => (resolved ? `WAProto.${rel(resolved.fullName)}` : TS_SCALAR[typeName]);
  const lines = [];
  const emit = (ns, indent) => {
    for (const o of ns.nestedArray) {
      if (o instanceof pb.Enum) {
        const values = Object.entries(o.values);
        lines.push(`${indent}/** enum ${rel(o.fullName)}: ${values.map(([k, v]) => `${k} = ${v}`).join(', ')} */`);
        lines.push(`${indent}type ${o.name} = ${[...new Set(values.map(([, v]) => v))].join(' | ') || 'number'};`);
      } else if (o instanceof pb.Type) {
        lines.push(`${indent}interface ${o.name} {`);
        for (const f of o.fieldsArray.slice().sort((a, b) => a.id - b.id)) {
          let t = tsType(f.type, f.resolvedType);
          if (f.map) t = `Record<string, ${t}>`;
          else if (f.repeated) t = `${t}[]`;
          lines.push(`${indent}  ${/^[A-Za-z_$][\w$]*$/.test(f.name) ? f.name : JSON.stringify(f.name)}?: ${t};`);
        }
        lines.push(`${indent}}`);
        if (o.nestedArray.length > 0) {
          lines.push(`${indent}namespace ${o.name} {`);
          emit(o, `${indent}  `);
          lines.push(`${indent}}`);
        }
      }
    }
  };
  emit(pkg, '  ');
  const map = messages.map((m) => `  ${JSON.stringify(rel(m.fullName))}: WAProto.${rel(m.fullName)};`);
  const version = /WhatsApp Version:\s*([0-9.]+)/.exec(readFileSync(PROTO, 'utf8'))?.[1] ?? 'unknown';
  const block = `// <generated by scripts/gen-proto.mjs --types: WAProto>
/** WhatsApp's message types (WAProto, WhatsApp ${version}) as proto.decode() returns them: fields
 * present on the wire only, enums as numbers, bytes as Uint8Array, 64-bit integers as Long64. */
export declare namespace WAProto {
${lines.join('\n')}
}
/** Every message type by the name proto.decode() and proto.encode() take. */
export interface WAProtoTypes {
${map.join('\n')}
}
// </generated>`;
  const file = join(root, out);
  const text = readFileSync(file, 'utf8');
  const a = text.indexOf('// <generated by scripts/gen-proto.mjs --types: WAProto>');
  const b = text.indexOf('// </generated>', a);
  if (a < 0 || b < 0) fail(`${out}: the WAProto markers are missing`);
  const next = text.slice(0, a) + block + text.slice(b + '// </generated>'.length);
  if (checkMode) {
    if (next !== text) fail(`${out} is stale: run node scripts/gen-proto.mjs --types`);
  } else writeFileSync(file, next);
  process.exit(0);
}
if (typesMode) writeTypes();

const body = [];
let fieldCount = 0;
const encodeAll = () => {
  varint(enums.length);
  for (const e of enums) {
    name(rel(e.fullName));
    const entries = Object.entries(e.values);
    varint(entries.length);
    let next = 0;
    for (const [n, v] of entries) {
      name(n);
      zigzag(v - next);
      next = v + 1;
    }
  }
  varint(messages.length);
  for (const m of messages) {
    name(rel(m.fullName));
    // By field number: the order protobufjs (and protobuf's canonical form) writes fields in.
    const fields = m.fieldsArray.slice().sort((a, b) => a.id - b.id);
    varint(fields.length);
    let next = 1;
    for (const f of fields) {
      fieldCount++;
      if (f.id < 1 || f.id > 536870911) fail(`${m.fullName}.${f.name}: field number ${f.id}`);
      zigzag(f.id - next);
      next = f.id + 1;
      name(f.name);
      if (f.map) {
        u8(0); // kind: a map has no kind of its own
        u8(FLAG.map | FLAG.repeated);
        const kk = KIND[f.keyType];
        if (!kk || kk === KIND.double || kk === KIND.float || kk === KIND.bytes) fail(`${m.fullName}.${f.name}: map key ${f.keyType}`);
        u8(kk);
        const vk = kindOf(f.type, f.resolvedType);
        u8(vk);
        if (vk === KIND.message || vk === KIND.enum) varint(typeRef(f.resolvedType));
        continue;
      }
      const k = kindOf(f.type, f.resolvedType);
      let flags = 0;
      if (f.repeated) flags |= FLAG.repeated;
      if (f.repeated && f.packed && PACKABLE.has(f.resolvedType instanceof pb.Enum ? 'int32' : f.type)) flags |= FLAG.packed;
      // Explicit presence: proto3 `optional`, members of a oneof, and message fields. Other proto3
      // singular scalars have implicit presence: their default value is not written.
      if (!f.repeated && (f.partOf || k === KIND.message || f.options?.proto3_optional || rootNs.syntax === 'proto2')) flags |= FLAG.presence;
      // Declared `optional` (protobufjs gives such fields no default in toObject({ defaults })).
      if (f.options?.proto3_optional) flags |= FLAG.optional;
      u8(k);
      u8(flags);
      if (k === KIND.message || k === KIND.enum) varint(typeRef(f.resolvedType));
    }
    // Real oneofs only (protobufjs makes one "_name" oneof per proto3 optional field).
    const oneofs = m.oneofsArray.filter((o) => !(o.fieldsArray.length === 1 && o.fieldsArray[0].options?.proto3_optional));
    varint(oneofs.length);
    for (const o of oneofs) {
      name(o.name);
      varint(o.fieldsArray.length);
      for (const f of o.fieldsArray) varint(fields.indexOf(f));
    }
  }
};
encodeAll();
body.push(...bytes);
bytes.length = 0;
for (const c of 'WAP1') u8(c.charCodeAt(0));
const text = Buffer.from(nameText.join('\n'), 'latin1');
varint(text.length);
bytes.push(...text);
bytes.push(...body);

// The .proto's version line ("/// WhatsApp Version: ...") goes into the header's comment.
const version = /WhatsApp Version:\s*([0-9.]+)/.exec(readFileSync(PROTO, 'utf8'))?.[1] ?? 'unknown';
const rows = [];
for (let i = 0; i < bytes.length; i += 24) rows.push('  ' + bytes.slice(i, i + 24).map((b) => `${b},`).join(''));
const header = `// Generated by scripts/gen-proto.mjs from WAProto.proto (WhatsApp ${version}) at build time. Do not edit.
// ${messages.length} messages, ${enums.length} enums, ${fieldCount} fields; ${bytes.length} bytes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wacore::proto::generated {

inline constexpr char kVersion[] = "${version}";
inline constexpr size_t kSchemaSize = ${bytes.length};
alignas(4) inline constexpr uint8_t kSchema[kSchemaSize] = {
${rows.join('\n')}
};

}  // namespace wacore::proto::generated
`;
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, header);
