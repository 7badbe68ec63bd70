"""PyTorch custom ops ``fmha::gemm``, ``fmha::attention``,
``fmha::attention_backward`` (fmha.backward, also fmha::attention's
autograd formula), ``fmha::attention_fp8`` (fmha.fp8_attention),
``fmha::attention_varlen`` (fmha.varlen),
``fmha::attention_varlen_backward`` (fmha.varlen_backward, also
fmha::attention_varlen's autograd formula), ``fmha::attention_kvcache``
(fmha.kvcache), ``fmha::merge_states`` (fmha.merge) and ``fmha::append_kv``
(fmha.append, which writes a KV cache in place).

:func:`register` defines them with ``torch.library.custom_op`` (each with a
fake implementation, so ``torch.compile(fullgraph=True)`` traces them
without graph breaks, and autograd formulas for the GEMM and attention).
fmha.gemm and fmha.attention call it on first use; it is harmless without PyTorch
(returns False) and when called again. It is marked as a compile-time
constant for TorchDynamo, so a first call inside ``torch.compile`` runs it
eagerly instead of tracing it.

Imports PyTorch only inside :func:`register`.
"""

import contextlib
import sys
import threading
from typing import Any, Optional

from . import ops as _ops
from . import tuning

_REGISTERED = False
_LOCK = threading.Lock()
# (a.device, b.device, a.dtype, b.dtype, out dtype, b_transposed) -> target,
# once the checks that depend on them passed.
_GEMM_CHECKED: dict = {}
# (options key, shape bucket) -> fmha.runtime.Kernel: the selected kernel.
_SELECTED: dict = {}
_TARGETS: dict = {}
_DEVICE_NAMES: dict = {}


def register() -> bool:
    """Defines the ``fmha::gemm`` and ``fmha::attention`` custom ops once.
    Returns False (and does nothing) when PyTorch cannot be imported."""
    global _REGISTERED
    if _REGISTERED:
        return True
    with _LOCK:
        if _REGISTERED:
            return True
        try:
            import torch
        except ImportError:
            return False
        _define(torch)
        _REGISTERED = True
    return True


# What torch.compiler.assume_constant_result sets, without importing torch:
# TorchDynamo then calls register() eagerly while tracing and uses its
# result as a constant (the ops must exist before the graph uses them).
register._dynamo_marked_constant = True  # type: ignore[attr-defined]


def is_registered() -> bool:
    return _REGISTERED


# -- helpers shared by the real and the fake implementations ----------------


def gemm_output(torch: Any, m: Any, n: Any, dtype: Any, device: Any) -> Any:
    """The ``[m, n]`` output of fmha::gemm: rows 16-byte aligned (a view of
    a row-padded ``[m, stride]`` buffer when ``n * itemsize`` is not a
    multiple of 16). The buffer holds every row's padding, the last one's
    too: the kernel's TMA store writes whole 16-byte pieces of a row, so
    the elements from n up to the boundary get zeros."""
    stride = _ops.padded_row_stride(n, dtype.itemsize)
    buffer = torch.empty((m, stride), dtype=dtype, device=device)
    if type(n) is int and stride == n:  # eager, rows already aligned
        return buffer
    # No branch on stride == n otherwise: under torch.compile n may be
    # symbolic.
    return buffer.as_strided((m, n), (stride, 1))


def _check_gemm(torch: Any, a: Any, b: Any, out_dtype: Any,
                b_transposed: bool = True, scale_a: Any = None,
                scale_b: Any = None, use_fast_accum: Any = None) -> Any:
    """Checks the operands (and an fp8 GEMM's scales, _check_scales, and
    accumulation, ops.accumulate_promotion); returns the output dtype."""
    b_shape = "[N, K]" if b_transposed else "[K, N]"
    if a.dim() != 2 or b.dim() != 2:
        raise ValueError(f"fmha.gemm: a must be [M, K] and b {b_shape}, got "
                         f"shapes {list(a.shape)} and {list(b.shape)}")
    fp8 = _ops.fp8_dtype(a.dtype) is not None
    if fp8:
        _check_fp8(torch, a, b, b_transposed, scale_a, scale_b)
    elif _ops.fmha_dtype(a.dtype) not in ("bf16", "f16"):
        raise TypeError(f"fmha.gemm: a must be bfloat16, float16 or fp8 "
                        f"(float8_e4m3fn, float8_e5m2), got {a.dtype}")
    elif scale_a is not None or scale_b is not None:
        raise ValueError(f"fmha.gemm: scale_a and scale_b are for fp8 a and "
                         f"b only, not {a.dtype}")
    elif b.dtype != a.dtype:
        raise TypeError(f"fmha.gemm: b has dtype {b.dtype} but a has "
                        f"{a.dtype}; they must match")
    _ops.accumulate_promotion(fp8, use_fast_accum)
    out = (torch.bfloat16 if fp8 else a.dtype) if out_dtype is None \
        else out_dtype
    if _ops.fmha_dtype(out) is None:
        raise TypeError(f"fmha.gemm: out_dtype must be bfloat16, float16 or "
                        f"float32, got {out}")
    if a.device != b.device:
        raise ValueError(f"fmha.gemm: a is on {a.device} but b on "
                         f"{b.device}")
    kb = b.shape[1] if b_transposed else b.shape[0]
    torch._check(a.shape[1] == kb, lambda: (
        f"fmha.gemm: a is [M, K] = {list(a.shape)} and b {b_shape} = "
        f"{list(b.shape)}: their K differ"))
    return out


def _scale_info(scale: Any, device: Any) -> Optional[tuple]:
    """What ops.check_fp8_gemm needs of a scale: (shape, dtype name, on
    ``device``, contiguous), or None."""
    if scale is None:
        return None
    return (tuple(scale.shape), str(scale.dtype).removeprefix("torch."),
            scale.device == device, scale.is_contiguous())


def _check_fp8(torch: Any, a: Any, b: Any, b_transposed: bool,
               scale_a: Any, scale_b: Any) -> None:
    """Checks an fp8 GEMM's operands and scales (ops.check_fp8_gemm)."""
    scale_kinds(a, b, scale_a, scale_b, b_transposed)


def scale_kinds(a: Any, b: Any, scale_a: Any, scale_b: Any,
                b_transposed: bool = True) -> tuple:
    """The kinds of an fp8 GEMM's scales, ``(scale_a, scale_b)``, after
    ops.check_fp8_gemm's checks (ValueError naming the rule broken)."""
    return _ops.check_fp8_gemm(
        str(a.dtype).removeprefix("torch."),
        str(b.dtype).removeprefix("torch."), a.shape[0], a.shape[1],
        b.shape[0] if b_transposed else b.shape[1], b_transposed,
        _scale_info(scale_a, a.device), _scale_info(scale_b, a.device))


def _scale_tensors(scale_a: Any, scale_b: Any) -> dict:
    """An fp8 GEMM's scales as the kernel takes them: 1-d views."""
    return {"scale_a": scale_a.reshape(-1), "scale_b": scale_b.reshape(-1)}


def _tma_ready(torch: Any, t: Any) -> Any:
    """``t`` itself when TMA can read it (innermost stride 1, row stride a
    multiple of 16 bytes, 16-byte aligned start), else a copy into a
    row-padded buffer."""
    size = t.element_size()
    if (t.stride(1) == 1 and (t.stride(0) * size) % 16 == 0
            and t.data_ptr() % 16 == 0):
        return t
    out = gemm_output(torch, t.shape[0], t.shape[1], t.dtype, t.device)
    out.copy_(t)
    return out


def _target(torch: Any, device: Any) -> str:
    index = device.index if device.index is not None else \
        torch.cuda.current_device()
    target = _TARGETS.get(index)
    if target is None:
        target = _TARGETS[index] = _ops.target_for_capability(
            torch.cuda.get_device_capability(index), f"cuda:{index}")
    return target


# Bound launches a helper kernel (merge_states, append_kv, V^T) keeps per
# layout before it forgets them all.
BOUND_LIMIT = 256


def remember(cache: dict, key: Any, value: Any, limit: int) -> Any:
    """Keeps ``value`` under ``key`` in ``cache``, which is emptied first
    when it holds ``limit`` entries; returns ``value``."""
    if len(cache) >= limit:
        cache.clear()
    cache[key] = value
    return value


def compiled_kernel(torch: Any, cache: dict, device: Any, key: tuple,
                    make_spec: Any) -> Any:
    """The runtime Kernel of ``make_spec(target)`` for ``device``'s target,
    compiled (or found in the kernel cache) once per ``(device, *key)``
    and kept in ``cache``."""
    kernel = cache.get((device, *key))
    if kernel is None:
        from .compiler import compile
        kernel = cache[(device, *key)] = compile(
            make_spec(_target(torch, device))).kernel
    return kernel


# Scratch tensors of kernels (split-K's workspace and tile counters,
# docs/KernelSelection.md), per (device, stream, dtype, role): one buffer
# each, grown when a call needs more. A kernel's launches on one stream run
# in order, so they can share one workspace, and the counters, which every
# launch leaves zeroed, are zeroed once, when allocated; launches on two
# streams use two sets, so they may run at once. A launch captured into a
# CUDA graph gets buffers of its own (allocated in the graph's memory pool,
# the counters zeroed as a node of the graph): a replay must not share
# them with eager launches or with another graph; they are kept for the
# life of the process (a graph may be replayed as long as it exists, and
# memory freed during a capture would go to the capture's later
# allocations), one set per captured launch.
_SCRATCH: dict = {}
_CAPTURED: list = []
# Bumped whenever a buffer of _SCRATCH is replaced, so that addresses
# remembered by scratch_pointers' callers are known stale.
_SCRATCH_GENERATION = [0]
_SCRATCH_LOCK = threading.Lock()


_SCRATCH_DTYPES = {"f32": "float32", "i32": "int32", "bf16": "bfloat16",
                   "f16": "float16"}


def _scratch_buffer(torch: Any, device: Any, stream: int, name: str,
                    role: str, dtype: str, numel: int,
                    capturing: bool) -> Any:
    """A 1-d buffer of at least ``numel`` elements for scratch tensor
    ``name`` (zeros for role ``zeroed``), see _SCRATCH."""
    torch_dtype = getattr(torch, _SCRATCH_DTYPES[dtype])
    make = torch.zeros if role == "zeroed" else torch.empty
    if capturing:
        buffer = make(numel, dtype=torch_dtype, device=device)
        with _SCRATCH_LOCK:
            _CAPTURED.append(buffer)
        return buffer
    key = (device, stream, name, role, dtype)
    with _SCRATCH_LOCK:
        buffer = _SCRATCH.get(key)
        if buffer is None or buffer.numel() < numel:
            # Half as much again as asked, so that growing shapes
            # reallocate rarely.
            buffer = make(numel + numel // 2, dtype=torch_dtype,
                          device=device)
            _SCRATCH[key] = buffer
            _SCRATCH_GENERATION[0] += 1
    return buffer


def scratch_tensors(torch: Any, specs: dict, device: Any,
                    stream: int) -> dict:
    """The scratch tensors ``specs`` (Kernel.scratch_shapes) on ``device``
    for launches on raw stream handle ``stream``: ``{name: tensor}``."""
    capturing = bool(specs) and torch.cuda.is_current_stream_capturing()
    tensors = {}
    for name, (shape, role, dtype) in specs.items():
        numel = 1
        for size in shape:
            numel *= size
        buffer = _scratch_buffer(torch, device, stream, name, role, dtype,
                                 numel, capturing)
        tensors[name] = buffer[:numel].view(shape)
    return tensors


def scratch_pointers(torch: Any, specs: dict, device: Any,
                     stream: int, memo: Optional[dict] = None) -> tuple:
    """The addresses of the scratch tensors ``specs`` (as scratch_tensors,
    without building views: the fast path's). ``memo`` (a bound launch's
    dict) remembers them per stream until a buffer is replaced; not while
    a CUDA graph is being captured (each capture gets its own)."""
    capturing = torch.cuda.is_current_stream_capturing()
    if memo is not None and not capturing:
        known = memo.get(stream)
        if known is not None and known[0] == _SCRATCH_GENERATION[0]:
            return known[1]
    ptrs = []
    for name, (shape, role, dtype) in specs.items():
        numel = 1
        for size in shape:
            numel *= size
        ptrs.append(_scratch_buffer(torch, device, stream, name, role, dtype,
                                    numel, capturing).data_ptr())
    ptrs = tuple(ptrs)
    if memo is not None and not capturing:
        memo[stream] = (_SCRATCH_GENERATION[0], ptrs)
    return ptrs


def bind_with_scratch(torch: Any, kernel: Any, tensors: dict, scratch: dict,
                      names: tuple, device: Any, stream: int,
                      sizes: Optional[dict] = None) -> Any:
    """A bound launch (Kernel.bind) of ``kernel`` for the caller's
    ``tensors`` and the ``scratch`` tensors of its manifest
    (Kernel.scratch_shapes, from the per-stream pool), with the caller's
    ``sizes``; it records which of ``names`` (the caller's tensors, in the
    order run_with_scratch gets them) the kernel takes."""
    tensors = dict(tensors)
    tensors.update(scratch_tensors(torch, scratch, device, stream))
    order = tuple(tensors)
    tensors.update(sizes or {})
    bound = kernel.bind(tensors, order=order)
    bound.takes = tuple(i for i, n in enumerate(names)
                        if n in kernel.manifest.tensors)
    bound.scratch = scratch or None
    bound.scratch_memo = {}
    return bound


def run_with_scratch(torch: Any, bound: Any, tensors: tuple, device: Any,
                     stream: int) -> None:
    """Runs a launch of bind_with_scratch on ``tensors`` (the caller's, in
    its ``names`` order) and the pool's scratch tensors."""
    ptrs = tuple(tensors[i].data_ptr() for i in bound.takes)
    if bound.scratch is not None:
        ptrs += scratch_pointers(torch, bound.scratch, device, stream,
                                 bound.scratch_memo)
    bound.run(ptrs, stream)


def _gemm_kernel(torch: Any, a: Any, b: Any, out: Any,
                 b_transposed: bool = True, scratch: bool = True,
                 scale_a: Any = None, scale_b: Any = None,
                 promote: bool = False) -> Any:
    """The runtime Kernel for these operands: checks what depends only on
    dtypes and devices once per (devices, dtypes), then selects the
    configuration for the shape (fmha.tuning) and compiles it or finds it
    in the cache, once per shape bucket. ``scratch=False``: a kernel
    without scratch tensors (a split-K configuration runs unsplit). fp8:
    the scales (checked by the caller) pick the kernel's scale kinds, and
    ``promote`` a kernel with accumulate promotion (a category of its
    own)."""
    key = (a.device, b.device, a.dtype, b.dtype, out, b_transposed, promote)
    kinds = (None, None)
    if scale_a is not None:
        kinds = scale_kinds(a, b, scale_a, scale_b)
        key += kinds
    if key not in _GEMM_CHECKED:
        _check_gemm(torch, a, b, out, b_transposed, scale_a, scale_b)
        if a.device.type != "cuda":
            raise ValueError(f"fmha.gemm needs CUDA tensors, got "
                             f"{a.device}")
        _GEMM_CHECKED[key] = _target(torch, a.device)
    target = _GEMM_CHECKED[key]
    m, k = a.shape
    n = b.shape[0] if b_transposed else b.shape[1]
    fp8 = scale_a is not None
    category, sizes = tuning.gemm_problem(m, n, k, fp8=fp8, promote=promote,
                                          b_kn=not b_transposed)
    if fp8:
        dtype, b_dtype = _ops.fp8_dtype(a.dtype), _ops.fp8_dtype(b.dtype)
    else:
        dtype, b_dtype = _ops.fmha_dtype(a.dtype), None
    out_name = _ops.fmha_dtype(out)

    def make_spec(config: dict) -> Any:
        if not scratch:
            config = {k: v for k, v in config.items() if k != "splits"}
        return _ops.gemm_spec(dtype, out_name, target, config,
                              b_transposed=b_transposed, b_dtype=b_dtype,
                              scale_a=kinds[0], scale_b=kinds[1],
                              promote=promote)

    def run(kernel: Any) -> Any:
        c = gemm_output(torch, m, n, out, a.device)
        tensors = {"a": a, "b": b, "c": c}
        if fp8:
            tensors.update(_scale_tensors(scale_a, scale_b))
        tensors.update(scratch_tensors(
            torch,
            kernel.scratch_shapes({n: t.shape for n, t in tensors.items()}),
            a.device, torch.cuda.current_stream(a.device).cuda_stream))
        return lambda: kernel.launch(tensors)

    options = key if scratch else key + ("no scratch",)
    return _select(torch, a.device, options, category, sizes, make_spec,
                   tuning.gemm_candidates(fp8, promote), run)


def _device_name(torch: Any, device: Any) -> str:
    index = device.index if device.index is not None else \
        torch.cuda.current_device()
    name = _DEVICE_NAMES.get(index)
    if name is None:
        name = _DEVICE_NAMES[index] = torch.cuda.get_device_name(index)
    return name


def _select(torch: Any, device: Any, options: tuple, category: tuple,
            sizes: tuple, make_spec: Any, candidates: tuple,
            run: Any) -> Any:
    """The kernel for a problem, memoized per options and shape bucket:
    the autotuner's recorded winner, else the tuning table's nearest shape,
    else the defaults (fmha.tuning.choose). With FMHA_AUTOTUNE=1 an
    unrecorded bucket is tuned first (not while a CUDA graph is being
    captured). A selected configuration that does not compile (or is not
    in a compiler-less cache) falls back to the winners of the next nearest
    measured shapes, then to the defaults."""
    memo = (options, tuning.bucket(sizes))
    kernel = _SELECTED.get(memo)
    if kernel is not None:
        return kernel
    from .cache import cache_dir
    from .compiler import CompileError, compile, stderr_progress
    record = tuning.record(_device_name(torch, device), cache_dir())
    config = tuning.choose(category, sizes, record)
    if tuning.autotune_enabled() and record.get(category, sizes) is None \
            and not torch.cuda.is_current_stream_capturing():
        config, _ = tuning.tune(
            candidates, lambda c: compile(make_spec(c)).kernel, run, torch,
            progress=stderr_progress,
            what=f"{category} {tuple(sizes)}")
        record.put(category, sizes, config)
    fallbacks = [c for c in tuning.table().by_distance(category, sizes)
                 if c and c != config]
    for choice in (config, *fallbacks, {}):
        try:
            kernel = compile(make_spec(choice)).kernel
            break
        except CompileError:
            if not choice:
                raise
            if tuning.verbose():
                print(f"fmha: configuration {choice} of {category} does not "
                      "compile here; trying the next", file=sys.stderr)
    _SELECTED[memo] = kernel
    return kernel


def gemm_impl(a: Any, b: Any, out_dtype: Any = None,
              b_transposed: bool = True, scale_a: Any = None,
              scale_b: Any = None, use_fast_accum: Any = None) -> Any:
    """The real implementation of fmha::gemm (CUDA tensors)."""
    import torch
    fp8 = _ops.fp8_dtype(a.dtype) is not None
    if scale_a is not None or scale_b is not None or fp8 or \
            use_fast_accum is not None:
        # fp8: the scales' checks depend on the shapes, so every call.
        out = _check_gemm(torch, a, b, out_dtype, b_transposed, scale_a,
                          scale_b, use_fast_accum)
    else:
        out = a.dtype if out_dtype is None else out_dtype
        kb = b.shape[1] if b_transposed else b.shape[0]
        if a.dim() != 2 or b.dim() != 2 or a.shape[1] != kb:
            _check_gemm(torch, a, b, out, b_transposed)  # raises, naming it
    promote = _ops.accumulate_promotion(fp8, use_fast_accum)
    m, n = a.shape[0], (b.shape[0] if b_transposed else b.shape[1])
    c = gemm_output(torch, m, n, out, a.device)
    if m == 0 or n == 0:
        _check_gemm(torch, a, b, out, b_transposed, scale_a, scale_b)
        return c
    if a.shape[1] == 0:
        _check_gemm(torch, a, b, out, b_transposed, scale_a, scale_b)
        return c.zero_()
    with _on_device(torch, a.device):
        a, b = _tma_ready(torch, a), _tma_ready(torch, b)
        # No scratch tensors through the custom op (torch.compile, autograd):
        # torch.compile's CUDA graphs allocate even their warm-up runs from
        # the graph's pool and refuse pool memory that no output holds, as
        # a workspace kept across calls is. Split-K runs on the eager path.
        kernel = _gemm_kernel(torch, a, b, out, b_transposed, scratch=False,
                              scale_a=scale_a, scale_b=scale_b,
                              promote=promote)
        tensors = {"a": a, "b": b, "c": c}
        if scale_a is not None:
            tensors.update(_scale_tensors(scale_a, scale_b))
        tensors.update(scratch_tensors(
            torch,
            kernel.scratch_shapes({n: t.shape for n, t in tensors.items()}),
            a.device, torch.cuda.current_stream(a.device).cuda_stream))
        kernel.launch(tensors)
    return c


def _on_device(torch: Any, device: Any) -> Any:
    """``torch.cuda.device(device)`` when it is not the current device, else
    a context that does nothing."""
    if device.type == "cuda" and device.index is not None and \
            device.index != torch.cuda.current_device():
        return torch.cuda.device(device)
    return contextlib.nullcontext()


def size_checker(torch: Any) -> Any:
    """check(cond, message): a ValueError with ``message()`` when the
    relation between sizes ``cond`` is a false bool, else torch._check (the
    sizes may be symbolic under torch.compile)."""
    def check(cond: Any, message: Any) -> None:
        if isinstance(cond, bool):
            if not cond:
                raise ValueError(message())
        else:
            torch._check(cond, message)
    return check


def _check_attention(torch: Any, q: Any, k: Any, v: Any, causal: bool,
                     window: Optional[list], scale: Optional[float]) -> None:
    """fmha.ops.check_attention_args on the tensors; relations between
    sizes through torch._check (sizes may be symbolic under
    torch.compile)."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"fmha.attention: {name} must be a torch.Tensor, "
                            f"got {type(t).__name__}")

    check = size_checker(torch)

    _ops.check_attention_args(
        tuple(q.shape), tuple(k.shape), tuple(v.shape),
        tuple(_ops.fmha_dtype(t.dtype) for t in (q, k, v)), causal, window,
        scale, check)
    if not (q.device == k.device == v.device):
        raise ValueError(f"fmha.attention: q, k, v must be on one device, "
                         f"got {q.device}, {k.device}, {v.device}")


def _attention_outputs(torch: Any, q: Any, return_lse: bool) -> tuple:
    """``o`` (laid out as q where q is dense, else contiguous) and ``lse``
    (``[batch, heads_q, seq_q]`` f32, contiguous; ``[0]`` without
    ``return_lse``)."""
    o = (torch.empty_like(q, memory_format=torch.preserve_format)
         if _tma_layout(q) else
         torch.empty(q.shape, dtype=q.dtype, device=q.device))
    lse_shape = tuple(q.shape[:3]) if return_lse else (0,)
    lse = torch.empty(lse_shape, dtype=torch.float32, device=q.device)
    return o, lse


def _tma_ready_nd(t: Any) -> Any:
    """``t`` itself when TMA can read it (innermost stride 1, other strides
    multiples of 16 bytes, 16-byte aligned start), else a contiguous copy
    (a fresh allocation, so aligned)."""
    size = t.element_size()
    if (t.stride(-1) == 1 and t.data_ptr() % 16 == 0
            and all((s * size) % 16 == 0 for s in t.stride()[:-1])):
        return t
    out = t.new_empty(t.shape)
    out.copy_(t)
    return out


def attention_spec(q: Any, k: Any, causal: bool, window: Optional[list],
                   scale: Optional[float], return_lse: bool,
                   target: str) -> Any:
    """The AttentionSpec a call compiles (fmha.ops.attention_spec): static
    head_dim, dynamic batch, heads and sequence lengths."""
    return _ops.attention_spec(
        _ops.fmha_dtype(q.dtype), int(q.shape[3]), causal,
        None if window is None else tuple(window), scale, return_lse, target)


def _attention_kernel(torch: Any, q: Any, k: Any, v: Any, causal: bool,
                      window: Optional[list], scale: Optional[float],
                      return_lse: bool) -> Any:
    """The runtime Kernel of a call: the configuration selected for its
    shape (fmha.tuning), compiled or found in the cache on first use of
    its shape bucket."""
    target = _target(torch, q.device)
    dtype = _ops.fmha_dtype(q.dtype)
    head_dim = int(q.shape[3])
    wkey = None if window is None else tuple(window)
    batch, heads, seq_q, _ = q.shape
    seq_k = k.shape[2]
    category, sizes = tuning.attention_problem(
        head_dim, causal or window is not None, batch * heads, seq_q, seq_k)

    def make_spec(config: dict) -> Any:
        return _ops.attention_spec(dtype, head_dim, causal, wkey, scale,
                                   return_lse, target, config)

    def run(kernel: Any) -> Any:
        o, lse = _attention_outputs(torch, q, return_lse)
        tensors = {"q": _tma_ready_nd(q), "k": _tma_ready_nd(k),
                   "v": _tma_ready_nd(v), "o": o}
        if return_lse:
            tensors["lse"] = lse
        return lambda: kernel.launch(tensors)

    key = (q.device, q.dtype, head_dim, causal, wkey, scale, return_lse)
    return _select(torch, q.device, key, category, sizes, make_spec,
                   tuning.attention_candidates(head_dim), run)


def attention_impl(q: Any, k: Any, v: Any, causal: bool,
                   window: Optional[list], scale: Optional[float],
                   return_lse: bool) -> tuple:
    """The real implementation of fmha::attention (CUDA tensors)."""
    import torch
    _check_attention(torch, q, k, v, causal, window, scale)
    if q.device.type != "cuda":
        raise ValueError(f"fmha.attention needs CUDA tensors, got "
                         f"{q.device}")
    o, lse = _attention_outputs(torch, q, return_lse)
    batch, heads, seq_q, _ = q.shape
    if batch == 0 or heads == 0 or seq_q == 0:
        return o, lse
    if k.shape[2] == 0:
        # No keys: every row sees none (a tensor map cannot be empty).
        o.zero_()
        lse.fill_(float("-inf"))
        return o, lse
    tensors = {"q": _tma_ready_nd(q), "k": _tma_ready_nd(k),
               "v": _tma_ready_nd(v), "o": o}
    if return_lse:
        tensors["lse"] = lse
    with _on_device(torch, q.device):
        kernel = _attention_kernel(torch, q, k, v, causal, window, scale,
                                   return_lse)
        kernel.launch(tensors)
    return o, lse


# -- the eager fast path ------------------------------------------------------
#
# fmha.gemm and fmha.attention called eagerly (not traced by torch.compile,
# no gradient needed) skip the custom op's dispatch: the first call of a
# layout (shapes, strides, dtypes, devices, options) runs every check,
# selects and loads the kernel and binds a launch (fmha.runtime.BoundLaunch);
# later calls of that layout only check the addresses' alignment and the
# current device, allocate the output and launch, rewriting the addresses
# that moved. Anything else (tracing, autograd, tensor subclasses, empty or
# misaligned tensors) takes the custom op, which checks and reports errors.

_FAST: dict = {}
_FAST_LIMIT = 1024
_FAST_STATE: dict = {}


def _fast_env(torch: Any) -> tuple:
    """(Tensor class, is_compiling, is_grad_enabled, current device,
    raw current stream) of this PyTorch, looked up once."""
    env = _FAST_STATE.get("env")
    if env is None:
        env = _FAST_STATE["env"] = (
            torch.Tensor, torch.compiler.is_compiling,
            torch.is_grad_enabled, torch._C._cuda_getDevice,
            torch._C._cuda_getCurrentRawStream)
    return env


def _remember(key: tuple, bound: Any) -> None:
    remember(_FAST, key, bound, _FAST_LIMIT)


def _tma_layout(t: Any) -> bool:
    """Whether TMA reads ``t`` in place (strides; the address is checked
    per call)."""
    size = t.element_size()
    strides = t.stride()
    return strides[-1] == 1 and all((st * size) % 16 == 0
                                    for st in strides[:-1])


def gemm_fast(torch: Any, a: Any, b: Any, out_dtype: Any,
              b_transposed: bool, scale_a: Any = None,
              scale_b: Any = None, use_fast_accum: Any = None) -> Any:
    """fmha.gemm's eager fast path: the result, or None when the call must
    go through the custom op."""
    tensor, compiling, grad, get_device, raw_stream = _fast_env(torch)
    if type(a) is not tensor or type(b) is not tensor or compiling():
        return None
    if grad() and (a.requires_grad or b.requires_grad):
        return None
    scaled = scale_a is not None and scale_b is not None
    if scaled:
        if type(scale_a) is not tensor or type(scale_b) is not tensor:
            return None
        key = ("gemm", a.shape, a.stride(), b.shape, b.stride(), a.dtype,
               b.dtype, out_dtype, a.device, b.device, b_transposed,
               scale_a.shape, scale_a.stride(), scale_a.dtype,
               scale_a.device, scale_b.shape, scale_b.stride(),
               scale_b.dtype, scale_b.device, use_fast_accum)
    elif scale_a is not None or scale_b is not None or \
            use_fast_accum is not None:
        return None  # the custom op names the missing scale
    else:
        key = ("gemm", a.shape, a.stride(), b.shape, b.stride(), a.dtype,
               b.dtype, out_dtype, a.device, b.device, b_transposed)
    device = a.device
    bound = _FAST.get(key)
    if bound is None:
        if (a.dim() != 2 or b.dim() != 2 or device.type != "cuda"
                or b.device != device or 0 in a.shape or 0 in b.shape
                or not _tma_layout(a) or not _tma_layout(b)
                or (a.dtype != b.dtype and not scaled)
                or device.index != get_device()):
            return None
        out = _check_gemm(torch, a, b, out_dtype, b_transposed, scale_a,
                          scale_b, use_fast_accum)
        if (a.data_ptr() | b.data_ptr()) & 15:
            return None
        m = a.shape[0]
        n = b.shape[0] if b_transposed else b.shape[1]
        c = gemm_output(torch, m, n, out, device)
        kernel = _gemm_kernel(
            torch, a, b, out, b_transposed, scale_a=scale_a, scale_b=scale_b,
            promote=_ops.accumulate_promotion(scaled, use_fast_accum))
        tensors = {"a": a, "b": b, "c": c}
        if scaled:
            tensors.update(_scale_tensors(scale_a, scale_b))
        specs = kernel.scratch_shapes({n: t.shape for n, t in
                                       tensors.items()})
        tensors.update(scratch_tensors(torch, specs, device,
                                       raw_stream(device.index)))
        # a, b, c (and the scales), then the scratch tensors in order.
        bound = kernel.bind(tensors, order=tuple(tensors))
        bound.out = out
        # A kernel with scratch tensors takes them per stream (and per
        # graph capture): each call looks them up.
        bound.scratch = specs or None
        bound.scratch_memo = {}
        _remember(key, bound)
    else:
        m = a.shape[0]
        n = b.shape[0] if b_transposed else b.shape[1]
        if device.index != get_device():
            return None
        c = gemm_output(torch, m, n, bound.out, device)
    pa, pb = a.data_ptr(), b.data_ptr()
    if (pa | pb) & 15:
        return None
    ptrs = (pa, pb, c.data_ptr())
    if scaled:
        ptrs += (scale_a.data_ptr(), scale_b.data_ptr())
    stream = raw_stream(device.index)
    if bound.scratch is None:
        bound.run(ptrs, stream)
        return c
    bound.run(ptrs + scratch_pointers(torch, bound.scratch, device, stream,
                                      bound.scratch_memo),
              stream)
    return c


def attention_fast(torch: Any, q: Any, k: Any, v: Any, causal: bool,
                   window: Optional[tuple], scale: Optional[float],
                   return_lse: bool) -> Any:
    """fmha.attention's eager fast path: ``(o, lse)``, or None when the
    call must go through the custom op."""
    tensor, compiling, grad, get_device, raw_stream = _fast_env(torch)
    if (type(q) is not tensor or type(k) is not tensor
            or type(v) is not tensor or compiling()):
        return None
    if grad() and (q.requires_grad or k.requires_grad or v.requires_grad):
        return None
    device = q.device
    key = ("attention", q.shape, q.stride(), k.shape, k.stride(), v.shape,
           v.stride(), q.dtype, k.dtype, v.dtype, device, k.device,
           v.device, causal, window, scale, return_lse)
    bound = _FAST.get(key)
    if bound is None:
        if (q.dim() != 4 or k.dim() != 4 or device.type != "cuda"
                or 0 in q.shape or 0 in k.shape
                or not (_tma_layout(q) and _tma_layout(k)
                        and _tma_layout(v))
                or device.index != get_device()):
            return None
        _check_attention(torch, q, k, v, causal,
                         None if window is None else list(window), scale)
        if (q.data_ptr() | k.data_ptr() | v.data_ptr()) & 15:
            return None
        # Decode-shaped calls bind fmha.attention_kvcache's decode kernels.
        from . import kvcache
        bound = kvcache.bind_dense_decode(torch, q, k, v, causal, window,
                                          scale, return_lse, device,
                                          raw_stream(device.index))
        if bound is None:
            if q.shape[2] <= kvcache.PACK_MAX_SEQ_Q and \
                    torch.cuda.is_current_stream_capturing():
                return None  # kvcache.dense_decode's path
            o, lse = _attention_outputs(torch, q, return_lse)
            kernel = _attention_kernel(torch, q, k, v, causal, window, scale,
                                       return_lse)
            tensors = {"q": q, "k": k, "v": v, "o": o}
            if return_lse:
                tensors["lse"] = lse
            bound = kernel.bind(tensors, order=tuple(tensors))
            bound.lengths = None
        _remember(key, bound)
    elif device.index != get_device():
        return None
    pq, pk, pv = q.data_ptr(), k.data_ptr(), v.data_ptr()
    if (pq | pk | pv) & 15:
        return None
    if bound.lengths is not None:
        from . import kvcache
        return kvcache.run_dense_decode(torch, bound, q, (pq, pk, pv),
                                        return_lse, device,
                                        raw_stream(device.index))
    o = torch.empty_like(q, memory_format=torch.preserve_format)
    if return_lse:
        lse = torch.empty(q.shape[:3], dtype=torch.float32, device=device)
        bound.run((pq, pk, pv, o.data_ptr(), lse.data_ptr()),
                  raw_stream(device.index))
        return o, lse
    bound.run((pq, pk, pv, o.data_ptr()), raw_stream(device.index))
    return o, None


# -- registration -----------------------------------------------------------


def _define(torch: Any) -> None:
    Tensor = torch.Tensor

    @torch.library.custom_op("fmha::gemm", mutates_args=())
    def gemm(a: Tensor, b: Tensor, out_dtype: Optional[torch.dtype] = None,
             b_transposed: bool = True, scale_a: Optional[Tensor] = None,
             scale_b: Optional[Tensor] = None,
             use_fast_accum: Optional[bool] = None) -> Tensor:
        return gemm_impl(a, b, out_dtype, b_transposed, scale_a, scale_b,
                         use_fast_accum)

    @gemm.register_fake
    def _(a, b, out_dtype=None, b_transposed=True, scale_a=None,
          scale_b=None, use_fast_accum=None):
        out = _check_gemm(torch, a, b, out_dtype, b_transposed, scale_a,
                          scale_b, use_fast_accum)
        n = b.shape[0] if b_transposed else b.shape[1]
        return gemm_output(torch, a.shape[0], n, out, a.device)

    def setup_context(ctx, inputs, output):
        a, b, _, b_transposed, scale_a = inputs[:5]
        ctx.b_transposed = b_transposed
        ctx.scaled = scale_a is not None
        ctx.save_for_backward(a, b)

    def backward(ctx, grad):
        # C = A B^T (or A B): dA = dC B (or dC B^T), dB = dC^T A (or
        # A^T dC), through PyTorch's matmul.
        if ctx.scaled:
            raise RuntimeError("fmha.gemm: fp8 GEMMs have no backward")
        a, b = ctx.saved_tensors
        grad = grad.to(a.dtype)
        bt = b if ctx.b_transposed else b.t()
        da = grad @ bt if ctx.needs_input_grad[0] else None
        db = None
        if ctx.needs_input_grad[1]:
            db = grad.t() @ a if ctx.b_transposed else a.t() @ grad
        return da, db, None, None, None, None, None

    gemm.register_autograd(backward, setup_context=setup_context)

    @torch.library.custom_op("fmha::attention", mutates_args=())
    def attention(q: Tensor, k: Tensor, v: Tensor, causal: bool,
                  window: Optional[list[int]], scale: Optional[float],
                  return_lse: bool) -> tuple[Tensor, Tensor]:
        return attention_impl(q, k, v, causal, window, scale, return_lse)

    @attention.register_fake
    def _(q, k, v, causal, window, scale, return_lse):
        _check_attention(torch, q, k, v, causal, window, scale)
        return _attention_outputs(torch, q, return_lse)

    from . import (append, backward, fp8_attention, kvcache, merge, varlen,
                   varlen_backward)
    backward.define(torch)
    backward.register_autograd(torch, attention)
    fp8_attention.define(torch)
    varlen_op = varlen.define(torch)
    varlen_backward.define(torch)
    varlen_backward.register_autograd(torch, varlen_op)
    kvcache.define(torch)
    merge.define(torch)
    append.define(torch)
