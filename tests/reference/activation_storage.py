"""The CPU backend's 8-bit activations, for deriving the tolerance of quantized weights.

kvchat's CPU backend multiplies a quantized weight matrix with its input row quantized to
int8 (per 32 values for Q8_0/Q4_0/Q4_1/Q5_0/Q5_1/IQ4_NL weights, per 256 for the K- and
XS-types): d = max|x| / 127, q = round(x / d), x' = q * d (d kept in f32). The reference
computes with exact float64 activations. To know how far the engine's logits may move
because of that rounding, check_architectures.py runs the reference once more with the
input of every quantized-weight matmul passed through this round trip
(with_int8_activations) and allows the engine a multiple of the measured movement, as it
does for quantized KV storage (kv_storage.py).
"""
from __future__ import annotations

import numpy as np

SUPER_BLOCK_TYPES = {"Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K", "IQ4_XS"}


def roundtrip_int8(x: np.ndarray, block: int) -> np.ndarray:
    """x (..., n) through int8 blocks of `block` values along the last axis."""
    b = x.astype(np.float32).reshape(*x.shape[:-1], x.shape[-1] // block, block)
    d = np.abs(b).max(axis=-1, keepdims=True) / np.float32(127)
    inv = np.divide(np.float32(1), d, out=np.zeros_like(d), where=d != 0)
    q = np.clip(np.rint(b * inv), -127, 127)                       # nearest, ties to even
    return (q.astype(np.float64) * d).reshape(x.shape)


class _Transposed:
    __array_ufunc__ = None        # `h @ w.T` calls __rmatmul__ below

    def __init__(self, w: np.ndarray, block: int):
        self.w, self.block = w, block

    def __rmatmul__(self, h: np.ndarray) -> np.ndarray:
        return roundtrip_int8(h, self.block) @ self.w.T


class Int8ActivationWeight:
    """A weight matrix (rows, cols) whose `h @ w.T` rounds h as the CPU kernels do."""
    __array_ufunc__ = None

    def __init__(self, w: np.ndarray, block: int):
        self.w, self.block, self.shape = w, block, w.shape

    @property
    def T(self) -> _Transposed:
        return _Transposed(self.w, self.block)


def with_int8_activations(model) -> None:
    """Wraps, in place, every weight of a ReferenceModel stored as a block-quantized type."""
    def block_of(name: str) -> int | None:
        t = model.gguf.tensors[name].type_name
        if t in ("F32", "F16", "BF16"):
            return None
        return 256 if t in SUPER_BLOCK_TYPES else 32

    def gguf_name(il: int, key: str) -> str:
        p = f"blk.{il}."
        if key in ("wq", "wk", "wv"):
            return p + ("attn_qkv.weight" if model.spec.fused_qkv else f"attn_{key[1]}.weight")
        if key in ("gate", "up"):
            return p + ("ffn_up.weight" if model.spec.fused_gate_up or key == "up" else "ffn_gate.weight")
        return p + {"wo": "attn_output.weight", "down": "ffn_down.weight"}[key]

    for il, L in enumerate(model.layers):
        for key in ("wq", "wk", "wv", "wo", "gate", "up", "down"):
            block = block_of(gguf_name(il, key))
            if block:
                L[key] = Int8ActivationWeight(L[key], block)
    out_name = "output.weight" if model.gguf.has("output.weight") else "token_embd.weight"
    block = block_of(out_name)
    if block:
        model.output = Int8ActivationWeight(model.output, block)
