"""TMA tensor maps: the rules of ``cuTensorMapEncodeTiled`` and its arguments.

The pure part, testable without a GPU, checks a tensor against every rule of
``cuTensorMapEncodeTiled`` (CUDA 13 ``cuda.h``) and builds the driver's
arguments (:class:`TensorMapArgs`); :func:`encode_tensor_map` then hands them
to the driver (``fmha.runtime.driver``), which returns the 128-byte map.

Manifests list sizes, strides and boxes outermost first; the driver wants
them innermost first, so :func:`tensor_map_args` reverses them. A box shorter
than the tensor's rank covers its innermost dimensions; the outer ones get a
box size of 1. Error messages number dimensions as the manifest does
(0 = outermost).
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from .dtypes import TENSOR_DTYPES, TensorDType
from .errors import TensorMapError

if TYPE_CHECKING:
    from .tensors import TensorView

# CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion and
# CUtensorMapFloatOOBfill values (cuda.h).
CU_TENSOR_MAP_INTERLEAVE_NONE = 0
CU_TENSOR_MAP_SWIZZLE_NONE = 0
CU_TENSOR_MAP_SWIZZLE_32B = 1
CU_TENSOR_MAP_SWIZZLE_64B = 2
CU_TENSOR_MAP_SWIZZLE_128B = 3
CU_TENSOR_MAP_L2_PROMOTION_NONE = 0
CU_TENSOR_MAP_L2_PROMOTION_L2_64B = 1
CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2
CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3
CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0

# Manifest swizzle (bytes) -> CUtensorMapSwizzle.
SWIZZLE_MODES: dict[int, int] = {
    0: CU_TENSOR_MAP_SWIZZLE_NONE,
    32: CU_TENSOR_MAP_SWIZZLE_32B,
    64: CU_TENSOR_MAP_SWIZZLE_64B,
    128: CU_TENSOR_MAP_SWIZZLE_128B,
}

# The L2 promotion every map of the runtime uses (a performance hint only).
L2_PROMOTION = CU_TENSOR_MAP_L2_PROMOTION_L2_128B

MAX_RANK = 5
MAX_BOX = 256
MAX_GLOBAL_DIM = 2**32
MAX_GLOBAL_STRIDE = 2**40  # exclusive
ALIGNMENT = 16
TENSOR_MAP_BYTES = 128


@dataclass(frozen=True)
class TensorMapArgs:
    """The arguments of ``cuTensorMapEncodeTiled``, in the driver's order.

    ``global_dim``, ``box_dim`` and ``element_strides`` have ``rank`` entries
    and ``global_strides`` (bytes) ``rank - 1``, all innermost first.
    """

    tensor: str
    data_type: int
    rank: int
    global_address: int
    global_dim: tuple[int, ...]
    global_strides: tuple[int, ...]
    box_dim: tuple[int, ...]
    element_strides: tuple[int, ...]
    interleave: int
    swizzle: int
    l2_promotion: int
    oob_fill: int
    itemsize: int


def _fail(tensor: str, rule: str, details: str) -> TensorMapError:
    return TensorMapError(f"tensor map of '{tensor}': {rule}: {details}")


def _dtype(dtype: TensorDType | str) -> TensorDType:
    if isinstance(dtype, TensorDType):
        return dtype
    try:
        return TENSOR_DTYPES[dtype]
    except KeyError:
        raise TensorMapError(
            f"unknown tensor dtype '{dtype}' (known: "
            f"{', '.join(TENSOR_DTYPES)})") from None


def full_box(box: Sequence[int], rank: int) -> tuple[int, ...]:
    """The box over all ``rank`` dimensions, outermost first: a shorter box
    covers the innermost dimensions and the outer ones get size 1."""
    return (1,) * (rank - len(box)) + tuple(box)


def check_box(tensor: str, dtype: TensorDType | str, rank: int,
              box: Sequence[int], swizzle: int) -> None:
    """Checks the rules that depend only on the manifest: the rank, the box
    (outermost first) and the swizzle (bytes). Raises TensorMapError."""
    dt = _dtype(dtype)
    if not 1 <= rank <= MAX_RANK:
        raise _fail(tensor, f"rank must be in [1, {MAX_RANK}]",
                    f"the tensor has rank {rank}")
    if not 1 <= len(box) <= rank:
        raise _fail(tensor, "the box must have 1 to rank entries",
                    f"box {list(box)} has {len(box)} entries for a tensor "
                    f"of rank {rank}")
    for i, b in enumerate(box):
        if not 1 <= b <= MAX_BOX:
            raise _fail(tensor, f"box sizes must be in [1, {MAX_BOX}]",
                        f"box {list(box)} has {b} at index {i}")
    if swizzle not in SWIZZLE_MODES:
        raise _fail(tensor, "swizzle must be 0, 32, 64 or 128 bytes",
                    f"got {swizzle}")
    inner = box[-1] * dt.itemsize
    if inner % ALIGNMENT:
        raise _fail(tensor, "the box's inner dimension must be a multiple "
                    "of 16 bytes",
                    f"box {list(box)} of {dt.name} spans {box[-1]} x "
                    f"{dt.itemsize} = {inner} bytes")
    if swizzle and inner > swizzle:
        raise _fail(tensor, "the box's inner dimension must fit the "
                    "swizzle span",
                    f"box {list(box)} of {dt.name} spans {inner} bytes, more "
                    f"than the {swizzle}-byte swizzle")


def check_tensor_map_args(args: TensorMapArgs) -> None:
    """Checks driver-order arguments against every rule of
    ``cuTensorMapEncodeTiled`` (with no interleave). Raises TensorMapError
    naming the rule, the tensor and the values."""
    t, rank = args.tensor, args.rank
    if not 1 <= rank <= MAX_RANK:
        raise _fail(t, f"rank must be in [1, {MAX_RANK}]",
                    f"the tensor has rank {rank}")
    for what, values, n in (("global_dim", args.global_dim, rank),
                            ("global_strides", args.global_strides, rank - 1),
                            ("box_dim", args.box_dim, rank),
                            ("element_strides", args.element_strides, rank)):
        if len(values) != n:
            raise _fail(t, f"{what} must have {n} entries for rank {rank}",
                        f"got {list(values)}")
    if args.global_address % ALIGNMENT:
        raise _fail(t, "the global address must be 16-byte aligned",
                    f"address {args.global_address:#x} is "
                    f"{args.global_address % ALIGNMENT} bytes past a "
                    "16-byte boundary")
    shape = list(reversed(args.global_dim))
    for i, d in enumerate(args.global_dim):
        if not 1 <= d <= MAX_GLOBAL_DIM:
            raise _fail(t, "sizes must be in [1, 2^32]",
                        f"dimension {rank - 1 - i} of shape {shape} is {d}")
    for i, s in enumerate(args.global_strides):
        dim = rank - 2 - i
        if s % ALIGNMENT:
            raise _fail(t, "strides must be multiples of 16 bytes",
                        f"dimension {dim} has a stride of "
                        f"{s // args.itemsize} elements = {s} bytes")
        if not 0 <= s < MAX_GLOBAL_STRIDE:
            raise _fail(t, "strides must be below 2^40 bytes",
                        f"dimension {dim} has a stride of {s} bytes")
    box = list(reversed(args.box_dim))
    for i, b in enumerate(args.box_dim):
        if not 1 <= b <= MAX_BOX:
            raise _fail(t, f"box sizes must be in [1, {MAX_BOX}]",
                        f"box {box} has {b} for dimension {rank - 1 - i}")
    if args.element_strides != (1,) * rank:
        raise _fail(t, "element strides must be 1",
                    f"got {list(reversed(args.element_strides))}")
    if args.interleave != CU_TENSOR_MAP_INTERLEAVE_NONE:
        raise _fail(t, "interleave must be CU_TENSOR_MAP_INTERLEAVE_NONE",
                    f"got {args.interleave}")
    spans = {mode: span for span, mode in SWIZZLE_MODES.items()}
    if args.swizzle not in spans:
        raise _fail(t, "swizzle must be none, 32B, 64B or 128B",
                    f"got CUtensorMapSwizzle {args.swizzle}")
    inner = args.box_dim[0] * args.itemsize
    if inner % ALIGNMENT:
        raise _fail(t, "the box's inner dimension must be a multiple of "
                    "16 bytes",
                    f"box {box} spans {args.box_dim[0]} x {args.itemsize} = "
                    f"{inner} bytes")
    span = spans[args.swizzle]
    if span and inner > span:
        raise _fail(t, "the box's inner dimension must fit the swizzle span",
                    f"box {box} spans {inner} bytes, more than the "
                    f"{span}-byte swizzle")


def tensor_map_args(tensor: str, view: "TensorView", dtype: TensorDType | str,
                    box: Sequence[int], swizzle: int) -> TensorMapArgs:
    """Builds and checks the driver's arguments for a tiled map of ``view``.

    ``box`` is outermost first and may be shorter than the tensor's rank;
    ``swizzle`` is in bytes (0, 32, 64, 128). ``view`` gives the shape and the
    strides (in elements) outermost first and the data pointer. Raises
    TensorMapError, naming the rule, before anything reaches the driver.
    """
    dt = _dtype(dtype)
    rank = len(view.shape)
    check_box(tensor, dt, rank, box, swizzle)
    if len(view.strides) != rank:
        raise _fail(tensor, "one stride per dimension",
                    f"shape {list(view.shape)} with strides "
                    f"{list(view.strides)}")
    if view.strides[-1] != 1:
        raise _fail(tensor, "the innermost stride must be 1 element",
                    f"shape {list(view.shape)} has strides "
                    f"{list(view.strides)}")
    args = TensorMapArgs(
        tensor=tensor,
        data_type=dt.tensor_map_type,
        rank=rank,
        global_address=view.data_ptr,
        global_dim=tuple(reversed(view.shape)),
        global_strides=tuple(s * dt.itemsize
                             for s in reversed(view.strides[:-1])),
        box_dim=tuple(reversed(full_box(box, rank))),
        element_strides=(1,) * rank,
        interleave=CU_TENSOR_MAP_INTERLEAVE_NONE,
        swizzle=SWIZZLE_MODES[swizzle],
        l2_promotion=L2_PROMOTION,
        oob_fill=CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        itemsize=dt.itemsize,
    )
    check_tensor_map_args(args)
    return args


def tensor_map_key(args: TensorMapArgs) -> tuple:
    """Everything the encoded map depends on, as a hashable key: the
    address, sizes, strides, data type, box, element strides, interleave,
    swizzle, L2 promotion and out-of-bounds fill (not the tensor's name).
    Two argument sets with one key encode the same 128 bytes."""
    return (args.global_address, args.global_dim, args.global_strides,
            args.data_type, args.itemsize, args.rank, args.box_dim,
            args.element_strides, args.interleave, args.swizzle,
            args.l2_promotion, args.oob_fill)


def encode_tensor_map(args: TensorMapArgs, driver: Any = None) -> Any:
    """Checks ``args`` and encodes them with the driver's
    ``cuTensorMapEncodeTiled``; returns the driver's TensorMap (128 bytes,
    ``.address`` points at them). ``driver`` defaults to the process-wide
    ``fmha.runtime.driver.get_driver()``."""
    check_tensor_map_args(args)
    if driver is None:
        from .driver import get_driver
        driver = get_driver()
    return driver.encode_tensor_map(args)


class TensorMap:
    """A 128-byte ``CUtensorMap`` in host memory, aligned to 128 bytes (the
    driver wants at least 64). ``address`` is where its bytes start; the
    driver's encoder writes them, a launch passes them by value."""

    def __init__(self) -> None:
        self._raw = (ctypes.c_uint8 * (2 * TENSOR_MAP_BYTES))()
        base = ctypes.addressof(self._raw)
        self.address: int = base + (-base) % TENSOR_MAP_BYTES

    def to_bytes(self) -> bytes:
        """A copy of the map's 128 bytes."""
        return ctypes.string_at(self.address, TENSOR_MAP_BYTES)
