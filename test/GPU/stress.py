#!/usr/bin/env python3
"""A randomized stress test of fmha's public API on a GPU: fmha.attention
and fmha.gemm on random shapes, options and layouts, from several threads
and CUDA streams at once, each result against a PyTorch reference
computed on the GPU (float64 for attention, float32 for GEMM), plus bad
inputs that must raise a clear error.

    python3 test/GPU/stress.py [--minutes N] [--seed S] [--threads T]
    python3 test/GPU/stress.py --seed S --case I     # replay one case

What it draws (docs/GPURuns.md records the runs):

- attention: batch 0-64, heads_kv 1-64, GQA ratio 1-16 (heads_q = ratio x
  heads_kv, at most 64), seq_q and seq_k 0-5000 (log-uniform, with the
  tile edges 63/64/65, 127/128/129, ... and 0, 1 often), head dims 64, 128
  and 256, bf16 and f16, the masks and scales of ATTENTION_OPTIONS (none,
  causal, windows, a causal window, scales; also the default scale spelled
  out), with and without lse;
- varlen attention (fmha.attention_varlen): 1-16 packed sequences of 0-5000
  queries and keys each (the same lengths or others), heads and GQA as
  above, the options of VARLEN_OPTIONS, with and without lse, q/k/v
  contiguous or slices of one packed [tokens, 3, heads, head_dim] tensor;
- kvcache attention (fmha.attention_kvcache): 1-16 sequences with caches
  of 0-5000 keys, dense or in shuffled pages (test_gpu_kvcache.make_cache:
  spare NaN pages, NaN keys past each length), seq_q 1-300, heads and GQA
  as above, the options of KVCACHE_OPTIONS, with and without lse;
- GEMM: M, N, K 0-5000, A 2-D or 3-D, B as [N, K] or [K, N], the output
  types of GEMM_TYPES;
- attention backward (loss.backward() through fmha.attention): shapes as
  for attention within a smaller budget, head dims 64 and 128, the options
  of python/tests/test_gpu_backward.py (whose kernels prepare_cache.py
  compiles), a random upstream gradient, dq, dk and dv against the float64
  reference within twice the error of the same algorithm in the dtype;
- varlen attention backward (loss.backward() through
  fmha.attention_varlen): packed sequences as for varlen attention within
  a smaller budget, the options and head dims of the dense backward, q/k/v
  separate or slices of one packed tensor, dq, dk and dv against the
  float64 reference of each sequence
  (python/tests/test_gpu_backward_varlen.py's bounds);
- layouts for every input: contiguous, a [B, S, H, D] tensor transposed,
  views at an element offset (16-byte aligned or not), padded rows, a
  strided innermost dimension, broadcast (stride 0) dimensions, a
  transposed matrix, a column slice;
- each case on one of its thread's two streams or the default stream;
- 1 case in 20 a bad input (dtype, shape, head dim, GQA ratio, window,
  scale, device) that must raise TypeError / ValueError naming it.

Outputs are poisoned: fmha.gemm's output buffer is filled with NaN (its row
padding with a sentinel) before the kernel runs, and before each attention
call the stream's allocator pool is filled with NaN, so an element the
kernel leaves unwritten shows. A reference's size is capped
(MAX_SCORES, MAX_INPUT) so that a 10-minute run does thousands of cases.

The kernels come from the cache or the compiler (fmha.compile): on a GPU
machine without the compiler, FMHA_CACHE_DIR must hold what
test/GPU/prepare_cache.py compiles (it compiles every kernel the options
here can select). Prints the seed, the counts per kind and each failure
(with its case number, for --case), and ends with ``N passed, N failed``;
exits 1 on any failure, 77 (skipped) without PyTorch, a CUDA device of
compute capability 9.0, or the kernels.
"""

import argparse
import math
import os
import random
import sys
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

SKIP = 77
LENGTH_MAX = 5000
HEADS_MAX = 64
BATCH_MAX = 64
GQA_MAX = 16
HEAD_DIMS = (64, 128, 256)
# The reference's size: batch x heads_q x seq_q x seq_k scores, and
# batch x heads_q x (seq_q + seq_k) x head_dim input elements (float64).
MAX_SCORES = 1 << 25
MAX_INPUT = 1 << 26
EDGE_LENGTHS = (0, 1, 2, 15, 16, 17, 63, 64, 65, 127, 128, 129, 255, 256,
                257, 1000, 4095, 4096, 4097, 5000)

# (dtype, causal, window, scale): the attention options drawn, each with
# every head dim and with and without lse. test/GPU/prepare_cache.py
# compiles every kernel fmha.attention can select for them.
ATTENTION_OPTIONS = (
    ("bf16", False, None, None), ("bf16", True, None, None),
    ("bf16", False, (64, 16), 0.05),
    ("f16", False, None, None), ("f16", True, None, None),
    ("f16", False, (64, 16), 0.05),
    ("bf16", True, (128, 0), None),     # a causal sliding window
    ("f16", False, (0, 7), 0.3),        # no key before the diagonal
)
# (dtype, causal, window, scale) of the varlen attention cases.
VARLEN_OPTIONS = (
    ("bf16", False, None, None), ("bf16", True, None, None),
    ("f16", False, None, None), ("f16", True, None, None),
    ("bf16", True, (128, 0), None),
)
VARLEN_BATCH_MAX = 16
# (dtype, causal, window, scale, head dims, page sizes (None: dense)) of the
# kvcache attention cases, each with and without lse: those of
# python/tests/test_gpu_kvcache.py and bench/kvcache.py.
KVCACHE_OPTIONS = (
    ("bf16", True, None, None, (128,), (None, 16, 64, 256)),
    ("bf16", True, None, None, (64, 256), (64,)),
    ("f16", True, None, None, (64, 128, 256), (64,)),
    ("bf16", False, None, None, (128,), (None, 16, 64, 256)),
    ("bf16", True, (128, 0), None, (128,), (64,)),
)
KVCACHE_SEQ_Q = (1, 1, 4, 16, 17, 64, 300)
# (input, output) types of fmha.gemm drawn (with both B layouts).
GEMM_TYPES = (("bf16", "bf16"), ("f16", "f16"), ("bf16", "f32"),
              ("f16", "f32"))
# Relative error (Frobenius) allowed per output type.
GEMM_TOLERANCE = {"bf16": 1e-2, "f16": 5e-3, "f32": 1e-4}
ATTENTION_TOLERANCE = 2e-2
LSE_TOLERANCE = 1e-3
SENTINEL = 7.0

torch = None  # imported in main(), so that this file imports without it


class CaseFailure(AssertionError):
    pass


def expect(cond, message):
    if not cond:
        raise CaseFailure(message)


# -- drawing ------------------------------------------------------------------


def length(rng):
    """0 to LENGTH_MAX: a tile edge one time in four, else log-uniform."""
    if rng.random() < 0.25:
        return rng.choice(EDGE_LENGTHS)
    return min(LENGTH_MAX, int(math.exp(rng.uniform(0, math.log(
        LENGTH_MAX + 1)))) - 1 + rng.randint(0, 1))


def count(rng, high):
    """1 to ``high``, small counts more often."""
    return max(1, min(high, int(math.exp(rng.uniform(0, math.log(high + 1))))))


def dtype_of(name):
    return {"bf16": torch.bfloat16, "f16": torch.float16,
            "f32": torch.float32}[name]


def make(rng, gen, shape, dtype, layout):
    """A tensor of logical ``shape`` laid out as ``layout`` says."""
    def randn(*size):
        return torch.randn(*size, device="cuda", generator=gen).to(dtype)

    n = len(shape)
    if layout == "transposed_bshd" and n == 4:        # [B, S, H, D] viewed
        b, h, s, d = shape
        return randn(b, s, h, d).transpose(1, 2)
    if layout == "transposed" and n == 2:             # column-major matrix
        return randn(shape[1], shape[0]).t()
    if layout in ("offset_aligned", "offset_misaligned"):
        offset = rng.choice((8, 64)) if layout == "offset_aligned" else \
            rng.choice((1, 3, 5))
        numel = math.prod(shape)
        flat = randn(numel + offset)
        strides = [1] * n
        for i in range(n - 2, -1, -1):
            strides[i] = strides[i + 1] * shape[i + 1]
        return flat.as_strided(shape, strides, offset)
    if layout == "padded_rows":                       # rows longer than used
        pad = rng.choice((8, 4, 1))
        return randn(*shape[:-1], shape[-1] + pad)[..., :shape[-1]]
    if layout == "strided_inner":                     # innermost stride 2
        return randn(*shape[:-1], 2 * shape[-1])[..., ::2]
    if layout == "broadcast" and n >= 3:              # stride 0 on dim 1
        one = list(shape)
        one[1] = 1
        return randn(*one).expand(*shape)
    return randn(*shape)


LAYOUTS_4D = ("contiguous", "contiguous", "transposed_bshd",
              "transposed_bshd", "offset_aligned", "offset_misaligned",
              "padded_rows", "strided_inner", "broadcast")
LAYOUTS_2D = ("contiguous", "contiguous", "contiguous", "transposed",
              "offset_aligned", "offset_misaligned", "padded_rows",
              "strided_inner")


def shrink_dense(batch, heads_kv, group, seq_q, seq_k, head_dim, share,
                 heads_max=None):
    """A dense attention case's sizes shrunk to 1/share of the reference's
    budget (MAX_SCORES, MAX_INPUT), batch and heads first; with
    ``heads_max``, heads_q = heads_kv * group at most that."""
    while True:
        heads_q = heads_kv * group
        if heads_max is not None and heads_q > heads_max:
            heads_kv = max(1, heads_kv // 2)
            group = max(1, min(group, heads_max // heads_kv))
            continue
        bh = batch * heads_q
        if bh * seq_q * seq_k <= MAX_SCORES // share and \
                bh * (seq_q + seq_k) * head_dim <= MAX_INPUT // share:
            return batch, heads_kv, group, seq_q, seq_k
        if batch > 1:
            batch //= 2
        elif heads_kv > 1:
            heads_kv //= 2
        elif group > 1:
            group //= 2
        else:
            seq_q, seq_k = seq_q * 3 // 4, seq_k * 3 // 4


def draw_attention(rng):
    dtype, causal, window, scale = rng.choice(ATTENTION_OPTIONS)
    head_dim = rng.choice(HEAD_DIMS)
    if scale is None and rng.random() < 0.2:
        scale = 1.0 / math.sqrt(head_dim)  # the default, spelled out
    heads_kv, group = count(rng, HEADS_MAX), count(rng, GQA_MAX)
    batch = 0 if rng.random() < 0.01 else count(rng, BATCH_MAX)
    seq_q, seq_k = length(rng), length(rng)
    batch, heads_kv, group, seq_q, seq_k = shrink_dense(
        batch, heads_kv, group, seq_q, seq_k, head_dim, 1, HEADS_MAX)
    return {"kind": "attention", "dtype": dtype, "causal": causal,
            "window": window, "scale": scale, "head_dim": head_dim,
            "batch": batch, "heads_q": heads_kv * group,
            "heads_kv": heads_kv, "seq_q": seq_q, "seq_k": seq_k,
            "return_lse": rng.random() < 0.5,
            "window_as_list": rng.random() < 0.2,
            "layouts": [rng.choice(LAYOUTS_4D) for _ in range(3)]}


def shrink_varlen(lengths_q, lengths_k, heads_q, head_dim, share):
    """Shrinks packed sequences (in place) to 1/share of the reference's
    budget: the longest sequences first."""
    while sum(a * b for a, b in zip(lengths_q, lengths_k)) * heads_q > \
            MAX_SCORES // share or (sum(lengths_q) + sum(lengths_k)) * \
            heads_q * head_dim > MAX_INPUT // share:
        i = max(range(len(lengths_q)),
                key=lambda j: lengths_q[j] + lengths_k[j])
        lengths_q[i] = lengths_q[i] * 3 // 4
        lengths_k[i] = lengths_k[i] * 3 // 4


def draw_varlen(rng):
    dtype, causal, window, scale = rng.choice(VARLEN_OPTIONS)
    head_dim = rng.choice(HEAD_DIMS)
    heads_kv, group = count(rng, 16), count(rng, 8)
    batch = count(rng, VARLEN_BATCH_MAX)
    lengths_q = [length(rng) for _ in range(batch)]
    lengths_k = list(lengths_q) if rng.random() < 0.5 else \
        [length(rng) for _ in range(batch)]
    shrink_varlen(lengths_q, lengths_k, heads_kv * group, head_dim, 1)
    return {"kind": "varlen", "dtype": dtype, "causal": causal,
            "window": window, "scale": scale, "head_dim": head_dim,
            "heads_q": heads_kv * group, "heads_kv": heads_kv,
            "lengths_q": lengths_q, "lengths_k": lengths_k,
            "return_lse": rng.random() < 0.5,
            "packed": rng.random() < 0.3}


def draw_kvcache(rng):
    dtype, causal, window, scale, head_dims, pages = \
        rng.choice(KVCACHE_OPTIONS)
    head_dim, page_size = rng.choice(head_dims), rng.choice(pages)
    heads_kv, group = count(rng, 16), count(rng, 8)
    batch = count(rng, VARLEN_BATCH_MAX)
    seq_q = rng.choice(KVCACHE_SEQ_Q)
    lengths = [length(rng) for _ in range(batch)]
    while sum(lengths) * seq_q * heads_kv * group > MAX_SCORES or \
            sum(lengths) * heads_kv * group * head_dim > MAX_INPUT:
        i = max(range(batch), key=lambda j: lengths[j])
        lengths[i] = lengths[i] * 3 // 4
    return {"kind": "kvcache", "dtype": dtype, "causal": causal,
            "window": window, "scale": scale, "head_dim": head_dim,
            "page_size": page_size, "heads_q": heads_kv * group,
            "heads_kv": heads_kv, "seq_q": seq_q, "lengths": lengths,
            "return_lse": rng.random() < 0.5}


def draw_backward(rng):
    from tests.test_gpu_backward import OPTIONS
    dtype, head_dim, causal, window, scale = rng.choice(OPTIONS)
    heads_kv, group = count(rng, 16), count(rng, 8)
    batch = count(rng, 8)
    seq_q, seq_k = length(rng), length(rng)
    # The reference keeps several float64 score tensors: a quarter of the
    # forward's budget.
    batch, heads_kv, group, seq_q, seq_k = shrink_dense(
        batch, heads_kv, group, seq_q, seq_k, head_dim, 4)
    return {"kind": "backward", "dtype": dtype, "causal": causal,
            "window": window, "scale": scale, "head_dim": head_dim,
            "batch": batch, "heads_q": heads_kv * group,
            "heads_kv": heads_kv, "seq_q": seq_q, "seq_k": seq_k,
            "layouts": [rng.choice(LAYOUTS_4D) for _ in range(3)],
            # dq by its own kernel (torch.use_deterministic_algorithms)
            # or fused into the dK/dV kernel (the default).
            "deterministic": rng.random() < 0.25}


def draw_backward_varlen(rng):
    from tests.test_gpu_backward import OPTIONS
    dtype, head_dim, causal, window, scale = rng.choice(OPTIONS)
    heads_kv, group = count(rng, 16), count(rng, 8)
    batch = count(rng, VARLEN_BATCH_MAX)
    lengths_q = [length(rng) for _ in range(batch)]
    lengths_k = list(lengths_q) if rng.random() < 0.5 else \
        [length(rng) for _ in range(batch)]
    # The reference keeps several float64 score tensors: a quarter of the
    # forward's budget.
    shrink_varlen(lengths_q, lengths_k, heads_kv * group, head_dim, 4)
    return {"kind": "backward_varlen", "dtype": dtype, "causal": causal,
            "window": window, "scale": scale, "head_dim": head_dim,
            "heads_q": heads_kv * group, "heads_kv": heads_kv,
            "lengths_q": lengths_q, "lengths_k": lengths_k,
            "packed": rng.random() < 0.3}


def draw_gemm(rng):
    dtype, out = rng.choice(GEMM_TYPES)
    m, n, k = length(rng), length(rng), length(rng)
    lead = None
    if rng.random() < 0.2 and m > 1:
        lead = next(d for d in (rng.randint(2, 8), 2, 1) if m % d == 0)
    return {"kind": "gemm", "dtype": dtype, "out_dtype": out,
            "pass_out_dtype": out != dtype or rng.random() < 0.3,
            "m": m, "n": n, "k": k, "lead": lead,
            "b_transposed": rng.random() < 0.8,
            "layouts": [rng.choice(LAYOUTS_2D) for _ in range(2)]}


# -- references and checks ------------------------------------------------------


def rel_err(out, ref):
    return ((out.double() - ref.double()).norm()
            / ref.double().norm().clamp_min(1e-30)).item()



def poison_pool(nbytes):
    """Fills (about) the current stream's next allocation of ``nbytes``
    with NaN: a freed NaN block is what the caching allocator hands out
    next for that size on this stream."""
    if nbytes:
        torch.full((nbytes // 4 + 1,), float("nan"), dtype=torch.float32,
                   device="cuda")


def run_attention(case, rng, gen):
    import fmha
    from tests.test_gpu_ops import attention_reference
    dt = dtype_of(case["dtype"])
    b, hq, hkv = case["batch"], case["heads_q"], case["heads_kv"]
    sq, sk, d = case["seq_q"], case["seq_k"], case["head_dim"]
    lq, lk, lv = case["layouts"]
    q = make(rng, gen, (b, hq, sq, d), dt, lq)
    k = make(rng, gen, (b, hkv, sk, d), dt, lk)
    v = make(rng, gen, (b, hkv, sk, d), dt, lv)
    window = case["window"]
    if window is not None and case["window_as_list"]:
        window = list(window)
    poison_pool(q.numel() * q.element_size())
    result = fmha.attention(q, k, v, causal=case["causal"], window=window,
                            scale=case["scale"],
                            return_lse=case["return_lse"])
    o, lse = result if case["return_lse"] else (result, None)
    ref, ref_lse = attention_reference(q, k, v, case["causal"],
                                       case["window"], case["scale"])
    torch.cuda.current_stream().synchronize()
    expect_attention(o, lse, ref, ref_lse, (b, hq, sq, d), (b, hq, sq), dt,
                     o)


def cu_seqlens(lengths):
    """The int32 prefix sums of ``lengths``, from 0, on the GPU."""
    out = [0]
    for n in lengths:
        out.append(out[-1] + n)
    return torch.tensor(out, dtype=torch.int32, device="cuda")


def run_varlen(case, rng, gen):
    import fmha
    from tests.test_gpu_varlen import reference
    dt = dtype_of(case["dtype"])
    hq, hkv, d = case["heads_q"], case["heads_kv"], case["head_dim"]
    lq, lk = case["lengths_q"], case["lengths_k"]
    cu = cu_seqlens

    def randn(*size):
        return torch.randn(*size, device="cuda", generator=gen).to(dt)

    tq, tk = sum(lq), sum(lk)
    q = randn(tq, hq, d)
    if case["packed"] and tq == tk and hq == hkv:
        qkv = randn(tq, 3, hq, d)         # slices of one packed tensor
        q, k, v = qkv[:, 0], qkv[:, 1], qkv[:, 2]
    else:
        k, v = randn(tk, hkv, d), randn(tk, hkv, d)
    cu_q, cu_k = cu(lq), cu(lk)
    poison_pool(q.numel() * q.element_size())
    result = fmha.attention_varlen(
        q, k, v, cu_q, cu_k, max(lq), max(lk), causal=case["causal"],
        window=case["window"], scale=case["scale"],
        return_lse=case["return_lse"])
    o, lse = result if case["return_lse"] else (result, None)
    ref, ref_lse = reference(q, k, v, cu_q, cu_k, case["causal"],
                             case["window"], case["scale"])
    torch.cuda.current_stream().synchronize()
    expect_attention(o, lse, ref, ref_lse, (tq, hq, d), (hq, tq), dt,
                     o.transpose(0, 1))


def run_kvcache(case, rng, gen):
    import fmha
    from tests.test_gpu_kvcache import make_cache, reference
    dt = dtype_of(case["dtype"])
    hq, hkv, d = case["heads_q"], case["heads_kv"], case["head_dim"]
    lengths, sq = case["lengths"], case["seq_q"]
    cache = make_cache(lengths, hkv, d, dt, case["page_size"],
                       seed=rng.randrange(1 << 30))
    q = torch.randn(len(lengths), sq, hq, d, device="cuda",
                    generator=gen).to(dt)
    poison_pool(q.numel() * q.element_size())
    options = dict(causal=case["causal"], window=case["window"],
                   scale=case["scale"])
    result = fmha.attention_kvcache(q, *cache, return_lse=case["return_lse"],
                                    **options)
    o, lse = result if case["return_lse"] else (result, None)
    ref, ref_lse = reference(q, *cache, **options)
    torch.cuda.current_stream().synchronize()
    expect_attention(o, lse, ref, ref_lse, tuple(q.shape),
                     (len(lengths), hq, sq), dt, o.transpose(1, 2))


def expect_attention(o, lse, ref, ref_lse, o_shape, lse_shape, dtype,
                     o_rows):
    """Checks an attention result against its float64 reference: shapes
    and dtypes, nothing unwritten, o within ATTENTION_TOLERANCE, rows that
    see no key (lse -inf in the reference) at o = 0 and lse = -inf, and lse
    within LSE_TOLERANCE. ``o_rows`` is o viewed so that ref_lse's shape
    indexes its rows."""
    expect(tuple(o.shape) == o_shape and o.dtype == dtype,
           f"o is {tuple(o.shape)} {o.dtype}")
    expect(int(torch.isnan(o).sum()) == 0,
           f"{int(torch.isnan(o).sum())} elements of o unwritten (NaN)")
    if ref.numel() and ref.norm() > 0:
        err = rel_err(o, ref)
        expect(err < ATTENTION_TOLERANCE, f"o: relative error {err:.3g}")
    empty = torch.isneginf(ref_lse)
    expect(bool((o_rows[empty] == 0).all()),
           "o of a row that sees no key != 0")
    if lse is None:
        return
    expect(tuple(lse.shape) == lse_shape and lse.dtype == torch.float32,
           f"lse is {tuple(lse.shape)} {lse.dtype}")
    expect(int(torch.isnan(lse).sum()) == 0, "lse unwritten (NaN)")
    expect(bool(torch.isneginf(lse[empty]).all()),
           "lse of a row that sees no key != -inf")
    if (~empty).any():
        err = (lse.double() - ref_lse)[~empty].abs().max().item()
        expect(err < LSE_TOLERANCE, f"lse: max abs error {err:.3g}")


def run_backward(case, rng, gen):
    import fmha
    from tests.test_gpu_backward import (backward_reference,
                                         cancellation_noise,
                                         emulated_backward, grad_error)
    dt = dtype_of(case["dtype"])
    b, hq, hkv = case["batch"], case["heads_q"], case["heads_kv"]
    sq, sk, d = case["seq_q"], case["seq_k"], case["head_dim"]
    leaves = [make(rng, gen, shape, dt, layout).detach().requires_grad_()
              for shape, layout in zip(((b, hq, sq, d), (b, hkv, sk, d),
                                        (b, hkv, sk, d)), case["layouts"])]
    q, k, v = leaves
    do = torch.randn((b, hq, sq, d), generator=gen, device="cuda").to(dt)
    poison_pool(q.numel() * q.element_size())
    o = fmha.attention(q, k, v, causal=case["causal"], window=case["window"],
                       scale=case["scale"])
    previous = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(case.get("deterministic", False))
    try:
        o.backward(do)
    finally:
        torch.use_deterministic_algorithms(previous)
    torch.cuda.current_stream().synchronize()
    args = (q.detach(), k.detach(), v.detach(), do, case["causal"],
            case["window"], case["scale"])
    # The baseline: the algorithm in the dtype, with D from its own rounded
    # P V and from the o the forward kernel returned (which the backward
    # reads), whichever errs more.
    ref, emul = backward_reference(*args), emulated_backward(*args)
    emul_o = emulated_backward(*args, o=o.detach())
    eps = torch.finfo(dt).eps
    noise = cancellation_noise(*args[:4], case["scale"])
    for name, t, r, e, eo, allowed in zip(("dq", "dk", "dv"), leaves, ref,
                                          emul, emul_o, noise):
        g = t.grad
        expect(g is not None and tuple(g.shape) == tuple(t.shape),
               f"{name} missing or of shape {None if g is None else g.shape}")
        expect(int(torch.isnan(g).sum()) == 0, f"{name}: NaN")
        err = grad_error(g, r, allowed)
        base = max(grad_error(e, r, allowed), grad_error(eo, r, allowed))
        expect(err <= 2 * base + eps,
               f"{name}: error {err:.3g} above 2 x {base:.3g} + {eps:.3g}")


def run_backward_varlen(case, rng, gen):
    import fmha
    from tests.test_gpu_backward_varlen import grad_errors
    dt = dtype_of(case["dtype"])
    hq, hkv, d = case["heads_q"], case["heads_kv"], case["head_dim"]
    lq, lk = case["lengths_q"], case["lengths_k"]
    tq, tk = sum(lq), sum(lk)

    def randn(*size):
        return torch.randn(*size, device="cuda", generator=gen).to(dt)

    packed = case["packed"] and tq == tk and hq == hkv
    if packed:
        qkv = randn(tq, 3, hq, d).requires_grad_()  # one packed tensor
        q, k, v = qkv.unbind(1)
    else:
        q, k, v = (randn(tq, hq, d).requires_grad_(),
                   randn(tk, hkv, d).requires_grad_(),
                   randn(tk, hkv, d).requires_grad_())
    cu_q, cu_k = cu_seqlens(lq), cu_seqlens(lk)
    do = randn(tq, hq, d)
    options = dict(causal=case["causal"], window=case["window"],
                   scale=case["scale"])
    poison_pool(q.numel() * q.element_size())
    o = fmha.attention_varlen(q, k, v, cu_q, cu_k, max(lq), max(lk),
                              **options)
    o.backward(do)
    torch.cuda.current_stream().synchronize()
    grads = qkv.grad.unbind(1) if packed else (q.grad, k.grad, v.grad)
    for name, g, t in zip(("dq", "dk", "dv"), grads, (q, k, v)):
        expect(g is not None and tuple(g.shape) == tuple(t.shape),
               f"{name} missing or of shape {None if g is None else g.shape}")
        expect(int(torch.isnan(g).sum()) == 0, f"{name}: NaN")
    for name, err, bound in grad_errors(
            grads, q.detach(), k.detach(), v.detach(), do, cu_q, cu_k,
            o.detach(), **options):
        expect(err <= bound, f"{name}: error {err:.3g} above {bound:.3g}")


def run_gemm(case, rng, gen):
    import fmha
    dt, out = dtype_of(case["dtype"]), dtype_of(case["out_dtype"])
    m, n, k = case["m"], case["n"], case["k"]
    la, lb = case["layouts"]
    a = make(rng, gen, (m, k), dt, la)
    b_shape = (n, k) if case["b_transposed"] else (k, n)
    b = make(rng, gen, b_shape, dt, lb)
    if case["lead"]:
        a = a.reshape(case["lead"], m // case["lead"], k)
    c = fmha.gemm(a, b, out if case["pass_out_dtype"] else None,
                  b_transposed=case["b_transposed"])
    a2 = a.reshape(m, k)
    bt = b.t() if case["b_transposed"] else b
    ref = a2.double() @ bt.double()
    torch.cuda.current_stream().synchronize()
    want = (*a.shape[:-1], n)
    expect(tuple(c.shape) == want and c.dtype == out,
           f"c is {tuple(c.shape)} {c.dtype}, want {want} {out}")
    expect(int(torch.isnan(c).sum()) == 0,
           f"{int(torch.isnan(c).sum())} elements of c unwritten (NaN)")
    rows = c.reshape(m, n) if c.dim() > 2 else c
    if ref.numel():
        # Relative to the result, or to the size of its terms where the
        # sums cancel (a few outputs of long dot products: rounding
        # grows with the terms, not with the sum).
        terms = a2.double().abs() @ bt.double().abs()
        scale = terms.norm().item() / max(k, 1) ** 0.5
        err = ((rows.double() - ref).norm()
               / max(ref.norm().item(), scale, 1e-30)).item()
        tol = GEMM_TOLERANCE[case["out_dtype"]]
        expect(err < tol, f"c: relative error {err:.3g} (allowed {tol})")
    stride = rows.stride(0) if m and n else n
    if m and n and stride > n:
        pad = torch.as_strided(rows, (m, stride), (stride, 1))[:, n:]
        expect(bool(((pad == SENTINEL) | (pad == 0)).all()),
               "a stray write in c's row padding")


def poisoned_gemm_outputs():
    """Makes fmha.gemm's output buffers start as NaN, their row padding as
    SENTINEL (fmha.torch_ops.gemm_output is where every path allocates
    them)."""
    from fmha import torch_ops
    original = torch_ops.gemm_output

    def poisoned(torch_, m, n, dtype, device):
        c = original(torch_, m, n, dtype, device)
        stride = c.stride(0) if m and n else n
        if m and n and stride > n:
            torch.as_strided(c, (m, stride), (stride, 1)).fill_(SENTINEL)
        c.fill_(float("nan"))
        return c

    torch_ops.gemm_output = poisoned


# -- bad inputs -------------------------------------------------------------------


def bad_cases():
    """(description, call, exception types, text the message must hold)."""
    import fmha

    def t(*shape, dtype=torch.bfloat16, device="cuda"):
        return torch.randn(*shape, device=device).to(dtype)

    q, kv = t(1, 4, 33, 64), t(1, 2, 40, 64)
    att = fmha.attention
    value = (ValueError,)
    return [
        ("attention f32", lambda: att(t(1, 2, 8, 64, dtype=torch.float32),
                                      t(1, 2, 8, 64, dtype=torch.float32),
                                      t(1, 2, 8, 64, dtype=torch.float32)),
         (TypeError,), "bfloat16 or float16"),
        ("attention mixed dtypes", lambda: att(
            q, kv, kv.to(torch.float16)), (TypeError,), "one dtype"),
        ("attention head dim 96", lambda: att(t(1, 2, 8, 96), t(1, 2, 8, 96),
                                              t(1, 2, 8, 96)),
         value, "head_dim must be one of 64, 128, 256"),
        ("attention GQA 4:3", lambda: att(q, t(1, 3, 40, 64),
                                          t(1, 3, 40, 64)),
         value, "multiple of heads_kv"),
        ("attention k/v shapes", lambda: att(q, kv, t(1, 2, 41, 64)),
         value, "k and v must have one shape"),
        ("attention batch", lambda: att(t(2, 4, 33, 64), kv, kv),
         value, "one batch size"),
        ("attention rank", lambda: att(t(4, 33, 64), kv, kv),
         value, "[batch, heads, seq, head_dim]"),
        ("attention window -1", lambda: att(q, kv, kv, window=(-1, 0)),
         value, "window must be (left, right)"),
        ("attention window 2^31", lambda: att(q, kv, kv, window=(2**31, 0)),
         value, "2147483647"),
        ("attention causal window right", lambda: att(
            q, kv, kv, causal=True, window=(8, 2)), value, "right must be 0"),
        ("attention scale 0", lambda: att(q, kv, kv, scale=0.0),
         value, "scale must be > 0"),
        ("attention scale nan", lambda: att(q, kv, kv, scale=float("nan")),
         value, "finite"),
        ("attention scale 1e300", lambda: att(q, kv, kv, scale=1e300),
         value, "normal float32"),
        ("attention CPU", lambda: att(q.cpu(), kv.cpu(), kv.cpu()),
         value, "CUDA"),
        ("gemm f32", lambda: fmha.gemm(t(8, 16, dtype=torch.float32),
                                       t(8, 16, dtype=torch.float32)),
         (TypeError,), "bfloat16, float16 or fp8"),
        ("gemm mixed dtypes", lambda: fmha.gemm(
            t(8, 16), t(8, 16, dtype=torch.float16)), (TypeError,),
         "must match"),
        ("gemm K", lambda: fmha.gemm(t(8, 16), t(8, 24)),
         (ValueError, RuntimeError), "their K differ"),
        ("gemm rank", lambda: fmha.gemm(t(16), t(8, 16)),
         value, "a must be"),
        ("gemm out dtype", lambda: fmha.gemm(t(8, 16), t(8, 16),
                                             torch.int32),
         (TypeError,), "out_dtype must be"),
    ]


def run_bad(rng):
    name, call, types, text = rng.choice(bad_cases())
    try:
        call()
    except types as e:
        expect(text in str(e), f"{name}: {type(e).__name__} without "
               f"{text!r}: {e}")
        return name
    except Exception as e:  # noqa: BLE001 - the wrong error is a failure
        raise CaseFailure(f"{name}: {type(e).__name__} (want "
                          f"{'/'.join(t.__name__ for t in types)}): "
                          f"{e}") from None
    raise CaseFailure(f"{name}: no error raised")


# -- running ------------------------------------------------------------------------


def draw(seed, index):
    """Case ``index`` of run ``seed``: its kind and parameters."""
    rng = random.Random(seed * 1_000_003 + index)
    roll = rng.random()
    if roll < 0.05:
        return rng, {"kind": "bad"}
    if roll < 0.42:
        return rng, draw_attention(rng)
    if roll < 0.45:
        return rng, draw_backward(rng)
    if roll < 0.47:
        return rng, draw_backward_varlen(rng)
    if roll < 0.55:
        return rng, draw_varlen(rng)
    return rng, draw_kvcache(rng) if roll < 0.63 else draw_gemm(rng)


def describe(case):
    return " ".join(f"{k}={v}" for k, v in case.items())


def run_case(seed, index, streams):
    """Runs case ``index``; returns (kind, failure message or None)."""
    rng, case = draw(seed, index)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed * 1_000_003 + index)
    stream = rng.choice(streams)
    try:
        with torch.cuda.stream(stream):
            if case["kind"] == "bad":
                case["name"] = run_bad(rng)
            elif case["kind"] == "attention":
                run_attention(case, rng, gen)
            elif case["kind"] == "varlen":
                run_varlen(case, rng, gen)
            elif case["kind"] == "kvcache":
                run_kvcache(case, rng, gen)
            elif case["kind"] == "backward":
                run_backward(case, rng, gen)
            elif case["kind"] == "backward_varlen":
                run_backward_varlen(case, rng, gen)
            else:
                run_gemm(case, rng, gen)
        return case, None
    except CaseFailure as e:
        return case, str(e)
    except Exception as e:  # noqa: BLE001 - counted, with the traceback
        tb = traceback.format_exc(limit=6)
        return case, f"{type(e).__name__}: {e}\n{tb}"


class Counter:
    def __init__(self):
        self.lock = threading.Lock()
        self.next = 0
        self.passed = {}
        self.failed = {}
        self.failures = []
        self.fatal = False
        # Per worker thread: (case index, when it started).
        self.current = {}

    def take(self):
        with self.lock:
            index, self.next = self.next, self.next + 1
            return index

    def record(self, index, case, failure):
        with self.lock:
            kind = case["kind"]
            table = self.failed if failure else self.passed
            table[kind] = table.get(kind, 0) + 1
            if failure:
                self.failures.append(index)
                print(f"FAIL case {index}: {failure}\n  {describe(case)}",
                      flush=True)
                # A CUDA error poisons the context: later cases mean nothing.
                if "CUDA error" in failure or "launch failure" in failure:
                    self.fatal = True


def worker(seed, deadline, counter, max_cases, kinds=None, streams="mixed"):
    # mixed: two streams of the thread's own and the (legacy) default one;
    # own: one stream of the thread's own; default: the default stream only.
    streams = {"mixed": lambda: [torch.cuda.Stream(), torch.cuda.Stream(),
                                 torch.cuda.default_stream()],
               "own": lambda: [torch.cuda.Stream()],
               "default": lambda: [torch.cuda.default_stream()]}[streams]()
    while time.monotonic() < deadline and not counter.fatal:
        index = counter.take()
        if max_cases is not None and index >= max_cases:
            return
        if kinds is not None and draw(seed, index)[1]["kind"] not in kinds:
            continue
        counter.current[threading.get_ident()] = (index, time.monotonic())
        case, failure = run_case(seed, index, streams)
        counter.current.pop(threading.get_ident(), None)
        counter.record(index, case, failure)


def watchdog(seed, counter, workers, stall_seconds):
    """Ends the run, as a failure, when a case takes longer than
    ``stall_seconds``: a hang (a kernel that never ends, a lock never
    released) must not pass as a slow run. Prints the case and every
    thread's stack, then exits at once (a hung GPU cannot be waited for)."""
    while any(t.is_alive() for t in workers):
        time.sleep(1)
        now = time.monotonic()
        for index, start in list(counter.current.values()):
            if now - start > stall_seconds:
                _, case = draw(seed, index)
                print(f"STALL case {index}: still running after "
                      f"{now - start:.0f} s\n  {describe(case)}", flush=True)
                for ident, frame in sys._current_frames().items():
                    print(f"thread {ident:#x}:\n" + "".join(
                        traceback.format_stack(frame, limit=12)), flush=True)
                print(f"{sum(counter.passed.values())} passed, "
                      f"{sum(counter.failed.values()) + 1} failed",
                      flush=True)
                os._exit(1)


def check_environment(kinds=None):
    """Skips (exit 77) without PyTorch, a compute capability 9.0 device or
    the kernels of the cases of ``kinds`` (None: every kind) that are
    compiled up front: dense attention's, fmha.gemm's and kvcache's (the
    other kinds' kernels come from prepare_cache.py's list and compile on
    first use)."""
    global torch
    try:
        import torch as torch_module
    except ImportError:
        print("skipped: no PyTorch")
        sys.exit(SKIP)
    torch = torch_module
    if not torch.cuda.is_available():
        print("skipped: no CUDA device")
        sys.exit(SKIP)
    if torch.cuda.get_device_capability() != (9, 0):
        print(f"skipped: fmha.attention and fmha.gemm run on compute "
              f"capability 9.0; this device has "
              f"{torch.cuda.get_device_capability()}")
        sys.exit(SKIP)
    import fmha
    from fmha import ops
    def wanted(*names):
        return kinds is None or bool(kinds & set(names))

    specs = []
    if wanted("attention", "bad"):
        specs += [ops.attention_spec(d, hd, c, w, s, lse)
                  for d, c, w, s in ATTENTION_OPTIONS for hd in HEAD_DIMS
                  for lse in (False, True)]
    if wanted("gemm", "bad"):
        specs += [ops.gemm_spec(d, o, b_transposed=bt)
                  for d, o in GEMM_TYPES for bt in (True, False)]
    if wanted("kvcache"):
        specs += [ops.attention_spec(d, hd, c, w, s, lse, kvcache=True,
                                     page_size=page)
                  for d, c, w, s, hds, pages in KVCACHE_OPTIONS
                  for hd in hds for page in pages for lse in (False, True)]
    for spec in specs:
        try:
            fmha.compile(spec, progress=lambda message: None)
        except fmha.CompileError as e:
            if e.step in ("tools", "cache"):
                print(f"skipped: {e}\n(compile the kernels with "
                      f"test/GPU/prepare_cache.py DIR where the compiler "
                      f"is, and set FMHA_CACHE_DIR=DIR here)")
                sys.exit(SKIP)
            raise


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=1.0)
    p.add_argument("--seed", type=int,
                   default=int.from_bytes(os.urandom(4), "little"))
    p.add_argument("--threads", type=int, default=3)
    p.add_argument("--cases", type=int, help="stop after this many cases")
    p.add_argument("--case", type=int, help="run only case CASE of --seed")
    p.add_argument("--kinds", type=lambda x: set(x.split(",")),
                   help="run only these kinds of case (attention, varlen, "
                   "kvcache, backward, backward_varlen, "
                   "gemm, bad), comma-separated; the others are drawn and passed "
                   "over, so case numbers stay those of the full run")
    p.add_argument("--streams", choices=("mixed", "own", "default"),
                   default="mixed",
                   help="each thread's streams: two of its own and the "
                   "default stream (mixed), one of its own (own), or the "
                   "default stream only (default)")
    p.add_argument("--stall", type=float, default=120.0,
                   help="seconds after which a case counts as hung")
    args = p.parse_args(argv)
    print(f"fmha stress: seed {args.seed}, {args.minutes:g} minutes, "
          f"{args.threads} threads (replay a case: --seed {args.seed} "
          f"--case N)", flush=True)
    check_environment(args.kinds)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    poisoned_gemm_outputs()
    counter = Counter()
    if args.case is not None:
        rng, case = draw(args.seed, args.case)
        print(f"case {args.case}: {describe(case)}")
        case, failure = run_case(args.seed, args.case,
                                 [torch.cuda.default_stream()])
        counter.record(args.case, case, failure)
    else:
        deadline = time.monotonic() + args.minutes * 60
        threads = [threading.Thread(target=worker, args=(
            args.seed, deadline, counter, args.cases, args.kinds,
            args.streams))
            for _ in range(max(1, args.threads))]
        for t in threads:
            t.start()
        watchdog(args.seed, counter, threads, args.stall)
        for t in threads:
            t.join()
    torch.cuda.synchronize()
    passed, failed = sum(counter.passed.values()), \
        sum(counter.failed.values())
    kinds = sorted(set(counter.passed) | set(counter.failed))
    print("by kind: " + ", ".join(
        f"{k} {counter.passed.get(k, 0)} passed "
        f"{counter.failed.get(k, 0)} failed" for k in kinds))
    if counter.failures:
        print(f"failed cases (seed {args.seed}): "
              f"{sorted(counter.failures)[:50]}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
