"""One process of the cache concurrency test (test_cache_concurrency.py):
compiles, force-recompiles or looks up (without a compiler) the given
specs in a loop for a while, checks every kernel it gets, and prints a
JSON line ``{"role": ..., "ops": n, "failures": [...]}``.

    python3 -m tests.cache_worker ROLE SECONDS SEED CACHE_DIR
"""

import json
import random
import sys
import time

import fmha
from fmha import cache, compiler
from fmha.specs import AttentionSpec, GemmSpec

SPECS = (GemmSpec(), GemmSpec(dtype="f16"), GemmSpec(out_dtype="f32"),
         AttentionSpec(causal=True), AttentionSpec(head_dim=64, scale=0.5))


def check(kernel: fmha.CompiledKernel, spec) -> None:
    """What a caller relies on: the kernel is the spec's, its manifest and
    cubin are the ones entry.json vouches for, the runtime Kernel loads."""
    entry = kernel.entry
    assert entry.info["spec"] == spec.to_dict(), entry.info["spec"]
    assert cache.sha256(entry.cubin) == \
        entry.info["sha256"][entry.info["cubin"]], "cubin hash"
    assert kernel.kernel.manifest.name == spec.name, kernel.kernel.manifest
    assert kernel.kernel.cubin == entry.cubin


def main() -> None:
    role, seconds, seed, root = sys.argv[1], float(sys.argv[2]), \
        int(sys.argv[3]), sys.argv[4]
    rng = random.Random(seed)
    ops, failures = 0, []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        spec = rng.choice(SPECS)
        compiler.clear_memo()
        try:
            kernel = fmha.compile(spec, cache_dir=root,
                                  force=role == "force",
                                  progress=lambda message: None)
            check(kernel, spec)
        except Exception as e:  # noqa: BLE001 - counted, not raised
            failures.append(f"{spec.name}: {type(e).__name__}: {e}")
        ops += 1
    print(json.dumps({"role": role, "ops": ops, "failures": failures}))


if __name__ == "__main__":
    main()
