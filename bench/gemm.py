#!/usr/bin/env python3
"""GEMM benchmark: fmha vs cuBLAS (torch.matmul) vs a Triton TMA matmul.

All three compute C = A @ B^T (A [M, K], B [N, K], bf16 in, fp32 accumulate,
bf16 out) on the same inputs in one run. Times are the median of
triton.testing.do_bench (which flushes L2 between runs); TFLOP/s = 2MNK / t.
fmha is timed as a prepared launch (arguments checked and tensor maps built
once), like the C++ launch paths of cuBLAS and Triton; the whole Python call
is reported beside it.
Each kernel's output is checked against cuBLAS before it is timed.

usage: gemm.py MANIFEST [--triton] [MxNxK ...]
"""

import argparse
import sys

DEFAULT_SIZES = ["2048x2048x2048", "4096x4096x4096", "8192x8192x8192",
                 "8192x8192x1024", "4096x14336x4096"]


def tflops(m, n, k, ms):
    return 2.0 * m * n * k / (ms * 1e-3) / 1e12


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("manifest")
    parser.add_argument("sizes", nargs="*", default=DEFAULT_SIZES)
    parser.add_argument("--plot", metavar="PNG",
                        help="also draw TFLOP/s by size into this PNG file")
    parser.add_argument("--triton", action="store_true",
                        help="also time the Triton TMA matmul (bench/triton_matmul.py)")
    args = parser.parse_args()

    import torch
    import triton.testing
    from fmha.runtime import Kernel

    import json
    kernel = Kernel.load(args.manifest)
    tensors = json.load(open(args.manifest))["tensors"]
    # B is [N, K] (C = A @ B^T) or [K, N] (C = A @ B), as the manifest says.
    b_is_kn = tensors["b"]["shape"][0] == tensors["a"]["shape"][1]
    triton_matmul = None
    if args.triton and b_is_kn:
        print("the Triton baseline takes B as [N, K]; timing cuBLAS only")
    elif args.triton:
        from triton_matmul import best_triton_matmul as triton_matmul

    print(f"device: {torch.cuda.get_device_name()}")
    rows = []
    for size in args.sizes:
        m, n, k = (int(x) for x in size.split("x"))
        print(f"timing {size} ...", flush=True)
        a = torch.randn(m, k, device="cuda").to(torch.bfloat16)
        b = torch.randn(*((k, n) if b_is_kn else (n, k)),
                        device="cuda").to(torch.bfloat16)
        bt = b if b_is_kn else b.t()
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        ref = torch.matmul(a, bt)
        kernel(a=a, b=b, c=c)
        torch.cuda.synchronize()
        err = ((c.float() - ref.float()).norm() / ref.float().norm()).item()
        if not err < 1e-2:
            print(f"{size}: fmha result differs from cuBLAS (rel err {err:.2e})")
            return 1
        t_cublas = triton.testing.do_bench(lambda: torch.matmul(a, bt),
                                           warmup=100, rep=500,
                                           return_mode="median")
        # The kernel alone (checks and tensor maps prepared once), and the
        # whole Python call (checks, tensor maps, launch) for reference.
        launch = kernel.prepare({"a": a, "b": b, "c": c})
        run = lambda: kernel.driver.launch(
            launch.function, launch.grid, launch.block, launch.dynamic_smem,
            launch.stream, launch.params.array, launch.cluster)
        t_fmha = triton.testing.do_bench(run, warmup=100, rep=500,
                                         return_mode="median")
        t_call = triton.testing.do_bench(lambda: kernel(a=a, b=b, c=c),
                                         warmup=100, rep=500,
                                         return_mode="median")
        row = [size, tflops(m, n, k, t_cublas), tflops(m, n, k, t_fmha),
               tflops(m, n, k, t_call)]
        if triton_matmul:
            t_triton, config = triton_matmul(a, b, ref)
            row += [tflops(m, n, k, t_triton), config]
        rows.append(row)

    header = ("| M x N x K | cuBLAS TFLOP/s | fmha TFLOP/s | fmha / cuBLAS |"
              " fmha via Python call TFLOP/s |")
    if triton_matmul:
        header += " Triton TFLOP/s | fmha / Triton | Triton config |"
    print()
    print(header)
    print("|" + "|".join(["---"] * (header.count("|") - 1)) + "|")
    for row in rows:
        size, cublas, fmha, call = row[:4]
        line = (f"| {size} | {cublas:.0f} | {fmha:.0f} | {fmha / cublas:.2f} |"
                f" {call:.0f} |")
        if triton_matmul:
            line += f" {row[4]:.0f} | {fmha / row[4]:.2f} | {row[5]} |"
        print(line)
    if args.plot:
        plot(rows, args.plot, torch.cuda.get_device_name(),
             with_triton=triton_matmul is not None)
    return 0


def plot(rows, path, device, with_triton):
    """A grouped bar chart of TFLOP/s per size: cuBLAS, fmha (and Triton)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = [("cuBLAS", 1), ("fmha", 2)] + ([("Triton", 4)] if with_triton else [])
    width = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for i, (label, column) in enumerate(series):
        xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(rows))]
        ax.bar(xs, [row[column] for row in rows], width, label=label)
    ax.set_xticks(range(len(rows)), [row[0] for row in rows], rotation=15)
    ax.set_ylabel("TFLOP/s (bf16, fp32 accumulate)")
    ax.set_title(f"GEMM on {device}")
    ax.legend()
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"plot written to {path}")


if __name__ == "__main__":
    sys.exit(main())
