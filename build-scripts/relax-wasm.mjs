#!/usr/bin/env node
// Rewrites the relaxed-SIMD multiply-add that Emscripten 3.1.6's clang 14
// emits under its prototype opcode (f32x4.relaxed_fma, 0xfd 0xaf) to the
// opcode the finished proposal and today's browsers use (f32x4.relaxed_madd,
// 0xfd 0x105). Both LEB128 sub-opcodes are two bytes long, so the module's
// layout does not move: only those two bytes change.
//
// To find real instructions (not look-alike bytes inside constants or
// addresses) it decodes every instruction of every function body; anything
// it cannot decode (threads, exceptions, an unknown prefix) is an error. The
// engine asks for no other relaxed-SIMD operation (clang emits them only for
// their builtins), and the rewritten module must pass WebAssembly.validate,
// so a module no browser accepts fails the build instead of shipping.
//
//   node --experimental-wasm-relaxed-simd build-scripts/relax-wasm.mjs IN.wasm OUT.wasm
//   (Node 20 validates relaxed SIMD only with that flag)

import fs from 'node:fs';

const PROTO_FMA = 0xaf;       // clang 14: f32x4.relaxed_fma (prototype)
const FINAL_MADD = 0x105;     // f32x4.relaxed_madd (relaxed-simd, final)

export function relaxWasm(input) {
  const b = new Uint8Array(input);
  let p = 0;
  const fail = (msg) => { throw new Error(`relax-wasm: ${msg} at byte ${p}`); };
  const u32 = () => {
    let result = 0, shift = 0, byte;
    do {
      if (p >= b.length) fail('unexpected end');
      byte = b[p++];
      result += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return result;
  };
  const sleb = () => { let byte; do { byte = b[p++]; } while (byte & 0x80); };  // value unused
  const memarg = () => { u32(); u32(); };
  const blocktype = () => {
    const t = b[p];
    if (t === 0x40 || (t >= 0x6f && t <= 0x7f)) p++;
    else sleb();
  };

  if (b[0] !== 0 || b[1] !== 0x61 || b[2] !== 0x73 || b[3] !== 0x6d) fail('not a wasm module');
  p = 8;
  let rewrites = 0;
  while (p < b.length) {
    const id = b[p++];
    const size = u32();
    const end = p + size;
    if (id !== 10) { p = end; continue; }
    const count = u32();
    for (let f = 0; f < count; f++) {
      const bodySize = u32();
      const bodyEnd = p + bodySize;
      const groups = u32();
      for (let g = 0; g < groups; g++) { u32(); p++; }  // count, value type
      while (p < bodyEnd) {
        const op = b[p++];
        if (op === 0x02 || op === 0x03 || op === 0x04) blocktype();
        else if (op === 0x0c || op === 0x0d || op === 0x10 || (op >= 0x20 && op <= 0x26) || op === 0xd2) u32();
        else if (op === 0x0e) { const n = u32(); for (let i = 0; i <= n; i++) u32(); }
        else if (op === 0x11) { u32(); u32(); }
        else if (op === 0x1c) { const n = u32(); p += n; }
        else if (op >= 0x28 && op <= 0x3e) memarg();
        else if (op === 0x3f || op === 0x40) u32();
        else if (op === 0x41 || op === 0x42) sleb();
        else if (op === 0x43) p += 4;
        else if (op === 0x44) p += 8;
        else if (op === 0xd0) p++;
        else if (op === 0xfc) {
          const sub = u32();
          if (sub <= 7) { /* saturating truncations */ }
          else if (sub === 8 || sub === 12 || sub === 14) { u32(); u32(); }
          else if (sub === 10) { u32(); u32(); }
          else if (sub === 9 || sub === 11 || sub === 13 || (sub >= 15 && sub <= 17)) u32();
          else fail(`unknown 0xfc ${sub}`);
        } else if (op === 0xfd) {
          const at = p;
          const sub = u32();
          if (sub <= 11 || sub === 92 || sub === 93) memarg();
          else if (sub === 12 || sub === 13) p += 16;
          else if (sub >= 21 && sub <= 34) p++;
          else if (sub >= 84 && sub <= 91) { memarg(); p++; }
          else if (sub === PROTO_FMA) {
            if (p - at !== 2) fail('unexpected encoding of f32x4.relaxed_fma');
            b[at] = 0x80 | (FINAL_MADD & 0x7f);
            b[at + 1] = FINAL_MADD >> 7;
            rewrites++;
          }
        } else if (op === 0xfe || (op >= 0x06 && op <= 0x09) || op === 0x12 || op === 0x13 || op === 0x18 || op === 0x19) {
          fail(`instruction 0x${op.toString(16)} (threads, exceptions or tail calls) is not handled`);
        } else if (!(op <= 0x01 || op === 0x05 || op === 0x0b || op === 0x0f || op === 0x1a || op === 0x1b ||
                     (op >= 0x45 && op <= 0xc4) || op === 0xd1)) {
          fail(`unknown opcode 0x${op.toString(16)}`);
        }
      }
      if (p !== bodyEnd) fail(`function ${f} decoded past its end`);
    }
    if (p !== end) fail('code section size mismatch');
  }
  return { bytes: b, rewrites };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [input, output] = process.argv.slice(2);
  if (!input || !output) {
    console.error('usage: relax-wasm.mjs IN.wasm OUT.wasm');
    process.exit(2);
  }
  const { bytes, rewrites } = relaxWasm(fs.readFileSync(input));
  if (rewrites === 0) {
    console.error(`relax-wasm: no f32x4.relaxed_fma in ${input}`);
    process.exit(1);
  }
  if (!WebAssembly.validate(bytes)) {
    console.error(`relax-wasm: the rewritten ${input} does not validate (run node with --experimental-wasm-relaxed-simd)`);
    process.exit(1);
  }
  fs.writeFileSync(output, bytes);
  console.log(`relax-wasm: ${rewrites} f32x4.relaxed_fma -> f32x4.relaxed_madd in ${output}`);
}
