#!/usr/bin/env python3
"""The varlen attention backward through fmha's public API: packed
sequences against the dense backward on the same tokens, SDPA's cuDNN
backward on the dense layout and PyTorch's own varlen attention where this
PyTorch has one.

    FMHA_CACHE_DIR=DIR python3 bench/backward_varlen.py [--head-dims 64,128]
        [--tokens 16384] [--json FILE]

Each point packs ``--tokens`` tokens (hidden 2048: heads = 2048 / head
dim, no GQA, as bench/backward.py) as sequences of equal length S (512 to
8192), whose dense layout is ``[tokens / S, heads, S, head_dim]`` (the same
work; the dense tensors are contiguous copies, as a dense caller has
them), and as a mix of lengths with the same total (varlen only). Per point, the backward alone:

- ``varlen``: ``torch.autograd.grad`` through ``fmha.attention_varlen``
  (the graph kept and its backward rerun: what training runs; the backward
  trusts the forward's check of the cu_seqlens);
- ``varlen_api``: ``fmha.attention_varlen_backward(q, k, v, o, do, lse,
  cu_seqlens, cu_seqlens, S, S, check_values=False)`` (without the value
  check, a device-to-host copy, the gradients start as zeros);
- ``dense``: the same through ``fmha.attention`` on the dense layout;
  ``dense_det``: ``fmha.attention_backward(..., deterministic=True)`` on it
  (the varlen backward always computes dQ by a kernel of its own, as the
  deterministic form does);
- ``cudnn``: ``torch.autograd.grad`` through SDPA with the cuDNN backend on
  the dense layout (the graph kept and its backward rerun);
- ``torch_varlen``: the same through ``torch.nn.attention.varlen
  .varlen_attn`` on the packed tensors, where it exists and has a backward.

Times are ``triton.testing.do_bench`` medians (L2 flushed before each run);
TFLOP/s count 2.5 times the forward's 4 * S^2 * D per head and sequence,
halved for causal. fmha's varlen gradients are checked against the dense
ones (and, where every sequence has the same length, against cuDNN's)
before timing.
"""

import argparse
import itertools
import json
import math
import os
import random
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
import fmha  # noqa: E402
from backward import bench, rel_err  # noqa: E402
from varlen import (HIDDEN, length_cases, torch_varlen,  # noqa
                    torch_varlen_call)


def grads_of(fn, inputs, do):
    """``fn``'s output and a timer of its backward alone (the graph kept
    and rerun)."""
    out = fn(*inputs)
    return out, lambda: torch.autograd.grad(out, inputs, do,
                                            retain_graph=True)


def point(lengths, d, causal, dense_batch=None):
    heads = HIDDEN // d
    total = sum(lengths)
    dt = torch.bfloat16
    q, k, v = (torch.randn(total, heads, d, device="cuda", dtype=dt)
               for _ in range(3))
    do = torch.randn(total, heads, d, device="cuda", dtype=dt)
    cu = torch.tensor([0, *itertools.accumulate(lengths)],
                      dtype=torch.int32, device="cuda")
    longest = max(lengths)
    o, lse = fmha.attention_varlen(q, k, v, cu, cu, longest, longest,
                                   causal=causal, return_lse=True)

    def varlen():
        return fmha.attention_varlen_backward(
            q, k, v, o, do, lse, cu, cu, longest, longest, causal=causal,
            check_values=False)

    got = varlen()
    inputs = tuple(t.detach().requires_grad_() for t in (q, k, v))
    out, timer = grads_of(
        lambda a, b_, c: fmha.attention_varlen(
            a, b_, c, cu, cu, longest, longest, causal=causal), inputs, do)
    auto = torch.autograd.grad(out, inputs, do, retain_graph=True)
    errors = {"varlen_api": max(rel_err(g, r) for g, r in zip(got, auto))}
    times = {"varlen": bench(timer), "varlen_api": bench(varlen)}
    del out, timer, auto
    if dense_batch is not None:
        s = lengths[0]

        def dense_copy(t):
            return t.view(dense_batch, s, heads, d).transpose(1, 2) \
                .contiguous()

        qd, kd, vd, od, dod = (dense_copy(t) for t in (q, k, v, o, do))
        lsed = lse.view(heads, dense_batch, s).transpose(0, 1).contiguous()
        dense = fmha.attention_backward(qd, kd, vd, od, dod, lsed,
                                        causal=causal, deterministic=True)
        errors["dense"] = max(
            rel_err(g, r.transpose(1, 2).reshape(g.shape))
            for g, r in zip(got, dense))
        inputs = tuple(t.detach().requires_grad_() for t in (qd, kd, vd))
        out, timer = grads_of(
            lambda a, b_, c: fmha.attention(a, b_, c, causal=causal),
            inputs, dod)
        times["dense"] = bench(timer)
        del out, timer
        times["dense_det"] = bench(lambda: fmha.attention_backward(
            qd, kd, vd, od, dod, lsed, causal=causal, deterministic=True))
        try:
            with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                out, timer = grads_of(
                    lambda a, b_, c: F.scaled_dot_product_attention(
                        a, b_, c, is_causal=causal), inputs, dod)
                ref = torch.autograd.grad(out, inputs, dod,
                                          retain_graph=True)
                errors["cudnn"] = max(
                    rel_err(g, r.transpose(1, 2).reshape(g.shape))
                    for g, r in zip(got, ref))
                times["cudnn"] = bench(timer)
            del out, timer, ref
        except RuntimeError as e:
            print(f"  cudnn: {str(e).splitlines()[0][:100]}", flush=True)
            times["cudnn"] = math.nan
    tv = torch_varlen()
    if tv is not None:
        try:
            inputs = tuple(t.detach().requires_grad_() for t in (q, k, v))
            call = torch_varlen_call(tv, *inputs, cu, longest, causal)
            out = call()
            ref = torch.autograd.grad(out, inputs, do, retain_graph=True)
            errors["torch_varlen"] = max(rel_err(g, r)
                                         for g, r in zip(got, ref))
            times["torch_varlen"] = bench(lambda: torch.autograd.grad(
                out, inputs, do, retain_graph=True))
            del out, ref
        except Exception as e:  # noqa: BLE001 - reported, not fatal
            print(f"  torch varlen_attn: {type(e).__name__}: "
                  f"{str(e).splitlines()[0][:100]}", flush=True)
    for name, err in errors.items():
        if err > 2e-2:
            print(f"  varlen gradients differ from {name}'s: {err:.3g}",
                  flush=True)
    work = 2.5 * sum(4 * s * s * d * heads for s in lengths) / \
        (2 if causal else 1)
    # bench() gives microseconds.
    return {name: {"us": us, "tflops": work / (us * 1e-6) / 1e12}
            for name, us in times.items()}, errors


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--head-dims", default="64,128")
    p.add_argument("--tokens", type=int, default=16384)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", help="write the results to this file")
    args = p.parse_args()
    torch.zeros(1, device="cuda")
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"{args.tokens} tokens, hidden {HIDDEN}; torch varlen_attn: "
          f"{'yes' if torch_varlen() else 'no'}", flush=True)
    rows = []
    rng = random.Random(args.seed)
    for d in (int(x) for x in args.head_dims.split(",")):
        for causal in (False, True):
            for label, lengths, batch in length_cases(args.tokens, rng):
                r, errors = point(lengths, d, causal, batch)
                line = ", ".join(f"{n} {v['us']:.0f} us "
                                 f"{v['tflops']:.0f} TFLOP/s"
                                 for n, v in r.items())
                ratios = "".join(
                    f"; {n}/varlen {r[n]['us'] / r['varlen']['us']:.3f}"
                    for n in ("varlen_api", "dense", "dense_det", "cudnn",
                              "torch_varlen")
                    if n in r)
                print(f"d={d} causal={causal} {label} ({len(lengths)} "
                      f"seqs): {line}{ratios}", flush=True)
                rows.append({"head_dim": d, "causal": causal, "case": label,
                             "lengths": lengths, "times": r,
                             "grad_rel_err": errors})
                torch.cuda.empty_cache()
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
