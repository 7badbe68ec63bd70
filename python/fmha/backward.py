"""``fmha.attention_backward`` and the autograd formula of ``fmha.attention``
(docs/Backward.md).

One compiled kernel (``fmha.attention_backward``'s op: a manifest of
several launches, docs/Manifest.md) computes ``dq``, ``dk`` and ``dv`` of a
dense attention from ``q``, ``k``, ``v``, the forward's ``o`` and ``lse``
and the upstream gradient ``do``. Its scratch tensors (``d_lse``: D and
lse * log2(e) per query row, which the first launch writes and the later
ones read) are allocated here: per call through the custom op
``fmha::attention_backward`` (torch.compile's CUDA graphs refuse memory
kept across calls), per stream on the eager fast path (a bound launch, as
fmha.gemm's split-K workspace).

:func:`register_autograd` makes ``fmha::attention`` differentiable: its
forward saves q, k, v, o and lse (fmha.attention asks the kernel for lse
when a gradient is needed), its backward calls the fast path or the custom
op. ``lse`` is a non-differentiable output, as the log-sum-exp of PyTorch's
own SDPA kernels. Eager calls that autograd records take a
torch.autograd.Function over the bound launches instead
(:func:`attention_recorded`), with the same backward (:func:`gradients`).

Imports PyTorch only inside functions.
"""


from typing import Any, Optional

from . import ops as _ops
from .specs import ATTENTION_BACKWARD_HEAD_DIMS, AttentionBackwardSpec

WHAT = "fmha.attention_backward"
# (device, dtype, head dim, causal, window, scale) -> fmha.runtime.Kernel.
_KERNELS: dict = {}
# The eager fast path's bound launches, by layout and options.
_BOUND: dict = {}
_BOUND_LIMIT = 1024
# The caller's tensors of the kernel, in the order the bound launches take
# their addresses (the scratch tensors follow, in manifest order).
_TENSORS = ("q", "k", "v", "o", "do", "lse", "dq", "dk", "dv")


# The head dims whose backward computes dq in the dK/dV kernel
# (``fused_dq``) unless the call is deterministic, and the fewest keys from
# which it does: where that measured faster than dq by a kernel of its own
# (bench/RESULTS.md, 2026-11-29: 1.01-1.07x at head dim 64; at head dim
# 128, with FlashAttention-3's split of dQ's columns, 1.07-1.12x from 2k
# keys and 1.03-1.10x at 1k; at 512 the two forms are within 2%, the
# fused one the slower with a causal mask).
FUSED_DQ_MIN_KEYS = {64: 0, 128: 1024}


def fuses_dq(head_dim: int, seq_k: Optional[int], deterministic: bool,
             varlen: bool) -> bool:
    """Whether the backward of these options computes dq in the dK/dV
    kernel (FUSED_DQ_MIN_KEYS; ``seq_k`` None: unknown, only where the
    head dim fuses at any length). Never when deterministic or varlen."""
    least = FUSED_DQ_MIN_KEYS.get(head_dim)
    if deterministic or varlen or least is None:
        return False
    return least == 0 if seq_k is None else seq_k >= least


def backward_spec(dtype: str, head_dim: int, causal: bool = False,
                  window: Optional[tuple] = None,
                  scale: Optional[float] = None,
                  target: str = "sm_90a",
                  deterministic: bool = False,
                  varlen: bool = False,
                  seq_k: Optional[int] = None) -> AttentionBackwardSpec:
    """The spec fmha.attention_backward compiles: batch, heads and
    sequence lengths dynamic, the compiler's tile; dQ computed in the
    dK/dV kernel and added into an f32 scratch (``fused_dq``) where
    FUSED_DQ_MIN_KEYS says (by head dim and ``seq_k``, the keys of the
    call), otherwise or when ``deterministic`` by a kernel of its own (the
    same bits from run to run). A scale that rounds to the default
    ``1/sqrt(head_dim)`` in float32 is the default (one kernel, whoever
    spells it). ``varlen``: fmha.attention_varlen_backward's, whose dQ
    always has a kernel of its own."""
    if scale is not None and _ops._same_f32(scale, head_dim ** -0.5):
        scale = None
    return AttentionBackwardSpec(
        dtype=dtype, head_dim=head_dim, causal=causal,
        window=None if window is None else tuple(window), scale=scale,
        fused_dq=fuses_dq(head_dim, seq_k, deterministic, varlen),
        target=target, varlen=varlen)


def resolve_deterministic(torch: Any, deterministic: Optional[bool]) -> bool:
    """``deterministic`` as given, or (None) PyTorch's global setting,
    ``torch.use_deterministic_algorithms``."""
    if deterministic is None:
        return bool(torch.are_deterministic_algorithms_enabled())
    if not isinstance(deterministic, bool):
        raise TypeError(f"{WHAT}: deterministic must be a bool or None, got "
                        f"{deterministic!r}")
    return deterministic


def backward_kernel_specs(dtype: str, head_dim: int, causal: bool = False,
                          window: Optional[tuple] = None,
                          scale: Optional[float] = None,
                          target: str = "sm_90a",
                          varlen: bool = False) -> list:
    """Every spec fmha.attention_backward (``varlen``:
    fmha.attention_varlen_backward) may compile for these options
    (deterministic or not): what a cache must hold for a machine without a
    compiler."""
    return list(dict.fromkeys(
        backward_spec(dtype, head_dim, causal, window, scale, target,
                      deterministic, varlen, seq_k)
        for deterministic in (False, True) for seq_k in (1, 1 << 30)))


def check_like_q(what: str, shapes: dict, dtypes: dict, layout: str,
                 check: Any) -> None:
    """Checks that o and do have q's shape (``layout`` names its
    dimensions, for the message) and dtype: ValueError or TypeError, sizes
    through ``check(cond, message)``."""
    q = shapes["q"]
    for name in ("o", "do"):
        if len(shapes[name]) != len(q):
            raise ValueError(f"{what}: {name} must be [{layout}] as q, got "
                             f"shape {list(shapes[name])}")
        check(all(a == b for a, b in zip(shapes[name], q)), lambda n=name: (
            f"{what}: {n} must have q's shape {list(q)}, got "
            f"{list(shapes[n])}"))
        if dtypes[name] != dtypes["q"]:
            raise TypeError(f"{what}: {name} must have q's dtype "
                            f"{dtypes['q']}, got "
                            f"{dtypes[name] or 'another type'}")


def check_backward_input(what: str, dtype: str, q: tuple, rank: int) -> None:
    """The checks every backward entry point makes first: q's dtype (fp8
    has no backward: TypeError) and, when q has ``rank`` dimensions, its
    head dim (the last) one with a backward (ValueError)."""
    if dtype in _ops.FP8_DTYPES:
        raise TypeError(f"{what}: fp8 attention has no backward (q is "
                        f"{dtype}); train in bfloat16 or float16")
    if len(q) == rank and q[-1] not in ATTENTION_BACKWARD_HEAD_DIMS:
        raise ValueError(
            f"{what}: head_dim must be "
            f"{' or '.join(map(str, ATTENTION_BACKWARD_HEAD_DIMS))} (256 "
            f"has no backward yet, docs/Backward.md), got {q[-1]}")


def check_backward_args(shapes: dict, dtypes: dict, causal: bool = False,
                        window: Optional[Any] = None,
                        scale: Optional[float] = None,
                        check: Any = _ops._require) -> None:
    """Checks fmha.attention_backward's arguments from their ``shapes`` and
    dtype names (``dtypes``; fmha's names, ``f8e4m3`` for fp8, None for
    another type), by tensor name (q, k, v, o, do, lse), naming the
    mistake: ValueError (shapes, head dim, window, scale) or TypeError
    (dtypes). Relations between sizes go through ``check(cond,
    message)``."""
    q, k, v = shapes["q"], shapes["k"], shapes["v"]
    check_backward_input(WHAT, dtypes["q"], q, rank=4)
    _ops.check_attention_args(
        q, k, v, (dtypes["q"], dtypes["k"], dtypes["v"]), causal, window,
        scale, check)
    check_like_q(WHAT, shapes, dtypes, "batch, heads_q, seq_q, head_dim",
                 check)
    lse = shapes["lse"]
    if len(lse) != 3:
        raise ValueError(f"{WHAT}: lse must be [batch, heads_q, seq_q] (the "
                         f"forward's, return_lse=True), got shape "
                         f"{list(lse)}")
    check(lse[0] == q[0] and lse[1] == q[1] and lse[2] == q[2], lambda: (
        f"{WHAT}: lse must be [batch, heads_q, seq_q] = {list(q[:3])}, got "
        f"{list(lse)}"))
    if dtypes["lse"] != "f32":
        raise TypeError(f"{WHAT}: lse must be float32 (the forward's), got "
                        f"{dtypes['lse'] or 'another type'}")


def _names(torch: Any, tensors: dict) -> dict:
    return {n: (_ops.fmha_dtype(t.dtype) or _ops.fp8_dtype(t.dtype))
            for n, t in tensors.items()}


def check_tensors(torch: Any, tensors: dict, causal: bool,
                  window: Optional[list], scale: Optional[float]) -> None:
    """check_backward_args on the tensors (q, k, v, o, do, lse by name),
    their types and one device; sizes through torch._check where they
    may be symbolic (torch.compile)."""
    from .torch_ops import size_checker
    _ops.check_tensor_types(torch, WHAT, list(tensors.items()))
    check_backward_args({n: tuple(t.shape) for n, t in tensors.items()},
                        _names(torch, tensors), causal, window, scale,
                        size_checker(torch))
    _ops.check_one_device(WHAT, list(tensors.items()))


def outputs(torch: Any, q: Any, k: Any) -> tuple:
    """``dq`` (q's shape), ``dk`` and ``dv`` (k's shape), contiguous, in
    q's dtype."""
    dq = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    dk = torch.empty(k.shape, dtype=q.dtype, device=q.device)
    dv = torch.empty(k.shape, dtype=q.dtype, device=q.device)
    return dq, dk, dv


def _kernel(torch: Any, q: Any, k: Any, causal: bool,
            window: Optional[list], scale: Optional[float],
            deterministic: bool) -> Any:
    """The runtime Kernel of a call, compiled or found in the cache once
    per options (and whether dQ is fused, which the keys decide)."""
    wkey = None if window is None else tuple(window)
    head_dim, seq_k = int(q.shape[3]), int(k.shape[2])
    fused = fuses_dq(head_dim, seq_k, deterministic, False)
    key = (q.device, q.dtype, head_dim, causal, wkey, scale, deterministic,
           fused)
    kernel = _KERNELS.get(key)
    if kernel is None:
        from .compiler import compile
        from .torch_ops import _target
        spec = backward_spec(_ops.fmha_dtype(q.dtype), head_dim, causal,
                             wkey, scale, _target(torch, q.device),
                             deterministic, seq_k=seq_k)
        kernel = _KERNELS[key] = compile(spec).kernel
    return kernel


def _launch_tensors(kernel: Any, given: dict) -> dict:
    """The tensors of ``given`` that the kernel's manifest names."""
    return {n: t for n, t in given.items() if n in kernel.manifest.tensors}


def backward_impl(q: Any, k: Any, v: Any, o: Any, do: Any, lse: Any,
                  causal: bool, window: Optional[list],
                  scale: Optional[float], deterministic: bool) -> tuple:
    """The real implementation of fmha::attention_backward (CUDA
    tensors): ``(dq, dk, dv)``."""
    import torch
    from .torch_ops import _on_device, _tma_ready_nd, scratch_tensors
    given = {"q": q, "k": k, "v": v, "o": o, "do": do, "lse": lse}
    check_tensors(torch, given, causal, window, scale)
    if q.device.type != "cuda":
        raise ValueError(f"{WHAT} needs CUDA tensors, got {q.device}")
    dq, dk, dv = outputs(torch, q, k)
    batch, heads, seq_q, _ = q.shape
    if batch == 0 or heads == 0 or seq_q == 0 or k.shape[2] == 0:
        # No query or no key: the gradients that exist are zeros (a
        # tensor map cannot be empty).
        return dq.zero_(), dk.zero_(), dv.zero_()
    tensors = {n: _tma_ready_nd(given[n]) for n in ("q", "k", "v")}
    # o, do and lse are read by the prep kernel with plain loads at
    # row-major offsets: dense (contiguous() copies only when they are not).
    tensors.update(o=o.contiguous(), do=do.contiguous(),
                   lse=lse.contiguous(), dq=dq, dk=dk, dv=dv)
    with _on_device(torch, q.device):
        kernel = _kernel(torch, q, k, causal, window, scale, deterministic)
        tensors = _launch_tensors(kernel, tensors)
        specs = kernel.scratch_shapes({n: t.shape
                                       for n, t in tensors.items()})
        tensors.update(scratch_tensors(
            torch, specs, q.device,
            torch.cuda.current_stream(q.device).cuda_stream))
        kernel.launch(tensors)
    return dq, dk, dv


def backward_fast(torch: Any, q: Any, k: Any, v: Any, o: Any, do: Any,
                  lse: Any, causal: bool, window: Optional[tuple],
                  scale: Optional[float],
                  deterministic: bool) -> Optional[tuple]:
    """The eager fast path: the first call of a layout (shapes, strides,
    dtypes, device, options) checks everything and binds the kernel's
    launches; later calls allocate the outputs and launch, rewriting the
    addresses that moved. ``(dq, dk, dv)``, or None when the call must
    take the custom op (tracing, gradients of the gradient, tensor
    subclasses, empty, misaligned or non-dense tensors)."""
    from . import torch_ops
    tensor, compiling, grad, get_device, raw_stream = \
        torch_ops._fast_env(torch)
    args = (q, k, v, o, do, lse)
    if compiling() or any(type(t) is not tensor for t in args):
        return None
    if grad() and any(t.requires_grad for t in args):
        return None
    device = q.device
    key = (tuple((t.shape, t.stride(), t.dtype, t.device) for t in args),
           causal, window, scale, deterministic)
    bound = _BOUND.get(key)
    if bound is None:
        if (device.type != "cuda" or device.index != get_device()
                or any(t.dim() == 0 or 0 in t.shape for t in args)
                or not all(torch_ops._tma_layout(t) for t in args[:3])
                or not all(t.is_contiguous() for t in args[3:])):
            return None
        given = dict(zip(_TENSORS, args))
        check_tensors(torch, given, causal,
                      None if window is None else list(window), scale)
        if any(t.data_ptr() & 15 for t in args[:5]) or lse.data_ptr() & 3:
            return None
        dq, dk, dv = outputs(torch, q, k)
        given.update(dq=dq, dk=dk, dv=dv)
        kernel = _kernel(torch, q, k, causal,
                         None if window is None else list(window), scale,
                         deterministic)
        tensors = _launch_tensors(kernel, given)
        specs = kernel.scratch_shapes({n: t.shape
                                       for n, t in tensors.items()})
        bound = torch_ops.bind_with_scratch(
            torch, kernel, tensors, specs, _TENSORS, device,
            raw_stream(device.index))
        torch_ops.remember(_BOUND, key, bound, _BOUND_LIMIT)
    else:
        if device.index != get_device():
            return None
        if any(t.data_ptr() & 15 for t in args[:5]) or lse.data_ptr() & 3:
            return None
        dq, dk, dv = outputs(torch, q, k)
    torch_ops.run_with_scratch(torch, bound, (*args, dq, dk, dv), device,
                               raw_stream(device.index))
    return dq, dk, dv


def attention_backward(q: Any, k: Any, v: Any, o: Any, do: Any, lse: Any,
                       causal: bool = False,
                       window: Optional[tuple] = None,
                       scale: Optional[float] = None,
                       deterministic: Optional[bool] = None) -> tuple:
    """The gradients of fmha.attention: ``(dq, dk, dv)`` of ``o =
    attention(q, k, v, causal, window, scale)`` for the upstream gradient
    ``do``, on a Hopper GPU.

    ``q``, ``o``, ``do``: ``[batch, heads_q, seq_q, head_dim]``; ``k``,
    ``v``: ``[batch, heads_kv, seq_k, head_dim]`` (``heads_q`` a multiple
    of ``heads_kv``: dk and dv are summed over each group of query
    heads); ``lse``: ``[batch, heads_q, seq_q]`` float32, the forward's
    (``fmha.attention(..., return_lse=True)``); ``causal``, ``window`` and
    ``scale`` those of the forward. bf16 or f16, all one dtype, on one
    CUDA device; head_dim 64 or 128 (256 and fp8 have no backward yet).
    Returns dq in q's shape, dk and dv in k's, contiguous, in q's dtype.
    Inputs whose layout TMA cannot read are copied first (as
    fmha.attention does).

    ``deterministic``: by default (None) PyTorch's setting,
    ``torch.use_deterministic_algorithms``. False: the fastest form; at
    head dim 64 dq is computed beside dk and dv and its partial sums are
    added into an f32 scratch in the order the CTAs reach them, so its
    last bits may vary from run to run (dk's and dv's never do). True: dq
    by a kernel of its own that recomputes two products, the same bits on
    every run (head dim 128 always runs this form, the faster one there).

    Compiles (once per dtype, head dim, mask and scale; cached on disk)
    and launches the backward's kernels in order on the current stream.
    Works under ``torch.compile(fullgraph=True)`` (custom op
    ``fmha::attention_backward``). Raises ValueError or TypeError naming a
    wrong shape, dtype, device, head dim, window or scale before anything
    is launched.
    """
    torch = _ops._torch(WHAT)
    scale, window = _ops.mask_arguments(scale, window)
    deterministic = resolve_deterministic(torch, deterministic)
    if window is None or type(window) is tuple:
        grads = backward_fast(torch, q, k, v, o, do, lse, causal, window,
                              scale, deterministic)
        if grads is not None:
            return grads
    return torch.ops.fmha.attention_backward(
        q, k, v, o, do, lse, causal, None if window is None else list(window),
        scale, deterministic)


def define(torch: Any) -> None:
    """Defines the custom op ``fmha::attention_backward`` and its fake
    implementation (for torch.compile)."""
    Tensor = torch.Tensor

    @torch.library.custom_op("fmha::attention_backward", mutates_args=())
    def attention_backward(q: Tensor, k: Tensor, v: Tensor, o: Tensor,
                           do: Tensor, lse: Tensor, causal: bool,
                           window: Optional[list[int]],
                           scale: Optional[float],
                           deterministic: bool) -> tuple[Tensor, Tensor,
                                                         Tensor]:
        return backward_impl(q, k, v, o, do, lse, causal, window, scale,
                             deterministic)

    @attention_backward.register_fake
    def _(q, k, v, o, do, lse, causal, window, scale, deterministic):
        check_tensors(torch, {"q": q, "k": k, "v": v, "o": o, "do": do,
                              "lse": lse}, causal, window, scale)
        return outputs(torch, q, k)


def needs_grad(torch: Any, *tensors: Any) -> bool:
    """Whether autograd records a call on ``tensors`` (grad mode on and one
    of them requires a gradient)."""
    return torch.is_grad_enabled() and any(
        getattr(t, "requires_grad", False) for t in tensors)


def reject_grad(torch: Any, what: str, why: str, *tensors: Any) -> None:
    """Raises at forward time when a call of ``what`` that has no backward
    (``why`` says which case) would be recorded by autograd, rather than
    failing at backward time."""
    if needs_grad(torch, *tensors):
        raise NotImplementedError(
            f"{what}: {why} has no backward yet (fmha.attention and "
            f"fmha.attention_varlen with bf16/f16 inputs and head_dim "
            f"{' or '.join(map(str, ATTENTION_BACKWARD_HEAD_DIMS))} have "
            f"one); call it under torch.no_grad() or on tensors that do "
            f"not require grad")


def check_head_dim_grad(torch: Any, what: str, rank: int, q: Any, k: Any,
                        v: Any) -> None:
    """The check, before the forward of ``what`` runs, that a call
    autograd records has a backward: q of ``rank`` dimensions, the last its
    head dim."""
    if needs_grad(torch, q, k, v) and q.dim() == rank and \
            q.shape[rank - 1] not in ATTENTION_BACKWARD_HEAD_DIMS:
        reject_grad(torch, what, f"head_dim {q.shape[rank - 1]}", q, k, v)


def reject_head_dim(what: str, head_dim: int) -> None:
    """Raises, in an autograd formula's setup (at forward time), when
    ``head_dim`` has no backward."""
    if head_dim not in ATTENTION_BACKWARD_HEAD_DIMS:
        raise NotImplementedError(
            f"{what}: head_dim {head_dim} has no backward yet (head dims "
            f"{', '.join(map(str, ATTENTION_BACKWARD_HEAD_DIMS))}); call it "
            f"under torch.no_grad() for inference")


def check_grad_supported(torch: Any, q: Any, k: Any, v: Any) -> None:
    """fmha.attention's check, before its forward runs, that a call
    autograd records has a backward (its head dim)."""
    check_head_dim_grad(torch, "fmha.attention", 4, q, k, v)


def gradients(torch: Any, saved: tuple, options: tuple, grad_o: Any,
              needs: tuple) -> tuple:
    """The gradients of ``fmha::attention`` for autograd: ``(dq, dk, dv)``
    (None where ``needs`` says the input needs none) from the forward's
    saved ``(q, k, v, o, lse)`` and ``options`` ``(causal, window,
    scale)``. The fast path when it takes the call, else the custom op;
    PyTorch's deterministic setting when the backward runs decides, as
    for its own kernels."""
    q, k, v, o, lse = saved
    causal, window, scale = options
    grad_o = grad_o.to(q.dtype)
    deterministic = resolve_deterministic(torch, None)
    grads = backward_fast(torch, q, k, v, o, grad_o, lse, causal,
                          None if window is None else tuple(window), scale,
                          deterministic)
    if grads is None:
        grads = torch.ops.fmha.attention_backward(
            q, k, v, o, grad_o, lse, causal,
            None if window is None else list(window), scale, deterministic)
    return tuple(g if need else None for g, need in zip(grads, needs))


def register_autograd(torch: Any, attention_op: Any) -> None:
    """The autograd formula of the custom op ``fmha::attention``."""

    def setup_context(ctx: Any, inputs: tuple, output: tuple) -> None:
        q, k, v, causal, window, scale, return_lse = inputs
        o, lse = output
        ctx.mark_non_differentiable(lse)
        # At forward time: autograd records this call.
        reject_head_dim("fmha.attention", q.shape[3])
        ctx.options = (causal, window, scale)
        # Without return_lse the forward kept no lse (fmha.attention asks
        # for it when a gradient is needed; a direct call of the op may
        # not): the backward recomputes it.
        ctx.has_lse = return_lse
        ctx.save_for_backward(q, k, v, o, lse if return_lse else None)

    def backward(ctx: Any, grad_o: Any, grad_lse: Any) -> tuple:
        q, k, v, o, lse = ctx.saved_tensors
        causal, window, scale = ctx.options
        if not ctx.has_lse:
            o, lse = torch.ops.fmha.attention(q, k, v, causal, window,
                                              scale, True)
        return gradients(torch, (q, k, v, o, lse), ctx.options, grad_o,
                         ctx.needs_input_grad[:3]) + (None,) * 4

    attention_op.register_autograd(backward, setup_context=setup_context)


# -- the eager path of a recorded call ----------------------------------------
#
# A call autograd records in eager mode skips the custom op's dispatch: a
# torch.autograd.Function runs the forward's bound launch (fmha.torch_ops.
# attention_fast, lse kept) and, in its backward, the backward's
# (backward_fast). The custom op's dispatch and full per-call checks cost
# 50-200 us of host time a call, more than the forward's kernel at 512
# tokens (bench/RESULTS.md, 2026-11-29). Under torch.compile, functorch
# transforms or tensor subclasses the custom op and its registered formula
# run as before; both share `gradients`.

_FUNCTIONS: dict = {}


def recorded_function(torch: Any, name: str, forward: Any, gradients: Any,
                      tensors: int) -> Any:
    """The torch.autograd.Function ``name`` (made once) of an entry
    point's recorded eager calls: its forward runs ``forward(torch, *args)
    -> (o, lse)`` (grad mode off: the entry point's fast path takes it),
    saves the first ``tensors`` arguments with o and lse and keeps the
    others as the options; its backward is ``gradients(torch, saved,
    options, grad_o, needs)`` for the first three inputs (q, k, v). lse is
    not differentiable."""
    function = _FUNCTIONS.get(name)
    if function is not None:
        return function
    from torch.autograd.function import once_differentiable

    def run(ctx, *args):
        o, lse = forward(torch, *args)
        ctx.mark_non_differentiable(lse)
        ctx.set_materialize_grads(False)
        ctx.options = args[tensors:]
        ctx.save_for_backward(*args[:tensors], o, lse)
        return o, lse

    @once_differentiable
    def grads(ctx, grad_o, grad_lse):
        unused = (None,) * (len(ctx.needs_input_grad) - 3)
        if grad_o is None:
            return (None,) * 3 + unused
        return gradients(torch, ctx.saved_tensors, ctx.options, grad_o,
                         ctx.needs_input_grad[:3]) + unused

    # Made by its metaclass under `name`: autograd names the nodes
    # `<name>Backward`.
    function = _FUNCTIONS[name] = type(
        name, (torch.autograd.Function,),
        {"forward": staticmethod(run), "backward": staticmethod(grads)})
    return function


def eager_plain(torch: Any, *tensors: Any) -> bool:
    """Whether a recorded call on ``tensors`` may run through
    recorded_function: plain tensors, eager (no tracing), no functorch
    transforms; otherwise it takes the custom op."""
    from . import torch_ops
    tensor, compiling = torch_ops._fast_env(torch)[:2]
    return (all(type(t) is tensor for t in tensors) and not compiling()
            and not torch._C._are_functorch_transforms_active())


def _attention_forward(torch: Any, q: Any, k: Any, v: Any, causal: bool,
                       window: Optional[tuple],
                       scale: Optional[float]) -> tuple:
    """fmha.attention's forward of a recorded call: the fast path, else
    the custom op; lse kept."""
    from . import torch_ops
    out = torch_ops.attention_fast(torch, q, k, v, causal, window, scale,
                                   True)
    if out is None:
        out = torch.ops.fmha.attention(
            q, k, v, causal, None if window is None else list(window), scale,
            True)
    return out


def attention_recorded(torch: Any, q: Any, k: Any, v: Any, causal: bool,
                       window: Optional[tuple],
                       scale: Optional[float]) -> Optional[tuple]:
    """``(o, lse)`` of an eager call autograd records, through the
    autograd.Function above, or None when the call must take the custom
    op (tracing, functorch transforms, tensor subclasses)."""
    if not eager_plain(torch, q, k, v):
        return None
    function = recorded_function(torch, "Attention", _attention_forward,
                                 gradients, 3)
    return function.apply(q, k, v, causal, window, scale)
