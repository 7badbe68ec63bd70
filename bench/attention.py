#!/usr/bin/env python3
"""Attention-forward benchmark: fmha vs PyTorch SDPA (cuDNN and flash).

FlashAttention-3's grid: batch x seqlen = 16384 tokens, hidden 2048 (heads =
2048 / head dim), bf16, causal and not. All kernels run on the same inputs
in one run; times are the median of triton.testing.do_bench (L2 flushed);
TFLOP/s = 4 * B * H * S^2 * D / t, halved for causal. fmha's output is
checked against SDPA before it is timed.

usage: attention.py MANIFEST_DIR [--seqlens 512,1024,...] [--head-dims 64,128]
MANIFEST_DIR holds attn_d<D>.json and attn_d<D>_causal.json (+ cubins).
"""

import argparse
import os
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("manifests")
    parser.add_argument("--seqlens", default="512,1024,2048,4096,8192,16384")
    parser.add_argument("--head-dims", default="64,128")
    args = parser.parse_args()

    import torch
    import triton.testing
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from fmha.runtime import Kernel

    print(f"device: {torch.cuda.get_device_name()}")
    rows = []
    for d in (int(x) for x in args.head_dims.split(",")):
        for causal in (False, True):
            name = f"attn_d{d}{'_causal' if causal else ''}.json"
            kernel = Kernel.load(os.path.join(args.manifests, name))
            for s in (int(x) for x in args.seqlens.split(",")):
                b, h = 16384 // s, 2048 // d
                print(f"timing d={d} causal={causal} seqlen={s} ...",
                      flush=True)
                q, k, v = (torch.randn(b, h, s, d, device="cuda",
                                       dtype=torch.bfloat16) for _ in range(3))
                o = torch.full_like(q, float("nan"))
                flops = 4 * b * h * s * s * d / (2 if causal else 1)

                def sdpa(backend):
                    with sdpa_kernel(backend):
                        return torch.nn.functional.scaled_dot_product_attention(
                            q, k, v, is_causal=causal)

                ref = sdpa(SDPBackend.CUDNN_ATTENTION)
                kernel(q=q, k=k, v=v, o=o)
                torch.cuda.synchronize()
                err = ((o.float() - ref.float()).norm()
                       / ref.float().norm()).item()
                if not err < 2e-2:
                    print(f"fmha differs from cuDNN: rel err {err:.2e}")
                    return 1
                launch = kernel.prepare({"q": q, "k": k, "v": v, "o": o})
                run = lambda: kernel.driver.launch(
                    launch.function, launch.grid, launch.block,
                    launch.dynamic_smem, launch.stream, launch.params.array,
                    launch.cluster)
                times = {
                    "fmha": triton.testing.do_bench(run, warmup=50, rep=300,
                                                    return_mode="median"),
                    "cudnn": triton.testing.do_bench(
                        lambda: sdpa(SDPBackend.CUDNN_ATTENTION), warmup=50,
                        rep=300, return_mode="median"),
                    "flash": triton.testing.do_bench(
                        lambda: sdpa(SDPBackend.FLASH_ATTENTION), warmup=50,
                        rep=300, return_mode="median"),
                }
                tf = {key: flops / (ms * 1e-3) / 1e12 for key, ms in times.items()}
                rows.append((d, causal, s, tf["cudnn"], tf["flash"], tf["fmha"]))

    print()
    print("| head dim | causal | seqlen | cuDNN | FA2 (flash) | fmha | fmha / cuDNN |")
    print("|---|---|---|---|---|---|---|")
    for d, causal, s, cudnn, flash, fmha in rows:
        print(f"| {d} | {'yes' if causal else 'no'} | {s} | {cudnn:.0f} | "
              f"{flash:.0f} | {fmha:.0f} | {fmha / cudnn:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
