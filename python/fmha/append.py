"""Writing new tokens' keys and values into a KV cache: the compiled
``fmha.append_kv`` kernel behind ``fmha.attention_kvcache``'s ``k_new`` and
``v_new``.

One kernel per dtype, head dim and page size (none for a dense cache)
copies the new rows of every sequence and KV head to positions
``cache_seqlens[b]`` on, through the block table when paged, and writes
nothing for a position outside the cache or a page outside the pool
(docs/Serving.md). Eager calls launch a launch bound once per layout; the
custom op ``fmha::append_kv`` (which mutates the caches) serves
torch.compile and the calls the bound path declines.
"""

from typing import Any, Optional

from . import ops as _ops
from .specs import AppendSpec

# (device, dtype, head_dim, page_size) -> fmha.runtime.Kernel.
_KERNELS: dict = {}
# Bound launches by layout (shapes, strides, dtypes, device).
_BOUND: dict = {}


def _kernel(torch: Any, device: Any, dtype: str, head_dim: int,
            page_size: Optional[int]) -> Any:
    from .torch_ops import compiled_kernel
    return compiled_kernel(
        torch, _KERNELS, device, (dtype, head_dim, page_size),
        lambda target: AppendSpec(dtype=dtype, head_dim=head_dim,
                                  page_size=page_size, target=target))


def _tensors(k_cache: Any, v_cache: Any, seqlens: Any, table: Optional[Any],
             k_new: Any, v_new: Any) -> dict:
    """The kernel's tensors by name, in its parameters' order."""
    tensors = {"k_new": k_new, "v_new": v_new, "cache_seqlens": seqlens}
    if table is not None:
        tensors["block_table"] = table
    tensors["k_cache"] = k_cache
    tensors["v_cache"] = v_cache
    return tensors


def append_kv_impl(k_cache: Any, v_cache: Any, seqlens: Any,
                   table: Optional[Any], k_new: Any, v_new: Any) -> None:
    """Writes ``k_new`` and ``v_new`` (``[batch, seq_new, heads_kv,
    head_dim]``) into the caches at positions ``seqlens[b]`` on, through
    ``table`` when paged (arguments checked by the caller; CUDA tensors,
    caches whose rows 16-byte loads and stores address)."""
    import torch
    from .torch_ops import BOUND_LIMIT, _fast_env, _on_device, remember
    if 0 in k_new.shape or 0 in k_cache.shape:
        return
    for name, cache in (("k_cache", k_cache), ("v_cache", v_cache)):
        if not _ops.rows_aligned(cache):
            raise ValueError(
                f"fmha.attention_kvcache: writing k_new and v_new needs "
                f"{name}'s rows 16-byte aligned (innermost stride 1, other "
                f"strides and the address multiples of 16 bytes), got "
                f"strides {list(cache.stride())}")
    if not _ops.rows_aligned(k_new):
        k_new = k_new.contiguous()
    if not _ops.rows_aligned(v_new):
        v_new = v_new.contiguous()
    seqlens = seqlens.contiguous()
    if table is not None:
        table = table.contiguous()
        if 0 in table.shape:
            return
    device = k_cache.device
    _, _, _, get_device, raw_stream = _fast_env(torch)
    tensors = _tensors(k_cache, v_cache, seqlens, table, k_new, v_new)
    if device.index != get_device():
        with _on_device(torch, device):
            _launch_kernel(torch, tensors, table)
        return
    key = _layout_key(tensors)
    bound = _BOUND.get(key)
    if bound is None:
        kernel = _launch_kernel(torch, tensors, table, launch=False)
        bound = remember(_BOUND, key,
                         kernel.bind(tensors, order=tuple(tensors)),
                         BOUND_LIMIT)
    bound.run(tuple(t.data_ptr() for t in tensors.values()),
              raw_stream(device.index))


def _layout_key(tensors: dict) -> tuple:
    """The bound launches' key: the tensors' names, shapes, strides, dtypes
    and devices."""
    return tuple((name, t.shape, t.stride(), t.dtype, t.device)
                 for name, t in tensors.items())


def append_fast(torch: Any, k_cache: Any, v_cache: Any, seqlens: Any,
                table: Optional[Any], k_new: Any, v_new: Any,
                check_values: bool, values_checked: Any) -> Optional[Any]:
    """The eager fast path of fmha.attention_kvcache's k_new and v_new:
    when a launch is bound for this layout (so a call of it passed every
    check), checks the addresses' alignment and the current device, the
    values with ``check_values`` (``values_checked(lengths)``), launches
    and returns the lengths after the new tokens; None when the call must
    take the checked path (fmha.kvcache.append_to_cache)."""
    from .torch_ops import _fast_env
    tensor, compiling, _, get_device, raw_stream = _fast_env(torch)
    if compiling() or type(k_new) is not tensor or \
            type(v_new) is not tensor or type(seqlens) is not tensor or \
            type(k_cache) is not tensor or type(v_cache) is not tensor or \
            (table is not None and type(table) is not tensor):
        return None
    tensors = _tensors(k_cache, v_cache, seqlens, table, k_new, v_new)
    bound = _BOUND.get(_layout_key(tensors))
    device = k_cache.device
    if bound is None or device.index != get_device():
        return None
    ptrs = tuple(t.data_ptr() for t in tensors.values())
    if (k_new.data_ptr() | v_new.data_ptr() | k_cache.data_ptr()
            | v_cache.data_ptr()) & 15:
        return None
    lengths = seqlens + k_new.shape[1]
    if check_values:
        values_checked(lengths)
    bound.run(ptrs, raw_stream(device.index))
    return lengths


def _launch_kernel(torch: Any, tensors: dict, table: Optional[Any],
                   launch: bool = True) -> Any:
    """The kernel of ``tensors``, launched on them unless ``launch`` is
    False."""
    k_cache = tensors["k_cache"]
    kernel = _kernel(torch, k_cache.device, _ops.fmha_dtype(k_cache.dtype),
                     int(k_cache.shape[-1]),
                     None if table is None else int(k_cache.shape[1]))
    if launch:
        kernel.launch(tensors)
    return kernel


def define(torch: Any) -> None:
    """Defines the custom op ``fmha::append_kv`` (it writes the caches in
    place) and its fake implementation (for torch.compile)."""
    Tensor = torch.Tensor

    @torch.library.custom_op("fmha::append_kv",
                             mutates_args=("k_cache", "v_cache"))
    def append_kv(k_cache: Tensor, v_cache: Tensor, cache_seqlens: Tensor,
                  block_table: Optional[Tensor], k_new: Tensor,
                  v_new: Tensor) -> None:
        append_kv_impl(k_cache, v_cache, cache_seqlens, block_table, k_new,
                       v_new)

    @append_kv.register_fake
    def _(k_cache, v_cache, cache_seqlens, block_table, k_new, v_new):
        return None


def append_kv(torch: Any, k_cache: Any, v_cache: Any, seqlens: Any,
              table: Optional[Any], k_new: Any, v_new: Any) -> None:
    """append_kv_impl for plain eager tensors, else the custom op."""
    tensor = torch.Tensor
    if not torch.compiler.is_compiling() and all(
            type(t) is tensor for t in (k_cache, v_cache, seqlens, k_new,
                                        v_new)) and \
            (table is None or type(table) is tensor):
        append_kv_impl(k_cache, v_cache, seqlens, table, k_new, v_new)
    else:
        torch.ops.fmha.append_kv(k_cache, v_cache, seqlens, table, k_new,
                                 v_new)
