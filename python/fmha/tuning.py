"""Kernel selection: which configuration fmha.gemm and fmha.attention run.

One kernel configuration is not the fastest for every shape: a thin GEMM
wants narrow tiles that spread over every SM, a large one wide tiles; a
long-sequence attention wants the persistent schedule, a short one may
not. fmha.gemm and fmha.attention therefore choose a configuration per
call from the problem (``select``), in this order:

1. the autotuner's record for the shape's bucket (on disk, per device
   name: ``<cache dir>/tuning/<device>.json``), when there is one;
2. the table of winners shipped with the package (``fmha/data/
   tuning.json``, written by ``bench/tune.py``, which times every candidate
   on a GPU): the configuration of the nearest measured shape of the same
   kind (same head dim and mask for attention), nearness measured in
   octaves of each size;
3. the compiler's default configuration, when neither has a shape of the
   kind.

The autotuner is opt-in (``FMHA_AUTOTUNE=1``): the first call in an unseen
bucket (sizes rounded to half octaves) compiles every candidate
configuration (well under a second each; a line per candidate on stderr),
times each on the call's own tensors (median of CUDA-event timings, L2
flushed before each) and records the winner, so later calls and later
processes on the same device start tuned.

A configuration is a dict of spec fields (``tile``, ``stages``,
``consumers``, ``schedule``, and ``multicast`` for GEMM); ``None`` or a
missing field means the compiler's default.
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence

FORMAT = "fmha-tuning/1"
TABLE_PATH = Path(__file__).parent / "data" / "tuning.json"

# Candidate configurations, in the order the autotuner and bench/tune.py
# try them. Every one compiles for 16-bit outputs on sm_90a (an f32 output
# needs more shared memory; a candidate that does not compile is skipped).
GEMM_CANDIDATES: tuple = (
    {"tile": (128, 128, 64), "consumers": 2},
    # Three consumers: a 192 x 128 CTA tile, 512 threads (sm_90a).
    {"tile": (64, 128, 64), "consumers": 3},
    {"tile": (64, 256, 64), "consumers": 2},
    {"tile": (64, 192, 64), "consumers": 2},
    {"tile": (64, 128, 64), "consumers": 2},
    {"tile": (64, 128, 64), "consumers": 2, "stages": 6},
    {"tile": (64, 64, 64), "consumers": 2},
    {"tile": (64, 256, 64), "consumers": 1},
    {"tile": (64, 128, 64), "consumers": 1},
    {"tile": (64, 64, 64), "consumers": 1},
    # Thin M (decode-like, a few rows): the kernel streams B, and more
    # buffers in flight per SM reach the memory bandwidth (8 stages: 0.96x
    # cuBLAS at 7x8192x4096, 4 stages: 0.82x; bench/gemm_diagnose.py).
    {"tile": (64, 128, 64), "consumers": 1, "stages": 6},
    {"tile": (64, 64, 64), "consumers": 1, "stages": 8},
    # ... and on a device with more bandwidth (the H200) more still: 12
    # stages of 64 x 64 (96 KiB of B in flight per SM), 16 of 64 x 32, and
    # 8 of 64 x 128 where N / 64 tiles make more than one wave (7 x 14336).
    # Kernel-level on the H200 against cuBLAS (bench/RESULTS.md,
    # 2026-11-28): 7x8192x4096 0.83x with 8 stages, 0.92x with 12;
    # 16x4096x4096 0.77x, 0.91x with 64 x 32 and 16 stages; 7x14336x4096
    # 0.66x, 0.88x with 64 x 128.
    {"tile": (64, 64, 64), "consumers": 1, "stages": 12},
    {"tile": (64, 32, 64), "consumers": 1, "stages": 16},
    {"tile": (64, 128, 64), "consumers": 1, "stages": 8},
    # Swapped operands (C^T = B A^T, B as [N, K] only): A's few rows are
    # the MMA's N, so an A slot holds 8 to 32 rows instead of 64 and the
    # ring more B slots (8 x 64 tiles: 16 slots of 9 KiB, 144 KiB of B in
    # flight, against 12 of 16 KiB). Kernel-level on the H200 against
    # cuBLAS (bench/RESULTS.md, 2026-11-28): 7x8192x4096 0.92x -> 0.97x,
    # 16x4096x4096 0.91x -> 0.92-0.95x, 7x14336x4096 0.88x -> 0.94x. More
    # stages (24 of 8 x 64), and 16 x 128 or 32 x 128 tiles, won nowhere
    # beyond the rounds' spread. Split-K (through fmha.gemm's eager path,
    # which provides the workspace) for long K over few tiles: 7x4096x14336
    # 50 us -> 41 (2 splits), cuBLAS 41.
    {"tile": (8, 64, 64), "consumers": 1, "stages": 16, "swap_ab": True},
    {"tile": (16, 64, 64), "consumers": 1, "stages": 16, "swap_ab": True},
    {"tile": (32, 64, 64), "consumers": 1, "stages": 18, "swap_ab": True},
    {"tile": (8, 128, 64), "consumers": 1, "stages": 13, "swap_ab": True},
    # ... and K steps of two 128-byte spans (two TMA boxes per operand):
    # half the ring's barrier round trips per byte, 2-3% faster at 7 rows
    # (kernel level, H200).
    {"tile": (8, 64, 128), "consumers": 1, "stages": 12, "swap_ab": True},
    {"tile": (16, 64, 128), "consumers": 1, "stages": 11, "swap_ab": True},
    {"tile": (8, 64, 128), "consumers": 1, "stages": 12, "swap_ab": True,
     "splits": 2},
    {"tile": (8, 64, 64), "consumers": 1, "stages": 16, "swap_ab": True,
     "splits": 2},
    {"tile": (8, 64, 64), "consumers": 1, "stages": 16, "swap_ab": True,
     "splits": 4},
    # Clusters of two CTAs sharing each B tile by TMA multicast: half of
    # B's L2 reads, for shapes whose rows are not 128-byte aligned (3000^3:
    # a box row spans two L2 lines and the kernel is L2-bound) and large
    # squares.
    {"tile": (64, 256, 64), "consumers": 2, "multicast": 2},
    {"tile": (64, 192, 64), "consumers": 2, "multicast": 2},
    {"tile": (64, 128, 64), "consumers": 2, "multicast": 2},
    {"tile": (128, 128, 64), "consumers": 2, "multicast": 2},
    # ... and with one consumer, for problems of about one wave of 64 x 128
    # tiles (1000^3: 128 tiles), where each CTA's L2 reads of A and B bound
    # it: kernel-level on the H200 (bench/RESULTS.md, 2026-11-29) 11.1-11.3
    # us against 12.2-12.6 for the unclustered 64 x 128, cuBLAS 10.5-10.9.
    {"tile": (64, 128, 64), "consumers": 1, "stages": 6, "multicast": 2},
    # Split-K (`splits n`) is not a candidate: measured on the H100
    # (2026-11-25, bench/RESULTS.md) it runs 1.2x-20x slower than the
    # unsplit kernels at every shape of issue 14, 1000^3 included;
    # bench/gemm_configs.py keeps its configurations for
    # bench/gemm_schedules.py --only splitk.
    # Not candidates: the ping-pong schedule (`schedule pingpong`). On the
    # H100 it lost to the API's cooperative choice at every shape of issue
    # 14, short K included (0.72x cuBLAS against 0.87x at 16384x16384x256;
    # bench/RESULTS.md, "GEMM ping-pong"), and each candidate costs the
    # autotuner a compile.
)

# fp8 GEMM candidates (sm_90a, B as [N, K]): block_k 128 (one 128-byte
# swizzle span of K, the default), 128 x 128 and 64 x 256 tiles per
# consumer (the CTA tile 256 x 128 or 128 x 256), narrower ones for thin
# or small problems, and multicast. 128 x 256 per consumer needs 256
# accumulator registers per thread, more than a consumer gets.
GEMM_FP8_CANDIDATES: tuple = (
    {"tile": (128, 128, 128), "consumers": 2},
    {"tile": (64, 256, 128), "consumers": 2},
    {"tile": (64, 128, 128), "consumers": 2},
    {"tile": (128, 128, 64), "consumers": 2},
    {"tile": (64, 256, 64), "consumers": 2},
    {"tile": (64, 128, 128), "consumers": 1},
    {"tile": (64, 128, 128), "consumers": 1, "stages": 6},
    {"tile": (64, 64, 128), "consumers": 1, "stages": 8},
    {"tile": (128, 128, 128), "consumers": 2, "multicast": 2},
    {"tile": (64, 256, 128), "consumers": 2, "multicast": 2},
)


# fp8 GEMMs with accumulate promotion (``use_fast_accum=False``): the
# wgmma chain's tile and the f32 sum cost the accumulator registers twice,
# so the tiles hold at most 96 f32 values a thread (64 x 128, 128 x 64 and
# 128 x 96 per consumer; 128 x 128 does not fit, nor does 64 x 192 with
# column scales, 48 more registers). The first
# is the default: one promotion per K step of 128 (as CUTLASS's and
# DeepGEMM's fp8 GEMMs), the others promote less often or take wider
# tiles. Not measured yet: no table rows.
GEMM_FP8_PROMOTE_CANDIDATES: tuple = (
    {"tile": (64, 128, 128), "consumers": 2, "promote_every": 1},
    {"tile": (64, 128, 128), "consumers": 2, "promote_every": 2},
    {"tile": (64, 128, 128), "consumers": 2, "promote_every": 4},
    {"tile": (128, 96, 128), "consumers": 2, "promote_every": 1},
    {"tile": (128, 64, 128), "consumers": 2, "promote_every": 1},
    {"tile": (64, 128, 128), "consumers": 1, "promote_every": 1},
)


def gemm_candidates(fp8: bool = False, promote: bool = False) -> tuple:
    """The candidate configurations of a GEMM of 16-bit or fp8 inputs
    (``promote``: fp8 with accumulate promotion)."""
    if promote:
        return GEMM_FP8_PROMOTE_CANDIDATES
    return GEMM_FP8_CANDIDATES if fp8 else GEMM_CANDIDATES


def promoted(config: dict) -> dict:
    """``config`` of an fp8 GEMM with accumulate promotion: the default
    promotion candidate's tile, consumers and ``promote_every`` where
    ``config`` sets none (the compiler's default tile, 128 x 128, does not
    fit twice in the registers)."""
    default = GEMM_FP8_PROMOTE_CANDIDATES[0]
    if "tile" in config:
        return {"promote_every": default["promote_every"], **config}
    return {**default, **config}


# 16-bit attention. The longest key blocks the register model admits
# (64 x 192 at head dim 64, 64 x 160 at 128, 64 x 80 at 256) take fewer
# softmax steps per key (bench/tune.py sweep --only attention, two sweeps,
# H200, 2026-11-29): 64 x 160 wins at head dim 128 without a mask from 8k
# tokens (3-13%); 64 x 192 at head dim 64 won by 3-6% in one sweep only.
# Three consumer warpgroups (192-row query blocks, FlashAttention-3's
# choice at head dim 64) at head dim 64: 8-11% faster than the default
# without a mask from 2k tokens, kernel level (bench/attention_configs.py,
# H200, 2026-11-30); slower causal below 4k.
ATTENTION_CANDIDATES: dict = {
    64: (
        {},
        {"schedule": "per_block"},
        {"consumers": 1},
        {"tile": (64, 128), "stages": 4, "schedule": "per_block"},
        {"tile": (64, 192)},
        {"consumers": 3},
    ),
    128: (
        {},
        {"schedule": "per_block"},
        {"tile": (64, 112)},
        {"tile": (64, 96)},
        {"consumers": 1},
        {"tile": (64, 160)},
    ),
    256: (
        {},
        {"tile": (64, 80), "stages": 2},
        {"schedule": "persistent"},
        {"tile": (64, 48)},
        {"consumers": 1},
    ),
}


def attention_candidates(head_dim: int) -> tuple:
    return ATTENTION_CANDIDATES.get(head_dim, ({},))


# fp8 attention (P V's K step is 32 keys: block_n a multiple of 32). The
# table's ``attention_fp8`` rows (bench/tune.py sweep --only attention_fp8,
# two sweeps, H200, 2026-11-29): longer key blocks than the defaults win
# from 1k tokens (fewer softmax steps per key; the register model counts
# fp8's P at a byte a value): 64 x 160 at head dim 64 without a mask
# (9-24%), 64 x 192 causal from 8k (5-6%), 64 x 96 at head dim 256
# (5-19%); at head dim 128 the default wins but causal at 16k (64 x 160,
# 3-10%). 64 x 224 at head dims 64 and 128 admitted too, but spills
# without a mask. 64 x 128 at head dim 256 (admitted since the model counts
# fp8 without softmax temporaries) beat 64 x 96 by 4-8% without a mask
# from 2k tokens and by 12% causal at 16k (bench/fp8_configs.py, 8 rounds
# of rotating order, H200, 2026-11-29): the table's pick there.
#
# ``transpose_v`` (V's tiles transposed in shared memory by the kernel, no
# V^T copy before it; docs/FP8Attention.md): at head dims 64 and 128,
# where the extra V^T ring fits beside the tiles above. At 256 it leaves
# room for 64 x 64 only, 20-30% slower than 64 x 128 with the copy (H200,
# 2026-11-30), so it is no candidate there. Two sweeps that timed every
# candidate with the V^T copy its kernel needs (H200, 2026-11-30) moved 12
# rows to it: head dim 64 up to 1k tokens and causal throughout, 128 up to
# 1k (4-24% faster). Three consumers at head dim 64 (not with transpose_v,
# whose transposer would get the producer's 24 registers): 4-10% faster
# than 64 x 160 without a mask, 13-24% than the default causal from 4k
# (bench/fp8_configs.py, H200, 2026-11-30).
ATTENTION_FP8_CANDIDATES: dict = {
    64: ({}, {"schedule": "per_block"}, {"consumers": 1}, {"tile": (64, 160)},
         {"tile": (64, 192)}, {"transpose_v": True},
         {"tile": (64, 160), "transpose_v": True},
         {"tile": (64, 192), "transpose_v": True}, {"consumers": 3}),
    128: ({}, {"schedule": "per_block"}, {"tile": (64, 64)},
          {"consumers": 1}, {"tile": (64, 160)}, {"tile": (64, 192)},
          {"transpose_v": True}, {"tile": (64, 160), "transpose_v": True},
          {"tile": (64, 192), "transpose_v": True}),
    256: ({}, {"schedule": "persistent"}, {"consumers": 1}, {"tile": (64, 96)},
          {"tile": (64, 128)}),
}


def attention_fp8_candidates(head_dim: int) -> tuple:
    return ATTENTION_FP8_CANDIDATES.get(head_dim, ({},))


# -- shapes, buckets and distances -------------------------------------------


def _log2(x: int) -> float:
    return math.log2(max(int(x), 1))


def bucket(sizes: Sequence[int]) -> tuple:
    """The autotuner's bucket of a shape: each size rounded to half an
    octave (1, 1.4, 2, 2.8, 4, ...)."""
    return tuple(int(round(2 * _log2(s))) for s in sizes)


def distance(a: Sequence[int], b: Sequence[int]) -> float:
    """How far two shapes are apart: the sum of their sizes' ratios, in
    octaves."""
    return sum(abs(_log2(x) - _log2(y)) for x, y in zip(a, b))


def gemm_problem(m: int, n: int, k: int, fp8: bool = False,
                 promote: bool = False, b_kn: bool = False) -> tuple:
    """The (category, sizes) GEMM selection looks at: fp8 GEMMs are a
    category of their own (``gemm_fp8``), and so are fp8 GEMMs with
    accumulate promotion (``gemm_fp8_promote``) and 16-bit GEMMs with B
    given as ``[K, N]`` (``gemm_kn``: the B tiles move and feed the MMA
    transposed, and some tiles do not build that way)."""
    if promote:
        return ("gemm_fp8_promote",), (m, n, k)
    if fp8:
        return ("gemm_fp8",), (m, n, k)
    return ("gemm_kn" if b_kn else "gemm",), (m, n, k)


# Categories whose table rows, where the table has none, are another's.
CATEGORY_FALLBACK = {("gemm_kn",): ("gemm",)}
GEMM_TABLE_KINDS = ("gemm", "gemm_kn", "gemm_fp8", "gemm_fp8_promote")


def attention_problem(head_dim: int, masked: bool, batch_heads: int,
                      seq_q: int, seq_k: int, fp8: bool = False) -> tuple:
    """The (category, sizes) attention selection looks at: the head dim and
    whether a mask hides keys (causal or a window) decide the category; fp8
    attention is a category of its own (``attention_fp8``)."""
    return (("attention_fp8" if fp8 else "attention", int(head_dim),
             bool(masked)), (batch_heads, seq_q, seq_k))


def normalize_config(config: Optional[dict]) -> dict:
    """A config with tuples for lists and without None fields."""
    out = {}
    for name, value in (config or {}).items():
        if value is None:
            continue
        out[name] = tuple(value) if isinstance(value, list) else value
    return out


# -- the shipped table --------------------------------------------------------


class Table:
    """Measured winners: per category, a list of (sizes, config)."""

    def __init__(self, entries: Optional[dict] = None,
                 source: str = "") -> None:
        self.entries: dict = entries or {}
        self.source = source

    @classmethod
    def from_json(cls, data: dict, source: str = "") -> "Table":
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"{source or 'tuning table'}: not a "
                             f"{FORMAT} table")
        entries: dict = {}
        for kind in GEMM_TABLE_KINDS:
            for row in data.get(kind, []):
                category, sizes = gemm_problem(
                    row["m"], row["n"], row["k"], fp8=kind.startswith(
                        "gemm_fp8"), promote=kind == "gemm_fp8_promote",
                    b_kn=kind == "gemm_kn")
                entries.setdefault(category, []).append(
                    (sizes, normalize_config(row["config"])))
        for kind in ("attention", "attention_fp8"):
            for row in data.get(kind, []):
                category, sizes = attention_problem(
                    row["head_dim"], row["masked"], row["batch_heads"],
                    row["seq_q"], row["seq_k"], fp8=kind == "attention_fp8")
                entries.setdefault(category, []).append(
                    (sizes, normalize_config(row["config"])))
        return cls(entries, source)

    @classmethod
    def load(cls, path: Path = TABLE_PATH) -> "Table":
        """The table at ``path``; an empty one when there is none."""
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except FileNotFoundError:
            return cls()
        return cls.from_json(data, str(path))

    def nearest(self, category: tuple, sizes: Sequence[int]) \
            -> Optional[dict]:
        """The config of the nearest measured shape of ``category``."""
        configs = self.by_distance(category, sizes)
        return configs[0] if configs else None

    def by_distance(self, category: tuple, sizes: Sequence[int]) -> list:
        """The distinct configs of ``category``'s measured shapes, nearest
        shape first: where the nearest one's winner does not build for a
        call's types or layout, the next is the best measured guess. A
        category without rows takes those of its CATEGORY_FALLBACK."""
        rows = self.entries.get(category) or self.entries.get(
            CATEGORY_FALLBACK.get(category), ())
        rows = sorted(rows, key=lambda row: distance(row[0], sizes))
        out: list = []
        for _, config in rows:
            if config not in out:
                out.append(config)
        return out

    def configs(self, category_prefix: tuple) -> list:
        """Every distinct config recorded for categories starting with
        ``category_prefix``."""
        seen: list = []
        for category, rows in self.entries.items():
            if category[:len(category_prefix)] != category_prefix:
                continue
            for _, config in rows:
                if config not in seen:
                    seen.append(config)
        return seen


_TABLE: list = [None]


def table() -> Table:
    """The package's table (loaded once)."""
    if _TABLE[0] is None:
        _TABLE[0] = Table.load()
    return _TABLE[0]


# -- the autotuner's record ---------------------------------------------------


def verbose() -> bool:
    return os.environ.get("FMHA_VERBOSE", "").lower() not in (
        "", "0", "false", "no")


def autotune_enabled() -> bool:
    return os.environ.get("FMHA_AUTOTUNE", "").lower() not in (
        "", "0", "false", "no")


def _device_file_name(device_name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", device_name).strip("_") \
        + ".json"


class Record:
    """The autotuner's winners for one device, kept in a JSON file:
    ``{"format": ..., "device": ..., "winners": {key: config}}`` with key
    ``category|bucket`` as text. Reads once; each new winner rewrites the
    file atomically (a temporary file renamed over it), merged with what
    other processes wrote meanwhile."""

    def __init__(self, path: Path, device_name: str) -> None:
        self.path = path
        self.device_name = device_name
        self._lock = threading.Lock()
        self._winners: Optional[dict] = None

    @staticmethod
    def key(category: tuple, sizes: Sequence[int]) -> str:
        return json.dumps([list(category), list(bucket(sizes))])

    def _read(self) -> dict:
        try:
            with open(self.path, encoding="utf-8") as f:
                data = json.load(f)
            if isinstance(data, dict) and data.get("format") == FORMAT and \
                    isinstance(data.get("winners"), dict):
                return {k: normalize_config(v)
                        for k, v in data["winners"].items()}
        except (OSError, ValueError):
            pass
        return {}

    def get(self, category: tuple, sizes: Sequence[int]) -> Optional[dict]:
        if self._winners is None:
            with self._lock:
                if self._winners is None:
                    self._winners = self._read()
        return self._winners.get(self.key(category, sizes))

    def put(self, category: tuple, sizes: Sequence[int],
            config: dict) -> None:
        key = self.key(category, sizes)
        with self._lock:
            winners = self._read()
            winners[key] = normalize_config(config)
            self._winners = winners
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(
                f".{self.path.name}.{os.getpid()}.{os.urandom(4).hex()}")
            data = {"format": FORMAT, "device": self.device_name,
                    "winners": {k: {n: list(v) if isinstance(v, tuple)
                                    else v for n, v in c.items()}
                                for k, c in winners.items()}}
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1, sort_keys=True)
            os.replace(tmp, self.path)


_RECORDS: dict = {}


def record(device_name: str, cache_root: Path) -> Record:
    """The autotuner's record of ``device_name`` in the cache ``cache_root``."""
    key = (device_name, str(cache_root))
    rec = _RECORDS.get(key)
    if rec is None:
        rec = _RECORDS[key] = Record(
            cache_root / "tuning" / _device_file_name(device_name),
            device_name)
    return rec


def choose(category: tuple, sizes: Sequence[int],
           rec: Optional[Record] = None) -> dict:
    """The configuration for a problem: the record's, the table's nearest,
    or {} (the compiler's defaults)."""
    if rec is not None:
        config = rec.get(category, sizes)
        if config is not None:
            return config
    config = table().nearest(category, sizes)
    return dict(config) if config is not None else {}


# -- timing -------------------------------------------------------------------


def time_cuda(fn: Callable[[], Any], torch: Any, reps: int = 20,
              warmup: int = 3, flush_bytes: int = 128 << 20) -> float:
    """The median time of ``fn()`` in microseconds, by CUDA events on the
    current stream, with the L2 cache flushed (a ``flush_bytes`` buffer
    zeroed) before each timed run."""
    flush = torch.empty(flush_bytes, dtype=torch.int8, device="cuda")
    for _ in range(warmup):
        fn()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        flush.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    times = sorted(s.elapsed_time(e) * 1e3 for s, e in zip(starts, ends))
    return times[len(times) // 2]


def tune(candidates: Iterable[dict], build: Callable[[dict], Any],
         run: Callable[[Any], Callable[[], Any]], torch: Any,
         progress: Optional[Callable[[str], None]] = None,
         what: str = "") -> tuple:
    """Times every candidate config: ``build(config)`` gives a kernel (or
    raises: the candidate is skipped), ``run(kernel)`` a function that runs
    it once. Returns (best config, {config text: microseconds})."""
    results: dict = {}
    best: Optional[tuple] = None
    candidates = list(candidates)
    for i, config in enumerate(candidates):
        text = json.dumps(normalize_config(config), sort_keys=True,
                          default=list)
        if progress is not None:
            progress(f"autotune {what}: candidate {i + 1}/{len(candidates)} "
                     f"{text}")
        try:
            kernel = build(config)
        except Exception as e:  # a config that does not compile: skip it
            results[text] = f"skipped: {str(e).splitlines()[0][:200]}"
            continue
        us = time_cuda(run(kernel), torch)
        results[text] = us
        if best is None or us < best[0]:
            best = (us, config)
    if best is None:
        return {}, results
    return normalize_config(best[1]), results
