"""Every kernel configuration fmha.gemm and fmha.attention can select, and
the eager fast path, on a Hopper GPU against PyTorch.

Skipped without PyTorch or a CUDA device of compute capability 9.0; a
configuration neither in the cache nor compilable here is skipped with a
message (on a machine without the compiler, FMHA_CACHE_DIR must hold the
kernels: python3 test/GPU/prepare_cache.py DIR).
"""

import sys
import threading
import unittest

try:
    import torch
except ImportError:
    torch = None

import fmha
from fmha import ops, torch_ops

from .test_gpu_ops import NEEDS_HOPPER, attention_reference, rel_err

# Launched directly, so N and K keep rows 16-byte aligned (fmha.gemm pads
# other sizes; tests.test_gpu_ops covers those).
# (2000, 3000, 520) has more output tiles than a persistent grid has CTAs
# (or clusters), so each walks several and its rings wrap. For split-K
# kernels: K = 8 and 64 are one step (the other K ranges are empty), 200
# and 520 are 4 and 9 steps, not multiples of 64 * splits (ranges of
# unequal length), (2000, 3000, 520) has more work items than CTAs.
GEMM_SIZES = [(1, 8, 8), (17, 40, 72), (129, 264, 200), (300, 1000, 64),
              (1000, 1000, 1000), (7, 4096, 520), (2000, 3000, 520)]
# (batch, heads_q, heads_kv, seq_q, seq_k)
ATTENTION_SHAPES = [(1, 2, 2, 1, 1), (2, 4, 1, 17, 300), (1, 8, 2, 300, 300),
                    (1, 2, 2, 1000, 77), (1, 4, 4, 129, 1000)]


class Kernels:
    """The kernels of specs, None for one that does not compile for its
    types. Without a compiler, a spec missing from the cache is noted and
    passed over (prepare_cache.py leaves out what does not compile); the
    test skips only if no kernel at all could be had."""

    def __init__(self, test):
        self.test, self.loaded, self.missing = test, 0, []

    def get(self, spec):
        try:
            kernel = fmha.compile(spec).kernel
        except fmha.CompileError as e:
            if e.step == "tools":
                self.missing.append(spec.name)
            return None
        self.loaded += 1
        return kernel

    def done(self):
        if self.missing:
            print(f"\n{len(self.missing)} specs neither in the cache nor "
                  f"compilable here: {', '.join(self.missing)}",
                  file=sys.stderr)
        if not self.loaded:
            self.test.skipTest("no kernel in the cache and no compiler "
                               "(FMHA_CACHE_DIR)")


def scratch(kernel, tensors):
    """The scratch tensors of a kernel launched directly: split-K's
    workspace poisoned with NaNs (every partial sum must be written before
    it is read) and its counters zeroed, as the kernel expects them."""
    out = {}
    shapes = {name: t.shape for name, t in tensors.items()}
    for name, (shape, role, dtype) in kernel.scratch_shapes(shapes).items():
        tdt = {"f32": torch.float32, "i32": torch.int32}[dtype]
        if role == "zeroed":
            out[name] = torch.zeros(shape, dtype=tdt, device="cuda")
        else:
            out[name] = torch.full(shape, float("nan"), dtype=tdt,
                                   device="cuda")
    return out


@NEEDS_HOPPER
class SelectableGemmTest(unittest.TestCase):
    """Each GEMM configuration, launched directly, on odd sizes."""

    def test_every_configuration(self):
        torch.manual_seed(0)
        kernels = Kernels(self)
        for dtype, out, b_transposed in (
                ("bf16", "bf16", True), ("f16", "f32", True),
                ("bf16", "bf16", False)):
            for spec in ops.gemm_kernel_specs(dtype, out, "sm_90a",
                                              b_transposed):
                kernel = kernels.get(spec)
                if kernel is None:
                    continue
                tdt = getattr(torch, {"bf16": "bfloat16",
                                      "f16": "float16"}[dtype])
                odt = tdt if out != "f32" else torch.float32
                for m, n, k in GEMM_SIZES:
                    with self.subTest(spec=spec.name, m=m, n=n, k=k):
                        a = torch.randn(m, k, device="cuda").to(tdt)
                        b = torch.randn(n, k, device="cuda").to(tdt)
                        bb = b if b_transposed else b.t().contiguous()
                        c = torch.full((m, n), float("nan"), device="cuda",
                                       dtype=odt)
                        tensors = {"a": a, "b": bb, "c": c}
                        tensors.update(scratch(kernel, tensors))
                        # Split-K kernels run twice: the counters the first
                        # launch leaves must be zero again for the second.
                        for _ in range(2 if spec.splits > 1 else 1):
                            c.fill_(float("nan"))
                            kernel.launch(tensors)
                            torch.cuda.synchronize()
                            ref = a.float() @ b.float().t()
                            self.assertEqual(int(torch.isnan(c).sum()), 0)
                            self.assertLess(rel_err(c, ref),
                                            1e-4 if out == "f32" else 1e-2)
                            if "counters" in tensors:
                                self.assertEqual(
                                    int(tensors["counters"].abs().sum()), 0)
        kernels.done()


@NEEDS_HOPPER
class SelectableAttentionTest(unittest.TestCase):
    """Each attention configuration, launched directly, on odd shapes with
    GQA, empty rows and the log-sum-exp."""

    def test_every_configuration(self):
        torch.manual_seed(0)
        kernels = Kernels(self)
        for head_dim in (64, 128, 256):
            for causal in (False, True):
                for spec in ops.attention_kernel_specs(
                        "bf16", head_dim, causal, return_lse=True):
                    kernel = kernels.get(spec)
                    if kernel is None:
                        continue
                    for b, hq, hkv, sq, sk in ATTENTION_SHAPES:
                        with self.subTest(spec=spec.name, shape=(
                                b, hq, hkv, sq, sk)):
                            self.check(kernel, b, hq, hkv, sq, sk, head_dim,
                                       causal)
        kernels.done()

    def check(self, kernel, b, hq, hkv, sq, sk, d, causal):
        q = torch.randn(b, hq, sq, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(b, hkv, sk, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn_like(k)
        o = torch.full_like(q, float("nan"))
        lse = torch.full((b, hq, sq), float("nan"), device="cuda")
        kernel.launch({"q": q, "k": k, "v": v, "o": o, "lse": lse})
        torch.cuda.synchronize()
        ref, ref_lse = attention_reference(q, k, v, causal=causal)
        self.assertEqual(int(torch.isnan(o).sum()), 0, "unwritten o")
        self.assertLess(rel_err(o, ref), 2e-2)
        seen = ~torch.isinf(ref_lse)
        self.assertTrue(bool(torch.isneginf(lse[~seen]).all()))
        if bool(seen.any()):
            self.assertLess(float((lse[seen] - ref_lse[seen]).abs().max()),
                            1e-3)


@NEEDS_HOPPER
class FastPathTest(unittest.TestCase):
    """The eager fast path: bound launches on moving tensors, several
    layouts, threads, CUDA graphs and torch.compile."""

    @classmethod
    def setUpClass(cls):
        torch.zeros(1, device="cuda")
        torch.manual_seed(0)

    def attention_case(self, b=2, hq=4, hkv=2, sq=130, sk=257, d=128):
        q = torch.randn(b, hq, sq, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(b, hkv, sk, d, device="cuda", dtype=torch.bfloat16)
        return q, k, torch.randn_like(k)

    def test_addresses_move(self):
        # The same layout at new addresses (and a transposed view, another
        # layout) many times: every result right.
        for i in range(6):
            for causal in (False, True):
                q, k, v = self.attention_case(sq=130 + (i % 2), sk=257)
                torch.full((1 << 22,), float("nan"), device="cuda")
                o, lse = fmha.attention(q, k, v, causal=causal,
                                        return_lse=True)
                ref, ref_lse = attention_reference(q, k, v, causal=causal)
                self.assertLess(rel_err(o, ref), 2e-2)
                self.assertLess(float((lse - ref_lse).abs().max()), 1e-3)
            a = torch.randn(100 + i, 264, device="cuda",
                            dtype=torch.bfloat16)
            w = torch.randn(136, 264, device="cuda", dtype=torch.bfloat16)
            self.assertLess(rel_err(fmha.gemm(a, w), a.float() @
                                    w.float().t()), 1e-2)
            self.assertLess(rel_err(fmha.gemm(a, w.t().contiguous(),
                                              b_transposed=False),
                                    a.float() @ w.float().t()), 1e-2)
        self.assertTrue(torch_ops._FAST, "the fast path was not taken")

    def test_output_follows_the_query_layout(self):
        # q as transformers passes it, a transpose(1, 2) view of [b, s, h,
        # d]: o comes in the same layout (its transpose back is
        # contiguous, no copy for the caller), on the fast path and
        # through the custom op; a contiguous q gives a contiguous o.
        b, s, h, hkv, d = 2, 77, 4, 2, 128
        q = torch.randn(b, s, h, d, device="cuda",
                        dtype=torch.bfloat16).transpose(1, 2)
        k = torch.randn(b, s, hkv, d, device="cuda",
                        dtype=torch.bfloat16).transpose(1, 2)
        v = torch.randn_like(k)
        ref = attention_reference(q, k, v, causal=True)[0]
        for op in (fmha.attention, torch.ops.fmha.attention):
            for _ in range(2):
                torch.full((1 << 22,), float("nan"), device="cuda")
                o = op(q, k, v, causal=True) if op is fmha.attention \
                    else op(q, k, v, True, None, None, False)[0]
                self.assertEqual(o.stride(), q.stride())
                self.assertTrue(o.transpose(1, 2).is_contiguous())
                self.assertLess(rel_err(o, ref), 2e-2)
        o = fmha.attention(q.contiguous(), k, v, causal=True)
        self.assertTrue(o.is_contiguous())
        self.assertLess(rel_err(o, ref), 2e-2)

    def test_threads_and_streams(self):
        errors = []
        q, k, v = self.attention_case()
        ref = attention_reference(q, k, v, causal=True)[0]

        def work():
            stream = torch.cuda.Stream()
            try:
                with torch.cuda.stream(stream):
                    for _ in range(20):
                        o = fmha.attention(q, k, v, causal=True)
                    stream.synchronize()
                    errors.append(rel_err(o, ref))
            except Exception as e:  # reported below
                errors.append(e)
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for e in errors:
            self.assertNotIsInstance(e, Exception, repr(e))
            self.assertLess(e, 2e-2)
        self.assertEqual(len(errors), 4)

    def test_cuda_graph(self):
        q, k, v = self.attention_case()
        a = torch.randn(256, 512, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(384, 512, device="cuda", dtype=torch.bfloat16)
        fmha.attention(q, k, v, causal=True)
        fmha.gemm(a, w)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            o = fmha.attention(q, k, v, causal=True)
            c = fmha.gemm(a, w)
        for _ in range(2):
            q.copy_(torch.randn_like(q))
            a.copy_(torch.randn_like(a))
            graph.replay()
            torch.cuda.synchronize()
            self.assertLess(rel_err(o, attention_reference(
                q, k, v, causal=True)[0]), 2e-2)
            self.assertLess(rel_err(c, a.float() @ w.float().t()), 1e-2)

    def test_compile_reduce_overhead(self):
        q, k, v = self.attention_case()
        a = torch.randn(256, 512, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(384, 512, device="cuda", dtype=torch.bfloat16)

        def f(q, k, v, a, w):
            return fmha.attention(q, k, v, causal=True) * 2, fmha.gemm(a, w)
        g = torch.compile(f, mode="reduce-overhead", fullgraph=True)
        for _ in range(3):
            o, c = g(q, k, v, a, w)
        torch.cuda.synchronize()
        self.assertLess(rel_err(o, 2 * attention_reference(
            q, k, v, causal=True)[0]), 2e-2)
        self.assertLess(rel_err(c, a.float() @ w.float().t()), 1e-2)

    def test_grad_takes_the_custom_op(self):
        a = torch.randn(64, 64, device="cuda", dtype=torch.bfloat16,
                        requires_grad=True)
        w = torch.randn(64, 64, device="cuda", dtype=torch.bfloat16)
        c = fmha.gemm(a, w)
        self.assertIsNotNone(c.grad_fn)
        c.float().sum().backward()
        self.assertLess(rel_err(a.grad, torch.ones(64, 64, device="cuda")
                                @ w.float()), 1e-2)


@NEEDS_HOPPER
class SplitKFrontDoorTest(unittest.TestCase):
    """fmha.gemm with a split-K kernel selected: its workspace and counters
    per stream (threads on streams of their own), in a CUDA graph, under
    torch.compile, eagerly again after all of them."""

    CONFIG = {"tile": (64, 128, 64), "consumers": 2, "stages": 6,
              "splits": 2}
    M, N, K = 1000, 1000, 1000

    def setUp(self):
        spec = ops.gemm_spec("bf16", "bf16", "sm_90a", self.CONFIG)
        try:
            kernel = fmha.compile(spec).kernel
        except fmha.CompileError as e:
            self.skipTest(f"{spec.name}: {e}")
        self.a = torch.randn(self.M, self.K, device="cuda",
                             dtype=torch.bfloat16)
        self.w = torch.randn(self.N, self.K, device="cuda",
                             dtype=torch.bfloat16)
        # Select the split-K kernel for this shape's bucket.
        _, sizes = fmha.tuning.gemm_problem(self.M, self.N, self.K)
        options = (self.a.device, self.w.device, torch.bfloat16,
                   torch.bfloat16, torch.bfloat16, True)
        self.memo = (options, fmha.tuning.bucket(sizes))
        self.saved = torch_ops._SELECTED.get(self.memo)
        torch_ops._SELECTED[self.memo] = kernel
        torch_ops._FAST.clear()

    def tearDown(self):
        if getattr(self, "memo", None) is not None:
            if self.saved is None:
                torch_ops._SELECTED.pop(self.memo, None)
            else:
                torch_ops._SELECTED[self.memo] = self.saved
            torch_ops._FAST.clear()

    def ref(self, a=None):
        a = self.a if a is None else a
        return a.float() @ self.w.float().t()

    def test_eager(self):
        for _ in range(3):
            self.assertLess(rel_err(fmha.gemm(self.a, self.w), self.ref()),
                            1e-2)
        # Through the custom op too (not the fast path).
        c = torch.ops.fmha.gemm(self.a, self.w)
        self.assertLess(rel_err(c, self.ref()), 1e-2)

    def test_threads_and_streams(self):
        errors = []

        def work():
            stream = torch.cuda.Stream()
            try:
                with torch.cuda.stream(stream):
                    a = torch.randn_like(self.a)
                    outs = [fmha.gemm(a, self.w) for _ in range(20)]
                    stream.synchronize()
                    ref = self.ref(a)
                    errors.extend(rel_err(c, ref) for c in outs)
            except Exception as e:  # reported below
                errors.append(e)
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for e in errors:
            self.assertNotIsInstance(e, Exception, repr(e))
            self.assertLess(e, 1e-2)
        self.assertEqual(len(errors), 80)

    def test_cuda_graph(self):
        fmha.gemm(self.a, self.w)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            c = fmha.gemm(self.a, self.w)
        for _ in range(2):
            self.a.copy_(torch.randn_like(self.a))
            graph.replay()
            eager = fmha.gemm(self.a, self.w)
            torch.cuda.synchronize()
            self.assertLess(rel_err(c, self.ref()), 1e-2)
            self.assertLess(rel_err(eager, self.ref()), 1e-2)

    def test_compile_reduce_overhead(self):
        def f(a, w):
            return fmha.gemm(a, w) * 2
        g = torch.compile(f, mode="reduce-overhead", fullgraph=True)
        for _ in range(3):
            c = g(self.a, self.w)
        torch.cuda.synchronize()
        self.assertLess(rel_err(c, 2 * self.ref()), 1e-2)


if __name__ == "__main__":
    unittest.main()
