#!/usr/bin/env python3
"""Diagnosis of clustered GEMM kernels (kernel level, not for claims): for
a 4096^3 bf16 GEMM, the 64x256 tile without and with multicast and the
128x128 tile with multicast, the grid the runtime picks
(cuOccupancyMaxActiveClusters), TFLOP/s, and the same kernels with the
number of clusters forced to 66, 64, 60 and 33.

    FMHA_CACHE_DIR=DIR python3 bench/gemm_cluster_diag.py
"""
import os
import sys

import torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import fmha
from fmha import ops, tuning
from fmha.runtime.driver import get_driver
torch.zeros(1, device="cuda")
drv = get_driver()
m = n = k = 4096
a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
ref = a.float() @ b.float().t()
for cfg in ({"tile": (64, 256, 64), "consumers": 2},
            {"tile": (64, 256, 64), "consumers": 2, "multicast": 2},
            {"tile": (128, 128, 64), "consumers": 2, "multicast": 2}):
    spec = ops.gemm_spec("bf16", "bf16", "sm_90a", cfg)
    kern = fmha.compile(spec).kernel
    launch = kern.prepare({"a": a, "b": b, "c": c})
    mac = drv.max_active_clusters(launch.function, launch.block, launch.dynamic_smem, launch.cluster) if launch.cluster != (1, 1, 1) else None
    t = tuning.time_cuda(lambda: kern.launch({"a": a, "b": b, "c": c}), torch)
    err = ((c.float() - ref).norm() / ref.norm()).item()
    print(spec.name, "grid", launch.grid, "cluster", launch.cluster, "smem", launch.dynamic_smem,
          "max_active_clusters", mac, f"{2*m*n*k/t/1e6:.0f} TFLOP/s err {err:.2e}", flush=True)
    if mac:
        for g in (66, 64, 60, 33):
            t2 = tuning.time_cuda(lambda: drv.launch(launch.function, (2 * g, 1, 1), launch.block, launch.dynamic_smem, 0, launch.params.array, launch.cluster), torch)
            err = ((c.float() - ref).norm() / ref.norm()).item()
            print("   forced clusters", g, f"{2*m*n*k/t2/1e6:.0f} TFLOP/s err {err:.2e}", flush=True)
