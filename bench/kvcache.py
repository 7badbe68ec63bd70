#!/usr/bin/env python3
"""Decode against a KV cache through the public API: ``fmha.attention_kvcache``
on dense and paged caches against PyTorch's SDPA (cuDNN and FlashAttention-2
backends) on dense caches, reported as K+V bytes read per second (issue 17's
figure of merit).

    FMHA_CACHE_DIR=DIR python3 bench/kvcache.py [--batches 1,8,64]
        [--lengths 1024,...,131072] [--pages 64,256] [--splits 0]
        [--max-gib 24] [--flush zero|read] [--rounds 3] [--json FILE]

Each point: bf16, head dim 128, 32 query heads on 8 KV heads, one query
token per sequence (seq_q 1), every sequence's cache ``L`` keys long.
fmha reads the cache as flash_attn_with_kvcache takes it (``[batch, L, 8,
128]`` dense, or pools of shuffled pages); SDPA reads ``[batch, 8, L,
128]`` with ``enable_gqa`` (or, where a backend refuses it, K/V repeated to
32 heads: it then reads 4x the bytes, and the figure still counts the
cache's). Points whose tensors would exceed ``--max-gib`` are skipped. Times
are medians (L2 flushed before each run, bench/flush.py) of the whole
call, host path included; fmha's dense cache, the read ceiling and SDPA
are timed in ``--rounds`` rounds of rotating order (the median of the
rounds; bench/flush.py's compare); fmha runs with ``check_values=False`` (the
value check is a device-to-host copy, timed separately as "+check").
Outputs are checked against each other before timing. "read ceiling" is
one PyTorch reduction (``sum``) over the K and V bytes: what reading them
once costs a kernel that does nothing else, launch and ramp included.

``--flush`` says how the L2 cache is emptied before each timed run:
``zero`` (the default, ``do_bench``'s way) or ``read`` (bench/flush.py
says what each costs the timed call).

fmha packs the 4 query heads of a KV head into one tile and splits long
caches into key ranges as fmha.kvcache.decode_plan chooses (the ranges
printed per point as ``S=``, the JSON has ``pack`` and ``splits``);
``--splits n`` forces n ranges (1: no split; 0, the default: chosen per
call, as ``num_splits`` of fmha.attention_kvcache).
"""

import argparse
import json
import os
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
import fmha  # noqa: E402
from fmha.kvcache import decode_plan  # noqa: E402
from flush import FLUSHES, compare, copy_bandwidth, median_ms  # noqa: E402

HEADS, HEADS_KV, HEAD_DIM = 32, 8, 128
APPEND = False
LENGTHS = (1024, 4096, 16384, 65536, 131072)
BACKENDS = (("sdpa cudnn", SDPBackend.CUDNN_ATTENTION),
            ("sdpa flash", SDPBackend.FLASH_ATTENTION))


FLUSH = "zero"
# Rounds of rotating order of the dense comparison (--rounds).
ROUNDS = 3


def bench(fn):
    return median_ms(fn, FLUSH)


def rel_err(x, ref):
    return ((x.float() - ref.float()).norm()
            / ref.float().norm().clamp_min(1e-30)).item()


def paged(k, v, page):
    """The dense caches ``[batch, L, HKV, D]`` as pools of shuffled pages
    and their block table."""
    batch, length = k.shape[:2]
    per_seq = length // page
    order = torch.randperm(batch * per_seq, device=k.device)
    k_pool = torch.empty(batch * per_seq, page, HEADS_KV, HEAD_DIM,
                         dtype=k.dtype, device=k.device)
    v_pool = torch.empty_like(k_pool)
    k_pool[order] = k.reshape(batch * per_seq, page, HEADS_KV, HEAD_DIM)
    v_pool[order] = v.reshape(batch * per_seq, page, HEADS_KV, HEAD_DIM)
    table = order.view(batch, per_seq).to(torch.int32)
    return k_pool, v_pool, table


def sdpa(q, k, v):
    """SDPA on the caches in its layout; (fn, reads repeated K/V)."""
    try:
        torch.nn.functional.scaled_dot_product_attention(q, k, v,
                                                         enable_gqa=True)
        return (lambda: torch.nn.functional.scaled_dot_product_attention(
            q, k, v, enable_gqa=True)), False
    except RuntimeError:
        kr = k.repeat_interleave(HEADS // HEADS_KV, dim=1)
        vr = v.repeat_interleave(HEADS // HEADS_KV, dim=1)
        return (lambda: torch.nn.functional.scaled_dot_product_attention(
            q, kr, vr)), True


def plan(batch, length, page, splits):
    """decode_plan's (pack, S) of a point's call."""
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    return decode_plan(batch, 1, HEADS, HEADS_KV, HEAD_DIM, length, page,
                       splits, sms)


def point(batch, length, pages, max_bytes, splits=0):
    dt = torch.bfloat16
    cache_bytes = 2 * batch * length * HEADS_KV * HEAD_DIM * 2
    # fmha's dense caches, SDPA's copy and one paged copy at a time.
    if 3 * cache_bytes > max_bytes:
        return None
    q = torch.randn(batch, 1, HEADS, HEAD_DIM, device="cuda", dtype=dt)
    # K and V in one buffer, so that one reduction reads exactly their
    # bytes: the "read ceiling" column.
    kv = torch.randn(2, batch, length, HEADS_KV, HEAD_DIM, device="cuda",
                     dtype=dt)
    k, v = kv[0], kv[1]
    seqlens = torch.full((batch,), length, dtype=torch.int32, device="cuda")
    times = {}

    def run(kc, vc, table=None, check=False):
        return fmha.attention_kvcache(q, kc, vc, seqlens, table,
                                      num_splits=splits, check_values=check)

    ref = run(k, v, check=True)
    # fmha's dense cache, the reduction and the SDPA backends are timed
    # together in rounds of rotating order (flush.compare), after the
    # rest.
    compared = {"fmha dense": lambda: run(k, v),
                "read ceiling": lambda: kv.sum(dtype=torch.float32),
                "fmha dense+check": lambda: run(k, v, check=True)}
    if APPEND:
        # The last token's k and v written by the call (k_new, v_new: the
        # fmha.append_kv kernel, then the attention), and the same write
        # by PyTorch indexing before a call without k_new.
        before = seqlens - 1
        k_new, v_new = k[:, -1:].clone(), v[:, -1:].clone()
        rows = torch.arange(batch, device="cuda")

        def run_append():
            return fmha.attention_kvcache(q, k, v, before, k_new=k_new,
                                          v_new=v_new, num_splits=splits,
                                          check_values=False)

        def run_indexing():
            pos = before.long()
            k[rows, pos] = k_new[:, 0]
            v[rows, pos] = v_new[:, 0]
            return run(k, v)

        err = rel_err(run_append(), ref)
        if err > 1e-3:
            print(f"  k_new differs from the cache: {err:.3g}", flush=True)
        times["fmha dense+append"] = bench(run_append)
        times["torch indexing+fmha dense"] = bench(run_indexing)
    for page in pages:
        if length % page:
            continue
        kp, vp, table = paged(k, v, page)
        err = rel_err(run(kp, vp, table, True), ref)
        # Pages cut the key tiles, so the split (and the order of the
        # sums) may differ from the dense cache's: bf16 rounding apart.
        if err > 5e-3:
            print(f"  paged {page} differs from dense: {err:.3g}", flush=True)
        times[f"fmha paged {page}"] = bench(lambda: run(kp, vp, table))
        del kp, vp, table
    qs = q.transpose(1, 2)                        # [batch, H, 1, D]
    ks = k.transpose(1, 2).contiguous()           # [batch, HKV, L, D]
    vs = v.transpose(1, 2).contiguous()
    for name, backend in BACKENDS:
        try:
            with sdpa_kernel(backend):
                fn, repeated = sdpa(qs, ks, vs)
                out = fn()
                err = rel_err(out.transpose(1, 2), ref)
                if err > 1e-2:
                    print(f"  {name} differs from fmha: {err:.3g}",
                          flush=True)
                label = name + (" (K/V repeated)" if repeated else "")
                # The backend's context around the timing, not each call.
                compared[label] = (fn, lambda backend=backend:
                                   sdpa_kernel(backend))
        except RuntimeError as e:
            print(f"  {name}: {str(e).splitlines()[0][:100]}", flush=True)
    times.update(compare(compared, FLUSH, ROUNDS)[0])
    plans = {"fmha dense": plan(batch, length, None, splits)}
    for page in pages:
        if not length % page:
            plans[f"fmha paged {page}"] = plan(batch, length, page, splits)
    return {name: {"us": ms * 1e3, "gbps": cache_bytes / (ms * 1e-3) / 1e9,
                   **({"pack": plans[name][0], "splits": plans[name][1]}
                      if name in plans else {})}
            for name, ms in times.items()}


def main():
    global HEAD_DIM, APPEND, FLUSH, ROUNDS
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--batches", default="1,8,64")
    p.add_argument("--lengths", default=",".join(map(str, LENGTHS)))
    p.add_argument("--pages", default="64,256")
    p.add_argument("--splits", type=int, default=0,
                   help="fmha's num_splits (0: chosen per call, 1: none)")
    p.add_argument("--append", action="store_true",
                   help="also time calls that append the last token "
                        "(k_new, v_new) against PyTorch indexing + a call")
    p.add_argument("--head-dim", type=int, default=HEAD_DIM,
                   help="64, 128 (default) or 256")
    p.add_argument("--max-gib", type=float, default=24.0)
    p.add_argument("--flush", choices=FLUSHES, default="zero",
                   help="empty L2 before each run by writing a 256 MiB "
                        "buffer (zero, as do_bench) or by reading it")
    p.add_argument("--rounds", type=int, default=ROUNDS,
                   help="rounds of rotating order in which fmha's dense "
                        "cache, the read ceiling and SDPA are timed")
    p.add_argument("--json", help="write the results to this file")
    args = p.parse_args()
    HEAD_DIM = args.head_dim
    APPEND = args.append
    FLUSH = args.flush
    ROUNDS = args.rounds
    torch.zeros(1, device="cuda")
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}; "
          f"decode bf16, head dim {HEAD_DIM}, GQA {HEADS}:{HEADS_KV}, "
          f"seq_q 1; GB/s of K+V cache read; L2 flushed by "
          f"{FLUSH}", flush=True)
    copy = copy_bandwidth(FLUSH)
    print(f"copy bandwidth (read + write): {copy:.0f} GB/s", flush=True)
    pages = [int(x) for x in args.pages.split(",") if x]
    results = []
    for batch in (int(x) for x in args.batches.split(",")):
        for length in (int(x) for x in args.lengths.split(",")):
            r = point(batch, length, pages, args.max_gib * 2 ** 30,
                      args.splits)
            if r is None:
                print(f"batch={batch} L={length}: skipped (over "
                      f"--max-gib)", flush=True)
                continue
            line = ", ".join(
                f"{n}" + (f" (S={v['splits']})" if "splits" in v else "")
                + f" {v['us']:.0f} us {v['gbps']:.0f} GB/s"
                for n, v in r.items())
            dense = r["fmha dense"]["gbps"]
            print(f"batch={batch} L={length}: {line}; fmha dense "
                  f"{dense / copy:.0%} of copy", flush=True)
            results.append({"batch": batch, "length": length, "times": r})
            torch.cuda.empty_cache()
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"copy_gbps": copy, "flush": FLUSH,
                       "points": results}, f, indent=1)


if __name__ == "__main__":
    main()
