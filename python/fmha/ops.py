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

from typing import Any, Optional

from . import torch_ops
from .specs import GemmSpec

ALIGNMENT = 16
# Compute capability -> the target fmha compiles for it.
TARGETS = {(9, 0): "sm_90a"}
# torch dtype names (str(dtype) without "torch.") <-> fmha's names.
TORCH_TO_FMHA = {"bfloat16": "bf16", "float16": "f16", "float32": "f32"}


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


def gemm_spec(dtype: str, out_dtype: str, target: str = "sm_90a") \
        -> GemmSpec:
    """The spec fmha.gemm compiles for these types (dynamic M, N, K): the
    GemmSpec defaults, with 2 stages for an f32 output (3 stages and an
    f32 C staging tile do not fit in shared memory)."""
    stages = 2 if out_dtype == "f32" else 3
    return GemmSpec(dtype=dtype, out_dtype=out_dtype, stages=stages,
                    target=target)


def fmha_dtype(dtype: Any) -> Optional[str]:
    """fmha's name of a torch dtype (``torch.bfloat16`` -> ``bf16``), or
    None."""
    return TORCH_TO_FMHA.get(str(dtype).removeprefix("torch."))


def _register(what: str) -> None:
    if not torch_ops.register():
        raise ImportError(f"{what} needs PyTorch (import torch failed); "
                          "fmha.compile and fmha.runtime work without it")


def gemm(a: Any, b: Any, out_dtype: Any = None, *,
         b_transposed: bool = True) -> Any:
    """``a @ b.T`` with fp32 accumulation, on a Hopper GPU.

    ``a``: ``[..., K]`` (bf16 or f16; leading dimensions are flattened into
    M); ``b``: ``[N, K]``, same dtype, the layout of a ``torch.nn.Linear``
    weight, so ``fmha.gemm(x, w)`` is ``x @ w.T``. ``b_transposed=False``
    (b given as ``[K, N]``) is not supported yet. ``out_dtype``:
    ``torch.bfloat16``, ``torch.float16`` or ``torch.float32``; default
    ``a.dtype``. Returns ``[..., N]``; when a row of ``N`` elements is not a
    multiple of 16 bytes the result is a view of a row-padded buffer (row
    stride fmha.ops.padded_row_stride(N, itemsize)). Inputs whose rows
    break TMA's 16-byte rules are copied into padded buffers first.

    Compiles (once, cached on disk) a kernel for the dtypes, then launches
    it on the current stream. Works under ``torch.compile``.
    """
    if not b_transposed:
        raise NotImplementedError(
            "fmha.gemm: b given as [K, N] (b_transposed=False) is not "
            "supported yet; pass b as [N, K] (e.g. b.t().contiguous() or a "
            "Linear weight as is)")
    _register("fmha.gemm")
    import torch
    if a.dim() < 2 or b.dim() != 2:
        raise ValueError(f"fmha.gemm: a must be [..., K] and b [N, K], got "
                         f"shapes {list(a.shape)} and {list(b.shape)}")
    if a.dim() == 2:
        return torch.ops.fmha.gemm(a, b, out_dtype)
    lead = a.shape[:-1]
    c = torch.ops.fmha.gemm(a.reshape(-1, a.shape[-1]), b, out_dtype)
    return c.view(*lead, c.shape[-1])


def attention(q: Any, k: Any, v: Any, causal: bool = False,
              window: Optional[tuple] = None, scale: Optional[float] = None,
              return_lse: bool = False) -> Any:
    """Fused attention forward: ``softmax(scale * q @ k^T + mask) @ v``.

    ``q``: ``[batch, heads_q, seq_q, head_dim]``; ``k``, ``v``: ``[batch,
    heads_kv, seq_k, head_dim]`` (``heads_q`` a multiple of ``heads_kv``);
    bf16 or f16; ``head_dim`` 64, 128 or 256. ``causal``, ``window=(left,
    right)`` (key distances, bottom-right aligned), ``scale`` (default
    ``1/sqrt(head_dim)``). Returns ``o`` like ``q``, and ``lse``
    (``[batch, heads_q, seq_q]``, f32, natural log) when ``return_lse``.

    Not supported yet: the compiler does not expand attention kernels, so
    this raises fmha.CompileError with its message (its fake
    implementation already works under ``torch.compile``).
    """
    _register("fmha.attention")
    import torch
    o, lse = torch.ops.fmha.attention(
        q, k, v, causal, None if window is None else list(window), scale,
        return_lse)
    return (o, lse) if return_lse else o
