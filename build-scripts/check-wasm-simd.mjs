// ctest check: the shipped attn.wasm really computes with 4-lane float SIMD.
// Disassembles it with binaryen's wasm-dis and counts f32x4 instructions.
// Usage: node check-wasm-simd.mjs <wasm-dis> <attn.wasm>
import { execFileSync } from 'node:child_process';

const [wasmDis, wasmFile] = process.argv.slice(2);
if (!wasmDis || !wasmFile) {
  console.error('usage: node check-wasm-simd.mjs <wasm-dis> <attn.wasm>');
  process.exit(2);
}
const text = execFileSync(wasmDis, [wasmFile], { maxBuffer: 1 << 30, encoding: 'utf8' });

const counts = {};
for (const [op] of text.matchAll(/\bf32x4\.[a-z_]+\b/g)) counts[op] = (counts[op] ?? 0) + 1;
const total = Object.values(counts).reduce((a, b) => a + b, 0);
console.log(`${wasmFile}: ${total} f32x4 instructions`);
for (const [op, n] of Object.entries(counts).sort((a, b) => b[1] - a[1])) console.log(`  ${op.padEnd(24)} ${n}`);

// The dot product and axpy building blocks need lane-wise multiply and add.
const required = ['f32x4.mul', 'f32x4.add'];
const missing = required.filter((op) => !counts[op]);
if (missing.length) {
  console.error(`FAIL: no ${missing.join(', ')} in ${wasmFile}: the kernels were not compiled to wasm SIMD128`);
  process.exit(1);
}
console.log('OK: wasm SIMD128 float kernels present');
