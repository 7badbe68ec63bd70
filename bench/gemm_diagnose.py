#!/usr/bin/env python3
"""Kernel-level GEMM diagnosis: where fmha.gemm loses to cuBLAS.

Not a benchmark of the API (bench/api.py is): it launches compiled kernels
directly to separate causes. Two steps, as bench/tune.py:

    python3 bench/gemm_diagnose.py prepare --cache DIR   # with the compiler
    FMHA_CACHE_DIR=DIR python3 bench/gemm_diagnose.py run   # on the GPU

Probes:
- row pitch: the same kernel on [M, K] tensors whose rows are 16-byte but
  not 128-byte aligned (3000 and 1000 elements) and on views of the same
  sizes whose rows start at 128-byte multiples (pitch padded);
- stages: thin-M and short-K shapes with 2 to 8 A/B buffers;
Every line prints fmha's time and cuBLAS's on the same tensors (median of
CUDA-event timings, L2 flushed).
"""

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

import fmha  # noqa: E402
from fmha import ops, tuning  # noqa: E402

PITCH_SHAPES = [(3000, 3000, 3000), (1000, 1000, 1000), (4096, 4096, 4096)]
PITCH_TILES = [{"tile": (64, 192, 64), "consumers": 2},
               {"tile": (64, 256, 64), "consumers": 2},
               {"tile": (64, 64, 64), "consumers": 2}]
STAGE_SHAPES = [(7, 8192, 4096), (64, 8192, 4096), (16384, 16384, 256)]
STAGE_TILES = [{"tile": (64, 64, 64), "consumers": 1},
               {"tile": (64, 128, 64), "consumers": 1},
               {"tile": (64, 192, 64), "consumers": 2},
               {"tile": (64, 64, 32), "consumers": 1}]
STAGES = [2, 3, 4, 6, 8]


def specs():
    out = [ops.gemm_spec("bf16", "bf16", "sm_90a", c) for c in PITCH_TILES]
    for c in STAGE_TILES:
        for s in STAGES:
            out.append(ops.gemm_spec("bf16", "bf16", "sm_90a",
                                     dict(c, stages=s)))
    return ops._unique(out)


def prepare(args):
    for spec in specs():
        try:
            fmha.compile(spec, cache_dir=args.cache, progress=lambda m: None)
            print("compiled", spec.name)
        except fmha.CompileError as e:
            print("does not compile:", spec.name, str(e).splitlines()[-1])


def padded(torch, rows, cols, pitch):
    return torch.randn(rows, pitch, device="cuda",
                       dtype=torch.bfloat16)[:, :cols]


def timed(torch, spec, a, b, c):
    try:
        kern = fmha.compile(spec).kernel
    except fmha.CompileError:
        return None
    tensors = {"a": a, "b": b, "c": c}
    return tuning.time_cuda(lambda: kern.launch(tensors), torch, reps=50)


def run(args):
    import torch
    torch.manual_seed(0)
    print(torch.cuda.get_device_name())
    for (m, n, k) in PITCH_SHAPES:
        flop = 2 * m * n * k
        for pitch_k in (k, (k + 63) // 64 * 64):
            a = padded(torch, m, k, pitch_k)
            b = padded(torch, n, k, pitch_k)
            c = padded(torch, m, n, n if pitch_k == k else (n + 63) // 64 * 64)
            ref = tuning.time_cuda(lambda: torch.matmul(a, b.t()), torch,
                                   reps=50)
            line = [f"{m}x{n}x{k} pitch {pitch_k}: cuBLAS "
                    f"{flop / ref / 1e6:.0f}"]
            for cfg in PITCH_TILES:
                spec = ops.gemm_spec("bf16", "bf16", "sm_90a", cfg)
                us = timed(torch, spec, a, b, c)
                if us:
                    line.append(f"{cfg['tile'][1]}c{cfg['consumers']} "
                                f"{flop / us / 1e6:.0f}")
            print(", ".join(line), "TFLOP/s", flush=True)
    for (m, n, k) in STAGE_SHAPES:
        flop = 2 * m * n * k
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        ref = tuning.time_cuda(lambda: torch.matmul(a, b.t()), torch,
                               reps=50)
        print(f"{m}x{n}x{k}: cuBLAS {ref:.1f} us", flush=True)
        for cfg in STAGE_TILES:
            line = []
            for s in STAGES:
                spec = ops.gemm_spec("bf16", "bf16", "sm_90a",
                                     dict(cfg, stages=s))
                us = timed(torch, spec, a, b, c)
                if us:
                    line.append(f"s{s} {us:.1f}")
            print(f"  {'x'.join(map(str, cfg['tile']))} "
                  f"c{cfg['consumers']}: " + ", ".join(line) + " us",
                  flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    pp = sub.add_parser("prepare")
    pp.add_argument("--cache", default=os.environ.get("FMHA_CACHE_DIR"))
    sub.add_parser("run")
    args = p.parse_args()
    (prepare if args.cmd == "prepare" else run)(args)


if __name__ == "__main__":
    main()
