#!/usr/bin/env python3
"""Times several builds of fmha's attention kernels against cuDNN in one run.

usage: compare_attention.py DIR [DIR ...] [--seqlens ..] [--head-dims ..]
                            [--causal 0,1] [--rep MS] [--rounds N]

Each DIR holds attn_d<D>[_causal].json manifests and cubins (as
bench/compile_attention.sh writes them, with or without extra attributes
such as `schedule per_block`). Per shape of the FlashAttention-3 grid (batch x
seqlen = 16384 tokens, hidden 2048, bf16) it prints cuDNN's TFLOP/s and,
for each DIR, the kernel's TFLOP/s and its ratio to cuDNN; a kernel whose
output differs from cuDNN's (relative error >= 2e-2) is reported, not
timed. With --rounds N, cuDNN and the kernels are timed in turn N times
and each figure is the median of its N medians: builds that differ by a few
percent need it, as one timing of a kernel varies by about that much from
one call to the next. Run on the GPU machine with python/ and bench/ on
PYTHONPATH.
"""
import argparse
import os
import statistics

import torch
import triton.testing
from torch.nn.attention import SDPBackend, sdpa_kernel

from attention import load_fmha, rel_err, tflops


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dirs", nargs="+")
    parser.add_argument("--seqlens", default="512,1024,2048,4096,8192")
    parser.add_argument("--head-dims", default="128")
    parser.add_argument("--causal", default="0,1")
    parser.add_argument("--rep", type=float, default=40)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    torch.zeros(1, device="cuda")
    print("d causal seqlen cudnn " +
          " ".join(os.path.basename(d.rstrip("/")) for d in args.dirs))
    for d in map(int, args.head_dims.split(",")):
        for causal in [c == "1" for c in args.causal.split(",")]:
            kernels = [load_fmha(x, d, causal) for x in args.dirs]
            for s in map(int, args.seqlens.split(",")):
                b, h = 16384 // s, 2048 // d
                q, k, v = (torch.randn(b, h, s, d, device="cuda",
                                       dtype=torch.bfloat16)
                           for _ in range(3))

                def bench(fn):
                    return triton.testing.do_bench(fn, warmup=10,
                                                   rep=args.rep,
                                                   return_mode="median")

                def cudnn():
                    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                        return torch.nn.functional \
                            .scaled_dot_product_attention(q, k, v,
                                                          is_causal=causal)

                ref = cudnn()
                runs = [cudnn]
                for kernel in kernels:
                    if kernel is None:
                        runs.append(None)
                        continue
                    o = torch.full_like(q, float("nan"))
                    kernel(q=q, k=k, v=v, o=o)
                    torch.cuda.synchronize()
                    err = rel_err(o, ref)
                    if not err < 2e-2:
                        runs.append(f"wrong(rel err {err:.0e})")
                        continue
                    launch = kernel.prepare({"q": q, "k": k, "v": v, "o": o})
                    # The output stays alive as long as the launch.
                    runs.append(lambda launch=launch, kernel=kernel, o=o:
                                kernel.driver.launch(
                                    launch.function, launch.grid,
                                    launch.block, launch.dynamic_smem,
                                    launch.stream, launch.params.array,
                                    launch.cluster))
                times = [[] for _ in runs]
                for _ in range(args.rounds):
                    for run, ts in zip(runs, times):
                        if callable(run):
                            ts.append(bench(run))
                rates = [tflops(b, h, s, d, causal, statistics.median(ts))
                         if ts else None for ts in times]
                base = rates[0]
                row = [f"{base:.0f}"]
                for run, t in zip(runs[1:], rates[1:]):
                    if run is None:
                        row.append("-")
                    elif t is None:
                        row.append(run)
                    else:
                        row.append(f"{t:.0f}({t / base:.2f})")
                print(d, int(causal), s, " ".join(row), flush=True)


if __name__ == "__main__":
    main()
