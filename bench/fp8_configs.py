#!/usr/bin/env python3
"""fp8 attention kernel configurations side by side on the
FlashAttention-3 grid (16k tokens, hidden 2048), each kernel launched
directly on the same e4m3 q, k and a V permuted beforehand (the choice
is between kernels; fmha.attention's V copy is the same for all), timed
in rounds of rotating order (bench/flush.py's compare: do_bench medians,
L2 emptied before each run; the median of the rounds). Kernel level:
for choosing the table's configurations, not for claims.

    FMHA_CACHE_DIR=DIR python3 bench/fp8_configs.py --head-dim 256 \\
        --config '{}' --config '{"tile": [64, 96]}' \\
        --config '{"tile": [64, 128]}' [--rounds 8] [--seqlens 2048,4096]
        [--with-copy]

A configuration may name a kernel cache of its own, ``NAME=CACHE_DIR:JSON``
(as in bench/attention_configs.py), so that kernels of two compilers run
side by side; a plain ``JSON`` takes the default cache (FMHA_CACHE_DIR).

A configuration with ``"transpose_v": true`` takes V as k is laid out
(the kernel transposes its tiles in shared memory); with ``--with-copy``
the others are timed with the V^T copy they need.

Before timing, each configuration's output on an odd shape is compared
with the first one's (max abs difference printed: the kernels differ
only in the order of their sums).
"""

import argparse
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
import fmha  # noqa: E402
from fmha import fp8_attention  # noqa: E402
from attention_configs import parse_config as named_config  # noqa: E402
from flush import compare  # noqa: E402

FP8 = torch.float8_e4m3fn


def inputs(b, h, sq, sk, d):
    """The launch tensors, V as the caller has it ([B, HKV, SK, D])."""
    q, k, v = (torch.randn(b, h, n, d, device="cuda").to(FP8)
               for n in (sq, sk, sk))
    one = torch.ones(1, device="cuda")
    return {"q": q, "k": k, "v": v,
            "o": torch.full(q.shape, float("nan"), device="cuda",
                            dtype=torch.bfloat16),
            "descale_q": one, "descale_k": one, "descale_v": one}


def launcher(kernel, tensors, with_copy):
    """A launch of ``kernel`` on ``tensors``, V as the kernel takes it
    (fp8_attention.kernel_values): made once beforehand, or with
    ``with_copy`` at each launch, as fmha.attention makes it."""
    own = dict(tensors)
    if with_copy:
        def run():
            own["v"] = fp8_attention.kernel_values(torch, kernel,
                                                   tensors["v"])
            kernel.launch(own)
        return run
    own["v"] = fp8_attention.kernel_values(torch, kernel, tensors["v"])
    return lambda: kernel.launch(own)


def parse_config(text):
    """``(label, cache_dir, config)`` of a --config argument: ``JSON`` or
    ``NAME=CACHE_DIR:JSON`` (attention_configs.py's form; label and cache
    None for the first)."""
    if text.lstrip().startswith("{"):
        return None, None, json.loads(text)
    return named_config(text)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--head-dim", type=int, default=256)
    p.add_argument("--config", action="append", default=[],
                   help="a configuration as JSON or NAME=CACHE_DIR:JSON "
                        "(repeat; the first is the reference of the "
                        "output check)")
    p.add_argument("--seqlens", default="2048,4096,8192,16384")
    p.add_argument("--rounds", type=int, default=8)
    p.add_argument("--with-copy", action="store_true",
                   help="time the kernels that take V transposed with "
                        "the V^T copy fmha.attention makes (against "
                        "transpose_v kernels, which take V as it is)")
    args = p.parse_args()
    configs = [parse_config(c) for c in args.config or ["{}"]]
    d = args.head_dim
    torch.manual_seed(0)
    for causal in (False, True):
        kernels = {}
        for label, cache, config in configs:
            spec = fp8_attention.spec(d, "bf16", causal, None, None, False,
                                      "sm_90a", config)
            kernels[label or spec.name] = fmha.compile(
                spec, cache_dir=cache).kernel
        check = inputs(2, 4, 1000, 1033, d)
        reference = None
        for name, kernel in kernels.items():
            check["o"].fill_(float("nan"))
            launcher(kernel, check, True)()
            o = check["o"].float()
            reference = o if reference is None else reference
            print(f"{name}: NaN {int(torch.isnan(o).sum())}, max abs "
                  f"difference {(o - reference).abs().max().item():.3g}",
                  flush=True)
        for s in (int(x) for x in args.seqlens.split(",")):
            b, h = 16384 // s, 2048 // d
            tensors = inputs(b, h, s, s, d)
            fns = {name: launcher(kernel, tensors, args.with_copy)
                   for name, kernel in kernels.items()}
            medians, rounds = compare(fns, "zero", args.rounds)
            flop = 4 * b * h * s * s * d / (2 if causal else 1)
            print(f"head dim {d} {'causal' if causal else 'full'} {s}: " +
                  "; ".join(f"{n} {flop / ms / 1e9:.0f} TFLOP/s (rounds "
                            f"{', '.join(f'{flop / t / 1e9:.0f}' for t in rounds[n])})"
                            for n, ms in medians.items()), flush=True)


if __name__ == "__main__":
    main()
