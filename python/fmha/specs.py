"""Kernel specifications: what to compile, as small frozen dataclasses.

A spec names one kernel: its kind, element types, static sizes (None for a
size known only at run time, ``?`` in MLIR), configuration and target.
``spec.to_mlir()`` renders the ``fmha.gemm`` / ``fmha.attention`` op that
the compiler takes (include/fmha/Dialect/FMHA/IR/FMHAOps.td has the
syntax); ``spec.to_dict()`` is the canonical form the cache key hashes.

Only what the op's syntax can express is checked here (types, counts,
ranges); the compiler's verifier checks the rest (tile rules, shared memory
and register budgets) and fmha.compile reports its message as CompileError.

Every number is range-checked against what the kernel and its manifest can
represent (docs/Conventions.md, "Ranges"): sizes, tile entries and window
distances are i32 (at most ``I32_MAX``), and the scale must stay a normal,
finite float32 (the kernel computes in float32), so no value is silently
cut or rounded into another kernel.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, fields
from typing import Any, Optional, Union

TARGETS = ("sm_90a", "sm_100a")
INPUT_DTYPES = ("bf16", "f16")
# fp8 GEMM operands (at most one of a and b e5m2, as torch._scaled_mm).
FP8_DTYPES = ("f8e4m3", "f8e5m2")
GEMM_INPUT_DTYPES = INPUT_DTYPES + FP8_DTYPES
# Attention takes e4m3 (with descales), not e5m2.
ATTENTION_INPUT_DTYPES = INPUT_DTYPES + ("f8e4m3",)
GEMM_OUT_DTYPES = ("bf16", "f16", "f32")
# How an fp8 GEMM's scales apply: one for the tensor, or one per row of a
# (scale_a) / column of b (scale_b).
GEMM_SCALE_A = ("tensor", "row")
GEMM_SCALE_B = ("tensor", "column")
# MLIR element types of fmha's dtype names where they differ.
MLIR_TYPES = {"f8e4m3": "f8E4M3FN", "f8e5m2": "f8E5M2"}
ATTENTION_HEAD_DIMS = (64, 128, 256)
ATTENTION_SCHEDULES = ("per_block", "persistent")
# The rows of a packed (pack_gqa) Q tile: the group heads_q / heads_kv must
# divide them.
PACK_ROWS = 64
GEMM_SCHEDULES = ("cooperative", "pingpong")
# The largest size, tile entry or window distance: the kernel's sizes and
# the manifest's symbols are i32.
I32_MAX = 2**31 - 1
# The scale as the kernel holds it, a float32: the smallest normal and the
# largest finite value.
F32_MIN_NORMAL = 2.0**-126
F32_MAX = struct.unpack("f", struct.pack("I", 0x7F7FFFFF))[0]


def _check_choice(what: str, value: Any, choices: tuple) -> None:
    if value not in choices:
        raise ValueError(f"{what} must be one of "
                         f"{', '.join(repr(c) for c in choices)}, got "
                         f"{value!r}")


def _check_int(what: str, value: Any, low: int = 1,
               high: Optional[int] = None, why: str = "") -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, got {value!r}")
    if value < low or (high is not None and value > high):
        bound = f"in [{low}, {high}]" if high is not None else f">= {low}"
        raise ValueError(f"{what} must be {bound}{why}, got {value}")


_I32 = " (an i32 in the kernel and its manifest)"


def _check_size(what: str, value: Any) -> None:
    """A static size (positive, at most I32_MAX: the kernel's sizes are
    i32) or None (dynamic)."""
    if value is not None:
        _check_int(what, value, 1, I32_MAX, _I32)


def _check_varlen_sizes(spec: Any) -> None:
    """A varlen spec's batch and sequence lengths: dynamic (None)."""
    for size in ("batch", "seq_q", "seq_k"):
        if getattr(spec, size) is not None:
            raise ValueError(
                f"{size} must be None with varlen=True (a varlen kernel "
                f"reads the sequences' bounds at run time), got "
                f"{getattr(spec, size)}")


def check_scale(value: Any, what: str = "scale") -> float:
    """A softmax scale as a float: > 0, and finite and nonzero as the
    float32 the kernel computes with (a normal float32, in
    [F32_MIN_NORMAL, F32_MAX]). Raises TypeError or ValueError naming
    ``what`` and the limit."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{what} must be a float, got {value!r}")
    value = float(value)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{what} must be > 0 and finite, got {value}")
    if not F32_MIN_NORMAL <= value <= F32_MAX:
        raise ValueError(
            f"{what} must be a normal float32, in [{F32_MIN_NORMAL:.8g}, "
            f"{F32_MAX:.8g}] (the kernel computes in float32), got {value}")
    return value


def _int_tuple(spec: Any, name: str, length: int) -> None:
    """Normalizes the sequence field ``name`` to a tuple of ``length``
    ints (a frozen dataclass must hold hashable values)."""
    value = getattr(spec, name)
    if value is None:
        return
    try:
        items = tuple(value)
    except TypeError:
        raise TypeError(f"{name} must be a sequence of {length} ints, got "
                        f"{value!r}") from None
    if len(items) != length:
        raise ValueError(f"{name} must have {length} entries, got "
                         f"{list(items)}")
    for i, item in enumerate(items):
        if name == "window" and isinstance(item, int) and item < 0:
            raise ValueError(
                f"window[{i}] must be in [0, {I32_MAX}], got {item}: no "
                f"negative value means unbounded (causal leaves the left "
                f"side unbounded; no window: every key)")
        _check_int(f"{name}[{i}]", item, 0 if name == "window" else 1,
                   I32_MAX, _I32)
    object.__setattr__(spec, name, items)


def _dim(size: Optional[int]) -> str:
    return "?" if size is None else str(size)


def tensor_type(shape: tuple, dtype: str) -> str:
    """``tensor<?x128xbf16>`` for shape ``(None, 128)`` (fp8 dtypes by their
    MLIR names: ``f8e4m3`` is ``f8E4M3FN``)."""
    return ("tensor<" + "x".join(_dim(s) for s in shape)
            + f"x{MLIR_TYPES.get(dtype, dtype)}>")


def float_literal(value: float) -> str:
    """An MLIR float literal: always with a decimal point (``1.0``,
    ``0.125``, ``1.0e-05``), which MLIR's grammar needs."""
    text = repr(float(value))
    mantissa, sep, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + sep + exponent


class _Spec:
    """Shared behaviour of the spec classes."""

    kind = ""
    # Fields added after kernels were cached, with the value that means
    # "not used": a spec at that value leaves the field out of to_dict, so
    # its cache key (and a compiler-less machine's cache) survives the
    # field's arrival.
    _later_fields: dict = {}

    def to_dict(self) -> dict:
        """The spec as JSON-able data: ``{"kind": ..., field: value}``
        (tuples as lists)."""
        data: dict = {"kind": self.kind}
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if f.name in self._later_fields and \
                    value == self._later_fields[f.name]:
                continue
            data[f.name] = list(value) if isinstance(value, tuple) else value
        return data

    @property
    def name(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def to_mlir(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError


@dataclass(frozen=True)
class GemmSpec(_Spec):
    """``C = A @ B^T``: A is ``[M, K]``, B is given as ``[N, K]`` (the op's
    ``transpose_b``; ``transpose_b=False``: B as ``[K, N]``, ``C = A @
    B``), C is ``[M, N]``, accumulated in fp32.

    ``m``, ``n``, ``k``: static sizes, or None for sizes known only at run
    time. ``out_dtype``: C's type (None: ``dtype``, as fmha.gemm's
    default). ``tile``: ``(block_m, block_n, block_k)``; ``stages``: A/B
    shared-memory buffers (1 to 32; None: the most, up to 4, that fit, the
    compiler's default, as fmha.gemm and ``fmha compile gemm`` use);
    ``consumers``: consumer warpgroups per CTA (1 or 2; 3 on sm_90a, whose
    consumers then keep within 128 registers); ``multicast``: 2
    launches clusters of two CTAs along M that share each B tile by TMA
    multicast (each loads half of it into both), 1 does not.
    ``schedule``: ``"pingpong"`` gives each consumer whole tiles of its
    own, their main loops taking turns (sm_90a, 2 consumers), or
    ``"cooperative"``; None: the compiler's default (cooperative).
    ``splits``: split-K (sm_90a): each CTA tile is ``splits`` work items,
    one per range of K steps, whose f32 partial sums the last one adds up
    (the runtime provides the workspace and the counters); 1: none.
    ``swap_ab``: each tile computed turned around, ``C^T = B A^T``
    (sm_90a, one consumer, 16-bit inputs): ``block_m``
    (a multiple of 8 up to 256) rows of A are the MMA's N and ``block_n``
    (a multiple of 64) rows of B its M, so that a few rows of A (a decode
    step) fill no 64-row MMA tile and A's ring slots hold only them.

    FP8 (sm_90a): ``dtype`` ``"f8e4m3"`` or ``"f8e5m2"`` is A's type,
    ``b_dtype`` B's (None: ``dtype``; at most one of them e5m2); B is
    ``[N, K]`` only. ``scale_a``: ``"tensor"`` (one f32, the default) or
    ``"row"`` (one per row of A); ``scale_b``: ``"tensor"`` or
    ``"column"`` (one per column of C); the kernel takes them as tensors
    ``scale_a`` (``[1]`` or ``[M]``) and ``scale_b`` (``[1]`` or ``[N]``).
    ``out_dtype`` defaults to bf16 and ``tile`` to ``(128, 128, 128)``
    (one 128-byte swizzle span of K) for fp8. ``promote_every``: fp8
    accumulate promotion (sm_90a): the wgmma chain accumulates that many K
    steps into a fresh tile, which is then added into an f32 sum in
    registers (twice the accumulator registers: 64 x 128 or 128 x 96
    tiles, not 128 x 128); 0: none, one chain over all of K (what
    ``torch._scaled_mm`` calls fast accumulation).
    """

    dtype: str = "bf16"
    out_dtype: Optional[str] = None
    tile: Optional[tuple] = None
    stages: Optional[int] = None
    consumers: int = 2
    target: str = "sm_90a"
    transpose_b: bool = True
    m: Optional[int] = None
    n: Optional[int] = None
    k: Optional[int] = None
    multicast: int = 1
    schedule: Optional[str] = None
    splits: int = 1
    b_dtype: Optional[str] = None
    scale_a: Optional[str] = None
    scale_b: Optional[str] = None
    promote_every: int = 0
    swap_ab: bool = False

    kind = "gemm"
    _later_fields = {"schedule": None, "splits": 1, "b_dtype": None,
                     "scale_a": None, "scale_b": None, "promote_every": 0,
                     "swap_ab": False}

    @property
    def fp8(self) -> bool:
        return self.dtype in FP8_DTYPES

    def __post_init__(self) -> None:
        _check_choice("dtype", self.dtype, GEMM_INPUT_DTYPES)
        if self.fp8:
            self._check_fp8()
        else:
            for name in ("b_dtype", "scale_a", "scale_b"):
                if getattr(self, name) is not None:
                    raise ValueError(f"{name} is for fp8 GEMMs only, got "
                                     f"{name}={getattr(self, name)!r} with "
                                     f"dtype {self.dtype!r}")
            if self.promote_every != 0:
                raise ValueError(f"promote_every is for fp8 GEMMs only, got "
                                 f"promote_every={self.promote_every!r} "
                                 f"with dtype {self.dtype!r}")
        if self.out_dtype is None:
            object.__setattr__(self, "out_dtype",
                               "bf16" if self.fp8 else self.dtype)
        _check_choice("out_dtype", self.out_dtype, GEMM_OUT_DTYPES)
        if self.tile is None:
            object.__setattr__(self, "tile", (128, 128, 128) if self.fp8
                               else (128, 128, 64))
        _int_tuple(self, "tile", 3)
        if self.stages is not None:
            _check_int("stages", self.stages, 1, 32)
        # Three consumer warpgroups (a 192-row CTA tile): sm_90a only, which
        # the compiler checks.
        _check_int("consumers", self.consumers, 1, 3)
        _check_int("multicast", self.multicast, 1, 2)
        _check_int("splits", self.splits, 1, 1 << 16)
        _check_int("promote_every", self.promote_every, 0, 1 << 16)
        if self.schedule is not None:
            _check_choice("schedule", self.schedule, GEMM_SCHEDULES)
        _check_choice("target", self.target, TARGETS)
        for flag in ("transpose_b", "swap_ab"):
            if not isinstance(getattr(self, flag), bool):
                raise TypeError(f"{flag} must be a bool, got "
                                f"{getattr(self, flag)!r}")
        for size in ("m", "n", "k"):
            _check_size(size, getattr(self, size))

    def _check_fp8(self) -> None:
        """The fp8 fields: B's type, the scales' kinds (defaults: B like A,
        one scale per tensor) and B as ``[N, K]``."""
        if self.b_dtype is None:
            object.__setattr__(self, "b_dtype", self.dtype)
        _check_choice("b_dtype", self.b_dtype, FP8_DTYPES)
        if self.dtype == self.b_dtype == "f8e5m2":
            raise ValueError("dtype and b_dtype are both 'f8e5m2': at most "
                             "one fp8 operand may be e5m2")
        for name, kinds in (("scale_a", GEMM_SCALE_A),
                            ("scale_b", GEMM_SCALE_B)):
            if getattr(self, name) is None:
                object.__setattr__(self, name, "tensor")
            _check_choice(name, getattr(self, name), kinds)
        if self.transpose_b is False:
            raise ValueError("fp8 GEMMs need transpose_b=True (B as "
                             "[N, K]): fp8 MMAs read both operands K-major")

    @property
    def name(self) -> str:
        """The kernel's symbol (and the cubin's entry point), e.g.
        ``gemm_bf16_bf16_128x128x64_c2`` (``_s3`` after the tile with
        ``stages=3``, ``_mc2`` after the consumers with ``multicast=2``,
        then ``_pp`` with ``schedule="pingpong"``, ``_sk2`` with
        ``splits=2``, ``_swab`` with ``swap_ab``);
        static sizes add ``_m4096`` and so on. fp8:
        ``gemm_f8e4m3_bf16_...`` (``gemm_f8e4m3xf8e5m2_...`` with another
        B type), ``_rows`` with row scales of A, ``_cols`` with column
        scales of B, ``_pr4`` with ``promote_every=4``."""
        bm, bn, bk = self.tile
        stages = "" if self.stages is None else f"_s{self.stages}"
        dtype = self.dtype
        if self.b_dtype is not None and self.b_dtype != self.dtype:
            dtype += f"x{self.b_dtype}"
        name = (f"gemm_{dtype}_{self.out_dtype}_{bm}x{bn}x{bk}"
                f"{stages}_c{self.consumers}")
        if self.scale_a == "row":
            name += "_rows"
        if self.scale_b == "column":
            name += "_cols"
        if self.multicast != 1:
            name += f"_mc{self.multicast}"
        if self.schedule is not None:
            name += "_pp" if self.schedule == "pingpong" else "_coop"
        if self.splits != 1:
            name += f"_sk{self.splits}"
        if self.swap_ab:
            name += "_swab"
        if self.promote_every:
            name += f"_pr{self.promote_every}"
        for size in ("m", "n", "k"):
            if getattr(self, size) is not None:
                name += f"_{size}{getattr(self, size)}"
        if not self.transpose_b:
            name += "_bkn"
        return name

    def signature(self) -> str:
        a = tensor_type((self.m, self.k), self.dtype)
        b = tensor_type((self.n, self.k) if self.transpose_b else
                        (self.k, self.n), self.b_dtype or self.dtype)
        c = tensor_type((self.m, self.n), self.out_dtype)
        if not self.fp8:
            return f"({a}, {b}) -> {c}"
        scale_a = tensor_type((self.m if self.scale_a == "row" else 1,),
                              "f32")
        scale_b = tensor_type((self.n if self.scale_b == "column" else 1,),
                              "f32")
        return f"({a}, {b}, {scale_a}, {scale_b}) -> {c}"

    def to_mlir(self) -> str:
        """The ``fmha.gemm`` op, one declaration in a module."""
        bm, bn, bk = self.tile
        stages = "" if self.stages is None else f"stages {self.stages} "
        transpose = "transpose_b " if self.transpose_b else ""
        if self.swap_ab:
            transpose += "swap_ab "
        multicast = ("" if self.multicast == 1 else
                     f"multicast {self.multicast} ")
        schedule = ("" if self.schedule is None else
                    f"schedule {self.schedule} ")
        splits = "" if self.splits == 1 else f"splits {self.splits} "
        promote = ("" if not self.promote_every else
                   f"promote_every {self.promote_every} ")
        return (f"fmha.gemm @{self.name} {self.signature()}\n"
                f"    {transpose}tile [{bm}, {bn}, {bk}] "
                f"{stages}consumers {self.consumers} "
                f"{multicast}{schedule}{splits}{promote}target "
                f"{self.target}\n")



@dataclass(frozen=True)
class AttentionSpec(_Spec):
    """Fused multi-head attention forward, the ``fmha.attention`` op.

    ``q`` is ``[batch, heads_q, seq_q, head_dim]``, ``k`` and ``v`` are
    ``[batch, heads_kv, seq_k, head_dim]``, ``o`` is like ``q`` and the
    optional ``lse`` (``return_lse=True``) is ``[batch, heads_q, seq_q]``
    in f32. Sizes left None are dynamic; ``head_dim`` must be static (64,
    128 or 256). ``causal``, ``window=(left, right)``, ``scale`` (default
    ``1/sqrt(head_dim)``), ``tile=(block_m, block_n)``, ``stages``,
    ``consumers`` (1 or 2; 3 on sm_90a, where their tiles fit in 160
    registers a thread) and ``schedule`` (``"per_block"`` or
    ``"persistent"``) are the op's optional configuration (None: the
    compiler's default).

    ``varlen=True``: variable-length sequences packed as FlashAttention's
    varlen API takes them: ``q``, ``o`` ``[total_q, heads_q, head_dim]``,
    ``k``, ``v`` ``[total_k, heads_kv, head_dim]``, two ``[batch + 1]``
    int32 ``cu_seqlens`` inputs and ``lse`` ``[heads_q, total_q]``;
    ``batch``, ``seq_q`` and ``seq_k`` must then be None (the kernel reads
    each sequence's bounds at run time). Run on sm_90a; sm_100a kernels
    compile (ptxas-checked, never run).

    ``kvcache=True``: attention against KV caches as FlashAttention's
    ``flash_attn_with_kvcache`` takes them: ``q``, ``o`` ``[batch, seq_q,
    heads_q, head_dim]``, ``k``, ``v`` ``[batch, max_len, heads_kv,
    head_dim]`` (dense) or, with ``page_size``, pools ``[num_pages,
    page_size, heads_kv, head_dim]`` read through a ``[batch, max_pages]``
    int32 ``block_table``; a ``[batch]`` int32 ``cache_seqlens`` input and
    ``lse`` ``[batch, heads_q, seq_q]``. ``seq_k`` must then be None.
    Run on sm_90a; sm_100a kernels compile (ptxas-checked, never run).

    Decode options of a kvcache kernel: ``pack_gqa=True`` packs the
    ``G = heads_q / heads_kv`` query heads of one KV head into the rows of
    one Q tile (one K/V load serves the group; needs static ``heads_q`` and
    ``heads_kv``, G dividing 64); its manifest takes q and o as ``[batch,
    seq_q, heads_kv, G, head_dim]`` views. ``split_kv=True`` cuts each
    query block's keys into ``S`` ranges (``S`` a size the caller passes at
    launch), whose partial results the last one merges (the runtime
    provides the workspace and the counters).

    ``dtype="f8e4m3"`` (FP8 attention, dense layout, sm_90a): ``v`` is
    given transposed, ``[batch, heads_kv, head_dim, seq_k16]`` with
    ``seq_k16`` seq_k rounded up to 16 and the keys of each group of 16
    permuted (``fmha.fp8_attention.permute_values`` makes it), three more
    inputs ``descale_q``, ``descale_k``, ``descale_v`` (``[1]`` f32 each,
    or with ``head_descales=True`` ``[batch, heads_kv]``: one factor per
    sequence and KV head, FlashAttention-3's convention), and ``o`` in
    ``out_dtype`` (``"bf16"``, the default, or ``"f16"``). With
    ``transpose_v=True`` ``v`` is ``[batch, heads_kv, seq_k, head_dim]``
    like ``k`` and the kernel transposes its tiles in shared memory.
    """

    dtype: str = "bf16"
    head_dim: int = 128
    batch: Optional[int] = None
    heads_q: Optional[int] = None
    heads_kv: Optional[int] = None
    seq_q: Optional[int] = None
    seq_k: Optional[int] = None
    return_lse: bool = False
    causal: bool = False
    window: Optional[tuple] = None
    scale: Optional[float] = None
    tile: Optional[tuple] = None
    stages: Optional[int] = None
    consumers: Optional[int] = None
    schedule: Optional[str] = None
    target: str = "sm_90a"
    varlen: bool = False
    kvcache: bool = False
    page_size: Optional[int] = None
    pack_gqa: bool = False
    split_kv: bool = False
    out_dtype: Optional[str] = None
    head_descales: bool = False
    transpose_v: bool = False

    kind = "attention"
    _later_fields = {"kvcache": False, "page_size": None, "pack_gqa": False,
                     "split_kv": False, "out_dtype": None,
                     "head_descales": False, "transpose_v": False}

    @property
    def fp8(self) -> bool:
        return self.dtype in FP8_DTYPES

    def __post_init__(self) -> None:
        _check_choice("dtype", self.dtype, ATTENTION_INPUT_DTYPES)
        self._check_fp8()
        _check_choice("head_dim", self.head_dim, ATTENTION_HEAD_DIMS)
        for size in ("batch", "heads_q", "heads_kv", "seq_q", "seq_k"):
            _check_size(size, getattr(self, size))
        if self.varlen is True:
            _check_varlen_sizes(self)
        if self.kvcache is True:
            if self.varlen is True:
                raise ValueError("varlen and kvcache exclude each other")
            if self.seq_k is not None:
                raise ValueError(
                    f"seq_k must be None with kvcache=True (the kernel reads "
                    f"each sequence's cache length at run time), got "
                    f"{self.seq_k}")
        if self.page_size is not None:
            if self.kvcache is not True:
                raise ValueError("page_size needs kvcache=True")
            _check_int("page_size", self.page_size, 16, 256)
            if self.page_size & (self.page_size - 1):
                raise ValueError(f"page_size must be a power of two from 16 "
                                 f"to 256, got {self.page_size}")
        for flag in ("return_lse", "causal", "varlen", "kvcache", "pack_gqa",
                     "split_kv", "head_descales", "transpose_v"):
            if not isinstance(getattr(self, flag), bool):
                raise TypeError(f"{flag} must be a bool, got "
                                f"{getattr(self, flag)!r}")
        self._check_decode()
        _int_tuple(self, "window", 2)
        if self.scale is not None:
            object.__setattr__(self, "scale", check_scale(self.scale))
        _int_tuple(self, "tile", 2)
        if self.stages is not None:
            _check_int("stages", self.stages, 1, 32)
        if self.consumers is not None:
            _check_int("consumers", self.consumers, 1, 3)
        if self.schedule is not None:
            _check_choice("schedule", self.schedule, ATTENTION_SCHEDULES)
        _check_choice("target", self.target, TARGETS)

    def _check_fp8(self) -> None:
        """fp8: the dense layout only, o in bf16 (default) or f16; 16-bit
        inputs take no out_dtype (o has their type) and no descales."""
        if not self.fp8:
            if self.out_dtype is not None:
                raise ValueError(f"out_dtype is for fp8 attention only, got "
                                 f"out_dtype={self.out_dtype!r} with dtype "
                                 f"{self.dtype!r}")
            for flag in ("head_descales", "transpose_v"):
                if getattr(self, flag) is True:
                    raise ValueError(f"{flag} is for fp8 attention only, "
                                     f"got dtype {self.dtype!r}")
            return
        if self.varlen is True or self.kvcache is True:
            raise ValueError("fp8 attention supports the dense layout only "
                             "so far (not varlen or kvcache)")
        if self.out_dtype is None:
            object.__setattr__(self, "out_dtype", "bf16")
        _check_choice("out_dtype", self.out_dtype, INPUT_DTYPES)

    def _check_decode(self) -> None:
        """pack_gqa and split_kv: kvcache only; pack_gqa with static head
        counts whose group divides the 64 rows of a decode Q tile."""
        for flag in ("pack_gqa", "split_kv"):
            if getattr(self, flag) and not self.kvcache:
                raise ValueError(f"{flag} needs kvcache=True")
        if not self.pack_gqa:
            return
        if self.heads_q is None or self.heads_kv is None:
            raise ValueError(
                f"pack_gqa needs static heads_q and heads_kv (the group "
                f"heads_q / heads_kv is packed into a tile's rows), got "
                f"heads_q={self.heads_q}, heads_kv={self.heads_kv}")
        if self.heads_q % self.heads_kv:
            raise ValueError(
                f"pack_gqa needs heads_q a multiple of heads_kv, got "
                f"heads_q={self.heads_q}, heads_kv={self.heads_kv}")
        group = self.heads_q // self.heads_kv
        if PACK_ROWS % group:
            raise ValueError(
                f"pack_gqa needs the group heads_q / heads_kv = {group} to "
                f"divide {PACK_ROWS} (the rows of a packed Q tile)")

    @property
    def name(self) -> str:
        """The kernel's symbol, e.g. ``attention_bf16_d128_causal``."""
        name = f"attention_{self.dtype}_d{self.head_dim}"
        if self.fp8:
            name += f"_{self.out_dtype}"
        name += _sizes_suffix(self)
        if self.causal:
            name += "_causal"
        if self.window is not None:
            name += f"_w{self.window[0]}_{self.window[1]}"
        if self.return_lse:
            name += "_lse"
        if self.tile is not None:
            name += f"_{self.tile[0]}x{self.tile[1]}"
        if self.stages is not None:
            name += f"_s{self.stages}"
        if self.consumers is not None:
            name += f"_c{self.consumers}"
        if self.schedule is not None:
            name += "_pb" if self.schedule == "per_block" else "_pers"
        if self.varlen:
            name += "_varlen"
        if self.kvcache:
            name += "_kvcache"
        if self.pack_gqa:
            name += "_pk"
        if self.split_kv:
            name += "_skv"
        if self.head_descales:
            name += "_hdesc"
        if self.transpose_v:
            name += "_tv"
        if self.page_size is not None:
            name += f"_p{self.page_size}"
        return name

    def signature(self) -> str:
        if self.kvcache:
            q = tensor_type((self.batch, self.seq_q, self.heads_q,
                             self.head_dim), self.dtype)
            if self.page_size is None:
                kv_shape = (self.batch, None, self.heads_kv, self.head_dim)
            else:
                kv_shape = (None, self.page_size, self.heads_kv,
                            self.head_dim)
            kv = tensor_type(kv_shape, self.dtype)
            inputs = [q, kv, kv, tensor_type((self.batch,), "i32")]
            if self.page_size is not None:
                inputs.append(tensor_type((self.batch, None), "i32"))
            result = q
            if self.return_lse:
                lse = tensor_type((self.batch, self.heads_q, self.seq_q),
                                  "f32")
                result = f"({q}, {lse})"
            return f"({', '.join(inputs)}) -> {result}"
        if self.varlen:
            q = tensor_type((None, self.heads_q, self.head_dim), self.dtype)
            kv = tensor_type((None, self.heads_kv, self.head_dim),
                             self.dtype)
            cu = tensor_type((None,), "i32")
            result = q
            if self.return_lse:
                lse = tensor_type((self.heads_q, None), "f32")
                result = f"({q}, {lse})"
            return f"({q}, {kv}, {kv}, {cu}, {cu}) -> {result}"
        q = tensor_type((self.batch, self.heads_q, self.seq_q,
                         self.head_dim), self.dtype)
        kv = tensor_type((self.batch, self.heads_kv, self.seq_k,
                          self.head_dim), self.dtype)
        if self.fp8:
            return self._fp8_signature(q, kv)
        result = q
        if self.return_lse:
            lse = tensor_type((self.batch, self.heads_q, self.seq_q), "f32")
            result = f"({q}, {lse})"
        return f"({q}, {kv}, {kv}) -> {result}"

    def _fp8_signature(self, q: str, k: str) -> str:
        """q, k, v transposed (keys padded to 16; with transpose_v as k),
        the three descales ([1], or [batch, heads_kv]) -> o in out_dtype
        (and lse)."""
        keys = None if self.seq_k is None else -(-self.seq_k // 16) * 16
        v = k if self.transpose_v else tensor_type(
            (self.batch, self.heads_kv, self.head_dim, keys), self.dtype)
        descale = tensor_type((self.batch, self.heads_kv)
                              if self.head_descales else (1,), "f32")
        o = tensor_type((self.batch, self.heads_q, self.seq_q,
                         self.head_dim), self.out_dtype)
        result = o
        if self.return_lse:
            lse = tensor_type((self.batch, self.heads_q, self.seq_q), "f32")
            result = f"({o}, {lse})"
        return (f"({q}, {k}, {v}, {descale}, {descale}, {descale}) -> "
                f"{result}")

    def to_mlir(self) -> str:
        """The ``fmha.attention`` op, one declaration in a module."""
        config = []
        if self.varlen:
            config.append("varlen")
        if self.kvcache:
            config.append("kvcache")
        if self.pack_gqa:
            config.append("pack_gqa")
        if self.split_kv:
            config.append("split_kv")
        if self.transpose_v:
            config.append("transpose_v")
        config += _mask_config(self)
        if self.stages is not None:
            config.append(f"stages {self.stages}")
        if self.consumers is not None:
            config.append(f"consumers {self.consumers}")
        if self.schedule is not None:
            config.append(f"schedule {self.schedule}")
        config.append(f"target {self.target}")
        return (f"fmha.attention @{self.name} {self.signature()}\n"
                f"    {' '.join(config)}\n")


def _sizes_suffix(spec: Any) -> str:
    """The static sizes of an attention spec in its kernel's name: `_b2`,
    `_hq32`, `_hkv8`, `_sq300`, `_sk17`, each when set."""
    suffix = ""
    for size, tag in (("batch", "b"), ("heads_q", "hq"), ("heads_kv", "hkv"),
                      ("seq_q", "sq"), ("seq_k", "sk")):
        if getattr(spec, size) is not None:
            suffix += f"_{tag}{getattr(spec, size)}"
    return suffix


def _mask_config(spec: Any) -> list:
    """The mask, scale and tile keywords of an attention op's syntax, as
    ``fmha.attention`` and ``fmha.attention_backward`` spell them."""
    config = []
    if spec.causal:
        config.append("causal")
    if spec.window is not None:
        config.append(f"window [{spec.window[0]}, {spec.window[1]}]")
    if spec.scale is not None:
        config.append(f"scale {float_literal(spec.scale)}")
    if spec.tile is not None:
        config.append(f"tile [{spec.tile[0]}, {spec.tile[1]}]")
    return config


# Head dims of the attention backward's kernels (docs/Backward.md: 256
# does not fit the consumers' registers with dK and dV live).
ATTENTION_BACKWARD_HEAD_DIMS = (64, 128)
# Targets of the attention backward (sm_100a's is not built).
ATTENTION_BACKWARD_TARGETS = ("sm_90a",)


@dataclass(frozen=True)
class AttentionBackwardSpec(_Spec):
    """The attention backward pass, the ``fmha.attention_backward`` op
    (docs/Backward.md): ``q``, ``o``, ``do`` ``[batch, heads_q, seq_q,
    head_dim]``, ``k``, ``v`` ``[batch, heads_kv, seq_k, head_dim]`` and
    the forward's ``lse`` ``[batch, heads_q, seq_q]`` (f32) in; ``dq``
    (like q), ``dk``, ``dv`` (like k) out. One cubin of several kernels
    run in order (a manifest with ``launches``, docs/Manifest.md), with
    scratch tensors the caller passes (``Kernel.scratch_shapes``).

    Sizes left None are dynamic; ``head_dim`` is static (64 or 128).
    ``causal``, ``window=(left, right)`` and ``scale`` (default
    ``1/sqrt(head_dim)``) must be those of the forward whose ``o`` and
    ``lse`` are given. ``tile=(block_m, block_n)``: query rows per step
    of the dK/dV kernel, and its keys per CTA (None: the compiler's
    default). ``fused_dq``: dQ computed by the dK/dV kernel and added
    into an f32 scratch by TMA (five products instead of seven; dq's last
    bits may vary from run to run) instead of by a kernel of its own.
    sm_90a only.

    ``varlen=True``: the backward of a varlen forward (``AttentionSpec``'s
    ``varlen``), in its layout: ``q``, ``o``, ``do``, ``dq`` ``[total_q,
    heads_q, head_dim]``, ``k``, ``v``, ``dk``, ``dv`` ``[total_k,
    heads_kv, head_dim]``, ``lse`` ``[heads_q, total_q]`` and two ``[batch
    + 1]`` int32 ``cu_seqlens`` inputs after it; ``batch``, ``seq_q`` and
    ``seq_k`` must then be None, and ``fused_dq`` False (dQ always by a
    kernel of its own).
    """

    dtype: str = "bf16"
    head_dim: int = 128
    batch: Optional[int] = None
    heads_q: Optional[int] = None
    heads_kv: Optional[int] = None
    seq_q: Optional[int] = None
    seq_k: Optional[int] = None
    causal: bool = False
    window: Optional[tuple] = None
    scale: Optional[float] = None
    tile: Optional[tuple] = None
    fused_dq: bool = False
    target: str = "sm_90a"
    varlen: bool = False

    kind = "attention_backward"
    _later_fields = {"varlen": False}

    def __post_init__(self) -> None:
        _check_choice("dtype", self.dtype, INPUT_DTYPES)
        if self.head_dim in ATTENTION_HEAD_DIMS and \
                self.head_dim not in ATTENTION_BACKWARD_HEAD_DIMS:
            raise ValueError(
                f"head_dim {self.head_dim} has no attention backward yet "
                f"(dK and dV of {self.head_dim} columns do not fit the "
                f"consumers' registers, docs/Backward.md); head dims: "
                f"{', '.join(map(str, ATTENTION_BACKWARD_HEAD_DIMS))}")
        _check_choice("head_dim", self.head_dim,
                      ATTENTION_BACKWARD_HEAD_DIMS)
        for size in ("batch", "heads_q", "heads_kv", "seq_q", "seq_k"):
            _check_size(size, getattr(self, size))
        for flag in ("causal", "fused_dq", "varlen"):
            if not isinstance(getattr(self, flag), bool):
                raise TypeError(f"{flag} must be a bool, got "
                                f"{getattr(self, flag)!r}")
        if self.varlen:
            _check_varlen_sizes(self)
            if self.fused_dq:
                raise ValueError(
                    "fused_dq and varlen exclude each other (a varlen "
                    "backward computes dQ by a kernel of its own)")
        _int_tuple(self, "window", 2)
        if self.scale is not None:
            object.__setattr__(self, "scale", check_scale(self.scale))
        _int_tuple(self, "tile", 2)
        if self.target in TARGETS and \
                self.target not in ATTENTION_BACKWARD_TARGETS:
            raise ValueError(f"target {self.target} has no attention "
                             f"backward yet (targets: "
                             f"{', '.join(ATTENTION_BACKWARD_TARGETS)})")
        _check_choice("target", self.target, ATTENTION_BACKWARD_TARGETS)

    @property
    def name(self) -> str:
        """The kernels' common prefix and the manifest's name, e.g.
        ``attention_backward_bf16_d128_causal`` (``_varlen`` before the
        mask: ``attention_backward_bf16_d128_varlen_causal``)."""
        name = f"attention_backward_{self.dtype}_d{self.head_dim}"
        name += _sizes_suffix(self)
        if self.varlen:
            name += "_varlen"
        if self.causal:
            name += "_causal"
        if self.window is not None:
            name += f"_w{self.window[0]}_{self.window[1]}"
        if self.fused_dq:
            name += "_fdq"
        if self.tile is not None:
            name += f"_{self.tile[0]}x{self.tile[1]}"
        return name

    def signature(self) -> str:
        if self.varlen:
            q = tensor_type((None, self.heads_q, self.head_dim), self.dtype)
            kv = tensor_type((None, self.heads_kv, self.head_dim),
                             self.dtype)
            lse = tensor_type((self.heads_q, None), "f32")
            cu = tensor_type((None,), "i32")
            return (f"({q}, {kv}, {kv}, {q}, {q}, {lse}, {cu}, {cu}) -> "
                    f"({q}, {kv}, {kv})")
        q = tensor_type((self.batch, self.heads_q, self.seq_q,
                         self.head_dim), self.dtype)
        kv = tensor_type((self.batch, self.heads_kv, self.seq_k,
                          self.head_dim), self.dtype)
        lse = tensor_type((self.batch, self.heads_q, self.seq_q), "f32")
        return (f"({q}, {kv}, {kv}, {q}, {q}, {lse}) -> "
                f"({q}, {kv}, {kv})")

    def to_mlir(self) -> str:
        """The ``fmha.attention_backward`` op, one declaration in a
        module."""
        config = _mask_config(self)
        if self.fused_dq:
            # Before the tile, as the op's syntax orders them.
            config.insert(len(config) - (self.tile is not None), "fused_dq")
        if self.varlen:
            config.insert(0, "varlen")
        config.append(f"target {self.target}")
        return (f"fmha.attention_backward @{self.name} {self.signature()}\n"
                f"    {' '.join(config)}\n")


# head_dim of fmha.merge_states: a multiple of 8 (16-byte row pieces) up to
# this.
MERGE_MAX_HEAD_DIM = 512


@dataclass(frozen=True)
class MergeSpec(_Spec):
    """A merge of partial attention results, the ``fmha.merge_states`` op:
    ``o_states`` ``[states, batch, seq, heads, head_dim]`` (``dtype``) and
    ``lse_states`` ``[states, batch, heads, seq]`` (f32) in, ``o``
    ``[batch, seq, heads, head_dim]`` and ``lse`` ``[batch, heads, seq]``
    out, every size but ``head_dim`` dynamic (one kernel merges any number
    of states of any shape), every tensor read and written with its own
    strides."""

    dtype: str = "bf16"
    head_dim: int = 128
    target: str = "sm_90a"

    kind = "merge_states"

    def __post_init__(self) -> None:
        _check_choice("dtype", self.dtype, INPUT_DTYPES)
        _check_int("head_dim", self.head_dim, 8, MERGE_MAX_HEAD_DIM)
        if self.head_dim % 8:
            raise ValueError(f"head_dim must be a multiple of 8, got "
                             f"{self.head_dim}")
        _check_choice("target", self.target, TARGETS)

    @property
    def name(self) -> str:
        """The kernel's symbol, e.g. ``merge_states_bf16_d128``."""
        return f"merge_states_{self.dtype}_d{self.head_dim}"

    def signature(self) -> str:
        d = self.head_dim
        o_states = tensor_type((None, None, None, None, d), self.dtype)
        lse_states = tensor_type((None, None, None, None), "f32")
        o = tensor_type((None, None, None, d), self.dtype)
        lse = tensor_type((None, None, None), "f32")
        return f"({o_states}, {lse_states}) -> ({o}, {lse})"

    def to_mlir(self) -> str:
        """The ``fmha.merge_states`` op, one declaration in a module."""
        return (f"fmha.merge_states @{self.name} {self.signature()}\n"
                f"    target {self.target}\n")


# Page sizes of fmha.append_kv's paged caches: powers of two from this.
APPEND_MIN_PAGE_SIZE = 16


@dataclass(frozen=True)
class AppendSpec(_Spec):
    """Writing new tokens' keys and values into a KV cache, the
    ``fmha.append_kv`` op: ``k_new``, ``v_new`` ``[batch, seq_new,
    heads_kv, head_dim]`` (``dtype``) and ``cache_seqlens`` ``[batch]``
    (i32) in, with ``block_table`` ``[batch, max_pages]`` (i32) when
    ``page_size`` is set; the caches, written in place, ``[batch,
    capacity, heads_kv, head_dim]`` or ``[num_pages, page_size, heads_kv,
    head_dim]``. Every size but ``head_dim`` and ``page_size`` dynamic;
    keys, values and caches read and written with their own strides."""

    dtype: str = "bf16"
    head_dim: int = 128
    page_size: Optional[int] = None
    target: str = "sm_90a"

    kind = "append_kv"

    def __post_init__(self) -> None:
        _check_choice("dtype", self.dtype, INPUT_DTYPES)
        _check_int("head_dim", self.head_dim, 8, MERGE_MAX_HEAD_DIM)
        if self.head_dim % 8:
            raise ValueError(f"head_dim must be a multiple of 8, got "
                             f"{self.head_dim}")
        if self.page_size is not None:
            _check_int("page_size", self.page_size, APPEND_MIN_PAGE_SIZE,
                       1 << 30)
            if self.page_size & (self.page_size - 1):
                raise ValueError(f"page_size must be a power of two, got "
                                 f"{self.page_size}")
        _check_choice("target", self.target, TARGETS)

    @property
    def name(self) -> str:
        """The kernel's symbol, e.g. ``append_kv_bf16_d128`` or
        ``append_kv_bf16_d128_p64``."""
        page = "" if self.page_size is None else f"_p{self.page_size}"
        return f"append_kv_{self.dtype}_d{self.head_dim}{page}"

    def signature(self) -> str:
        d = self.head_dim
        new = tensor_type((None, None, None, d), self.dtype)
        inputs = [new, new, tensor_type((None,), "i32")]
        if self.page_size is None:
            cache = new
        else:
            inputs.append(tensor_type((None, None), "i32"))
            cache = tensor_type((None, self.page_size, None, d), self.dtype)
        return f"({', '.join(inputs)}) -> ({cache}, {cache})"

    def to_mlir(self) -> str:
        """The ``fmha.append_kv`` op, one declaration in a module."""
        return (f"fmha.append_kv @{self.name} {self.signature()}\n"
                f"    target {self.target}\n")


# Element types of fmha.transpose_values.
TRANSPOSE_DTYPES = ("f8e4m3", "f8e5m2")
# Head dims of fmha.transpose_values: multiples of 16 up to this.
TRANSPOSE_MAX_HEAD_DIM = 256


@dataclass(frozen=True)
class TransposeSpec(_Spec):
    """fp8 attention's V^T, the ``fmha.transpose_values`` op: ``v``
    ``[batch, heads_kv, seq_k, head_dim]`` (``dtype``, read with its own
    strides) in; ``vt`` ``[batch, heads_kv, head_dim, keys]`` out (dense,
    ``keys`` seq_k rounded up to 16, the keys of each group of 16 in the
    order fp8 attention's P V product reads them, the padding zeros).
    Every size but ``head_dim`` dynamic."""

    dtype: str = "f8e4m3"
    head_dim: int = 128
    target: str = "sm_90a"

    kind = "transpose_values"

    def __post_init__(self) -> None:
        _check_choice("dtype", self.dtype, TRANSPOSE_DTYPES)
        _check_int("head_dim", self.head_dim, 16, TRANSPOSE_MAX_HEAD_DIM)
        if self.head_dim % 16:
            raise ValueError(f"head_dim must be a multiple of 16, got "
                             f"{self.head_dim}")
        _check_choice("target", self.target, TARGETS)

    @property
    def name(self) -> str:
        """The kernel's symbol, e.g. ``transpose_values_f8e4m3_d128``."""
        return f"transpose_values_{self.dtype}_d{self.head_dim}"

    def signature(self) -> str:
        d = self.head_dim
        v = tensor_type((None, None, None, d), self.dtype)
        vt = tensor_type((None, None, d, None), self.dtype)
        return f"({v}) -> ({vt})"

    def to_mlir(self) -> str:
        """The ``fmha.transpose_values`` op, one declaration in a
        module."""
        return (f"fmha.transpose_values @{self.name} {self.signature()}\n"
                f"    target {self.target}\n")


Spec = Union[GemmSpec, AttentionSpec, AttentionBackwardSpec, MergeSpec,
             AppendSpec, TransposeSpec]
SPEC_KINDS = {"gemm": GemmSpec, "attention": AttentionSpec,
              "attention_backward": AttentionBackwardSpec,
              "merge_states": MergeSpec, "append_kv": AppendSpec,
              "transpose_values": TransposeSpec}


def spec_from_dict(data: dict) -> Spec:
    """The spec of ``spec.to_dict()`` (the cache's entry.json holds it)."""
    data = dict(data)
    kind = data.pop("kind", None)
    if kind not in SPEC_KINDS:
        raise ValueError(f"unknown kernel kind {kind!r} (known: "
                         f"{', '.join(SPEC_KINDS)})")
    cls = SPEC_KINDS[kind]
    names = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ValueError(f"{kind} spec: unknown field(s) {', '.join(unknown)}")
    return cls(**data)
