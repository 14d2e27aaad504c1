"""Running kvchat-cli as a black box and comparing its logits (shared by the checks)."""
from __future__ import annotations

import json
import subprocess

import numpy as np


class Failures:
    def __init__(self):
        self.items: list[str] = []

    def add(self, msg: str) -> None:
        self.items.append(msg)
        print("FAIL: " + msg, flush=True)


def run_cli(cli: str, args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([cli] + args, capture_output=True, text=True, timeout=300)


def rel_errors(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Per position: max |got - ref| / max |ref|."""
    return np.abs(got - ref).max(axis=1) / np.abs(ref).max(axis=1)


def engine_logits(cli: str, model: str, ids: list[int], backend: str, decode: bool, kv: str,
                  extra: tuple = ()):
    """kvchat-cli's logits at every position (len(ids), n_vocab), or (None, error text)."""
    args = ["logits", "--model", model, "--ids", " ".join(map(str, ids)), "--all",
            "--backend", backend, "--kv-type", kv, *extra]
    if decode:
        args.append("--decode")
    r = run_cli(cli, args)
    if r.returncode != 0:
        return None, r.stderr.strip()[:200]
    return np.array(json.loads(r.stdout)["logits"], dtype=np.float64), ""
