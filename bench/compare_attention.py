#!/usr/bin/env python3
"""Times several builds of fmha's attention kernels against cuDNN in one run.

usage: compare_attention.py DIR [DIR ...] [--seqlens ..] [--head-dims ..]
                            [--causal 0,1] [--rep MS]

Each DIR holds attn_d<D>[_causal].json manifests and cubins (as
bench/compile_attention.sh writes them, with or without extra attributes
such as `schedule per_block`). Per shape of the FlashAttention-3 grid (batch x
seqlen = 16384 tokens, hidden 2048, bf16) it prints cuDNN's TFLOP/s and,
for each DIR, the kernel's TFLOP/s and its ratio to cuDNN; a kernel whose
output differs from cuDNN's (relative error >= 2e-2) is reported, not
timed. Run on the GPU machine with python/ and bench/ on PYTHONPATH.
"""
import argparse
import os

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
                base = tflops(b, h, s, d, causal, bench(cudnn))
                row = [f"{base:.0f}"]
                for kernel in kernels:
                    if kernel is None:
                        row.append("-")
                        continue
                    o = torch.full_like(q, float("nan"))
                    kernel(q=q, k=k, v=v, o=o)
                    torch.cuda.synchronize()
                    err = rel_err(o, ref)
                    if not err < 2e-2:
                        row.append(f"wrong(rel err {err:.0e})")
                        continue
                    launch = kernel.prepare({"q": q, "k": k, "v": v, "o": o})
                    run = lambda: kernel.driver.launch(  # noqa: E731
                        launch.function, launch.grid, launch.block,
                        launch.dynamic_smem, launch.stream,
                        launch.params.array, launch.cluster)
                    t = tflops(b, h, s, d, causal, bench(run))
                    row.append(f"{t:.0f}({t / base:.2f})")
                print(d, int(causal), s, " ".join(row), flush=True)


if __name__ == "__main__":
    main()
