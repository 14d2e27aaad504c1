"""What a KV cache stored as f16 / q8_0 / q4_0 gives back, for deriving tolerances (and
roundtrip_act: activations as dot products see them, likewise: 8-bit for integer dots,
BF16 for BF16 weights on AVX512-BF16).

The reference itself keeps K and V in float64 (exact). To know how far an engine's
logits may move because its cache stores K/V coarser, check_architectures.py runs the
reference once more with K and V (after RoPE, as cached) passed through the storage
format's round trip, and allows the engine a multiple of that measured movement.

Formats (GGML's block layouts and reference quantizers), along the last axis (head_dim)
in blocks of 32:
  f16:  IEEE half precision, round to nearest even.
  q8_0: d = max|x| / 127, q = round(x / d) in [-127, 127], x' = q * f16(d).
  q4_0: m = the element of largest |x| (with its sign), d = m / -8,
        q = min(15, floor(x / d + 8.5)), x' = (q - 8) * f16(d).
"""
from __future__ import annotations

import numpy as np


def _blocks(x: np.ndarray) -> np.ndarray:
    if x.shape[-1] % 32:
        raise ValueError(f"row length {x.shape[-1]} is not a multiple of 32")
    return x.reshape(*x.shape[:-1], x.shape[-1] // 32, 32)


def roundtrip_q8_0(x: np.ndarray) -> np.ndarray:
    b = _blocks(x.astype(np.float32))
    d = np.abs(b).max(axis=-1, keepdims=True) / np.float32(127)
    inv = np.divide(np.float32(1), d, out=np.zeros_like(d), where=d != 0)
    q = np.sign(b * inv) * np.floor(np.abs(b * inv) + np.float32(0.5))     # roundf: half away from zero
    return (q * d.astype(np.float16).astype(np.float64)).reshape(x.shape)


def roundtrip_q4_0(x: np.ndarray) -> np.ndarray:
    b = _blocks(x.astype(np.float32))
    idx = np.abs(b).argmax(axis=-1)[..., None]
    m = np.take_along_axis(b, idx, axis=-1)
    d = m / np.float32(-8)
    inv = np.divide(np.float32(1), d, out=np.zeros_like(d), where=d != 0)
    q = np.minimum(np.float32(15), np.floor(b * inv + np.float32(8.5)))
    return ((q - 8) * d.astype(np.float16).astype(np.float64)).reshape(x.shape)


def roundtrip_f16(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float16).astype(np.float64)


ROUNDTRIP = {"f16": roundtrip_f16, "q8_0": roundtrip_q8_0, "q4_0": roundtrip_q4_0}


def roundtrip_act_bf16(x: np.ndarray) -> np.ndarray:
    """Activations rounded to BF16 as vcvtneps2bf16 rounds (an AVX512-BF16 engine's BF16
    dots, engine/src/backend/cpu/bf16_dot.h): f32, then to nearest even on the top 16 bits,
    subnormals to zero."""
    b = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    b = np.where((b & 0x7F800000) == 0, b & 0x80000000, b)
    b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
    return b.astype(np.uint32).view(np.float32).astype(np.float64)


def roundtrip_act(x: np.ndarray, block: int) -> np.ndarray:
    """The input of a matmul whose weights pair with activation block `block`
    (reference_forward.act_block): BF16-rounded for ACT_BF16, else 8-bit blocks."""
    from reference_forward import ACT_BF16
    return roundtrip_act_bf16(x) if block == ACT_BF16 else roundtrip_act_q8(x, block)


def roundtrip_act_q8(x: np.ndarray, block: int) -> np.ndarray:
    """Activations as an engine that dots them in 8-bit integer stores them: per `block`
    values along the last axis, d = max|x| / 127, q = round(x / d), x' = q * d; d rounded
    to f16 for 32-value blocks (Q8_0-like), kept f32 for 256-value blocks (Q8_K-like)."""
    b = x.astype(np.float32).reshape(*x.shape[:-1], x.shape[-1] // block, block)
    d = np.abs(b).max(axis=-1, keepdims=True) / np.float32(127)
    inv = np.divide(np.float32(1), d, out=np.zeros_like(d), where=d != 0)
    q = np.sign(b * inv) * np.floor(np.abs(b * inv) + np.float32(0.5))
    d = d.astype(np.float16) if block == 32 else d
    return (q * d.astype(np.float64)).reshape(x.shape)
