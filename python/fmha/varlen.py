"""``fmha.attention_varlen``: attention over variable-length sequences.

The sequences of a batch are packed along one token axis, as
FlashAttention's varlen API takes them: ``q`` ``[total_q, heads_q,
head_dim]``, ``k`` and ``v`` ``[total_k, heads_kv, head_dim]``, sequence
``b`` at rows ``cu_seqlens_q[b]`` to ``cu_seqlens_q[b + 1]`` (and
``cu_seqlens_k`` for the keys), int32 prefix sums starting at 0. The kernel
is ``fmha.attention ... varlen`` (include/fmha/Dialect/FMHA/IR/FMHAOps.td);
its launch takes the batch and ``max_seqlen_q`` beside the tensors (the
manifest's ``sizes``).

The checks that need only shapes and dtypes are pure functions here
(testable without PyTorch); :func:`check_cu_seqlens` checks the values
once they are on the host. The custom op ``torch.ops.fmha.attention_varlen``
is defined by :func:`define` (fmha.torch_ops.register calls it); its
backward is fmha.varlen_backward's.
"""

from typing import Any, Callable, Optional, Sequence

from . import ops as _ops
from . import tuning
from .specs import I32_MAX

WHAT = "fmha.attention_varlen"


def check_varlen_args(q_shape: Sequence, k_shape: Sequence,
                      v_shape: Sequence, cu_q_shape: Sequence,
                      cu_k_shape: Sequence, dtypes: tuple,
                      cu_dtypes: tuple, max_seqlen_q: Any,
                      max_seqlen_k: Any, causal: bool = False,
                      window: Optional[Any] = None,
                      scale: Optional[float] = None,
                      check: Callable = _ops._require,
                      what: str = WHAT) -> None:
    """Checks fmha.attention_varlen's arguments from their shapes and
    dtype names (``bf16``, ``f16``, ``i32``, or None for another type):
    ValueError (shapes, lengths, window, scale) or TypeError (dtypes,
    arguments of the wrong kind), naming the mistake (and ``what``, the
    entry point). Relations between sizes go through ``check(cond,
    message)`` (``torch._check`` under torch.compile)."""
    if len(q_shape) != 3 or len(k_shape) != 3 or len(v_shape) != 3:
        raise ValueError(
            f"{what}: q must be [total_q, heads_q, head_dim] and k, v "
            f"[total_k, heads_kv, head_dim], got shapes {list(q_shape)}, "
            f"{list(k_shape)}, {list(v_shape)}")
    if len(cu_q_shape) != 1 or len(cu_k_shape) != 1:
        raise ValueError(
            f"{what}: cu_seqlens_q and cu_seqlens_k must be [batch + 1], got "
            f"shapes {list(cu_q_shape)} and {list(cu_k_shape)}")
    qd, kd, vd = dtypes
    if qd not in ("bf16", "f16"):
        raise TypeError(f"{what}: q must be bfloat16 or float16, got "
                        f"{qd or 'another type'}")
    if kd != qd or vd != qd:
        raise TypeError(f"{what}: q, k, v must have one dtype, got {qd}, "
                        f"{kd or 'another type'}, {vd or 'another type'}")
    for name, dtype in zip(("cu_seqlens_q", "cu_seqlens_k"), cu_dtypes):
        if dtype != "i32":
            raise TypeError(f"{what}: {name} must be int32, got "
                            f"{dtype or 'another type'}")
    for name, value in (("max_seqlen_q", max_seqlen_q),
                        ("max_seqlen_k", max_seqlen_k)):
        if isinstance(value, bool) or not isinstance(value, int):
            # A SymInt under torch.compile is checked by the kernel's
            # launch instead.
            if type(value).__name__ != "SymInt":
                raise TypeError(f"{what}: {name} must be an int, got "
                                f"{value!r}")
        elif not 0 <= value <= I32_MAX:
            raise ValueError(f"{what}: {name} must be in [0, {I32_MAX}], "
                             f"got {value}")
    _ops.check_mask_options(what, causal, window, scale)
    _ops.check_head_dim(what, "q, k, v", q_shape, k_shape, v_shape, 2, check)
    check(k_shape[0] == v_shape[0] and k_shape[1] == v_shape[1], lambda: (
        f"{what}: k and v must have one shape [total_k, heads_kv, "
        f"head_dim], got {list(k_shape)} and {list(v_shape)}"))
    _ops.check_head_groups(what, "k and v", q_shape[1], k_shape, 1, check)
    check(cu_q_shape[0] == cu_k_shape[0], lambda: (
        f"{what}: cu_seqlens_q and cu_seqlens_k must have one size (batch + "
        f"1), got {cu_q_shape[0]} and {cu_k_shape[0]}"))
    check(cu_q_shape[0] >= 1, lambda: (
        f"{what}: cu_seqlens_q must have batch + 1 >= 1 entries, got none"))


def check_cu_seqlens(cu_q: Sequence[int], cu_k: Sequence[int],
                     total_q: int, total_k: int, max_seqlen_q: int,
                     max_seqlen_k: int, what: str = WHAT) -> None:
    """Checks the values of the cu_seqlens (host lists): each starts at 0,
    never decreases, ends at its tensor's total, and no sequence is longer
    than its maximum. Raises ValueError naming the first broken rule (and
    ``what``, the entry point)."""
    for name, cu, total, longest, tensor in (
            ("cu_seqlens_q", cu_q, total_q, max_seqlen_q, "q"),
            ("cu_seqlens_k", cu_k, total_k, max_seqlen_k, "k")):
        if cu[0] != 0:
            raise ValueError(f"{what}: {name}[0] must be 0, got {cu[0]}")
        for b in range(len(cu) - 1):
            length = cu[b + 1] - cu[b]
            if length < 0:
                raise ValueError(
                    f"{what}: {name} must be sorted (prefix sums of the "
                    f"sequence lengths), but {name}[{b + 1}] = {cu[b + 1]} "
                    f"< {name}[{b}] = {cu[b]}")
            if length > longest:
                raise ValueError(
                    f"{what}: sequence {b} has {length} "
                    f"{'queries' if tensor == 'q' else 'keys'} "
                    f"({name}[{b + 1}] - {name}[{b}]), more than "
                    f"max_seqlen_{tensor} = {longest}")
        if cu[-1] != total:
            raise ValueError(
                f"{what}: {name}[-1] must be the tokens of {tensor} "
                f"(total = {total}), got {cu[-1]}")


def varlen_problem(head_dim: int, masked: bool, batch: int, heads: int,
                   max_seqlen_q: int, max_seqlen_k: int) -> tuple:
    """The (category, sizes) of fmha.tuning's selection: attention's
    table, with the longest sequences standing for the lengths."""
    return tuning.attention_problem(head_dim, masked, batch * heads,
                                    max_seqlen_q, max_seqlen_k)


# -- PyTorch ------------------------------------------------------------------


def _check(torch: Any, q: Any, k: Any, v: Any, cu_q: Any, cu_k: Any,
           max_seqlen_q: Any, max_seqlen_k: Any, causal: bool,
           window: Optional[list], scale: Optional[float]) -> None:
    """check_varlen_args on the tensors, and their devices."""
    named = (("q", q), ("k", k), ("v", v), ("cu_seqlens_q", cu_q),
             ("cu_seqlens_k", cu_k))
    _ops.check_tensor_types(torch, WHAT, named)

    check = _ops.torch_ops.size_checker(torch)

    def name(dtype: Any) -> Optional[str]:
        return _ops.index_or_fmha_dtype(torch, dtype)

    check_varlen_args(tuple(q.shape), tuple(k.shape), tuple(v.shape),
                      tuple(cu_q.shape), tuple(cu_k.shape),
                      tuple(name(t.dtype) for t in (q, k, v)),
                      (name(cu_q.dtype), name(cu_k.dtype)), max_seqlen_q,
                      max_seqlen_k, causal, window, scale, check)
    _ops.check_one_device(WHAT, named)


def outputs(torch: Any, q: Any, return_lse: bool) -> tuple:
    """``o`` (``[total_q, heads_q, head_dim]``, contiguous) and ``lse``
    (``[heads_q, total_q]`` f32; ``[0]`` without ``return_lse``)."""
    o = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    lse_shape = (q.shape[1], q.shape[0]) if return_lse else (0,)
    lse = torch.empty(lse_shape, dtype=torch.float32, device=q.device)
    return o, lse


def _kernel(torch: Any, q: Any, batch: int, max_seqlen_q: int,
            max_seqlen_k: int, causal: bool, window: Optional[list],
            scale: Optional[float], return_lse: bool, launch_args: Any) -> Any:
    """The runtime Kernel of a call, selected by attention's table
    (fmha.tuning) for its head dim, mask and longest sequences."""
    from . import torch_ops
    target = torch_ops._target(torch, q.device)
    dtype = _ops.fmha_dtype(q.dtype)
    head_dim = int(q.shape[2])
    wkey = None if window is None else tuple(window)
    category, sizes = varlen_problem(head_dim, causal or window is not None,
                                     batch, int(q.shape[1]),
                                     max(max_seqlen_q, 1),
                                     max(max_seqlen_k, 1))

    def make_spec(config: dict) -> Any:
        return _ops.attention_spec(dtype, head_dim, causal, wkey, scale,
                                   return_lse, target, config, varlen=True)

    def run(kernel: Any) -> Any:
        return lambda: kernel.launch(launch_args())

    key = ("varlen", q.device, q.dtype, head_dim, causal, wkey, scale,
           return_lse)
    return torch_ops._select(torch, q.device, key, category, sizes,
                             make_spec, tuning.attention_candidates(head_dim),
                             run)


def attention_varlen_impl(q: Any, k: Any, v: Any, cu_q: Any, cu_k: Any,
                          max_seqlen_q: int, max_seqlen_k: int, causal: bool,
                          window: Optional[list], scale: Optional[float],
                          return_lse: bool, check_values: bool) -> tuple:
    """The real implementation of fmha::attention_varlen (CUDA tensors)."""
    import torch
    from . import torch_ops
    _check(torch, q, k, v, cu_q, cu_k, max_seqlen_q, max_seqlen_k, causal,
           window, scale)
    if q.device.type != "cuda":
        raise ValueError(f"{WHAT} needs CUDA tensors, got {q.device}")
    o, lse = outputs(torch, q, return_lse)
    batch = int(cu_q.shape[0]) - 1
    total_q, total_k = int(q.shape[0]), int(k.shape[0])
    if check_values:
        _values_checked(torch, cu_q, cu_k, total_q, total_k, max_seqlen_q,
                        max_seqlen_k)
    if batch == 0 or total_q == 0 or max_seqlen_q == 0 or q.shape[1] == 0:
        return o, lse
    if total_k == 0:
        # No keys: every row sees none (a tensor map cannot be empty).
        o.zero_()
        lse.fill_(float("-inf"))
        return o, lse
    tensors = {"q": torch_ops._tma_ready_nd(q), "k": torch_ops._tma_ready_nd(k),
               "v": torch_ops._tma_ready_nd(v),
               "cu_seqlens_q": cu_q.contiguous(),
               "cu_seqlens_k": cu_k.contiguous(), "o": o}
    if return_lse:
        tensors["lse"] = lse
    tensors["B"] = batch
    tensors["MAXQ"] = int(max_seqlen_q)

    tuning_args = _ops.with_fresh_outputs(
        tensors, lambda: outputs(torch, q, return_lse))

    with torch_ops._on_device(torch, q.device):
        kernel = _kernel(torch, q, batch, int(max_seqlen_q),
                         int(max_seqlen_k), causal, window, scale,
                         return_lse, tuning_args)
        kernel.launch(tensors)
    return o, lse


def _values_checked(torch: Any, cu_q: Any, cu_k: Any, total_q: int,
                    total_k: int, max_seqlen_q: int,
                    max_seqlen_k: int, what: str = WHAT) -> None:
    """check_cu_seqlens on the device tensors, through one device-to-host
    copy of both (a synchronization); not while a CUDA graph is being
    captured or torch.compile traces."""
    if _ops.skip_value_checks(torch):
        return
    values = torch.cat((cu_q, cu_k)).tolist()
    n = int(cu_q.shape[0])
    check_cu_seqlens(values[:n], values[n:], total_q, total_k, max_seqlen_q,
                     max_seqlen_k, what)


def attention_varlen_fast(torch: Any, q: Any, k: Any, v: Any, cu_q: Any,
                          cu_k: Any, max_seqlen_q: Any, max_seqlen_k: Any,
                          causal: bool, window: Optional[tuple],
                          scale: Optional[float], return_lse: bool,
                          check_values: bool) -> Any:
    """The eager fast path (as fmha.attention's, fmha.torch_ops): the
    first call of a layout (shapes, strides, dtypes, devices, maxima,
    options) checks everything and binds a launch; later ones check the
    addresses' alignment, the current device and (``check_values``) the
    cu_seqlens values, allocate the outputs and launch. ``(o, lse)``, or
    None when the call must go through the custom op."""
    from . import torch_ops
    tensor, compiling, grad, get_device, raw_stream = \
        torch_ops._fast_env(torch)
    if (type(q) is not tensor or type(k) is not tensor
            or type(v) is not tensor or type(cu_q) is not tensor
            or type(cu_k) is not tensor or compiling()
            or type(max_seqlen_q) is not int
            or type(max_seqlen_k) is not int):
        return None
    if grad() and (q.requires_grad or k.requires_grad or v.requires_grad):
        return None
    device = q.device
    key = ("varlen", q.shape, q.stride(), k.shape, k.stride(), v.shape,
           v.stride(), cu_q.shape, cu_k.shape, cu_q.stride(), cu_k.stride(),
           q.dtype, k.dtype, v.dtype, cu_q.dtype, cu_k.dtype, device,
           k.device, v.device, cu_q.device, cu_k.device, max_seqlen_q,
           max_seqlen_k, causal, window, scale, return_lse)
    bound = torch_ops._FAST.get(key)
    first = None
    if bound is None:
        if (q.dim() != 3 or k.dim() != 3 or cu_q.dim() != 1
                or cu_k.dim() != 1 or device.type != "cuda"
                or cu_q.shape[0] < 2 or 0 in q.shape or 0 in k.shape
                or max_seqlen_q < 1
                or not (torch_ops._tma_layout(q) and torch_ops._tma_layout(k)
                        and torch_ops._tma_layout(v))
                or not (cu_q.is_contiguous() and cu_k.is_contiguous())
                or device.index != get_device()):
            return None
        _check(torch, q, k, v, cu_q, cu_k, max_seqlen_q, max_seqlen_k,
               causal, None if window is None else list(window), scale)
        if (q.data_ptr() | k.data_ptr() | v.data_ptr()) & 15:
            return None
        if check_values:
            _values_checked(torch, cu_q, cu_k, int(q.shape[0]),
                            int(k.shape[0]), max_seqlen_q, max_seqlen_k)
            check_values = False  # checked for this call
        o, lse = outputs(torch, q, return_lse)
        tensors = {"q": q, "k": k, "v": v, "cu_seqlens_q": cu_q,
                   "cu_seqlens_k": cu_k, "o": o}
        if return_lse:
            tensors["lse"] = lse
        batch = int(cu_q.shape[0]) - 1
        order = tuple(tensors)
        tensors["B"] = batch
        tensors["MAXQ"] = max_seqlen_q

        tuning_args = _ops.with_fresh_outputs(
            tensors, lambda: outputs(torch, q, return_lse))

        kernel = _kernel(torch, q, batch, max_seqlen_q, max_seqlen_k,
                         causal, None if window is None else list(window),
                         scale, return_lse, tuning_args)
        bound = kernel.bind(tensors, order=order)
        torch_ops._remember(key, bound)
        first = (o, lse)
    elif device.index != get_device():
        return None
    ptrs = (q.data_ptr(), k.data_ptr(), v.data_ptr())
    if (ptrs[0] | ptrs[1] | ptrs[2]) & 15:
        return None
    if check_values:
        _values_checked(torch, cu_q, cu_k, int(q.shape[0]), int(k.shape[0]),
                        max_seqlen_q, max_seqlen_k)
    o, lse = first or outputs(torch, q, return_lse)
    ptrs += (cu_q.data_ptr(), cu_k.data_ptr(), o.data_ptr())
    if return_lse:
        ptrs += (lse.data_ptr(),)
    bound.run(ptrs, raw_stream(device.index))
    return o, lse


def define(torch: Any) -> Any:
    """Defines the custom op ``fmha::attention_varlen`` and its fake
    implementation (for torch.compile); returns the op (its autograd
    formula is fmha.varlen_backward's)."""
    Tensor = torch.Tensor

    @torch.library.custom_op("fmha::attention_varlen", mutates_args=())
    def attention_varlen(q: Tensor, k: Tensor, v: Tensor,
                         cu_seqlens_q: Tensor, cu_seqlens_k: Tensor,
                         max_seqlen_q: int, max_seqlen_k: int, causal: bool,
                         window: Optional[list[int]], scale: Optional[float],
                         return_lse: bool,
                         check_values: bool) -> tuple[Tensor, Tensor]:
        return attention_varlen_impl(q, k, v, cu_seqlens_q, cu_seqlens_k,
                                     max_seqlen_q, max_seqlen_k, causal,
                                     window, scale, return_lse, check_values)

    @attention_varlen.register_fake
    def _(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
          causal, window, scale, return_lse, check_values):
        _check(torch, q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
               max_seqlen_k, causal, window, scale)
        return outputs(torch, q, return_lse)

    return attention_varlen


def attention_varlen(q: Any, k: Any, v: Any, cu_seqlens_q: Any,
                     cu_seqlens_k: Any, max_seqlen_q: int,
                     max_seqlen_k: int, causal: bool = False,
                     window: Optional[tuple] = None,
                     scale: Optional[float] = None, return_lse: bool = False,
                     check_values: bool = True) -> Any:
    """Fused attention forward over variable-length sequences, packed as
    FlashAttention's ``flash_attn_varlen_func`` takes them, on a Hopper GPU.

    ``q``: ``[total_q, heads_q, head_dim]``; ``k``, ``v``: ``[total_k,
    heads_kv, head_dim]`` (``heads_q`` a multiple of ``heads_kv``: GQA and
    MQA); bf16 or f16, one dtype; ``head_dim`` 64, 128 or 256.
    ``cu_seqlens_q``, ``cu_seqlens_k``: ``[batch + 1]`` int32 on the same
    device, the prefix sums of the sequence lengths (starting at 0, ending
    at the totals); a sequence may be empty. ``max_seqlen_q``,
    ``max_seqlen_k``: the longest sequences (ints; the query one sizes the
    grid). ``causal``, ``window=(left, right)`` and ``scale`` as in
    fmha.attention, the diagonal aligned bottom-right with each sequence's
    own lengths.

    Returns ``o`` (``[total_q, heads_q, head_dim]``) and, with
    ``return_lse``, ``(o, lse)`` with ``lse`` ``[heads_q, total_q]`` f32
    (FlashAttention's varlen layout); a row that sees no key gets ``o = 0``
    and ``lse = -inf``.

    Before the launch the cu_seqlens are copied to the host and checked
    (sorted, starting at 0, ending at the totals, lengths within the
    maxima): a ValueError names the first broken rule. That copy is a
    synchronization: ``check_values=False`` skips it, and it is skipped
    while a CUDA graph is being captured and under torch.compile tracing.
    Unchecked bad values cannot make the kernel read or write outside the
    tensors (it clamps every bound to the totals), but rows of ``o`` that no
    sequence covers are left as they were allocated. Works under
    ``torch.compile(fullgraph=True)`` and in CUDA graphs.

    Differentiable (head_dim 64 or 128): when autograd records the call
    (grad mode on, an input requiring a gradient) the kernel also computes
    lse, and ``backward()`` runs fmha.attention_varlen_backward's kernels
    (the cu_seqlens' values checked by this call are not checked again).
    ``lse`` is not differentiable. head_dim 256 has no backward: such
    calls raise NotImplementedError when autograd would record them.
    """
    torch = _ops._torch(WHAT)
    from .backward import needs_grad
    from .varlen_backward import check_grad_supported
    check_grad_supported(torch, q, k, v)
    scale, window = _ops.mask_arguments(scale, window)
    if (window is None or type(window) is tuple) and \
            isinstance(check_values, bool):
        fast = attention_varlen_fast(
            torch, q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
            max_seqlen_k, causal, window, scale, return_lse, check_values)
        if fast is not None:
            return fast if return_lse else fast[0]
    # A call autograd records keeps lse for the backward (the op's
    # autograd formula, fmha.varlen_backward); lse is not differentiable.
    # Eager, it skips the custom op's dispatch.
    if (window is None or type(window) is tuple) and \
            isinstance(check_values, bool) and needs_grad(torch, q, k, v):
        from .varlen_backward import attention_varlen_recorded
        recorded = attention_varlen_recorded(
            torch, q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
            max_seqlen_k, causal, window, scale, check_values)
        if recorded is not None:
            return recorded if return_lse else recorded[0]
    o, lse = torch.ops.fmha.attention_varlen(
        q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
        causal, None if window is None else list(window), scale,
        return_lse or needs_grad(torch, q, k, v), check_values)
    return (o, lse) if return_lse else o
