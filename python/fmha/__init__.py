"""fmha: warp-specialized attention and GEMM kernels for Hopper and Blackwell.

- ``fmha.compile(spec) -> CompiledKernel``: compiles a kernel spec
  (``GemmSpec``, ``AttentionSpec``) with the fmha compiler, caching the
  artifacts on disk (fmha.cache); a cache hit needs no compiler.
- ``fmha.gemm(a, b)``, ``fmha.attention(q, k, v, ...)``,
  ``fmha.attention_varlen(q, k, v, cu_seqlens_q, ...)``,
  ``fmha.attention_kvcache(q, k_cache, v_cache, cache_seqlens, ...)``,
  ``fmha.merge_states(o_a, lse_a, o_b, lse_b)``: the kernels on
  PyTorch tensors, as PyTorch custom ops (``torch.ops.fmha.*``) that work
  under ``torch.compile``.
- ``fmha.attention_backward(...)``, ``fmha.attention_varlen_backward(...)``:
  the gradients of the attention forwards, which are differentiable
  (autograd runs these kernels).
- ``fmha.runtime`` launches compiled kernels (cubin + JSON manifest)
  through the CUDA driver API.

Importing the package needs neither PyTorch nor a GPU nor the compiler.
"""

__version__ = "0.1.0"

from .compiler import CompiledKernel, CompileError, compile
from .ops import attention, gemm
from .backward import attention_backward
from .kvcache import attention_kvcache
from .merge import merge_states
from .varlen import attention_varlen
from .varlen_backward import attention_varlen_backward
from .specs import (AttentionBackwardSpec, AttentionSpec, GemmSpec,
                    MergeSpec)

__all__ = [
    "AttentionBackwardSpec", "AttentionSpec", "CompileError",
    "CompiledKernel", "GemmSpec", "MergeSpec", "__version__", "attention",
    "attention_backward", "attention_kvcache", "attention_varlen",
    "attention_varlen_backward", "compile", "gemm", "merge_states",
]
