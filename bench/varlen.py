#!/usr/bin/env python3
"""Varlen prefill through the public API: ``fmha.attention_varlen`` on
packed sequences against ``fmha.attention`` on the same total tokens
(issue 17's bar: within 5%), and PyTorch's own varlen attention where this
PyTorch has one (``torch.nn.attention.varlen.varlen_attn``) and
FlashAttention's ``flash_attn_varlen_func`` where it is installed.

    FMHA_CACHE_DIR=DIR python3 bench/varlen.py [--head-dims 64,128,256]
        [--tokens 16384] [--rounds 3] [--json FILE]

Each point packs ``--tokens`` query tokens (hidden 2048: heads = 2048 /
head dim, GQA 4) as sequences of equal length S (512 to 8192), for which
dense attention is ``[tokens / S, heads, S, head_dim]`` (the same work),
and as a mix of lengths with the same total (varlen only: the dense
equivalent would pad). Times are ``triton.testing.do_bench`` medians (L2
flushed before each run) of the whole call, host path included, each
call timed in ``--rounds`` rounds of rotating order and the median of the
rounds reported (bench/flush.py's compare); varlen
runs with ``check_values=False`` (the value check is a device-to-host copy,
timed separately as "varlen+check"). TFLOP/s count 4 * S_q * S_k * D per
head and sequence, halved for causal. Outputs are checked against each
other before timing.
"""

import argparse
import itertools
import json
import os
import random
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
import fmha  # noqa: E402
from flush import compare  # noqa: E402

HIDDEN = 2048
GROUP = 4
# Rounds of rotating order of each point's comparison (--rounds).
ROUNDS = 3
SEQLENS = (512, 1024, 2048, 4096, 8192)




def torch_varlen():
    """PyTorch's varlen attention function, or None."""
    try:
        from torch.nn.attention import varlen
    except ImportError:
        return None
    return getattr(varlen, "varlen_attn", None)


def torch_varlen_call(tv, q, k, v, cu, longest, causal):
    """A call of PyTorch's varlen_attn on these tensors, for the signature
    this PyTorch has: older releases take ``is_causal``, newer ones a
    ``window_size`` ((-1, 0) is causal) and, newer still, ``enable_gqa``;
    without it the K/V heads are repeated to the query heads (the same
    work, more bytes read)."""
    import inspect
    params = inspect.signature(tv).parameters
    kwargs = {}
    if "is_causal" in params:
        kwargs["is_causal"] = causal
    elif causal:
        kwargs["window_size"] = (-1, 0)
    if "enable_gqa" in params:
        kwargs["enable_gqa"] = True
    elif k.shape[1] != q.shape[1]:
        group = q.shape[1] // k.shape[1]
        k = k.repeat_interleave(group, dim=1)
        v = v.repeat_interleave(group, dim=1)
    return lambda: tv(q, k, v, cu, cu, longest, longest, **kwargs)


def flash_varlen():
    try:
        from flash_attn import flash_attn_varlen_func
    except ImportError:
        return None
    return flash_attn_varlen_func


def flops(lengths, heads, d, causal):
    total = sum(4 * s * s * d * heads for s in lengths)
    return total / (2 if causal else 1)


def mixed_lengths(tokens, rng):
    """Lengths 1 to 8192 (log-uniform) adding up to ``tokens``."""
    out = []
    left = tokens
    while left > 0:
        n = min(left, max(1, int(2 ** rng.uniform(0, 13))))
        out.append(n)
        left -= n
    return out


def length_cases(tokens, rng):
    """The (label, lengths, dense batch) of each point: equal lengths of
    SEQLENS that divide ``tokens`` (a dense layout exists), then a mix."""
    cases = [(f"S={s}", [s] * (tokens // s), tokens // s)
             for s in SEQLENS if tokens % s == 0]
    cases.append(("mixed", mixed_lengths(tokens, rng), None))
    return cases


def rel_err(x, ref):
    return ((x.float() - ref.float()).norm()
            / ref.float().norm().clamp_min(1e-30)).item()


def point(lengths, d, causal, dense_batch=None):
    heads = HIDDEN // d
    heads_kv = heads // GROUP
    total = sum(lengths)
    dt = torch.bfloat16
    q = torch.randn(total, heads, d, device="cuda", dtype=dt)
    k = torch.randn(total, heads_kv, d, device="cuda", dtype=dt)
    v = torch.randn(total, heads_kv, d, device="cuda", dtype=dt)
    cu = torch.tensor([0, *itertools.accumulate(lengths)],
                      dtype=torch.int32, device="cuda")
    longest = max(lengths)

    def varlen(check=False):
        return fmha.attention_varlen(q, k, v, cu, cu, longest, longest,
                                     causal=causal, check_values=check)

    out = varlen(check=True)
    # Timed together in rounds of rotating order (bench/flush.py's
    # compare), after the outputs are checked.
    fns = {"varlen": varlen, "varlen+check": lambda: varlen(True)}
    if dense_batch is not None:
        s = lengths[0]
        # The packed tensors as [B, S, H, D] viewed [B, H, S, D]: the same
        # memory, read in place.
        qd = q.view(dense_batch, s, heads, d).transpose(1, 2)
        kd = k.view(dense_batch, s, heads_kv, d).transpose(1, 2)
        vd = v.view(dense_batch, s, heads_kv, d).transpose(1, 2)
        dense = fmha.attention(qd, kd, vd, causal=causal)
        err = rel_err(out, dense.transpose(1, 2).reshape(total, heads, d))
        if err > 1e-2:
            print(f"  varlen differs from dense: {err:.3g}", flush=True)
        fns["dense"] = lambda: fmha.attention(qd, kd, vd, causal=causal)
    tv = torch_varlen()
    if tv is not None:
        try:
            call = torch_varlen_call(tv, q, k, v, cu, longest, causal)
            ref = call()
            print(f"  torch varlen_attn vs fmha: {rel_err(out, ref):.3g}",
                  flush=True)
            fns["torch varlen_attn"] = call
        except Exception as e:  # noqa: BLE001 - reported, not fatal
            print(f"  torch varlen_attn: {type(e).__name__}: {e}",
                  flush=True)
    fa = flash_varlen()
    if fa is not None:
        ref = fa(q, k, v, cu, cu, longest, longest, causal=causal)
        print(f"  flash_attn_varlen_func vs fmha: {rel_err(out, ref):.3g}",
              flush=True)
        fns["flash_attn_varlen_func"] = \
            lambda: fa(q, k, v, cu, cu, longest, longest, causal=causal)
    times = compare(fns, "zero", ROUNDS)[0]
    work = flops(lengths, heads, d, causal)
    return {name: {"ms": ms, "tflops": work / (ms * 1e-3) / 1e12}
            for name, ms in times.items()}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--head-dims", default="64,128,256")
    p.add_argument("--tokens", type=int, default=16384)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rounds", type=int, default=ROUNDS)
    p.add_argument("--json", help="write the results to this file")
    args = p.parse_args()
    globals()["ROUNDS"] = args.rounds
    torch.zeros(1, device="cuda")
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"{args.tokens} tokens, hidden {HIDDEN}, GQA {GROUP}; "
          f"torch varlen_attn: {'yes' if torch_varlen() else 'no'}, "
          f"flash_attn: {'yes' if flash_varlen() else 'no'}", flush=True)
    results = []
    rng = random.Random(args.seed)
    for d in (int(x) for x in args.head_dims.split(",")):
        for causal in (False, True):
            for label, lengths, batch in length_cases(args.tokens, rng):
                r = point(lengths, d, causal, batch)
                line = ", ".join(f"{n} {v['ms'] * 1e3:.0f} us "
                                 f"{v['tflops']:.0f} TFLOP/s"
                                 for n, v in r.items())
                ratio = ""
                if "dense" in r:
                    ratio = (f"; varlen/dense time "
                             f"{r['varlen']['ms'] / r['dense']['ms']:.3f}")
                print(f"d={d} causal={causal} {label} "
                      f"({len(lengths)} seqs): {line}{ratio}", flush=True)
                results.append({"head_dim": d, "causal": causal,
                                "case": label, "lengths": lengths,
                                "times": r})
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
