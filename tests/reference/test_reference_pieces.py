#!/usr/bin/python3
"""Hand-checkable checks of the reference's pieces, each against a value worked out
by hand or a formula from the published description (not against the reference's own
code path). Run: /usr/bin/python3 test_reference_pieces.py"""
from __future__ import annotations

import math
import os
import struct
import sys
import tempfile
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ggml_blocks  # noqa: E402
import gguf_reader  # noqa: E402
from reference_forward import (ARCHS, HParams, RopeScaling, apply_rope, attention_mask,  # noqa: E402
                               gelu_tanh, rms_norm, rope_angles, softcap, yarn_ramp)


def rope(x, pos, base, style, n_rot=None, sc=RopeScaling(), ff=None):
    x = np.asarray(x, dtype=np.float64).reshape(1, 1, -1)
    n_rot = n_rot or x.shape[-1]
    theta, m = rope_angles(np.array([pos]), n_rot, base, sc, ff)
    return apply_rope(x, theta, m, n_rot, style).reshape(-1)


class Rope(unittest.TestCase):
    def test_norm_rotates_adjacent_pairs(self):
        # D=4, base 10000, position 1: pair 0 turns by 1 rad, pair 1 by 10000^(-1/2) = 0.01.
        c1, s1, c2, s2 = math.cos(1), math.sin(1), math.cos(0.01), math.sin(0.01)
        want = [1 * c1 - 2 * s1, 1 * s1 + 2 * c1, 3 * c2 - 4 * s2, 3 * s2 + 4 * c2]
        np.testing.assert_allclose(rope([1, 2, 3, 4], 1, 10000, "norm"), want, rtol=0, atol=1e-15)

    def test_neox_rotates_half_split_pairs(self):
        # Pairs (x0, x2) by 1 rad and (x1, x3) by 0.01 rad.
        c1, s1, c2, s2 = math.cos(1), math.sin(1), math.cos(0.01), math.sin(0.01)
        want = [1 * c1 - 3 * s1, 2 * c2 - 4 * s2, 1 * s1 + 3 * c1, 2 * s2 + 4 * c2]
        np.testing.assert_allclose(rope([1, 2, 3, 4], 1, 10000, "neox"), want, rtol=0, atol=1e-15)

    def test_neox_equals_norm_on_interleaved_dims(self):
        # llama.cpp's converter permutes llama's Q/K rows so HF's half-split rotation
        # becomes adjacent pairs: neox(x) == unperm(norm(perm(x))).
        rng = np.random.default_rng(1)
        x = rng.standard_normal(8)
        perm = np.array([0, 4, 1, 5, 2, 6, 3, 7])       # interleave the two halves
        got = np.empty(8)
        got[perm] = rope(x[perm], 7, 100.0, "norm")
        np.testing.assert_allclose(got, rope(x, 7, 100.0, "neox"), atol=1e-14)

    def test_position_zero_is_identity_and_norm_is_kept(self):
        x = np.arange(1.0, 9.0)
        for style in ("norm", "neox"):
            np.testing.assert_array_equal(rope(x, 0, 10000, style), x)
            self.assertAlmostEqual(np.linalg.norm(rope(x, 37, 10000, style)), np.linalg.norm(x), places=12)

    def test_dot_product_depends_only_on_relative_position(self):
        rng = np.random.default_rng(2)
        q, k = rng.standard_normal(16), rng.standard_normal(16)
        for style in ("norm", "neox"):
            a = rope(q, 10, 10000, style) @ rope(k, 7, 10000, style)
            b = rope(q, 103, 10000, style) @ rope(k, 100, 10000, style)
            self.assertAlmostEqual(a, b, places=11)

    def test_partial_rotation_leaves_the_tail(self):
        x = np.arange(1.0, 9.0)
        for style in ("norm", "neox"):
            y = rope(x, 5, 10000, style, n_rot=4)
            np.testing.assert_array_equal(y[4:], x[4:])
            np.testing.assert_allclose(y[:4], rope(x[:4], 5, 10000, style), atol=1e-15)

    def test_linear_scaling_divides_the_position(self):
        x = np.arange(1.0, 9.0)
        sc = RopeScaling(kind="linear", factor=4.0)
        np.testing.assert_allclose(rope(x, 12, 10000, "neox", sc=sc), rope(x, 3, 10000, "neox"), atol=1e-14)


def meta_llama31_scaled_freqs(freqs, factor, low_freq_factor, high_freq_factor, old_ctx):
    """Meta's Llama 3.1 description of RoPE scaling (apply_scaling), written out:
    high-frequency dims keep their frequency, low-frequency dims are divided by the
    factor, the band between blends the two with weight smooth."""
    low_wavelen, high_wavelen = old_ctx / low_freq_factor, old_ctx / high_freq_factor
    out = []
    for f in freqs:
        wavelen = 2 * math.pi / f
        if wavelen < high_wavelen:
            out.append(f)
        elif wavelen > low_wavelen:
            out.append(f / factor)
        else:
            smooth = (old_ctx / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
            out.append((1 - smooth) * f / factor + smooth * f)
    return np.array(out)


class Llama3RopeScaling(unittest.TestCase):
    def test_rope_freqs_divisors_give_metas_frequencies(self):
        # Llama 3.1 8B: base 500000, head_dim 128, factor 8, low 1, high 4, 8192.
        base, d = 500000.0, 128
        freqs = base ** (-np.arange(0, d, 2) / d)
        scaled = meta_llama31_scaled_freqs(freqs, 8.0, 1.0, 4.0, 8192)
        # In GGUF the change is stored as rope_freqs.weight, a divisor per pair.
        divisors = freqs / scaled
        self.assertEqual(divisors[0], 1.0)            # wavelength 2*pi: unchanged
        self.assertAlmostEqual(divisors[-1], 8.0)     # slowest pair: 8x slower
        band = (divisors > 1.0) & (divisors < 8.0)
        self.assertGreater(band.sum(), 0)             # some pairs blend
        theta, m = rope_angles(np.array([1000]), d, base, RopeScaling(), divisors)
        np.testing.assert_allclose(theta[0], 1000 * scaled, rtol=1e-13)
        self.assertEqual(m, 1.0)

    def test_hand_value_in_the_blend_band(self):
        # A pair with wavelength 4096 (between 8192/4 = 2048 and 8192/1): smooth =
        # (8192/4096 - 1) / (4 - 1) = 1/3, new freq = (2/3) f / 8 + (1/3) f = f * 5/12.
        f = 2 * math.pi / 4096
        got = meta_llama31_scaled_freqs([f], 8.0, 1.0, 4.0, 8192)[0]
        self.assertAlmostEqual(got / f, 5.0 / 12.0, places=14)


class Yarn(unittest.TestCase):
    """YaRN (Peng et al. 2023): with r = L / wavelength, a pair keeps its frequency
    when r > beta, is interpolated (theta / s) when r < alpha, blends in between; the
    attention temperature sqrt(1/t) = 0.1 ln s + 1 multiplies q and k (cos and sin).
    The paper's gamma is linear in r; the authors' code, HF and llama.cpp ramp linearly
    in the pair index between the floor/ceil of the pair indices where r = beta and
    r = alpha — the reference follows the code (what models were trained with); here
    the two must agree outside the ramp and at its ends."""
    base, d, L, s = 10000.0, 64, 4096, 4.0

    def test_against_the_paper(self):
        sc = RopeScaling(kind="yarn", factor=self.s, orig_ctx=self.L, beta_fast=32.0, beta_slow=1.0)
        theta, mscale = rope_angles(np.array([1]), self.d, self.base, sc)
        freqs = self.base ** (-np.arange(0, self.d, 2) / self.d)
        r = self.L / (2 * math.pi / freqs)
        self.assertAlmostEqual(mscale, 0.1 * math.log(self.s) + 1.0, places=15)
        keep, interp = r > 32.0, r < 1.0
        ramp = yarn_ramp(self.d, self.base, sc)
        # Paper: r > beta keep; code: all pairs before floor(i(beta)) keep.
        i_beta = self.d * math.log(self.L / (32.0 * 2 * math.pi)) / (2 * math.log(self.base))
        i_alpha = self.d * math.log(self.L / (1.0 * 2 * math.pi)) / (2 * math.log(self.base))
        idx = np.arange(self.d // 2)
        np.testing.assert_array_equal(idx[keep], idx[idx < i_beta])
        np.testing.assert_array_equal(idx[interp], idx[idx > i_alpha])
        sure_keep, sure_interp = idx <= math.floor(i_beta), idx >= math.ceil(i_alpha)
        np.testing.assert_allclose(theta[0][sure_keep], freqs[sure_keep], rtol=1e-14)
        np.testing.assert_allclose(theta[0][sure_interp], freqs[sure_interp] / self.s, rtol=1e-14)
        # In between: a blend, moving monotonically from keep to interpolate.
        self.assertTrue(np.all(theta[0] <= freqs * (1 + 1e-14)))
        self.assertTrue(np.all(theta[0] >= freqs / self.s * (1 - 1e-14)))
        self.assertTrue(np.all(np.diff(ramp) <= 0))
        self.assertEqual(ramp[0], 1.0)
        self.assertEqual(ramp[-1], 0.0)

    def test_temperature_scales_attention_logits_by_mscale_squared(self):
        sc = RopeScaling(kind="yarn", factor=self.s, orig_ctx=self.L)
        rng = np.random.default_rng(3)
        q, k = rng.standard_normal(self.d), rng.standard_normal(self.d)
        plain = RopeScaling(kind="yarn", factor=self.s, orig_ctx=self.L, attn_factor=1.0 / (0.1 * math.log(self.s) + 1.0))
        m = 0.1 * math.log(self.s) + 1.0
        a = rope(q, 5, self.base, "neox", sc=sc) @ rope(k, 3, self.base, "neox", sc=sc)
        b = rope(q, 5, self.base, "neox", sc=plain) @ rope(k, 3, self.base, "neox", sc=plain)
        self.assertAlmostEqual(a, b * m * m, places=11)


class Activations(unittest.TestCase):
    def test_gelu_tanh_hand_values(self):
        self.assertEqual(gelu_tanh(np.array(0.0)), 0.0)
        # 0.5 * (1 + tanh(sqrt(2/pi) * (1 + 0.044715)))
        self.assertAlmostEqual(float(gelu_tanh(np.array(1.0))), 0.8411919906082768, places=14)
        # gelu(x) - gelu(-x) = x for the tanh form too: gelu(-1) = gelu(1) - 1.
        self.assertAlmostEqual(float(gelu_tanh(np.array(-1.0))), 0.8411919906082768 - 1, places=14)
        # Within 1e-3 of the exact (erf) GELU.
        for x in np.linspace(-5, 5, 41):
            exact = 0.5 * x * (1 + math.erf(x / math.sqrt(2)))
            self.assertLess(abs(float(gelu_tanh(np.array(x))) - exact), 1e-3)

    def test_softcap(self):
        self.assertEqual(float(softcap(np.array(0.0), 50.0)), 0.0)
        self.assertAlmostEqual(float(softcap(np.array(50.0), 50.0)), 50 * math.tanh(1.0), places=12)  # 38.0797
        self.assertAlmostEqual(float(softcap(np.array(50.0), 50.0)), 38.07970779778824, places=12)
        self.assertLess(float(softcap(np.array(1e6), 30.0)), 30.0 + 1e-12)
        self.assertAlmostEqual(float(softcap(np.array(0.01), 30.0)), 0.01, places=8)
        self.assertEqual(float(softcap(np.array(7.0), None)), 7.0)

    def test_rms_norm(self):
        # [3, 4]: mean square 12.5, so x / sqrt(12.5) * w.
        got = rms_norm(np.array([3.0, 4.0]), np.array([1.0, 2.0]), 0.0)
        np.testing.assert_allclose(got, [3 / math.sqrt(12.5), 8 / math.sqrt(12.5)], rtol=1e-15)


class SlidingWindow(unittest.TestCase):
    def test_mask_keeps_the_last_w_positions(self):
        m = attention_mask(np.arange(10), np.arange(10), 3)
        self.assertEqual(list(np.nonzero(m[5])[0]), [3, 4, 5])
        self.assertEqual(list(np.nonzero(m[0])[0]), [0])
        self.assertEqual(list(np.nonzero(m[9])[0]), [7, 8, 9])
        full = attention_mask(np.arange(10), np.arange(10), 0)
        self.assertEqual(list(np.nonzero(full[5])[0]), [0, 1, 2, 3, 4, 5])
        # A decode row (query at 12 over 13 cached keys).
        self.assertEqual(list(np.nonzero(attention_mask(np.array([12]), np.arange(13), 4)[0])[0]), [9, 10, 11, 12])

    def test_layer_patterns(self):
        hp = HParams("gemma2", 6, 64, 128, 4, 2, 16, 16, 1e-6, 10000, 16, 256, sliding_window=8)
        self.assertEqual([ARCHS["gemma2"].swa_layer(i, hp) for i in range(6)], [True, False] * 3)
        hp.arch, hp.n_layer = "gemma3", 12
        self.assertEqual([ARCHS["gemma3"].swa_layer(i, hp) for i in range(12)], ([True] * 5 + [False]) * 2)
        hp.swa_pattern_override = 3
        self.assertEqual([ARCHS["gemma3"].swa_layer(i, hp) for i in range(6)], [True, True, False] * 2)
        hp.swa_pattern_override = [True, False]
        self.assertEqual([ARCHS["gemma3"].swa_layer(i, hp) for i in range(2)], [True, False])

    def test_gemma_query_scale(self):
        hp = HParams("gemma2", 26, 2304, 9216, 8, 4, 256, 256, 1e-6, 10000, 256, 256000)
        self.assertEqual(ARCHS["gemma2"].query_scale(hp), 1 / 16)          # 2B: 256^-0.5
        hp.n_layer, hp.dim, hp.n_head, hp.head_dim_k = 46, 4608, 32, 128
        self.assertEqual(ARCHS["gemma2"].query_scale(hp), 1 / 12)          # 27B: 144^-0.5
        self.assertEqual(ARCHS["llama"].query_scale(hp), 1 / math.sqrt(128))


def _gguf_string(s: str) -> bytes:
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


class Reader(unittest.TestCase):
    def test_block_layouts(self):
        # Q8_0: d = 2 (f16), q = 0..31 minus 16 -> values 2*(j-16).
        blk = np.float16(2.0).tobytes() + bytes((j - 16) & 0xFF for j in range(32))
        np.testing.assert_array_equal(gguf_reader.dequantize(blk, gguf_reader.GGML_Q8_0, 32),
                                      [2.0 * (j - 16) for j in range(32)])
        # Q4_0: d = 0.5; byte j = 0x8F: element j = (15 - 8) * 0.5, element j+16 = (8 - 8) * 0.5.
        blk = np.float16(0.5).tobytes() + bytes([0x8F] * 15 + [0x10])
        got = gguf_reader.dequantize(blk, gguf_reader.GGML_Q4_0, 32)
        self.assertEqual(list(got[:15]), [3.5] * 15)
        self.assertEqual(got[15], -4.0)          # low nibble 0 -> (0 - 8) * 0.5
        self.assertEqual(list(got[16:31]), [0.0] * 15)
        self.assertEqual(got[31], -3.5)          # high nibble 1 -> (1 - 8) * 0.5
        # BF16 0x3F80 = 1.0, 0xC040 = -3.0; F16 0x3C00 = 1.0.
        self.assertEqual(list(gguf_reader.dequantize(bytes([0x80, 0x3F, 0x40, 0xC0]), gguf_reader.GGML_BF16, 2)), [1.0, -3.0])
        self.assertEqual(list(gguf_reader.dequantize(bytes([0x00, 0x3C]), gguf_reader.GGML_F16, 1)), [1.0])

    def test_file_with_every_value_type_and_alignment(self):
        kv = [("a.u8", 0, struct.pack("<B", 200)), ("a.i8", 1, struct.pack("<b", -5)),
              ("a.u16", 2, struct.pack("<H", 60000)), ("a.i16", 3, struct.pack("<h", -300)),
              ("a.u32", 4, struct.pack("<I", 4000000000)), ("a.i32", 5, struct.pack("<i", -7)),
              ("a.f32", 6, struct.pack("<f", 0.5)), ("a.bool", 7, struct.pack("<?", True)),
              ("a.str", 8, _gguf_string("héllo")),
              ("a.arr", 9, struct.pack("<IQ", 5, 3) + struct.pack("<3i", 1, -2, 3)),
              ("a.sarr", 9, struct.pack("<IQ", 8, 2) + _gguf_string("x") + _gguf_string("yz")),
              ("a.u64", 10, struct.pack("<Q", 2 ** 40)), ("a.i64", 11, struct.pack("<q", -2 ** 40)),
              ("a.f64", 12, struct.pack("<d", 0.1)), ("general.alignment", 4, struct.pack("<I", 64))]
        t = np.arange(6, dtype="<f4")
        head = b"GGUF" + struct.pack("<IQQ", 3, 1, len(kv))
        for k, ty, v in kv:
            head += _gguf_string(k) + struct.pack("<I", ty) + v
        head += _gguf_string("t") + struct.pack("<I", 2) + struct.pack("<QQ", 3, 2) + struct.pack("<IQ", 0, 0)
        pad = (-len(head)) % 64
        with tempfile.NamedTemporaryFile(suffix=".gguf", delete=False) as f:
            f.write(head + b"\0" * pad + t.tobytes())
        try:
            g = gguf_reader.GGUFFile(f.name)
        finally:
            os.unlink(f.name)
        m = g.metadata
        self.assertEqual((m["a.u8"], m["a.i8"], m["a.u16"], m["a.i16"], m["a.u32"], m["a.i32"]),
                         (200, -5, 60000, -300, 4000000000, -7))
        self.assertEqual((m["a.f32"], m["a.bool"], m["a.str"], m["a.u64"], m["a.i64"], m["a.f64"]),
                         (0.5, True, "héllo", 2 ** 40, -2 ** 40, 0.1))
        self.assertEqual(m["a.arr"], [1, -2, 3])
        self.assertEqual(m["a.sarr"], ["x", "yz"])
        self.assertEqual(g.data_offset % 64, 0)
        self.assertEqual(g.tensors["t"].shape, (2, 3))
        np.testing.assert_array_equal(g.tensor("t"), [[0, 1, 2], [3, 4, 5]])


def _h(x: float) -> bytes:
    """x as the 2 bytes of an f16."""
    return np.float16(x).tobytes()


def _deq(blk: bytes, type_name: str) -> np.ndarray:
    t = gguf_reader.GGML_TYPE_IDS[type_name]
    _, n, nbytes = gguf_reader.GGML_TYPES[t]
    assert len(blk) == nbytes, (type_name, len(blk), nbytes)
    return gguf_reader.dequantize(blk, t, n)


class QuantBlocks(unittest.TestCase):
    """One hand-built block per type; the expected values are worked out by hand from the
    layout in ggml_blocks.py's docstring (never by running a dequantizer)."""

    def test_block_sizes(self):
        want = {"Q4_1": (32, 20), "Q5_0": (32, 22), "Q5_1": (32, 24), "Q2_K": (256, 84), "Q3_K": (256, 110),
                "Q4_K": (256, 144), "Q5_K": (256, 176), "Q6_K": (256, 210), "IQ4_NL": (32, 18),
                "IQ4_XS": (256, 136)}
        ids = {"Q4_1": 3, "Q5_0": 6, "Q5_1": 7, "Q2_K": 10, "Q3_K": 11, "Q4_K": 12, "Q5_K": 13, "Q6_K": 14,
               "IQ4_NL": 20, "IQ4_XS": 23}
        for name, (n, nbytes) in want.items():
            self.assertEqual(gguf_reader.GGML_TYPES[ids[name]], (name, n, nbytes))

    def test_q4_1(self):
        # d = 0.5, m = -1; byte 0 = 0xF0: x0 = 0.5*0 - 1 = -1, x16 = 0.5*15 - 1 = 6.5;
        # bytes 1..15 = 0x3A: x1..15 = 0.5*10 - 1 = 4, x17..31 = 0.5*3 - 1 = 0.5.
        got = _deq(_h(0.5) + _h(-1.0) + bytes([0xF0] + [0x3A] * 15), "Q4_1")
        np.testing.assert_array_equal(got, [-1.0] + [4.0] * 15 + [6.5] + [0.5] * 15)

    def test_q5_0(self):
        # d = 0.25; qh = bits 0, 17, 31; qs all 0x21 (low nibble 1, high 2).
        # x0 = (1|16) - 16 = 1 -> 0.25; x1..15 = 1 - 16 = -15 -> -3.75; x16 = 2 - 16 -> -3.5;
        # x17 = (2|16) - 16 = 2 -> 0.5; x18..30 -> -3.5; x31 = 2 -> 0.5.
        qh = (1 | 1 << 17 | 1 << 31).to_bytes(4, "little")
        got = _deq(_h(0.25) + qh + bytes([0x21] * 16), "Q5_0")
        np.testing.assert_array_equal(got, [0.25] + [-3.75] * 15 + [-3.5, 0.5] + [-3.5] * 13 + [0.5])

    def test_q5_1(self):
        # d = 1, m = 0.5; qh bytes 00 00 01 00 = bit 16; qs all 0x5F.
        # x0..15 = 15 + 0.5; x16 = (5|16) + 0.5 = 21.5; x17..31 = 5.5.
        got = _deq(_h(1.0) + _h(0.5) + bytes([0, 0, 1, 0]) + bytes([0x5F] * 16), "Q5_1")
        np.testing.assert_array_equal(got, [15.5] * 16 + [21.5] + [5.5] * 15)

    def test_q2_k(self):
        # scales[s] = ((s+1) & 15) | (15-s) << 4: scale (s+1)%16, min 15-s. d = 0.5, dmin = 0.25.
        # qs all 0xE4 = 0b11_10_01_00 (plane k holds k), except qs[32+5] = 0x1B = 0b00_01_10_11.
        scales = bytes(((s + 1) & 15) | (15 - s) << 4 for s in range(16))
        qs = [0xE4] * 64
        qs[32 + 5] = 0x1B
        got = _deq(scales + bytes(qs) + _h(0.5) + _h(0.25), "Q2_K")
        self.assertEqual(got[0], -3.75)      # h0 k0 l0: q 0, s 0 (scale 1, min 15): 0 - 0.25*15
        self.assertEqual(got[116], 10.0)     # h0 k3 l20: q 3, s 7 (8, 8): 0.5*8*3 - 0.25*8
        self.assertEqual(got[133], 11.75)    # h1 k0 l5: q 0x1B&3 = 3, s 8 (9, 7): 13.5 - 1.75
        self.assertEqual(got[176], 5.0)      # h1 k1 l16: q 1, s 11 (12, 4): 6 - 1
        self.assertEqual(got[197], 5.75)     # h1 k2 l5: q (0x1B>>4)&3 = 1, s 12 (13, 3): 6.5 - 0.75
        self.assertEqual(got[255], 0.0)      # h1 k3 l31: q 3, s 15 (scale 16&15 = 0, min 0)

    # Q3_K scale bytes: low nibbles 1,3,5,7,9,11,13,15 (bytes 0..7) then their high nibbles
    # 2,4,...,14,0; high-bit bytes 8..11 = 0xE4, 0x00, 0xFF, 0x1B.
    Q3_SCALES = bytes([0x21, 0x43, 0x65, 0x87, 0xA9, 0xCB, 0xED, 0x0F, 0xE4, 0x00, 0xFF, 0x1B])

    def test_q3_k_scales(self):
        # scale s: 6-bit = low | ((byte[8 + s%4] >> 2*(s//4)) & 3) << 4, minus 32.
        # s0: 1|0 -> -31; s1: 3 -> -29; s2: 5|48 -> 21; s3: 7|48 -> 23; s4: 9|16 (0xE4>>2&3 = 1) -> -7;
        # s5: 11 -> -21; s6: 13|48 -> 29; s7: 15|32 (0x1B>>2&3 = 2) -> 15; s8: 2|32 (0xE4>>4&3) -> 2;
        # s9: 4 -> -28; s10: 6|48 -> 22; s11: 8|16 (0x1B>>4&3 = 1) -> -8; s12: 10|48 (0xE4>>6) -> 26;
        # s13: 12 -> -20; s14: 14|48 -> 30; s15: 0|0 (0x1B>>6 = 0) -> -32.
        got = ggml_blocks.q3_k_scales(np.frombuffer(self.Q3_SCALES, dtype=np.uint8).reshape(1, 12))
        self.assertEqual(got.tolist(), [[-31, -29, 21, 23, -7, -21, 29, 15, 2, -28, 22, -8, 26, -20, 30, -32]])

    def test_q3_k(self):
        # hmask all 0xFF except hmask[3] = 0xEE (bits 0 and 4 clear); qs all 0xE4 (plane k
        # holds k) except qs[32+3] = 0x1B; d = 0.5. q = low2 - (high ? 0 : 4).
        hmask = [0xFF] * 32
        hmask[3] = 0xEE
        qs = [0xE4] * 64
        qs[32 + 3] = 0x1B
        got = _deq(bytes(hmask) + bytes(qs) + self.Q3_SCALES + _h(0.5), "Q3_K")
        self.assertEqual(got[0], 0.0)        # h0 k0 l0: low2 0, high 1 -> q 0
        self.assertEqual(got[3], 62.0)       # h0 k0 l3: low2 0, bit 0 clear -> q -4; s0 -31: 0.5*-31*-4
        self.assertEqual(got[35], 10.5)      # h0 k1 l3: low2 1, bit 1 set -> q 1; s2 21
        self.assertEqual(got[81], -21.0)     # h0 k2 l17: q 2, s5 -21
        self.assertEqual(got[131], -1.0)     # h1 k0 l3: low2 0x1B&3 = 3, bit 4 clear -> q -1; s8 2
        self.assertEqual(got[163], 22.0)     # h1 k1 l3: low2 (0x1B>>2)&3 = 2, bit 5 set; s10 22
        self.assertEqual(got[243], -48.0)    # h1 k3 l19: low2 3, bit 7 set; s15 -32: 0.5*-32*3

    # Q4_K/Q5_K scale bytes: scales j0..3 = 1,2,3,4 (bytes 0..3 & 63), mins j0..3 = 5,6,7,8
    # (bytes 4..7 & 63); j4..7: scale = low nibble of bytes 8..11 (9,10,11,12) | top 2 bits of
    # bytes 0..3 (1,2,3,0) << 4 = 25, 42, 59, 12; min = high nibble of bytes 8..11 (1,2,3,4)
    # | top 2 bits of bytes 4..7 (1,0,3,2) << 4 = 17, 2, 51, 36.
    K4_SCALES = bytes([0x41, 0x82, 0xC3, 0x04, 0x45, 0x06, 0xC7, 0x88, 0x19, 0x2A, 0x3B, 0x4C])

    def test_k4_scales_mins(self):
        sc, mn = ggml_blocks.k4_scales_mins(np.frombuffer(self.K4_SCALES, dtype=np.uint8).reshape(1, 12))
        self.assertEqual(sc.tolist(), [[1, 2, 3, 4, 25, 42, 59, 12]])
        self.assertEqual(mn.tolist(), [[5, 6, 7, 8, 17, 2, 51, 36]])

    def _k4_qs(self) -> list[int]:
        qs = [0x73] * 128                    # low nibble 3, high 7
        qs[64 + 7] = 0xA5                    # c = 2, l = 7: sub-block 4 gets 5, sub-block 5 gets 10
        return qs

    def test_q4_k(self):
        # d = 0.5, dmin = 0.25; x = 0.5*scale*q - 0.25*min.
        got = _deq(_h(0.5) + _h(0.25) + self.K4_SCALES + bytes(self._k4_qs()), "Q4_K")
        self.assertEqual(got[0], 0.25)       # sub 0, q 3: 0.5*1*3 - 0.25*5
        self.assertEqual(got[33], 5.5)       # sub 1, q 7: 0.5*2*7 - 0.25*6
        self.assertEqual(got[135], 58.25)    # sub 4 l7, q 5: 0.5*25*5 - 0.25*17
        self.assertEqual(got[167], 209.5)    # sub 5 l7, q 10: 0.5*42*10 - 0.25*2
        self.assertEqual(got[192], 75.75)    # sub 6, q 3: 0.5*59*3 - 0.25*51
        self.assertEqual(got[255], 33.0)     # sub 7, q 7: 0.5*12*7 - 0.25*36

    def test_q5_k(self):
        # As Q4_K plus qh: qh[0] = 0x80 (sub 7's fifth bit at l 0), qh[7] = 0x30 (subs 4, 5 at l 7).
        qh = [0] * 32
        qh[0], qh[7] = 0x80, 0x30
        got = _deq(_h(0.5) + _h(0.25) + self.K4_SCALES + bytes(qh) + bytes(self._k4_qs()), "Q5_K")
        self.assertEqual(got[0], 0.25)       # sub 0 l0: bit 0 of qh[0] clear -> as Q4_K
        self.assertEqual(got[135], 258.25)   # sub 4 l7, q 5+16: 0.5*25*21 - 4.25
        self.assertEqual(got[167], 545.5)    # sub 5 l7, q 10+16: 0.5*42*26 - 0.5
        self.assertEqual(got[199], 75.75)    # sub 6 l7: bit 6 of qh[7] clear, q 3
        self.assertEqual(got[224], 129.0)    # sub 7 l0, q 7+16: 0.5*12*23 - 9
        self.assertEqual(got[225], 33.0)     # sub 7 l1: no fifth bit

    def test_q6_k(self):
        # scales[s] = s - 8; d = 0.5. ql all 0x21 (low 1, high 2) except ql[64+32+9] = 0xF4;
        # qh all 0 except qh[0] = 0x03 and qh[32+9] = 0xE4 (g0 0, g1 1, g2 2, g3 3).
        ql = [0x21] * 128
        ql[105] = 0xF4
        qh = [0] * 64
        qh[0], qh[41] = 0x03, 0xE4
        got = _deq(bytes(ql) + bytes(qh) + bytes((s - 8) & 0xFF for s in range(16)) + _h(0.5), "Q6_K")
        self.assertEqual(got[0], -68.0)      # h0 g0 l0: 1 | 3<<4 = 49 - 32 = 17; s0 -8: 0.5*-8*17
        self.assertEqual(got[84], 45.0)      # h0 g2 l20: ql[20]>>4 = 2 -> -30; s5 -3
        self.assertEqual(got[169], -12.0)    # h1 g1 l9: ql[105]&15 = 4 | 1<<4 = 20 -> -12; s10 2
        self.assertEqual(got[201], 4.0)      # h1 g2 l9: ql[73]>>4 = 2 | 2<<4 = 34 -> 2; s12 4
        self.assertEqual(got[233], 93.0)     # h1 g3 l9: ql[105]>>4 = 15 | 3<<4 = 63 -> 31; s14 6
        self.assertEqual(got[255], -105.0)   # h1 g3 l31: 2 -> -30; s15 7

    def test_iq4_nl(self):
        # d = 0.5; byte j = j | (15-j) << 4: x_j = 0.5*table[j], x_{16+j} = 0.5*table[15-j].
        table = [-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113]
        got = _deq(_h(0.5) + bytes(j | (15 - j) << 4 for j in range(16)), "IQ4_NL")
        np.testing.assert_array_equal(got, [0.5 * v for v in table + table[::-1]])

    def test_iq4_xs(self):
        # d = 0.25; scales_h = 0xE4E4 -> high bits per sub-block 0,1,2,3,0,1,2,3; scales_l
        # 0x21 0x43 0x65 0x87 -> low 1..8; ls - 32 = -31, -14, 3, 20, -27, -10, 7, 24.
        # qs all 0x0F (low -> table[15] = 113, high -> table[0] = -127) except qs[16*3+2] = 0x98.
        qs = [0x0F] * 128
        qs[50] = 0x98
        got = _deq(_h(0.25) + bytes([0xE4, 0xE4, 0x21, 0x43, 0x65, 0x87]) + bytes(qs), "IQ4_XS")
        self.assertEqual(got[0], -875.75)    # sub 0: 0.25*-31*113
        self.assertEqual(got[16], 984.25)    # sub 0, high nibble: 0.25*-31*-127
        self.assertEqual(got[64], 84.75)     # sub 2: 0.25*3*113
        self.assertEqual(got[98], 5.0)       # sub 3 l2: table[8] = 1: 0.25*20*1
        self.assertEqual(got[114], 65.0)     # sub 3 l18: table[9] = 13: 0.25*20*13
        self.assertEqual(got[255], -762.0)   # sub 7 high: 0.25*24*-127

    def test_activation_rounding(self):
        from kv_storage import roundtrip_act_q8
        # One 32-block with max|x| = 127: d = 1, x' = round(x): 63.7 -> 64, -0.4 -> 0, -2.5 -> -3 (half away).
        x = np.zeros(32)
        x[:4] = [127.0, 63.7, -0.4, -2.5]
        np.testing.assert_array_equal(roundtrip_act_q8(x, 32)[:4], [127.0, 64.0, 0.0, -3.0])
        # A 256-block: d = 254/127 = 2 over all 256 values, so 3.1 -> 2*round(1.55) = 4.
        y = np.zeros(256)
        y[0], y[200] = 3.1, -254.0
        got = roundtrip_act_q8(y, 256)
        self.assertEqual((got[0], got[200]), (4.0, -254.0))
        from reference_forward import ACT_BF16, act_block
        self.assertEqual([act_block(t) for t in ("F16", "Q4_0", "IQ4_NL", "Q4_K", "IQ4_XS", "Q6_K", "BF16")],
                         [0, 32, 32, 256, 256, 256, ACT_BF16])

    def test_bf16_activation_rounding(self):
        from kv_storage import roundtrip_act
        from reference_forward import ACT_BF16
        # 1 + 2^-8 is halfway between 1 and 1 + 2^-7 (to even: 1); 1 + 3 * 2^-8 halfway
        # between 1 + 2^-7 and 1 + 2^-6 (to even: 1 + 2^-6); past halfway rounds up; a
        # subnormal goes to zero.
        x = np.array([1 + 2.0**-8, 1 + 3 * 2.0**-8, 1 + 2.0**-8 + 2.0**-20, -2.5, 2.0**-130])
        np.testing.assert_array_equal(roundtrip_act(x, ACT_BF16), [1.0, 1 + 2.0**-6, 1 + 2.0**-7, -2.5, 0.0])

    def test_blocks_are_independent(self):
        # Two Q4_1 blocks in a row: the second block's values come from its own d and m.
        two = _h(1.0) + _h(0.0) + bytes([0x11] * 16) + _h(2.0) + _h(-3.0) + bytes([0x22] * 16)
        got = gguf_reader.dequantize(two, 3, 64)
        np.testing.assert_array_equal(got, [1.0] * 32 + [1.0] * 32)   # 1*1 + 0; 2*2 - 3


if __name__ == "__main__":
    unittest.main(verbosity=1)
