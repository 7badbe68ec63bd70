"""FP8 attention forward: ``fmha.attention`` on ``float8_e4m3fn`` q, k, v.

``fmha.attention(q, k, v, ..., descale_q=, descale_k=, descale_v=,
out_dtype=)`` (FlashAttention-3's argument names) computes attention of the
dequantized inputs ``q * descale_q``, ``k * descale_k``, ``v * descale_v``
(f32 factors: one per tensor, or one per sequence and KV head, ``[batch,
heads_kv]``, as FlashAttention-3 takes them) and returns o in bf16 (or
f16). The kernel
(docs/FP8Attention.md) reads V transposed, ``[batch, heads_kv, head_dim,
seq_k16]``, its keys padded to a multiple of 16 and permuted inside each
group of 16 as the 8-bit wgmma reads P from registers: this module makes
that copy of V (a compiled ``fmha.transpose_values`` kernel, launched
before the attention) and defines the custom op ``fmha::attention_fp8``
that launches the attention kernel on it.

The argument checks are pure functions of shapes and dtype names (tested
without PyTorch or a GPU). No ``from __future__ import annotations`` here:
torch.library.custom_op reads the annotations of the function it wraps.
"""

from typing import Any, Callable, Optional, Sequence

from . import ops as _ops
from . import tuning

WHAT = "fmha.attention"
# Keys per group of V's key permutation (tile.dot's k_quad16).
KEY_GROUP = 16
# Position p of a group of 16 keys in the permuted V holds key KEY_ORDER[p]:
# the 8-bit A fragment's K position 4t + i of thread t reads the
# accumulator's column 2t + i % 2 + 8 (i // 2).
KEY_ORDER = tuple(2 * (p // 4) + p % 2 + 8 * ((p // 2) % 2)
                  for p in range(KEY_GROUP))
DESCALES = ("descale_q", "descale_k", "descale_v")
OUT_DTYPES = ("bf16", "f16")
# (device, dtype, head_dim) -> the fmha.transpose_values kernel.
_TRANSPOSE_KERNELS: dict = {}
# Its bound launches by layout (shape, strides, dtype, device).
_TRANSPOSE_BOUND: dict = {}


def padded_keys(seq_k: Any) -> Any:
    """seq_k rounded up to a multiple of KEY_GROUP: the keys of the
    permuted V (works on ints and on PyTorch's symbolic sizes)."""
    return (seq_k + KEY_GROUP - 1) // KEY_GROUP * KEY_GROUP


def _require(cond: Any, message: Callable[[], str]) -> None:
    if not cond:
        raise ValueError(message())


def check_descales(dtypes: tuple, descales: Sequence) -> None:
    """Whether descales go with the inputs' dtypes (fmha names, ``f8e4m3``
    for float8_e4m3fn): fp8 q, k, v need all three (ValueError naming the
    missing ones), 16-bit ones take none (ValueError). ``descales`` are
    ``(descale_q, descale_k, descale_v)``, each an info tuple or None."""
    fp8 = dtypes[0] == "f8e4m3"
    given = [name for name, d in zip(DESCALES, descales) if d is not None]
    if not fp8 and given:
        raise ValueError(f"{WHAT}: {', '.join(given)} are for float8_e4m3fn "
                         f"q, k, v only, got {dtypes[0] or 'another type'}")
    if fp8 and len(given) != len(DESCALES):
        missing = [name for name in DESCALES if name not in given]
        raise ValueError(f"{WHAT}: float8_e4m3fn q, k, v need descale_q, "
                         f"descale_k and descale_v (the f32 factors that "
                         f"dequantize them); missing {', '.join(missing)}")


def reject_fp8_arguments(dtype: Any, descales: Sequence,
                         out_dtype: Any) -> None:
    """For 16-bit inputs (of ``dtype``): ValueError naming any descale or
    out_dtype given (those are for fp8 inputs only)."""
    given = [name for name, d in zip(DESCALES, descales) if d is not None]
    if out_dtype is not None:
        given.append("out_dtype")
    if given:
        raise ValueError(f"{WHAT}: {', '.join(given)} are for float8_e4m3fn "
                         f"q, k, v only, got q in {dtype}")


def check_fp8_attention_args(q_shape: Any, k_shape: Any, v_shape: Any,
                             dtypes: tuple, descales: Sequence,
                             out_dtype: Optional[str], causal: bool = False,
                             window: Optional[Any] = None,
                             scale: Optional[float] = None,
                             check: Callable = _require) -> None:
    """Checks an fp8 fmha.attention call from shapes and dtype names
    (``f8e4m3``, ``f8e5m2``, or None for another type): q, k, v as
    fmha.attention takes them (v not yet transposed); each descale an
    ``(shape, dtype name, on q's device)`` tuple; ``out_dtype`` ``bf16``,
    ``f16`` or None. ValueError or TypeError naming the mistake."""
    if len(q_shape) != 4 or len(k_shape) != 4 or len(v_shape) != 4:
        raise ValueError(
            f"{WHAT}: q, k, v must be [batch, heads, seq, head_dim], got "
            f"shapes {list(q_shape)}, {list(k_shape)}, {list(v_shape)}")
    qd, kd, vd = dtypes
    if qd != "f8e4m3":
        raise TypeError(f"{WHAT}: fp8 attention takes float8_e4m3fn q, k, v, "
                        f"got q in {qd or 'another type'}")
    if kd != qd or vd != qd:
        raise TypeError(f"{WHAT}: q, k, v must have one dtype, got "
                        f"{qd}, {kd or 'another type'}, {vd or 'another type'}")
    check_descales(dtypes, descales)
    for name, (shape, dtype, same_device) in zip(DESCALES, descales):
        if dtype != "float32":
            raise TypeError(f"{WHAT}: {name} must be float32, got {dtype}")
        if len(shape) == 2:
            check(shape[0] == q_shape[0] and shape[1] == k_shape[1],
                  lambda name=name, shape=shape: (
                      f"{WHAT}: {name} per KV head must be [batch, "
                      f"heads_kv] = {[q_shape[0], k_shape[1]]}, got shape "
                      f"{list(shape)}"))
        elif len(shape) > 1 or (shape and shape[0] != 1):
            raise ValueError(f"{WHAT}: {name} must be 0-d or [1] (one "
                             f"factor per tensor) or [batch, heads_kv] (one "
                             f"per sequence and KV head), got shape "
                             f"{list(shape)}")
        if not same_device:
            raise ValueError(f"{WHAT}: {name} must be on q's device")
    if out_dtype is not None and out_dtype not in OUT_DTYPES:
        raise TypeError(f"{WHAT}: out_dtype must be bfloat16 or float16 for "
                        f"fp8 inputs, got {out_dtype}")
    _ops.check_mask_options(WHAT, causal, window, scale)
    _ops.check_head_dim(WHAT, "q, k, v", q_shape, k_shape, v_shape, 3, check)
    check(k_shape[0] == v_shape[0] and k_shape[1] == v_shape[1]
          and k_shape[2] == v_shape[2], lambda: (
              f"{WHAT}: k and v must have one shape [batch, heads_kv, "
              f"seq_k, head_dim], got {list(k_shape)} and {list(v_shape)}"))
    check(q_shape[0] == k_shape[0], lambda: (
        f"{WHAT}: q and k must have one batch size, got "
        f"{q_shape[0]} and {k_shape[0]}"))
    _ops.check_head_groups(WHAT, "k and v", q_shape[1], k_shape, 1, check)


def permute_values(torch: Any, v: Any) -> Any:
    """The V the fp8 kernel reads: ``v`` ``[batch, heads_kv, seq_k,
    head_dim]`` transposed to ``[batch, heads_kv, head_dim, seq_k16]``,
    keys padded with zeros to a multiple of 16 and ordered by KEY_ORDER in
    each group of 16, contiguous. On CUDA tensors whose rows 16-byte loads
    address, the compiled ``fmha.transpose_values`` kernel makes it (the
    custom op ``fmha::transpose_values`` under torch.compile); otherwise
    PyTorch does (permute_values_torch)."""
    if v.device.type != "cuda" or v.numel() == 0:
        return permute_values_torch(torch, v)
    from .torch_ops import _fast_env
    if _fast_env(torch)[1]():
        return torch.ops.fmha.transpose_values(v)
    return transpose_impl(v)


def transpose_spec(dtype: str, head_dim: int, target: str) -> Any:
    """The TransposeSpec of V^T for ``dtype`` (fmha's fp8 name) at
    ``head_dim``."""
    from .specs import TransposeSpec
    return TransposeSpec(dtype=dtype, head_dim=head_dim, target=target)


def transpose_impl(v: Any) -> Any:
    """permute_values by the compiled kernel (a CUDA ``v``, not empty): a
    launch bound once per layout; PyTorch's copy where 16-byte loads do
    not address v's rows."""
    import torch
    from . import torch_ops
    if not _ops.rows_aligned(v):
        return permute_values_torch(torch, v)
    batch, heads, seq_k, head_dim = v.shape
    vt = v.new_empty((batch, heads, head_dim, padded_keys(seq_k)))
    tensors = {"v": v, "vt": vt}
    device = v.device
    dtype = fp8_name(v.dtype)

    def kernel() -> Any:
        return torch_ops.compiled_kernel(
            torch, _TRANSPOSE_KERNELS, device, (dtype, int(head_dim)),
            lambda target: transpose_spec(dtype, int(head_dim), target))

    _, _, _, get_device, raw_stream = torch_ops._fast_env(torch)
    if device.index != get_device():
        with torch_ops._on_device(torch, device):
            kernel().launch(tensors)
        return vt
    key = (v.shape, v.stride(), v.dtype, device)
    bound = _TRANSPOSE_BOUND.get(key)
    if bound is None:
        bound = torch_ops.remember(
            _TRANSPOSE_BOUND, key, kernel().bind(tensors, order=("v", "vt")),
            torch_ops.BOUND_LIMIT)
    bound.run((v.data_ptr(), vt.data_ptr()), raw_stream(device.index))
    return vt


def permute_values_torch(torch: Any, v: Any) -> Any:
    """permute_values by PyTorch: one pass over v (a permuted copy of its
    bytes: PyTorch has no fp8 copy kernels); a last, partial group of keys
    goes through a zero-padded group of its own."""
    batch, heads, seq_k, head_dim = v.shape
    keys = padded_keys(seq_k)
    raw = v.view(torch.uint8)
    out = raw.new_empty((batch, heads, head_dim, keys))
    full = seq_k // KEY_GROUP * KEY_GROUP
    if full:
        _permute_groups_into(out[..., :full], raw[:, :, :full])
    if full != keys:
        tail = raw.new_zeros((batch, heads, KEY_GROUP, head_dim))
        tail[:, :, :seq_k - full] = raw[:, :, full:]
        _permute_groups_into(out[..., full:], tail)
    return out.view(v.dtype)


def _permute_groups_into(out: Any, raw: Any) -> None:
    """Copies ``raw`` ``[batch, heads, keys, head_dim]`` (keys a multiple
    of 16) into ``out`` ``[batch, heads, head_dim, keys]`` with the keys of
    each group of 16 in KEY_ORDER: key ``8a + 2t + b`` of a group goes to
    position ``4t + 2a + b``, one strided copy."""
    batch, heads, keys, head_dim = raw.shape
    groups = keys // KEY_GROUP
    source = raw.reshape(batch, heads, groups, 2, 4, 2, head_dim)
    out.view(batch, heads, head_dim, groups, 4, 2, 2).copy_(
        source.permute(0, 1, 6, 2, 4, 3, 5))


def per_head_descales(descales: Sequence) -> bool:
    """Whether a call's descales are per sequence and KV head: any of them
    ``[batch, heads_kv]`` (shapes, or tensors)."""
    return any(d is not None and len(tuple(getattr(d, "shape", d))) == 2
               for d in descales)


def kernel_descales(descales: Sequence, batch: Any, heads_kv: Any) -> tuple:
    """The descales as the kernel takes them: all ``[1]``, or, when any is
    per KV head, all ``[batch, heads_kv]`` (a factor per tensor
    broadcast), contiguous float32."""
    if not per_head_descales(descales):
        return tuple(d.reshape(1) for d in descales)
    return tuple(
        (d if d.dim() == 2 else d.reshape(1, 1).expand(batch, heads_kv))
        .contiguous() for d in descales)


def _info(descale: Any, device: Any) -> Optional[tuple]:
    if descale is None:
        return None
    return (tuple(descale.shape), str(descale.dtype).removeprefix("torch."),
            descale.device == device)


def _fmha_out(out_dtype: Any) -> Optional[str]:
    """fmha's name of out_dtype (its torch name for a type fmha has no
    name for), None for the default."""
    if out_dtype is None:
        return None
    return _ops.fmha_dtype(out_dtype) or str(out_dtype).removeprefix(
        "torch.")


def check(torch: Any, q: Any, k: Any, v: Any, descales: Sequence,
          out_dtype: Any, causal: bool, window: Optional[Any],
          scale: Optional[float]) -> None:
    """check_fp8_attention_args on tensors (v as the caller gives it)."""
    _ops.check_tensor_types(torch, WHAT, (("q", q), ("k", k), ("v", v)))
    _ops.check_tensor_types(torch, WHAT, [
        (name, d) for name, d in zip(DESCALES, descales) if d is not None])
    dtypes = tuple(fp8_name(t.dtype) for t in (q, k, v))
    check_fp8_attention_args(
        tuple(q.shape), tuple(k.shape), tuple(v.shape), dtypes,
        [_info(d, q.device) for d in descales], _fmha_out(out_dtype),
        causal, window, scale, _ops.torch_ops.size_checker(torch))
    _ops.check_one_device(WHAT, (("q", q), ("k", k), ("v", v)))


def fp8_name(dtype: Any) -> Optional[str]:
    """``f8e4m3`` / ``f8e5m2`` for the fp8 torch dtypes, else fmha_dtype's
    name (or None)."""
    name = str(dtype).removeprefix("torch.")
    return _ops.FP8_TORCH_TO_FMHA.get(name) or _ops.fmha_dtype(dtype)


def outputs(torch: Any, q: Any, out_dtype: Any, return_lse: bool) -> tuple:
    """``o`` (``[batch, heads_q, seq_q, head_dim]`` in out_dtype,
    contiguous) and ``lse`` (``[0]`` without ``return_lse``)."""
    o = torch.empty(q.shape, dtype=out_dtype, device=q.device)
    lse_shape = tuple(q.shape[:3]) if return_lse else (0,)
    lse = torch.empty(lse_shape, dtype=torch.float32, device=q.device)
    return o, lse


def spec(head_dim: int, out_dtype: str, causal: bool,
         window: Optional[tuple], scale: Optional[float], return_lse: bool,
         target: str, config: Optional[dict] = None,
         head_descales: bool = False) -> Any:
    """The AttentionSpec an fp8 call compiles (dynamic sizes); descales
    ``[batch, heads_kv]`` with ``head_descales``."""
    from .specs import AttentionSpec
    base = _ops.attention_spec("f8e4m3", head_dim, causal, window, scale,
                               return_lse, target, config)
    fields = base.to_dict()
    fields.pop("kind")
    fields["out_dtype"] = out_dtype
    fields["head_descales"] = head_descales
    for name in ("window", "tile"):
        if fields.get(name) is not None:
            fields[name] = tuple(fields[name])
    return AttentionSpec(**fields)


def kernel_specs(head_dim: int, out_dtype: str = "bf16",
                 causal: bool = False, window: Optional[tuple] = None,
                 scale: Optional[float] = None, return_lse: bool = False,
                 target: str = "sm_90a", head_descales: bool = False) -> list:
    """Every AttentionSpec an fp8 call with these options may compile
    (the defaults and the autotuner's candidates): what a cache must hold
    for a machine without a compiler."""
    out: list = []
    for config in tuning.attention_fp8_candidates(head_dim):
        s = spec(head_dim, out_dtype, causal, window, scale, return_lse,
                 target, config, head_descales)
        if s not in out:
            out.append(s)
    return out


def takes_values_as_is(kernel: Any) -> bool:
    """Whether an fp8 attention kernel (a runtime Kernel) takes V as k is
    laid out (``transpose_v``: it transposes V's tiles in shared memory),
    rather than transposed and permuted (permute_values)."""
    return isinstance(kernel.manifest.tensors["v"].shape[-1], int)


def kernel_values(torch: Any, kernel: Any, v: Any) -> Any:
    """V as ``kernel`` takes it: ``v`` itself (contiguous, as k), or its
    permuted transpose."""
    if takes_values_as_is(kernel):
        return v.contiguous()
    return permute_values(torch, v)


def impl(q: Any, k: Any, v: Any, descale_q: Any, descale_k: Any,
         descale_v: Any, out_dtype: Any, causal: bool,
         window: Optional[list], scale: Optional[float],
         return_lse: bool) -> tuple:
    """The real implementation of fmha::attention_fp8 (CUDA tensors; the
    descales as kernel_descales makes them): the kernel selected for the
    shape, and V^T made first when the kernel takes V transposed."""
    import torch
    from . import torch_ops
    out_dtype = torch.bfloat16 if out_dtype is None else out_dtype
    o, lse = outputs(torch, q, out_dtype, return_lse)
    if q.device.type != "cuda":
        raise ValueError(f"{WHAT} needs CUDA tensors, got {q.device}")
    batch, heads, seq_q, head_dim = q.shape
    seq_k = k.shape[2]
    if v.shape != k.shape:
        raise ValueError(f"{WHAT}: v must have k's shape {tuple(k.shape)}, "
                         f"got {tuple(v.shape)}")
    if batch == 0 or heads == 0 or seq_q == 0:
        return o, lse
    if seq_k == 0:
        o.zero_()
        lse.fill_(float("-inf"))
        return o, lse
    per_head = descale_q.dim() == 2
    descales = (descale_q, descale_k, descale_v)
    if not per_head:
        descales = tuple(d.reshape(1) for d in descales)
    tensors = _launch_tensors(q.contiguous(), k.contiguous(), v, o, descales,
                              lse if return_lse else None)
    with torch_ops._on_device(torch, q.device):
        kernel = _kernel(torch, tensors, out_dtype, causal, window, scale,
                         return_lse, per_head)
        tensors["v"] = kernel_values(torch, kernel, v)
        kernel.launch(tensors)
    return o, lse


def _launch_tensors(q: Any, k: Any, v: Any, o: Any, descales: Sequence,
                    lse: Any) -> dict:
    """The fp8 kernel's tensors, in its parameters' order (``v`` as the
    kernel takes it, ``descales`` in the kernel's form, ``lse`` None
    without it)."""
    tensors = {"q": q, "k": k, "v": v, "o": o,
               **dict(zip(DESCALES, descales))}
    if lse is not None:
        tensors["lse"] = lse
    return tensors


def _kernel(torch: Any, tensors: dict, out_dtype: Any, causal: bool,
            window: Optional[Sequence], scale: Optional[float],
            return_lse: bool, per_head: bool) -> Any:
    """The kernel of an fp8 call on ``tensors`` (the launch's: q, k, V as
    the call has it, o, the descales in the kernel's form, lse), selected
    per shape like the other dtypes (the table, or the autotuner on fresh
    outputs, each candidate timed with V^T made first where it takes V
    transposed)."""
    from . import torch_ops
    q = tensors["q"]
    batch, heads, seq_q, head_dim = q.shape
    seq_k = tensors["k"].shape[2]
    wkey = None if window is None else tuple(window)
    out_name = _ops.fmha_dtype(out_dtype)
    target = torch_ops._target(torch, q.device)
    category, sizes = tuning.attention_problem(
        head_dim, causal or window is not None, batch * heads, seq_q, seq_k,
        fp8=True)

    def make_spec(config: dict) -> Any:
        return spec(int(head_dim), out_name, causal, wkey, scale, return_lse,
                    target, config, per_head)

    def run(kernel: Any) -> Any:
        fresh = dict(tensors)
        fresh["o"], fresh_lse = outputs(torch, q, out_dtype, return_lse)
        if return_lse:
            fresh["lse"] = fresh_lse

        def launch():
            fresh["v"] = kernel_values(torch, kernel, tensors["v"])
            kernel.launch(fresh)
        return launch

    key = (q.device, "fp8", out_dtype, int(head_dim), causal, wkey, scale,
           return_lse, per_head)
    return torch_ops._select(torch, q.device, key, category, sizes, make_spec,
                             tuning.attention_fp8_candidates(int(head_dim)),
                             run)


def attention_fast(torch: Any, q: Any, k: Any, v: Any, causal: bool,
                   window: Optional[tuple], scale: Optional[float],
                   return_lse: bool, descales: Sequence,
                   out_dtype: Any) -> Any:
    """The fp8 call's eager fast path (as fmha.attention's for bf16): the
    first call of a layout (shapes, strides, dtypes, devices, descales'
    shapes, options) checks everything and binds the attention launch;
    later ones (every call checks the addresses' alignment and the
    current device first) make V^T where the kernel takes V transposed
    (transpose_impl, itself a bound launch), allocate o (and lse) and
    launch. ``(o, lse)``, or None when the call must take the custom
    op: under torch.compile or a CUDA graph capture, with contiguous q or
    k missing, descales that need broadcasting (per tensor mixed with
    per head), a q, k or V that 16-byte loads cannot address (checked
    before anything is bound), or a V not contiguous for a kernel that
    takes it as it is. The first call launches on the V (or V^T) and o it
    bound with."""
    from . import torch_ops
    tensor, compiling, _, get_device, raw_stream = torch_ops._fast_env(torch)
    if (type(q) is not tensor or type(k) is not tensor
            or type(v) is not tensor or compiling()
            or any(type(d) is not tensor for d in descales)
            or not (window is None or type(window) is tuple)):
        return None
    device = q.device
    if (device.type != "cuda" or device.index != get_device()
            or torch.cuda.is_current_stream_capturing()
            or (q.data_ptr() | k.data_ptr() | v.data_ptr()) & 15):
        return None
    key = ("attention_fp8", q.shape, q.stride(), k.shape, k.stride(),
           v.shape, v.stride(), q.dtype, k.dtype, v.dtype, device, k.device,
           v.device, tuple((d.shape, d.stride(), d.dtype, d.device)
                           for d in descales),
           out_dtype, causal, window, scale, return_lse)
    bound = torch_ops._FAST.get(key)
    if bound is None:
        check(torch, q, k, v, descales, out_dtype, causal, window, scale)
        per_head = per_head_descales(descales)
        if (0 in q.shape or 0 in k.shape or not q.is_contiguous()
                or not k.is_contiguous() or not _ops.rows_aligned(v)
                or (per_head and any(d.dim() != 2 or not d.is_contiguous()
                                     for d in descales))):
            return None
        out = torch.bfloat16 if out_dtype is None else out_dtype
        o, lse = outputs(torch, q, out, return_lse)
        tensors = _launch_tensors(
            q, k, v, o, kernel_descales(descales, q.shape[0], k.shape[1]),
            lse if return_lse else None)
        with torch_ops._on_device(torch, device):
            kernel = _kernel(torch, tensors, out, causal, window, scale,
                             return_lse, per_head)
            transposes = not takes_values_as_is(kernel)
            if not transposes and not v.is_contiguous():
                return None
            vt = tensors["v"] = transpose_impl(v) if transposes else v
            bound = kernel.bind(tensors, order=tuple(tensors))
        bound.out_dtype = out
        bound.transposes = transposes
        torch_ops._remember(key, bound)
    else:
        vt = transpose_impl(v) if bound.transposes else v
        o = torch.empty(q.shape, dtype=bound.out_dtype, device=device)
        lse = torch.empty(tuple(q.shape[:3]), dtype=torch.float32,
                          device=device) if return_lse else None
    ptrs = [q.data_ptr(), k.data_ptr(), vt.data_ptr(), o.data_ptr(),
            *(d.data_ptr() for d in descales)]
    if return_lse:
        ptrs.append(lse.data_ptr())
    bound.run(tuple(ptrs), raw_stream(device.index))
    return o, (lse if return_lse else None)


def define(torch: Any) -> None:
    """Defines the custom ops ``fmha::attention_fp8`` (q, k, v, the
    descales) and ``fmha::transpose_values`` (V permuted by the compiled
    kernel) and their fake implementations."""
    Tensor = torch.Tensor

    @torch.library.custom_op("fmha::attention_fp8", mutates_args=())
    def attention_fp8(q: Tensor, k: Tensor, v: Tensor, descale_q: Tensor,
                      descale_k: Tensor, descale_v: Tensor,
                      out_dtype: Optional[torch.dtype], causal: bool,
                      window: Optional[list[int]], scale: Optional[float],
                      return_lse: bool) -> tuple[Tensor, Tensor]:
        return impl(q, k, v, descale_q, descale_k, descale_v, out_dtype,
                    causal, window, scale, return_lse)

    @attention_fp8.register_fake
    def _(q, k, v, descale_q, descale_k, descale_v, out_dtype, causal,
          window, scale, return_lse):
        out = torch.bfloat16 if out_dtype is None else out_dtype
        return outputs(torch, q, out, return_lse)

    @torch.library.custom_op("fmha::transpose_values", mutates_args=())
    def transpose_values(v: Tensor) -> Tensor:
        return transpose_impl(v)

    @transpose_values.register_fake
    def _(v):
        batch, heads, seq_k, head_dim = v.shape
        return v.new_empty((batch, heads, head_dim, padded_keys(seq_k)))


def attention(torch: Any, q: Any, k: Any, v: Any, causal: bool,
              window: Optional[tuple], scale: Optional[float],
              return_lse: bool, descale_q: Any, descale_k: Any,
              descale_v: Any, out_dtype: Any) -> Any:
    """fmha.attention's fp8 path: checks, the descales in the kernel's
    form, the custom op (which makes V^T where its kernel needs it)."""
    descales = (descale_q, descale_k, descale_v)
    fast = attention_fast(torch, q, k, v, causal, window, scale, return_lse,
                          descales, out_dtype)
    if fast is not None:
        return fast if return_lse else fast[0]
    check(torch, q, k, v, descales, out_dtype, causal, window, scale)
    dq, dk, dv = kernel_descales(descales, q.shape[0], k.shape[1])
    o, lse = torch.ops.fmha.attention_fp8(
        q, k, v, dq, dk, dv, out_dtype, causal,
        None if window is None else list(window), scale, return_lse)
    return (o, lse) if return_lse else o
