#!/usr/bin/env python3
"""Compiles every kernel the GPU tests of python/tests can select into a
cache, for a GPU machine without the compiler.

    python3 test/GPU/prepare_cache.py DIR      # here, with fmha-opt built
    FMHA_CACHE_DIR=DIR python3 -m unittest ... # there

With ``--bench`` it also compiles the configurations
bench/gemm_schedules.py times beside the candidates (bench/gemm_configs.py:
ping-pong and split-K) for bf16. ``--filter REGEX`` compiles only the
kernels whose names match (``--filter '_pk|_skv'``: the decode kernels).

The kernels: fmha.ops.gemm_kernel_specs for every dtype pair and both B
layouts, the fp8 GEMMs of python/tests/test_gpu_fp8.py (fp8_kernel_specs,
which also cover bench/gemm_fp8.py), the fp8 attention kernels of
python/tests/test_gpu_fp8_attention.py (kernel_specs, which also cover
bench/fp8_attention.py), fmha.ops.attention_kernel_specs for every head dim and lse option
with each (dtype, mask, scale) the tests use: python/tests' and
test/GPU/stress.py's (stress.ATTENTION_OPTIONS, and stress.VARLEN_OPTIONS
for fmha.attention_varlen's kernels, and stress.KVCACHE_OPTIONS for
fmha.attention_kvcache's); fmha.attention_kvcache's decode kernels (packed
query-head groups, split-KV) that python/tests/test_gpu_kvcache.py
(DECODE_OPTIONS) and bench/kvcache.py select; fmha.merge_states'
kernels that python/tests/test_gpu_merge.py (MERGE_KERNELS) and
bench/merge.py select; fmha.append_kv's for every dtype, head dim and page
size (test_gpu_kvcache.APPEND_KERNELS); fmha.attention_backward's and
the forwards with lse that python/tests/test_gpu_backward.py,
bench/backward.py and bench/train_llama.py select
(test_gpu_backward.kernel_specs), and fmha.attention_varlen_backward's and
the varlen forwards that python/tests/test_gpu_backward_varlen.py and
stress.py's backward_varlen cases select
(test_gpu_backward_varlen.kernel_specs). Configurations that do
not compile for a type (an f32 output needs more shared memory) are listed
and skipped.
"""

import argparse
import itertools
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "bench"))
import fmha  # noqa: E402
import gemm_configs  # noqa: E402
import stress  # noqa: E402
from fmha import ops  # noqa: E402
from tests import (test_gpu_backward,  # noqa: E402
                   test_gpu_backward_varlen, test_gpu_fp8,
                   test_gpu_fp8_attention, test_gpu_kvcache, test_gpu_merge)

# bench/kvcache.py's decode: bf16, head dim 128 (and 256 with --head-dim,
# dense only), 32 query heads on 8 KV heads, seq_q 1, no mask, no lse,
# dense and pages of 64 and 256; packed, split (the default and --splits n)
# or not (--splits 1).
BENCH_KVCACHE = (("bf16", (128,), False, None, (None, 64, 256),
                  ((32, 8),)),
                 ("bf16", (256,), False, None, (None,), ((32, 8),)))


def bench_specs():
    for config in gemm_configs.PINGPONG + gemm_configs.SPLITK:
        yield ops.gemm_spec("bf16", "bf16", "sm_90a", config)


def specs():
    for dtype, out in stress.GEMM_TYPES:
        for bt in (True, False):
            yield from ops.gemm_kernel_specs(dtype, out, "sm_90a", bt)
    # fp8 GEMMs: python/tests/test_gpu_fp8.py's and bench/gemm_fp8.py's
    # (every candidate for e4m3 to bf16 with tensor and row / column
    # scales, the defaults for the other types and scales).
    yield from test_gpu_fp8.fp8_kernel_specs()
    # fp8 attention: python/tests/test_gpu_fp8_attention.py's (its masks,
    # lse or not, bf16 and f16 outputs, fmha.attention's fp8 candidates,
    # which cover bench/fp8_attention.py, and the per-head descale kernels
    # of its test_head_descales, named ..._hdesc).
    yield from test_gpu_fp8_attention.kernel_specs()
    # The unit tests' options (no mask, causal, a window with a scale) are
    # among the stress test's.
    for (dtype, causal, window, scale), hd, lse in itertools.product(
            stress.ATTENTION_OPTIONS, stress.HEAD_DIMS, (False, True)):
        yield from ops.attention_kernel_specs(dtype, hd, causal, window,
                                              scale, lse)
    # fmha.attention_varlen's: the stress test's VARLEN_OPTIONS hold those
    # of python/tests/test_gpu_varlen.py.
    for (dtype, causal, window, scale), hd, lse in itertools.product(
            stress.VARLEN_OPTIONS, stress.HEAD_DIMS, (False, True)):
        yield from ops.attention_kernel_specs(dtype, hd, causal, window,
                                              scale, lse, varlen=True)
    # fmha.attention_kvcache's: KVCACHE_OPTIONS holds those of
    # python/tests/test_gpu_kvcache.py.
    for dtype, causal, window, scale, head_dims, pages in \
            stress.KVCACHE_OPTIONS:
        for hd, page, lse in itertools.product(head_dims, pages,
                                               (False, True)):
            yield from ops.attention_kernel_specs(
                dtype, hd, causal, window, scale, lse, kvcache=True,
                page_size=page)
    # Its decode kernels: python/tests/test_gpu_kvcache.py's (the stress
    # test's random head counts take the unpacked kernels where their
    # packed ones are missing) and bench/kvcache.py's, with lse or not.
    yield from test_gpu_kvcache.decode_kernel_specs()
    for spec in test_gpu_kvcache.decode_kernel_specs(BENCH_KVCACHE):
        if not spec.return_lse:
            yield spec
    # fmha.merge_states': python/tests/test_gpu_merge.py's (bench/merge.py
    # times bf16 at head dim 128, among them).
    yield from test_gpu_merge.MERGE_KERNELS
    # fmha.append_kv's (k_new / v_new of fmha.attention_kvcache).
    yield from test_gpu_kvcache.APPEND_KERNELS
    # fmha.attention_backward's and the forward's with lse that autograd
    # selects: python/tests/test_gpu_backward.py's options, which hold
    # bench/backward.py's and bench/train_llama.py's (bf16, head dims 64
    # and 128, causal or not).
    yield from test_gpu_backward.kernel_specs()
    # fmha.attention_varlen_backward's (dQ by its own kernel) and the varlen
    # forwards, with lse (autograd) or not: the same options, which hold
    # those of stress.py's backward_varlen cases.
    yield from test_gpu_backward_varlen.kernel_specs()


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0])
    parser.add_argument("dir", nargs="?", default=None,
                        help="the cache (default: fmha's, FMHA_CACHE_DIR)")
    parser.add_argument("--bench", action="store_true",
                        help="also bench/gemm_configs.py's configurations")
    parser.add_argument("--filter", metavar="REGEX",
                        help="only the kernels whose names match")
    args = parser.parse_args()
    root = args.dir
    start, done, skipped = time.time(), 0, 0
    chosen = itertools.chain(specs(), bench_specs() if args.bench else ())
    if args.filter:
        pattern = re.compile(args.filter)
        chosen = (s for s in chosen if pattern.search(s.name))
    seen = set()
    for spec in chosen:
        if spec in seen:
            continue
        seen.add(spec)
        try:
            fmha.compile(spec, cache_dir=root, progress=lambda m: None)
            done += 1
        except fmha.CompileError as e:
            if e.step == "tools":
                raise
            skipped += 1
            print(f"skipped {spec.name}: {str(e).splitlines()[1][:120]}")
    print(f"{done} kernels in the cache, {skipped} configurations that do "
          f"not compile skipped, {time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
