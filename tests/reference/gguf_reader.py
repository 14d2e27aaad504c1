"""A small GGUF v2/v3 reader for the float64 reference (NumPy only).

Written from the GGUF file-format description (ggml's docs/gguf.md) and GGML's block
layouts (the quantized blocks in ggml_blocks.py); it shares nothing with the C++ engine.

File layout (little endian):
  magic "GGUF" | u32 version (2 or 3) | u64 n_tensors | u64 n_kv
  n_kv x  { string key | u32 value_type | value }
  n_tensors x { string name | u32 n_dims | u64 ne[n_dims] | u32 ggml_type | u64 offset }
  padding to general.alignment (default 32) | tensor data (each offset relative to here)
A string is u64 length + bytes; an array is u32 element type + u64 count + elements.

Tensor shapes: ne[0] is the fastest-varying (contiguous) dimension, so a GGUF tensor
with ne = [n_in, n_out] is a NumPy array of shape (n_out, n_in): row r holds output r.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from ggml_blocks import BLOCK_TYPES, dequantize_blocks

GGUF_MAGIC = b"GGUF"

# Metadata value types.
_SCALAR_FORMATS = {
    0: "<B",   # uint8
    1: "<b",   # int8
    2: "<H",   # uint16
    3: "<h",   # int16
    4: "<I",   # uint32
    5: "<i",   # int32
    6: "<f",   # float32
    7: "<?",   # bool
    10: "<Q",  # uint64
    11: "<q",  # int64
    12: "<d",  # float64
}
_STRING = 8
_ARRAY = 9

# GGML tensor types this reader dequantizes: name, block size (elements), block bytes.
GGML_F32, GGML_F16, GGML_Q4_0, GGML_Q8_0, GGML_BF16 = 0, 1, 2, 8, 30
GGML_TYPES = {
    GGML_F32: ("F32", 1, 4),
    GGML_F16: ("F16", 1, 2),
    GGML_BF16: ("BF16", 1, 2),
}
# Q4_0, Q8_0, Q4_1, Q5_0, Q5_1, Q2_K..Q6_K, IQ4_NL, IQ4_XS: layouts in ggml_blocks.py.
GGML_TYPES.update({t: (name, block, nbytes) for t, (name, block, nbytes, _) in BLOCK_TYPES.items()})
GGML_TYPE_IDS = {name: t for t, (name, _, _) in GGML_TYPES.items()}   # "Q4_K" -> 12


@dataclass
class TensorInfo:
    name: str
    ne: tuple[int, ...]     # GGUF order: ne[0] is the row length
    ggml_type: int
    offset: int             # relative to the start of the data section

    @property
    def shape(self) -> tuple[int, ...]:
        """NumPy shape (slowest dimension first)."""
        return tuple(reversed(self.ne))

    @property
    def n_elements(self) -> int:
        n = 1
        for d in self.ne:
            n *= d
        return n

    @property
    def type_name(self) -> str:
        return GGML_TYPES.get(self.ggml_type, (f"type{self.ggml_type}",))[0]

    def n_bytes(self) -> int:
        if self.ggml_type not in GGML_TYPES:
            raise ValueError(f"{self.name}: unsupported ggml type {self.ggml_type}")
        _, block, block_bytes = GGML_TYPES[self.ggml_type]
        if self.n_elements % block:
            raise ValueError(f"{self.name}: {self.n_elements} elements is not a whole number of blocks")
        return self.n_elements // block * block_bytes


class _Cursor:
    def __init__(self, buf: bytes):
        self.buf = buf
        self.pos = 0

    def take(self, fmt: str):
        (value,) = struct.unpack_from(fmt, self.buf, self.pos)
        self.pos += struct.calcsize(fmt)
        return value

    def string(self) -> str:
        n = self.take("<Q")
        raw = self.buf[self.pos:self.pos + n]
        if len(raw) != n:
            raise ValueError("string runs past the end of the file")
        self.pos += n
        return raw.decode("utf-8", errors="surrogateescape")

    def value(self, vtype: int):
        if vtype in _SCALAR_FORMATS:
            return self.take(_SCALAR_FORMATS[vtype])
        if vtype == _STRING:
            return self.string()
        if vtype == _ARRAY:
            etype = self.take("<I")
            count = self.take("<Q")
            if etype in _SCALAR_FORMATS and etype != 7:
                dtype = np.dtype(_SCALAR_FORMATS[etype])
                arr = np.frombuffer(self.buf, dtype=dtype, count=count, offset=self.pos)
                self.pos += count * dtype.itemsize
                return arr.tolist()
            return [self.value(etype) for _ in range(count)]
        raise ValueError(f"unknown metadata value type {vtype}")


def dequantize(raw: bytes, ggml_type: int, n_elements: int) -> np.ndarray:
    """The float64 values of n_elements stored as ggml_type in raw (flat)."""
    if ggml_type == GGML_F32:
        return np.frombuffer(raw, dtype="<f4", count=n_elements).astype(np.float64)
    if ggml_type == GGML_F16:
        return np.frombuffer(raw, dtype="<f2", count=n_elements).astype(np.float64)
    if ggml_type == GGML_BF16:
        # bfloat16 is the upper half of a float32.
        bits = np.frombuffer(raw, dtype="<u2", count=n_elements).astype(np.uint32) << 16
        return bits.view("<f4").astype(np.float64)
    if ggml_type in BLOCK_TYPES:
        return dequantize_blocks(raw, ggml_type, n_elements)
    raise ValueError(f"unsupported ggml type {ggml_type}")


class GGUFFile:
    """Metadata (dict key -> Python value) and tensors (name -> TensorInfo) of a GGUF file."""

    def __init__(self, path: str):
        self.path = path
        with open(path, "rb") as f:
            self._buf = f.read()
        cur = _Cursor(self._buf)
        if self._buf[:4] != GGUF_MAGIC:
            raise ValueError(f"{path}: not a GGUF file")
        cur.pos = 4
        self.version = cur.take("<I")
        if self.version not in (2, 3):
            raise ValueError(f"{path}: GGUF version {self.version} is not supported (2 or 3)")
        n_tensors = cur.take("<Q")
        n_kv = cur.take("<Q")
        self.metadata: dict[str, object] = {}
        self.kv_start = cur.pos             # byte ranges, for tools that rewrite a file
        for _ in range(n_kv):
            key = cur.string()
            vtype = cur.take("<I")
            self.metadata[key] = cur.value(vtype)
        self.kv_end = cur.pos
        self.tensors: dict[str, TensorInfo] = {}
        for _ in range(n_tensors):
            name = cur.string()
            n_dims = cur.take("<I")
            ne = tuple(cur.take("<Q") for _ in range(n_dims))
            ggml_type = cur.take("<I")
            offset = cur.take("<Q")
            self.tensors[name] = TensorInfo(name, ne, ggml_type, offset)
        self.tensor_info_end = cur.pos
        self.alignment = int(self.metadata.get("general.alignment", 32))
        self.data_offset = (cur.pos + self.alignment - 1) // self.alignment * self.alignment
        for info in self.tensors.values():
            if info.offset % self.alignment:
                raise ValueError(f"{info.name}: offset {info.offset} is not aligned to {self.alignment}")
            end = self.data_offset + info.offset + info.n_bytes()
            if end > len(self._buf):
                raise ValueError(f"{info.name}: data runs past the end of the file")

    def get(self, key: str, default=None):
        return self.metadata.get(key, default)

    def has(self, name: str) -> bool:
        return name in self.tensors

    def tensor(self, name: str) -> np.ndarray:
        """The tensor as float64, NumPy shape (reversed ne)."""
        info = self.tensors[name]
        start = self.data_offset + info.offset
        raw = self._buf[start:start + info.n_bytes()]
        return dequantize(raw, info.ggml_type, info.n_elements).reshape(info.shape)


def main() -> None:
    import argparse
    import json
    ap = argparse.ArgumentParser(description="print a GGUF file's metadata and tensor table")
    ap.add_argument("file")
    args = ap.parse_args()
    g = GGUFFile(args.file)
    meta = {k: (v if not isinstance(v, list) or len(v) <= 8 else f"[{len(v)} values]")
            for k, v in g.metadata.items()}
    print(json.dumps({"version": g.version, "alignment": g.alignment, "metadata": meta}, indent=1))
    for t in g.tensors.values():
        print(f"{t.name:40s} {t.type_name:6s} ne={list(t.ne)}")


if __name__ == "__main__":
    main()
