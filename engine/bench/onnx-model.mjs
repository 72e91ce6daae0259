// A minimal protobuf encoder for the ONNX ModelProto of composed attention,
// so the benchmark builds its onnxruntime-web graph in JS (no .onnx files):
//   scores = Gemm(Q, K, transB = 1, alpha = scale)        (L×S)
//   [causal] scores = Add(scores, mask)                   mask: L×S initializer, 0 / -1e9 above the diagonal
//   weights = Softmax(scores, axis = -1)
//   out = MatMul(weights, V)                              (L×d_v)
// Inputs Q (L×d), K (S×d), V (S×d_v), float32, fixed shapes; opset 17, IR 8.
// Field numbers from onnx/onnx.proto.

const enc = new TextEncoder();

class Writer {
  constructor() { this.parts = []; this.length = 0; }
  bytes(u8) { this.parts.push(u8); this.length += u8.length; return this; }
  varint(value) {
    let v = BigInt.asUintN(64, BigInt(value));  // negative int64 -> 10-byte two's complement
    const out = [];
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v) byte |= 0x80;
      out.push(byte);
    } while (v);
    return this.bytes(Uint8Array.from(out));
  }
  tag(field, wire) { return this.varint((field << 3) | wire); }
  int(field, value) { return this.tag(field, 0).varint(value); }
  float(field, value) {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    return this.tag(field, 5).bytes(b);
  }
  len(field, u8) { return this.tag(field, 2).varint(u8.length).bytes(u8); }
  string(field, s) { return this.len(field, enc.encode(s)); }
  message(field, build) { const w = new Writer(); build(w); return this.len(field, w.finish()); }
  finish() {
    const out = new Uint8Array(this.length);
    let o = 0;
    for (const p of this.parts) { out.set(p, o); o += p.length; }
    return out;
  }
}

const FLOAT = 1;               // TensorProto.DataType.FLOAT
const ATTR_FLOAT = 1, ATTR_INT = 2;

function valueInfo(w, field, name, dims) {
  w.message(field, (vi) => {
    vi.string(1, name);
    vi.message(2, (type) => type.message(1, (tensor) => {
      tensor.int(1, FLOAT);
      tensor.message(2, (shape) => { for (const d of dims) shape.message(1, (dim) => dim.int(1, d)); });
    }));
  });
}

function node(w, op, inputs, outputs, attrs = []) {
  w.message(1, (n) => {
    for (const i of inputs) n.string(1, i);
    for (const o of outputs) n.string(2, o);
    n.string(3, `${op}_${outputs[0]}`);
    n.string(4, op);
    for (const a of attrs) {
      n.message(5, (at) => {
        at.string(1, a.name);
        if (a.type === 'float') at.float(2, a.value).int(20, ATTR_FLOAT);
        else at.int(3, a.value).int(20, ATTR_INT);
      });
    }
  });
}

/** Returns the ModelProto bytes for L×d queries, S×d keys, S×dv values. */
export function attentionModel({ L, S, d, dv = d, scale = 1 / Math.sqrt(d), causal = false, maskValue = -1e9 }) {
  const model = new Writer();
  model.int(1, 8);                                  // ir_version
  model.string(2, 'attention-lesson-bench');        // producer_name
  model.message(8, (op) => { op.string(1, ''); op.int(2, 17); });  // opset_import: ai.onnx 17
  model.message(7, (g) => {
    node(g, 'Gemm', ['Q', 'K'], ['scores'], [{ name: 'alpha', type: 'float', value: scale }, { name: 'transB', type: 'int', value: 1 }]);
    let logits = 'scores';
    if (causal) {
      node(g, 'Add', ['scores', 'mask'], ['masked']);
      logits = 'masked';
    }
    node(g, 'Softmax', [logits], ['weights'], [{ name: 'axis', type: 'int', value: -1 }]);
    node(g, 'MatMul', ['weights', 'V'], ['out']);
    g.string(2, 'attention');
    if (causal) {
      const mask = new Float32Array(L * S);
      for (let i = 0; i < L; i++) mask.fill(maskValue, i * S + i + 1, (i + 1) * S);
      g.message(5, (t) => {
        t.int(1, L); t.int(1, S);                   // dims
        t.int(2, FLOAT);                            // data_type
        t.string(8, 'mask');                        // name
        t.len(9, new Uint8Array(mask.buffer));      // raw_data (little-endian float32)
      });
    }
    valueInfo(g, 11, 'Q', [L, d]);
    valueInfo(g, 11, 'K', [S, d]);
    valueInfo(g, 11, 'V', [S, dv]);
    valueInfo(g, 12, 'out', [L, dv]);
  });
  return model.finish();
}
