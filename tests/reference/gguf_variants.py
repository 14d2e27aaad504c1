"""Variants of a GGUF file for check_architectures.py: the same model with some
tensors scaled, or with metadata keys added (e.g. a rope scaling type), so kvchat and
the reference are compared on features the synthetic files leave inert or absent."""
from __future__ import annotations

import struct

import numpy as np

from gguf_reader import GGML_F32, GGUFFile


def scaled_copy(src: str, dst: str, suffix: str, factor: float) -> None:
    """src with every F32 tensor whose name ends with suffix multiplied by factor."""
    g = GGUFFile(src)
    with open(src, "rb") as f:
        data = bytearray(f.read())
    for info in g.tensors.values():
        if info.name.endswith(suffix):
            assert info.ggml_type == GGML_F32, info.name
            start, n = g.data_offset + info.offset, info.n_bytes()
            values = np.frombuffer(bytes(data[start:start + n]), dtype="<f4") * np.float32(factor)
            data[start:start + n] = values.astype("<f4").tobytes()
    with open(dst, "wb") as f:
        f.write(data)


def _kv_bytes(key: str, value) -> bytes:
    def string(s: str) -> bytes:
        b = s.encode()
        return struct.pack("<Q", len(b)) + b
    if isinstance(value, str):
        return string(key) + struct.pack("<I", 8) + string(value)
    if isinstance(value, bool):
        return string(key) + struct.pack("<I?", 7, value)
    if isinstance(value, int):
        return string(key) + struct.pack("<II", 4, value)       # uint32
    if isinstance(value, float):
        return string(key) + struct.pack("<If", 6, value)       # float32
    raise TypeError(f"{key}: {type(value).__name__}")


def with_metadata(src: str, dst: str, extra: dict) -> None:
    """src with the metadata keys in extra added (none of them may exist already).
    Tensor offsets are relative to the data section, so only the padding before it
    changes."""
    g = GGUFFile(src)
    clash = set(extra) & set(g.metadata)
    if clash:
        raise ValueError(f"{src} already has {sorted(clash)}")
    with open(src, "rb") as f:
        raw = f.read()
    n_tensors, n_kv = struct.unpack_from("<QQ", raw, 8)
    head = raw[:8] + struct.pack("<QQ", n_tensors, n_kv + len(extra))
    head += raw[g.kv_start:g.kv_end] + b"".join(_kv_bytes(k, v) for k, v in extra.items())
    head += raw[g.kv_end:g.tensor_info_end]
    head += b"\0" * ((-len(head)) % g.alignment)
    with open(dst, "wb") as f:
        f.write(head + raw[g.data_offset:])
