"""Median device times with the L2 cache emptied before each run, in one of
two ways (the benches' ``--flush``):

- ``zero`` (the default): ``triton.testing.do_bench``, which zeroes a
  256 MiB buffer before each run. That leaves L2 full of dirty lines,
  which the timed call then pays to write back to memory as it evicts
  them: on an H200 about 6-9 us of a decode call's time (bench/RESULTS.md,
  2026-11-29), whatever library is timed.
- ``read``: the same buffer is read (a sum) instead, which also empties L2
  of the call's inputs but leaves only clean lines, as a decode step or a
  small GEMM finds it after kernels that mostly read (the weight-streaming
  GEMMs of a model's previous layer).

Both are medians over about 100 ms of timed runs, as ``do_bench``'s
``rep=100``.
"""

import contextlib
import math

import torch
from triton.testing import do_bench

FLUSHES = ("zero", "read")


def median_ms(fn, flush="zero"):
    """The median time of ``fn()`` in milliseconds (CUDA events on the
    current stream), L2 emptied before each run as ``flush`` says."""
    if flush == "zero":
        return do_bench(fn, warmup=25, rep=100, return_mode="median")
    if flush != "read":
        raise ValueError(f"flush must be one of {FLUSHES}, got {flush!r}")
    buf = torch.ones(64 << 20, dtype=torch.float32, device="cuda")
    fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        buf.sum()
        fn()
    end.record()
    torch.cuda.synchronize()
    estimate = start.elapsed_time(end) / 5
    for _ in range(max(1, min(25, int(25 / max(estimate, 1e-3))))):
        buf.sum()
        fn()
    reps = max(10, min(1000, int(100 / max(estimate, 1e-3))))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        buf.sum()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    times = sorted(s.elapsed_time(e) for s, e in zip(starts, ends))
    return times[len(times) // 2]


def compare(fns, flush="zero", rounds=3):
    """``(medians, per_round)``: each function of ``fns`` (a dict name ->
    function, or -> ``(function, context)`` with ``context()`` a context
    manager entered around that function's timing, not around each call:
    SDPA's backend choice) timed by median_ms in ``rounds`` rounds whose
    order rotates (round r starts with the r-th function), in
    milliseconds; ``medians`` the median of each one's rounds. A timing
    next to a change of shape can be off by up to 12%, whichever library
    it is of (bench/RESULTS.md, 2026-11-29, "the order of the timings"):
    with a rotating order no library always sits there, and the median
    drops a round that was off. A function that raises RuntimeError (a
    backend that does not take the shape) gets NaN."""
    names = list(fns)
    per_round = {name: [] for name in names}
    for r in range(rounds):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            fn, context = fns[name] if isinstance(fns[name], tuple) else \
                (fns[name], contextlib.nullcontext)
            try:
                with context():
                    per_round[name].append(median_ms(fn, flush))
            except RuntimeError:
                per_round[name].append(math.nan)
    medians = {name: sorted(ts)[len(ts) // 2]
               for name, ts in per_round.items()}
    return medians, per_round


def copy_bandwidth(flush="zero"):
    """The device's copy bandwidth in GB/s: bytes read plus bytes written
    per second by a 1 GiB device-to-device copy, timed as ``flush`` says
    (issue 17's reference for decode's K+V read bandwidth)."""
    src = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    ms = median_ms(lambda: dst.copy_(src), flush)
    return 2 * (1 << 30) / (ms * 1e-3) / 1e9
