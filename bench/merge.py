#!/usr/bin/env python3
"""Merging attention states through the public API: ``fmha.merge_states``
against the same merge written as a PyTorch expression and against copy
bandwidth (a ``torch.Tensor.copy_`` of as many bytes as the merge reads).

    FMHA_CACHE_DIR=DIR python3 bench/merge.py [--states 2,4,8]
        [--json FILE]

Points: bf16, head dim 128, 32 heads; decode (tokens 1 x batch 8, 64, 512)
and prefill (batch 1 x 4096 and 32768 tokens), each with 2 to 8 states in
fmha.attention_kvcache's layout (o ``[batch, seq, heads, 128]``, lse
``[batch, heads, seq]``). Two states go in as separate tensors (the
two-way form), more as a list. Times are ``triton.testing.do_bench``
medians (L2 flushed before each run) of the whole call, host path
included. GB/s count the bytes the merge must move: every state's o and
lse read, o and lse written. The outputs are checked against the PyTorch
expression (float32) before timing.
"""

import argparse
import json
import os
import sys

import torch
from triton.testing import do_bench

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
import fmha  # noqa: E402

HEADS = 32
HEAD_DIM = 128
# (batch, tokens per sequence)
SHAPES = ((8, 1), (64, 1), (512, 1), (1, 4096), (1, 32768))


def bench(fn):
    return do_bench(fn, warmup=25, rep=100, return_mode="median")


def torch_merge(states):
    """The merge as a PyTorch expression (what users write without a
    kernel), in float32: o [B, T, H, D], lse [B, H, T]."""
    lse = torch.stack([s[1] for s in states])
    total = torch.logsumexp(lse, dim=0)
    weight = torch.exp(lse - total).nan_to_num(0.0).transpose(-1, -2)
    o = sum(w[..., None] * s[0].float()
            for w, s in zip(weight.unbind(0), states))
    return o.to(states[0][0].dtype), total


def point(batch, tokens, count):
    states = [(torch.randn(batch, tokens, HEADS, HEAD_DIM, device="cuda",
                           dtype=torch.bfloat16),
               torch.randn(batch, HEADS, tokens, device="cuda"))
              for _ in range(count)]

    def ours():
        if count == 2:
            return fmha.merge_states(*states[0], *states[1], layout="bshd")
        return fmha.merge_states(states, layout="bshd")

    o, lse = ours()
    ref_o, ref_lse = torch_merge(states)
    err = (o.float() - ref_o.float()).abs().max().item()
    if err > 2e-2 or (lse - ref_lse).abs().max().item() > 1e-4:
        print(f"  fmha differs from PyTorch: {err:.3g}", flush=True)
    nbytes = count * (states[0][0].nbytes + states[0][1].nbytes) + \
        o.nbytes + lse.nbytes
    src = torch.empty(nbytes // 2, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    times = {"fmha": bench(ours), "torch": bench(lambda: torch_merge(states)),
             "copy": bench(lambda: dst.copy_(src))}
    return nbytes, times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--states", default="2,4,8")
    parser.add_argument("--json", help="write the points to this file")
    args = parser.parse_args()
    counts = [int(x) for x in args.states.split(",")]
    print(f"device: {torch.cuda.get_device_name()}, torch "
          f"{torch.__version__}", flush=True)
    rows = []
    for (batch, tokens) in SHAPES:
        for count in counts:
            nbytes, times = point(batch, tokens, count)
            # copy_ moves nbytes / 2 each way: nbytes in all.
            line = ", ".join(f"{k} {t * 1e3:8.1f} us "
                             f"({nbytes / t / 1e6:7.1f} GB/s)"
                             for k, t in times.items())
            print(f"batch {batch:4d} x {tokens:5d} tokens, {count} states: "
                  f"{line}, fmha/torch {times['torch'] / times['fmha']:.2f}x",
                  flush=True)
            rows.append({"batch": batch, "tokens": tokens, "states": count,
                         "bytes": nbytes, "ms": times})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
