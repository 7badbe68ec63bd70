#!/usr/bin/env python3
"""Runs the attention kernel of test/Target/sm90/register-ops.mlir on a GPU.

One consumer warpgroup per 128-row Q tile computes, over 64-key K/V tiles
that a producer warp streams by TMA: S = Q K^T * scale (log2 domain), an
optional causal mask and a key-length mask (iota, cmpi, select), the online
softmax (row max and row sum in the wgmma accumulator layout, exp2, the
rescale of the running sum and output), P = bf16(exp2(S - max)) and
O += P V with P read from registers. It writes O / l (f32) and a statistics
tile whose column 0 is the row max m and whose other columns are the row
sum l.

Checked against a float64 PyTorch reference (the same base-2 softmax) on
fresh random inputs, with both outputs poisoned with NaN first: the one-tile
case (128 query rows, 64 keys, head dim 64), several Q and K/V tiles, ragged
lengths and causal masking. Exits 77 (skipped) without a GPU or PyTorch.

usage: attention_tile.py CUBIN DYNAMIC_SMEM_BYTES THREADS
"""

import ctypes
import math
import sys

SKIP = 77
HEAD_DIM = 64
BLOCK_Q = 128
BLOCK_KV = 64

# (query rows, keys, causal); the first is the single Q and K/V tile case.
CASES = [(128, 64, False), (128, 64, True), (128, 256, False),
         (384, 192, True), (256, 256, True), (200, 100, False),
         (300, 77, True), (1, 1, False)]


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
    smem_bytes, threads = int(sys.argv[2]), int(sys.argv[3])
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
    check(cuda.cuModuleGetFunction(ctypes.byref(func), module,
                                   b"attention_tile"), "cuModuleGetFunction")
    # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    check(cuda.cuFuncSetAttribute(func, 8, smem_bytes), "cuFuncSetAttribute")

    BF16, F32 = 9, 7
    INTERLEAVE_NONE, L2_NONE, OOB_ZERO = 0, 0, 0
    SWIZZLE_NONE, SWIZZLE_128B = 0, 3

    def tensor_map(t, dtype, box_rows, swizzle):
        """A CUtensorMap of a [rows, 64] row-major tensor, boxes of
        box_rows x 64."""
        rows, cols = t.shape
        tmap = (ctypes.c_uint8 * 128)()
        dims = (ctypes.c_uint64 * 2)(cols, rows)
        strides = (ctypes.c_uint64 * 1)(t.stride(0) * t.element_size())
        box = (ctypes.c_uint32 * 2)(cols, box_rows)
        elem = (ctypes.c_uint32 * 2)(1, 1)
        check(cuda.cuTensorMapEncodeTiled(
            tmap, dtype, 2, ctypes.c_void_p(t.data_ptr()), dims, strides, box,
            elem, INTERLEAVE_NONE, swizzle, L2_NONE, OOB_ZERO),
            "cuTensorMapEncodeTiled")
        return tmap

    torch.manual_seed(0)
    failures = 0
    for seq_q, seq_kv, causal in CASES:
        q = torch.randn(seq_q, HEAD_DIM, device="cuda").to(torch.bfloat16)
        k = torch.randn(seq_kv, HEAD_DIM, device="cuda").to(torch.bfloat16)
        v = torch.randn(seq_kv, HEAD_DIM, device="cuda").to(torch.bfloat16)
        o = torch.full((seq_q, HEAD_DIM), float("nan"), device="cuda")
        stats = torch.full((seq_q, HEAD_DIM), float("nan"), device="cuda")
        scale_log2 = math.log2(math.e) / math.sqrt(HEAD_DIM)

        maps = [tensor_map(q, BF16, BLOCK_Q, SWIZZLE_128B),
                tensor_map(k, BF16, BLOCK_KV, SWIZZLE_128B),
                tensor_map(v, BF16, BLOCK_KV, SWIZZLE_128B),
                tensor_map(o, F32, BLOCK_Q, SWIZZLE_NONE),
                tensor_map(stats, F32, BLOCK_Q, SWIZZLE_NONE)]
        # Parameters: the tensor maps by value, kv_len, scale_log2, causal.
        values = maps + [ctypes.c_int32(seq_kv), ctypes.c_float(scale_log2),
                         ctypes.c_int32(int(causal))]
        params = (ctypes.c_void_p * len(values))(
            *[ctypes.cast(ctypes.pointer(x), ctypes.c_void_p) for x in values])
        grid = math.ceil(seq_q / BLOCK_Q)
        check(cuda.cuLaunchKernel(func, grid, 1, 1, threads, 1, 1, smem_bytes,
                                  None, params, None), "cuLaunchKernel")
        check(cuda.cuCtxSynchronize(), "cuCtxSynchronize")

        # float64 reference of the same base-2 softmax.
        s = (q.double() @ k.double().t()) * scale_log2
        if causal:
            future = torch.ones(seq_q, seq_kv, dtype=torch.bool,
                                device="cuda").triu(1)
            s = s.masked_fill(future, float("-inf"))
        m = s.max(dim=1).values
        p = torch.exp2(s - m[:, None])
        l = p.sum(dim=1)
        ref = (p @ v.double()) / l[:, None]

        nans = (torch.isnan(o).sum() + torch.isnan(stats).sum()).item()
        o_err = ((o.double() - ref).norm() / ref.norm()).item()
        o_max = (o.double() - ref).abs().max().item()
        m_err = ((stats[:, 0].double() - m).abs() /
                 m.abs().clamp_min(1.0)).max().item()
        l_err = ((stats[:, 1:].double() - l[:, None]).abs() /
                 l[:, None]).max().item()
        # P is rounded to bf16 before P V (as in FlashAttention); l and m are
        # fp32 throughout, exp2 is ex2.approx.ftz.
        ok = (nans == 0 and o_err < 1e-2 and o_max < 3e-2 and m_err < 1e-5
              and l_err < 1e-4)
        failures += not ok
        print(f"q={seq_q:4d} kv={seq_kv:4d} causal={int(causal)}  "
              f"O rel_err={o_err:.2e} max_err={o_max:.2e}  "
              f"m err={m_err:.2e}  l err={l_err:.2e}  unwritten={nans}  "
              f"{'ok' if ok else 'FAIL'}")
    print(f"{len(CASES) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
