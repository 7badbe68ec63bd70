#!/usr/bin/env python3
"""Kernel times of decode through ``fmha.attention_kvcache`` with the number
of splits forced, from torch.profiler (diagnosis only: L2 stays warm
between the calls, and host time is not counted; the claims come from
bench/kvcache.py and bench/decode_splits.py).

    FMHA_CACHE_DIR=DIR python3 bench/decode_profile.py
        [--lengths 1024,16384] [--splits 1,2,4,8,16,32]

Batch 1, bf16, head dim 128, GQA 32:8, one query, dense caches; for each
(length, S) the mean device time of the kernels of 20 calls, by name.
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


def kernel_times(call):
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(20):
            call()
        torch.cuda.synchronize()
    return {e.key: round(e.device_time, 1) for e in prof.key_averages()
            if e.device_time > 0}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lengths", default="1024,16384")
    p.add_argument("--splits", default="1,2,4,8,16,32")
    args = p.parse_args()
    for length in (int(x) for x in args.lengths.split(",")):
        q = torch.randn(1, 1, HEADS, HEAD_DIM, device="cuda",
                        dtype=torch.bfloat16)
        k = torch.randn(1, length, HEADS_KV, HEAD_DIM, device="cuda",
                        dtype=torch.bfloat16)
        v = torch.randn_like(k)
        lens = torch.full((1,), length, dtype=torch.int32, device="cuda")
        for splits in (int(x) for x in args.splits.split(",")):
            def call():
                return fmha.attention_kvcache(q, k, v, lens,
                                              num_splits=splits,
                                              check_values=False)
            call()
            torch.cuda.synchronize()
            print(f"L={length} S={splits}: {kernel_times(call)}",
                  flush=True)


if __name__ == "__main__":
    main()
