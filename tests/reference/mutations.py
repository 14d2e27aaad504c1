"""Deliberately wrong variants of the reference, to show the comparison can fail.

A synthetic model may be insensitive to a feature (attention scores far below the
soft-cap, a window longer than the prompt, ...). Then an engine that got the feature
wrong would still pass. check_architectures.py therefore evaluates each variant below
and requires the engine's logits to be farther than the f32 bound from every one of
them: each listed feature is then really exercised by the file and the prompt.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Callable

from reference_forward import ReferenceModel


def _spec(**changes) -> Callable[[ReferenceModel], None]:
    def apply(m: ReferenceModel) -> None:
        m.spec = dataclasses.replace(m.spec, **changes)
    return apply


def _hp(**changes) -> Callable[[ReferenceModel], None]:
    def apply(m: ReferenceModel) -> None:
        for k, v in changes.items():
            setattr(m.hp, k, v(m.hp) if callable(v) else v)
    return apply


def _no_rope_freqs(m: ReferenceModel) -> None:
    m.rope_freqs = None


def _no_scaling(m: ReferenceModel) -> None:
    m.hp.scaling = dataclasses.replace(m.hp.scaling, kind="none", factor=1.0)


def _other_longrope_factors(m: ReferenceModel) -> None:
    short = m.gguf.tensor("rope_factors_short.weight").astype(float)
    long = m.gguf.tensor("rope_factors_long.weight").astype(float)
    m.rope_freqs = long if (m.rope_freqs == short).all() else short


def _swap_gate_up(m: ReferenceModel) -> None:
    for L in m.layers:
        L["gate"], L["up"] = L["up"], L["gate"]


def _zero(*names: str) -> Callable[[ReferenceModel], None]:
    def apply(m: ReferenceModel) -> None:
        for L in m.layers:
            for n in names:
                L[n] = 0 * L[n]
    return apply


def _local_pattern(flags: Callable[[int], bool]) -> Callable[[ReferenceModel], None]:
    def apply(m: ReferenceModel) -> None:
        m.hp.swa_pattern_override = [flags(i) for i in range(m.hp.n_layer)]
    return apply


_DIM_PER_HEAD_SCALE = _spec(query_scale=lambda hp: 1.0 / math.sqrt(hp.dim / hp.n_head))

# model (an architecture, or a variant check_architectures.py derives) -> {what is wrong: how}
MUTATIONS: dict[str, dict[str, Callable[[ReferenceModel], None]]] = {
    "llama": {
        "neox instead of adjacent-pair rope": _spec(rope_style="neox"),
        "rope base x2": _hp(rope_base=lambda hp: hp.rope_base * 2),
        "rms eps x10": _hp(eps=lambda hp: hp.eps * 10),
    },
    "llama3-rope": {
        "rope_freqs.weight ignored": _no_rope_freqs,
        "neox instead of adjacent-pair rope": _spec(rope_style="neox"),
    },
    "qwen2": {
        "k bias dropped": _zero("bk"),
        "q bias dropped": _zero("bq"),
        "v bias dropped": _zero("bv"),
        "adjacent-pair instead of neox rope": _spec(rope_style="norm"),
    },
    "phi3-longrope@64": {
        "long instead of short LongRoPE factors": _other_longrope_factors,
        "LongRoPE scaling_factor left out": _hp(scaling=lambda hp: dataclasses.replace(hp.scaling, attn_factor=1.0)),
    },
    "phi3-longrope@256": {
        "short instead of long LongRoPE factors": _other_longrope_factors,
        "LongRoPE scaling_factor left out": _hp(scaling=lambda hp: dataclasses.replace(hp.scaling, attn_factor=1.0)),
        "LongRoPE factors ignored": lambda m: setattr(m, "rope_freqs", None),
    },
    "llama-linear": {
        "linear rope scaling ignored": _no_scaling,
    },
    "qwen2-yarn": {
        "YaRN ignored": _no_scaling,
        "YaRN attention temperature left out": _hp(scaling=lambda hp: dataclasses.replace(
            hp.scaling, attn_factor=1.0 / (1.0 + 0.1 * math.log(hp.scaling.factor)))),
        "plain linear interpolation instead of the YaRN ramp": _hp(scaling=lambda hp: dataclasses.replace(
            hp.scaling, kind="linear")),
    },
    "qwen3": {
        "no q/k norm": _spec(qk_norm=False),
        "adjacent-pair instead of neox rope": _spec(rope_style="norm"),
    },
    "gemma2": {
        "no final soft-cap": _hp(final_softcap=None),
        "no sliding window": _hp(sliding_window=0),
        "window one longer": _hp(sliding_window=lambda hp: hp.sliding_window + 1),
        "odd layers local instead of even": _local_pattern(lambda i: i % 2 == 1),
        "query scale 1/sqrt(dim/heads)": _DIM_PER_HEAD_SCALE,
        "no sqrt(dim) embedding scale": _spec(embed_scale=False),
        "no post norms": _spec(post_norms=False),
        "SiLU instead of GELU-tanh": _spec(activation="silu"),
    },
    # gemma2 with its query weights scaled up so attention scores reach the soft-cap.
    "gemma2-hot": {
        "no attention soft-cap": _hp(attn_softcap=None),
        "attention soft-cap 30 instead of 50": _hp(attn_softcap=30.0),
    },
    "gemma3": {
        "local layers at the global rope base": _hp(rope_base_local=lambda hp: hp.rope_base),
        "no linear rope scaling on global layers": _no_scaling,
        "all layers local": _local_pattern(lambda i: True),
        "window one longer": _hp(sliding_window=lambda hp: hp.sliding_window + 1),
        "no q/k norm": _spec(qk_norm=False),
        "query scale 1/sqrt(dim/heads)": _DIM_PER_HEAD_SCALE,
        "final soft-cap 30 (gemma2's)": _hp(final_softcap=30.0),
    },
    "gemma3-capped": {
        "final soft-cap key ignored": _hp(final_softcap=None),
    },
    "phi3": {
        "fused ffn_up halves swapped (up first)": _swap_gate_up,
        "adjacent-pair instead of neox rope": _spec(rope_style="norm"),
    },
}
