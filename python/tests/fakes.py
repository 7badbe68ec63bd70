"""Fake tensors and a fake driver for testing the runtime without a GPU."""

from __future__ import annotations

import copy
import json
import math
import os
from typing import Any, Optional, Sequence

from fmha.runtime.dtypes import TENSOR_DTYPES
from fmha.runtime.manifest import Manifest, parse_manifest
from fmha.runtime.tensormap import TensorMap

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")

GEMM = {
    "format": "fmha-manifest/1",
    "name": "gemm_bf16",
    "entry": "gemm_bf16",
    "target": "sm_90a",
    "cubin": "gemm_bf16.sm_90a.cubin",
    "block": [384, 1, 1],
    "cluster": [1, 1, 1],
    "dynamic_smem": 196608,
    "tensors": {
        "a": {"shape": ["M", "K"], "dtype": "bf16", "role": "input"},
        "b": {"shape": ["N", "K"], "dtype": "bf16", "role": "input"},
        "c": {"shape": ["M", "N"], "dtype": "bf16", "role": "output"},
    },
    "params": [
        {"kind": "tensor_map", "tensor": "a", "box": [128, 64],
         "swizzle": 128},
        {"kind": "tensor_map", "tensor": "b", "box": [128, 64],
         "swizzle": 128},
        {"kind": "tensor_map", "tensor": "c", "box": [128, 128],
         "swizzle": 0},
        {"kind": "scalar", "dtype": "i32", "value": "M"},
        {"kind": "scalar", "dtype": "i32", "value": "N"},
        {"kind": "scalar", "dtype": "i32", "value": "K"},
    ],
    "grid": [{"ceildiv": ["M", 256]}, {"ceildiv": ["N", 128]}, 1],
}


def gemm_json() -> dict:
    """A fresh copy of the manifest of docs/Manifest.md."""
    return copy.deepcopy(GEMM)


def gemm_manifest(**changes: Any) -> Manifest:
    data = gemm_json()
    data.update(changes)
    return parse_manifest(data, source="gemm.json")


def data_path(name: str) -> str:
    return os.path.join(DATA, name)


def load_data(name: str) -> dict:
    with open(data_path(name), encoding="utf-8") as f:
        return json.load(f)


_NEXT_PTR = [0x7F0000000000]


def view(shape: Sequence[int], dtype: str = "bf16",
         strides: Optional[Sequence[int]] = None, ptr: Optional[int] = None,
         device: Optional[int] = 0, itemsize: Optional[int] = None):
    """A fake tensor (TensorView): contiguous unless ``strides`` is given,
    at a fresh 256-byte aligned address unless ``ptr`` is given."""
    from fmha.runtime.tensors import TensorView

    shape = tuple(shape)
    if strides is None:
        strides = tuple(math.prod(shape[i + 1:]) for i in range(len(shape)))
    if itemsize is None:
        itemsize = TENSOR_DTYPES[dtype].itemsize if dtype in TENSOR_DTYPES \
            else 8
    if ptr is None:
        ptr = _NEXT_PTR[0]
        _NEXT_PTR[0] += 1 << 32
    known = dtype if dtype in TENSOR_DTYPES else None
    return TensorView(shape=shape, strides=tuple(strides), itemsize=itemsize,
                      data_ptr=ptr, dtype=known, device=device,
                      dtype_repr=f"fake.{dtype}")


class FakeDriver:
    """Records what the runtime asks of the driver; launches nothing."""

    def __init__(self, capability=(9, 0), sms: int = 132,
                 current: Optional[int] = 0) -> None:
        self.capability = capability
        self.sms = sms
        self.current = current
        self.calls: list[tuple] = []
        self.encoded: list[Any] = []

    def current_device(self) -> Optional[int]:
        return self.current

    def use_primary_context(self, ordinal: int) -> None:
        self.calls.append(("use_primary_context", ordinal))
        self.current = ordinal

    def compute_capability(self, ordinal: int):
        return self.capability

    clusters_short = 0

    def multiprocessor_count(self, ordinal: int) -> int:
        self.calls.append(("multiprocessor_count", ordinal))
        return self.sms

    def get_function(self, key: str, image: bytes, entry: str) -> int:
        self.calls.append(("get_function", entry, image))
        return 0xF00

    def set_max_dynamic_smem(self, func: int, nbytes: int) -> None:
        self.calls.append(("set_max_dynamic_smem", func, nbytes))

    def allow_non_portable_cluster(self, func: int) -> None:
        self.calls.append(("allow_non_portable_cluster", func))

    def max_active_clusters(self, func: int, block, smem: int,
                            cluster) -> int:
        """As many clusters as leave `clusters_short` multiprocessors out."""
        self.calls.append(("max_active_clusters", func, tuple(block), smem,
                           tuple(cluster)))
        size = cluster[0] * cluster[1] * cluster[2]
        return (self.sms - self.clusters_short) // size

    def encode_tensor_map(self, args) -> TensorMap:
        self.encoded.append(args)
        return TensorMap()

    def launch(self, func, grid, block, smem, stream, params,
               cluster=(1, 1, 1)) -> None:
        self.calls.append(("launch", func, tuple(grid), tuple(block), smem,
                           stream, params, tuple(cluster)))

    def replace_tensor_map_address(self, tmap, address: int) -> None:
        self.calls.append(("replace", tmap, address))

    def names(self) -> list[str]:
        return [c[0] for c in self.calls]
