"""kvchat's logits on a file with quantized weights against the float64 reference.

The reference dequantizes exactly the blocks the file stores (gguf_reader.py,
ggml_blocks.py), so a backend that multiplies those values in f32 agrees within the f32
bound. A backend that quantizes the activation rows to 8 bits for its integer dot
products (as llama.cpp does: 32-value blocks with Q4_0..Q8_0/IQ4_NL weights, 256-value
blocks with the K-quants/IQ4_XS) moves the logits further, and so does one that rounds the
input of BF16 matmuls to BF16 (vdpbf16ps on CPUs with AVX512-BF16, as llama.cpp does); that
movement is measured on the reference (the reference rerun with every such matmul's input
rounded so, kv_storage.roundtrip_act) and the backend gets ACT_FACTOR times it:
    cpu-reference:     F32_TOL                      (plain dequantization, f32)
    any other backend: F32_TOL + ACT_FACTOR * E_act (E_act 0 for F32/F16 weights)
Wrong readings: for each block type in the file with an entry in block_mutations.py, the
reference with that deliberately wrong dequantization must be farther than the bound from
each backend's prefill logits (the bound tells that layout mistake apart).
For those backends the table also shows the distance to that emulation (informational:
small when the backend rounds activations as llama.cpp does).
Greedy ids: at each position of the greedy tail the backend's argmax must be the
reference's next token wherever the bound cannot excuse a flip (reference top-2 margin
> 2 x bound x max|logit|); positions below that are counted and reported.
"""
from __future__ import annotations

import numpy as np

import ggml_blocks
from block_mutations import BLOCK_MUTATIONS
from engine_cli import Failures, engine_logits, rel_errors
from kv_storage import roundtrip_act
from reference_forward import ReferenceModel

F32_TOL = 1e-4
ACT_FACTOR = 2.0
PLAIN_BACKENDS = {"cpu-reference"}     # dequantize to f32, activations not quantized


def activation_emulation(model: ReferenceModel, ids: list[int]) -> np.ndarray:
    """The reference's logits with each quantized matmul's input rounded to 8 bits per
    activation block (what a llama.cpp-style integer dot product multiplies), each BF16
    matmul's to BF16."""
    model.act_store = roundtrip_act
    try:
        emu, _ = model.run(ids)
    finally:
        model.act_store = None
    return emu


def activation_error(model: ReferenceModel, ids: list[int], ref: np.ndarray) -> float:
    """E_act: the largest per-position relative movement of the reference's logits when
    each quantized matmul's input is rounded to 8 bits per activation block (BF16 ones'
    to BF16)."""
    return float(rel_errors(activation_emulation(model, ids), ref).max())


def stored_types(model: ReferenceModel) -> str:
    """'Q4_K x14, Q6_K x3, ...' for the 2-D tensors of the file."""
    counts: dict[str, int] = {}
    for t in model.gguf.tensors.values():
        if len(t.ne) == 2:
            counts[t.type_name] = counts.get(t.type_name, 0) + 1
    return ", ".join(f"{k} x{v}" for k, v in sorted(counts.items()))


def compare_quantized(cli: str, name: str, path: str, prompt: list[int], greedy_n: int,
                      backends: list[str], fail: Failures, table: list, strict_greedy: bool = False) -> dict:
    """Prefill and decode logits of prompt + the reference's greedy tail, every backend,
    f32 KV. strict_greedy: every tail position must be decidable under the f32 bound (the
    prompt was chosen for clear margins). Returns the figures for the caller's report."""
    model = ReferenceModel(path)
    _, greedy = model.run(prompt, greedy_n)
    ids = prompt + greedy
    ref, _ = model.run(ids)                                             # (len(ids), n_vocab)
    emu = activation_emulation(model, ids)
    e_act = float(rel_errors(emu, ref).max())
    tail = list(range(len(prompt) - 1, len(ids) - 1))                  # row p predicts ids[p+1]
    top2 = np.sort(ref[tail], axis=1)[:, -2:]
    rel_margin = (top2[:, 1] - top2[:, 0]) / np.abs(ref[tail]).max(axis=1)
    print(f"{name}: {stored_types(model)}; greedy {greedy}; min top-2 margin {rel_margin.min():.3f} of max|logit|; "
          f"rounded activations move the reference by {e_act:.2e}", flush=True)
    if strict_greedy and rel_margin.min() <= 2 * F32_TOL:
        fail.add(f"{name}: the prompt's greedy tail has a top-2 margin of {rel_margin.min():.1e}: "
                 f"not every position is decidable even under the f32 bound")
    worst = {}
    prefill: dict[str, tuple[np.ndarray, float]] = {}
    for backend in backends:
        bound = F32_TOL + (0 if backend in PLAIN_BACKENDS else ACT_FACTOR * e_act)
        for decode in (False, True):
            mode = "decode" if decode else "prefill"
            got, err = engine_logits(cli, path, ids, backend, decode, "f32")
            if got is None:
                fail.add(f"{name} {backend} {mode}: kvchat-cli failed: {err}")
                table.append((name, backend, mode, "f32", None, bound, "n/a: " + err[:60]))
                continue
            if got.shape != ref.shape:
                fail.add(f"{name} {backend} {mode}: logits shape {got.shape}, reference {ref.shape}")
                continue
            errs = rel_errors(got, ref)
            e = float(errs.max())
            worst[(backend, mode)] = e
            status = "ok"
            if backend not in PLAIN_BACKENDS and e_act > 0:   # how closely it follows rounded activations
                status += f" (vs rounded-activation emulation {float(rel_errors(got, emu).max()):.1e})"
            if e > bound:
                status = f"FAIL at pos {int(errs.argmax())}"
                fail.add(f"{name} {backend} {mode}: max rel {e:.2e} > {bound:.1e} ({stored_types(model)})")
            decidable = rel_margin > 2 * bound
            am = [int(np.argmax(got[p])) for p in tail]
            wrong = [i for i, p in enumerate(tail) if decidable[i] and am[i] != greedy[i]]
            if wrong:
                status += ", greedy differs"
                fail.add(f"{name} {backend} {mode}: greedy {am} vs reference {greedy} "
                         f"({int(decidable.sum())}/{len(tail)} positions decidable under the bound)")
            elif not decidable.all():
                status += f" (greedy {int(decidable.sum())}/{len(tail)} decidable)"
            table.append((name, backend, mode, "f32", e, bound, status))
            if not decode:
                prefill[backend] = (got, bound)
    check_wrong_readings(name, path, ids, model, prefill, fail)
    return {"e_act": e_act, "greedy": greedy, "worst": worst, "margin": float(rel_margin.min())}


def check_wrong_readings(name: str, path: str, ids: list[int], model: ReferenceModel,
                         prefill: dict[str, tuple[np.ndarray, float]], fail: Failures) -> None:
    """Each wrong reading (block_mutations.py) of a type the file holds moves the reference
    farther from every backend's logits than that backend's bound."""
    present = {t.ggml_type for t in model.gguf.tensors.values()}
    for t in sorted(present & set(BLOCK_MUTATIONS)):
        what, wrong_fn = BLOCK_MUTATIONS[t]
        entry = ggml_blocks.BLOCK_TYPES[t]
        ggml_blocks.BLOCK_TYPES[t] = entry[:3] + (wrong_fn,)
        try:
            wrong, _ = ReferenceModel(path).run(ids)
        finally:
            ggml_blocks.BLOCK_TYPES[t] = entry
        for backend, (got, bound) in prefill.items():
            e = float(rel_errors(got, wrong).max())
            ok = e > bound
            print(f"  {name} {backend}: vs reference with {what}: {e:.2e} "
                  f"({'told apart' if ok else 'NOT told apart'}, bound {bound:.1e})")
            if not ok:
                fail.add(f"{name} {backend}: the bound {bound:.1e} cannot tell '{what}' apart ({e:.1e})")
