#!/usr/bin/env python3
"""fmha.gemm with each candidate configuration forced, against cuBLAS, on
issue 14's GEMM shapes, in one run: does a configuration (the ping-pong
schedule, say) win where it is expected to?

    FMHA_CACHE_DIR=DIR python3 bench/gemm_schedules.py
        [--only pingpong|splitk] [--json FILE] [MxNxK ...]

For each shape: cuBLAS (``torch.matmul(a, w.t())``), ``fmha.gemm(a, w)``
with the configuration the API selects, and ``fmha.gemm(a, w)`` with each
candidate of ``fmha.tuning.GEMM_CANDIDATES`` (and the ping-pong and
split-K configurations below) forced (the selection is patched to return
it; ``--only pingpong`` keeps the ping-pong ones and the API's choice,
``--only splitk`` the split-K ones, candidates included). Every output is checked against cuBLAS before it is timed.
Times are ``triton.testing.do_bench`` medians (L2 flushed before each run)
of the whole call. The kernel cache (FMHA_CACHE_DIR) must hold the kernels
(test/GPU/prepare_cache.py compiles every candidate).
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
from fmha import ops, torch_ops, tuning  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gemm_configs import PINGPONG, SPLITK  # noqa: E402

SHAPES = ["4096x4096x4096", "8192x8192x8192", "3000x3000x3000",
          "16384x16384x256", "7x8192x4096", "64x8192x4096",
          "8192x14336x4096", "8192x4096x14336", "1000x1000x1000"]


def bench(fn):
    return do_bench(fn, warmup=25, rep=100, return_mode="median") * 1e3


def forget_selection():
    """Drops fmha.gemm's memoized choices and bound launches, so that the
    next call selects again."""
    torch_ops._SELECTED.clear()
    torch_ops._FAST.clear()


def forced(config):
    """A tuning.choose that returns ``config`` for every problem."""
    return lambda category, sizes, rec=None: dict(config)


def kind(config):
    """``pingpong``, ``splitk`` or ``cooperative``."""
    if config.get("schedule") == "pingpong":
        return "pingpong"
    return "splitk" if config.get("splits", 1) > 1 else "cooperative"


def label(config):
    return json.dumps(tuning.normalize_config(config), sort_keys=True,
                      default=list)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("sizes", nargs="*", default=SHAPES)
    p.add_argument("--only", choices=["pingpong", "splitk"],
                   help="time only the ping-pong or the split-K "
                   "configurations (and the API's choice)")
    p.add_argument("--json", help="also write the results to this file")
    args = p.parse_args()
    torch.zeros(1, device="cuda")
    configs = [c for c in tuning.GEMM_CANDIDATES + tuple(PINGPONG + SPLITK)
               if args.only is None or kind(c) == args.only]
    choose = tuning.choose
    print(f"device: {torch.cuda.get_device_name()}", flush=True)
    results = []
    for size in args.sizes:
        m, n, k = (int(x) for x in size.split("x"))
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        ref = torch.matmul(a, w.t())
        flop = 2.0 * m * n * k
        cublas = bench(lambda: torch.matmul(a, w.t()))
        row = {"shape": size, "cublas_us": cublas, "configs": {}}
        forget_selection()
        row["api_config"] = choose(*tuning.gemm_problem(m, n, k))
        row["api_us"] = bench(lambda: fmha.gemm(a, w))
        for config in configs:
            # The first call selects (and memoizes) the forced config; the
            # timed calls reuse its kernel and bound launch.
            # fmha.gemm would fall back to another config silently.
            try:
                fmha.compile(ops.gemm_spec("bf16", "bf16", "sm_90a", config))
            except fmha.CompileError as e:
                row["configs"][label(config)] = f"skipped: {e.step}"
                continue
            forget_selection()
            tuning.choose = forced(config)
            try:
                c = fmha.gemm(a, w)
            finally:
                tuning.choose = choose
            err = ((c.float() - ref.float()).norm() /
                   ref.float().norm()).item()
            if not err < 1e-2:
                row["configs"][label(config)] = f"wrong: rel err {err:.3g}"
                continue
            row["configs"][label(config)] = bench(lambda: fmha.gemm(a, w))
        forget_selection()
        results.append(row)
        print(f"{size}: cuBLAS {flop / cublas / 1e6:.0f} TFLOP/s; API "
              f"{label(row['api_config'])} {cublas / row['api_us']:.3f}x",
              flush=True)
        timed = [(us, name) for name, us in row["configs"].items()
                 if isinstance(us, float)]
        for us, name in sorted(timed):
            print(f"    {cublas / us:.3f}x  {flop / us / 1e6:6.0f} TFLOP/s  "
                  f"{name}", flush=True)
        for name, why in row["configs"].items():
            if not isinstance(why, float):
                print(f"    {why}  {name}", flush=True)
        best = {}
        for us, name in timed:
            group = kind(json.loads(name))
            if group not in best or us < best[group][0]:
                best[group] = (us, name)
        for group, (us, name) in sorted(best.items()):
            print(f"  best {group}: {cublas / us:.3f}x cuBLAS ({name})",
                  flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(),
                       "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
