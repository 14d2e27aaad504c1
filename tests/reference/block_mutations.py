"""Deliberately wrong readings of GGML's blocks, one plausible layout mistake per type.

quantized_weights.py reruns the reference with each wrong reading of a type the file
holds: kvchat's logits must be farther from it than the bound, so the bound (loose where
a backend dots 8-bit activations) still tells a wrong reading of that type apart.
Each entry: ggml type id -> (what is wrong, dequantizer over (n_blocks, block_bytes)).
"""
from __future__ import annotations

import numpy as np

import ggml_blocks as gb


def _q5_no_high_half_bit(b: np.ndarray, qh_at: int, qs_at: int) -> np.ndarray:
    qh = b[:, qh_at:qh_at + 4].copy().view("<u4")
    bits = gb._bits(qh, 32)
    bits[:, 16:] = 0                                   # weights 16..31 lose their fifth bit
    return gb._nibbles32(b[:, qs_at:qs_at + 16]) | (bits << 4)


def q4_0_interleaved(b):
    q = gb._nibbles32(b[:, 2:18])
    q = np.stack([q[:, :16], q[:, 16:]], axis=2).reshape(-1, 32)   # low/high nibbles interleaved
    return gb._f16(b, 0) * (q - 8)


def q8_0_unsigned(b):
    return gb._f16(b, 0) * (b[:, 2:34].astype(np.int64) - 128)     # quants read as offset-128 bytes


def q4_1_interleaved(b):
    q = gb._nibbles32(b[:, 4:20])
    q = np.stack([q[:, :16], q[:, 16:]], axis=2).reshape(-1, 32)   # low/high nibbles interleaved
    return gb._f16(b, 0) * q + gb._f16(b, 2)


def q5_0_wrong(b):
    return gb._f16(b, 0) * (_q5_no_high_half_bit(b, 2, 6) - 16)


def q5_1_wrong(b):
    return gb._f16(b, 0) * _q5_no_high_half_bit(b, 4, 8) + gb._f16(b, 2)


def q2_k_one_scale_per_32(b):
    s = b[:, 0:16].copy()
    s[:, 1::2] = s[:, 0::2]                            # sub-block 2i+1 reuses sub-block 2i's scale/min
    return gb.q2_k(np.concatenate([s, b[:, 16:]], axis=1))


def q3_k_4bit_scales(b):
    s = b[:, 96:108].copy()
    s[:, 8:12] = 0                                     # the scales' top 2 bits dropped
    return gb.q3_k(np.concatenate([b[:, :96], s, b[:, 108:]], axis=1))


def _k4_low_bits_only(b):
    s = b[:, 4:16].copy()
    s[:, 0:8] &= 63                                    # sub-blocks 4..7 lose their top 2 bits
    return np.concatenate([b[:, :4], s, b[:, 16:]], axis=1)


def q4_k_wrong(b):
    return gb.q4_k(_k4_low_bits_only(b))


def q5_k_no_fifth_bit(b):
    z = b.copy()
    z[:, 16:48] = 0
    return gb.q5_k(z)


def q6_k_swapped_high_pairs(b):
    qh = b[:, 128:192].astype(np.int64)
    swapped = ((qh & 0x03) << 6) | ((qh & 0x0C) << 2) | ((qh & 0x30) >> 2) | ((qh & 0xC0) >> 6)
    return gb.q6_k(np.concatenate([b[:, :128], swapped.astype(np.uint8), b[:, 192:]], axis=1))


def iq4_nl_linear(b):
    return gb._f16(b, 0) * ((gb._nibbles32(b[:, 2:18]) - 8) * 16.0)   # linear levels, not the table


def iq4_xs_no_high_scale_bits(b):
    z = b.copy()
    z[:, 2:4] = 0                                      # scales_h dropped
    return gb.iq4_xs(z)


BLOCK_MUTATIONS = {
    2: ("Q4_0 nibbles interleaved", q4_0_interleaved),
    8: ("Q8_0 quants read as unsigned - 128", q8_0_unsigned),
    3: ("Q4_1 nibbles interleaved", q4_1_interleaved),
    6: ("Q5_0 fifth bit of weights 16..31 dropped", q5_0_wrong),
    7: ("Q5_1 fifth bit of weights 16..31 dropped", q5_1_wrong),
    10: ("Q2_K one scale per 32 weights", q2_k_one_scale_per_32),
    11: ("Q3_K scales' top 2 bits dropped", q3_k_4bit_scales),
    12: ("Q4_K sub-blocks 4..7 scales without top bits", q4_k_wrong),
    13: ("Q5_K fifth bit dropped", q5_k_no_fifth_bit),
    14: ("Q6_K high-bit pairs in reverse order", q6_k_swapped_high_pairs),
    20: ("IQ4_NL linear levels instead of the table", iq4_nl_linear),
    23: ("IQ4_XS scales_h dropped", iq4_xs_no_high_scale_bits),
}
