#!/usr/bin/env python3
"""Runs the ws-level example kernel (examples/ws-row-sum.mlir) on a GPU.

A producer warp streams 128x64 bf16 tiles by TMA through a 2-stage
mbarrier ring; a consumer warpgroup adds them up per row. Checked against a
float64 PyTorch reference on fresh random inputs, odd sizes included, with
the output poisoned first. Exits 77 (skipped) without a GPU or PyTorch.

usage: ws_row_sum.py CUBIN
"""

import ctypes
import math
import sys

SKIP = 77


def main():
    try:
        import torch
    except ImportError:
        print("skipped: no PyTorch")
        return SKIP
    if not torch.cuda.is_available():
        print("skipped: no CUDA device")
        return SKIP
    if torch.cuda.get_device_capability() != (9, 0):
        print("skipped: the cubin is for sm_90a")
        return SKIP
    cubin = open(sys.argv[1], "rb").read()
    torch.zeros(1, device="cuda")  # makes the primary context current
    cuda = ctypes.CDLL("libcuda.so.1")

    def check(result, what):
        if result != 0:
            name = ctypes.c_char_p()
            cuda.cuGetErrorName(result, ctypes.byref(name))
            raise RuntimeError(f"{what} failed: {name.value.decode()}")

    module = ctypes.c_void_p()
    check(cuda.cuModuleLoadData(ctypes.byref(module), cubin), "cuModuleLoadData")
    func = ctypes.c_void_p()
    check(cuda.cuModuleGetFunction(ctypes.byref(func), module, b"row_sum"),
          "cuModuleGetFunction")

    failures = 0
    for rows, tiles in [(128, 1), (1000, 3), (4097, 17), (1, 2), (300, 64)]:
        cols = 64 * tiles
        a = torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16)
        out = torch.full((rows,), float("nan"), device="cuda")

        # CUtensorMap of a [rows, cols] bf16 tensor, 128x64 boxes, no swizzle.
        tmap = (ctypes.c_uint8 * 128)()
        dims = (ctypes.c_uint64 * 2)(cols, rows)
        strides = (ctypes.c_uint64 * 1)(cols * 2)
        box = (ctypes.c_uint32 * 2)(64, 128)
        elem = (ctypes.c_uint32 * 2)(1, 1)
        BF16, INTERLEAVE_NONE, SWIZZLE_NONE, L2_NONE, OOB_ZERO = 9, 0, 0, 0, 0
        check(cuda.cuTensorMapEncodeTiled(
            tmap, BF16, 2, ctypes.c_void_p(a.data_ptr()), dims, strides, box,
            elem, INTERLEAVE_NONE, SWIZZLE_NONE, L2_NONE, OOB_ZERO),
            "cuTensorMapEncodeTiled")

        # Parameters: the tensor map by value, out's memref descriptor
        # (allocated, aligned, offset, size, stride), rows, num_tiles.
        ptr = ctypes.c_uint64(out.data_ptr())
        values = [tmap, ptr, ctypes.c_uint64(out.data_ptr()),
                  ctypes.c_int64(0), ctypes.c_int64(rows), ctypes.c_int64(1),
                  ctypes.c_int32(rows), ctypes.c_int32(tiles)]
        params = (ctypes.c_void_p * len(values))(
            *[ctypes.cast(ctypes.pointer(v), ctypes.c_void_p) for v in values])
        grid = math.ceil(rows / 128)
        check(cuda.cuLaunchKernel(func, grid, 1, 1, 256, 1, 1, 32800, None,
                                  params, None), "cuLaunchKernel")
        check(cuda.cuCtxSynchronize(), "cuCtxSynchronize")

        ref = a.double().sum(dim=1)
        err = ((out.double() - ref).norm() / ref.norm()).item()
        ok = not torch.isnan(out).any().item() and err < 1e-5
        failures += not ok
        print(f"rows={rows:5d} cols={cols:5d} rel_err={err:.2e} "
              f"{'ok' if ok else 'FAIL'}")
    print(f"{5 - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
