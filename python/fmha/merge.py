"""``fmha.merge_states``: merges partial attention results.

Attention over a set of keys split into disjoint parts (a cached prefix
and the rest, cascade attention's shared and unique keys) is the merge of
the parts' results ``(o_i, lse_i)``: ``lse = log(sum_i exp(lse_i))``,
``o = sum_i exp(lse_i - lse) o_i``. fmha compiles one ``fmha.merge_states``
kernel per dtype and head dim (docs/Serving.md, "Combining partial
results") for any number of states and any shape, and reads every tensor
in place through its strides: two states are passed as one stacked view
whose state stride is the distance between them when their layouts match,
so a two-way merge copies nothing.

The argument checks are pure functions of shapes and dtype names (tested
without PyTorch or a GPU); the custom op ``fmha::merge_states`` works under
``torch.compile`` and CUDA graphs.
"""

import dataclasses
from typing import Any, Callable, Optional, Sequence

from . import ops as _ops
from .specs import MERGE_MAX_HEAD_DIM, MergeSpec

WHAT = "fmha.merge_states"
# Layouts of a rank-4 o: fmha.attention's [batch, heads, seq, head_dim]
# (SDPA's), fmha.attention_kvcache's [batch, seq, heads, head_dim]
# (FlashAttention's). A rank-3 o is fmha.attention_varlen's [tokens, heads,
# head_dim] with lse [heads, tokens].
LAYOUTS = ("bhsd", "bshd")
# (device, dtype, head_dim) -> fmha.runtime.Kernel.
_KERNELS: dict = {}
# The eager fast path's bound launches, by layout (_fast_key).
_BOUND: dict = {}


def _require(cond: Any, message: Callable[[], str]) -> None:
    if not cond:
        raise ValueError(message())


def expected_lse_shape(o_shape: Sequence, layout: str) -> tuple:
    """The lse shape that goes with an o of ``o_shape`` in ``layout``:
    ``[batch, heads, seq]`` (``[heads, tokens]`` for a rank-3 o)."""
    if len(o_shape) == 3:
        return (o_shape[1], o_shape[0])
    if layout == "bhsd":
        return (o_shape[0], o_shape[1], o_shape[2])
    return (o_shape[0], o_shape[2], o_shape[1])


def check_merge_args(o_shapes: Sequence, lse_shapes: Sequence,
                     o_dtypes: Sequence, lse_dtypes: Sequence, layout: str,
                     check: Callable = _require) -> None:
    """Checks fmha.merge_states' arguments from their shapes and dtype names
    (``bf16``, ``f16``, ``f32``, or None for another type): ValueError
    naming the mistake (relations between sizes through ``check(cond,
    message)``, ``torch._check`` under torch.compile), TypeError for a
    wrong dtype."""
    if not o_shapes:
        raise ValueError(f"{WHAT}: needs at least one state (o, lse)")
    if len(o_shapes) != len(lse_shapes):
        raise ValueError(f"{WHAT}: {len(o_shapes)} o tensors but "
                         f"{len(lse_shapes)} lse tensors")
    if layout not in LAYOUTS:
        raise ValueError(f"{WHAT}: layout must be one of "
                         f"{', '.join(LAYOUTS)}, got {layout!r}")
    first = tuple(o_shapes[0])
    if len(first) not in (3, 4):
        raise ValueError(
            f"{WHAT}: o must be [batch, heads, seq, head_dim] (layout "
            f"'bhsd', fmha.attention's), [batch, seq, heads, head_dim] "
            f"(layout 'bshd', fmha.attention_kvcache's) or [tokens, heads, "
            f"head_dim] (fmha.attention_varlen's), got shape {list(first)}")
    for i, (shape, lse_shape) in enumerate(zip(o_shapes, lse_shapes)):
        if len(shape) != len(first):
            raise ValueError(f"{WHAT}: the states' o must have one shape, "
                             f"got {list(first)} and {list(shape)}")
        check(all(x == y for x, y in zip(shape, first)), lambda: (
            f"{WHAT}: the states' o must have one shape, got {list(first)} "
            f"and {list(shape)} (state {i})"))
        want = expected_lse_shape(shape, layout)
        if len(lse_shape) != len(want):
            raise ValueError(
                f"{WHAT}: lse of state {i} must be "
                f"{'[heads, tokens]' if len(first) == 3 else '[batch, heads, seq]'}"
                f" for o of shape {list(shape)}, got shape {list(lse_shape)}")
        check(all(x == y for x, y in zip(lse_shape, want)), lambda: (
            f"{WHAT}: lse of state {i} must have shape {list(want)} for o "
            f"of shape {list(shape)} (layout {layout!r}), got "
            f"{list(lse_shape)}"))
    dtype = o_dtypes[0]
    if dtype not in ("bf16", "f16"):
        raise TypeError(f"{WHAT}: o must be bfloat16 or float16, got "
                        f"{dtype or 'another type'}")
    for i, other in enumerate(o_dtypes):
        if other != dtype:
            raise TypeError(f"{WHAT}: the states' o must have one dtype, got "
                            f"{dtype} and {other or 'another type'} (state "
                            f"{i})")
    for i, other in enumerate(lse_dtypes):
        if other != "f32":
            raise TypeError(f"{WHAT}: lse must be float32, got "
                            f"{other or 'another type'} (state {i})")
    head_dim = first[-1]
    if head_dim % 8 or not 8 <= head_dim <= MERGE_MAX_HEAD_DIM:
        raise ValueError(f"{WHAT}: head_dim must be a multiple of 8 from 8 "
                         f"to {MERGE_MAX_HEAD_DIM}, got {head_dim}")


def _check(torch: Any, o_list: Sequence, lse_list: Sequence,
           layout: str) -> None:
    """check_merge_args on tensors, devices included."""
    _ops.check_tensor_types(
        torch, WHAT, [(f"o[{i}]", t) for i, t in enumerate(o_list)]
        + [(f"lse[{i}]", t) for i, t in enumerate(lse_list)])
    from .torch_ops import size_checker
    check_merge_args([tuple(t.shape) for t in o_list],
                     [tuple(t.shape) for t in lse_list],
                     [_ops.fmha_dtype(t.dtype) for t in o_list],
                     [_ops.fmha_dtype(t.dtype) for t in lse_list], layout,
                     size_checker(torch))
    _ops.check_one_device(
        WHAT, [(f"o[{i}]", t) for i, t in enumerate(o_list)]
        + [(f"lse[{i}]", t) for i, t in enumerate(lse_list)])


def outputs(torch: Any, o: Any, lse: Any) -> tuple:
    """``o`` (laid out as the first state's o where it is dense, else
    contiguous) and ``lse`` (contiguous f32)."""
    o_out = torch.empty_like(o, memory_format=torch.preserve_format)
    return o_out, torch.empty(lse.shape, dtype=torch.float32,
                              device=lse.device)


def _kernel_views(o: Any, lse: Any, layout: str) -> tuple:
    """o as ``[batch, seq, heads, head_dim]`` and lse as ``[batch, heads,
    seq]`` views, the kernel's; one query row per sequence (decode) as
    one sequence of ``batch`` rows, so that a CTA's rows are many."""
    if o.dim() == 3:
        o, lse = o.unsqueeze(0), lse.unsqueeze(0)
    elif layout == "bhsd":
        o = o.permute(0, 2, 1, 3)
    if o.shape[1] == 1 and o.shape[0] > 1:
        o, lse = o.permute(1, 0, 2, 3), lse.permute(2, 1, 0)
    return o, lse


def stacked_view(views: Sequence) -> Optional[Any]:
    """``views`` (fmha.runtime.TensorViews of one shape and strides) as one
    view with a leading states dimension whose stride is the distance
    between consecutive ones, or None when the distances differ, are not
    whole elements or the strides differ."""
    first = views[0]
    step = views[1].data_ptr - first.data_ptr if len(views) > 1 else 0
    if step % first.itemsize:
        return None
    for i, view in enumerate(views):
        if view.strides != first.strides or view.shape != first.shape or \
                view.data_ptr - first.data_ptr != i * step:
            return None
    return dataclasses.replace(first, shape=(len(views), *first.shape),
                               strides=(step // first.itemsize,
                                        *first.strides))


def _stack(torch: Any, tensors: Sequence) -> Any:
    """The states as one stacked view (stacked_view), without a copy when
    their layouts allow, else a stacked copy."""
    from .runtime import as_view
    view = stacked_view([as_view(t) for t in tensors])
    return view if view is not None else torch.stack(list(tensors))


def _kernel(torch: Any, device: Any, dtype: str, head_dim: int) -> Any:
    from .torch_ops import compiled_kernel
    return compiled_kernel(
        torch, _KERNELS, device, (dtype, head_dim),
        lambda target: MergeSpec(dtype=dtype, head_dim=head_dim,
                                 target=target))


def _launch_tensors(torch: Any, o_list: Sequence, lse_list: Sequence,
                    o_out: Any, lse_out: Any, layout: str) -> dict:
    """The kernel's tensors: the states stacked (a view where their layouts
    allow, else a copy), o and lse in the kernel's views."""
    states = [_kernel_views(o if _ops.rows_aligned(o) else o.contiguous(),
                            lse, layout) for o, lse in zip(o_list, lse_list)]
    o_view, lse_view = _kernel_views(o_out, lse_out, layout)
    return {"o_states": _stack(torch, [o for o, _ in states]),
            "lse_states": _stack(torch, [lse for _, lse in states]),
            "o": o_view, "lse": lse_view}


def merge_states_impl(o_list: Sequence, lse_list: Sequence,
                      layout: str) -> tuple:
    """The real implementation of fmha::merge_states (CUDA tensors)."""
    import torch
    from .torch_ops import _on_device
    _check(torch, o_list, lse_list, layout)
    device = o_list[0].device
    if device.type != "cuda":
        raise ValueError(f"{WHAT} needs CUDA tensors, got {device}")
    o_out, lse_out = outputs(torch, o_list[0], lse_list[0])
    if o_out.numel() == 0:
        return o_out, lse_out
    tensors = _launch_tensors(torch, o_list, lse_list, o_out, lse_out,
                              layout)
    with _on_device(torch, device):
        kernel = _kernel(torch, device, _ops.fmha_dtype(o_out.dtype),
                         int(o_out.shape[-1]))
        kernel.launch(tensors)
    return o_out, lse_out


def _steps(tensors: Sequence, itemsize: int) -> Optional[int]:
    """The distance in elements between consecutive ``tensors`` when it is
    one (whole elements), else None."""
    base = tensors[0].data_ptr()
    step = tensors[1].data_ptr() - base if len(tensors) > 1 else 0
    if step % itemsize:
        return None
    for i, t in enumerate(tensors):
        if t.data_ptr() - base != i * step:
            return None
    return step // itemsize


def _stacked_source(torch: Any, tensors: Sequence) -> Optional[tuple]:
    """``(address, state stride in elements, copy)`` of ``tensors`` (one
    layout) as one stacked tensor whose states keep the first's strides:
    in place when they lie at equal distances (``copy`` None), else a
    ``torch.stack`` copy when it keeps them (dense states); None
    otherwise."""
    step = _steps(tensors, tensors[0].element_size())
    if step is not None:
        return tensors[0].data_ptr(), step, None
    stacked = torch.stack(list(tensors))
    if stacked.stride()[1:] != tensors[0].stride():
        return None
    return stacked.data_ptr(), stacked.stride(0), stacked


def merge_states_fast(torch: Any, o_list: Sequence, lse_list: Sequence,
                      layout: str) -> Optional[tuple]:
    """The eager fast path: the first call of a layout (the states' number,
    shapes, strides, dtypes, device; every state laid out as the first,
    rows aligned) checks everything and binds a launch whose states'
    stride each call sets; later calls compare the layouts, stack the
    states (in place when they lie at equal distances), allocate the
    outputs and launch. ``(o, lse)``, or None when the call must take
    merge_states_impl."""
    from . import torch_ops
    _, _, _, get_device, raw_stream = torch_ops._fast_env(torch)
    o0, lse0 = o_list[0], lse_list[0]
    device = o0.device
    if device.type != "cuda" or device.index != get_device():
        return None
    o_layout = (o0.shape, o0.stride(), o0.dtype, device)
    lse_layout = (lse0.shape, lse0.stride(), lse0.dtype, lse0.device)
    for o, lse in zip(o_list, lse_list):
        if (o.shape, o.stride(), o.dtype, o.device) != o_layout or \
                (lse.shape, lse.stride(), lse.dtype, lse.device) != \
                lse_layout or o.data_ptr() & 15 or lse.data_ptr() & 3:
            return None
    key = (len(o_list), layout, o_layout, lse_layout)
    bound = _BOUND.get(key)
    if bound is None:
        _check(torch, o_list, lse_list, layout)
        if 0 in o0.shape or not _ops.rows_aligned(o0):
            return None
    o_src = _stacked_source(torch, o_list)
    lse_src = _stacked_source(torch, lse_list)
    if o_src is None or lse_src is None:
        return None
    o_out, lse_out = outputs(torch, o0, lse0)
    if bound is None:
        from .runtime import as_view
        # The states' views as the kernel takes them, stacked at this
        # call's addresses and distances (every later call sets its own).
        o_view, lse_view = (as_view(t) for t in _kernel_views(o0, lse0,
                                                              layout))
        o_states = dataclasses.replace(
            o_view, data_ptr=o_src[0], shape=(len(o_list), *o_view.shape),
            strides=(o_src[1], *o_view.strides))
        lse_states = dataclasses.replace(
            lse_view, data_ptr=lse_src[0],
            shape=(len(o_list), *lse_view.shape),
            strides=(lse_src[1], *lse_view.strides))
        o_kernel, lse_kernel = _kernel_views(o_out, lse_out, layout)
        tensors = {"o_states": o_states, "lse_states": lse_states,
                   "o": o_kernel, "lse": lse_kernel}
        kernel = _kernel(torch, device, _ops.fmha_dtype(o0.dtype),
                         int(o0.shape[-1]))
        bound = torch_ops.remember(
            _BOUND, key,
            kernel.bind(tensors, order=tuple(tensors),
                        strides=(("o_states", 0), ("lse_states", 0))),
            torch_ops.BOUND_LIMIT)
    bound.run((o_src[0], lse_src[0], o_out.data_ptr(), lse_out.data_ptr()),
              raw_stream(device.index), (o_src[1], lse_src[1]))
    return o_out, lse_out


def define(torch: Any) -> None:
    """Defines the custom op ``fmha::merge_states`` and its fake
    implementation (for torch.compile)."""
    Tensor = torch.Tensor

    @torch.library.custom_op("fmha::merge_states", mutates_args=())
    def merge_states(o: list[Tensor], lse: list[Tensor],
                     layout: str) -> tuple[Tensor, Tensor]:
        return merge_states_impl(o, lse, layout)

    @merge_states.register_fake
    def _(o, lse, layout):
        _check(torch, o, lse, layout)
        return outputs(torch, o[0], lse[0])


def _states(args: tuple) -> tuple:
    """The (o, lse) lists of merge_states' positional arguments."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        pairs = list(args[0])
        for i, pair in enumerate(pairs):
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise TypeError(f"{WHAT}: state {i} must be a pair (o, lse), "
                                f"got {type(pair).__name__}")
        return [o for o, _ in pairs], [lse for _, lse in pairs]
    if len(args) == 4:
        return [args[0], args[2]], [args[1], args[3]]
    raise TypeError(f"{WHAT} takes (o_a, lse_a, o_b, lse_b) or a list of "
                    f"(o, lse) pairs, got {len(args)} positional arguments")


def merge_states(*args: Any, layout: str = "bhsd") -> tuple:
    """Merges attention results over disjoint key sets into the result over
    their union, on a Hopper GPU.

    ``merge_states(o_a, lse_a, o_b, lse_b)`` merges two states;
    ``merge_states([(o_1, lse_1), (o_2, lse_2), ...])`` any number (one
    kernel for every count). Each state is what fmha's attention returns
    with ``return_lse=True``: ``o`` ``[batch, heads, seq, head_dim]``
    (``layout="bhsd"``, fmha.attention's, the default) or ``[batch, seq,
    heads, head_dim]`` (``layout="bshd"``, fmha.attention_kvcache's) with
    ``lse`` ``[batch, heads, seq]``, or ``o`` ``[tokens, heads, head_dim]``
    with ``lse`` ``[heads, tokens]`` (fmha.attention_varlen's; ``layout``
    does not matter). ``o`` bf16 or f16 (one dtype), ``head_dim`` a
    multiple of 8 up to 512, ``lse`` float32 (natural log), all on one
    CUDA device; any strides.

    Returns ``(o, lse)`` of the same shapes: ``lse = log(sum_i
    exp(lse_i))`` and ``o = sum_i exp(lse_i - lse) o_i``, computed in f32.
    A state with ``lse = -inf`` (no keys) weighs nothing whatever its ``o``
    holds; a row without keys in any state gets ``o = 0`` and ``lse =
    -inf``. Works under ``torch.compile`` and CUDA graphs. Raises
    ValueError or TypeError naming a wrong shape, dtype or device.
    """
    torch = _ops._torch(WHAT)
    o_list, lse_list = _states(args)
    if not isinstance(layout, str):
        raise TypeError(f"{WHAT}: layout must be a str, got {layout!r}")
    o_list, lse_list = list(o_list), list(lse_list)
    # Eager calls on plain tensors skip the custom op's dispatch (most of a
    # small merge's host time); traced, autograd or odd arguments take it.
    tensor = torch.Tensor
    if not torch.compiler.is_compiling() and all(
            type(t) is tensor and not t.requires_grad
            for t in (*o_list, *lse_list)):
        merged = merge_states_fast(torch, o_list, lse_list, layout) \
            if layout in LAYOUTS and o_list and len(o_list) == len(lse_list) \
            else None
        return merged if merged is not None else merge_states_impl(
            o_list, lse_list, layout)
    return torch.ops.fmha.merge_states(o_list, lse_list, layout)
