// build-scripts/relax-wasm.mjs: rewrites clang 14's prototype f32x4.relaxed_fma
// (0xfd 0xaf 0x01) to f32x4.relaxed_madd (0xfd 0x85 0x02) only where it is an
// instruction, never inside an immediate, and refuses what it cannot decode.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { relaxWasm } from '../../build-scripts/relax-wasm.mjs';

const HEADER = [0, 97, 115, 109, 1, 0, 0, 0];
// type 0: (v128 v128 v128) -> v128; one function of that type
const TYPES = [1, 8, 1, 96, 3, 123, 123, 123, 1, 123, 3, 2, 1, 0];

function moduleWithBody(body) {
  const fn = [0, ...body, 11];          // no locals, body, end
  const code = [1, fn.length, ...fn];   // one function (sizes < 128: one LEB byte)
  return new Uint8Array([...HEADER, ...TYPES, 10, code.length, ...code]);
}

// v128.const whose 16 bytes contain the opcode's bytes, then the real thing
const LOOKALIKE = [0xfd, 12, 0xfd, 0xaf, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
const BODY = [...LOOKALIKE, 0x1a,                    // v128.const …, drop
  0x20, 0, 0x20, 1, 0x20, 2, 0xfd, 0xaf, 0x01];     // local.get 0..2, f32x4.relaxed_fma (prototype)

test('only the instruction is rewritten, to the final opcode; immediates are left alone', () => {
  const input = moduleWithBody(BODY);
  const { bytes, rewrites } = relaxWasm(input);
  assert.equal(rewrites, 1);
  const at = input.length - 4;  // 0xfd and the two LEB bytes of the sub-opcode, before `end`
  assert.deepEqual([...input.slice(at, at + 3)], [0xfd, 0xaf, 0x01]);
  assert.deepEqual([...bytes.slice(at, at + 3)], [0xfd, 0x85, 0x02]);
  const constAt = input.indexOf(12, HEADER.length + TYPES.length) + 1;
  assert.deepEqual([...bytes.slice(constAt, constAt + 3)], [0xfd, 0xaf, 0x01], 'the v128.const bytes are unchanged');
  assert.equal(bytes.length, input.length);
});

test('a module without the prototype opcode comes back unchanged', () => {
  const input = moduleWithBody([0x20, 0, 0x20, 1, 0xfd, 0xe4, 0x01]);  // f32x4.add (0xe4)
  const { bytes, rewrites } = relaxWasm(input);
  assert.equal(rewrites, 0);
  assert.deepEqual([...bytes], [...input]);
});

test('an instruction it cannot decode is an error, not a silent pass', () => {
  assert.throws(() => relaxWasm(moduleWithBody([0xfe, 0x00])), /threads, exceptions or tail calls/);
  assert.throws(() => relaxWasm(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8])), /not a wasm module/);
});
