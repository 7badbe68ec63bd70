#!/usr/bin/env python3
"""Kernel times of decode through ``fmha.attention_kvcache`` with the number
of splits forced, from torch.profiler (diagnosis only: host time is not
counted; the claims come from bench/kvcache.py and bench/decode_splits.py).

    FMHA_CACHE_DIR=DIR python3 bench/decode_profile.py
        [--lengths 1024,16384] [--splits 1,2,4,8,16,32] [--flush]
        [--head-major] [--cudnn]

Batch 1, bf16, head dim 128, GQA 32:8, one query, dense caches; for each
(length, S) the mean device time of the kernels of 20 calls, by name.
``--flush`` zeroes a 256 MiB buffer before each call (L2 then holds none of
the inputs; its kernel is left out of the table), ``--head-major`` keeps
the caches in ``[batch, heads, seq, dim]`` memory (seen through a
transposed view), ``--cudnn`` adds SDPA's cuDNN backend on the same caches.
"""

import argparse
import os
import sys

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
import fmha  # noqa: E402

HEADS, HEADS_KV, HEAD_DIM = 32, 8, 128


def kernel_times(call, flush):
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(20):
            if flush is not None:
                flush.zero_()
            call()
        torch.cuda.synchronize()
    skip = ("fill", "zero") if flush is not None else ()
    return {e.key: round(e.device_time, 1) for e in prof.key_averages()
            if e.device_time > 0 and not any(s in e.key.lower()
                                             for s in skip)}


def cache(length, head_major):
    shape = (1, HEADS_KV, length, HEAD_DIM) if head_major else \
        (1, length, HEADS_KV, HEAD_DIM)
    t = torch.randn(shape, device="cuda", dtype=torch.bfloat16)
    return t.transpose(1, 2) if head_major else t


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lengths", default="1024,16384")
    p.add_argument("--splits", default="1,2,4,8,16,32")
    p.add_argument("--flush", action="store_true")
    p.add_argument("--head-major", action="store_true")
    p.add_argument("--cudnn", action="store_true")
    args = p.parse_args()
    flush = torch.empty(64 << 20, dtype=torch.int32, device="cuda") \
        if args.flush else None
    for length in (int(x) for x in args.lengths.split(",")):
        q = torch.randn(1, 1, HEADS, HEAD_DIM, device="cuda",
                        dtype=torch.bfloat16)
        k = cache(length, args.head_major)
        v = cache(length, args.head_major)
        lens = torch.full((1,), length, dtype=torch.int32, device="cuda")
        for splits in (int(x) for x in args.splits.split(",")):
            def call():
                return fmha.attention_kvcache(q, k, v, lens,
                                              num_splits=splits,
                                              check_values=False)
            call()
            torch.cuda.synchronize()
            print(f"L={length} S={splits}: {kernel_times(call, flush)}",
                  flush=True)
        if args.cudnn:
            from torch.nn.attention import SDPBackend, sdpa_kernel
            qs, ks, vs = (t.transpose(1, 2) for t in (q, k, v))

            def sdpa():
                with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                    return torch.nn.functional.scaled_dot_product_attention(
                        qs, ks, vs, enable_gqa=True)
            sdpa()
            torch.cuda.synchronize()
            print(f"L={length} cuDNN: {kernel_times(sdpa, flush)}",
                  flush=True)


if __name__ == "__main__":
    main()
