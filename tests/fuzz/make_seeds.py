#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_engine (tests/fuzz/corpus/) in its input format.

The format, read from the front, little-endian, zeros past the end:
  u8 op % 5: 0 attention (every variant, KeyValues, trace, statistics), 1 softmax_row,
             2 experiment + random_normal, 3 score_matrix_bytes, 4 heads and the KV cache
  attention: u8 L, u8 S (x < 224: x % 24 + 1, else x - 224 + 41), u8 d_k-1, u8 d_v-1 (modulo 12), u8 flags
             (1 causal, 2 mask, 4 scale given, 32 row_offset near SIZE_MAX, 64 block_q = SIZE_MAX),
             f32 scale, [u8 block_q-1 unless flag 64], u8 block_k-1,
             row_offset (u8 if flag 32: SIZE_MAX - it; else u16 % 160),
             then q, k, v: u8 mode, u8 exponent, entries (mode % 4 == 0: f32 bits each;
             else int8 each, the value int8/8 * 2^(exponent-128)), then the mask bits (LSB first),
             then u8 window (0 = none; SIZE_MAX - it with flag 16), u8 query_period % 80 (0 = off).
  softmax_row: u8 n-1, u8 subtract_max (bit 0), n f32, u8 c: 256·c more copies of the last logit.
  score_matrix_bytes: 5 x (u8 mode, then u32 >> mode % 32 if mode is even, else f64 bits as 2 u32),
             then visible_pairs: u8 flags (1 causal, 2 m big, 4 window near 2^64, 8 row_offset near
             2^64, 16 row_offset = u32 << 21, 32 a period even when m = 0), u8 P-1 (% 64), u8 rest (% P),
             m (u32 << (u8 % 9) with flag 2, else u8 % 3), u16 S-1 (% 300), window (u32: 2^64-1 - it
             with flag 4; else u16 % 400), row_offset (u32 with flag 8 or 16; else u16 % 400); L = m·P + rest;
             then kv_bytes_read: 4 x (u32, u8 shift % 33) for H_kv, S, d_k, d_v (each + 1), u8 G-1 (% 4).
  heads (op 4: multihead_attention, then KvCache prefill + decode steps of the same sequence):
             u8 H_kv-1 (% 3), u8 G-1 (% 4; H_q = H_kv·G), u8 L-1 (% 8), u8 S-1 (% 10), u8 d_k-1 (% 9),
             u8 d_v-1 (% 9), u8 flags (1 causal, 2 chunked, 4 reference, 8 window follows, 16 the window
             also in multihead_attention and a prefill through prefill_attention, 32 query_period =
             (flags >> 6) % L + 1; 16 and 32 read no bytes),
             [u8 window % (S+2) if flag 8], u8 prompt rows % (S+1), then q (H_q·L, d_k),
             k (H_kv·S, d_k), v (H_kv·S, d_v) as above, u8 block_q-1 (% 9), u8 block_k-1 (% 9).
  checkpoint (op 5 exactly; other values >= 5 still wrap to 0..4): u8 mode, then the rest of the input
             is given to load_checkpoint, with its last 4 bytes replaced by the right CRC-32 if mode is odd.
  backward (op 6, the attention backward): see backward() below.
  character model (op 7): see char_model() below.
Run from the repository root: python3 tests/fuzz/make_seeds.py
"""
import os
import struct
import zlib

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus')
F32_MAX = 3.4028234663852886e38
INF = float('inf')


def f32(*xs):
    return b''.join(struct.pack('<f', x) for x in xs)


def raw(*xs):  # a matrix in mode 0 (raw float32 bits)
    return bytes([0, 128]) + f32(*xs)


def small(exponent, *ints):  # a matrix in mode 1: int8/8 * 2^(exponent-128)
    return bytes([1, exponent]) + bytes(i & 0xff for i in ints)


def attention(L, S, dk, dv, q, k, v, flags=0, scale=0.0, bq=64, bk=64, row_offset=0, mask=b'', window=None, period=0):
    def length(n):  # inverse of the decoder's length(): 1..24 below 224, 41..72 from 224
        assert 1 <= n <= 24 or 41 <= n <= 72
        return n - 1 if n <= 24 else n - 41 + 224
    head = bytes([0, length(L), length(S), dk - 1, dv - 1, flags]) + f32(scale)
    if not flags & 64:
        head += bytes([bq - 1])
    head += bytes([bk - 1])
    head += bytes([row_offset]) if flags & 32 else struct.pack('<H', row_offset)
    tail = b'' if window is None else bytes([window, period])  # older seeds end at the mask
    return head + q + k + v + mask + tail


def raw_bits(*bits):  # a matrix in mode 0 from float32 bit patterns
    return bytes([0, 128]) + b''.join(struct.pack('<I', b) for b in bits)


def seeds():
    # issue 13, item 1: (scale·q)·k = inf - inf for key 0; the reference gives 6
    for causal in (0, 1):
        for b in (1, 2, 64):
            yield f'defect1a-causal{causal}-b{b}', attention(
                1, 2, 2, 1, raw(3e38, 3e38), raw(2, -2, 0, 0), raw(5, 7), flags=causal, bq=b, bk=b)
    # item 1: scale·q = inf, inf·(-1e-38) = -inf, inf·0 = NaN; the reference gives 6.995
    for b in (1, 2, 64):
        yield f'defect1b-b{b}', attention(
            1, 2, 1, 1, raw(3e38), raw(-1e-38, 0), raw(5, 7), flags=4, scale=2.0, bq=b, bk=b)
    # item 2: values near FLT_MAX summed before dividing by l
    for b in (1, 2, 64):
        yield f'defect2-b{b}', attention(1, 2, 1, 1, raw(1), raw(0, 0), raw(3e38, 3e38), bq=b, bk=b)
    # logits of ±FLT_MAX and past it, denormals, signed zeros
    yield 'logit-flt-max', attention(1, 2, 1, 1, raw(F32_MAX), raw(1, -1), raw(2, 9), flags=4, scale=1.0)
    yield 'logit-past-flt-max', attention(1, 2, 1, 1, raw(F32_MAX), raw(2, -1), raw(2, 9), flags=4, scale=1.0)
    yield 'denormals', attention(2, 3, 2, 2, raw(1e-40, -0.0, -1e-45, 1e-45), raw(1e-40, 1e-45, -0.0, 0.0, 1e-45, -1e-40),
                                 raw(1e-40, 1, -0.0, 2, 1e-45, 3), flags=2 | 4, scale=1e30, mask=bytes([0b101111]))
    # the outside probe's find: v = two equal subnormals (bits 0x3f3f); the materialized kernel
    # returns 0x3f40, one step of 2^-149 above max|v| (the convex-combination check needs absolute slack)
    yield 'denormal-convex', attention(1, 2, 1, 1, raw(0), raw(0, 0), raw_bits(0x3f3f, 0x3f3f))
    yield 'nan-in-k', attention(1, 2, 1, 1, raw(1), raw(float('nan'), 0), raw(1, 2))
    yield 'inf-in-v', attention(1, 2, 1, 1, raw(1), raw(0, 0), raw(1, -INF))  # the first fuzz run's find (a harness bug)
    yield 'inf-scale', attention(1, 1, 1, 1, raw(1), raw(1), raw(1), flags=4, scale=INF)
    yield 'zero-scale', attention(1, 1, 1, 1, raw(1), raw(1), raw(1), flags=4, scale=0.0)
    # ordinary shapes across block edges, causal with a row offset and a mask
    ints = [((i * 37) % 61) - 30 for i in range(4000)]
    yield 'ordinary-10x13', attention(10, 13, 5, 3, small(128, *ints[:50]), small(128, *ints[50:115]),
                                      small(128, *ints[115:154]), flags=1 | 2, bq=3, bk=4, row_offset=2,
                                      mask=bytes([0b10110111] * 17))
    yield 'ordinary-70x71', attention(70, 71, 3, 2, small(128, *ints[:210]), small(128, *ints[210:423]),
                                      small(128, *ints[423:565]), flags=1, bq=64, bk=5)
    yield 'huge-offset-and-block', attention(5, 6, 2, 2, small(130, *ints[:10]), small(126, *ints[10:22]),
                                             small(200, *ints[22:34]), flags=1 | 32 | 64, bk=80, row_offset=3)
    # sliding windows (causal and band), with a mask, an offset, a period, w = 1, w past SIZE_MAX - 255
    yield 'window-causal-70x71', attention(70, 71, 3, 2, small(128, *ints[:210]), small(128, *ints[210:423]),
                                           small(128, *ints[423:565]), flags=1, bq=13, bk=7, window=9)
    yield 'window-band-mask', attention(10, 13, 5, 3, small(128, *ints[:50]), small(128, *ints[50:115]),
                                        small(128, *ints[115:154]), flags=2, bq=3, bk=4, row_offset=2,
                                        mask=bytes([0b10110111] * 17), window=3)
    yield 'window-1-period', attention(12, 9, 2, 2, small(128, *ints[:24]), small(128, *ints[24:42]),
                                       small(128, *ints[42:60]), flags=1, bq=5, bk=2, row_offset=3, window=1, period=4)
    yield 'window-huge-offset', attention(5, 6, 2, 2, small(130, *ints[:10]), small(126, *ints[10:22]),
                                          small(200, *ints[22:34]), flags=1 | 16 | 32, bk=3, row_offset=3, window=2)
    yield 'window-logit-past-safe', attention(3, 4, 1, 1, raw(3e19, -3e19, 1), raw(4e18, 1, -1, 2), raw(1, 2, 3, 4),
                                              flags=4, scale=1.0, bq=2, bk=2, window=2)
    # softmax_row at the edges
    yield 'softmax-edges', bytes([1, 3, 1]) + f32(F32_MAX, -F32_MAX, 0.0, -INF)
    yield 'softmax-no-subtract', bytes([1, 2, 0]) + f32(100.0, 1.0, -1e-45)
    # a weight near 1, then 65281 terms of exp(-17.4) ~ 2.8e-8, each under half a float32 ulp of
    # the running sum: a float32 sum lost all of them (0.18% of the total)
    yield 'softmax-long-tail', bytes([1, 1, 1]) + f32(0.0, -17.4) + bytes([255])
    # experiment and the memory model
    yield 'experiment', bytes([2, 7, 3, 2]) + struct.pack('<I', 1) + bytes([0]) + struct.pack('<I', 7) + bytes([32, 1])
    yield 'memory-model', bytes([3, 0]) + struct.pack('<I', 2048) + bytes([0]) + struct.pack('<I', 4) + b'\0\1\0\0\0' * 3
    yield 'memory-model-huge', bytes([3]) + (bytes([1]) + struct.pack('<d', 1e300)) * 5
    # visible_pairs: causal, window 5, period 7, L = 2^31·7 + 1 rows of 300 keys (past 2^32 rows);
    # kv_bytes_read: H_kv = 2^32 + 1, S = 2, d_k = 2^20 + 1, d_v = 3: past 2^53 (TooLarge)
    yield 'memory-model-pairs-and-bytes', (bytes([3, 0]) + struct.pack('<I', 2048) + bytes([0]) + struct.pack('<I', 4)
                                           + b'\0\1\0\0\0' * 3 + bytes([1 | 2 | 32, 6, 1])
                                           + struct.pack('<I', 1 << 30) + bytes([1]) + struct.pack('<H', 299)
                                           + struct.pack('<H', 5) + struct.pack('<H', 0)
                                           + struct.pack('<I', 1) + bytes([32]) + struct.pack('<I', 1) + bytes([0])
                                           + struct.pack('<I', 1) + bytes([20]) + struct.pack('<I', 2) + bytes([0])
                                           + bytes([1]))
    # heads: GQA (H_kv = 2, G = 2), L = 3, S = 5, d = 2, causal, window 3, 2 prompt rows
    yield 'heads-gqa-window', (bytes([4, 1, 1, 2, 4, 1, 1, 1 | 8, 3, 2]) + small(128, *ints[:24])
                               + small(128, *ints[24:44]) + small(128, *ints[44:64]) + bytes([1, 2]))
    # heads: GQA (H_kv = 2, G = 2), L = 6, S = 8, d = 2, causal, window 3 in multihead_attention and
    # prefill_attention (5 prompt rows), query_period (flags >> 6) % 6 + 1: 3 (divides L, one call
    # per group; chunked, blocks 3x2) and 4 (does not: one call per head; materialized)
    for name, flags in (('heads-prefill-window-period3', 1 | 2 | 8 | 16 | 32 | 128),
                        ('heads-prefill-window-period4', 1 | 8 | 16 | 32 | 192)):
        yield name, (bytes([4, 1, 1, 5, 7, 1, 1, flags, 3, 5]) + small(128, *ints[:48])
                     + small(128, *ints[48:80]) + small(128, *ints[80:112]) + bytes([2, 1]))
    # heads: MQA (H_kv = 1, G = 4), chunked, values near FLT_MAX/S (the decode's double path)
    yield 'heads-mqa-huge-v', (bytes([4, 0, 3, 1, 6, 2, 0, 2, 3]) + small(128, *ints[64:88])
                               + small(128, *ints[88:109]) + small(252, *ints[109:116]) + bytes([0, 3]))

    # checkpoints (op 5): valid tiny files in each format, with and without AdamW state,
    # one with a bad CRC (mode 0: refused), one past the weight bound, one truncated
    yield 'ckpt-f32', bytes([5, 0]) + checkpoint(0)
    yield 'ckpt-f16-adam', bytes([5, 0]) + checkpoint(1, optimizer=True)
    yield 'ckpt-int8', bytes([5, 0]) + checkpoint(2)
    yield 'ckpt-gqa-f32', bytes([5, 0]) + checkpoint(0, heads=2, kv_heads=1, width=4)
    bad = bytearray(checkpoint(1))
    bad[130] ^= 1
    yield 'ckpt-bad-crc', bytes([5, 0]) + bytes(bad)
    yield 'ckpt-crc-fixed', bytes([5, 1]) + bytes(bad)  # mode 1: the target rewrites the CRC
    yield 'ckpt-huge-weight', bytes([5, 0]) + checkpoint(0, weight=1e6)
    yield 'ckpt-truncated', bytes([5, 0]) + checkpoint(0)[:-9]

    # the attention backward (op 6): n = 1; L != S with a window and an offset that leave rows
    # seeing no key, odd tiles; a query block past one 64-row tile; a NaN planted in d_out
    yield 'backward-n1', backward(1, 1, 1, 1, 0, bq=1, bk=1)
    yield 'backward-window-masked', backward(5, 7, 3, 2, 1 | 2, window=2, row_offset=30, bq=2, bk=3)
    yield 'backward-window-band', backward(9, 9, 4, 3, 2, window=3, row_offset=0, bq=4, bk=3)
    yield 'backward-tall', backward(41, 13, 5, 4, 1, row_offset=12, bq=7, bk=5)
    yield 'backward-nan', backward(3, 4, 2, 2, 4 | 8, bq=2, bk=2, plant=5)

    # the character model (op 7): a GQA model, one with a single character and context 1, a
    # bad character in the batch, a width the heads do not divide, a zero vocabulary
    yield 'charmodel-gqa', char_model(0b0001, vocab=7, context=9, layers=2, heads=4, head_width=3, batch=2, T=8)
    yield 'charmodel-n1', char_model(0, vocab=1, context=1, layers=1, heads=1, head_width=1, batch=1, T=1)
    yield 'charmodel-bad-char', char_model(0b1000, vocab=5, context=4, layers=1, heads=2, head_width=2, batch=3, T=3)
    yield 'charmodel-bad-width', char_model(0b0100, vocab=5, context=4, layers=1, heads=3, head_width=2, batch=1, T=2)
    yield 'charmodel-no-vocab', char_model(0, vocab=0, context=4, layers=1, heads=1, head_width=2, batch=1, T=2)


def checkpoint(fmt, optimizer=False, vocab=3, context=2, width=2, layers=1, heads=1, kv_heads=1, weight=0.25):
    """A checkpoint in the layout of engine/README.md ("Checkpoints"), version 1."""
    C, hd = width, width // heads
    Ckv, F = hd * kv_heads, 4 * width
    tensors = [(vocab * C, C), (context * C, C)]  # (size, row length), the parameter layout's order
    for _ in range(layers):
        tensors += [(C, C), (C, C), (C * C, C), (C, C), (Ckv * C, C), (Ckv, Ckv), (Ckv * C, C), (Ckv, Ckv),
                    (C * C, C), (C, C), (C, C), (C, C), (F * C, C), (F, F), (C * F, F), (C, C)]
    tensors += [(C, C), (C, C)]
    total = sum(n for n, _ in tensors)
    out = b'ATTNCKPT' + struct.pack('<III', 1, fmt, 1 if optimizer else 0)
    out += struct.pack('<6IQ', vocab, context, width, layers, heads, kv_heads, 1)
    out += struct.pack('<ddIIdffff', 3e-3, 3e-4, 10, 100, 1.0, 0.9, 0.95, 1e-8, 0.01)
    out += struct.pack('<QQ', 7 if optimizer else 0, total)
    out += struct.pack('<%dI' % vocab, *[0x0a, 0x20, 0x627, 0x628][:vocab])
    i = 0
    for n, cols in tensors:
        vals = [weight * (((i + k) * 37) % 17 - 8) / 8 for k in range(n)]
        i += n
        if fmt == 0:
            out += struct.pack('<%df' % n, *vals)
        elif fmt == 1:
            out += struct.pack('<%de' % n, *vals)
        else:
            for r in range(n // cols):
                row = vals[r * cols:(r + 1) * cols]
                scale = max(abs(x) for x in row) / 127
                out += struct.pack('<f', scale) + bytes((round(x / scale) if scale else 0) & 0xff for x in row)
    if optimizer:
        out += struct.pack('<%df' % total, *[0.01] * total) + struct.pack('<%df' % total, *[1e-4] * total)
    return out + struct.pack('<I', zlib.crc32(out))


def backward(L, S, dk, dv, flags, window=0, row_offset=0, bq=64, bk=64, plant=None):
    """Op 6: u8 L, u8 S (x % 20 + 1 below 224, else x - 224 + 41), u8 d_k-1 (% 12), u8 d_v-1 (% 12),
    u8 flags (1 causal, 2 window follows, 4 plant a NaN (8) or an inf in d_out), [u8 window % 24],
    u8 row_offset % 48, u8 block_q-1 (% 80), u8 block_k-1 (% 80), then q (L, d_k), k (S, d_k),
    v (S, d_v), d_out (L, d_v), each entry an int8 / 16, [u8 the planted entry]."""
    def size(n):
        return n - 1 if n <= 20 else n - 41 + 224
    out = bytes([6, size(L), size(S), dk - 1, dv - 1, flags])
    if flags & 2:
        out += bytes([window])
    out += bytes([row_offset, bq - 1, bk - 1])
    count = L * dk + S * dk + S * dv + L * dv
    out += bytes(((i * 37 + 11) % 255) for i in range(count))
    if plant is not None:
        out += bytes([plant])
    return out


def char_model(shape, vocab, context, layers, heads, head_width, batch, T, seed=3):
    """Op 7: u8 shape (bits 0-1 grouped-query, bit 2 a width the heads do not divide, bit 3 a
    character past the vocabulary), u8 vocab % 25, u8 context-1 (% 12), u8 layers % 4,
    u8 heads-1 (% 4), u8 head width-1 (% 6), u32 seed, u8 batch-1 (% 3), u8 T-1 (% context),
    then batch*T inputs and batch*T targets (u8 % vocab each), [u8 where, u8 how far past]."""
    out = bytes([7, shape, vocab, context - 1, layers, heads - 1, head_width - 1]) + struct.pack('<I', seed)
    out += bytes([batch - 1, T - 1])
    out += bytes(((i * 29 + 5) % 251) for i in range(2 * batch * T))
    if shape & 8:
        out += bytes([4, 2])
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, data in seeds():
        with open(os.path.join(OUT, name), 'wb') as f:
            f.write(data)


if __name__ == '__main__':
    main()
