"""fmha.attention_varlen on a Hopper GPU, against a float64 reference.

Skipped without PyTorch, without a CUDA device of compute capability 9.0,
or when a kernel is neither in the cache nor compilable here
(test/GPU/prepare_cache.py puts every kernel these tests select in a
cache: FMHA_CACHE_DIR=DIR on a machine without the compiler).

The outputs come from fresh torch.empty buffers: the caching allocator's
memory is filled with NaN first, so an unwritten element shows; the rows
of each packed output that belong to other sequences are compared too, so
a store past a sequence's end (into the next one's rows) shows as well.
"""

import unittest

try:
    import torch
except ImportError:
    torch = None

import fmha
from fmha import ops, tuning

from .test_gpu_ops import attention_reference, compile_or_skip

HOPPER = (torch is not None and torch.cuda.is_available()
          and torch.cuda.get_device_capability() == (9, 0))
NEEDS_HOPPER = unittest.skipUnless(
    HOPPER, "needs PyTorch and a CUDA device of compute capability 9.0")

# The lengths the issue asks for, mixed in one batch (0 and 1 included),
# and a batch whose keys differ from its queries.
LENGTHS = (0, 1, 17, 1000, 4097)
CROSS = ((1000, 0), (17, 300), (1, 4097), (0, 5), (4097, 1000), (65, 64))


def varlen_or_skip(test, dtype="bf16", head_dim=128, **options):
    """The kernels fmha.attention_varlen may select for these options, or a
    skip when one is neither in the cache nor compilable here."""
    for spec in ops.attention_kernel_specs(dtype, head_dim, varlen=True,
                                           **options)[:1]:
        compile_or_skip(test, spec)


def cu_seqlens(lengths):
    cu = [0]
    for n in lengths:
        cu.append(cu[-1] + n)
    return torch.tensor(cu, dtype=torch.int32, device="cuda")


def reference(q, k, v, cu_q, cu_k, causal=False, window=None, scale=None):
    """o [total_q, heads_q, d] and lse [heads_q, total_q] in float64, per
    sequence, with fmha's masks aligned bottom-right by each sequence's own
    lengths; rows that see no key: o = 0, lse = -inf."""
    total_q, heads, d = q.shape
    o = torch.zeros(total_q, heads, d, dtype=torch.float64, device=q.device)
    lse = torch.full((heads, total_q), float("-inf"), dtype=torch.float64,
                     device=q.device)
    cq, ck = cu_q.tolist(), cu_k.tolist()
    for b in range(len(cq) - 1):
        if cq[b + 1] == cq[b] or ck[b + 1] == ck[b]:
            continue
        # Sequence b as a batch of one [1, heads, seq, d].
        ob, lb = attention_reference(
            *(t.transpose(0, 1)[None] for t in (q[cq[b]:cq[b + 1]],
                                                 k[ck[b]:ck[b + 1]],
                                                 v[ck[b]:ck[b + 1]])),
            causal, window, scale)
        o[cq[b]:cq[b + 1]] = ob[0].transpose(0, 1)
        lse[:, cq[b]:cq[b + 1]] = lb[0]
    return o, lse


def poison():
    torch.full((1 << 26,), float("nan"), device="cuda")


@NEEDS_HOPPER
class VarlenTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.zeros(1, device="cuda")  # PyTorch's context first
        torch.manual_seed(0)

    def run_case(self, lengths_q, lengths_k, heads_q, heads_kv, head_dim=128,
                 dtype=None, tol=2e-2, **options):
        dtype = dtype or torch.bfloat16
        cu_q, cu_k = cu_seqlens(lengths_q), cu_seqlens(lengths_k)
        q = torch.randn(sum(lengths_q), heads_q, head_dim, device="cuda",
                        dtype=dtype)
        k = torch.randn(sum(lengths_k), heads_kv, head_dim, device="cuda",
                        dtype=dtype)
        v = torch.randn_like(k)
        poison()
        o, lse = fmha.attention_varlen(
            q, k, v, cu_q, cu_k, max(lengths_q), max(lengths_k),
            return_lse=True, **options)
        o_only = fmha.attention_varlen(q, k, v, cu_q, cu_k, max(lengths_q),
                                       max(lengths_k), **options)
        torch.cuda.synchronize()
        ref, ref_lse = reference(q, k, v, cu_q, cu_k, **options)
        self.assertEqual((o_only.shape, o_only.dtype), (q.shape, q.dtype))
        self.assert_o(o_only, ref, tol)
        self.assertEqual((o.shape, o.dtype), (q.shape, q.dtype))
        self.assertEqual((lse.shape, lse.dtype),
                         ((heads_q, q.shape[0]), torch.float32))
        self.assertEqual(int(torch.isnan(lse).sum()), 0, "unwritten lse")
        self.assert_o_and_lse(o, lse, ref, ref_lse, tol)
        empty = torch.isinf(ref_lse)
        self.assertTrue(bool((o.transpose(0, 1)[empty] == 0).all()),
                        "o of a row that sees no key")
        return o, lse

    def assert_o(self, o, ref, tol):
        """o written everywhere and within ``tol`` of the float64 ``ref``
        (relative, Frobenius)."""
        self.assertEqual(int(torch.isnan(o).sum()), 0, "unwritten o")
        if ref.numel() and ref.norm() > 0:
            err = ((o.double() - ref).norm() / ref.norm()).item()
            self.assertLess(err, tol)

    def assert_o_and_lse(self, o, lse, ref, ref_lse, tol):
        """assert_o, and lse -inf where a row sees no key, within 1e-3 of
        ``ref_lse`` elsewhere."""
        self.assert_o(o, ref, tol)
        empty = torch.isinf(ref_lse)
        self.assertTrue(bool(torch.isneginf(lse[empty]).all()),
                        "lse of a row that sees no key")
        if (~empty).any():
            err = (lse.double() - ref_lse)[~empty].abs().max().item()
            self.assertLess(err, 1e-3)

    def test_lengths(self):
        """One batch of lengths 0, 1, 17, 1000 and 4097 (in two orders),
        self-attention and keys of other lengths, causal and not."""
        for causal in (False, True):
            varlen_or_skip(self, causal=causal)
            varlen_or_skip(self, causal=causal, return_lse=True)
            for lengths in (LENGTHS, tuple(reversed(LENGTHS))):
                with self.subTest(causal=causal, lengths=lengths):
                    self.run_case(lengths, lengths, 8, 2, causal=causal)
            with self.subTest(causal=causal, lengths="cross"):
                self.run_case([a for a, _ in CROSS], [b for _, b in CROSS],
                              8, 2, causal=causal)

    def test_every_candidate(self):
        """Each configuration the table may pick at head dim 64 (three
        consumer warpgroups among them), built as a varlen kernel and
        launched directly on lengths 0 to 4097, causal and not, lse
        returned; o and lse poisoned."""
        lengths = LENGTHS + (300, 64)
        cu = cu_seqlens(lengths)
        total = sum(lengths)
        q = torch.randn(total, 8, 64, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(total, 2, 64, device="cuda", dtype=torch.bfloat16)
        v = torch.randn_like(k)
        for causal in (False, True):
            ref, ref_lse = reference(q, k, v, cu, cu, causal=causal)
            for config in tuning.attention_candidates(64):
                spec = ops.attention_spec("bf16", 64, causal, None, None,
                                          True, "sm_90a", config,
                                          varlen=True)
                kernel = compile_or_skip(self, spec).kernel
                o = torch.full_like(q, float("nan"))
                lse = torch.full((8, total), float("nan"), device="cuda")
                kernel.launch({"q": q, "k": k, "v": v, "cu_seqlens_q": cu,
                               "cu_seqlens_k": cu, "o": o, "lse": lse,
                               "B": len(lengths), "MAXQ": max(lengths)})
                torch.cuda.synchronize()
                with self.subTest(spec=spec.name):
                    self.assert_o_and_lse(o, lse, ref, ref_lse, 2e-2)

    def test_gqa(self):
        """GQA groups of 1, 4 and 8 and MQA, f16, head dim 64."""
        varlen_or_skip(self, "f16", 64, causal=True)
        varlen_or_skip(self, "f16", 64, causal=True, return_lse=True)
        for heads_q, heads_kv in ((4, 4), (8, 2), (16, 2), (8, 1)):
            with self.subTest(heads=(heads_q, heads_kv)):
                self.run_case((17, 0, 300, 129), (17, 5, 300, 1000), heads_q,
                              heads_kv, 64, torch.float16, causal=True)

    def test_head_dims_and_dtypes(self):
        for dtype in (torch.bfloat16, torch.float16):
            for head_dim in (64, 128, 256):
                name = ops.fmha_dtype(dtype)
                varlen_or_skip(self, name, head_dim)
                varlen_or_skip(self, name, head_dim, return_lse=True)
                with self.subTest(dtype=dtype, head_dim=head_dim):
                    self.run_case((1, 17, 1000, 0, 257), (1, 17, 1000, 3, 64),
                                  4, 2, head_dim, dtype)

    def test_window(self):
        varlen_or_skip(self, causal=True, window=(128, 0))
        varlen_or_skip(self, causal=True, window=(128, 0), return_lse=True)
        self.run_case((1000, 17, 0, 300), (1000, 40, 9, 100), 4, 4,
                      causal=True, window=(128, 0))

    def test_empty(self):
        varlen_or_skip(self, return_lse=True)
        q = torch.randn(0, 4, 128, device="cuda", dtype=torch.bfloat16)
        cu = cu_seqlens([0, 0])
        o, lse = fmha.attention_varlen(q, q, q, cu, cu, 0, 0,
                                       return_lse=True)
        self.assertEqual((tuple(o.shape), tuple(lse.shape)),
                         ((0, 4, 128), (4, 0)))
        q = torch.randn(5, 4, 128, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(0, 4, 128, device="cuda", dtype=torch.bfloat16)
        o, lse = fmha.attention_varlen(q, k, k, cu_seqlens([5]),
                                       cu_seqlens([0]), 5, 0,
                                       return_lse=True)
        self.assertTrue(bool((o == 0).all()))
        self.assertTrue(bool(torch.isneginf(lse).all()))

    def test_errors(self):
        q = torch.randn(10, 4, 128, device="cuda", dtype=torch.bfloat16)
        cu = cu_seqlens([4, 6])
        call = fmha.attention_varlen
        with self.assertRaisesRegex(ValueError, "must be sorted"):
            call(q, q, q, torch.tensor([0, 6, 4, 10], dtype=torch.int32,
                                       device="cuda"), cu_seqlens([3, 3, 4]),
                 10, 10)
        with self.assertRaisesRegex(ValueError, "more than max_seqlen_q"):
            call(q, q, q, cu, cu, 5, 6)
        with self.assertRaisesRegex(ValueError, r"cu_seqlens_k\[-1\]"):
            call(q, q, q, cu, cu_seqlens([4, 5]), 6, 6)
        with self.assertRaisesRegex(ValueError, r"cu_seqlens_q\[0\] must be 0"):
            call(q, q, q, cu + 1, cu, 6, 6)
        with self.assertRaisesRegex(TypeError, "int32"):
            call(q, q, q, cu.long(), cu, 6, 6)
        with self.assertRaisesRegex(ValueError, "one device"):
            call(q, q, q, cu.cpu(), cu, 6, 6)
        with self.assertRaisesRegex(TypeError, "one dtype"):
            call(q, q.half(), q.half(), cu, cu, 6, 6)
        with self.assertRaisesRegex(ValueError, "multiple of heads_kv"):
            kv = torch.randn(10, 3, 128, device="cuda", dtype=torch.bfloat16)
            call(q, kv, kv, cu, cu, 6, 6)

    def test_custom_op_and_fast_path(self):
        """The eager fast path (a bound launch per layout) and the custom
        op give the same results; a later call of a bound layout still
        checks its values."""
        varlen_or_skip(self, causal=True, return_lse=True)
        lengths = (300, 0, 17, 1000)
        q = torch.randn(sum(lengths), 8, 128, device="cuda",
                        dtype=torch.bfloat16)
        kv = torch.randn(sum(lengths), 2, 128, device="cuda",
                         dtype=torch.bfloat16)
        cu = cu_seqlens(lengths)
        fast = fmha.attention_varlen(q, kv, kv, cu, cu, 1000, 1000,
                                     causal=True, return_lse=True)
        fast2 = fmha.attention_varlen(q, kv, kv, cu, cu, 1000, 1000,
                                      causal=True, return_lse=True)
        op = torch.ops.fmha.attention_varlen(q, kv, kv, cu, cu, 1000, 1000,
                                             True, None, None, True, True)
        torch.cuda.synchronize()
        for a, b in ((fast, op), (fast2, op)):
            self.assertTrue(torch.equal(a[0], b[0]))
            self.assertTrue(torch.equal(a[1], b[1]))
        bad = cu_seqlens((1000, 0, 17, 300))
        with self.assertRaisesRegex(ValueError, "more than max_seqlen_q"):
            fmha.attention_varlen(q, kv, kv, bad, cu, 999, 1000,
                                  causal=True, return_lse=True)
        with self.assertRaisesRegex(ValueError, "must be sorted"):
            unsorted = torch.tensor([0, 300, 17, 317, 1317],
                                    dtype=torch.int32, device="cuda")
            fmha.attention_varlen(q, kv, kv, unsorted, cu, 1000, 1000,
                                  causal=True, return_lse=True)

    def test_bad_values_unchecked(self):
        """check_values=False with bounds past the tensors: the kernel
        clamps them, so the launch completes without a fault (run under
        compute-sanitizer to see that no access leaves the tensors)."""
        varlen_or_skip(self)
        q = torch.randn(100, 4, 128, device="cuda", dtype=torch.bfloat16)
        bad = torch.tensor([0, 90, 5000, -7, 100], dtype=torch.int32,
                           device="cuda")
        fmha.attention_varlen(q, q, q, bad, bad, 5000, 5000,
                              check_values=False)
        torch.cuda.synchronize()

    def test_cuda_graph(self):
        """Captured in a CUDA graph (the value checks are skipped while
        capturing) and replayed on new values of the same shapes."""
        varlen_or_skip(self, causal=True)
        lengths = (17, 1000, 0, 300)
        q = torch.randn(sum(lengths), 8, 128, device="cuda",
                        dtype=torch.bfloat16)
        kv = torch.randn(sum(lengths), 2, 128, device="cuda",
                         dtype=torch.bfloat16)
        cu = cu_seqlens(lengths)
        fmha.attention_varlen(q, kv, kv, cu, cu, 1000, 1000, causal=True)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            o = fmha.attention_varlen(q, kv, kv, cu, cu, 1000, 1000,
                                      causal=True)
        q.copy_(torch.randn_like(q))
        graph.replay()
        torch.cuda.synchronize()
        ref, _ = reference(q, kv, kv, cu, cu, causal=True)
        err = ((o.double() - ref).norm() / ref.norm()).item()
        self.assertLess(err, 2e-2)

    def test_fullgraph(self):
        varlen_or_skip(self, causal=True, return_lse=True)

        def f(q, k, v, cu_q, cu_k):
            o, lse = fmha.attention_varlen(q, k, v, cu_q, cu_k, 300, 300,
                                           causal=True, return_lse=True)
            return o.float() * 2, lse

        graphs = []

        def backend(gm, inputs):
            graphs.append(gm)
            return gm.forward

        compiled = torch.compile(f, fullgraph=True, backend=backend,
                                 dynamic=True)
        lengths = (300, 17, 0, 64)
        q = torch.randn(sum(lengths), 4, 128, device="cuda",
                        dtype=torch.bfloat16)
        kv = torch.randn(sum(lengths), 2, 128, device="cuda",
                         dtype=torch.bfloat16)
        cu = cu_seqlens(lengths)
        got, lse = compiled(q, kv, kv, cu, cu)
        ref, ref_lse = reference(q, kv, kv, cu, cu, causal=True)
        torch.cuda.synchronize()
        err = ((got.double() - 2 * ref).norm() / (2 * ref).norm()).item()
        self.assertLess(err, 2e-2)
        finite = ~torch.isinf(ref_lse)
        self.assertLess((lse.double() - ref_lse)[finite].abs().max().item(),
                        1e-3)
        self.assertIn("fmha.attention_varlen", str(graphs[0].graph))

    def test_opcheck(self):
        varlen_or_skip(self, causal=True, return_lse=True)
        lengths = (100, 0, 31)
        q = torch.randn(sum(lengths), 4, 128, device="cuda",
                        dtype=torch.bfloat16)
        kv = torch.randn(sum(lengths), 2, 128, device="cuda",
                         dtype=torch.bfloat16)
        cu = cu_seqlens(lengths)
        torch.library.opcheck(
            torch.ops.fmha.attention_varlen.default,
            (q, kv, kv, cu, cu, 100, 100, True, None, None, True, True))


if __name__ == "__main__":
    unittest.main()
