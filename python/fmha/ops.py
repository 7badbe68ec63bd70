"""``fmha.gemm`` and ``fmha.attention`` on PyTorch tensors.

PyTorch is imported lazily, on the first call; importing this module needs
neither PyTorch nor a GPU. Both functions go through the PyTorch custom ops
``torch.ops.fmha.gemm`` / ``torch.ops.fmha.attention`` (registered by
fmha.torch_ops.register() on first use), so they work under
``torch.compile(fullgraph=True)`` without graph breaks.

The pure helpers (the output's padded row stride, the target of a compute
capability, the spec a call compiles) are here too, testable without
PyTorch.
"""

from __future__ import annotations

import math
import struct
from typing import Any, Callable, Optional, Sequence

from . import torch_ops, tuning
from .specs import (ATTENTION_HEAD_DIMS, FP8_DTYPES, I32_MAX, AttentionSpec,
                    GemmSpec, check_scale)

ALIGNMENT = 16
# Compute capability -> the target fmha compiles for it.
TARGETS = {(9, 0): "sm_90a"}
# torch dtype names (str(dtype) without "torch.") <-> fmha's names.
TORCH_TO_FMHA = {"bfloat16": "bf16", "float16": "f16", "float32": "f32"}
# fp8 torch dtypes fmha.gemm takes (with scales) <-> fmha's names.
FP8_TORCH_TO_FMHA = {"float8_e4m3fn": "f8e4m3", "float8_e5m2": "f8e5m2"}
# fmha.gemm's fp8 accumulation when the call does not choose
# (``use_fast_accum=None``): fast, one wgmma chain over all of K, as before
# accumulate promotion existed. To be decided by measurement on the H100
# (python/tests/test_gpu_fp8.py's errors, bench/gemm_fp8.py's times).
DEFAULT_FP8_FAST_ACCUM = True


def padded_row_stride(n: Any, itemsize: int) -> Any:
    """The row stride, in elements, of an ``[M, N]`` output whose rows must
    start on 16-byte boundaries (TMA): N rounded up to a multiple of
    ``16 / itemsize``. Works on ints and on PyTorch's symbolic sizes."""
    if itemsize <= 0 or ALIGNMENT % itemsize:
        raise ValueError(f"itemsize must divide {ALIGNMENT}, got {itemsize}")
    step = ALIGNMENT // itemsize
    return (n + step - 1) // step * step


def target_for_capability(capability: tuple, device: str = "the device") \
        -> str:
    """The fmha target of a compute capability: 9.0 -> ``sm_90a``; others
    raise RuntimeError."""
    cap = tuple(capability)
    target = TARGETS.get(cap)
    if target is None:
        raise RuntimeError(
            f"fmha has kernels for compute capability 9.0 (Hopper, sm_90a) "
            f"only; {device} has compute capability {cap[0]}.{cap[1]}")
    return target


def gemm_spec(dtype: str, out_dtype: str, target: str = "sm_90a",
              config: Optional[dict] = None,
              b_transposed: bool = True, b_dtype: Optional[str] = None,
              scale_a: Optional[str] = None,
              scale_b: Optional[str] = None,
              promote: bool = False) -> GemmSpec:
    """The spec fmha.gemm compiles for these types (dynamic M, N, K), B's
    layout (``[N, K]`` with ``b_transposed``, else ``[K, N]``) and
    ``config`` (spec fields: ``tile``, ``stages``, ``consumers``; absent
    ones take GemmSpec's defaults, stages the most that fit). fp8: B's
    type ``b_dtype`` and the scales' kinds (``scale_a`` ``"tensor"`` or
    ``"row"``, ``scale_b`` ``"tensor"`` or ``"column"``); ``promote``:
    accumulate promotion (``use_fast_accum=False``), the promotion
    defaults (fmha.tuning.promoted) where ``config`` sets none."""
    config = tuning.normalize_config(config)
    if promote:
        config = tuning.promoted(config)
    return GemmSpec(dtype=dtype, out_dtype=out_dtype, target=target,
                    transpose_b=b_transposed, b_dtype=b_dtype,
                    scale_a=scale_a, scale_b=scale_b, **config)


def accumulate_promotion(fp8: bool, use_fast_accum: Any) -> bool:
    """Whether an fmha.gemm call promotes its fp8 accumulator
    (``use_fast_accum=False``, torch._scaled_mm's sense): None takes
    DEFAULT_FP8_FAST_ACCUM. 16-bit GEMMs accumulate in f32 and take
    None only."""
    if use_fast_accum is None:
        return fp8 and not DEFAULT_FP8_FAST_ACCUM
    if not isinstance(use_fast_accum, bool):
        raise TypeError(f"fmha.gemm: use_fast_accum must be a bool or "
                        f"None, got {use_fast_accum!r}")
    if not fp8:
        raise ValueError("fmha.gemm: use_fast_accum is for fp8 a and b "
                         "only (16-bit inputs accumulate in float32)")
    return not use_fast_accum


def attention_spec(dtype: str, head_dim: int, causal: bool = False,
                   window: Optional[tuple] = None,
                   scale: Optional[float] = None, return_lse: bool = False,
                   target: str = "sm_90a",
                   config: Optional[dict] = None,
                   varlen: bool = False, kvcache: bool = False,
                   page_size: Optional[int] = None) -> AttentionSpec:
    """The spec fmha.attention (``varlen``: fmha.attention_varlen) compiles:
    batch, heads and sequence lengths dynamic (one kernel serves every
    shape of a head dim; the runtime passes the sizes), ``config`` (spec
    fields: ``tile``, ``stages``, ``consumers``, ``schedule``) or the
    compiler's defaults. ``kvcache`` (fmha.attention_kvcache): caches with a
    length per sequence, paged with ``page_size``; a configured block_n
    larger than the page is cut to it (a K/V tile lies in one page), and
    three consumers (a dense row of the table) to the default two, which
    KV-cache kernels take at most."""
    if scale is not None and _same_f32(scale, 1.0 / math.sqrt(head_dim)):
        scale = None  # the default: one kernel, whoever spells it
    config = tuning.normalize_config(config)
    tile = config.get("tile")
    if page_size is not None and tile is not None and tile[1] > page_size:
        config["tile"] = (tile[0], page_size)
    if kvcache and config.get("consumers", 0) > 2:
        del config["consumers"]
    return AttentionSpec(
        dtype=dtype, head_dim=head_dim, return_lse=return_lse,
        causal=causal, window=None if window is None else tuple(window),
        scale=scale, target=target, varlen=varlen, kvcache=kvcache,
        page_size=page_size, **config)


def _same_f32(x: float, y: float) -> bool:
    """Whether two scales round to the same float32 (the kernel's)."""
    try:
        return struct.pack("f", x) == struct.pack("f", y)
    except (OverflowError, struct.error):
        return False


def gemm_kernel_specs(dtype: str, out_dtype: str, target: str = "sm_90a",
                      b_transposed: bool = True,
                      b_dtype: Optional[str] = None,
                      scale_a: Optional[str] = None,
                      scale_b: Optional[str] = None,
                      promote: bool = False) -> list:
    """Every GemmSpec fmha.gemm may compile for these types, whatever the
    shape (the defaults, the candidates the autotuner tries and every
    configuration of the tuning table): what a cache must hold for a
    machine without a compiler. Some may not compile (an f32 output needs
    more shared memory); fmha.gemm then falls back to the defaults. fp8
    GEMMs (``dtype`` f8e4m3 or f8e5m2) have candidates and table rows of
    their own, and so have fp8 GEMMs with accumulate promotion
    (``promote``); B as ``[K, N]`` has rows of its own, and takes those
    of B as ``[N, K]`` where it has none."""
    fp8 = dtype in FP8_DTYPES
    category, _ = tuning.gemm_problem(1, 1, 1, fp8=fp8, promote=promote,
                                      b_kn=not b_transposed)
    fallback = tuning.CATEGORY_FALLBACK.get(category)
    configs = [{}, *tuning.gemm_candidates(fp8, promote),
               *tuning.table().configs(category),
               *(tuning.table().configs(fallback) if fallback else ())]
    return _unique(gemm_spec(dtype, out_dtype, target, c, b_transposed,
                             b_dtype, scale_a, scale_b, promote)
                   for c in configs)


def attention_kernel_specs(dtype: str, head_dim: int, causal: bool = False,
                           window: Optional[tuple] = None,
                           scale: Optional[float] = None,
                           return_lse: bool = False,
                           target: str = "sm_90a",
                           varlen: bool = False, kvcache: bool = False,
                           page_size: Optional[int] = None) -> list:
    """Every AttentionSpec fmha.attention (``varlen``:
    fmha.attention_varlen) may compile for these options, whatever the
    shape: what a cache must hold for a machine without a compiler."""
    configs = [{}, *tuning.attention_candidates(head_dim),
               *tuning.table().configs(("attention", head_dim))]
    return _unique(attention_spec(dtype, head_dim, causal, window, scale,
                                  return_lse, target, c, varlen, kvcache,
                                  page_size)
                   for c in configs)


def _unique(specs: Any) -> list:
    out: list = []
    for spec in specs:
        if spec not in out:
            out.append(spec)
    return out


def mask_arguments(scale: Any, window: Any) -> tuple:
    """An entry point's ``scale`` and ``window`` as its fast path keys
    them and its custom op takes them: an int scale as a float, a list
    window as a tuple (anything else as given, for the checks to name)."""
    if isinstance(scale, int) and not isinstance(scale, bool):
        scale = float(scale)
    if isinstance(window, list):
        window = tuple(window)
    return scale, window


def _require(cond: Any, message: Callable[[], str]) -> None:
    if not cond:
        raise ValueError(message())


def check_tensor_types(torch: Any, what: str, named: Sequence) -> None:
    """Checks that each ``(name, value)`` of ``named`` is a torch.Tensor
    (TypeError naming it for ``what``, the entry point)."""
    for name, t in named:
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{what}: {name} must be a torch.Tensor, got "
                            f"{type(t).__name__}")


def rows_aligned(t: Any) -> bool:
    """Whether a kernel's 16-byte plain loads and stores can address the
    rows of tensor ``t``: innermost stride 1, other strides and the address
    multiples of 16 bytes."""
    size = t.element_size()
    return (t.stride(-1) == 1 and t.data_ptr() % 16 == 0
            and all((s * size) % 16 == 0 for s in t.stride()[:-1]))


def check_one_device(what: str, named: Sequence) -> None:
    """Checks that the tensors of ``named`` (``(name, tensor)`` pairs) are
    on one device (ValueError naming them for ``what``)."""
    devices = [t.device for _, t in named]
    if any(d != devices[0] for d in devices):
        raise ValueError(f"{what}: {', '.join(n for n, _ in named)} must be "
                         f"on one device, got "
                         f"{', '.join(str(d) for d in devices)}")


def index_or_fmha_dtype(torch: Any, dtype: Any) -> Optional[str]:
    """``"i32"`` for int32 (index tensors), else fmha_dtype's name."""
    return "i32" if dtype == torch.int32 else fmha_dtype(dtype)


def with_fresh_outputs(tensors: dict, make_outputs: Callable) -> Callable:
    """A function that gives a copy of a launch's ``tensors`` with new
    outputs from ``make_outputs()`` (``(o, lse)``; lse replaced only where
    ``tensors`` has one): what the autotuner launches candidates on, so
    that timing runs never write the caller's outputs."""
    def fresh() -> dict:
        out = dict(tensors)
        out["o"], lse = make_outputs()
        if "lse" in tensors:
            out["lse"] = lse
        return out
    return fresh


def skip_value_checks(torch: Any) -> bool:
    """Whether tensor values cannot be read on the host now: a CUDA graph
    is being captured (a device-to-host copy would break it) or
    torch.compile is tracing (there are no values)."""
    return (torch.compiler.is_compiling()
            or torch.cuda.is_current_stream_capturing())


def check_mask_options(what: str, causal: Any, window: Any,
                       scale: Any) -> None:
    """The mask and scale arguments of an attention entry point (``what``
    names it in the messages): causal a bool, window two i32 sizes (right 0
    with causal), scale as check_scale wants it."""
    if not isinstance(causal, bool):
        raise TypeError(f"{what}: causal must be a bool, got {causal!r}")
    if window is not None:
        items = list(window)
        if len(items) != 2 or any(isinstance(x, bool) or not isinstance(
                x, int) or not 0 <= x <= I32_MAX for x in items):
            raise ValueError(f"{what}: window must be (left, right) with two "
                             f"ints in [0, {I32_MAX}] (i32 in the kernel), "
                             f"got {window!r}")
        if causal and items[1] != 0:
            raise ValueError(f"{what}: a causal window sees no key after the "
                             f"diagonal: right must be 0, got "
                             f"window={tuple(items)}")
    if scale is not None:
        check_scale(scale, f"{what}: scale")


def check_attention_args(q_shape: Any, k_shape: Any, v_shape: Any,
                         dtypes: tuple, causal: bool = False,
                         window: Optional[Any] = None,
                         scale: Optional[float] = None,
                         check: Callable = _require) -> None:
    """Checks fmha.attention's arguments from their shapes and dtype names
    (``bf16``, ``f16``, or None for another type), naming the mistake:
    ValueError (shapes, window, scale) or TypeError (dtypes, arguments of
    the wrong kind). Relations between sizes go through ``check(cond,
    message)`` (``torch._check`` under torch.compile, where sizes may be
    symbolic)."""
    if len(q_shape) != 4 or len(k_shape) != 4 or len(v_shape) != 4:
        raise ValueError(
            f"fmha.attention: q, k, v must be [batch, heads, seq, head_dim], "
            f"got shapes {list(q_shape)}, {list(k_shape)}, {list(v_shape)}")
    qd, kd, vd = dtypes
    if qd not in ("bf16", "f16"):
        raise TypeError(f"fmha.attention: q must be bfloat16 or float16, "
                        f"got {qd or 'another type'}")
    if kd != qd or vd != qd:
        raise TypeError(f"fmha.attention: q, k, v must have one dtype, got "
                        f"{qd}, {kd or 'another type'}, {vd or 'another type'}")
    check_mask_options("fmha.attention", causal, window, scale)
    check_head_dim("fmha.attention", "q, k, v", q_shape, k_shape, v_shape, 3,
                   check)
    check(k_shape[0] == v_shape[0] and k_shape[1] == v_shape[1]
          and k_shape[2] == v_shape[2], lambda: (
              f"fmha.attention: k and v must have one shape [batch, heads_kv, "
              f"seq_k, head_dim], got {list(k_shape)} and {list(v_shape)}"))
    check(q_shape[0] == k_shape[0], lambda: (
        f"fmha.attention: q and k must have one batch size, got "
        f"{q_shape[0]} and {k_shape[0]}"))
    check_head_groups("fmha.attention", "k and v", q_shape[1], k_shape, 1,
                      check)


def check_head_dim(what: str, names: str, q_shape: Sequence,
                   k_shape: Sequence, v_shape: Sequence, axis: int,
                   check: Callable) -> None:
    """q, k and v (called ``names`` in messages) share one head dim (dim
    ``axis``), one of ATTENTION_HEAD_DIMS; ``what`` names the entry point.
    Relations go through ``check(cond, message)``."""
    check(k_shape[axis] == q_shape[axis] and v_shape[axis] == q_shape[axis],
          lambda: (f"{what}: {names} must have one head_dim, got shapes "
                   f"{list(q_shape)}, {list(k_shape)}, {list(v_shape)}"))
    if q_shape[axis] not in ATTENTION_HEAD_DIMS:
        raise ValueError(
            f"{what}: head_dim must be one of "
            f"{', '.join(map(str, ATTENTION_HEAD_DIMS))}, got "
            f"{q_shape[axis]}")


def check_head_groups(what: str, kv: str, heads_q: int, k_shape: Sequence,
                      axis: int, check: Callable) -> None:
    """K and V (``kv`` in messages) have at least one head (dim ``axis``
    of ``k_shape``) and ``heads_q`` is a multiple of them (GQA, MQA)."""
    check(k_shape[axis] >= 1, lambda: (
        f"{what}: {kv} need at least one head, got shape {list(k_shape)}"))
    check(heads_q % k_shape[axis] == 0, lambda: (
        f"{what}: heads_q ({heads_q}) must be a multiple of heads_kv "
        f"({k_shape[axis]}): each K/V head serves a group of query heads"))


def fmha_dtype(dtype: Any) -> Optional[str]:
    """fmha's name of a torch dtype (``torch.bfloat16`` -> ``bf16``), or
    None."""
    return TORCH_TO_FMHA.get(str(dtype).removeprefix("torch."))


def check_fp8_gemm(a_dtype: str, b_dtype: str, m: Any, k: Any, n: Any,
                   b_transposed: bool, scale_a: Optional[tuple],
                   scale_b: Optional[tuple]) -> tuple:
    """Checks an fp8 fmha.gemm call on its dtypes (torch names without
    ``torch.``), sizes and scales, each ``(shape, dtype name, on a's
    device, contiguous)`` or None when missing; returns the scales' kinds
    ``(scale_a, scale_b)``: ``"tensor"`` (one value: 0-d, ``[1]`` or
    ``[1, 1]``), ``"row"`` (``[M]`` or ``[M, 1]``), ``"column"`` (``[N]``
    or ``[1, N]``). Raises ValueError naming the rule broken."""
    if a_dtype not in FP8_TORCH_TO_FMHA or b_dtype not in FP8_TORCH_TO_FMHA:
        raise ValueError(f"fmha.gemm: a is {a_dtype} and b {b_dtype}: fp8 "
                         f"needs both in float8_e4m3fn or float8_e5m2")
    if a_dtype == b_dtype == "float8_e5m2":
        raise ValueError("fmha.gemm: a and b are both float8_e5m2: at most "
                         "one fp8 operand may be e5m2 (as "
                         "torch._scaled_mm)")
    if not b_transposed:
        raise ValueError("fmha.gemm: fp8 needs b as [N, K] "
                         "(b_transposed=True): fp8 MMAs read both operands "
                         "K-major")
    if scale_a is None or scale_b is None:
        missing = " and ".join(name for name, scale in (
            ("scale_a", scale_a), ("scale_b", scale_b)) if scale is None)
        raise ValueError(f"fmha.gemm: fp8 a and b need scale_a and scale_b "
                         f"(float32, as torch._scaled_mm); {missing} "
                         f"missing")
    if k % ALIGNMENT:
        raise ValueError(f"fmha.gemm: fp8 needs K a multiple of "
                         f"{ALIGNMENT} (rows of 16-byte multiples for "
                         f"TMA), got K = {k}")
    kinds = []
    for name, (shape, dtype, on_device, contiguous), size, dim, kind in (
            ("scale_a", scale_a, m, "M", "row"),
            ("scale_b", scale_b, n, "N", "column")):
        if dtype != "float32":
            raise ValueError(f"fmha.gemm: {name} must be float32, got "
                             f"{dtype}")
        if not on_device:
            raise ValueError(f"fmha.gemm: {name} must be on a's device")
        shape = list(shape)
        matrix = [size, 1] if kind == "row" else [1, size]
        if shape in ([], [1], [1, 1]):
            kinds.append("tensor")
        elif shape in ([size], matrix):
            kinds.append(kind)
        else:
            per = "row of a" if kind == "row" else "column of the result"
            raise ValueError(
                f"fmha.gemm: {name} must be one value (0-d or [1]) or one "
                f"per {per} ([{dim}] or "
                f"{'[M, 1]' if kind == 'row' else '[1, N]'}, {dim} = "
                f"{size}), got shape {shape}")
        if not contiguous:
            raise ValueError(f"fmha.gemm: {name} must be contiguous")
    return tuple(kinds)


def fp8_dtype(dtype: Any) -> Optional[str]:
    """fmha's name of an fp8 torch dtype (``torch.float8_e4m3fn`` ->
    ``f8e4m3``), or None."""
    return FP8_TORCH_TO_FMHA.get(str(dtype).removeprefix("torch."))


def _torch(what: str) -> Any:
    """The torch module, with fmha's custom ops registered."""
    torch = _TORCH[0]
    if torch is None:
        if not torch_ops.register():
            raise ImportError(f"{what} needs PyTorch (import torch failed); "
                              "fmha.compile and fmha.runtime work without "
                              "it")
        import torch
        _TORCH[0] = torch
    return torch


_TORCH: list = [None]


def gemm(a: Any, b: Any, out_dtype: Any = None, *,
         b_transposed: bool = True, scale_a: Any = None,
         scale_b: Any = None, use_fast_accum: Optional[bool] = None) -> Any:
    """``a @ b.T`` with fp32 accumulation, on a Hopper GPU.

    ``a``: ``[..., K]`` (bf16 or f16; leading dimensions are flattened into
    M); ``b``: ``[N, K]``, same dtype, the layout of a ``torch.nn.Linear``
    weight, so ``fmha.gemm(x, w)`` is ``x @ w.T``; with
    ``b_transposed=False`` b is ``[K, N]`` and the result ``a @ b``.
    ``out_dtype``:
    ``torch.bfloat16``, ``torch.float16`` or ``torch.float32``; default
    ``a.dtype``. Returns ``[..., N]``; when a row of ``N`` elements is not a
    multiple of 16 bytes the result is a view of a row-padded buffer (row
    stride fmha.ops.padded_row_stride(N, itemsize)). Inputs whose rows
    break TMA's 16-byte rules are copied into padded buffers first.

    FP8, as ``torch._scaled_mm``: ``a`` and ``b`` in
    ``torch.float8_e4m3fn`` (one of them may be ``torch.float8_e5m2``),
    ``b`` as ``[N, K]`` (``b_transposed=False`` is an error: fp8 MMAs
    read both operands K-major), K a multiple of 16, and both scales,
    float32 contiguous tensors on a's device: ``scale_a`` one value (0-d or
    ``[1]``) or one per row of ``a`` (``[M, 1]`` or ``[M]``), ``scale_b``
    one value or one per column of the result (``[1, N]`` or ``[N]``).
    The result is ``(a.float() @ b.float().T) * scale_a * scale_b``
    (fp32 accumulation, scaled, then rounded); ``out_dtype`` defaults to
    ``torch.bfloat16``. Missing scales, scales on other dtypes, and
    scales of the wrong shape, dtype or device raise ValueError before
    anything is launched. ``use_fast_accum`` (fp8 only, as in
    ``torch._scaled_mm``): False promotes the accumulator (Hopper's fp8
    MMAs accumulate with about 14 bits of mantissa; the kernel adds each
    group of K steps into a float32 sum, which costs speed: smaller
    tiles); True accumulates all of K in the MMAs; None (the default)
    takes ``DEFAULT_FP8_FAST_ACCUM``, True for now.

    Compiles (once, cached on disk) a kernel for the dtypes, then launches
    it on the current stream. Works under ``torch.compile``.
    """
    torch = _torch("fmha.gemm")
    if a.dim() == 2:
        c = torch_ops.gemm_fast(torch, a, b, out_dtype, b_transposed,
                                scale_a, scale_b, use_fast_accum)
        if c is not None:
            return c
        return torch.ops.fmha.gemm(a, b, out_dtype, b_transposed, scale_a,
                                   scale_b, use_fast_accum)
    if a.dim() < 2 or b.dim() != 2:
        raise ValueError(f"fmha.gemm: a must be [..., K] and b "
                         f"{'[N, K]' if b_transposed else '[K, N]'}, got "
                         f"shapes {list(a.shape)} and {list(b.shape)}")
    lead = a.shape[:-1]
    m = math.prod(lead)
    a2 = a.reshape(m, a.shape[-1])  # -1 is ambiguous at K = 0
    # Row scales of a [..., K] a: one per row of the flattened [M, K].
    if scale_a is not None and scale_a.dim() > 0 and scale_a.numel() == m \
            and m != 1 and scale_a.is_contiguous():
        scale_a = scale_a.reshape(m)
    c = torch_ops.gemm_fast(torch, a2, b, out_dtype, b_transposed, scale_a,
                            scale_b, use_fast_accum)
    if c is None:
        c = torch.ops.fmha.gemm(a2, b, out_dtype, b_transposed, scale_a,
                                scale_b, use_fast_accum)
    return c.view(*lead, c.shape[-1])


def attention(q: Any, k: Any, v: Any, causal: bool = False,
              window: Optional[tuple] = None, scale: Optional[float] = None,
              return_lse: bool = False, *, descale_q: Any = None,
              descale_k: Any = None, descale_v: Any = None,
              out_dtype: Any = None) -> Any:
    """Fused attention forward: ``softmax(scale * q @ k^T + mask) @ v``,
    on a Hopper GPU (the target comes from the tensors' device).

    ``q``: ``[batch, heads_q, seq_q, head_dim]``; ``k``, ``v``: ``[batch,
    heads_kv, seq_k, head_dim]``, as torch SDPA takes them (``heads_q`` a
    multiple of ``heads_kv``: grouped-query and multi-query attention
    without copies); bf16 or f16, all one dtype, on one CUDA device;
    ``head_dim`` 64, 128 or 256. ``causal``: query i sees keys
    ``j <= i + seq_k - seq_q`` (aligned bottom-right, as FlashAttention
    does); ``window=(left, right)``: keys within ``left`` before and
    ``right`` after that diagonal (``right`` 0 with ``causal``);
    ``scale``: default ``1/sqrt(head_dim)``.

    Returns ``o`` (``[batch, heads_q, seq_q, head_dim]``, q's dtype, laid
    out in memory as q is where q is dense: a ``transpose(1, 2)`` view of
    ``[batch, seq, heads, head_dim]`` gives one too, so the caller's
    ``o.transpose(1, 2).reshape(batch, seq, -1)`` copies nothing; else
    contiguous) and, with ``return_lse``, ``(o, lse)``: ``lse[b, h, i]`` is the
    natural log of row i's softmax denominator, ``log(sum_j exp(scale *
    q_i . k_j))`` over the keys it sees, in f32; a row that sees no key
    gets ``o = 0`` and ``lse = -inf``.

    Compiles (once per dtype, head dim, mask, scale and ``return_lse``;
    cached on disk by fmha.compile) a kernel whose batch, heads and
    lengths are dynamic, and launches it on the current stream. Inputs
    whose layout TMA cannot read (innermost stride not 1, other strides
    not multiples of 16 bytes, a start not 16-byte aligned) are copied
    first; transposed views such as ``x.view(b, s, h, d).transpose(1, 2)``
    are read in place. Calls with at most 16 queries against at least 512
    keys take fmha.attention_kvcache's decode kernels (query heads of a KV
    head packed into one tile, the keys split over several CTAs; their
    plan is ``fmha.kvcache.decode_plan``) when those are available, k and
    v read in place. Works under ``torch.compile(fullgraph=True)``.
    Raises ValueError or TypeError naming a wrong shape, dtype, device,
    window or scale.

    Differentiable (bf16 and f16, head_dim 64 or 128): when autograd
    records the call (grad mode on, an input requiring a gradient) the
    kernel also computes lse, and ``backward()`` runs
    fmha.attention_backward's kernels. ``lse`` is not differentiable (as
    the log-sum-exp of PyTorch's own attention kernels). head_dim 256 and
    fp8 have no backward: such calls raise NotImplementedError when
    autograd would record them.

    FP8 (FlashAttention-3's arguments): q, k, v in ``torch.float8_e4m3fn``
    with ``descale_q``, ``descale_k``, ``descale_v`` (float32, positive, on
    q's device; all three required; each one value, 0-d or ``[1]``, or one
    per sequence and KV head, ``[batch, heads_kv]``, as FlashAttention-3
    takes them, a per-tensor one then broadcast) compute attention of
    ``q * descale_q``, ``k * descale_k``, ``v * descale_v``; o is bfloat16,
    or ``out_dtype`` (``torch.float16``), contiguous; P is rounded to e4m3
    for its product with V. Dense layout only (no decode path); V is copied
    once, transposed and permuted, before the launch (fmha.fp8_attention,
    docs/FP8Attention.md). bf16 and f16 inputs take no descales and no
    ``out_dtype``.
    """
    torch = _torch("fmha.attention")
    from . import backward, fp8_attention
    if fp8_dtype(getattr(q, "dtype", None)) is not None:
        backward.reject_grad(torch, "fmha.attention", "fp8 attention", q, k,
                             v)
        if isinstance(scale, int) and not isinstance(scale, bool):
            scale = float(scale)
        return fp8_attention.attention(torch, q, k, v, causal, window, scale,
                                       return_lse, descale_q, descale_k,
                                       descale_v, out_dtype)
    fp8_attention.reject_fp8_arguments(
        getattr(q, "dtype", type(q).__name__),
        (descale_q, descale_k, descale_v), out_dtype)
    # The op's schema takes a float scale.
    scale, window = mask_arguments(scale, window)
    if window is None or type(window) is tuple:
        # The fast path binds decode-shaped calls to the packed / split
        # kernels of fmha.attention_kvcache, reading k and v in place;
        # dense_decode takes those it declines (a CUDA graph capture).
        fast = torch_ops.attention_fast(torch, q, k, v, causal, window, scale,
                                        return_lse)
        if fast is None:
            from . import kvcache
            fast = kvcache.dense_decode(torch, q, k, v, causal, window, scale,
                                        return_lse)
        if fast is not None:
            return fast if return_lse else fast[0]
    # A call autograd records keeps lse for the backward (the op's
    # autograd formula, fmha.backward); lse is not differentiable. Eager,
    # it skips the custom op's dispatch (backward.attention_recorded).
    backward.check_grad_supported(torch, q, k, v)
    if (window is None or type(window) is tuple) and \
            backward.needs_grad(torch, q, k, v):
        recorded = backward.attention_recorded(torch, q, k, v, causal,
                                               window, scale)
        if recorded is not None:
            return recorded if return_lse else recorded[0]
    o, lse = torch.ops.fmha.attention(
        q, k, v, causal, None if window is None else list(window), scale,
        return_lse or backward.needs_grad(torch, q, k, v))
    return (o, lse) if return_lse else o
