"""Packing a kernel's parameters for ``cuLaunchKernel``.

The driver takes ``void **kernelParams``: one pointer per parameter, to the
parameter's bytes. :func:`pack_params` builds the values the manifest's
``params`` list (tensor maps by value, scalars, pointers, memref
descriptors), keeps them alive, and builds that array.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Optional

from .manifest import (LaunchSpec, Manifest, MemrefParam, NumSmsSource,
                       PointerParam, ScalarParam, TensorMapParam, evaluate)
from .tensormap import TensorMapArgs, tensor_map_args
from .tensors import TensorView

_CTYPES = {
    "i32": ctypes.c_int32,
    "i64": ctypes.c_int64,
    "f32": ctypes.c_float,
    "ptr": ctypes.c_uint64,
}
_INT_RANGES = {"i32": (-2**31, 2**31 - 1), "i64": (-2**63, 2**63 - 1)}

# Encodes a tensor map; returns an object whose ``address`` points at its
# 128 bytes (fmha.runtime.tensormap.TensorMap).
Encoder = Callable[[TensorMapArgs], Any]


@dataclass
class PackedParams:
    """A kernel's parameter values, in order, and the ``void **`` array.

    ``entries`` lists (kind, value) per kernel argument, as the kernel sees
    them: ``("tensor_map", TensorMapArgs)``, ``("ptr", address)``,
    ``("i64", n)``, ``("i32", n)``, ``("f32", x)``. A ``memref`` manifest
    parameter expands into several entries.
    """

    entries: list[tuple[str, Any]] = field(default_factory=list)
    storage: list[Any] = field(default_factory=list)
    array: Any = None

    def __len__(self) -> int:
        return len(self.entries)

    def _add(self, kind: str, value: Any) -> None:
        obj = _CTYPES[kind](value)
        self.entries.append((kind, value))
        self.storage.append(obj)

    def _finish(self) -> "PackedParams":
        addrs = []
        for (kind, _), obj in zip(self.entries, self.storage):
            addrs.append(obj.address if kind == "tensor_map"
                         else ctypes.addressof(obj))
        self.array = (ctypes.c_void_p * max(len(addrs), 1))(*addrs)
        return self


def _int_value(value: int, kind: str, what: str) -> int:
    low, high = _INT_RANGES[kind]
    if not low <= value <= high:
        raise ValueError(f"{what} = {value} does not fit in {kind}")
    return value


def pack_params(manifest: Manifest, views: Mapping[str, TensorView],
                symbols: Mapping[str, int], encode: Encoder,
                num_sms: NumSmsSource = None,
                launch: Optional[LaunchSpec] = None) -> PackedParams:
    """Builds the parameters of ``launch`` (default: the manifest's first)
    for the tensors ``views`` and the bound size ``symbols``. Tensor maps
    are checked (fmha.runtime.tensormap) and handed to ``encode``. Raises
    ValueError (TensorMapError included) on a value the kernel cannot
    take."""
    packed = PackedParams()
    params = manifest.params if launch is None else launch.params
    for i, p in enumerate(params):
        what = f"params[{i}] ({p.kind})"
        if isinstance(p, TensorMapParam):
            spec = manifest.tensors[p.tensor]
            view = views[p.tensor]
            if p.dims is not None:
                # The map's dimensions in the order the manifest gives.
                view = replace(view,
                               shape=tuple(view.shape[d] for d in p.dims),
                               strides=tuple(view.strides[d] for d in p.dims))
            args = tensor_map_args(p.tensor, view, spec.dtype, p.box,
                                   p.swizzle)
            packed.entries.append(("tensor_map", args))
            packed.storage.append(encode(args))
        elif isinstance(p, ScalarParam):
            if isinstance(p.value, float):
                value: Any = p.value
            else:
                value = evaluate(p.value, symbols, num_sms)
            if p.dtype == "f32":
                packed._add("f32", float(value))
            else:
                packed._add(p.dtype, _int_value(
                    value, p.dtype, f"{what}: {p.value}"))
        elif isinstance(p, PointerParam):
            packed._add("ptr", views[p.tensor].data_ptr)
        elif isinstance(p, MemrefParam):
            view = views[p.tensor]
            packed._add("ptr", view.data_ptr)  # allocated
            packed._add("ptr", view.data_ptr)  # aligned
            packed._add("i64", 0)  # offset
            for size in view.shape:
                packed._add("i64", size)
            for stride in view.strides:
                packed._add("i64", stride)
        else:  # pragma: no cover - the manifest parser knows every kind
            raise TypeError(f"{what}: unknown parameter {p!r}")
    return packed._finish()


def rebindable_copy(manifest: Manifest, packed: PackedParams,
                    launch: Optional[LaunchSpec] = None) -> tuple:
    """A copy of ``packed`` whose tensor addresses and memref strides can be
    changed in place, and where they are: ``(copy, slots, strides)`` with
    ``slots[name]`` the list of ``("tensor_map", TensorMap)`` and ``("ptr",
    c_uint64)`` values that hold tensor ``name``'s address, and
    ``strides[name]`` the ``c_int64`` values of the strides of a tensor
    passed as a memref, one per dimension. Tensor maps are copied (the
    originals may be shared with other launches through the runtime's map
    cache). ``launch``: the launch ``packed`` is for (default: the
    manifest's first)."""
    from .tensormap import TENSOR_MAP_BYTES, TensorMap
    copy = PackedParams()
    slots: dict = {}
    strides: dict = {}
    pos = 0

    def take(name: Any) -> Any:
        nonlocal pos
        kind, value = packed.entries[pos]
        obj = packed.storage[pos]
        if kind == "tensor_map":
            new: Any = TensorMap()
            ctypes.memmove(new.address, obj.address, TENSOR_MAP_BYTES)
        else:
            new = _CTYPES[kind](obj.value)
        copy.entries.append((kind, value))
        copy.storage.append(new)
        if name is not None:
            slots.setdefault(name, []).append((kind, new))
        pos += 1
        return new

    for p in (manifest.params if launch is None else launch.params):
        if isinstance(p, (TensorMapParam, PointerParam)):
            take(p.tensor)
        elif isinstance(p, MemrefParam):
            rank = manifest.tensors[p.tensor].rank
            take(p.tensor)  # allocated
            take(p.tensor)  # aligned
            for _ in range(1 + rank):
                take(None)  # offset, sizes
            strides[p.tensor] = [take(None) for _ in range(rank)]
        else:
            take(None)
    return copy._finish(), slots, strides
