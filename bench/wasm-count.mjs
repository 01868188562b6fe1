// Counts the wasm instructions a module executes: instrument(bytes) returns a copy of a module with
// one mutable i64 global, exported as `wacore_icount`, that grows by the length of each straight run
// of instructions as the run starts. The count is a property of the module and its inputs alone: the
// same on every CPU, Node version and machine load, unlike the x86 instructions callgrind counts
// under V8 (which depend on the JIT and the CPU's extensions). bench/instruction-gate.mjs uses it.
//
// A run ends after an instruction that may leave it (br, br_if, br_table, return, unreachable,
// throw, rethrow) and where control may enter (inside a loop, after if, else, end, catch, catch_all
// and delegate); every other instruction, structural ones included, counts one. Calls do not end a
// run: the callee's instructions are counted in the callee, and the rest of the caller's run is
// counted as it starts, so a call that throws counts the instructions after it that did not run
// (deterministic all the same). The instrumented module computes exactly what the original does.
//
//   node bench/wasm-count.mjs IN.wasm OUT.wasm     writes the instrumented copy

const enc = {
  u32(n) {
    const out = [];
    do {
      let b = n & 0x7f;
      n >>>= 7;
      if (n) b |= 0x80;
      out.push(b);
    } while (n);
    return out;
  },
  i64(n) {
    // Signed LEB128 of a BigInt.
    const out = [];
    let v = BigInt(n);
    for (;;) {
      const b = Number(v & 0x7fn);
      v >>= 7n;
      if ((v === 0n && !(b & 0x40)) || (v === -1n && b & 0x40)) {
        out.push(b);
        return out;
      }
      out.push(b | 0x80);
    }
  },
  name(s) {
    const b = [...new TextEncoder().encode(s)];
    return [...enc.u32(b.length), ...b];
  },
};

class Reader {
  constructor(bytes, pos = 0, end = bytes.length) {
    this.b = bytes;
    this.pos = pos;
    this.end = end;
  }
  byte() {
    if (this.pos >= this.end) throw new Error(`wasm-count: read past the end at ${this.pos}`);
    return this.b[this.pos++];
  }
  u32() {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (!(b & 0x80)) return result;
    }
  }
  /** Skips a signed LEB128 of any width. */
  sleb() {
    while (this.byte() & 0x80);
  }
  skip(n) {
    this.pos += n;
    if (this.pos > this.end) throw new Error('wasm-count: read past the end');
  }
  blockType() {
    const b = this.b[this.pos];
    if (b === 0x40 || (b >= 0x6f && b <= 0x7f)) this.pos++;
    else this.sleb(); // a type index, as s33
  }
  memarg() {
    const align = this.u32();
    if (align & 0x40) this.u32(); // memory index (multi-memory)
    this.u32(); // offset
  }
}

// What ends a run after it, and what starts one after it.
const LEAVES = new Set([0x00, 0x09, 0x08, 0x0c, 0x0d, 0x0e, 0x0f, 0x12, 0x13]);
const ENTERS = new Set([0x03, 0x04, 0x05, 0x07, 0x0b, 0x18, 0x19]);

/** Skips one instruction's immediates (the opcode byte already read). */
function immediates(r, op) {
  if (op === 0x02 || op === 0x03 || op === 0x04 || op === 0x06) return r.blockType();
  if ((op >= 0x07 && op <= 0x09) || op === 0x0c || op === 0x0d || op === 0x10 || op === 0x12 || op === 0x18) return r.u32();
  if (op === 0x0e) {
    const n = r.u32();
    for (let i = 0; i <= n; i++) r.u32();
    return;
  }
  if (op === 0x11 || op === 0x13) return (r.u32(), r.u32());
  if (op === 0x1c) {
    const n = r.u32();
    return r.skip(n);
  }
  if (op >= 0x20 && op <= 0x26) return r.u32();
  if (op >= 0x28 && op <= 0x3e) return r.memarg();
  if (op === 0x3f || op === 0x40) return r.byte();
  if (op === 0x41 || op === 0x42) return r.sleb();
  if (op === 0x43) return r.skip(4);
  if (op === 0x44) return r.skip(8);
  if (op === 0xd0) return r.byte();
  if (op === 0xd2) return r.u32();
  if (op === 0xfc) {
    const sub = r.u32();
    if (sub <= 7) return;
    if (sub === 8) return (r.u32(), r.byte());
    if (sub === 9 || sub === 13 || (sub >= 15 && sub <= 17)) return r.u32();
    if (sub === 10) return r.skip(2);
    if (sub === 11) return r.byte();
    if (sub === 12 || sub === 14) return (r.u32(), r.u32());
    throw new Error(`wasm-count: unknown 0xfc ${sub}`);
  }
  if (op === 0xfd) {
    const sub = r.u32();
    if (sub <= 11 || sub === 0x5c || sub === 0x5d) return r.memarg();
    if (sub === 12 || sub === 13) return r.skip(16);
    if (sub >= 21 && sub <= 34) return r.byte();
    if (sub >= 0x54 && sub <= 0x5b) return (r.memarg(), r.byte());
    return; // every other SIMD instruction has no immediates
  }
  if ((op >= 0x45 && op <= 0xc4) || op === 0x00 || op === 0x01 || op === 0x05 || op === 0x0b || op === 0x0f ||
      op === 0x19 || op === 0x1a || op === 0x1b || op === 0xd1) return;
  throw new Error(`wasm-count: unknown opcode 0x${op.toString(16)} at ${r.pos - 1}`);
}

/** One function body, rewritten: the counter bumped at the start of each run. */
function instrumentBody(bytes, start, end, global) {
  const r = new Reader(bytes, start, end);
  const nLocalGroups = r.u32();
  for (let i = 0; i < nLocalGroups; i++) {
    r.u32();
    r.byte();
  }
  const out = [...bytes.subarray(start, r.pos)];
  const bump = (n) => out.push(0x23, ...enc.u32(global), 0x42, ...enc.i64(n), 0x7c, 0x24, ...enc.u32(global));
  let runStart = r.pos;
  let runLength = 0;
  const flush = (upTo) => {
    if (runLength) bump(runLength);
    for (let i = runStart; i < upTo; i++) out.push(bytes[i]);
    runStart = upTo;
    runLength = 0;
  };
  while (r.pos < end) {
    const op = r.byte();
    immediates(r, op);
    runLength++;
    if (LEAVES.has(op) || ENTERS.has(op)) flush(r.pos);
  }
  flush(r.pos);
  return out;
}

/** The instrumented copy of a wasm module (Uint8Array), exporting its counter as `wacore_icount`. */
export function instrument(bytes) {
  bytes = new Uint8Array(bytes);
  const r = new Reader(bytes, 8);
  const sections = [];
  while (r.pos < bytes.length) {
    const header = r.pos;
    const id = r.byte();
    const size = r.u32();
    sections.push({ id, header, start: r.pos, end: r.pos + size });
    r.skip(size);
  }
  const find = (id) => sections.find((s) => s.id === id);
  // Imported globals come first in the global index space.
  let importedGlobals = 0;
  const imp = find(2);
  if (imp) {
    const s = new Reader(bytes, imp.start, imp.end);
    for (let n = s.u32(); n > 0; n--) {
      s.skip(s.u32());
      s.skip(s.u32());
      const kind = s.byte();
      if (kind === 0) s.u32();
      else if (kind === 1) {
        s.byte();
        const flags = s.byte();
        s.u32();
        if (flags & 1) s.u32();
      } else if (kind === 2) {
        const flags = s.byte();
        s.u32();
        if (flags & 1) s.u32();
      } else if (kind === 3) {
        s.byte();
        s.byte();
        importedGlobals++;
      } else if (kind === 4) {
        s.byte();
        s.u32();
      } else throw new Error(`wasm-count: unknown import kind ${kind}`);
    }
  }
  const globals = find(6);
  const exports = find(7);
  const code = find(10);
  if (!globals || !exports || !code) throw new Error('wasm-count: the module needs global, export and code sections');
  const gr = new Reader(bytes, globals.start, globals.end);
  const definedGlobals = gr.u32();
  const counter = importedGlobals + definedGlobals;

  const rewritten = new Map();
  rewritten.set(6, [...enc.u32(definedGlobals + 1), ...bytes.subarray(gr.pos, globals.end), 0x7e, 0x01, 0x42, 0x00, 0x0b]);
  const er = new Reader(bytes, exports.start, exports.end);
  const nExports = er.u32();
  rewritten.set(7, [...enc.u32(nExports + 1), ...bytes.subarray(er.pos, exports.end), ...enc.name('wacore_icount'), 0x03, ...enc.u32(counter)]);
  const cr = new Reader(bytes, code.start, code.end);
  const nBodies = cr.u32();
  const body = [...enc.u32(nBodies)];
  for (let i = 0; i < nBodies; i++) {
    const size = cr.u32();
    const fn = instrumentBody(bytes, cr.pos, cr.pos + size, counter);
    body.push(...enc.u32(fn.length));
    for (const b of fn) body.push(b);
    cr.skip(size);
  }
  rewritten.set(10, body);

  const parts = [bytes.subarray(0, 8)];
  for (const s of sections) {
    const content = rewritten.get(s.id);
    if (content === undefined) {
      parts.push(bytes.subarray(s.header, s.end));
    } else {
      parts.push(Uint8Array.of(s.id, ...enc.u32(content.length)), Uint8Array.from(content));
    }
  }
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { readFileSync, writeFileSync } = await import('node:fs');
  const [input, output] = process.argv.slice(2);
  if (!input || !output) {
    console.error('usage: node bench/wasm-count.mjs IN.wasm OUT.wasm');
    process.exit(2);
  }
  writeFileSync(output, instrument(readFileSync(input)));
}
