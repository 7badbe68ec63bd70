"""GEMM configurations bench/gemm_schedules.py times beside the candidates
of fmha.tuning.GEMM_CANDIDATES (test/GPU/prepare_cache.py --bench compiles
them too). No PyTorch import, so that the cache can be prepared without it.
"""

# The ping-pong configurations measured on 2026-11-25 (bench/RESULTS.md);
# not selection candidates since (fmha.tuning.GEMM_CANDIDATES).
PINGPONG = [
    {"tile": (128, 128, 64), "consumers": 2, "schedule": "pingpong"},
    {"tile": (128, 128, 64), "consumers": 2, "stages": 5,
     "schedule": "pingpong"},
    {"tile": (64, 256, 64), "consumers": 2, "schedule": "pingpong"},
    {"tile": (64, 128, 64), "consumers": 2, "stages": 6,
     "schedule": "pingpong"},
]

# Split-K configurations (none is a tuning candidate: they lost
# everywhere on the H100, bench/RESULTS.md): tiles and K-range counts for
# the shapes with few tiles.
SPLITK = [
    {"tile": (64, 128, 64), "consumers": 2, "stages": 6, "splits": 2},
    {"tile": (64, 128, 64), "consumers": 2, "stages": 6, "splits": 4},
    {"tile": (64, 128, 64), "consumers": 1, "stages": 6, "splits": 2},
    {"tile": (64, 64, 64), "consumers": 1, "stages": 8, "splits": 2},
    {"tile": (64, 128, 64), "consumers": 2, "stages": 6, "splits": 3},
    {"tile": (128, 128, 64), "consumers": 2, "splits": 2},
    {"tile": (64, 256, 64), "consumers": 2, "splits": 2},
    {"tile": (64, 128, 64), "consumers": 1, "stages": 6, "splits": 4},
    {"tile": (64, 64, 64), "consumers": 1, "stages": 8, "splits": 4},
]
