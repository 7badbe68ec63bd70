#!/usr/bin/env python3
"""Builds fmha's table of winners (python/fmha/data/tuning.json).

Two steps, because the GPU machine has no compiler:

    # where fmha-opt is: compile every candidate into a cache
    python3 bench/tune.py prepare --cache DIR
    # on the GPU, with FMHA_CACHE_DIR=DIR: time every candidate per shape
    python3 bench/tune.py sweep --out tuning.json [--quick]

``sweep`` times each candidate configuration of fmha.tuning (GEMM:
GEMM_CANDIDATES, with B as ``[N, K]`` and, ``gemm_kn``, as ``[K, N]``
against cuBLAS on the same layout; attention: ATTENTION_CANDIDATES per head dim; fp8
attention, ``--only attention_fp8``: ATTENTION_FP8_CANDIDATES) on a grid
of shapes through the runtime's launch of the compiled kernel (the same
kernel fmha.gemm / fmha.attention would launch; host path excluded,
since the choice is between kernels), median of CUDA-event timings with
the L2 flushed, next to cuBLAS (torch.matmul) and SDPA's cuDNN backend for
reference. It writes the table (the winner per shape, every candidate's
time) and prints a summary. These are kernel-level timings for choosing
kernels; claims about the API come from bench/api.py.
"""

import argparse
import datetime
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

import fmha  # noqa: E402
from fmha import fp8_attention, ops, torch_ops, tuning  # noqa: E402

GEMM_SHAPES = [
    (4096, 4096, 4096), (8192, 8192, 8192), (3000, 3000, 3000),
    (16384, 16384, 256), (7, 8192, 4096), (64, 8192, 4096),
    (8192, 14336, 4096), (8192, 4096, 14336), (1000, 1000, 1000),
    (2048, 2048, 2048), (1024, 4096, 4096), (256, 4096, 4096),
    (16, 4096, 4096), (4096, 1024, 4096), (8192, 8192, 1024),
    (512, 512, 512), (4096, 4096, 512), (128, 8192, 8192),
    (2048, 8192, 2048), (3000, 1000, 4096), (7, 14336, 4096),
    (16, 14336, 4096), (32, 8192, 4096), (7, 4096, 4096),
    (7, 4096, 14336),
]
# The FlashAttention-3 grid (16k tokens, hidden 2048) and model shapes
# (batch, heads_q, seq_q, seq_k) per head dim.
SEQLENS = [512, 1024, 2048, 4096, 8192, 16384]


def fa3_grid(head_dim, quick=False):
    """The FlashAttention-3 grid (16k tokens, hidden 2048)."""
    shapes = [(16384 // s, 2048 // head_dim, s, s) for s in SEQLENS]
    return shapes[::2] if quick else shapes


def attention_shapes(head_dim, quick=False):
    shapes = fa3_grid(head_dim)
    if head_dim == 128:
        # transformers Llama shapes (2 x 1500, 8 x 4096; 16 query heads),
        # small batches and decode-like query counts.
        shapes += [(2, 16, 1500, 1500), (8, 16, 4096, 4096),
                   (1, 16, 1024, 1024), (1, 32, 16384, 16384),
                   (4, 32, 128, 4096), (8, 32, 1, 4096)]
    elif head_dim == 64:
        shapes += [(1, 16, 2048, 2048), (4, 12, 197, 197)]
    if quick:
        shapes = shapes[::2]
    return shapes


def gemm_specs(b_transposed=True):
    """(config, spec) of each GEMM candidate that builds for B's layout
    (``[N, K]``, or ``[K, N]``), one per distinct spec."""
    specs = {}
    for c in tuning.GEMM_CANDIDATES:
        specs.setdefault(ops.gemm_spec("bf16", "bf16", "sm_90a", c,
                                       b_transposed=b_transposed),
                         tuning.normalize_config(c))
    return [(config, spec) for spec, config in specs.items()]


def _per_candidate(candidates, make_spec):
    """(head dim, causal, config, spec) of every candidate of each head dim
    and mask."""
    return [(hd, causal, c, make_spec(hd, causal, c))
            for hd in (64, 128, 256) for causal in (False, True)
            for c in candidates(hd)]


def attention_specs():
    return _per_candidate(
        tuning.attention_candidates,
        lambda hd, causal, c: ops.attention_spec("bf16", hd, causal,
                                                 config=c))


def attention_fp8_specs():
    return _per_candidate(
        tuning.attention_fp8_candidates,
        lambda hd, causal, c: fp8_attention.spec(
            hd, "bf16", causal, None, None, False, "sm_90a", c))


def prepare(args):
    specs = [s for _, s in gemm_specs() + gemm_specs(False)]
    specs += [s for *_, s in attention_specs()]
    specs += [s for *_, s in attention_fp8_specs()]
    start = time.time()
    ok = 0
    for i, spec in enumerate(specs):
        try:
            fmha.compile(spec, cache_dir=args.cache, progress=lambda m: None)
            ok += 1
            print(f"[{i + 1}/{len(specs)}] {spec.name}", flush=True)
        except fmha.CompileError as e:
            print(f"[{i + 1}/{len(specs)}] {spec.name}: does not compile: "
                  f"{str(e).splitlines()[1][:160]}", flush=True)
    print(f"prepared {ok} of {len(specs)} kernels in "
          f"{time.time() - start:.0f} s")


def time_candidates(cands, tensors, torch, launcher=None):
    """{spec name: (us, config)} of each (config, spec) that compiles,
    launched on ``tensors`` (or by ``launcher(kernel)``, a callable)."""
    times = {}
    for config, spec in cands:
        try:
            kern = fmha.compile(spec).kernel
        except fmha.CompileError:
            continue
        run = launcher(kern) if launcher else (
            lambda: kern.launch(tensors))
        times[spec.name] = (tuning.time_cuda(run, torch), config)
    return times


def sweep(args):
    import torch
    torch.manual_seed(0)
    dev = torch.cuda.get_device_name()
    out = {"format": tuning.FORMAT, "device": dev,
           "date": datetime.date.today().isoformat(),
           "command": "python3 bench/tune.py sweep" +
           (" --quick" if args.quick else "") +
           (f" --only {args.only}" if args.only else ""),
           "gemm": [], "gemm_kn": [], "attention": [], "attention_fp8": []}
    t0 = time.time()
    for kind in ("gemm", "gemm_kn"):
        if args.only not in (None, kind):
            continue
        b_kn = kind == "gemm_kn"
        for (m, n, k) in GEMM_SHAPES[::2] if args.quick else GEMM_SHAPES:
            a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
            if b_kn:
                b = b.t().contiguous()
            c = torch.empty(m, (n + 7) // 8 * 8, device="cuda",
                            dtype=torch.bfloat16)[:, :n]
            ref = tuning.time_cuda(
                lambda: torch.matmul(a, b if b_kn else b.t()), torch)
            times = {}
            for config, spec in gemm_specs(not b_kn):
                try:
                    kern = fmha.compile(spec).kernel
                except fmha.CompileError:
                    continue  # a tile that does not build for [K, N]
                tensors = {"a": a, "b": b, "c": c}
                # Split-K's workspace and counters, as fmha.gemm gives them.
                tensors.update(torch_ops.scratch_tensors(
                    torch, kern.scratch_shapes(
                        {n: t.shape for n, t in tensors.items()}),
                    a.device, torch.cuda.current_stream().cuda_stream))
                times[spec.name] = (tuning.time_cuda(
                    lambda: kern.launch(tensors), torch), config)
            name, (us, config) = min(times.items(), key=lambda x: x[1][0])
            flop = 2 * m * n * k
            out[kind].append({
                "m": m, "n": n, "k": k, "config": config, "us": us,
                "cublas_us": ref,
                "candidates": {k2: v[0] for k2, v in times.items()}})
            print(f"{kind} {m}x{n}x{k}: best {name} {flop / us / 1e6:.0f} "
                  f"TFLOP/s, cuBLAS {flop / ref / 1e6:.0f} "
                  f"({ref / us:.2f}x)", flush=True)
    if args.only in (None, "attention"):
        from torch.nn.attention import SDPBackend, sdpa_kernel
        F = torch.nn.functional
        for hd in (64, 128, 256):
            for causal in (False, True):
                cands = [(c, s) for h, ca, c, s in attention_specs()
                         if h == hd and ca == causal]
                for (b, h, sq, sk) in attention_shapes(hd, args.quick):
                    hkv = h
                    q = torch.randn(b, h, sq, hd, device="cuda",
                                    dtype=torch.bfloat16)
                    k = torch.randn(b, hkv, sk, hd, device="cuda",
                                    dtype=torch.bfloat16)
                    v = torch.randn_like(k)
                    o = torch.empty_like(q)
                    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                        try:
                            ref = tuning.time_cuda(
                                lambda: F.scaled_dot_product_attention(
                                    q, k, v, is_causal=causal), torch)
                        except RuntimeError:
                            ref = float("nan")
                    times = time_candidates(
                        cands, {"q": q, "k": k, "v": v, "o": o}, torch)
                    name, (us, config) = min(times.items(),
                                             key=lambda x: x[1][0])
                    flop = 4 * b * h * sq * sk * hd
                    if causal:
                        flop //= 2
                    out["attention"].append({
                        "head_dim": hd, "masked": causal,
                        "batch_heads": b * h, "seq_q": sq, "seq_k": sk,
                        "shape": [b, h, sq, sk], "config": config,
                        "us": us, "cudnn_us": ref,
                        "candidates": {k2: v2[0] for k2, v2 in
                                       times.items()}})
                    print(f"attn d{hd} {'causal' if causal else 'full'} "
                          f"{b}x{h}x{sq}x{sk}: best {name} "
                          f"{flop / us / 1e6:.0f} TFLOP/s, cuDNN "
                          f"{flop / ref / 1e6:.0f} ({ref / us:.2f}x); " +
                          ", ".join(f"{n2.split('_', 3)[-1] if '_' in n2 else n2}"
                                    f"={t[0]:.0f}" for n2, t in
                                    times.items()), flush=True)
    if args.only in (None, "attention_fp8"):
        sweep_attention_fp8(args, out, torch)
    if args.only and os.path.exists(args.out):
        # One part re-swept: the other parts of the existing table stay,
        # and the table says which command produced which part.
        with open(args.out) as f:
            old = json.load(f)
        parts = old.get("parts", {})
        for other, rows in old.items():
            if isinstance(rows, list) and other != args.only:
                out[other] = rows
                parts.setdefault(other, {"date": old.get("date"),
                                         "command": old.get("command")})
        parts[args.only] = {"date": out["date"], "command": out["command"]}
        out["parts"] = parts
        if "note" in old:
            out["note"] = old["note"]
        # The table's own device, date and command stay; rows measured on
        # another device say so.
        if old.get("device") and old["device"] != out["device"]:
            for row in out[args.only]:
                row["device"] = out["device"]
        for key in ("device", "date", "command"):
            if key in old:
                out[key] = old[key]
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1, default=list)
    print(f"wrote {args.out} in {time.time() - t0:.0f} s")


def sweep_attention_fp8(args, out, torch):
    """fp8 attention (e4m3 q, k, v, descales 1, o bf16) on the grid,
    every candidate launched directly, with the V^T copy fmha.attention
    makes for a kernel that takes V transposed (a transpose_v kernel
    takes V as it is), next to SDPA's cuDNN on the same inputs in
    bf16."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    F = torch.nn.functional
    fp8 = torch.float8_e4m3fn
    for hd in (64, 128, 256):
        for causal in (False, True):
            cands = [(c, s) for h, ca, c, s in attention_fp8_specs()
                     if h == hd and ca == causal]
            for (b, h, sq, sk) in fa3_grid(hd, args.quick):
                q, k, v = (torch.randn(b, h, n, hd, device="cuda").to(fp8)
                           for n in (sq, sk, sk))
                one = torch.ones(1, device="cuda")
                tensors = {"q": q, "k": k, "v": v,
                           "o": torch.empty(q.shape, device="cuda",
                                            dtype=torch.bfloat16),
                           "descale_q": one, "descale_k": one,
                           "descale_v": one}

                def launcher(kern, tensors=tensors, v=v):
                    own = dict(tensors)

                    def run():
                        own["v"] = fp8_attention.kernel_values(torch, kern, v)
                        kern.launch(own)
                    return run
                bf = [t.to(torch.bfloat16) for t in (q, k, v)]
                with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                    ref = tuning.time_cuda(
                        lambda: F.scaled_dot_product_attention(
                            *bf, is_causal=causal), torch)
                times = time_candidates(cands, tensors, torch, launcher)
                name, (us, config) = min(times.items(),
                                         key=lambda x: x[1][0])
                flop = 4 * b * h * sq * sk * hd // (2 if causal else 1)
                out["attention_fp8"].append({
                    "head_dim": hd, "masked": causal, "batch_heads": b * h,
                    "seq_q": sq, "seq_k": sk, "shape": [b, h, sq, sk],
                    "config": config, "us": us, "cudnn_bf16_us": ref,
                    "candidates": {k2: v2[0] for k2, v2 in times.items()}})
                print(f"attn fp8 d{hd} {'causal' if causal else 'full'} "
                      f"{b}x{h}x{sq}x{sk}: best {name} "
                      f"{flop / us / 1e6:.0f} TFLOP/s, cuDNN bf16 "
                      f"{flop / ref / 1e6:.0f}; " + ", ".join(
                          f"{n2.removeprefix('attention_f8e4m3_')}="
                          f"{t[0]:.0f}" for n2, t in times.items()),
                      flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    pp = sub.add_parser("prepare")
    pp.add_argument("--cache", default=os.environ.get("FMHA_CACHE_DIR"))
    ps = sub.add_parser("sweep")
    ps.add_argument("--out", default="tuning.json")
    ps.add_argument("--quick", action="store_true")
    ps.add_argument("--only", choices=("gemm", "gemm_kn", "attention",
                                       "attention_fp8"))
    args = p.parse_args()
    (prepare if args.cmd == "prepare" else sweep)(args)


if __name__ == "__main__":
    main()
