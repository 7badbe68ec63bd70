#!/usr/bin/env python3
"""Attention kernel configurations against cuDNN on the FlashAttention-3
grid (16k tokens, hidden 2048) for one head dim, each configuration taken
from a kernel cache of its own, so that kernels of two compilers (say,
before and after a change of the register split) run side by side.
Kernel-level (the runtime's launch, host path excluded): for diagnosis
and for choosing candidates, not for claims.

    python3 bench/attention_configs.py --head-dim 256 \\
        --config 'base=CACHE_A:{}' --config 'new=CACHE_B:{}' \\
        --config 'new 64x80=CACHE_B:{"tile": [64, 80], "stages": 2}' \\
        [--seqlens 2048,4096] [--rounds 5] [--causal no]

Each output is checked against cuDNN's (max abs error printed) before it
is timed with cuDNN in rounds of rotating order (bench/flush.py's
``compare``: do_bench medians, L2 emptied before each run; the median of
the rounds).
"""

import argparse
import json
import sys
from pathlib import Path

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))
import fmha  # noqa: E402
from fmha import ops  # noqa: E402
from flush import compare  # noqa: E402

SEQLENS = [512, 1024, 2048, 4096, 8192, 16384]


def parse_config(text):
    name, rest = text.split("=", 1)
    cache, config = rest.split(":", 1)
    config = json.loads(config)
    if "tile" in config:
        config["tile"] = tuple(config["tile"])
    return name, cache, config


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--head-dim", type=int, default=128)
    p.add_argument("--config", action="append", required=True,
                   help="NAME=CACHE_DIR:JSON configuration")
    p.add_argument("--seqlens", default=",".join(map(str, SEQLENS)))
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--causal", choices=("both", "no", "yes"),
                   default="both")
    args = p.parse_args()
    configs = [parse_config(c) for c in args.config]
    hd = args.head_dim
    sdpa = torch.nn.functional.scaled_dot_product_attention
    masks = {"both": (False, True), "no": (False,), "yes": (True,)}
    for causal in masks[args.causal]:
        for s in (int(x) for x in args.seqlens.split(",")):
            b, h = 16384 // s, 2048 // hd
            q, k, v = (torch.randn(b, h, s, hd, device="cuda",
                                   dtype=torch.bfloat16) for _ in range(3))
            with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                ref_out = sdpa(q, k, v, is_causal=causal)

            def cudnn():
                with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                    sdpa(q, k, v, is_causal=causal)
            fns, notes = {"cuDNN": cudnn}, {}
            for name, cache, config in configs:
                spec = ops.attention_spec("bf16", hd, causal, config=config)
                try:
                    kern = fmha.compile(spec, cache_dir=cache).kernel
                except fmha.CompileError as e:
                    notes[name] = str(e).splitlines()[0][:60]
                    continue
                o = torch.full_like(q, float("nan"))
                tensors = {"q": q, "k": k, "v": v, "o": o}
                kern.launch(tensors)
                torch.cuda.synchronize()
                err = (o.float() - ref_out.float()).abs().max().item()
                notes[name] = f"err {err:.3g}"
                fns[name] = (lambda kern=kern, tensors=tensors:
                             kern.launch(tensors))
            medians, rounds = compare(fns, "zero", args.rounds)
            flop = 4 * b * h * s * s * hd / (2 if causal else 1)
            ref = medians["cuDNN"]
            line = [f"d{hd} {'causal' if causal else 'full'} {s}: cuDNN "
                    f"{flop / ref / 1e9:.0f} TFLOP/s"]
            for name, ms in medians.items():
                if name == "cuDNN":
                    continue
                spread = ", ".join(f"{ref_t / t:.3f}" for ref_t, t in
                                   zip(rounds["cuDNN"], rounds[name]))
                line.append(f"{name} {flop / ms / 1e9:.0f} ({ref / ms:.3f}x "
                            f"cuDNN, rounds {spread}; {notes[name]})")
            for name in set(notes) - set(fns):
                line.append(f"{name}: {notes[name]}")
            print("; ".join(line), flush=True)

if __name__ == "__main__":
    main()
