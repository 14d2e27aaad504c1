#!/usr/bin/python3
"""Float64 reference forward pass for the GGUF architectures kvchat supports.

Independent of the C++ engine: written from the architectures' published descriptions
(Hugging Face transformers' modeling_llama / qwen2 / qwen3 / gemma2 / gemma3 (text) /
phi3, the RoFormer (RoPE) and YaRN papers, Meta's Llama 3.1 rope-scaling description)
and llama.cpp's conventions for how those weights and hyperparameters are stored in
GGUF (tensor names, Q/K permutation for llama so its RoPE rotates adjacent pairs, the
+1 already folded into Gemma's norm weights, phi3's fused tensors, rope_freqs.weight).

One forward function serves every architecture; ARCHS below says what differs.
Everything is float64, the KV cache included (exact; what KV quantization costs is
measured against this, see kv_storage.py).

CLI:  reference_forward.py --model F.gguf --ids "1 2 3" [--greedy N] [--decode]
prints JSON {"logits": [[n_vocab floats] per position of ids], "greedy": [N ids]}.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gguf_reader import GGUFFile  # noqa: E402


# ---------------------------------------------------------------------------------------
# What differs between architectures.
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ArchSpec:
    # RoPE pairing on the GGUF weights: "norm" rotates (2i, 2i+1) (llama: the converter
    # permuted Q/K rows so HF's rotate_half becomes adjacent pairs); "neox" rotates
    # (i, i + n_rot/2) (HF rotate_half, unpermuted).
    rope_style: str
    activation: str = "silu"             # FFN: act(gate) * up; "silu" or "gelu_tanh"
    qkv_bias: bool = False               # qwen2: q/k/v projections have biases (o does not)
    qk_norm: bool = False                # qwen3, gemma3: RMSNorm over head_dim of q and k, before RoPE
    post_norms: bool = False             # gemma2/3: RMSNorm on the attention and FFN outputs before the residual add
    embed_scale: bool = False            # gemma: embeddings times sqrt(dim)
    fused_qkv: bool = False              # phi3: attn_qkv = [q; k; v] rows
    fused_gate_up: bool = False          # phi3: ffn_up = [gate; up] rows (2 n_ff)
    # Soft-caps: (metadata key suffix, default when absent); None = the arch has none
    # unless the key is present in the file.
    attn_softcap_default: Optional[float] = None
    final_softcap_default: Optional[float] = None
    # Sliding window: which layers are local. None = no sliding window in this arch.
    swa_layer: Optional[Callable[[int, "HParams"], bool]] = None
    swa_default: int = 0                 # window when the file has no attention.sliding_window key (0 = none)
    local_rope_base: Optional[float] = None   # gemma3: local (sliding) layers use base 10000, no scaling
    # Query scale: 1/sqrt(key_length) by default; gemma's 27B sizes use 1/sqrt(dim/heads).
    query_scale: Callable[["HParams"], float] = lambda hp: 1.0 / math.sqrt(hp.head_dim_k)


def _gemma_query_scale(big_model_layers: int) -> Callable[["HParams"], float]:
    # HF: query_pre_attn_scalar ** -0.5. GGUF does not store query_pre_attn_scalar; it is
    # head_dim for every released size except the 27B ones, where it is dim / n_head
    # (llama.cpp recognises the 27B size by its layer count, as we do).
    def scale(hp: "HParams") -> float:
        if hp.n_layer == big_model_layers:
            return 1.0 / math.sqrt(hp.dim / hp.n_head)
        return 1.0 / math.sqrt(hp.head_dim_k)
    return scale


def _swa_pattern(n: int) -> Callable[[int, "HParams"], bool]:
    # Every n-th layer (1-based) is global, the others local: gemma2 n=2 (even 0-based
    # layers local), gemma3 n=6 (layers 5, 11, ... global). An explicit per-file pattern
    # key (int or per-layer bool array) takes precedence, see HParams.
    def is_local(layer: int, hp: "HParams") -> bool:
        if hp.swa_pattern_override is not None:
            p = hp.swa_pattern_override
            if isinstance(p, list):
                return bool(p[layer])
            return p == 0 or layer % p < p - 1
        return layer % n < n - 1
    return is_local


def _phi3_swa(layer: int, hp: "HParams") -> bool:
    # HF Phi3 passes config.sliding_window to every layer's attention when it is set.
    return True


ARCHS: dict[str, ArchSpec] = {
    "llama": ArchSpec(rope_style="norm"),
    "qwen2": ArchSpec(rope_style="neox", qkv_bias=True),
    "qwen3": ArchSpec(rope_style="neox", qk_norm=True),
    "gemma2": ArchSpec(rope_style="neox", activation="gelu_tanh", post_norms=True, embed_scale=True,
                       attn_softcap_default=50.0, final_softcap_default=30.0,
                       swa_layer=_swa_pattern(2), swa_default=4096,   # HF Gemma2Config's default, as llama.cpp
                       query_scale=_gemma_query_scale(46)),
    "gemma3": ArchSpec(rope_style="neox", activation="gelu_tanh", post_norms=True, embed_scale=True,
                       qk_norm=True, swa_layer=_swa_pattern(6), local_rope_base=10000.0,
                       query_scale=_gemma_query_scale(62)),
    "phi3": ArchSpec(rope_style="neox", fused_qkv=True, fused_gate_up=True, swa_layer=_phi3_swa),
}


# ---------------------------------------------------------------------------------------
# Hyperparameters from GGUF metadata.
# ---------------------------------------------------------------------------------------
@dataclass
class RopeScaling:
    kind: str = "none"                # none | linear | yarn | longrope (set by ReferenceModel)
    factor: float = 1.0               # context extension factor s (freq_scale = 1/s)
    orig_ctx: int = 0                 # original training context (YaRN)
    attn_factor: float = 1.0          # extra magnitude multiplier (YaRN; LongRoPE's scaling_factor)
    beta_fast: float = 32.0           # YaRN: rotations above which a pair is left as is
    beta_slow: float = 1.0            # YaRN: rotations below which a pair is interpolated


@dataclass
class HParams:
    arch: str
    n_layer: int
    dim: int
    n_ff: int
    n_head: int
    n_head_kv: int
    head_dim_k: int
    head_dim_v: int
    eps: float
    rope_base: float
    n_rot: int
    n_vocab: int
    n_ctx_train: int = 0              # {arch}.context_length (HF max_position_embeddings)
    sliding_window: int = 0
    swa_pattern_override: object = None
    attn_softcap: Optional[float] = None
    final_softcap: Optional[float] = None
    rope_base_local: Optional[float] = None
    scaling: RopeScaling = field(default_factory=RopeScaling)


def read_hparams(g: GGUFFile) -> HParams:
    arch = g.get("general.architecture")
    if arch not in ARCHS:
        raise ValueError(f"architecture {arch!r} is not one the reference knows ({', '.join(ARCHS)})")
    spec = ARCHS[arch]

    def key(name, default=None, required=False):
        full = f"{arch}.{name}"
        if full not in g.metadata:
            if required:
                raise ValueError(f"missing metadata {full}")
            return default
        return g.metadata[full]

    dim = int(key("embedding_length", required=True))
    n_head = int(key("attention.head_count", required=True))
    n_head_kv = key("attention.head_count_kv", n_head)
    if isinstance(n_head_kv, list):
        raise ValueError("per-layer head_count_kv is not supported")
    head_dim_k = int(key("attention.key_length", dim // n_head))
    head_dim_v = int(key("attention.value_length", head_dim_k))
    n_vocab = g.tensors["token_embd.weight"].ne[1]

    sc = RopeScaling()
    kind = key("rope.scaling.type", None)
    if kind is None and key("rope.scale_linear", None) is not None:   # older files
        kind, sc.factor = "linear", float(key("rope.scale_linear"))
    if kind is not None:
        sc.kind = str(kind)
        sc.factor = float(key("rope.scaling.factor", sc.factor))
    sc.orig_ctx = int(key("rope.scaling.original_context_length", key("context_length", 0)))
    sc.attn_factor = float(key("rope.scaling.attn_factor", 1.0))
    sc.beta_fast = float(key("rope.scaling.yarn_beta_fast", 32.0))
    sc.beta_slow = float(key("rope.scaling.yarn_beta_slow", 1.0))
    if sc.kind == "llama3":
        # Llama 3.1 scaling lives in rope_freqs.weight (divisors per pair); the keys only
        # describe it (check_architectures.py compares the tensor with Meta's formula).
        sc.kind = "none"
    if sc.kind not in ("none", "linear", "yarn"):
        raise ValueError(f"rope scaling type {sc.kind!r} is not supported by the reference")
    if sc.kind == "none":
        sc.factor = 1.0

    hp = HParams(
        arch=arch, n_layer=int(key("block_count", required=True)), dim=dim,
        n_ff=int(key("feed_forward_length", required=True)), n_head=n_head, n_head_kv=int(n_head_kv),
        head_dim_k=head_dim_k, head_dim_v=head_dim_v,
        eps=float(key("attention.layer_norm_rms_epsilon", required=True)),
        rope_base=float(key("rope.freq_base", 10000.0)),
        n_rot=int(key("rope.dimension_count", head_dim_k)), n_vocab=n_vocab, scaling=sc,
        n_ctx_train=int(key("context_length", 0)))
    if spec.swa_layer is not None:
        hp.sliding_window = int(key("attention.sliding_window", spec.swa_default))
        hp.swa_pattern_override = key("attention.sliding_window_pattern", None)
    hp.attn_softcap = key("attn_logit_softcapping", spec.attn_softcap_default)
    hp.final_softcap = key("final_logit_softcapping", spec.final_softcap_default)
    if hp.attn_softcap is not None and hp.attn_softcap <= 0:
        hp.attn_softcap = None
    if hp.final_softcap is not None and hp.final_softcap <= 0:
        hp.final_softcap = None
    if spec.local_rope_base is not None:
        hp.rope_base_local = float(key("rope.freq_base_swa", spec.local_rope_base))
    return hp


# ---------------------------------------------------------------------------------------
# Pieces (each checked on its own in test_reference_pieces.py).
# ---------------------------------------------------------------------------------------
def rms_norm(x: np.ndarray, w: np.ndarray, eps: float) -> np.ndarray:
    """x / sqrt(mean(x^2) + eps) * w over the last axis."""
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def gelu_tanh(x: np.ndarray) -> np.ndarray:
    """GELU, tanh approximation (HF gelu_pytorch_tanh)."""
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def silu(x: np.ndarray) -> np.ndarray:
    return x / (1.0 + np.exp(-x))


def softcap(x: np.ndarray, cap: Optional[float]) -> np.ndarray:
    """cap * tanh(x / cap): smoothly bounds |x| below cap."""
    return x if cap is None else cap * np.tanh(x / cap)


# Weight types whose fast dot products pair with 8-bit activations in 32-value blocks
# (Q8_0-like) or 256-value blocks (Q8_K-like, the K-quants and IQ4_XS); BF16 weights with
# activations rounded to BF16 (ACT_BF16: on CPUs with AVX512-BF16); F32/F16 weights: none.
_ACT_BLOCK_32 = {"Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "IQ4_NL"}
_ACT_BLOCK_256 = {"Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K", "IQ4_XS"}
ACT_BF16 = 1


def act_block(type_name: str) -> int:
    """The activation block (32, 256, ACT_BF16, or 0 for F32/F16) a weight type pairs with."""
    if type_name == "BF16":
        return ACT_BF16
    return 32 if type_name in _ACT_BLOCK_32 else 256 if type_name in _ACT_BLOCK_256 else 0


def yarn_ramp(n_rot: int, base: float, sc: RopeScaling) -> np.ndarray:
    """Per rotated pair i (n_rot/2 values): 1 = keep the original frequency
    (extrapolate), 0 = divide it by the factor (interpolate), linear in i between the
    correction dims (the YaRN code's and HF's find_correction_range, floor/ceil)."""
    def corr_dim(n_rotations: float) -> float:
        # The pair index whose wavelength fits n_rotations times into orig_ctx.
        return n_rot * math.log(sc.orig_ctx / (n_rotations * 2 * math.pi)) / (2 * math.log(base))
    low = max(0.0, math.floor(corr_dim(sc.beta_fast)))
    high = min(n_rot - 1.0, math.ceil(corr_dim(sc.beta_slow)))
    i = np.arange(n_rot // 2, dtype=np.float64)
    y = (i - low) / max(0.001, high - low)
    return 1.0 - np.clip(y, 0.0, 1.0)


def rope_angles(pos: np.ndarray, n_rot: int, base: float, sc: RopeScaling,
                freq_factors: Optional[np.ndarray] = None) -> tuple[np.ndarray, float]:
    """theta[t, i] for positions pos (T,) and pairs i < n_rot/2, and the magnitude
    scale applied to cos/sin (YaRN's attention temperature, 1 otherwise).
    theta = pos * base^(-2i/n_rot) / freq_factors[i], then the scaling type."""
    i = np.arange(n_rot // 2, dtype=np.float64)
    inv_freq = base ** (-2.0 * i / n_rot)
    if freq_factors is not None:
        inv_freq = inv_freq / freq_factors
    extrap = np.outer(pos.astype(np.float64), inv_freq)           # (T, n_rot/2)
    if sc.kind == "linear":
        return extrap / sc.factor, 1.0
    if sc.kind == "longrope":
        # HF Phi3LongRoPEScaledRotaryEmbedding: the per-pair ext factors (freq_factors,
        # short or long) divide the frequencies; cos and sin are x scaling_factor.
        return extrap, sc.attn_factor
    if sc.kind == "yarn":
        mix = yarn_ramp(n_rot, base, sc)
        theta = extrap / sc.factor * (1.0 - mix) + extrap * mix
        mscale = sc.attn_factor * (1.0 + 0.1 * math.log(sc.factor)) if sc.factor > 1 else sc.attn_factor
        return theta, mscale
    return extrap, 1.0


def apply_rope(x: np.ndarray, theta: np.ndarray, mscale: float, n_rot: int, style: str) -> np.ndarray:
    """Rotates the first n_rot dims of x (T, H, D) by theta (T, n_rot/2); the rest pass.
    norm: pairs (2i, 2i+1); neox: pairs (i, i + n_rot/2)."""
    out = x.copy()
    c = (np.cos(theta) * mscale)[:, None, :]
    s = (np.sin(theta) * mscale)[:, None, :]
    if style == "norm":
        a, b = x[..., 0:n_rot:2], x[..., 1:n_rot:2]
        out[..., 0:n_rot:2] = a * c - b * s
        out[..., 1:n_rot:2] = a * s + b * c
    elif style == "neox":
        h = n_rot // 2
        a, b = x[..., :h], x[..., h:n_rot]
        out[..., :h] = a * c - b * s
        out[..., h:n_rot] = a * s + b * c
    else:
        raise ValueError(style)
    return out


def attention_mask(q_pos: np.ndarray, k_pos: np.ndarray, window: int) -> np.ndarray:
    """(Tq, Tk) bool, True = may attend: causal (k <= q) and, with a window W > 0,
    within the last W positions including itself (q - k < W)."""
    allowed = k_pos[None, :] <= q_pos[:, None]
    if window > 0:
        allowed &= (q_pos[:, None] - k_pos[None, :]) < window
    return allowed


# ---------------------------------------------------------------------------------------
# The model.
# ---------------------------------------------------------------------------------------
def longrope_setup(g: GGUFFile, hp: HParams, n_ctx: int) -> np.ndarray:
    """Phi-3 LongRoPE as HF's Phi3LongRoPEScaledRotaryEmbedding describes it: ext_factors
    = long_factor when the sequence length in use (here the context n_ctx) exceeds
    original_max_position_embeddings, else short_factor; inv_freq = 1 / (ext_factors x
    base^(2i/dim)); cos/sin x scaling_factor = sqrt(1 + ln(s) / ln(orig)), s =
    max_position_embeddings / orig (1 when s <= 1), for both factor sets. Sets hp.scaling
    and returns the chosen factors (n_rot/2,)."""
    short = g.tensor("rope_factors_short.weight").astype(np.float64)
    long = g.tensor("rope_factors_long.weight").astype(np.float64)
    if short.shape != (hp.n_rot // 2,) or long.shape != (hp.n_rot // 2,):
        raise ValueError(f"LongRoPE factors {short.shape} / {long.shape}, want ({hp.n_rot // 2},)")
    if hp.scaling.kind != "none":
        raise ValueError("LongRoPE factors with another rope scaling type")
    orig = int(g.get(f"{hp.arch}.rope.scaling.original_context_length", hp.n_ctx_train))
    s = hp.n_ctx_train / orig
    scaling_factor = math.sqrt(1 + math.log(s) / math.log(orig)) if s > 1 else 1.0
    stored = g.get(f"{hp.arch}.rope.scaling.attn_factor")
    if stored is not None and abs(float(stored) - scaling_factor) > 1e-6 * scaling_factor:
        raise ValueError(f"attn_factor {stored} is not HF's scaling_factor {scaling_factor}")
    hp.scaling = RopeScaling(kind="longrope", orig_ctx=orig, attn_factor=scaling_factor)
    return long if n_ctx > orig else short


class ReferenceModel:
    def __init__(self, path: str, n_ctx: Optional[int] = None):
        """n_ctx: the context the engine runs with (default the trained one); only
        LongRoPE depends on it."""
        self.gguf = GGUFFile(path)
        self.hp = read_hparams(self.gguf)
        self.spec = ARCHS[self.hp.arch]
        self._check_tensor_set()
        t = self.gguf.tensor
        hp, spec = self.hp, self.spec
        self.tok_embd = t("token_embd.weight")                               # (n_vocab, dim)
        self.output = t("output.weight") if self.gguf.has("output.weight") else self.tok_embd
        self.output_norm = t("output_norm.weight")                           # (dim,)
        self.rope_freqs = t("rope_freqs.weight") if self.gguf.has("rope_freqs.weight") else None
        if self.gguf.has("rope_factors_long.weight") or self.gguf.has("rope_factors_short.weight"):
            self.rope_freqs = longrope_setup(self.gguf, hp, n_ctx or hp.n_ctx_train)  # (n_rot/2,)
        nq, nk, nv = hp.n_head * hp.head_dim_k, hp.n_head_kv * hp.head_dim_k, hp.n_head_kv * hp.head_dim_v
        # Tolerance derivation only: act_store(x, block) maps the input rows of a matmul
        # whose weights are stored in blocks that pair with `block`-value activation blocks
        # (32 or 256; act_block) to what an engine that quantizes activations multiplies.
        self.act_store: Optional[Callable[[np.ndarray, int], np.ndarray]] = None
        info = self.gguf.tensors
        self.output_block = act_block(info["output.weight" if self.gguf.has("output.weight")
                                           else "token_embd.weight"].type_name)
        self.layers = []
        for il in range(hp.n_layer):
            p = f"blk.{il}."
            L = {"attn_norm": t(p + "attn_norm.weight"),                       # (dim,)
                 "ffn_norm": t(p + "ffn_norm.weight"),                         # (dim,)
                 "wo": t(p + "attn_output.weight"),                            # (dim, n_head*hd_v)
                 "down": t(p + "ffn_down.weight")}                             # (dim, n_ff)
            if spec.fused_qkv:
                qkv = t(p + "attn_qkv.weight")                                 # (nq+nk+nv, dim)
                L["wq"], L["wk"], L["wv"] = qkv[:nq], qkv[nq:nq + nk], qkv[nq + nk:]
            else:
                L["wq"], L["wk"], L["wv"] = t(p + "attn_q.weight"), t(p + "attn_k.weight"), t(p + "attn_v.weight")
            if spec.fused_gate_up:
                gu = t(p + "ffn_up.weight")                                    # (2*n_ff, dim)
                L["gate"], L["up"] = gu[:hp.n_ff], gu[hp.n_ff:]
            else:
                L["gate"], L["up"] = t(p + "ffn_gate.weight"), t(p + "ffn_up.weight")   # (n_ff, dim)
            if spec.qkv_bias:
                L["bq"], L["bk"], L["bv"] = t(p + "attn_q.bias"), t(p + "attn_k.bias"), t(p + "attn_v.bias")
            if spec.qk_norm:
                L["q_norm"], L["k_norm"] = t(p + "attn_q_norm.weight"), t(p + "attn_k_norm.weight")  # (hd_k,)
            if spec.post_norms:
                L["post_attn_norm"] = t(p + "post_attention_norm.weight")       # (dim,)
                L["post_ffw_norm"] = t(p + "post_ffw_norm.weight")              # (dim,)
            L["blocks"] = {k: act_block(info[p + n].type_name) for k, n in (  # activation block per matrix
                ("wq", "attn_qkv.weight" if spec.fused_qkv else "attn_q.weight"),
                ("wk", "attn_qkv.weight" if spec.fused_qkv else "attn_k.weight"),
                ("wv", "attn_qkv.weight" if spec.fused_qkv else "attn_v.weight"),
                ("wo", "attn_output.weight"), ("gate", "ffn_up.weight" if spec.fused_gate_up else "ffn_gate.weight"),
                ("up", "ffn_up.weight"), ("down", "ffn_down.weight"))}
            assert L["wq"].shape == (nq, hp.dim) and L["wk"].shape == (nk, hp.dim) and L["wv"].shape == (nv, hp.dim)
            assert L["gate"].shape == (hp.n_ff, hp.dim) and L["down"].shape == (hp.dim, hp.n_ff)
            self.layers.append(L)

    def _check_tensor_set(self) -> None:
        """The file holds exactly the tensors this architecture's description has."""
        hp, spec = self.hp, self.spec
        want = {"token_embd.weight", "output_norm.weight"}
        optional = {"output.weight", "rope_freqs.weight", "rope_factors_long.weight", "rope_factors_short.weight"}
        for il in range(hp.n_layer):
            p = f"blk.{il}."
            names = ["attn_norm", "ffn_norm", "attn_output", "ffn_down", "ffn_up"]
            names += ["attn_qkv"] if spec.fused_qkv else ["attn_q", "attn_k", "attn_v"]
            names += [] if spec.fused_gate_up else ["ffn_gate"]
            names += ["attn_q_norm", "attn_k_norm"] if spec.qk_norm else []
            names += ["post_attention_norm", "post_ffw_norm"] if spec.post_norms else []
            want |= {p + n + ".weight" for n in names}
            if spec.qkv_bias:
                want |= {p + n + ".bias" for n in ("attn_q", "attn_k", "attn_v")}
        have = set(self.gguf.tensors)
        missing, unknown = want - have, have - want - optional
        if missing or unknown:
            raise ValueError(f"{hp.arch}: tensors missing {sorted(missing)[:6]} unexpected {sorted(unknown)[:6]}")

    def layer_rope(self, il: int) -> tuple[float, RopeScaling, bool]:
        """(base, scaling, is_local) of layer il."""
        hp, spec = self.hp, self.spec
        local = bool(spec.swa_layer and hp.sliding_window > 0 and spec.swa_layer(il, hp))
        if local and hp.rope_base_local is not None:
            return hp.rope_base_local, RopeScaling(), True   # gemma3 local layers: no scaling
        return hp.rope_base, hp.scaling, local

    def new_cache(self) -> list:
        """Per layer: keys (S, n_head_kv, hd_k), values (S, n_head_kv, hd_v), float64."""
        hp = self.hp
        return [[np.zeros((0, hp.n_head_kv, hp.head_dim_k)), np.zeros((0, hp.n_head_kv, hp.head_dim_v))]
                for _ in range(hp.n_layer)]

    def forward(self, ids: list[int], cache: list, kv_store: Optional[Callable] = None) -> np.ndarray:
        """Evaluates ids after the len(cache) tokens already in cache; appends their K/V.
        Returns logits (len(ids), n_vocab). kv_store (tolerance derivation only) maps a
        K or V array to the values a quantized cache would give back."""
        hp, spec = self.hp, self.spec
        n_past = cache[0][0].shape[0]
        T = len(ids)
        pos = np.arange(n_past, n_past + T)
        x = self.tok_embd[np.asarray(ids)]                                   # (T, dim)
        if spec.embed_scale:
            x = x * math.sqrt(hp.dim)
        group = hp.n_head // hp.n_head_kv
        for il, L in enumerate(self.layers):
            h = rms_norm(x, L["attn_norm"], hp.eps)
            q, k, v = self._mm(h, L, "wq"), self._mm(h, L, "wk"), self._mm(h, L, "wv")
            if spec.qkv_bias:
                q, k, v = q + L["bq"], k + L["bk"], v + L["bv"]
            q = q.reshape(T, hp.n_head, hp.head_dim_k)
            k = k.reshape(T, hp.n_head_kv, hp.head_dim_k)
            v = v.reshape(T, hp.n_head_kv, hp.head_dim_v)
            if spec.qk_norm:
                q, k = rms_norm(q, L["q_norm"], hp.eps), rms_norm(k, L["k_norm"], hp.eps)
            base, sc, local = self.layer_rope(il)
            theta, mscale = rope_angles(pos, hp.n_rot, base, sc, self.rope_freqs)
            q = apply_rope(q, theta, mscale, hp.n_rot, spec.rope_style)
            k = apply_rope(k, theta, mscale, hp.n_rot, spec.rope_style)
            if kv_store is not None:
                k, v = kv_store(k), kv_store(v)
            cache[il][0] = np.concatenate([cache[il][0], k])
            cache[il][1] = np.concatenate([cache[il][1], v])
            K, V = cache[il]                                                  # (S, Hkv, hd)
            S = K.shape[0]
            Kq = np.repeat(K, group, axis=1)                                  # (S, H, hd_k): q head h uses kv head h // group
            Vq = np.repeat(V, group, axis=1)
            scores = np.einsum("thd,shd->hts", q, Kq) * spec.query_scale(hp)  # (H, T, S)
            scores = softcap(scores, hp.attn_softcap)
            allowed = attention_mask(pos, np.arange(S), hp.sliding_window if local else 0)
            scores = np.where(allowed[None], scores, -np.inf)
            scores -= scores.max(axis=-1, keepdims=True)
            p = np.exp(scores)
            p /= p.sum(axis=-1, keepdims=True)
            attn = np.einsum("hts,shd->thd", p, Vq).reshape(T, hp.n_head * hp.head_dim_v)
            out = self._mm(attn, L, "wo")                                     # (T, dim)
            if spec.post_norms:
                out = rms_norm(out, L["post_attn_norm"], hp.eps)
            x = x + out
            h = rms_norm(x, L["ffn_norm"], hp.eps)
            gate, up = self._mm(h, L, "gate"), self._mm(h, L, "up")           # (T, n_ff)
            act = gelu_tanh(gate) if spec.activation == "gelu_tanh" else silu(gate)
            out = self._mm(act * up, L, "down")                               # (T, dim)
            if spec.post_norms:
                out = rms_norm(out, L["post_ffw_norm"], hp.eps)
            x = x + out
        x = rms_norm(x, self.output_norm, hp.eps)
        if self.act_store is not None and self.output_block:
            x = self.act_store(x, self.output_block)
        return softcap(x @ self.output.T, hp.final_softcap)                   # (T, n_vocab)

    def _mm(self, x: np.ndarray, L: dict, key: str) -> np.ndarray:
        """x (T, n_in) times layer matrix L[key] (n_out, n_in) transposed: (T, n_out)."""
        block = L["blocks"][key]
        if self.act_store is not None and block:
            x = self.act_store(x, block)
        return x @ L[key].T

    def run(self, ids: list[int], greedy: int = 0, decode: bool = False,
            kv_store: Optional[Callable] = None) -> tuple[np.ndarray, list[int]]:
        """Logits of every position of ids (prefill, or one token at a time with
        decode) and the greedy continuation of greedy tokens (argmax, lowest id on ties)."""
        cache = self.new_cache()
        if decode:
            logits = np.concatenate([self.forward([t], cache, kv_store) for t in ids])
        else:
            logits = self.forward(list(ids), cache, kv_store)
        out = []
        last = logits[-1]
        for _ in range(greedy):
            nxt = int(np.argmax(last))
            out.append(nxt)
            if len(out) < greedy:
                last = self.forward([nxt], cache, kv_store)[-1]
        return logits, out

    def token_text(self, ids: list[int]) -> str:
        """SentencePiece-style decoding with the GGUF vocab (for reading, not testing)."""
        pieces = self.gguf.get("tokenizer.ggml.tokens") or []
        data = bytearray()
        for i in ids:
            piece = pieces[i] if i < len(pieces) else f"<{i}>"
            if piece.startswith("<0x") and piece.endswith(">") and len(piece) == 6:
                data.append(int(piece[3:5], 16))
            else:
                data += piece.replace("\u2581", " ").encode("utf-8", errors="surrogateescape")
        return data.decode("utf-8", errors="replace")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--ids", required=True, help='token ids, e.g. "1 2 3"')
    ap.add_argument("--greedy", type=int, default=0, help="greedy continuation length")
    ap.add_argument("--decode", action="store_true", help="one token per forward call")
    ap.add_argument("--text", action="store_true", help="also print the continuation's text")
    ap.add_argument("--ctx", type=int, default=0, help="context in use (LongRoPE: short/long factors)")
    args = ap.parse_args()
    model = ReferenceModel(args.model, args.ctx or None)
    ids = [int(s) for s in args.ids.replace(",", " ").split()]
    logits, greedy = model.run(ids, args.greedy, args.decode)
    result = {"logits": [[float(f"{v:.9g}") for v in row] for row in logits], "greedy": greedy}
    if args.text:
        result["greedy_text"] = model.token_text(greedy)
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
