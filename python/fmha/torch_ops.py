"""PyTorch custom ops ``fmha::gemm`` and ``fmha::attention``.

:func:`register` defines them with ``torch.library.custom_op`` (each with a
fake implementation, so ``torch.compile(fullgraph=True)`` traces them
without graph breaks, and an autograd formula for the GEMM). fmha.gemm and
fmha.attention call it on first use; it is harmless without PyTorch
(returns False) and when called again. It is marked as a compile-time
constant for TorchDynamo, so a first call inside ``torch.compile`` runs it
eagerly instead of tracing it.

Imports PyTorch only inside :func:`register`.
"""

import threading
from typing import Any, Optional

from . import ops as _ops

_REGISTERED = False
_LOCK = threading.Lock()
# (a.device, b.device, a.dtype, b.dtype, out dtype) -> fmha.runtime.Kernel
_GEMM_KERNELS: dict = {}
# (device, AttentionSpec) -> fmha.runtime.Kernel
_ATTENTION_KERNELS: dict = {}
_TARGETS: dict = {}


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
    # No branch on stride == n: under torch.compile n may be symbolic.
    return buffer.as_strided((m, n), (stride, 1))


def _check_gemm(torch: Any, a: Any, b: Any, out_dtype: Any) -> Any:
    """Checks the operands; returns the output dtype."""
    if a.dim() != 2 or b.dim() != 2:
        raise ValueError(f"fmha.gemm: a must be [M, K] and b [N, K], got "
                         f"shapes {list(a.shape)} and {list(b.shape)}")
    if _ops.fmha_dtype(a.dtype) not in ("bf16", "f16"):
        raise TypeError(f"fmha.gemm: a must be bfloat16 or float16, got "
                        f"{a.dtype}")
    if b.dtype != a.dtype:
        raise TypeError(f"fmha.gemm: b has dtype {b.dtype} but a has "
                        f"{a.dtype}; they must match")
    out = a.dtype if out_dtype is None else out_dtype
    if _ops.fmha_dtype(out) is None:
        raise TypeError(f"fmha.gemm: out_dtype must be bfloat16, float16 or "
                        f"float32, got {out}")
    if a.device != b.device:
        raise ValueError(f"fmha.gemm: a is on {a.device} but b on "
                         f"{b.device}")
    torch._check(a.shape[1] == b.shape[1], lambda: (
        f"fmha.gemm: a is [M, K] = {list(a.shape)} and b [N, K] = "
        f"{list(b.shape)}: their K differ"))
    return out


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


def _gemm_kernel(torch: Any, a: Any, b: Any, out: Any) -> Any:
    """The runtime Kernel for these operands (compiled or found in the
    cache on first use), after the checks that depend only on dtypes and
    devices; memoized per (devices, dtypes), so later calls skip them."""
    key = (a.device, b.device, a.dtype, b.dtype, out)
    kernel = _GEMM_KERNELS.get(key)
    if kernel is None:
        _check_gemm(torch, a, b, out)
        if a.device.type != "cuda":
            raise ValueError(f"fmha.gemm needs CUDA tensors, got "
                             f"{a.device}")
        from .compiler import compile
        spec = _ops.gemm_spec(_ops.fmha_dtype(a.dtype), _ops.fmha_dtype(out),
                              _target(torch, a.device))
        kernel = _GEMM_KERNELS[key] = compile(spec).kernel
    return kernel


def gemm_impl(a: Any, b: Any, out_dtype: Any = None) -> Any:
    """The real implementation of fmha::gemm (CUDA tensors)."""
    import torch
    out = a.dtype if out_dtype is None else out_dtype
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[1]:
        _check_gemm(torch, a, b, out)  # raises, naming the mistake
    kernel = _gemm_kernel(torch, a, b, out)
    m, n = a.shape[0], b.shape[0]
    c = gemm_output(torch, m, n, out, a.device)
    if m == 0 or n == 0:
        return c
    if a.shape[1] == 0:
        return c.zero_()
    tensors = {"a": _tma_ready(torch, a), "b": _tma_ready(torch, b), "c": c}
    if a.device.index != torch.cuda.current_device():
        with torch.cuda.device(a.device):
            kernel.launch(tensors)
    else:
        kernel.launch(tensors)
    return c


def _check_attention(torch: Any, q: Any, k: Any, v: Any, causal: bool,
                     window: Optional[list], scale: Optional[float]) -> None:
    """fmha.ops.check_attention_args on the tensors; relations between
    sizes through torch._check (sizes may be symbolic under
    torch.compile)."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"fmha.attention: {name} must be a torch.Tensor, "
                            f"got {type(t).__name__}")

    def check(cond: Any, message: Any) -> None:
        if isinstance(cond, bool):
            if not cond:
                raise ValueError(message())
        else:
            torch._check(cond, message)

    _ops.check_attention_args(
        tuple(q.shape), tuple(k.shape), tuple(v.shape),
        tuple(_ops.fmha_dtype(t.dtype) for t in (q, k, v)), causal, window,
        scale, check)
    if not (q.device == k.device == v.device):
        raise ValueError(f"fmha.attention: q, k, v must be on one device, "
                         f"got {q.device}, {k.device}, {v.device}")


def _attention_outputs(torch: Any, q: Any, return_lse: bool) -> tuple:
    """``o`` (contiguous, like q) and ``lse`` (``[batch, heads_q, seq_q]``
    f32, contiguous; ``[0]`` without ``return_lse``)."""
    o = torch.empty(q.shape, dtype=q.dtype, device=q.device)
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


def _attention_kernel(torch: Any, q: Any, causal: bool,
                      window: Optional[list], scale: Optional[float],
                      return_lse: bool) -> Any:
    """The runtime Kernel of a call (compiled or found in the cache on
    first use), memoized per device and spec."""
    target = _target(torch, q.device)
    spec = attention_spec(q, q, causal, window, scale, return_lse, target)
    key = (q.device, spec)
    kernel = _ATTENTION_KERNELS.get(key)
    if kernel is None:
        from .compiler import compile
        kernel = _ATTENTION_KERNELS[key] = compile(spec).kernel
    return kernel


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
    kernel = _attention_kernel(torch, q, causal, window, scale, return_lse)
    tensors = {"q": _tma_ready_nd(q), "k": _tma_ready_nd(k),
               "v": _tma_ready_nd(v), "o": o}
    if return_lse:
        tensors["lse"] = lse
    if q.device.index != torch.cuda.current_device():
        with torch.cuda.device(q.device):
            kernel.launch(tensors)
    else:
        kernel.launch(tensors)
    return o, lse


# -- registration -----------------------------------------------------------


def _define(torch: Any) -> None:
    Tensor = torch.Tensor

    @torch.library.custom_op("fmha::gemm", mutates_args=())
    def gemm(a: Tensor, b: Tensor,
             out_dtype: Optional[torch.dtype] = None) -> Tensor:
        return gemm_impl(a, b, out_dtype)

    @gemm.register_fake
    def _(a, b, out_dtype=None):
        out = _check_gemm(torch, a, b, out_dtype)
        return gemm_output(torch, a.shape[0], b.shape[0], out, a.device)

    def setup_context(ctx, inputs, output):
        a, b, _ = inputs
        ctx.save_for_backward(a, b)

    def backward(ctx, grad):
        # dA = dC @ B and dB = dC^T @ A, through PyTorch's matmul.
        a, b = ctx.saved_tensors
        grad = grad.to(a.dtype)
        da = grad @ b if ctx.needs_input_grad[0] else None
        db = grad.t() @ a if ctx.needs_input_grad[1] else None
        return da, db, None

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
