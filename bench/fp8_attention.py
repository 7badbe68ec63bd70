#!/usr/bin/env python3
"""fp8 fmha.attention against fmha bf16 and SDPA's cuDNN bf16, in one run.

    FMHA_CACHE_DIR=DIR python3 bench/fp8_attention.py [--json FILE]
        [--head-dims 128 256] [--seqlens 2048 4096 8192 16384] [--rounds 3]

For each head dim, sequence length (batch x heads holding 16k tokens x
2048 / head_dim columns: FlashAttention-3's grid) and mask (none, causal):
``fmha.attention`` on float8_e4m3fn q, k, v with per-tensor descales
(bf16 output), ``fmha.attention`` on bf16 and SDPA with the cuDNN backend
on bf16, all through their public APIs. Where the selected fp8 kernel
takes V transposed, the fp8 call includes the transposed, permuted copy
of V that fmha.attention makes before each launch
(fmha.fp8_attention.permute_values, the compiled fmha.transpose_values
kernel); it is also timed alone, its share reported, and PyTorch's
strided copy of the same bytes (permute_values_torch, what V takes when
16-byte loads cannot address its rows) timed beside it. Where the
selected kernel transposes V's tiles itself (``transpose_v``, column
``tv``) there is no copy. For diagnosis (not a figure of the API), the
selected kernel is also timed launched directly on V as it takes it,
made beforehand (``fp8_kernel``). Every fp8 output is checked
against bf16 attention of the dequantized inputs first (relative RMSE
printed). Times are ``triton.testing.do_bench`` medians (L2 flushed
before each run), the four calls timed in ``--rounds`` rounds of
rotating order and the median of the rounds reported (bench/flush.py's
compare); TFLOP/s count ``4 * b * h * s^2 * d`` (halved when causal).
"""

import argparse
import json
import math
import os
import sys

import torch
from triton.testing import do_bench

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
import fmha  # noqa: E402
from fmha import fp8_attention  # noqa: E402
from flush import compare  # noqa: E402

TOKENS = 16384
HIDDEN = 2048
# Rounds of rotating order of each point's comparison (--rounds).
ROUNDS = 3


def bench(fn):
    return do_bench(fn, warmup=25, rep=200, return_mode="median")


def tflops(b, h, s, d, causal, ms):
    flops = 4 * b * h * s * s * d / (2 if causal else 1)
    return flops / (ms * 1e-3) / 1e12


def quantize(x):
    amax = x.abs().amax().clamp_min(1e-12).item()
    descale = amax / torch.finfo(torch.float8_e4m3fn).max * 2
    return ((x / descale).to(torch.float8_e4m3fn),
            torch.tensor([descale], device=x.device, dtype=torch.float32))


def time_point(d, s, causal):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    b = max(1, TOKENS // s)
    h = HIDDEN // d
    x = [torch.randn(b, h, s, d, device="cuda") for _ in range(3)]
    (q, dq), (k, dk), (v, dv) = (quantize(t) for t in x)
    bf = [(t.float() * s_.item()).to(torch.bfloat16)
          for t, s_ in ((q, dq), (k, dk), (v, dv))]

    def fp8():
        return fmha.attention(q, k, v, causal, descale_q=dq, descale_k=dk,
                              descale_v=dv)

    # The kernel fmha.attention selects, on V as it takes it.
    o_kernel, _ = fp8_attention.outputs(torch, q, torch.bfloat16, False)
    tensors = fp8_attention._launch_tensors(
        q, k, v, o_kernel, fp8_attention.kernel_descales((dq, dk, dv), b, h),
        None)
    kernel = fp8_attention._kernel(torch, tensors, torch.bfloat16, causal,
                                   None, None, False, False)
    tensors["v"] = fp8_attention.kernel_values(torch, kernel, v)
    transpose_v = fp8_attention.takes_values_as_is(kernel)

    def fp8_kernel():
        kernel.launch(tensors)

    def bf16():
        return fmha.attention(*bf, causal)

    def cudnn():
        return torch.nn.functional.scaled_dot_product_attention(
            *bf, is_causal=causal)

    # SDPA restricted to cuDNN by a context entered around its timing, not
    # each call (entering it costs host time a call does not pay).
    cudnn_context = (lambda: sdpa_kernel(SDPBackend.CUDNN_ATTENTION))
    ref = bf16().float()
    out = fp8().float()
    err = ((out - ref).norm() / ref.norm()).item()
    row = {"head_dim": d, "seqlen": s, "batch": b, "heads": h,
           "causal": causal, "rmse_vs_bf16": err, "transpose_v": transpose_v}
    # In rounds of rotating order (bench/flush.py's compare); a library that
    # does not take the shape (cuDNN may not) gets None.
    medians, per_round = compare({"fp8": fp8, "fp8_kernel": fp8_kernel,
                                  "bf16": bf16,
                                  "cudnn": (cudnn, cudnn_context)},
                                 "zero", ROUNDS)
    for name, ms in medians.items():
        row[name] = None if math.isnan(ms) else tflops(b, h, s, d, causal,
                                                       ms)
    row["rounds_us"] = {n: [round(t * 1e3, 2) for t in ts]
                        for n, ts in per_round.items()}
    copy_ms = bench(lambda: fp8_attention.permute_values(torch, v))
    row["v_copy_share"] = 0.0 if transpose_v else copy_ms / medians["fp8"]
    row["v_copy_us"] = copy_ms * 1e3
    row["v_copy_torch_us"] = 1e3 * bench(
        lambda: fp8_attention.permute_values_torch(torch, v))
    return row


def fmt(x):
    return "-" if x is None else f"{x:.0f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json")
    parser.add_argument("--head-dims", type=int, nargs="+",
                        default=[128, 256])
    parser.add_argument("--seqlens", type=int, nargs="+",
                        default=[2048, 4096, 8192, 16384])
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args()
    globals()["ROUNDS"] = args.rounds
    torch.manual_seed(0)
    rows = []
    print(f"device: {torch.cuda.get_device_name()}")
    print("| head dim | seqlen | causal | fp8 TFLOP/s | bf16 TFLOP/s | "
          "cuDNN bf16 TFLOP/s | fp8 / bf16 | tv | V copy share | V copy us | "
          "PyTorch's copy us | RMSE vs bf16 | fp8 kernel alone / bf16 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for d in args.head_dims:
        for s in args.seqlens:
            for causal in (False, True):
                r = time_point(d, s, causal)
                rows.append(r)
                ratio = (f"{r['fp8'] / r['bf16']:.2f}x"
                         if r["fp8"] and r["bf16"] else "-")
                print(f"| {d} | {s} | {causal} | {fmt(r['fp8'])} | "
                      f"{fmt(r['bf16'])} | {fmt(r['cudnn'])} | {ratio} | "
                      f"{'yes' if r['transpose_v'] else 'no'} | "
                      f"{100 * r['v_copy_share']:.1f}% | "
                      f"{r['v_copy_us']:.0f} | {r['v_copy_torch_us']:.0f} | "
                      f"{r['rmse_vs_bf16']:.4f} | "
                      f"{r['fp8_kernel'] / r['bf16']:.2f}x |", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
