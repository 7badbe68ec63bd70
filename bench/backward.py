#!/usr/bin/env python3
"""The attention backward through fmha's public API against SDPA's cuDNN
and FlashAttention-2 backends, on FlashAttention-3's grid.

    FMHA_CACHE_DIR=DIR python3 bench/backward.py [--quick] [--json FILE]
        [--head-dims 64,128]

The grid (FlashAttention-3's paper): 16k tokens (batch = 16384 / seqlen),
hidden 2048 (heads = 2048 / head_dim), seqlen 512 to 16k, head dims 64
and 128, causal and not, bf16. Per point:

- ``bwd``: the backward alone. fmha: ``fmha.attention_backward(q, k, v, o,
  do, lse)`` (``bwd_api``; ``bwd_api_det`` with ``deterministic=True``,
  dQ by its own kernel) and ``torch.autograd.grad`` through
  ``fmha.attention`` (``bwd``); SDPA: ``torch.autograd.grad`` through
  ``scaled_dot_product_attention`` with the backend forced. The autograd
  figures time the same thing for everyone (the graph is kept and its
  backward rerun).
- ``fwd_bwd``: forward and backward, ``torch.autograd.grad(attention(q,
  k, v), (q, k, v), do)``.

Times are ``triton.testing.do_bench`` medians (L2 flushed before each
run); TFLOP/s count 2.5 times the forward's 4 b h s^2 d for the backward
(five matrix products to the forward's two) and 3.5 times for both,
halved for causal, as FlashAttention-3's paper does. Before timing, each
point checks fmha's gradients against SDPA's (relative error below 2e-2).
The kernel cache (FMHA_CACHE_DIR) must hold the kernels the API selects
(test/GPU/prepare_cache.py). Prints one line per point and writes the
rows as JSON with ``--json``.
"""

import argparse
import json
import math
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from triton.testing import do_bench

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
import fmha  # noqa: E402

SEQLENS = [512, 1024, 2048, 4096, 8192, 16384]
TOKENS = 16384
HIDDEN = 2048
BACKENDS = (("cudnn", SDPBackend.CUDNN_ATTENTION),
            ("fa2", SDPBackend.FLASH_ATTENTION))
ROWS = []


def bench(fn):
    """The median time of ``fn`` in microseconds."""
    return do_bench(fn, warmup=25, rep=100, return_mode="median") * 1e3


def rel_err(a, b):
    return ((a.float() - b.float()).norm() / b.float().norm()).item()


def sdpa(backend, causal):
    def attention(q, k, v):
        with sdpa_kernel([backend]):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    return attention


def point(hd, causal, s):
    b, h = TOKENS // s, HIDDEN // hd
    q, k, v = (torch.randn(b, h, s, hd, device="cuda", dtype=torch.bfloat16,
                           requires_grad=True) for _ in range(3))
    do = torch.randn(b, h, s, hd, device="cuda", dtype=torch.bfloat16)
    inputs = (q, k, v)

    def ours(q, k, v):
        return fmha.attention(q, k, v, causal=causal)

    impls = {"fmha": ours}
    impls.update((name, sdpa(backend, causal)) for name, backend in BACKENDS)

    # Gradients first: fmha's against SDPA's default backend.
    ref = torch.autograd.grad(F.scaled_dot_product_attention(
        q, k, v, is_causal=causal), inputs, do)
    got = torch.autograd.grad(ours(q, k, v), inputs, do)
    errs = [rel_err(g, r) for g, r in zip(got, ref)]
    assert max(errs) < 2e-2, (hd, causal, s, errs)

    with torch.no_grad():
        o, lse = fmha.attention(q.detach(), k.detach(), v.detach(), causal,
                                return_lse=True)
    qd, kd, vd = (t.detach() for t in inputs)
    times = {"bwd_api": bench(lambda: fmha.attention_backward(
        qd, kd, vd, o, do, lse, causal=causal)),
             "bwd_api_det": bench(lambda: fmha.attention_backward(
                 qd, kd, vd, o, do, lse, causal=causal, deterministic=True))}
    for name, impl in impls.items():
        try:
            out = impl(q, k, v)
            times[f"{name}_bwd"] = bench(lambda: torch.autograd.grad(
                out, inputs, do, retain_graph=True))
            times[f"{name}_fwd_bwd"] = bench(lambda: torch.autograd.grad(
                impl(q, k, v), inputs, do))
            del out
        except RuntimeError as e:  # a backend that does not take the shape
            print(f"  {name}: {str(e).splitlines()[0][:100]}",
                  file=sys.stderr)
            times[f"{name}_bwd"] = times[f"{name}_fwd_bwd"] = math.nan
    fwd = 4 * b * h * s * s * hd / (2 if causal else 1)
    tflops = {key: (3.5 if key.endswith("fwd_bwd") else 2.5) * fwd / t / 1e6
              for key, t in times.items()}
    row = {"head_dim": hd, "causal": causal, "seqlen": s, "batch": b,
           "heads": h, "grad_rel_err": max(errs),
           "us": times, "tflops": tflops}
    for stage in ("bwd", "fwd_bwd"):
        for name, _ in BACKENDS:
            row[f"x_{name}_{stage}"] = times[f"{name}_{stage}"] / \
                times[f"fmha_{stage}"]
    ROWS.append(row)
    print(f"d{hd} {'causal' if causal else 'full'} {s}: bwd fmha "
          f"{tflops['fmha_bwd']:.0f} (api {tflops['bwd_api']:.0f}, "
          f"deterministic {tflops['bwd_api_det']:.0f}) cudnn "
          f"{tflops['cudnn_bwd']:.0f} fa2 {tflops['fa2_bwd']:.0f} TFLOP/s "
          f"(x{row['x_cudnn_bwd']:.2f} cudnn, x{row['x_fa2_bwd']:.2f} fa2); "
          f"fwd+bwd fmha {tflops['fmha_fwd_bwd']:.0f} cudnn "
          f"{tflops['cudnn_fwd_bwd']:.0f} fa2 {tflops['fa2_fwd_bwd']:.0f} "
          f"(x{row['x_cudnn_fwd_bwd']:.2f} cudnn, "
          f"x{row['x_fa2_fwd_bwd']:.2f} fa2)", flush=True)
    del q, k, v, do, o, lse, ref, got
    torch.cuda.empty_cache()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="every other seqlen")
    p.add_argument("--head-dims", default="64,128")
    p.add_argument("--json", help="write the rows here")
    args = p.parse_args()
    torch.manual_seed(0)
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"cuDNN {torch.backends.cudnn.version()}", flush=True)
    for hd in (int(x) for x in args.head_dims.split(",")):
        for causal in (False, True):
            for s in SEQLENS[::2] if args.quick else SEQLENS:
                point(hd, causal, s)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(),
                       "torch": torch.__version__, "rows": ROWS}, f,
                      indent=1)


if __name__ == "__main__":
    main()
