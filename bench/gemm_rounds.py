#!/usr/bin/env python3
"""fmha.gemm through the public API, the kernel it selects launched directly,
and cuBLAS, in three interleaved rounds per shape (do_bench medians, L2
flushed; the direct launch also by fmha.tuning.time_cuda): separates
host cost from kernel speed and shows how much cuBLAS moves between calls.

    FMHA_CACHE_DIR=DIR python3 bench/gemm_rounds.py
"""
import os
import statistics
import sys

import torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import fmha
from fmha import ops, tuning
from triton.testing import do_bench
torch.zeros(1, device="cuda")
def bench(fn): return do_bench(fn, warmup=25, rep=100, return_mode="median") * 1e3
SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (3000, 3000, 3000), (16384, 16384, 256),
          (7, 8192, 4096), (64, 8192, 4096), (8192, 14336, 4096), (8192, 4096, 14336), (1000, 1000, 1000)]
for m, n, k in SHAPES:
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    cat, sizes = tuning.gemm_problem(m, n, k)
    cfg = tuning.choose(cat, sizes, None)
    kern = fmha.compile(ops.gemm_spec("bf16", "bf16", "sm_90a", cfg)).kernel
    c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    t = {"api": [], "direct": [], "cublas": [], "direct_tc": []}
    for r in range(3):
        t["cublas"].append(bench(lambda: torch.matmul(a, w.t())))
        t["api"].append(bench(lambda: fmha.gemm(a, w)))
        t["direct"].append(bench(lambda: kern.launch({"a": a, "b": w, "c": c})))
        t["direct_tc"].append(tuning.time_cuda(lambda: kern.launch({"a": a, "b": w, "c": c}), torch))
    f = 2 * m * n * k / 1e6
    med = {x: statistics.median(v) for x, v in t.items()}
    print(f"{m}x{n}x{k} cfg={cfg}: " + ", ".join(f"{x} {f/v:.0f}" for x, v in med.items())
          + f"  api/cublas {med['cublas']/med['api']:.3f} rounds api {[round(f/v) for v in t['api']]} cublas {[round(f/v) for v in t['cublas']]}", flush=True)
