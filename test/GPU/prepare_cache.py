#!/usr/bin/env python3
"""Compiles every kernel the GPU tests of python/tests can select into a
cache, for a GPU machine without the compiler.

    python3 test/GPU/prepare_cache.py DIR      # here, with fmha-opt built
    FMHA_CACHE_DIR=DIR python3 -m unittest ... # there

The kernels: fmha.ops.gemm_kernel_specs for every dtype pair and both B
layouts, fmha.ops.attention_kernel_specs for every dtype, head dim, mask
and lse option the tests use. Configurations that do not compile for a
type (an f32 output needs more shared memory) are listed and skipped.
"""

import itertools
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))
import fmha  # noqa: E402
from fmha import ops  # noqa: E402


def specs():
    for dtype, out in (("bf16", "bf16"), ("f16", "f16"), ("bf16", "f32"),
                       ("f16", "f32")):
        for bt in (True, False):
            yield from ops.gemm_kernel_specs(dtype, out, "sm_90a", bt)
    for dtype, hd, causal, lse in itertools.product(
            ("bf16", "f16"), (64, 128, 256), (False, True), (False, True)):
        yield from ops.attention_kernel_specs(dtype, hd, causal,
                                              return_lse=lse)
        if not causal:
            yield from ops.attention_kernel_specs(
                dtype, hd, False, (64, 16), 0.05, lse)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else None
    start, done, skipped = time.time(), 0, 0
    for spec in specs():
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
