#!/usr/bin/env python3
"""Checks a compiled fmha GEMM kernel (C = A @ B^T, or A @ B when the manifest
gives B as [K, N]) on the GPU, in the dtypes its manifest names.

Fresh random inputs for every size, odd sizes included, the output poisoned
with NaN before each run and every element checked against a float32
PyTorch reference. Exits 77 (skipped) without a GPU or PyTorch.

usage: gemm.py MANIFEST [MxNxK ...]
"""

import sys

SKIP = 77
DEFAULT_SIZES = ["256x256x256", "1024x1024x1024", "4096x4096x4096",
                 "1000x1000x1000", "4097x129x4100", "1x4096x4096",
                 "8192x8x8192", "300x200x64", "129x257x8"]


def padded(rows, cols, dtype, device, fill=None):
    """A rows x cols tensor whose row stride is a multiple of 16 bytes."""
    import torch
    elem = torch.tensor([], dtype=dtype).element_size()
    step = 16 // elem
    stride = (cols + step - 1) // step * step
    base = torch.empty(rows, stride, dtype=dtype, device=device)
    if fill is not None:
        base.fill_(fill)
    return base[:, :cols]


def main():
    try:
        import torch
    except ImportError:
        print("skipped: no PyTorch")
        return SKIP
    if not torch.cuda.is_available():
        print("skipped: no CUDA device")
        return SKIP
    from fmha.runtime import Kernel

    import json
    kernel = Kernel.load(sys.argv[1])
    tensors = json.load(open(sys.argv[1]))["tensors"]
    dtypes = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
    in_dtype = dtypes[tensors["a"]["dtype"]]
    out_dtype = dtypes[tensors["c"]["dtype"]]
    # B is [N, K] (C = A @ B^T) or [K, N] (C = A @ B), as the manifest says.
    b_is_kn = tensors["b"]["shape"][0] == tensors["a"]["shape"][1]
    sizes = sys.argv[2:] or DEFAULT_SIZES
    failures = 0
    torch.manual_seed(0)
    for size in sizes:
        m, n, k = (int(x) for x in size.split("x"))
        a = padded(m, k, in_dtype, "cuda")
        b = padded(k, n, in_dtype, "cuda") if b_is_kn else padded(n, k, in_dtype, "cuda")
        a.copy_(torch.randn(m, k))
        b.copy_(torch.randn(*b.shape))
        c = padded(m, n, out_dtype, "cuda", fill=float("nan"))
        kernel(a=a, b=b, c=c)
        torch.cuda.synchronize()
        ref = a.float() @ (b.float() if b_is_kn else b.float().t())
        err = ((c.float() - ref).norm() / ref.norm().clamp_min(1e-30)).item()
        nans = torch.isnan(c).sum().item()
        # fp32 accumulation either way; the tolerance is the output's rounding.
        tol = 1e-4 if out_dtype == torch.float32 else 1e-2
        ok = nans == 0 and err < tol
        failures += not ok
        print(f"{size:>16}  rel_err={err:.2e}  unwritten={nans}  "
              f"{'ok' if ok else 'FAIL'}")
    print(f"{len(sizes) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
