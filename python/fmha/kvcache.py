"""``fmha.attention_kvcache``: attention against KV caches, dense or paged.

The arguments are those of FlashAttention's ``flash_attn_with_kvcache``:
``q`` ``[batch, seq_q, heads_q, head_dim]``; ``k_cache`` and ``v_cache``
``[batch, max_len, heads_kv, head_dim]`` (dense) or, with a ``block_table``
``[batch, max_pages]`` int32, pools of pages ``[num_pages, page_size,
heads_kv, head_dim]``; ``cache_seqlens`` ``[batch]`` int32, the keys each
sequence has. The kernel is ``fmha.attention ... kvcache``
(include/fmha/Dialect/FMHA/IR/FMHAOps.td).

Decode (few queries per sequence) uses two options of the kernel, chosen
per call by :func:`decode_plan` from the shapes: ``pack_gqa`` (the query
heads of one KV head share one Q tile, so one K/V load serves the group)
and ``split_kv`` (each query block's keys are cut into ``S`` ranges that
run as separate work items and are merged, so that a few long sequences
still fill the GPU).

The checks that need only shapes and dtypes are pure functions here
(testable without PyTorch); :func:`check_cache_values` checks the values
once they are on the host. The custom op ``torch.ops.fmha.attention_kvcache``
is defined by :func:`define` (fmha.torch_ops.register calls it).
"""

import dataclasses
from typing import Any, Callable, Optional, Sequence

from . import ops as _ops
from . import tuning
from .specs import ATTENTION_HEAD_DIMS, I32_MAX, PACK_ROWS

WHAT = "fmha.attention_kvcache"
PAGE_SIZES = (16, 32, 64, 128, 256)

# Decode planning (decode_plan). Packing serves calls of at most this many
# queries per sequence (decode, speculative decoding); longer ones use the
# unpacked kernel, whose tiles the queries fill already.
PACK_MAX_SEQ_Q = 16
# The rows of a decode kernel's Q tile (one consumer warpgroup).
DECODE_BLOCK_M = PACK_ROWS
# The most key ranges the heuristic cuts a query block's keys into.
MAX_SPLITS = 64
# No split below this many keys per query block: the merge would cost
# more than the split saves.
MIN_SPLIT_KEYS = 512
# Head dims whose split kernels the plan uses (every head dim fmha.attention
# takes: the merge works on chunks of 16 rows, docs/Serving.md "Registers").
SPLIT_HEAD_DIMS = (64, 128, 256)
# What a work item costs beyond its key tiles (loading Q, filling the
# pipeline, writing its partial results), in keys.
SPLIT_OVERHEAD_KEYS = 256
# What the last work item of a query block pays per partial it merges
# beyond its own, in keys (fitted to a sweep of S at batch 1, 2 and 4 with
# 1k to 128k keys on an H100: bench/RESULTS.md, 2026-11-25).
SPLIT_MERGE_KEYS = 64


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
    _ops.check_head_dim(WHAT, "q, k_cache, v_cache", q_shape, k_shape,
                        v_shape, 3, check)
    check(all(k == v for k, v in zip(k_shape, v_shape)), lambda: (
        f"{WHAT}: k_cache and v_cache must have one shape {cache}, got "
        f"{list(k_shape)} and {list(v_shape)}"))
    _ops.check_head_groups(WHAT, "the caches", q_shape[2], k_shape, 2,
                           check)
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


def decode_block_n(head_dim: int, page_size: Optional[int] = None) -> int:
    """The key tile of a decode (packed or split) kernel: 128 keys for
    head dims up to 128, 64 for 256, cut to the page size."""
    block_n = 128 if head_dim <= 128 else 64
    return block_n if page_size is None else min(block_n, page_size)


def pack_gqa_applies(heads_q: int, heads_kv: int, seq_q: int) -> bool:
    """Whether a call packs its query-head groups (pack_gqa): groups of
    more than one head that divide a Q tile's rows, and at most
    PACK_MAX_SEQ_Q queries per sequence."""
    if heads_kv < 1 or heads_q % heads_kv:
        return False
    group = heads_q // heads_kv
    return group > 1 and DECODE_BLOCK_M % group == 0 and \
        seq_q <= PACK_MAX_SEQ_Q


def split_heuristic(items: int, keys: int, block_n: int, num_sms: int,
                    max_splits: int = MAX_SPLITS) -> int:
    """The number of key ranges S a query block's ``keys`` (in tiles of
    ``block_n``) are cut into when ``items`` query blocks run on
    ``num_sms`` multiprocessors: 1 when the blocks fill the GPU already or
    the keys are few (under MIN_SPLIT_KEYS); else the S (at most
    ``max_splits`` and the key tiles) of the shortest estimated time,
    waves of work items times the keys each reads plus its overhead
    (SPLIT_OVERHEAD_KEYS), plus the merge of the S partials
    (SPLIT_MERGE_KEYS each beyond the first), the smallest S among
    equals. An S that gives
    each range as many tiles as S - 1 does is never better (its last
    ranges are empty)."""
    if items >= num_sms or keys < MIN_SPLIT_KEYS:
        return 1
    key_tiles = -(-keys // block_n)
    best, best_cost = 1, None
    for splits in range(1, min(max_splits, key_tiles) + 1):
        per_split = -(-key_tiles // splits)
        if splits > 1 and per_split == -(-key_tiles // (splits - 1)):
            continue
        waves = -(-items * splits // num_sms)
        cost = waves * (per_split * block_n + SPLIT_OVERHEAD_KEYS) + \
            (splits - 1) * SPLIT_MERGE_KEYS
        if best_cost is None or cost < best_cost:
            best, best_cost = splits, cost
    return best


def decode_plan(batch: int, seq_q: int, heads_q: int, heads_kv: int,
                head_dim: int, capacity: int,
                page_size: Optional[int] = None, num_splits: int = 0,
                num_sms: int = 132,
                window: Optional[Sequence[int]] = None) -> tuple:
    """``(pack, splits)`` for a call of fmha.attention_kvcache: whether it
    packs the query-head groups (pack_gqa_applies) and the key ranges S of
    split-KV (1: no split). ``capacity``: the keys a sequence can hold
    (max_len, or max_pages * page_size); with a ``window`` the keys one
    query block sees are at most ``left + seq_q + right``. ``num_splits``
    as flash_attn_with_kvcache takes it: 0 chooses S by split_heuristic
    (work items: batch x heads (heads_kv when packed) x query blocks of
    DECODE_BLOCK_M rows, against ``num_sms``), 1 never splits, n > 1
    forces n, cut to the key tiles (decode_block_n) of the capacity. Head
    dims outside SPLIT_HEAD_DIMS never split."""
    pack = pack_gqa_applies(heads_q, heads_kv, seq_q)
    heads, rows = (heads_kv, seq_q * (heads_q // heads_kv)) if pack else \
        (heads_q, seq_q)
    keys = max(capacity, 1)
    if window is not None:
        keys = min(keys, window[0] + seq_q + window[1])
    block_n = decode_block_n(head_dim, page_size)
    key_tiles = -(-keys // block_n)
    if num_splits == 1 or head_dim not in SPLIT_HEAD_DIMS:
        splits = 1
    elif num_splits > 1:
        splits = min(num_splits, key_tiles)
    else:
        items = batch * heads * -(-max(rows, 1) // DECODE_BLOCK_M)
        splits = split_heuristic(items, keys, block_n, num_sms)
    return pack, splits


def decode_spec(dtype: str, head_dim: int, causal: bool,
                window: Optional[tuple], scale: Optional[float],
                return_lse: bool, target: str, page_size: Optional[int],
                heads_q: int, heads_kv: int, pack: bool,
                split: bool) -> Any:
    """The AttentionSpec of a packed or split decode kernel: one consumer,
    block_m DECODE_BLOCK_M, block_n decode_block_n, the rest the
    compiler's defaults; static head counts when packed (the group is
    part of the kernel), dynamic otherwise."""
    config = {"tile": (DECODE_BLOCK_M, decode_block_n(head_dim, page_size)),
              "consumers": 1}
    spec = _ops.attention_spec(dtype, head_dim, causal, window, scale,
                               return_lse, target, config, kvcache=True,
                               page_size=page_size)
    return dataclasses.replace(
        spec, heads_q=heads_q if pack else None,
        heads_kv=heads_kv if pack else None, pack_gqa=pack, split_kv=split)


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


# The decode kernels per spec: a runtime Kernel, or False when the spec
# does not compile here (the call then takes the unpacked, unsplit kernel).
_DECODE: dict = {}
_NUM_SMS: dict = {}


def _num_sms(torch: Any, device: Any) -> int:
    """The multiprocessor count of a CUDA device (cached)."""
    index = device.index if device.index is not None else \
        torch.cuda.current_device()
    count = _NUM_SMS.get(index)
    if count is None:
        count = _NUM_SMS[index] = \
            torch.cuda.get_device_properties(index).multi_processor_count
    return count


def _plan(torch: Any, q: Any, k: Any, table: Optional[Any],
          window: Optional[Sequence[int]], num_splits: int) -> tuple:
    """decode_plan for the tensors of a call."""
    rows = int(k.shape[1])
    paged = table is not None
    capacity = rows * (int(table.shape[1]) if paged else 1)
    return decode_plan(int(q.shape[0]), int(q.shape[1]), int(q.shape[2]),
                       int(k.shape[2]), int(q.shape[3]), capacity,
                       rows if paged else None, num_splits,
                       _num_sms(torch, q.device), window)


def _decode_lookup(spec: Any) -> Any:
    """The runtime Kernel of decode spec ``spec``, or False when it is
    neither in the cache nor compilable here (remembered per spec), and
    whether this call found that out (the first failure)."""
    from .compiler import CompileError, compile
    kernel = _DECODE.get(spec)
    if kernel is not None:
        return kernel, None
    try:
        kernel = compile(spec).kernel
        failure = None
    except CompileError as e:
        kernel = False
        failure = str(e).splitlines()[0] if str(e) else type(e).__name__
    _DECODE[spec] = kernel
    return kernel, failure


def _spec_of(torch: Any, q: Any, k: Any, page_size: Optional[int],
             causal: bool, window: Optional[Sequence[int]],
             scale: Optional[float], return_lse: bool, pack: bool,
             splits: int) -> Any:
    """decode_spec for the tensors of a call (q and k as the caches take
    them: ``[batch, seq, heads, head_dim]``)."""
    from . import torch_ops
    return decode_spec(_ops.fmha_dtype(q.dtype), int(q.shape[3]), causal,
                       None if window is None else tuple(window), scale,
                       return_lse, torch_ops._target(torch, q.device),
                       page_size, int(q.shape[2]), int(k.shape[2]), pack,
                       splits > 1)


def _decode_kernel(torch: Any, q: Any, k: Any, page_size: Optional[int],
                   causal: bool, window: Optional[list],
                   scale: Optional[float], return_lse: bool, pack: bool,
                   splits: int) -> Any:
    """The runtime Kernel of a packed or split call (decode_spec), or None
    when it does not compile here (a warning says so, once per spec)."""
    spec = _spec_of(torch, q, k, page_size, causal, window, scale,
                    return_lse, pack, splits)
    kernel, failure = _decode_lookup(spec)
    if failure is not None:
        import warnings
        warnings.warn(f"{WHAT}: the decode kernel {spec.name} is not "
                      f"available ({failure}); using the unpacked, "
                      f"unsplit kernel", RuntimeWarning, stacklevel=3)
    return kernel or None


# fmha.attention takes the decode kernels from this many keys on (fewer
# fill no split, and the dense kernel serves them as well).
DENSE_DECODE_MIN_KEYS = 512
# The lengths tensors of dense_decode's calls: every sequence's keys.
_FULL_LENGTHS: dict = {}


def dense_decode(torch: Any, q: Any, k: Any, v: Any, causal: bool,
                 window: Optional[tuple], scale: Optional[float],
                 return_lse: bool) -> Optional[tuple]:
    """fmha.attention's call on ``[batch, heads, seq, head_dim]`` tensors
    through the decode kernels (packed query heads, split-KV) where they
    apply: at most PACK_MAX_SEQ_Q queries and at least
    DENSE_DECODE_MIN_KEYS keys, plain CUDA tensors of one dtype and device
    on sm_90a, not under torch.compile tracing, a plan (decode_plan) that
    packs or splits, and its kernel in the cache or compilable here. k and
    v are read in place as caches through their ``[batch, seq, heads,
    head_dim]`` views, every sequence ``seq_k`` keys long, so the masks
    (aligned to the end of the keys) are the dense op's. ``(o, lse)`` with
    ``o`` laid out as the dense op's (a ``[batch, heads, seq, head_dim]``
    view, contiguous where q is and seq_q > 1), or None: the dense kernel
    runs instead. Shapes or options it cannot take are left to the dense
    op's checks."""
    tensor = torch.Tensor
    # Prefill leaves at the first test.
    if type(q) is not tensor or q.dim() != 4 or q.shape[2] > \
            PACK_MAX_SEQ_Q or type(k) is not tensor or \
            type(v) is not tensor or torch.compiler.is_compiling():
        return None
    # The decision depends on the layout and options only: made once each.
    key = (q.shape, k.shape, v.shape, q.dtype, k.dtype, v.dtype, q.device,
           k.device, v.device, causal, window, scale, return_lse)
    route = _DENSE_ROUTES.get(key)
    if route is None:
        route = _DENSE_ROUTES[key] = _dense_route(torch, q, k, v, causal,
                                                  window, scale, return_lse)
    if not route or (torch.is_grad_enabled() and (
            q.requires_grad or k.requires_grad or v.requires_grad)):
        return None
    batch, seq_q, seq_k = q.shape[0], q.shape[2], k.shape[2]
    device = q.device
    lengths = _FULL_LENGTHS.get((device, batch, seq_k))
    if lengths is None:
        lengths = torch.full((batch,), seq_k, dtype=torch.int32,
                             device=device)
        # A tensor made while a CUDA graph is captured belongs to it.
        if not torch.cuda.is_current_stream_capturing():
            _FULL_LENGTHS[(device, batch, seq_k)] = lengths
    out = attention_kvcache(q.transpose(1, 2), k.transpose(1, 2),
                            v.transpose(1, 2), lengths, causal=causal,
                            window=window, scale=scale,
                            return_lse=return_lse, check_values=False)
    o, lse = out if return_lse else (out, None)
    o = o.transpose(1, 2)
    if seq_q > 1 and q.is_contiguous():
        o = o.contiguous()
    return o, lse


# dense_decode's decisions per layout and options.
_DENSE_ROUTES: dict = {}


def bind_dense_decode(torch: Any, q: Any, k: Any, v: Any, causal: bool,
                      window: Optional[tuple], scale: Optional[float],
                      return_lse: bool, device: Any, stream: int) -> Any:
    """fmha.attention's eager fast path for the calls dense_decode takes: a
    launch bound for this layout of checked, TMA-ready ``[batch, heads,
    seq, head_dim]`` tensors (k and v read in place as caches of ``seq_k``
    keys each), run by run_dense_decode; None when dense_decode would not
    take the call, or while a CUDA graph is captured (the lengths tensor
    made here would belong to the graph)."""
    if q.shape[2] > PACK_MAX_SEQ_Q or \
            torch.cuda.is_current_stream_capturing() or \
            not _dense_route(torch, q, k, v, causal, window, scale,
                             return_lse):
        return None
    lengths = torch.full((q.shape[0],), k.shape[2], dtype=torch.int32,
                         device=device)
    bound = _bind(torch, q.transpose(1, 2), k.transpose(1, 2),
                  v.transpose(1, 2), lengths, None, causal, window, scale,
                  return_lse, 0, device, stream)[0]
    bound.lengths = lengths
    return bound


def run_dense_decode(torch: Any, bound: Any, q: Any, ptrs: tuple,
                     return_lse: bool, device: Any, stream: int) -> tuple:
    """Runs a launch of bind_dense_decode on q and the addresses ``ptrs`` of
    q, k and v: ``(o, lse)`` as dense_decode returns them."""
    batch, heads, seq, head_dim = q.shape
    o = torch.empty((batch, seq, heads, head_dim), dtype=q.dtype,
                    device=device)
    ptrs += (bound.lengths.data_ptr(), o.data_ptr())
    lse = None
    if return_lse:
        lse = torch.empty((batch, heads, seq), dtype=torch.float32,
                          device=device)
        ptrs += (lse.data_ptr(),)
    if bound.scratch is not None:
        from . import torch_ops
        ptrs += torch_ops.scratch_pointers(torch, bound.scratch, device,
                                           stream, bound.scratch_memo)
    bound.run(ptrs, stream)
    o = o.transpose(1, 2)
    if seq > 1 and q.is_contiguous():
        o = o.contiguous()
    return o, lse


def _dense_route(torch: Any, q: Any, k: Any, v: Any, causal: bool,
                 window: Optional[tuple], scale: Optional[float],
                 return_lse: bool) -> bool:
    """Whether dense_decode takes a call of these shapes and options."""
    if k.dim() != 4 or v.shape != k.shape:
        return False
    batch, heads_q, seq_q, head_dim = q.shape
    heads_kv, seq_k = k.shape[1], k.shape[2]
    if not (1 <= seq_q <= PACK_MAX_SEQ_Q and DENSE_DECODE_MIN_KEYS <= seq_k
            <= I32_MAX) or batch == 0 or k.shape[0] != batch \
            or k.shape[3] != head_dim or head_dim not in \
            ATTENTION_HEAD_DIMS or heads_kv == 0 or heads_q % heads_kv:
        return False
    if q.dtype not in (torch.bfloat16, torch.float16) \
            or k.dtype != q.dtype or v.dtype != q.dtype:
        return False
    device = q.device
    if device.type != "cuda" or k.device != device or v.device != device:
        return False
    from . import torch_ops
    if torch_ops._target(torch, device) != "sm_90a":
        return False
    _ops.check_mask_options("fmha.attention", causal, window, scale)
    pack, splits = decode_plan(batch, seq_q, heads_q, heads_kv, head_dim,
                               seq_k, None, 0, _num_sms(torch, device),
                               window)
    # The decode kernel must be at hand (no warning: the dense one is).
    return (pack or splits > 1) and bool(_decode_lookup(_spec_of(
        torch, q.transpose(1, 2), k.transpose(1, 2), None, causal, window,
        scale, return_lse, pack, splits))[0])


def decode_tensors(q: Any, k: Any, v: Any, seqlens: Any,
                   table: Optional[Any], o: Any, lse: Optional[Any],
                   pack: bool, splits: int) -> dict:
    """A decode kernel's launch arguments without its scratch tensors: q
    and o as ``[batch, seq_q, heads_kv, group, head_dim]`` views when
    packed, and the size ``S`` when split (``lse`` None without
    return_lse). In the order of the fast path's bound launch."""
    tensors = {"q": q, "k": k, "v": v, "cache_seqlens": seqlens}
    if table is not None:
        tensors["block_table"] = table
    tensors["o"] = o
    if lse is not None:
        tensors["lse"] = lse
    if pack:
        batch, seq_q, heads_q, head_dim = q.shape
        heads_kv = k.shape[2]
        grouped = (batch, seq_q, heads_kv, heads_q // heads_kv, head_dim)
        tensors["q"] = q.view(grouped)
        tensors["o"] = o.view(grouped)
    if splits > 1:
        tensors["S"] = splits
    return tensors


def _scratch_specs(kernel: Any, tensors: dict) -> dict:
    """Kernel.scratch_shapes for the launch arguments ``tensors``."""
    shapes = {n: t.shape for n, t in tensors.items() if type(t) is not int}
    sizes = {n: t for n, t in tensors.items() if type(t) is int}
    return kernel.scratch_shapes(shapes, sizes)


def _fresh_scratch(torch: Any, specs: dict, device: Any) -> dict:
    """Scratch tensors of this call alone (the custom op's: under
    torch.compile's CUDA graphs a workspace kept across calls is refused,
    see fmha.torch_ops.gemm_impl): zeros for role ``zeroed``."""
    from . import torch_ops
    tensors = {}
    for name, (shape, role, dtype) in specs.items():
        make = torch.zeros if role == "zeroed" else torch.empty
        tensors[name] = make(
            shape, dtype=getattr(torch, torch_ops._SCRATCH_DTYPES[dtype]),
            device=device)
    return tensors


def attention_kvcache_impl(q: Any, k: Any, v: Any, seqlens: Any,
                           table: Optional[Any], causal: bool,
                           window: Optional[list], scale: Optional[float],
                           return_lse: bool, check_values: bool,
                           num_splits: int = 0) -> tuple:
    """The real implementation of fmha::attention_kvcache (CUDA tensors)."""
    import torch
    from . import torch_ops
    _check(torch, q, k, v, seqlens, table, causal, window, scale)
    check_num_splits(num_splits)
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
    q, k, v = (torch_ops._tma_ready_nd(t) for t in (q, k, v))
    seqlens = seqlens.contiguous()
    if table is not None:
        table = table.contiguous()
    page_size = rows if table is not None else None
    with torch_ops._on_device(torch, q.device):
        pack, splits = _plan(torch, q, k, table, window, num_splits)
        kernel = None
        if pack or splits > 1:
            kernel = _decode_kernel(torch, q, k, page_size, causal, window,
                                    scale, return_lse, pack, splits)
        if kernel is not None:
            tensors = decode_tensors(q, k, v, seqlens, table, o,
                                     lse if return_lse else None, pack,
                                     splits)
            tensors.update(_fresh_scratch(
                torch, _scratch_specs(kernel, tensors), q.device))
            kernel.launch(tensors)
            return o, lse
        tensors = decode_tensors(q, k, v, seqlens, table, o,
                                 lse if return_lse else None, False, 1)
        tuning_args = _ops.with_fresh_outputs(
            tensors, lambda: outputs(torch, q, return_lse))
        kernel = _kernel(torch, q, capacity, page_size, causal, window,
                         scale, return_lse, tuning_args)
        kernel.launch(tensors)
    return o, lse


def _bind(torch: Any, q: Any, k: Any, v: Any, seqlens: Any,
          table: Optional[Any], causal: bool, window: Optional[tuple],
          scale: Optional[float], return_lse: bool, num_splits: int,
          device: Any, stream: int) -> tuple:
    """The launch of checked, TMA-ready tensors bound for their layout
    (decode_plan's kernel, else the unpacked, unsplit one; a split kernel's
    scratch in ``bound.scratch``, its addresses looked up per stream and
    call), with this call's outputs: ``(bound, o, lse)``. The bound run
    takes q, k, v, seqlens, table (when paged), o, lse (with return_lse)
    and the scratch addresses, in that order."""
    from . import torch_ops
    rows = int(k.shape[1])
    o, lse = outputs(torch, q, return_lse)
    page_size = rows if table is not None else None
    listed = None if window is None else list(window)
    pack, splits = _plan(torch, q, k, table, window, num_splits)
    kernel = None
    if pack or splits > 1:
        kernel = _decode_kernel(torch, q, k, page_size, causal, listed,
                                scale, return_lse, pack, splits)
    if kernel is None:
        pack, splits = False, 1
    tensors = decode_tensors(q, k, v, seqlens, table, o,
                             lse if return_lse else None, pack, splits)
    order = tuple(n for n, t in tensors.items() if type(t) is not int)
    if kernel is None:
        tuning_args = _ops.with_fresh_outputs(
            tensors, lambda: outputs(torch, q, return_lse))
        capacity = rows * (int(table.shape[1]) if table is not None else 1)
        kernel = _kernel(torch, q, capacity, page_size, causal, listed,
                         scale, return_lse, tuning_args)
    specs = _scratch_specs(kernel, tensors)
    tensors.update(torch_ops.scratch_tensors(torch, specs, device, stream))
    bound = kernel.bind(tensors, order=order + tuple(specs))
    # A split kernel takes its workspace per stream (and per graph
    # capture): each call looks it up.
    bound.scratch = specs or None
    bound.scratch_memo = {}
    return bound, o, lse


def attention_kvcache_fast(torch: Any, q: Any, k: Any, v: Any,
                           seqlens: Any, table: Optional[Any], causal: bool,
                           window: Optional[tuple], scale: Optional[float],
                           return_lse: bool, check_values: bool,
                           num_splits: int = 0) -> Any:
    """The eager fast path (as fmha.attention_varlen's): the first call of
    a layout (shapes, strides, dtypes, devices, options) checks everything,
    plans the call (decode_plan: it depends only on the shapes) and binds a
    launch; later ones check the addresses' alignment, the current device
    and (``check_values``) the values of cache_seqlens and block_table,
    allocate the outputs and launch (a split kernel with the stream's
    workspace, fmha.torch_ops.scratch_pointers). ``(o, lse)``, or None when
    the call must go through the custom op."""
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
           v.device, seqlens.device, causal, window, scale, return_lse,
           num_splits)
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
        check_num_splits(num_splits)
        if (q.data_ptr() | k.data_ptr() | v.data_ptr()) & 15:
            return None
        if check_values:
            _values_checked(torch, seqlens, table, int(k.shape[1]),
                            int(k.shape[0]))
            check_values = False  # checked for this call
        bound, o, lse = _bind(torch, q, k, v, seqlens, table, causal, window,
                              scale, return_lse, num_splits, device,
                              raw_stream(device.index))
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
    if first is not None:
        o, lse = first
    else:
        # No lse tensor without return_lse: the caller returns o alone.
        o = torch.empty(q.shape, dtype=q.dtype, device=device)
        lse = torch.empty((q.shape[0], q.shape[2], q.shape[1]),
                          dtype=torch.float32,
                          device=device) if return_lse else None
    ptrs += (seqlens.data_ptr(),)
    if table is not None:
        ptrs += (table.data_ptr(),)
    ptrs += (o.data_ptr(),)
    if return_lse:
        ptrs += (lse.data_ptr(),)
    stream = raw_stream(device.index)
    if bound.scratch is not None:
        ptrs += torch_ops.scratch_pointers(torch, bound.scratch, device,
                                           stream, bound.scratch_memo)
    bound.run(ptrs, stream)
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
                          check_values: bool,
                          num_splits: int = 0) -> tuple[Tensor, Tensor]:
        return attention_kvcache_impl(q, k_cache, v_cache, cache_seqlens,
                                      block_table, causal, window, scale,
                                      return_lse, check_values, num_splits)

    @attention_kvcache.register_fake
    def _(q, k_cache, v_cache, cache_seqlens, block_table, causal, window,
          scale, return_lse, check_values, num_splits=0):
        _check(torch, q, k_cache, v_cache, cache_seqlens, block_table,
               causal, window, scale)
        return outputs(torch, q, return_lse)


def check_num_splits(num_splits: Any) -> None:
    """ValueError unless ``num_splits`` is an int >= 0 (at most I32_MAX:
    the kernel's S is an i32)."""
    if isinstance(num_splits, bool) or not isinstance(num_splits, int) \
            or not 0 <= num_splits <= I32_MAX:
        raise ValueError(f"{WHAT}: num_splits must be an int in [0, "
                         f"{I32_MAX}], got {num_splits!r}")


def _check_together(k_new: Any, v_new: Any) -> None:
    if (k_new is None) != (v_new is None):
        raise ValueError(f"{WHAT}: k_new and v_new go together: pass both "
                         f"or neither")


def check_new_kv(k_new_shape: Optional[Sequence],
                 v_new_shape: Optional[Sequence], k_shape: Sequence,
                 batch: int, dtypes: tuple,
                 check: Callable = _ops._require) -> None:
    """Checks the new keys and values of fmha.attention_kvcache (shapes;
    ``dtypes``: those of k_new, v_new and the cache): both or neither,
    ``[batch, seq_new, heads_kv, head_dim]`` with the cache's heads_kv,
    head_dim and dtype. ValueError or TypeError naming the mistake."""
    _check_together(k_new_shape, v_new_shape)
    if k_new_shape is None:
        return
    if len(k_new_shape) != 4 or len(v_new_shape) != 4:
        raise ValueError(
            f"{WHAT}: k_new and v_new must be [batch, seq_new, heads_kv, "
            f"head_dim], got shapes {list(k_new_shape)} and "
            f"{list(v_new_shape)}")
    new_dtype, v_dtype, cache_dtype = dtypes
    if new_dtype != cache_dtype or v_dtype != cache_dtype:
        raise TypeError(f"{WHAT}: k_new and v_new must have the caches' "
                        f"dtype {cache_dtype}, got {new_dtype or 'another'} "
                        f"and {v_dtype or 'another'}")
    check(all(a == b for a, b in zip(k_new_shape, v_new_shape)), lambda: (
        f"{WHAT}: k_new and v_new must have one shape, got "
        f"{list(k_new_shape)} and {list(v_new_shape)}"))
    check(k_new_shape[0] == batch and k_new_shape[2] == k_shape[2]
          and k_new_shape[3] == k_shape[3], lambda: (
              f"{WHAT}: k_new must be [batch, seq_new, heads_kv, head_dim] "
              f"= [{batch}, seq_new, {k_shape[2]}, {k_shape[3]}], got "
              f"{list(k_new_shape)}"))


def append_to_cache(torch: Any, k_cache: Any, v_cache: Any, seqlens: Any,
                    table: Optional[Any], k_new: Any, v_new: Any,
                    check_values: bool = True) -> Any:
    """Writes ``k_new``, ``v_new`` (``[batch, seq_new, heads_kv,
    head_dim]``) into the caches at positions ``seqlens[b]`` on (through
    ``table`` when paged) with the compiled ``fmha.append_kv`` kernel
    (fmha.append), and returns the lengths after them, ``seqlens +
    seq_new`` (int32). ``check_values``: the longer lengths and the pages
    they use are checked first (check_cache_values, a synchronization; not
    while a CUDA graph is captured or torch.compile traces). Unchecked, a
    position outside the cache or a page outside the pool is not written,
    so bad values never write outside the caches."""
    _check_together(k_new, v_new)
    named = [("k_new", k_new), ("v_new", v_new)]
    _ops.check_tensor_types(torch, WHAT, named)
    check_new_kv(tuple(k_new.shape), tuple(v_new.shape),
                 tuple(k_cache.shape), int(seqlens.shape[0]),
                 tuple(_ops.fmha_dtype(t.dtype)
                       for t in (k_new, v_new, k_cache)),
                 _ops.torch_ops.size_checker(torch))
    _ops.check_one_device(WHAT, named + [("k_cache", k_cache)])
    seq_new = int(k_new.shape[1])
    lengths = seqlens + seq_new
    rows = int(k_cache.shape[1])
    if check_values:
        _values_checked(torch, lengths, table, rows, int(k_cache.shape[0]))
    if seq_new == 0 or 0 in seqlens.shape or 0 in k_cache.shape:
        return lengths
    from . import append
    append.append_kv(torch, k_cache, v_cache, seqlens, table, k_new, v_new)
    return lengths


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
    ``i`` is key position ``cache_seqlens[b] - seq_q + i``). The caches'
    rows past a sequence's length may hold anything, NaN and Inf
    included (``torch.empty`` caches and pools work).

    Returns ``o`` (``[batch, seq_q, heads_q, head_dim]``) and, with
    ``return_lse``, ``(o, lse)`` with ``lse`` ``[batch, heads_q, seq_q]``
    f32; a row that sees no key gets ``o = 0`` and ``lse = -inf``.

    Decode is planned per call from the shapes (:func:`decode_plan`):
    with at most 16 queries per sequence and a query-head group G =
    heads_q / heads_kv > 1 dividing 64, the G heads of a KV head share one
    kernel tile (pack_gqa); and the keys of a query block are cut into S
    ranges merged at the end (split-KV) when the work items would leave
    the GPU's multiprocessors idle. ``num_splits``: 0 chooses S, 1 never
    splits, n > 1 forces n (cut to the key tiles of the cache's capacity;
    head dim 256 never splits: its split kernel does not fit the
    registers).
    A packed or split kernel that is not available (not in a
    compiler-less cache) gives a RuntimeWarning and the call runs the
    unpacked, unsplit kernel. The split kernels' workspace comes from a
    per-stream buffer (eager calls) or is allocated per call (the custom
    op, torch.compile).

    ``k_new``, ``v_new`` (``[batch, seq_new, heads_kv, head_dim]``, both or
    neither): new keys and values written into the caches (in place, as
    flash_attn_with_kvcache does) at positions ``cache_seqlens[b]`` to
    ``cache_seqlens[b] + seq_new - 1`` (through the block table when
    paged) before the attention, which then sees ``cache_seqlens +
    seq_new`` keys per sequence (cache_seqlens itself is not changed: the
    caller advances it). A compiled kernel (``fmha.append_kv``, one launch
    before the attention's) writes them; the caches' rows must then be
    16-byte aligned (a ValueError says so). The value check checks the
    longer lengths before anything is written; unchecked, positions past
    the capacity and pages outside the pool are not written.

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
    from .backward import reject_grad
    reject_grad(torch, WHAT, "attention against a KV cache", q, k_cache,
                v_cache)
    check_num_splits(num_splits)
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
    if k_new is not None or v_new is not None:
        from . import append
        lengths = None
        if isinstance(check_values, bool):
            lengths = append.append_fast(
                torch, k_cache, v_cache, cache_seqlens, block_table, k_new,
                v_new, check_values,
                lambda n: _values_checked(torch, n, block_table,
                                          int(k_cache.shape[1]),
                                          int(k_cache.shape[0])))
        if lengths is None:
            _check(torch, q, k_cache, v_cache, cache_seqlens, block_table,
                   causal, None if window is None else list(window), scale)
            lengths = append_to_cache(torch, k_cache, v_cache,
                                      cache_seqlens, block_table, k_new,
                                      v_new, check_values)
        cache_seqlens = lengths
        check_values = False  # checked before the write
    if (window is None or type(window) is tuple) and \
            isinstance(check_values, bool):
        fast = attention_kvcache_fast(
            torch, q, k_cache, v_cache, cache_seqlens, block_table, causal,
            window, scale, return_lse, check_values, num_splits)
        if fast is not None:
            return fast if return_lse else fast[0]
    o, lse = torch.ops.fmha.attention_kvcache(
        q, k_cache, v_cache, cache_seqlens, block_table, causal,
        None if window is None else list(window), scale, return_lse,
        check_values, num_splits)
    return (o, lse) if return_lse else o
