#!/usr/bin/env python3
"""One GEMM configuration against the tuning table's pick on bench/tune.py's
grid of shapes, B as [N, K] and as [K, N], each kernel launched directly
(host path excluded: the choice is between kernels) next to cuBLAS, in
rounds of rotating order (bench/flush.py's compare: do_bench medians, L2
emptied before each run). Prints the table's time over the configuration's
per round: a row of the table changes only where the configuration wins
in every round. Kernel level: for choosing table rows, not for claims.

    FMHA_CACHE_DIR=DIR python3 bench/gemm_ab.py \\
        --config '{"tile": [64, 128, 64], "consumers": 3}' [--min-m 256]

Each output is checked against a float32 product first.
"""

import argparse
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
import fmha  # noqa: E402
from fmha import ops, torch_ops, tuning  # noqa: E402
from flush import compare  # noqa: E402
from tune import GEMM_SHAPES  # noqa: E402


def launcher(config, a, b, b_kn, ref):
    """A function launching ``config``'s kernel on a, b (into a poisoned c,
    checked against ``ref`` once)."""
    spec = ops.gemm_spec("bf16", "bf16", "sm_90a", config,
                         b_transposed=not b_kn)
    kernel = fmha.compile(spec).kernel
    m, n = a.shape[0], ref.shape[1]
    c = torch.full((m, (n + 7) // 8 * 8), float("nan"), device="cuda",
                   dtype=torch.bfloat16)[:, :n]
    tensors = {"a": a, "b": b, "c": c}
    tensors.update(torch_ops.scratch_tensors(
        torch, kernel.scratch_shapes({x: t.shape for x, t in tensors.items()}),
        a.device, torch.cuda.current_stream().cuda_stream))
    kernel.launch(tensors)
    torch.cuda.synchronize()
    err = ((c.float() - ref).abs().max() / ref.abs().max()).item()
    if not err < 1e-2:
        raise SystemExit(f"{spec.name}: relative error {err:.3g}")
    return lambda: kernel.launch(tensors)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", required=True, help="the configuration, JSON")
    p.add_argument("--min-m", type=int, default=256,
                   help="only shapes with at least this many rows")
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args()
    config = json.loads(args.config)
    torch.manual_seed(0)
    for m, n, k in GEMM_SHAPES:
        if m < args.min_m:
            continue
        for b_kn in (False, True):
            a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
            ref = a.float() @ b.float().t()
            if b_kn:
                b = b.t().contiguous()
            table = tuning.choose(*tuning.gemm_problem(m, n, k, b_kn=b_kn))
            fns = {"table": launcher(table, a, b, b_kn, ref),
                   "config": launcher(config, a, b, b_kn, ref),
                   "cublas": (lambda a=a, b=b: torch.matmul(a, b)) if b_kn
                   else (lambda a=a, b=b: torch.matmul(a, b.t()))}
            med, rounds = compare(fns, "zero", args.rounds)
            per_round = [t / c for t, c in zip(rounds["table"],
                                               rounds["config"])]
            print(f"{m}x{n}x{k} B {'[K, N]' if b_kn else '[N, K]'}: table "
                  f"{table} {med['table'] * 1e3:.1f} us, config "
                  f"{med['config'] * 1e3:.1f} us, cuBLAS "
                  f"{med['cublas'] * 1e3:.1f} us; table / config "
                  f"{med['table'] / med['config']:.3f} (rounds "
                  f"{', '.join(f'{r:.3f}' for r in per_round)})", flush=True)


if __name__ == "__main__":
    main()
