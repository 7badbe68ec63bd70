#!/usr/bin/env python3
"""Decode through ``fmha.attention_kvcache`` with the number of splits
forced, to calibrate ``fmha.kvcache.split_heuristic``: for each batch and
cache length, the time of every S and the S the plan picks.

    FMHA_CACHE_DIR=DIR python3 bench/decode_splits.py [--batches 1,2,4]
        [--lengths 1024,...,131072] [--flush zero|read]

bf16, head dim 128, GQA 32:8, one query per sequence, dense caches;
medians (L2 flushed as ``--flush`` says, bench/flush.py) of the whole call
with ``check_values=False``.
"""

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
import fmha  # noqa: E402
from flush import FLUSHES, median_ms  # noqa: E402
from fmha.kvcache import decode_plan  # noqa: E402

HEADS, HEADS_KV, HEAD_DIM = 32, 8, 128
SPLITS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--batches", default="1,2,4")
    p.add_argument("--lengths", default="1024,4096,16384,65536,131072")
    p.add_argument("--flush", choices=FLUSHES, default="zero",
                   help="how L2 is emptied before each timed call")
    args = p.parse_args()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    print(f"{torch.cuda.get_device_name()}: us per call by S", flush=True)
    for batch in (int(x) for x in args.batches.split(",")):
        for length in (int(x) for x in args.lengths.split(",")):
            q = torch.randn(batch, 1, HEADS, HEAD_DIM, device="cuda",
                            dtype=torch.bfloat16)
            k = torch.randn(batch, length, HEADS_KV, HEAD_DIM, device="cuda",
                            dtype=torch.bfloat16)
            v = torch.randn_like(k)
            lens = torch.full((batch,), length, dtype=torch.int32,
                              device="cuda")
            times = {}
            for splits in SPLITS:
                if splits > length // 128:
                    continue

                def call():
                    return fmha.attention_kvcache(q, k, v, lens,
                                                  num_splits=splits,
                                                  check_values=False)
                call()
                times[splits] = median_ms(call, args.flush) * 1e3
            auto = decode_plan(batch, 1, HEADS, HEADS_KV, HEAD_DIM, length,
                               None, 0, sms)[1]
            best = min(times, key=times.get)
            print(f"batch={batch} L={length}: plan S={auto} "
                  f"{times.get(auto, float('nan')):.1f} us, best S={best} "
                  f"{times[best]:.1f} us | "
                  + " ".join(f"{s}:{t:.1f}" for s, t in times.items()),
                  flush=True)


if __name__ == "__main__":
    main()
