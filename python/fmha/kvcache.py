"""``fmha.attention_kvcache``: attention against KV caches, dense or paged.

The arguments are those of FlashAttention's ``flash_attn_with_kvcache``:
``q`` ``[batch, seq_q, heads_q, head_dim]``; ``k_cache`` and ``v_cache``
``[batch, max_len, heads_kv, head_dim]`` (dense) or, with a ``block_table``
``[batch, max_pages]`` int32, pools of pages ``[num_pages, page_size,
heads_kv, head_dim]``; ``cache_seqlens`` ``[batch]`` int32, the keys each
sequence has. The kernel is ``fmha.attention ... kvcache``
(include/fmha/Dialect/FMHA/IR/FMHAOps.td).

The checks that need only shapes and dtypes are pure functions here
(testable without PyTorch); :func:`check_cache_values` checks the values
once they are on the host. The custom op ``torch.ops.fmha.attention_kvcache``
is defined by :func:`define` (fmha.torch_ops.register calls it).
"""

from typing import Any, Callable, Optional, Sequence

from . import ops as _ops
from . import tuning
from .specs import ATTENTION_HEAD_DIMS, I32_MAX

WHAT = "fmha.attention_kvcache"
PAGE_SIZES = (16, 32, 64, 128, 256)


def check_kvcache_args(q_shape: Sequence, k_shape: Sequence,
                       v_shape: Sequence, seqlens_shape: Sequence,
                       table_shape: Optional[Sequence], dtypes: tuple,
                       index_dtypes: tuple, causal: bool = False,
                       window: Optional[Any] = None,
                       scale: Optional[float] = None,
                       check: Callable = _ops._require) -> None:
    """Checks fmha.attention_kvcache's arguments from their shapes and
    dtype names (``bf16``, ``f16``, ``i32``, or None for another type);
    ``table_shape`` is None for dense caches, and ``index_dtypes`` holds
    the dtypes of cache_seqlens (and block_table). ValueError (shapes, page
    size, window, scale) or TypeError (dtypes), naming the mistake.
    Relations between sizes go through ``check(cond, message)``
    (``torch._check`` under torch.compile)."""
    paged = table_shape is not None
    cache = ("[num_pages, page_size, heads_kv, head_dim]" if paged
             else "[batch, max_len, heads_kv, head_dim]")
    if len(q_shape) != 4 or len(k_shape) != 4 or len(v_shape) != 4:
        raise ValueError(
            f"{WHAT}: q must be [batch, seq_q, heads_q, head_dim] and "
            f"k_cache, v_cache {cache}, got shapes {list(q_shape)}, "
            f"{list(k_shape)}, {list(v_shape)}")
    if len(seqlens_shape) != 1:
        raise ValueError(f"{WHAT}: cache_seqlens must be [batch], got shape "
                         f"{list(seqlens_shape)}")
    if paged and len(table_shape) != 2:
        raise ValueError(f"{WHAT}: block_table must be [batch, max_pages], "
                         f"got shape {list(table_shape)}")
    qd, kd, vd = dtypes
    if qd not in ("bf16", "f16"):
        raise TypeError(f"{WHAT}: q must be bfloat16 or float16, got "
                        f"{qd or 'another type'}")
    if kd != qd or vd != qd:
        raise TypeError(f"{WHAT}: q, k_cache, v_cache must have one dtype, "
                        f"got {qd}, {kd or 'another type'}, "
                        f"{vd or 'another type'}")
    for name, dtype in zip(("cache_seqlens", "block_table"), index_dtypes):
        if dtype != "i32":
            raise TypeError(f"{WHAT}: {name} must be int32, got "
                            f"{dtype or 'another type'}")
    _ops.check_mask_options(WHAT, causal, window, scale)
    check(k_shape[3] == q_shape[3] and v_shape[3] == q_shape[3], lambda: (
        f"{WHAT}: q, k_cache, v_cache must have one head_dim, got shapes "
        f"{list(q_shape)}, {list(k_shape)}, {list(v_shape)}"))
    if q_shape[3] not in ATTENTION_HEAD_DIMS:
        raise ValueError(
            f"{WHAT}: head_dim must be one of "
            f"{', '.join(map(str, ATTENTION_HEAD_DIMS))}, got {q_shape[3]}")
    check(all(k == v for k, v in zip(k_shape, v_shape)), lambda: (
        f"{WHAT}: k_cache and v_cache must have one shape {cache}, got "
        f"{list(k_shape)} and {list(v_shape)}"))
    check(k_shape[2] >= 1, lambda: (
        f"{WHAT}: the caches need at least one head, got shape "
        f"{list(k_shape)}"))
    check(q_shape[2] % k_shape[2] == 0, lambda: (
        f"{WHAT}: heads_q ({q_shape[2]}) must be a multiple of heads_kv "
        f"({k_shape[2]}): each K/V head serves a group of query heads"))
    check(seqlens_shape[0] == q_shape[0], lambda: (
        f"{WHAT}: cache_seqlens must have one entry per sequence (batch "
        f"{q_shape[0]}), got {seqlens_shape[0]}"))
    if paged:
        if k_shape[1] not in PAGE_SIZES:
            raise ValueError(
                f"{WHAT}: page_size (dim 1 of k_cache) must be one of "
                f"{', '.join(map(str, PAGE_SIZES))}, got {k_shape[1]}")
        check(table_shape[0] == q_shape[0], lambda: (
            f"{WHAT}: block_table must have one row per sequence (batch "
            f"{q_shape[0]}), got {table_shape[0]}"))
        check(table_shape[1] * k_shape[1] <= I32_MAX, lambda: (
            f"{WHAT}: a sequence's capacity max_pages * page_size "
            f"({table_shape[1]} * {k_shape[1]}) must be at most {I32_MAX} "
            f"(i32 in the kernel)"))
    else:
        check(k_shape[0] == q_shape[0], lambda: (
            f"{WHAT}: a dense k_cache must have one row block per sequence "
            f"(batch {q_shape[0]}), got {k_shape[0]} (pass a block_table "
            f"for a paged cache)"))


def check_cache_values(cache_seqlens: Sequence[int],
                       block_table: Optional[Sequence[Sequence[int]]],
                       rows: int, num_pages: int = 0) -> None:
    """Checks the values (host lists): each cache length within [0,
    capacity] (``rows``: max_len, or page_size of a paged cache, whose
    capacity is max_pages pages), and the block-table entries each sequence
    uses (its first ceil(length / page_size)) inside the pool [0,
    num_pages). Raises ValueError naming the first broken rule."""
    if block_table is None:
        capacity, what = rows, f"max_len = {rows}"
    else:
        max_pages = len(block_table[0]) if block_table else 0
        capacity = max_pages * rows
        what = f"max_pages * page_size = {max_pages} * {rows}"
    for b, length in enumerate(cache_seqlens):
        if not 0 <= length <= capacity:
            raise ValueError(f"{WHAT}: cache_seqlens[{b}] = {length} is out "
                             f"of range [0, {capacity}] ({what})")
        if block_table is None:
            continue
        for j in range(-(-length // rows)):
            page = block_table[b][j]
            if not 0 <= page < num_pages:
                raise ValueError(
                    f"{WHAT}: block_table[{b}][{j}] = {page} points outside "
                    f"the pool of {num_pages} pages (sequence {b} has "
                    f"{length} keys, so it uses its first "
                    f"{-(-length // rows)} entries)")


def kvcache_problem(head_dim: int, masked: bool, batch: int, heads: int,
                    seq_q: int, capacity: int) -> tuple:
    """The (category, sizes) of fmha.tuning's selection: attention's
    table, with the cache's capacity standing for the key length."""
    return tuning.attention_problem(head_dim, masked, batch * heads, seq_q,
                                    capacity)


# -- PyTorch ------------------------------------------------------------------


def _check(torch: Any, q: Any, k: Any, v: Any, seqlens: Any,
           table: Optional[Any], causal: bool, window: Optional[list],
           scale: Optional[float]) -> None:
    """check_kvcache_args on the tensors, and their devices."""
    named = [("q", q), ("k_cache", k), ("v_cache", v),
             ("cache_seqlens", seqlens)]
    if table is not None:
        named.append(("block_table", table))
    _ops.check_tensor_types(torch, WHAT, named)

    def name(dtype: Any) -> Optional[str]:
        return _ops.index_or_fmha_dtype(torch, dtype)

    indices = (seqlens,) if table is None else (seqlens, table)
    check_kvcache_args(
        tuple(q.shape), tuple(k.shape), tuple(v.shape), tuple(seqlens.shape),
        None if table is None else tuple(table.shape),
        tuple(name(t.dtype) for t in (q, k, v)),
        tuple(name(t.dtype) for t in indices), causal, window, scale,
        _ops.torch_ops.size_checker(torch))
    _ops.check_one_device(WHAT, named)


def outputs(torch: Any, q: Any, return_lse: bool) -> tuple:
    """``o`` (``[batch, seq_q, heads_q, head_dim]``, contiguous) and ``lse``
    (``[batch, heads_q, seq_q]`` f32; ``[0]`` without ``return_lse``)."""
    o = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    lse_shape = (q.shape[0], q.shape[2], q.shape[1]) if return_lse else (0,)
    lse = torch.empty(lse_shape, dtype=torch.float32, device=q.device)
    return o, lse


def _values_checked(torch: Any, seqlens: Any, table: Optional[Any],
                    rows: int, num_pages: int) -> None:
    """check_cache_values on the device tensors, through one device-to-host
    copy of both (a synchronization); not while a CUDA graph is being
    captured or torch.compile traces."""
    if _ops.skip_value_checks(torch):
        return
    if table is None:
        check_cache_values(seqlens.tolist(), None, rows)
        return
    values = torch.cat((seqlens, table.reshape(-1))).tolist()
    batch = int(seqlens.shape[0])
    width = int(table.shape[1])
    rows_of_table = [values[batch + b * width:batch + (b + 1) * width]
                     for b in range(batch)]
    check_cache_values(values[:batch], rows_of_table, rows, num_pages)


def _kernel(torch: Any, q: Any, capacity: int, page_size: Optional[int],
            causal: bool, window: Optional[list], scale: Optional[float],
            return_lse: bool, launch_args: Any) -> Any:
    """The runtime Kernel of a call, selected by attention's table
    (fmha.tuning) for its head dim, mask, query length and cache capacity;
    a block_n larger than the page is cut to it (fmha.ops.attention_spec)."""
    from . import torch_ops
    target = torch_ops._target(torch, q.device)
    dtype = _ops.fmha_dtype(q.dtype)
    head_dim = int(q.shape[3])
    wkey = None if window is None else tuple(window)
    category, sizes = kvcache_problem(head_dim, causal or window is not None,
                                      int(q.shape[0]), int(q.shape[2]),
                                      max(int(q.shape[1]), 1),
                                      max(capacity, 1))

    def make_spec(config: dict) -> Any:
        return _ops.attention_spec(dtype, head_dim, causal, wkey, scale,
                                   return_lse, target, config, kvcache=True,
                                   page_size=page_size)

    def run(kernel: Any) -> Any:
        return lambda: kernel.launch(launch_args())

    key = ("kvcache", q.device, q.dtype, head_dim, causal, wkey, scale,
           return_lse, page_size)
    return torch_ops._select(torch, q.device, key, category, sizes,
                             make_spec, tuning.attention_candidates(head_dim),
                             run)


def attention_kvcache_impl(q: Any, k: Any, v: Any, seqlens: Any,
                           table: Optional[Any], causal: bool,
                           window: Optional[list], scale: Optional[float],
                           return_lse: bool, check_values: bool) -> tuple:
    """The real implementation of fmha::attention_kvcache (CUDA tensors)."""
    import torch
    from . import torch_ops
    _check(torch, q, k, v, seqlens, table, causal, window, scale)
    if q.device.type != "cuda":
        raise ValueError(f"{WHAT} needs CUDA tensors, got {q.device}")
    o, lse = outputs(torch, q, return_lse)
    rows = int(k.shape[1])
    if check_values:
        _values_checked(torch, seqlens, table, rows, int(k.shape[0]))
    if 0 in q.shape:
        return o, lse
    capacity = rows * (int(table.shape[1]) if table is not None else 1)
    if capacity == 0 or k.shape[0] == 0:
        # No keys: every row sees none (a tensor map cannot be empty).
        o.zero_()
        lse.fill_(float("-inf"))
        return o, lse
    tensors = {"q": torch_ops._tma_ready_nd(q),
               "k": torch_ops._tma_ready_nd(k),
               "v": torch_ops._tma_ready_nd(v),
               "cache_seqlens": seqlens.contiguous(), "o": o}
    if table is not None:
        tensors["block_table"] = table.contiguous()
    if return_lse:
        tensors["lse"] = lse

    tuning_args = _ops.with_fresh_outputs(
        tensors, lambda: outputs(torch, q, return_lse))

    page_size = rows if table is not None else None
    with torch_ops._on_device(torch, q.device):
        kernel = _kernel(torch, q, capacity, page_size, causal, window,
                         scale, return_lse, tuning_args)
        kernel.launch(tensors)
    return o, lse


def attention_kvcache_fast(torch: Any, q: Any, k: Any, v: Any,
                           seqlens: Any, table: Optional[Any], causal: bool,
                           window: Optional[tuple], scale: Optional[float],
                           return_lse: bool, check_values: bool) -> Any:
    """The eager fast path (as fmha.attention_varlen's): the first call of
    a layout (shapes, strides, dtypes, devices, options) checks everything
    and binds a launch; later ones check the addresses' alignment, the
    current device and (``check_values``) the values of cache_seqlens and
    block_table, allocate the outputs and launch. ``(o, lse)``, or None
    when the call must go through the custom op."""
    from . import torch_ops
    tensor, compiling, grad, get_device, raw_stream = \
        torch_ops._fast_env(torch)
    if (type(q) is not tensor or type(k) is not tensor
            or type(v) is not tensor or type(seqlens) is not tensor
            or (table is not None and type(table) is not tensor)
            or compiling()):
        return None
    if grad() and (q.requires_grad or k.requires_grad or v.requires_grad):
        return None
    device = q.device
    table_layout = None if table is None else (
        table.shape, table.stride(), table.dtype, table.device)
    key = ("kvcache", q.shape, q.stride(), k.shape, k.stride(), v.shape,
           v.stride(), seqlens.shape, seqlens.stride(), table_layout,
           q.dtype, k.dtype, v.dtype, seqlens.dtype, device, k.device,
           v.device, seqlens.device, causal, window, scale, return_lse)
    bound = torch_ops._FAST.get(key)
    first = None
    if bound is None:
        if (q.dim() != 4 or k.dim() != 4 or seqlens.dim() != 1
                or device.type != "cuda" or 0 in q.shape or 0 in k.shape
                or (table is not None
                    and (table.dim() != 2 or 0 in table.shape
                         or not table.is_contiguous()))
                or not (torch_ops._tma_layout(q) and torch_ops._tma_layout(k)
                        and torch_ops._tma_layout(v))
                or not seqlens.is_contiguous()
                or device.index != get_device()):
            return None
        _check(torch, q, k, v, seqlens, table, causal,
               None if window is None else list(window), scale)
        if (q.data_ptr() | k.data_ptr() | v.data_ptr()) & 15:
            return None
        rows = int(k.shape[1])
        if check_values:
            _values_checked(torch, seqlens, table, rows, int(k.shape[0]))
            check_values = False  # checked for this call
        o, lse = outputs(torch, q, return_lse)
        tensors = {"q": q, "k": k, "v": v, "cache_seqlens": seqlens}
        if table is not None:
            tensors["block_table"] = table
        tensors["o"] = o
        if return_lse:
            tensors["lse"] = lse
        order = tuple(tensors)

        tuning_args = _ops.with_fresh_outputs(
            tensors, lambda: outputs(torch, q, return_lse))

        capacity = rows * (int(table.shape[1]) if table is not None else 1)
        kernel = _kernel(torch, q, capacity,
                         rows if table is not None else None, causal,
                         None if window is None else list(window), scale,
                         return_lse, tuning_args)
        bound = kernel.bind(tensors, order=order)
        torch_ops._remember(key, bound)
        first = (o, lse)
    elif device.index != get_device():
        return None
    ptrs = (q.data_ptr(), k.data_ptr(), v.data_ptr())
    if (ptrs[0] | ptrs[1] | ptrs[2]) & 15:
        return None
    if check_values:
        _values_checked(torch, seqlens, table, int(k.shape[1]),
                        int(k.shape[0]))
    o, lse = first or outputs(torch, q, return_lse)
    ptrs += (seqlens.data_ptr(),)
    if table is not None:
        ptrs += (table.data_ptr(),)
    ptrs += (o.data_ptr(),)
    if return_lse:
        ptrs += (lse.data_ptr(),)
    bound.run(ptrs, raw_stream(device.index))
    return o, lse


def define(torch: Any) -> None:
    """Defines the custom op ``fmha::attention_kvcache`` and its fake
    implementation (for torch.compile)."""
    Tensor = torch.Tensor

    @torch.library.custom_op("fmha::attention_kvcache", mutates_args=())
    def attention_kvcache(q: Tensor, k_cache: Tensor, v_cache: Tensor,
                          cache_seqlens: Tensor, block_table: Optional[Tensor],
                          causal: bool, window: Optional[list[int]],
                          scale: Optional[float], return_lse: bool,
                          check_values: bool) -> tuple[Tensor, Tensor]:
        return attention_kvcache_impl(q, k_cache, v_cache, cache_seqlens,
                                      block_table, causal, window, scale,
                                      return_lse, check_values)

    @attention_kvcache.register_fake
    def _(q, k_cache, v_cache, cache_seqlens, block_table, causal, window,
          scale, return_lse, check_values):
        _check(torch, q, k_cache, v_cache, cache_seqlens, block_table,
               causal, window, scale)
        return outputs(torch, q, return_lse)


def check_unsupported(k_new: Any, v_new: Any, num_splits: Any) -> None:
    """NotImplementedError for the arguments of flash_attn_with_kvcache not
    built yet: appending k_new / v_new to the cache, and split-KV."""
    if k_new is not None or v_new is not None:
        raise NotImplementedError(
            f"{WHAT}: k_new / v_new (appending to the cache) are not "
            f"supported yet: write the new keys and values into the cache "
            f"and pass the longer cache_seqlens")
    if isinstance(num_splits, bool) or not isinstance(num_splits, int) \
            or num_splits < 0:
        raise ValueError(f"{WHAT}: num_splits must be an int >= 0, got "
                         f"{num_splits!r}")
    if num_splits > 1:
        raise NotImplementedError(
            f"{WHAT}: num_splits > 1 (split-KV) is not supported yet; pass "
            f"0 or 1")


def attention_kvcache(q: Any, k_cache: Any, v_cache: Any,
                      cache_seqlens: Any, block_table: Optional[Any] = None,
                      k_new: Optional[Any] = None,
                      v_new: Optional[Any] = None, causal: bool = False,
                      window: Optional[tuple] = None,
                      scale: Optional[float] = None, num_splits: int = 0,
                      return_lse: bool = False,
                      check_values: bool = True) -> Any:
    """Fused attention forward against a KV cache, as FlashAttention's
    ``flash_attn_with_kvcache`` takes it, on a Hopper GPU.

    ``q``: ``[batch, seq_q, heads_q, head_dim]``. ``k_cache``, ``v_cache``:
    ``[batch, max_len, heads_kv, head_dim]`` (dense) or, with
    ``block_table`` (``[batch, max_pages]`` int32), pools of pages
    ``[num_pages, page_size, heads_kv, head_dim]`` (page_size 16, 32, 64,
    128 or 256; pages in any order): key ``j`` of sequence ``b`` is row
    ``j % page_size`` of page ``block_table[b][j // page_size]``.
    ``heads_q`` a multiple of ``heads_kv`` (GQA, MQA); bf16 or f16, one
    dtype; ``head_dim`` 64, 128 or 256. ``cache_seqlens``: ``[batch]``
    int32 (or an int for every sequence), the keys of each sequence (0 is
    allowed). ``causal``, ``window=(left, right)`` and ``scale`` as in
    fmha.attention, the queries aligned to the end of the cache (query
    ``i`` is key position ``cache_seqlens[b] - seq_q + i``).

    Returns ``o`` (``[batch, seq_q, heads_q, head_dim]``) and, with
    ``return_lse``, ``(o, lse)`` with ``lse`` ``[batch, heads_q, seq_q]``
    f32; a row that sees no key gets ``o = 0`` and ``lse = -inf``.

    ``k_new`` / ``v_new`` (appending to the cache) and ``num_splits > 1``
    (split-KV) raise NotImplementedError for now.

    Before the launch cache_seqlens and block_table are copied to the host
    and checked (lengths in [0, capacity], the pages each sequence uses
    inside the pool): a ValueError names the first broken rule. That copy
    is a synchronization: ``check_values=False`` skips it, and it is
    skipped while a CUDA graph is being captured and under torch.compile
    tracing. Unchecked bad values cannot make the kernel read outside the
    caches (lengths are clamped to the capacity, table indices to the
    table, and pages outside the pool read as zeros). Works under
    ``torch.compile(fullgraph=True)`` and in CUDA graphs.
    """
    torch = _ops._torch(WHAT)
    check_unsupported(k_new, v_new, num_splits)
    if isinstance(scale, int) and not isinstance(scale, bool):
        scale = float(scale)
    if isinstance(cache_seqlens, int) and not isinstance(cache_seqlens,
                                                         bool):
        if not isinstance(q, torch.Tensor) or q.dim() < 1:
            raise TypeError(f"{WHAT}: q must be a torch.Tensor of rank 4")
        cache_seqlens = torch.full((q.shape[0],), cache_seqlens,
                                   dtype=torch.int32, device=q.device)
    if isinstance(window, list):
        window = tuple(window)
    if (window is None or type(window) is tuple) and \
            isinstance(check_values, bool):
        fast = attention_kvcache_fast(
            torch, q, k_cache, v_cache, cache_seqlens, block_table, causal,
            window, scale, return_lse, check_values)
        if fast is not None:
            return fast if return_lse else fast[0]
    o, lse = torch.ops.fmha.attention_kvcache(
        q, k_cache, v_cache, cache_seqlens, block_table, causal,
        None if window is None else list(window), scale, return_lse,
        check_values)
    return (o, lse) if return_lse else o
