"""Float64 dequantization of GGML's quantized block formats (NumPy, vectorised per block).

Written from GGML's published block descriptions (ggml-common.h's block_* structs and
the dequantize_row_* semantics); it shares nothing with kvchat's C++. Every block is a
fixed number of bytes holding a fixed number of weights; a row of a tensor is a whole
number of blocks (32 weights for the "legacy" and IQ4_NL blocks, 256 for the K-quants and
IQ4_XS). All multi-byte fields are little endian; "f16" is an IEEE half.

Each function takes `b`, the blocks as a uint8 array of shape (n_blocks, block_bytes),
and returns float64 values of shape (n_blocks, block_elements) in storage order.
The layouts, byte offsets inside one block:

Q4_0 (2), 32 weights, 18 bytes: d f16 @0 | qs[16] @2.
    q_j = low nibble of qs[j] (j < 16), high nibble of qs[j-16] (j >= 16); x_j = d*(q_j - 8).
Q8_0 (8), 32 weights, 34 bytes: d f16 @0 | qs[32] int8 @2; x_j = d*qs[j].
Q4_1 (3), 32 weights, 20 bytes: d f16 @0 | m f16 @2 | qs[16] @4.
    q_j = low nibble of qs[j] (j < 16), high nibble of qs[j-16] (j >= 16); x_j = d*q_j + m.
Q5_0 (6), 32 weights, 22 bytes: d f16 @0 | qh u32 @2 | qs[16] @6.
    q_j = nibble as in Q4_1 | (bit j of qh) << 4; x_j = d*(q_j - 16).
Q5_1 (7), 32 weights, 24 bytes: d f16 @0 | m f16 @2 | qh u32 @4 | qs[16] @8.
    q_j as in Q5_0; x_j = d*q_j + m.
Q2_K (10), 256 weights, 84 bytes: scales[16] @0 | qs[64] @16 | d f16 @80 | dmin f16 @82.
    16 sub-blocks of 16; scales[s] = scale (low nibble) | min (high nibble).
    Weight 128h + 32k + l (h < 2, k < 4, l < 32): q = (qs[32h + l] >> 2k) & 3,
    s = 8h + 2k + l//16; x = d*scale_s*q - dmin*min_s.
Q3_K (11), 256 weights, 110 bytes: hmask[32] @0 | qs[64] @32 | scales[12] @96 | d f16 @108.
    16 signed 6-bit scales: low 4 bits = scales[s] & 15 (s < 8) or scales[s-8] >> 4 (s >= 8),
    high 2 bits = (scales[8 + s%4] >> 2*(s//4)) & 3; value = that 6-bit number - 32.
    Weight 128h + 32k + l: low2 = (qs[32h + l] >> 2k) & 3, high = bit (4h + k) of hmask[l];
    q = low2 - (0 if high else 4) (so -4..3); s = 8h + 2k + l//16; x = d*scale_s*q.
Q4_K (12), 256 weights, 144 bytes: d f16 @0 | dmin f16 @2 | scales[12] @4 | qs[128] @16.
    8 sub-blocks of 32, each a 6-bit scale and a 6-bit min packed in the 12 bytes:
    j < 4: scale = scales[j] & 63, min = scales[j+4] & 63;
    j >= 4: scale = (scales[j+4] & 15) | (scales[j-4] >> 6) << 4,
            min = (scales[j+4] >> 4) | (scales[j] >> 6) << 4.
    Sub-block 2c (c < 4) is the low nibbles of qs[32c .. 32c+31], sub-block 2c+1 their
    high nibbles; x = d*scale_j*q - dmin*min_j.
Q5_K (13), 256 weights, 176 bytes: d f16 @0 | dmin f16 @2 | scales[12] @4 | qh[32] @16 | qs[128] @48.
    As Q4_K, plus a fifth bit: weight l of sub-block j adds 16 * (bit j of qh[l]).
Q6_K (14), 256 weights, 210 bytes: ql[128] @0 | qh[64] @128 | scales[16] int8 @192 | d f16 @208.
    Weight 128h + 32g + l (h < 2, g < 4, l < 32): low 4 bits from ql[64h + l + 32*(g%2)],
    its low nibble for g < 2, high nibble for g >= 2; high 2 bits = (qh[32h + l] >> 2g) & 3;
    q = that 6-bit number - 32; s = 8h + 2g + l//16; x = d*scales[s]*q.
IQ4_NL (20), 32 weights, 18 bytes: d f16 @0 | qs[16] @2.
    Nibbles as Q4_0 index the non-linear table IQ4NL_VALUES; x_j = d*IQ4NL_VALUES[nibble].
IQ4_XS (23), 256 weights, 136 bytes: d f16 @0 | scales_h u16 @2 | scales_l[4] @4 | qs[128] @8.
    8 sub-blocks of 32 with 6-bit scales: ls_j = ((scales_l[j//2] >> 4*(j%2)) & 15)
    | ((scales_h >> 2j) & 3) << 4; sub-block j's nibbles are qs[16j .. 16j+15] laid out as
    IQ4_NL; x = d*(ls_j - 32)*IQ4NL_VALUES[nibble].
"""
from __future__ import annotations

import numpy as np

# The 16 non-linear levels of IQ4_NL / IQ4_XS (GGML's kvalues_iq4nl).
IQ4NL_VALUES = np.array([-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113],
                        dtype=np.float64)


def _f16(b: np.ndarray, at: int) -> np.ndarray:
    """The f16 at byte offset `at` of every block, as float64 of shape (n_blocks, 1)."""
    return b[:, at:at + 2].copy().view("<f2").astype(np.float64)


def _nibbles32(qs: np.ndarray) -> np.ndarray:
    """(..., 16) bytes -> (..., 32) values: the 16 low nibbles, then the 16 high nibbles."""
    return np.concatenate([qs & 0x0F, qs >> 4], axis=-1).astype(np.int64)


def _bits(word: np.ndarray, n: int) -> np.ndarray:
    """(n_blocks, 1) unsigned words -> (n_blocks, n) array of bits 0..n-1."""
    return ((word.astype(np.int64) >> np.arange(n)) & 1)


def q4_0(b: np.ndarray) -> np.ndarray:
    return _f16(b, 0) * (_nibbles32(b[:, 2:18]) - 8)


def q8_0(b: np.ndarray) -> np.ndarray:
    return _f16(b, 0) * b[:, 2:34].copy().view(np.int8).astype(np.int64)


def q4_1(b: np.ndarray) -> np.ndarray:
    return _f16(b, 0) * _nibbles32(b[:, 4:20]) + _f16(b, 2)


def q5_0(b: np.ndarray) -> np.ndarray:
    qh = b[:, 2:6].copy().view("<u4")                                   # (n_blocks, 1)
    q = _nibbles32(b[:, 6:22]) | (_bits(qh, 32) << 4)
    return _f16(b, 0) * (q - 16)


def q5_1(b: np.ndarray) -> np.ndarray:
    qh = b[:, 4:8].copy().view("<u4")
    q = _nibbles32(b[:, 8:24]) | (_bits(qh, 32) << 4)
    return _f16(b, 0) * q + _f16(b, 2)


_K4 = np.arange(4)                       # the four 2-bit planes of a 32-byte group


def _subblock16(per_sub: np.ndarray) -> np.ndarray:
    """(n_blocks, 16) per-sub-block values -> (n_blocks, 2, 4, 32) per weight [h, k, l],
    sub-block 8h + 2k + l//16 (the K-quants' 16-weight sub-blocks)."""
    return np.repeat(per_sub.reshape(-1, 2, 4, 2), 16, axis=3)


def q2_k(b: np.ndarray) -> np.ndarray:
    scales = b[:, 0:16].astype(np.int64)
    qs = b[:, 16:80].astype(np.int64).reshape(-1, 2, 1, 32)            # [h, -, l]
    q = (qs >> (2 * _K4)[None, None, :, None]) & 3                      # (n, 2, 4, 32) [h, k, l]
    d, dmin = _f16(b, 80)[:, :, None, None], _f16(b, 82)[:, :, None, None]
    x = d * _subblock16(scales & 0x0F) * q - dmin * _subblock16(scales >> 4)
    return x.reshape(-1, 256)


def q3_k_scales(s12: np.ndarray) -> np.ndarray:
    """(n_blocks, 12) packed bytes -> (n_blocks, 16) signed scales (-32..31)."""
    s = s12.astype(np.int64)
    low = np.concatenate([s[:, 0:8] & 0x0F, s[:, 0:8] >> 4], axis=1)            # scale 0..15
    high = (s[:, None, 8:12] >> (2 * _K4)[None, :, None]) & 3                   # [s//4, s%4]
    return (low | (high.reshape(-1, 16) << 4)) - 32


def q3_k(b: np.ndarray) -> np.ndarray:
    hmask = b[:, 0:32].astype(np.int64)[:, None, None, :]                        # [-, -, l]
    qs = b[:, 32:96].astype(np.int64).reshape(-1, 2, 1, 32)
    low2 = (qs >> (2 * _K4)[None, None, :, None]) & 3                            # [h, k, l]
    plane = (4 * np.arange(2)[:, None] + _K4[None, :])[None, :, :, None]         # bit 4h + k
    high = (hmask >> plane) & 1
    q = low2 - 4 * (1 - high)
    x = _f16(b, 108)[:, :, None, None] * _subblock16(q3_k_scales(b[:, 96:108])) * q
    return x.reshape(-1, 256)


def k4_scales_mins(s12: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Q4_K / Q5_K: (n_blocks, 12) packed bytes -> 8 scales and 8 mins (0..63) per block."""
    s = s12.astype(np.int64)
    scale = np.concatenate([s[:, 0:4] & 63, (s[:, 8:12] & 0x0F) | ((s[:, 0:4] >> 6) << 4)], axis=1)
    mins = np.concatenate([s[:, 4:8] & 63, (s[:, 8:12] >> 4) | ((s[:, 4:8] >> 6) << 4)], axis=1)
    return scale, mins


def _k4_nibbles(qs128: np.ndarray) -> np.ndarray:
    """(n_blocks, 128) bytes -> (n_blocks, 8, 32): sub-block 2c = low nibbles of bytes
    32c.., sub-block 2c+1 = their high nibbles."""
    qs = qs128.astype(np.int64).reshape(-1, 4, 1, 32)
    return np.concatenate([qs & 0x0F, qs >> 4], axis=2).reshape(-1, 8, 32)


def _k4_apply(b: np.ndarray, q: np.ndarray) -> np.ndarray:
    scale, mins = k4_scales_mins(b[:, 4:16])
    d, dmin = _f16(b, 0)[:, :, None], _f16(b, 2)[:, :, None]
    return (d * scale[:, :, None] * q - dmin * mins[:, :, None]).reshape(-1, 256)


def q4_k(b: np.ndarray) -> np.ndarray:
    return _k4_apply(b, _k4_nibbles(b[:, 16:144]))


def q5_k(b: np.ndarray) -> np.ndarray:
    qh = b[:, 16:48].astype(np.int64)[:, None, :]                                # [-, l]
    fifth = (qh >> np.arange(8)[None, :, None]) & 1                               # [j, l]
    return _k4_apply(b, _k4_nibbles(b[:, 48:176]) | (fifth << 4))


def q6_k(b: np.ndarray) -> np.ndarray:
    ql = b[:, 0:128].astype(np.int64).reshape(-1, 2, 2, 32)                      # [h, g%2, l]
    low = np.concatenate([ql & 0x0F, ql >> 4], axis=2)                           # [h, g, l]
    qh = b[:, 128:192].astype(np.int64).reshape(-1, 2, 1, 32)
    high = (qh >> (2 * _K4)[None, None, :, None]) & 3
    q = (low | (high << 4)) - 32
    scales = b[:, 192:208].copy().view(np.int8).astype(np.int64)
    return (_f16(b, 208)[:, :, None, None] * _subblock16(scales) * q).reshape(-1, 256)


def iq4_nl(b: np.ndarray) -> np.ndarray:
    return _f16(b, 0) * IQ4NL_VALUES[_nibbles32(b[:, 2:18])]


def iq4_xs(b: np.ndarray) -> np.ndarray:
    sh = b[:, 2:4].copy().view("<u2").astype(np.int64)                           # (n, 1)
    sl = b[:, 4:8].astype(np.int64)
    low = np.stack([sl & 0x0F, sl >> 4], axis=2).reshape(-1, 8)                   # scale j's low 4 bits
    ls = low | (((sh >> (2 * np.arange(8))) & 3) << 4)
    idx = _nibbles32(b[:, 8:136].reshape(-1, 8, 16))                              # (n, 8, 32)
    x = _f16(b, 0)[:, :, None] * (ls - 32)[:, :, None] * IQ4NL_VALUES[idx]
    return x.reshape(-1, 256)


# ggml type id -> (name, weights per block, bytes per block, dequantizer)
BLOCK_TYPES = {
    2: ("Q4_0", 32, 18, q4_0),
    8: ("Q8_0", 32, 34, q8_0),
    3: ("Q4_1", 32, 20, q4_1),
    6: ("Q5_0", 32, 22, q5_0),
    7: ("Q5_1", 32, 24, q5_1),
    10: ("Q2_K", 256, 84, q2_k),
    11: ("Q3_K", 256, 110, q3_k),
    12: ("Q4_K", 256, 144, q4_k),
    13: ("Q5_K", 256, 176, q5_k),
    14: ("Q6_K", 256, 210, q6_k),
    20: ("IQ4_NL", 32, 18, iq4_nl),
    23: ("IQ4_XS", 256, 136, iq4_xs),
}


def dequantize_blocks(raw: bytes, ggml_type: int, n_elements: int) -> np.ndarray:
    """The float64 values of n_elements stored as one of BLOCK_TYPES in raw (flat)."""
    _, block, nbytes, fn = BLOCK_TYPES[ggml_type]
    if n_elements % block:
        raise ValueError(f"{n_elements} elements is not a whole number of {block}-weight blocks")
    b = np.frombuffer(raw, dtype=np.uint8, count=n_elements // block * nbytes).reshape(-1, nbytes)
    return fn(b).reshape(-1)
