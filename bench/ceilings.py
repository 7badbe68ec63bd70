#!/usr/bin/env python3
"""Diagnosis: what two memory-bound jobs of fmha's could cost at best on this
device, measured with small Triton kernels next to fmha's own. Never a claim:
these are the targets the next compiler steps aim at.

- ``read``: issue 17's batch-1 decode reads K and V once (bf16, head dim
  128, 8 KV heads, 1 sequence). How fast can any kernel read those bytes?
  A Triton kernel streams them with many CTAs (its grid and depth swept,
  the best kept), next to PyTorch's ``sum`` (bench/kvcache.py's "read
  ceiling") and fmha.attention_kvcache on the same cache.
- ``transpose``: fp8 attention's V^T copy (fmha.fp8_attention.
  permute_values: V ``[batch, heads_kv, seq_k, head_dim]`` e4m3 to
  ``[batch, heads_kv, head_dim, seq_k16]``, keys in KEY_ORDER within each
  group of 16). A Triton kernel that loads the key rows in that order,
  transposes the tile in shared memory and stores whole rows of V^T,
  checked byte for byte against fmha's kernel, next to it.

Both report the share of the copy bandwidth (bytes read + written per
second by a 1 GiB device-to-device copy, as bench/kvcache.py).

    python3 bench/ceilings.py [--only read|transpose] [--flush zero|read]
"""

import argparse
import os
import sys

import torch
import triton
import triton.language as tl

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fmha  # noqa: E402
from fmha import fp8_attention  # noqa: E402
from flush import FLUSHES, copy_bandwidth, median_ms  # noqa: E402

FLUSH = "zero"
# Programs of the one-range-per-program read (bench "read").
RANGE_PROGRAMS = (128, 264, 528, 1056)


def bench(fn):
    return median_ms(fn, FLUSH)


@triton.jit
def _read_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, ITERS: tl.constexpr):
    """Sums ITERS blocks of BLOCK int32 words per program (one word per
    program stored, so the loads stay live and nearly nothing is written)."""
    base = tl.program_id(0) * BLOCK * ITERS
    acc = tl.zeros([BLOCK], dtype=tl.int32)
    for i in tl.static_range(ITERS):
        offs = base + i * BLOCK + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + tl.program_id(0), tl.sum(acc, axis=0))


@triton.jit
def _read_range_kernel(x_ptr, out_ptr, n, chunk, BLOCK: tl.constexpr):
    """Sums the program's contiguous range of ``chunk`` int32 words, BLOCK
    at a time: one range of keys per program, as a split of split-KV
    decode reads its keys."""
    base = tl.program_id(0) * chunk
    acc = tl.zeros([BLOCK], dtype=tl.int32)
    for i in range(0, chunk, BLOCK):
        offs = base + i + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + tl.program_id(0), tl.sum(acc, axis=0))


def read_ranges(words, programs, warps):
    n = words.numel()
    chunk = triton.cdiv(n, programs * 2048) * 2048
    out = torch.empty(programs, dtype=torch.int32, device=words.device)
    return lambda: _read_range_kernel[(programs,)](
        words, out, n, chunk, BLOCK=2048, num_warps=warps)


def read_triton(words, block, iters, warps):
    n = words.numel()
    grid = triton.cdiv(n, block * iters)
    out = torch.empty(grid, dtype=torch.int32, device=words.device)
    return lambda: _read_kernel[(grid,)](words, out, n, BLOCK=block,
                                         ITERS=iters, num_warps=warps)


def run_read(lengths, copy_gbs):
    heads_kv, head_dim, group = 8, 128, 4
    print("\nread: batch 1, bf16, head dim 128, 8 KV heads (K and V bytes "
          "read once), us", flush=True)
    print(f"{'keys':>7} {'MiB':>5} {'triton best':>12} {'config':>18} "
          f"{'torch sum':>10} {'fmha decode':>12} {'triton, of copy bw':>19}")
    rows = []
    for length in lengths:
        kv = torch.randn(2, 1, length, heads_kv, head_dim, device="cuda",
                         dtype=torch.bfloat16)
        words = kv.view(torch.int32).reshape(-1)
        nbytes = kv.numel() * kv.element_size()
        best = None
        for block in (1024, 2048, 4096):
            for iters in (1, 2, 4, 8, 16):
                for warps in (4, 8):
                    if block * iters * 4 > nbytes:
                        continue
                    ms = bench(read_triton(words, block, iters, warps))
                    if best is None or ms < best[0]:
                        best = (ms, f"{block}x{iters} w{warps}")
        # One contiguous range per program, as many programs as split-KV
        # decode has CTAs (8 KV heads x 16 splits = 128) and more.
        ranges = {p: min(bench(read_ranges(words, p, w)) for w in (4, 8))
                  for p in RANGE_PROGRAMS}
        sum_ms = bench(lambda: kv.sum(dtype=torch.float32))
        q = torch.randn(1, 1, heads_kv * group, head_dim, device="cuda",
                        dtype=torch.bfloat16)
        seqlens = torch.full((1,), length, dtype=torch.int32, device="cuda")
        k, v = kv[0], kv[1]
        fmha.attention_kvcache(q, k, v, seqlens)
        dec_ms = bench(lambda: fmha.attention_kvcache(q, k, v, seqlens,
                                                      check_values=False))
        share = nbytes / (best[0] * 1e-3) / 1e9 / copy_gbs
        print(f"{length:>7} {nbytes >> 20:>5} {best[0] * 1e3:>12.1f} "
              f"{best[1]:>18} {sum_ms * 1e3:>10.1f} {dec_ms * 1e3:>12.1f} "
              f"{100 * share:>18.0f}%", flush=True)
        print("        one range per program: " + ", ".join(
            f"{p} programs {t * 1e3:.1f}" for p, t in ranges.items()),
            flush=True)
        rows.append((length, best, sum_ms, dec_ms, ranges))
    return rows


@triton.jit
def _transpose_kernel(v_ptr, vt_ptr, seq_k, keys, stride_b, stride_h,
                      stride_s, heads, D: tl.constexpr, BK: tl.constexpr):
    """One block of BK positions of V^T for one (batch, head): the key rows
    loaded in KEY_ORDER within each group of 16 (zeros past seq_k), the
    [BK, D] tile transposed, rows of V^T stored whole."""
    blk = tl.program_id(0)
    h = tl.program_id(1)
    b = tl.program_id(2)
    p = tl.arange(0, BK)
    r = p % 16
    key = blk * BK + (p // 16) * 16 + 2 * (r // 4) + r % 2 + 8 * ((r // 2) % 2)
    d = tl.arange(0, D)
    src = (v_ptr + b.to(tl.int64) * stride_b + h.to(tl.int64) * stride_h +
           key.to(tl.int64)[:, None] * stride_s + d[None, :])
    x = tl.load(src, mask=(key < seq_k)[:, None], other=0)
    pos = blk * BK + p
    dst = (vt_ptr + (b.to(tl.int64) * heads + h) * D * keys +
           d.to(tl.int64)[:, None] * keys + pos[None, :])
    tl.store(dst, tl.trans(x), mask=(pos < keys)[None, :])


def transpose_triton(v, block, warps):
    batch, heads, seq_k, head_dim = v.shape
    raw = v.view(torch.uint8)
    keys = fp8_attention.padded_keys(seq_k)
    out = torch.empty((batch, heads, head_dim, keys), dtype=torch.uint8,
                      device=v.device)
    grid = (triton.cdiv(keys, block), heads, batch)
    sb, sh, ss, sd = raw.stride()
    assert sd == 1

    def run():
        _transpose_kernel[grid](raw, out, seq_k, keys, sb, sh, ss, heads,
                                D=head_dim, BK=block, num_warps=warps)
        return out
    return run


def run_transpose(points, copy_gbs):
    print("\ntranspose: fp8 V [batch, heads_kv, seq_k, head_dim] (a view of "
          "[batch, seq_k, heads, head_dim]) to fp8 attention's V^T, us",
          flush=True)
    print(f"{'head dim':>8} {'batch x seq':>12} {'MiB':>5} "
          f"{'fmha kernel':>12} {'triton best':>12} {'config':>10} "
          f"{'fmha, of copy bw':>17} {'triton, of copy bw':>19}")
    rows = []
    for head_dim, batch, seq_k in points:
        heads = 2048 // head_dim
        v = torch.randn(batch, seq_k, heads, head_dim, device="cuda").to(
            torch.float8_e4m3fn).transpose(1, 2)
        ref = fp8_attention.permute_values(torch, v)
        fmha_ms = bench(lambda: fp8_attention.permute_values(torch, v))
        best = None
        for block in (32, 64, 128):
            for warps in (2, 4, 8):
                run = transpose_triton(v, block, warps)
                out = run()
                if not torch.equal(out, ref.view(torch.uint8)):
                    raise SystemExit(f"triton transpose differs from fmha's "
                                     f"(head dim {head_dim}, block {block})")
                ms = bench(run)
                if best is None or ms < best[0]:
                    best = (ms, f"{block} w{warps}")
        nbytes = 2 * v.numel()
        gbs = [nbytes / (t * 1e-3) / 1e9 for t in (fmha_ms, best[0])]
        print(f"{head_dim:>8} {f'{batch} x {seq_k}':>12} "
              f"{v.numel() >> 20:>5} {fmha_ms * 1e3:>12.1f} "
              f"{best[0] * 1e3:>12.1f} {best[1]:>10} "
              f"{100 * gbs[0] / copy_gbs:>16.0f}% "
              f"{100 * gbs[1] / copy_gbs:>18.0f}%", flush=True)
        rows.append((head_dim, batch, seq_k, fmha_ms, best))
    return rows


def main():
    global FLUSH
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("read", "transpose"))
    parser.add_argument("--flush", choices=FLUSHES, default="zero")
    parser.add_argument("--lengths", default="4096,8192,16384,65536",
                        help="read: keys of the one sequence")
    args = parser.parse_args()
    FLUSH = args.flush
    torch.manual_seed(0)
    print(f"{torch.cuda.get_device_name()}, flush {FLUSH}", flush=True)
    copy_gbs = copy_bandwidth(FLUSH)
    print(f"copy bandwidth (read + write): {copy_gbs:.0f} GB/s", flush=True)
    if args.only in (None, "read"):
        run_read([int(x) for x in args.lengths.split(",")], copy_gbs)
    if args.only in (None, "transpose"):
        run_transpose([(128, 8, 2048), (128, 2, 8192), (256, 8, 2048),
                       (256, 2, 8192), (64, 8, 2048)], copy_gbs)


if __name__ == "__main__":
    main()
