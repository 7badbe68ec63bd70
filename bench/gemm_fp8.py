#!/usr/bin/env python3
"""fp8 fmha.gemm against torch._scaled_mm and bf16 cuBLAS, in one run.

    FMHA_CACHE_DIR=DIR python3 bench/gemm_fp8.py [--json FILE] [MxNxK ...]
    FMHA_CACHE_DIR=DIR python3 bench/gemm_fp8.py --configs [--promote]
        [MxNxK ...]

For each shape (default: 4096^3, 8192^3, 8192x14336x4096,
8192x4096x14336) and each kind of scales (one per tensor; one per row of
a and per column of b, "rowwise"): ``fmha.gemm(a, w, scale_a=...,
scale_b=...)`` through the public API (e4m3 x e4m3 -> bf16, the
configuration fmha's selection picks) with ``use_fast_accum`` True (one
wgmma chain over all of K) and False (accumulate promotion),
``torch._scaled_mm`` with ``use_fast_accum`` True and False (cuBLASLt),
and ``torch.matmul`` on the same shape in bf16. Each fmha accumulation is
compared with cuBLAS's of the same kind. Every fmha output is checked
against ``torch._scaled_mm`` first. Times are ``triton.testing.do_bench``
medians (L2 flushed before each run, many runs) of the whole call.

``--configs`` forces each candidate of ``fmha.tuning.GEMM_FP8_CANDIDATES``
(with ``--promote``: ``GEMM_FP8_PROMOTE_CANDIDATES``, against
``torch._scaled_mm`` with promotion) in turn (the selection patched to
return it) and times it per shape and kind of scales, to fill the tuning
table's ``gemm_fp8`` (``gemm_fp8_promote``) rows. The kernel cache must
hold the kernels (test/GPU/prepare_cache.py compiles every fp8 candidate
for these types).
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

SHAPES = ["4096x4096x4096", "8192x8192x8192", "8192x14336x4096",
          "8192x4096x14336"]
KINDS = {"tensor": ("tensor", "tensor"), "rowwise": ("row", "column")}


def bench(fn):
    return do_bench(fn, warmup=50, rep=300, return_mode="median") * 1e3


def forget_selection():
    """Drops fmha.gemm's memoized choices and bound launches."""
    torch_ops._SELECTED.clear()
    torch_ops._FAST.clear()


def inputs(m, n, k, kind):
    """e4m3 a [m, k] and w [n, k] and their scales of ``kind``."""
    a = (torch.randn(m, k, device="cuda") / 4).to(torch.float8_e4m3fn)
    w = (torch.randn(n, k, device="cuda") / 4).to(torch.float8_e4m3fn)
    if kind == "rowwise":
        sa = torch.rand(m, 1, device="cuda") + 0.5
        sb = torch.rand(1, n, device="cuda") + 0.5
    else:
        sa = torch.tensor(0.7, device="cuda")
        sb = torch.tensor(1.3, device="cuda")
    return a, w, sa, sb


def rel_err(c, ref):
    return ((c.float() - ref.float()).norm() /
            ref.float().norm().clamp_min(1e-30)).item()


def label(config):
    return json.dumps(tuning.normalize_config(config), sort_keys=True,
                      default=list)


def compare(sizes):
    results = []
    for size in sizes:
        m, n, k = (int(x) for x in size.split("x"))
        flop = 2.0 * m * n * k
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        y = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        bf16 = bench(lambda: torch.matmul(x, y.t()))
        del x, y
        for kind in KINDS:
            a, w, sa, sb = inputs(m, n, k, kind)
            wt = w.t()

            def scaled(fast):
                return torch._scaled_mm(a, wt, scale_a=sa, scale_b=sb,
                                        out_dtype=torch.bfloat16,
                                        use_fast_accum=fast)

            ref = scaled(False)

            def ours(fast):
                return fmha.gemm(a, w, scale_a=sa, scale_b=sb,
                                 use_fast_accum=fast)

            forget_selection()
            row = {"shape": size, "scales": kind, "bf16_cublas_us": bf16,
                   "scaled_mm_us": bench(lambda: scaled(False)),
                   "scaled_mm_fast_us": bench(lambda: scaled(True))}
            for fast, suffix in ((True, "_fast"), (False, "_promoted")):
                err = rel_err(ours(fast), ref)
                assert err < 2e-2, (size, kind, fast, err)
                row["config" + suffix] = tuning.choose(*tuning.gemm_problem(
                    m, n, k, fp8=True, promote=not fast))
                row["rel_err" + suffix] = err
                row["fmha" + suffix + "_us"] = bench(lambda: ours(fast))
            results.append(row)
            tf = {key: flop / row[key] / 1e6 for key in
                  ("fmha_fast_us", "fmha_promoted_us", "scaled_mm_us",
                   "scaled_mm_fast_us", "bf16_cublas_us")}
            print(f"{size} {kind:8s}: fast accum: fmha "
                  f"{tf['fmha_fast_us']:.0f} TFLOP/s "
                  f"({label(row['config_fast'])}), _scaled_mm "
                  f"{tf['scaled_mm_fast_us']:.0f}, "
                  f"{row['scaled_mm_fast_us'] / row['fmha_fast_us']:.3f}x; "
                  f"promoted: fmha {tf['fmha_promoted_us']:.0f} "
                  f"({label(row['config_promoted'])}), _scaled_mm "
                  f"{tf['scaled_mm_us']:.0f}, "
                  f"{row['scaled_mm_us'] / row['fmha_promoted_us']:.3f}x; "
                  f"bf16 cuBLAS {tf['bf16_cublas_us']:.0f} (rel err fast "
                  f"{row['rel_err_fast']:.2g}, promoted "
                  f"{row['rel_err_promoted']:.2g})", flush=True)
    return results


def sweep(sizes, promote=False):
    """Each fp8 candidate (``promote``: with accumulate promotion) forced,
    per shape and kind of scales, against torch._scaled_mm with the same
    kind of accumulation."""
    choose = tuning.choose
    results = []
    for size in sizes:
        m, n, k = (int(x) for x in size.split("x"))
        flop = 2.0 * m * n * k
        for kind, (ka, kb) in KINDS.items():
            a, w, sa, sb = inputs(m, n, k, kind)
            ref = torch._scaled_mm(a, w.t(), scale_a=sa, scale_b=sb,
                                   out_dtype=torch.bfloat16)
            fast = bench(lambda: torch._scaled_mm(
                a, w.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16,
                use_fast_accum=not promote))
            key = "scaled_mm_us" if promote else "scaled_mm_fast_us"
            row = {"shape": size, "scales": kind, key: fast, "configs": {}}
            for config in tuning.gemm_candidates(True, promote):
                name = label(config)
                try:
                    fmha.compile(ops.gemm_spec("f8e4m3", "bf16", "sm_90a",
                                               config, scale_a=ka,
                                               scale_b=kb, promote=promote))
                except fmha.CompileError as e:
                    row["configs"][name] = f"skipped: {e.step}"
                    continue
                forget_selection()
                tuning.choose = lambda *args, c=config: dict(c)
                try:
                    c = fmha.gemm(a, w, scale_a=sa, scale_b=sb,
                                  use_fast_accum=not promote)
                finally:
                    tuning.choose = choose
                err = rel_err(c, ref)
                if not err < 2e-2:
                    row["configs"][name] = f"wrong: rel err {err:.3g}"
                    continue
                row["configs"][name] = bench(
                    lambda: fmha.gemm(a, w, scale_a=sa, scale_b=sb,
                                      use_fast_accum=not promote))
            forget_selection()
            results.append(row)
            print(f"{size} {kind}: _scaled_mm "
                  f"{'promoted' if promote else 'fast accum'} "
                  f"{flop / fast / 1e6:.0f} TFLOP/s", flush=True)
            timed = sorted((us, name) for name, us in row["configs"].items()
                           if isinstance(us, float))
            for us, name in timed:
                print(f"    {fast / us:.3f}x  {flop / us / 1e6:6.0f} "
                      f"TFLOP/s  {name}", flush=True)
            for name, why in row["configs"].items():
                if not isinstance(why, float):
                    print(f"    {why}  {name}", flush=True)
    return results


def main():
    p = argparse.ArgumentParser()
    p.add_argument("sizes", nargs="*", default=SHAPES)
    p.add_argument("--configs", action="store_true",
                   help="time every fp8 candidate configuration")
    p.add_argument("--promote", action="store_true",
                   help="with --configs: the accumulate promotion "
                        "candidates")
    p.add_argument("--json", help="also write the results to this file")
    args = p.parse_args()
    torch.zeros(1, device="cuda")
    print(f"device: {torch.cuda.get_device_name()}, torch "
          f"{torch.__version__}", flush=True)
    results = (sweep(args.sizes, args.promote) if args.configs
               else compare(args.sizes))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(),
                       "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
