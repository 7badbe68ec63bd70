"""``fmha.attention_varlen_backward`` and the autograd formula of
``fmha.attention_varlen`` (docs/Backward.md).

The backward of a varlen attention (fmha.varlen's layout: the sequences
packed along one token axis, bounded by ``cu_seqlens_q`` and
``cu_seqlens_k``) is the ``varlen`` form of ``fmha.attention_backward``'s
op: one compiled kernel of three launches (``_prep``, ``_dkdv``, ``_dq``;
dQ always by a kernel of its own, so the same bits on every run). Its
launches take the batch and the longest sequences beside the tensors (the
manifest's sizes ``B``, ``MAXQ``, ``MAXK``), which also size its scratch
tensor ``d_lse`` (``Kernel.scratch_shapes``); the scratch comes from
fmha.torch_ops per stream, as fmha.attention_backward's.

The checks that need only shapes and dtypes are pure functions here
(testable without PyTorch). :func:`define` defines the custom op
``fmha::attention_varlen_backward``; :func:`register_autograd` makes
``fmha::attention_varlen`` differentiable: its forward saves q, k, v, the
cu_seqlens, o and lse (fmha.attention_varlen asks the kernel for lse when a
gradient is needed), its backward calls the fast path or the custom op.

Imports PyTorch only inside functions.
"""


from typing import Any, Callable, Optional

from . import ops as _ops
from . import varlen as _varlen
from .backward import (backward_spec, check_backward_input,
                       check_head_dim_grad, check_like_q, eager_plain,
                       recorded_function, reject_head_dim)

WHAT = "fmha.attention_varlen_backward"
# (device, dtype, head dim, causal, window, scale) -> fmha.runtime.Kernel.
_KERNELS: dict = {}
# The eager fast path's bound launches, by layout, maxima and options.
_BOUND: dict = {}
_BOUND_LIMIT = 1024
# The caller's tensors of the kernel, in the order the bound launches take
# their addresses (the scratch tensors follow, in manifest order).
_TENSORS = ("q", "k", "v", "o", "do", "lse", "cu_seqlens_q", "cu_seqlens_k",
            "dq", "dk", "dv")


def check_varlen_backward_args(shapes: dict, dtypes: dict,
                               max_seqlen_q: Any, max_seqlen_k: Any,
                               causal: bool = False,
                               window: Optional[Any] = None,
                               scale: Optional[float] = None,
                               check: Callable = _ops._require) -> None:
    """Checks fmha.attention_varlen_backward's arguments from their
    ``shapes`` and dtype names (``dtypes``; fmha's names, ``i32`` for int32,
    ``f8e4m3`` for fp8, None for another type), by tensor name (q, k, v, o,
    do, lse, cu_seqlens_q, cu_seqlens_k), naming the mistake: ValueError
    (shapes, lengths, head dim, window, scale) or TypeError (dtypes,
    arguments of the wrong kind). Relations between sizes go through
    ``check(cond, message)``."""
    q = shapes["q"]
    check_backward_input(WHAT, dtypes["q"], q, rank=3)
    _varlen.check_varlen_args(
        q, shapes["k"], shapes["v"], shapes["cu_seqlens_q"],
        shapes["cu_seqlens_k"], (dtypes["q"], dtypes["k"], dtypes["v"]),
        (dtypes["cu_seqlens_q"], dtypes["cu_seqlens_k"]), max_seqlen_q,
        max_seqlen_k, causal, window, scale, check, WHAT)
    check_like_q(WHAT, shapes, dtypes, "total_q, heads_q, head_dim", check)
    lse = shapes["lse"]
    if len(lse) != 2:
        raise ValueError(f"{WHAT}: lse must be [heads_q, total_q] (the "
                         f"forward's, return_lse=True), got shape "
                         f"{list(lse)}")
    check(lse[0] == q[1] and lse[1] == q[0], lambda: (
        f"{WHAT}: lse must be [heads_q, total_q] = {[q[1], q[0]]}, got "
        f"{list(lse)}"))
    if dtypes["lse"] != "f32":
        raise TypeError(f"{WHAT}: lse must be float32 (the forward's), got "
                        f"{dtypes['lse'] or 'another type'}")


def launch_args(kernel: Any, given: dict, sizes: dict) -> tuple:
    """The launch arguments of a call, ``(tensors, sizes, scratch)``: the
    tensors of ``given`` and the caller sizes of ``sizes`` (``B``,
    ``MAXQ``, ``MAXK``: ints) that the kernel's manifest names, and the
    scratch tensors it asks for them, ``{name: (shape, role, dtype
    name)}`` (Kernel.scratch_shapes: d_lse's shape comes from the batch
    and MAXQ)."""
    manifest = kernel.manifest
    tensors = {n: t for n, t in given.items() if n in manifest.tensors}
    sizes = {n: s for n, s in sizes.items() if n in manifest.sizes}
    scratch = kernel.scratch_shapes({n: t.shape for n, t in tensors.items()},
                                    sizes)
    return tensors, sizes, scratch


# -- PyTorch ------------------------------------------------------------------


def check_tensors(torch: Any, tensors: dict, max_seqlen_q: Any,
                  max_seqlen_k: Any, causal: bool, window: Optional[list],
                  scale: Optional[float]) -> None:
    """check_varlen_backward_args on the tensors (q, k, v, o, do, lse,
    cu_seqlens_q, cu_seqlens_k by name), their types and one device;
    sizes through torch._check where they may be symbolic
    (torch.compile)."""
    from .torch_ops import size_checker
    _ops.check_tensor_types(torch, WHAT, list(tensors.items()))
    dtypes = {n: (_ops.index_or_fmha_dtype(torch, t.dtype)
                  or _ops.fp8_dtype(t.dtype)) for n, t in tensors.items()}
    check_varlen_backward_args(
        {n: tuple(t.shape) for n, t in tensors.items()}, dtypes,
        max_seqlen_q, max_seqlen_k, causal, window, scale,
        size_checker(torch))
    _ops.check_one_device(WHAT, list(tensors.items()))


def outputs(torch: Any, q: Any, k: Any, zeroed: bool) -> tuple:
    """``dq`` (q's shape), ``dk`` and ``dv`` (k's shape), contiguous, in
    q's dtype; zeros with ``zeroed`` (the kernel writes the rows of every
    sequence, and no other: rows outside all sequences are possible only
    with cu_seqlens whose values were not checked)."""
    make = torch.zeros if zeroed else torch.empty
    return (make(q.shape, dtype=q.dtype, device=q.device),
            make(k.shape, dtype=q.dtype, device=q.device),
            make(k.shape, dtype=q.dtype, device=q.device))


def _kernel(torch: Any, q: Any, causal: bool, window: Optional[list],
            scale: Optional[float]) -> Any:
    """The runtime Kernel of a call, compiled or found in the cache once
    per options."""
    wkey = None if window is None else tuple(window)
    key = (q.device, q.dtype, int(q.shape[2]), causal, wkey, scale)
    kernel = _KERNELS.get(key)
    if kernel is None:
        from .compiler import compile
        from .torch_ops import _target
        spec = backward_spec(_ops.fmha_dtype(q.dtype), int(q.shape[2]),
                             causal, wkey, scale, _target(torch, q.device),
                             varlen=True)
        kernel = _KERNELS[key] = compile(spec).kernel
    return kernel


def _sizes(cu_q: Any, max_seqlen_q: int, max_seqlen_k: int) -> dict:
    """The caller sizes of the kernel's launches."""
    return {"B": int(cu_q.shape[0]) - 1, "MAXQ": int(max_seqlen_q),
            "MAXK": int(max_seqlen_k)}


def backward_impl(q: Any, k: Any, v: Any, o: Any, do: Any, lse: Any,
                  cu_q: Any, cu_k: Any, max_seqlen_q: int,
                  max_seqlen_k: int, causal: bool, window: Optional[list],
                  scale: Optional[float], check_values: bool,
                  checked: bool) -> tuple:
    """The real implementation of fmha::attention_varlen_backward (CUDA
    tensors): ``(dq, dk, dv)``. ``check_values``: check the cu_seqlens'
    values on the host first; ``checked``: they were checked before (the
    forward's check, autograd's case), so no check and no zeroed
    outputs."""
    import torch
    from . import torch_ops
    given = {"q": q, "k": k, "v": v, "o": o, "do": do, "lse": lse,
             "cu_seqlens_q": cu_q, "cu_seqlens_k": cu_k}
    check_tensors(torch, given, max_seqlen_q, max_seqlen_k, causal, window,
                  scale)
    if q.device.type != "cuda":
        raise ValueError(f"{WHAT} needs CUDA tensors, got {q.device}")
    zeroed = not (check_values or checked)
    dq, dk, dv = outputs(torch, q, k, zeroed)
    sizes = _sizes(cu_q, max_seqlen_q, max_seqlen_k)
    total_q, total_k = int(q.shape[0]), int(k.shape[0])
    if check_values:
        _varlen._values_checked(torch, cu_q, cu_k, total_q, total_k,
                                max_seqlen_q, max_seqlen_k, WHAT)
    if 0 in (sizes["B"], total_q, total_k, int(q.shape[1]), sizes["MAXQ"],
             sizes["MAXK"]):
        # No query or no key: the gradients that exist are zeros (a
        # tensor map cannot be empty).
        if not zeroed:
            for grad in (dq, dk, dv):
                grad.zero_()
        return dq, dk, dv
    # q, k, v and do are read through tensor maps; o, do and lse by the
    # prep kernel with plain loads at row-major offsets: dense (and do
    # 16-byte aligned too).
    tensors = {n: torch_ops._tma_ready_nd(given[n]) for n in ("q", "k", "v")}
    tensors.update(o=o.contiguous(),
                   do=torch_ops._tma_ready_nd(do.contiguous()),
                   lse=lse.contiguous(), cu_seqlens_q=cu_q.contiguous(),
                   cu_seqlens_k=cu_k.contiguous(), dq=dq, dk=dk, dv=dv)
    with torch_ops._on_device(torch, q.device):
        kernel = _kernel(torch, q, causal, window, scale)
        tensors, sizes, scratch = launch_args(kernel, tensors, sizes)
        tensors.update(torch_ops.scratch_tensors(
            torch, scratch, q.device,
            torch.cuda.current_stream(q.device).cuda_stream))
        tensors.update(sizes)
        kernel.launch(tensors)
    return dq, dk, dv


def backward_fast(torch: Any, q: Any, k: Any, v: Any, o: Any, do: Any,
                  lse: Any, cu_q: Any, cu_k: Any, max_seqlen_q: Any,
                  max_seqlen_k: Any, causal: bool, window: Optional[tuple],
                  scale: Optional[float], check_values: bool,
                  checked: bool) -> Optional[tuple]:
    """The eager fast path (as fmha.attention_backward's): the first call
    of a layout (shapes, strides, dtypes, devices, maxima, options) checks
    everything and binds the kernel's launches; later calls check the
    addresses' alignment, the current device and (``check_values``) the
    cu_seqlens' values, allocate the outputs and launch, rewriting the
    addresses that moved. ``(dq, dk, dv)``, or None when the call must take
    the custom op (tracing, gradients of the gradient, tensor subclasses,
    empty, misaligned or non-dense tensors)."""
    from . import torch_ops
    tensor, compiling, grad, get_device, raw_stream = \
        torch_ops._fast_env(torch)
    args = (q, k, v, o, do, lse, cu_q, cu_k)
    if (compiling() or any(type(t) is not tensor for t in args)
            or type(max_seqlen_q) is not int
            or type(max_seqlen_k) is not int):
        return None
    if grad() and any(t.requires_grad for t in args):
        return None
    device = q.device
    zeroed = not (check_values or checked)
    key = (tuple((t.shape, t.stride(), t.dtype, t.device) for t in args),
           max_seqlen_q, max_seqlen_k, causal, window, scale)
    bound = _BOUND.get(key)
    first = None
    if bound is None:
        if (device.type != "cuda" or device.index != get_device()
                or q.dim() != 3 or k.dim() != 3 or v.dim() != 3
                or cu_q.dim() != 1 or cu_k.dim() != 1
                or cu_q.shape[0] < 2 or 0 in q.shape or 0 in k.shape
                or max_seqlen_q < 1 or max_seqlen_k < 1
                or not all(torch_ops._tma_layout(t) for t in args[:3])
                or not all(t.is_contiguous() for t in args[3:])):
            return None
        given = dict(zip(_TENSORS, args))
        check_tensors(torch, given, max_seqlen_q, max_seqlen_k, causal,
                      None if window is None else list(window), scale)
        if (q.data_ptr() | k.data_ptr() | v.data_ptr() | do.data_ptr()) & 15:
            return None
        if check_values:
            _varlen._values_checked(torch, cu_q, cu_k, int(q.shape[0]),
                                    int(k.shape[0]), max_seqlen_q,
                                    max_seqlen_k, WHAT)
            check_values = False  # checked for this call
        dq, dk, dv = first = outputs(torch, q, k, zeroed)
        given.update(dq=dq, dk=dk, dv=dv)
        kernel = _kernel(torch, q, causal,
                         None if window is None else list(window), scale)
        tensors, sizes, scratch = launch_args(
            kernel, given, _sizes(cu_q, max_seqlen_q, max_seqlen_k))
        bound = torch_ops.bind_with_scratch(
            torch, kernel, tensors, scratch, _TENSORS, device,
            raw_stream(device.index), sizes)
        torch_ops.remember(_BOUND, key, bound, _BOUND_LIMIT)
    elif device.index != get_device():
        return None
    if (q.data_ptr() | k.data_ptr() | v.data_ptr() | do.data_ptr()) & 15:
        return None
    if check_values:
        _varlen._values_checked(torch, cu_q, cu_k, int(q.shape[0]),
                                int(k.shape[0]), max_seqlen_q, max_seqlen_k,
                                WHAT)
    dq, dk, dv = first or outputs(torch, q, k, zeroed)
    torch_ops.run_with_scratch(torch, bound, (*args, dq, dk, dv), device,
                               raw_stream(device.index))
    return dq, dk, dv


def attention_varlen_backward(q: Any, k: Any, v: Any, o: Any, do: Any,
                              lse: Any, cu_seqlens_q: Any,
                              cu_seqlens_k: Any, max_seqlen_q: int,
                              max_seqlen_k: int, causal: bool = False,
                              window: Optional[tuple] = None,
                              scale: Optional[float] = None,
                              check_values: bool = True) -> tuple:
    """The gradients of fmha.attention_varlen: ``(dq, dk, dv)`` of ``o =
    attention_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
    max_seqlen_k, causal, window, scale)`` for the upstream gradient
    ``do``, on a Hopper GPU.

    ``q``, ``o``, ``do``: ``[total_q, heads_q, head_dim]``; ``k``, ``v``:
    ``[total_k, heads_kv, head_dim]`` (``heads_q`` a multiple of
    ``heads_kv``: dk and dv are summed over each group of query heads);
    ``lse``: ``[heads_q, total_q]`` float32, the forward's
    (``return_lse=True``); the cu_seqlens, maxima, ``causal``, ``window``
    and ``scale`` those of the forward. bf16 or f16, all one dtype, on one
    CUDA device; head_dim 64 or 128 (256 has no backward yet). Returns dq
    in q's shape, dk and dv in k's, contiguous, in q's dtype; rows of a
    sequence without keys, and keys no query sees, get zeros. Inputs whose
    layout TMA cannot read are copied first (as fmha.attention_varlen
    does). dq is computed by a kernel of its own: the same bits on every
    run.

    The cu_seqlens' values are checked on the host first, as
    fmha.attention_varlen checks them (``check_values=False`` skips that
    synchronization; skipped too while a CUDA graph is being captured and
    under torch.compile tracing). Unchecked bad values cannot make the
    kernels read or write outside the tensors; with ``check_values=False``
    the outputs start as zeros, so rows that no sequence covers get zero
    gradients.

    Compiles (once per dtype, head dim, mask and scale; cached on disk)
    and launches the backward's kernels in order on the current stream.
    Works under ``torch.compile(fullgraph=True)`` (custom op
    ``fmha::attention_varlen_backward``). Raises ValueError or TypeError
    naming a wrong shape, dtype, device, head dim, window, scale or
    cu_seqlens value before anything is launched.
    """
    torch = _ops._torch(WHAT)
    scale, window = _ops.mask_arguments(scale, window)
    if (window is None or type(window) is tuple) and \
            isinstance(check_values, bool):
        grads = backward_fast(torch, q, k, v, o, do, lse, cu_seqlens_q,
                              cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                              causal, window, scale, check_values, False)
        if grads is not None:
            return grads
    return torch.ops.fmha.attention_varlen_backward(
        q, k, v, o, do, lse, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
        max_seqlen_k, causal, None if window is None else list(window),
        scale, check_values, False)


def define(torch: Any) -> None:
    """Defines the custom op ``fmha::attention_varlen_backward`` and its
    fake implementation (for torch.compile)."""
    Tensor = torch.Tensor

    @torch.library.custom_op("fmha::attention_varlen_backward",
                             mutates_args=())
    def attention_varlen_backward(
            q: Tensor, k: Tensor, v: Tensor, o: Tensor, do: Tensor,
            lse: Tensor, cu_seqlens_q: Tensor, cu_seqlens_k: Tensor,
            max_seqlen_q: int, max_seqlen_k: int, causal: bool,
            window: Optional[list[int]], scale: Optional[float],
            check_values: bool,
            checked: bool) -> tuple[Tensor, Tensor, Tensor]:
        return backward_impl(q, k, v, o, do, lse, cu_seqlens_q,
                             cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                             causal, window, scale, check_values, checked)

    @attention_varlen_backward.register_fake
    def _(q, k, v, o, do, lse, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
          max_seqlen_k, causal, window, scale, check_values, checked):
        check_tensors(torch, {"q": q, "k": k, "v": v, "o": o, "do": do,
                              "lse": lse, "cu_seqlens_q": cu_seqlens_q,
                              "cu_seqlens_k": cu_seqlens_k},
                      max_seqlen_q, max_seqlen_k, causal, window, scale)
        return outputs(torch, q, k, not (check_values or checked))


def check_grad_supported(torch: Any, q: Any, k: Any, v: Any) -> None:
    """fmha.attention_varlen's check, before its forward runs, that a call
    autograd records has a backward (its head dim)."""
    check_head_dim_grad(torch, _varlen.WHAT, 3, q, k, v)


def gradients(torch: Any, saved: tuple, options: tuple, grad_o: Any,
              needs: tuple) -> tuple:
    """The gradients of ``fmha::attention_varlen`` for autograd: ``(dq,
    dk, dv)`` (None where ``needs`` says the input needs none) from the
    forward's saved ``(q, k, v, cu_q, cu_k, o, lse)`` and ``options``
    ``(max_seqlen_q, max_seqlen_k, causal, window, scale, checked)``
    (``checked``: the forward checked the cu_seqlens' values, which hold
    for the backward: autograd refuses saved tensors changed in place). The
    fast path when it takes the call, else the custom op."""
    q, k, v, cu_q, cu_k, o, lse = saved
    max_seqlen_q, max_seqlen_k, causal, window, scale, checked = options
    grad_o = grad_o.to(q.dtype).contiguous()
    grads = backward_fast(torch, q, k, v, o, grad_o, lse, cu_q, cu_k,
                          max_seqlen_q, max_seqlen_k, causal,
                          None if window is None else tuple(window), scale,
                          False, checked)
    if grads is None:
        grads = torch.ops.fmha.attention_varlen_backward(
            q, k, v, o, grad_o, lse, cu_q, cu_k, max_seqlen_q, max_seqlen_k,
            causal, None if window is None else list(window), scale, False,
            checked)
    return tuple(g if need else None for g, need in zip(grads, needs))


def register_autograd(torch: Any, varlen_op: Any) -> None:
    """The autograd formula of the custom op ``fmha::attention_varlen``
    (``varlen_op``, what fmha.varlen.define returns)."""

    def setup_context(ctx: Any, inputs: tuple, output: tuple) -> None:
        (q, k, v, cu_q, cu_k, max_seqlen_q, max_seqlen_k, causal, window,
         scale, return_lse, check_values) = inputs
        o, lse = output
        ctx.mark_non_differentiable(lse)
        # At forward time: autograd records this call.
        reject_head_dim(_varlen.WHAT, q.shape[2])
        ctx.options = (max_seqlen_q, max_seqlen_k, causal, window, scale,
                       check_values)
        # Without return_lse the forward kept no lse (fmha.attention_varlen
        # asks for it when a gradient is needed; a direct call of the op
        # may not): the backward recomputes it.
        ctx.has_lse = return_lse
        ctx.save_for_backward(q, k, v, cu_q, cu_k, o,
                              lse if return_lse else None)

    def backward(ctx: Any, grad_o: Any, grad_lse: Any) -> tuple:
        q, k, v, cu_q, cu_k, o, lse = ctx.saved_tensors
        max_seqlen_q, max_seqlen_k, causal, window, scale, _ = ctx.options
        if not ctx.has_lse:
            o, lse = torch.ops.fmha.attention_varlen(
                q, k, v, cu_q, cu_k, max_seqlen_q, max_seqlen_k, causal,
                window, scale, True, False)
        return gradients(torch, (q, k, v, cu_q, cu_k, o, lse), ctx.options,
                         grad_o, ctx.needs_input_grad[:3]) + (None,) * 9

    varlen_op.register_autograd(backward, setup_context=setup_context)


# -- the eager path of a recorded call ----------------------------------------
#
# As fmha.attention's (fmha.backward.attention_recorded): an eager call
# autograd records runs the forward's bound launch (fmha.varlen.
# attention_varlen_fast, lse kept) through a torch.autograd.Function
# (fmha.backward.recorded_function) whose backward is `gradients`, instead
# of the custom op's dispatch.

def _varlen_forward(torch: Any, q: Any, k: Any, v: Any, cu_q: Any,
                    cu_k: Any, max_seqlen_q: int, max_seqlen_k: int,
                    causal: bool, window: Optional[tuple],
                    scale: Optional[float], check_values: bool) -> tuple:
    """fmha.attention_varlen's forward of a recorded call: the fast path,
    else the custom op; lse kept."""
    out = _varlen.attention_varlen_fast(
        torch, q, k, v, cu_q, cu_k, max_seqlen_q, max_seqlen_k, causal,
        window, scale, True, check_values)
    if out is None:
        out = torch.ops.fmha.attention_varlen(
            q, k, v, cu_q, cu_k, max_seqlen_q, max_seqlen_k, causal,
            None if window is None else list(window), scale, True,
            check_values)
    return out


def attention_varlen_recorded(torch: Any, q: Any, k: Any, v: Any, cu_q: Any,
                              cu_k: Any, max_seqlen_q: Any,
                              max_seqlen_k: Any, causal: bool,
                              window: Optional[tuple],
                              scale: Optional[float],
                              check_values: bool) -> Optional[tuple]:
    """``(o, lse)`` of an eager call autograd records, through the
    autograd.Function above, or None when the call must take the custom
    op (tracing, functorch transforms, tensor subclasses, maxima that are
    not ints)."""
    if (type(max_seqlen_q) is not int or type(max_seqlen_k) is not int
            or not eager_plain(torch, q, k, v, cu_q, cu_k)):
        return None
    function = recorded_function(torch, "AttentionVarlen", _varlen_forward,
                                 gradients, 5)
    return function.apply(q, k, v, cu_q, cu_k, max_seqlen_q, max_seqlen_k,
                          causal, window, scale, check_values)
