#!/usr/bin/env python3
"""Checks a compiled fmha attention-forward kernel on the GPU.

Fresh random q, k, v for every shape, odd lengths included, the output
poisoned with NaN before each run, against a float64 PyTorch reference with
the kernel's masks (causal aligned bottom-right, as FlashAttention defines
it). GQA/MQA shapes come from the manifest when its head counts are static,
else from the cases below. Exits 77 (skipped) without a GPU or PyTorch.

usage: attention.py MANIFEST [--causal] [B,H,HKV,SQ,SK ...]
"""

import json
import math
import sys

SKIP = 77
DEFAULT_CASES = ["2,4,4,128,128", "1,8,2,1000,1000", "2,4,1,17,300",
                 "1,2,2,1,1", "1,4,4,4097,256", "1,2,1,300,4097",
                 "1,4,2,256,1000"]


def reference(q, k, v, causal):
    import torch
    qd, kd, vd = q.double(), k.double(), v.double()
    group = q.shape[1] // k.shape[1]
    kd = kd.repeat_interleave(group, dim=1)
    vd = vd.repeat_interleave(group, dim=1)
    s = qd @ kd.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if causal:
        sq, sk = q.shape[2], k.shape[2]
        rows = torch.arange(sq, device=q.device)[:, None] + (sk - sq)
        cols = torch.arange(sk, device=q.device)[None, :]
        s = s.masked_fill(cols > rows, float("-inf"))
    p = torch.softmax(s, dim=-1)
    return torch.nan_to_num(p) @ vd


def main():
    try:
        import torch
    except ImportError:
        print("skipped: no PyTorch")
        return SKIP
    if not torch.cuda.is_available():
        print("skipped: no CUDA device")
        return SKIP
    from fmha.runtime import Kernel

    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    causal = "--causal" in sys.argv
    kernel = Kernel.load(args[0])
    d = json.load(open(args[0]))["tensors"]["q"]["shape"][3]
    failures = 0
    torch.manual_seed(0)
    cases = args[1:] or DEFAULT_CASES
    for case in cases:
        b, h, hkv, sq, sk = (int(x) for x in case.split(","))
        q = torch.randn(b, h, sq, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(b, hkv, sk, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(b, hkv, sk, d, device="cuda", dtype=torch.bfloat16)
        o = torch.full_like(q, float("nan"))
        kernel(q=q, k=k, v=v, o=o)
        torch.cuda.synchronize()
        ref = reference(q, k, v, causal)
        err = ((o.double() - ref).norm() / ref.norm().clamp_min(1e-30)).item()
        nans = torch.isnan(o).sum().item()
        ok = nans == 0 and err < 2e-2
        failures += not ok
        print(f"B={b} H={h} HKV={hkv} SQ={sq:5d} SK={sk:5d} causal={int(causal)} "
              f"rel_err={err:.2e} unwritten={nans} {'ok' if ok else 'FAIL'}")
    print(f"{len(cases) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
