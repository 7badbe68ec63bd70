#!/usr/bin/env python3
"""Host time of launching a compiled GEMM through fmha.runtime (and, with
--gemm, through fmha.gemm), per call, on a CUDA device.

usage: launch_overhead.py MANIFEST [--gemm] [--size MxNxK]

Runs with whichever fmha package is on PYTHONPATH, so the same script
compares two versions of the runtime. Times are host-side: the loop
enqueues launches without synchronizing (small sizes keep the GPU ahead),
best of 5 rounds of N calls.
"""

import argparse
import sys
import time

import torch


def per_call(fn, n):
    best = float("inf")
    for _ in range(5):
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t) / n)
    torch.cuda.synchronize()
    return best * 1e6


def main():
    p = argparse.ArgumentParser()
    p.add_argument("manifest")
    p.add_argument("--gemm", action="store_true")
    p.add_argument("--size", default="256x256x256")
    p.add_argument("-n", type=int, default=2000)
    args = p.parse_args()
    m, n, k = (int(x) for x in args.size.split("x"))
    torch.zeros(1, device="cuda")
    from fmha.runtime import Kernel
    kernel = Kernel.load(args.manifest)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    kernel(a=a, b=b, c=c)
    torch.cuda.synchronize()
    err = ((c.float() - a.float() @ b.float().t()).norm()
           / (a.float() @ b.float().t()).norm()).item()
    rows = [("Kernel(a, b, c), same tensors",
             per_call(lambda: kernel(a=a, b=b, c=c), args.n))]
    outs = [torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
            for _ in range(8)]
    i = [0]

    def new_output():
        i[0] += 1
        kernel(a=a, b=b, c=outs[i[0] % 8])
    rows.append(("Kernel, 8 outputs in turn", per_call(new_output, args.n)))
    fresh = [torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
             for _ in range(200)]
    j = [0]

    def fresh_output():
        j[0] += 1
        kernel(a=a, b=b, c=fresh[j[0] % 200])
    rows.append(("Kernel, 200 outputs in turn (cache misses)",
                 per_call(fresh_output, args.n)))
    rows.append(("torch.matmul(a, b.t()) (reference)",
                 per_call(lambda: torch.matmul(a, b.t()), args.n)))
    rows.append(("torch.empty_strided (output allocation)",
                 per_call(lambda: torch.empty_strided(
                     (m, n), (n, 1), dtype=torch.bfloat16, device="cuda"),
                     args.n)))
    if args.gemm:
        import fmha
        from fmha import torch_ops
        c2 = fmha.gemm(a, b)
        torch.cuda.synchronize()
        assert torch.allclose(c2.float(), c.float(), atol=1e-2, rtol=1e-2)
        rows.append(("fmha.gemm(a, b)", per_call(lambda: fmha.gemm(a, b),
                                                  args.n)))
        rows.append(("torch.ops.fmha.gemm(a, b, None)", per_call(
            lambda: torch.ops.fmha.gemm(a, b, None), args.n)))
        rows.append(("fmha.torch_ops.gemm_impl(a, b) (no dispatcher)",
                     per_call(lambda: torch_ops.gemm_impl(a, b), args.n)))
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"Python {sys.version.split()[0]}, {m}x{n}x{k}, rel_err {err:.1e}")
    for name, us in rows:
        print(f"  {name:48s} {us:7.1f} us/call")


if __name__ == "__main__":
    main()
