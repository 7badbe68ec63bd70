#!/usr/bin/env python3
"""fmha's public API against the libraries a user would call instead, in
one run, host path included.

    FMHA_CACHE_DIR=DIR python3 bench/api.py [--quick] [--json FILE]
        [--only host,gemm,attention,decode,model] [--flush zero|read]

Every figure times the call a user makes: ``fmha.attention(q, k, v,
causal=...)`` against ``torch.nn.functional.scaled_dot_product_attention``
(cuDNN and FlashAttention-2 backends), ``fmha.gemm(a, w)`` against
``torch.matmul(a, w.t())`` (cuBLAS), a transformers Llama with
``attn_implementation="fmha"`` against ``"sdpa"``. Device times are
medians (L2 flushed before each run: ``--flush``, bench/flush.py; the
default is ``triton.testing.do_bench``'s) of the whole call, so host work
that the GPU waits for is counted, taken in ``--rounds`` rounds whose
order rotates among the libraries (the median of the rounds' figures is
reported); the model's forwards, whose activations fill the L2 anyway,
are timed unflushed, about a second of forwards per round, in
alternating rounds (``--model-rounds``). Host time is
the wall clock per call over 1000 calls on a tiny shape (best of 5). The
kernel cache (FMHA_CACHE_DIR) must hold the kernels the API selects
(test/GPU/prepare_cache.py).
"""

import argparse
import copy
import json
import math
import os
import sys
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from triton.testing import do_bench

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
import fmha  # noqa: E402
from flush import FLUSHES, median_ms  # noqa: E402
from flush import compare as flush_compare  # noqa: E402

SEQLENS = [512, 1024, 2048, 4096, 8192, 16384]
GEMM_SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (3000, 3000, 3000),
               (16384, 16384, 256), (7, 8192, 4096), (64, 8192, 4096),
               (8192, 14336, 4096), (8192, 4096, 14336), (1000, 1000, 1000),
               # Decode steps of a Llama-8B-sized model (7 tokens): the
               # attention projection, the MLP's up and down projections.
               (7, 4096, 4096), (7, 14336, 4096), (7, 4096, 14336)]
RESULTS = {}
# Rounds of the model comparison (--model-rounds).
MODEL_ROUNDS = 5
# Rounds of every other comparison (--rounds).
ROUNDS = 3


FLUSH = "zero"


def bench(fn):
    return median_ms(fn, FLUSH) * 1e3


def bench_forward(fn):
    """The median time of a model forward in us over about a second of
    runs (do_bench's 100 ms would give a forward of 40 ms two or three
    runs a round); a forward's own activations fill the L2, so no flush."""
    return do_bench(fn, warmup=200, rep=1000, return_mode="median") * 1e3


def compare(fns):
    """``(times, rounds)``: each function of ``fns``'s median time in us
    over ROUNDS rounds of rotating order (flush.compare), and each round's
    (for row()'s ``rounds_us``)."""
    medians, per_round = flush_compare(fns, FLUSH, ROUNDS)
    return ({n: t * 1e3 for n, t in medians.items()},
            {n: [round(t * 1e3, 2) for t in ts]
             for n, ts in per_round.items()})


def host_us(fn, n=1000):
    best = math.inf
    for _ in range(5):
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(n):
            fn()
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - t) / n)
    return best * 1e6


def row(kind, what, rounds=None, **values):
    """Records and prints one result; ``rounds``: compare()'s per-round
    times, kept in the JSON only."""
    RESULTS.setdefault(kind, []).append(
        {"what": what, **values, **({"rounds_us": rounds} if rounds else {})})
    text = ", ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}"
                     for k, v in values.items())
    print(f"{kind} {what}: {text}", flush=True)


def host():
    q = torch.randn(1, 2, 16, 64, device="cuda", dtype=torch.bfloat16)
    a = torch.randn(64, 64, device="cuda", dtype=torch.bfloat16)
    for causal in (False, True):
        sdpa = host_us(lambda: F.scaled_dot_product_attention(
            q, q, q, is_causal=causal))
        ours = host_us(lambda: fmha.attention(q, q, q, causal=causal))
        row("host", f"attention 1x2x16x64 causal={causal}", fmha_us=ours,
            sdpa_us=sdpa, diff_us=ours - sdpa)
    # Decode against a small KV cache (GQA 32:8, 256 keys): the kernel is
    # a few microseconds, so the call's host path is what is timed.
    qd = torch.randn(1, 1, 32, 128, device="cuda", dtype=torch.bfloat16)
    kd = torch.randn(1, 256, 8, 128, device="cuda", dtype=torch.bfloat16)
    lens = torch.full((1,), 256, dtype=torch.int32, device="cuda")
    qs, ks = qd.transpose(1, 2), kd.transpose(1, 2)
    sdpa = host_us(lambda: F.scaled_dot_product_attention(
        qs, ks, ks, enable_gqa=True))
    ours = host_us(lambda: fmha.attention_kvcache(qd, kd, kd, lens,
                                                  check_values=False))
    row("host", "attention_kvcache 1x1x32x128, 256 keys", fmha_us=ours,
        sdpa_us=sdpa, diff_us=ours - sdpa)
    # fmha.attention on a decode shape: the route to the decode kernels.
    qa = torch.randn(1, 32, 1, 128, device="cuda", dtype=torch.bfloat16)
    ka = torch.randn(1, 8, 1024, 128, device="cuda", dtype=torch.bfloat16)
    sdpa = host_us(lambda: F.scaled_dot_product_attention(
        qa, ka, ka, enable_gqa=True))
    ours = host_us(lambda: fmha.attention(qa, ka, ka))
    row("host", "attention decode 1x32x1x128, 1024 keys", fmha_us=ours,
        sdpa_us=sdpa, diff_us=ours - sdpa)
    mm = host_us(lambda: torch.matmul(a, a.t()))
    ours = host_us(lambda: fmha.gemm(a, a))
    row("host", "gemm 64x64x64", fmha_us=ours, matmul_us=mm,
        diff_us=ours - mm)


def gemm(quick):
    for m, n, k in GEMM_SHAPES[::3] if quick else GEMM_SHAPES:
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        err = ((fmha.gemm(a, w).float() - a.float() @ w.float().t()).norm()
               / (a.float() @ w.float().t()).norm()).item()
        assert err < 1e-2, (m, n, k, err)
        wt = w.t().contiguous()
        t, rounds = compare({
            "fmha": lambda: fmha.gemm(a, w),
            "cublas": lambda: torch.matmul(a, w.t()),
            "fmha_b_kn": lambda: fmha.gemm(a, wt, b_transposed=False),
            "cublas_b_kn": lambda: torch.matmul(a, wt)})
        ours, ref, ours_kn, ref_kn = (t[n] for n in (
            "fmha", "cublas", "fmha_b_kn", "cublas_b_kn"))
        tf = 2 * m * n * k / 1e6
        row("gemm", f"{m}x{n}x{k}", rounds, fmha=tf / ours, cublas=tf / ref,
            ratio=ref / ours, fmha_b_kn=tf / ours_kn,
            cublas_b_kn=tf / ref_kn, ratio_b_kn=ref_kn / ours_kn)


def attention(quick):
    for hd in (64, 128, 256):
        for causal in (False, True):
            for s in SEQLENS[::2] if quick else SEQLENS:
                b, h = 16384 // s, 2048 // hd
                q = torch.randn(b, h, s, hd, device="cuda",
                                dtype=torch.bfloat16)
                k = torch.randn_like(q)
                v = torch.randn_like(q)
                flop = 4 * b * h * s * s * hd / (2 if causal else 1) / 1e6
                times, rounds = compare({
                    "fmha": lambda: fmha.attention(q, k, v, causal=causal),
                    **{name: sdpa(backend, q, k, v, is_causal=causal)
                       for name, backend in SDPA_BACKENDS}})
                ours = times["fmha"]
                row("attention", f"d{hd} {'causal' if causal else 'full'} "
                    f"{s}", rounds, fmha=flop / ours,
                    cudnn=flop / times["cudnn"],
                    fa2=flop / times["fa2"], x_cudnn=times["cudnn"] / ours,
                    x_fa2=times["fa2"] / ours)


SDPA_BACKENDS = (("cudnn", SDPBackend.CUDNN_ATTENTION),
                 ("fa2", SDPBackend.FLASH_ATTENTION))


def sdpa(backend, *args, **kwargs):
    """SDPA's call and, for compare(), the context that restricts it to
    ``backend`` (entered once around the timing: entering it costs host
    time a call of SDPA does not pay)."""
    return (lambda: F.scaled_dot_product_attention(*args, **kwargs),
            lambda: sdpa_kernel([backend]))


def decode(quick):
    for batch in (1, 8, 64):
        for keys in ((4096, 32768) if quick else (1024, 4096, 32768,
                                                  131072)):
            if batch * keys > 8 * 131072:
                continue
            q = torch.randn(batch, 32, 1, 128, device="cuda",
                            dtype=torch.bfloat16)
            k = torch.randn(batch, 8, keys, 128, device="cuda",
                            dtype=torch.bfloat16)
            v = torch.randn_like(k)
            nbytes = 2 * k.numel() * k.element_size()
            times, rounds = compare({
                "fmha": lambda: fmha.attention(q, k, v),
                **{name: sdpa(backend, q, k, v, enable_gqa=True)
                   for name, backend in SDPA_BACKENDS}})
            ours = times["fmha"]
            row("decode", f"batch {batch} keys {keys} GQA 32:8 d128", rounds,
                fmha_tbs=nbytes / ours / 1e6,
                cudnn_tbs=nbytes / times["cudnn"] / 1e6,
                fa2_tbs=nbytes / times["fa2"] / 1e6)


def model(quick):
    from transformers import LlamaConfig, LlamaForCausalLM
    import fmha.integrations.transformers  # noqa: F401 (registers "fmha")
    torch.manual_seed(0)
    config = LlamaConfig(hidden_size=2048, intermediate_size=5632,
                         num_hidden_layers=4, num_attention_heads=16,
                         num_key_value_heads=4, vocab_size=32000,
                         max_position_embeddings=8192)
    models = {}
    for attn in ("sdpa", "fmha"):
        torch.manual_seed(0)
        # A config per model: the model keeps the object and reads its
        # attention implementation from it at every forward.
        models[attn] = LlamaForCausalLM._from_config(
            copy.deepcopy(config), attn_implementation=attn,
            torch_dtype=torch.bfloat16).to("cuda").eval()
    from fmha.integrations.transformers import CALLS, FALLBACKS
    for batch, seq in ((2, 1500),) if quick else ((2, 1500), (8, 4096)):
        ids = torch.randint(0, 32000, (batch, seq), device="cuda")
        times = {attn: [] for attn in models}
        issue = {}
        before = FALLBACKS["masked"]
        calls = CALLS["fmha"]
        with torch.no_grad():
            # Rounds alternate between the two models (clocks and the
            # allocator's state drift over a run); the median of the
            # rounds' medians is reported.
            for _ in range(MODEL_ROUNDS):
                for attn, m in models.items():
                    times[attn].append(
                        bench_forward(lambda: m(ids, use_cache=False)))
            # Host time to issue one forward (no synchronisation inside):
            # when it exceeds the GPU time, the forward is host-bound.
            for attn, m in models.items():
                torch.cuda.synchronize()
                t = time.perf_counter()
                for _ in range(3):
                    m(ids, use_cache=False)
                issue[attn] = (time.perf_counter() - t) / 3 * 1e3
                torch.cuda.synchronize()
        # Calls that took PyTorch's masked attention instead.
        fallbacks = FALLBACKS["masked"] - before
        med = {a: sorted(t)[len(t) // 2] for a, t in times.items()}
        row("model", f"Llama 4 layers 2048 GQA 16:4, {batch}x{seq}",
            fmha_ms=med["fmha"] / 1e3, sdpa_ms=med["sdpa"] / 1e3,
            x_sdpa=med["sdpa"] / med["fmha"],
            fmha_rounds_ms=[round(t / 1e3, 3) for t in times["fmha"]],
            sdpa_rounds_ms=[round(t / 1e3, 3) for t in times["sdpa"]],
            fmha_issue_ms=issue["fmha"], sdpa_issue_ms=issue["sdpa"],
            fmha_calls=CALLS["fmha"] - calls, masked_calls=fallbacks)
    ids = torch.randint(0, 32000, (1, 64), device="cuda")
    before = FALLBACKS["masked"]
    with torch.no_grad():
        out = {attn: m.generate(ids, max_new_tokens=32, do_sample=False)
               for attn, m in models.items()}
    same = int((out["fmha"] == out["sdpa"]).all())
    row("model", "greedy tokens, 64 + 32", same=same,
        masked_calls=FALLBACKS["masked"] - before)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--json")
    p.add_argument("--only", default="host,gemm,attention,decode,model")
    p.add_argument("--flush", choices=FLUSHES, default="zero",
                   help="empty L2 before each run by zeroing a 256 MiB "
                        "buffer (do_bench's way) or by reading it")
    p.add_argument("--model-rounds", type=int, default=MODEL_ROUNDS,
                   help="alternating rounds of the model comparison")
    p.add_argument("--rounds", type=int, default=ROUNDS,
                   help="rounds of every other comparison, each starting "
                        "with another library")
    args = p.parse_args()
    globals()["MODEL_ROUNDS"] = args.model_rounds
    globals()["ROUNDS"] = args.rounds
    globals()["FLUSH"] = args.flush
    torch.zeros(1, device="cuda")
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"{time.strftime('%Y-%m-%d')}, L2 flushed by {args.flush}",
          flush=True)
    for part in args.only.split(","):
        globals()[part](args.quick) if part != "host" else host()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(RESULTS, f, indent=1)


if __name__ == "__main__":
    main()
