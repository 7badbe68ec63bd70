#!/usr/bin/env python3
"""One launch of ``fmha.attention`` and one of SDPA's cuDNN backend on the
same tensors, between cudaProfilerStart/Stop, for a profiler to compare
(diagnosis only; claims come from bench/api.py).

    ncu --profile-from-start off --section SpeedOfLight ... \\
        python3 bench/attention_profile.py BATCH HEADS SEQ HEAD_DIM [causal]
"""

import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import fmha


def main() -> None:
    b, h, s, d = (int(x) for x in sys.argv[1:5])
    causal = sys.argv[5:6] == ["causal"]
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16)
               for _ in range(3))

    def both():
        fmha.attention(q, k, v, causal=causal)
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            F.scaled_dot_product_attention(q, k, v, is_causal=causal)

    for _ in range(3):  # load, select and warm up outside the profile
        both()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    both()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()


if __name__ == "__main__":
    main()
