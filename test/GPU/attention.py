#!/usr/bin/env python3
"""Checks a compiled fmha attention-forward kernel on the GPU.

Fresh random q, k, v for every shape, odd lengths included, the output
poisoned with NaN before each run, against a float64 PyTorch reference with
the kernel's masks (causal aligned bottom-right, as FlashAttention defines
it). When the manifest has an `lse` tensor, the log-sum-exp too (poisoned
with NaN, against the float64 logsumexp of the masked scores): rows that
see no key (causal with SQ > SK) must give lse = -inf and o = 0. GQA/MQA
shapes come from the manifest when its head counts are static, else from
the cases below. Exits 77 (skipped) without a GPU or PyTorch.

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
    """o and lse in float64; lse is -inf (and o 0) where a row sees no
    key."""
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
    return torch.nan_to_num(p) @ vd, torch.logsumexp(s, dim=-1)


def lse_error(lse, ref):
    """(max abs error over rows that see keys, rows whose -inf-ness
    differs from the reference, NaN rows)."""
    import torch
    empty = torch.isinf(ref)
    mismatched = int((torch.isneginf(lse) != empty).sum())
    nans = int(torch.isnan(lse).sum())
    finite = ~empty & torch.isfinite(lse)
    err = (lse.double() - ref).abs()[finite].max().item() \
        if finite.any() else 0.0
    return err, mismatched, nans


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
    tensors = json.load(open(args[0]))["tensors"]
    d = tensors["q"]["shape"][3]
    with_lse = "lse" in tensors
    failures = 0
    torch.manual_seed(0)
    cases = args[1:] or DEFAULT_CASES
    for case in cases:
        b, h, hkv, sq, sk = (int(x) for x in case.split(","))
        q = torch.randn(b, h, sq, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(b, hkv, sk, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(b, hkv, sk, d, device="cuda", dtype=torch.bfloat16)
        o = torch.full_like(q, float("nan"))
        outputs = {"o": o}
        if with_lse:
            outputs["lse"] = torch.full((b, h, sq), float("nan"),
                                        device="cuda", dtype=torch.float32)
        kernel(q=q, k=k, v=v, **outputs)
        torch.cuda.synchronize()
        ref, ref_lse = reference(q, k, v, causal)
        err = ((o.double() - ref).norm() / ref.norm().clamp_min(1e-30)).item()
        nans = torch.isnan(o).sum().item()
        # Rows that see no key must be exactly 0.
        empty = torch.isinf(ref_lse)
        nonzero = int((o[empty] != 0).sum())
        ok = nans == 0 and err < 2e-2 and nonzero == 0
        line = (f"B={b} H={h} HKV={hkv} SQ={sq:5d} SK={sk:5d} "
                f"causal={int(causal)} rel_err={err:.2e} unwritten={nans} "
                f"empty_rows={int(empty.sum())} nonzero_in_empty={nonzero}")
        if with_lse:
            lse_err, mismatched, lse_nans = lse_error(outputs["lse"], ref_lse)
            ok = ok and lse_err < 1e-3 and mismatched == 0 and lse_nans == 0
            line += (f" lse_abs_err={lse_err:.1e} "
                     f"lse_mismatched={mismatched} lse_unwritten={lse_nans}")
        failures += not ok
        print(f"{line} {'ok' if ok else 'FAIL'}")
    print(f"{len(cases) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
