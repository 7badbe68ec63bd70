"""fmha.merge_states on a Hopper GPU: attention over keys split into
disjoint sets, merged, against the float64 reference over all keys.

Skipped without PyTorch, without a CUDA device of compute capability 9.0,
or when a kernel is neither in the cache nor compilable here (point
FMHA_CACHE_DIR at a cache that ``python3 test/GPU/prepare_cache.py DIR``
warmed: it compiles the merge kernels these tests use).
"""

import unittest

try:
    import torch
except ImportError:
    torch = None

import fmha
from fmha import merge
from fmha.specs import MergeSpec

from .test_gpu_ops import (NEEDS_HOPPER, attention_or_skip,
                           attention_reference, compile_or_skip)

# The kernels these tests launch (test/GPU/prepare_cache.py compiles them).
MERGE_KERNELS = [MergeSpec(dtype=dtype, head_dim=d)
                 for dtype in ("bf16", "f16") for d in (64, 128, 256, 24)]
DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16} if torch else {}


def merge_reference(states):
    """float64 (o, lse) of ``states`` [(o_i, lse_i)] whose o_i and lse_i are
    in the kernel's layout already ([..., rows, d] and [..., rows])."""
    lse = torch.stack([s[1].double() for s in states])
    o = torch.stack([s[0].double() for s in states])
    total = torch.logsumexp(lse, dim=0)
    weight = torch.exp(lse - total)
    weight = torch.nan_to_num(weight, nan=0.0)  # all -inf: 0
    o = torch.where(weight[..., None] > 0, o, torch.zeros_like(o))
    return (weight[..., None] * o).sum(0), total


class Poisoned:
    """Makes fmha.merge_states' outputs start as NaN."""

    def __enter__(self):
        self.original = merge.outputs

        def poisoned(torch_, o, lse):
            o_out, lse_out = self.original(torch_, o, lse)
            o_out.fill_(float("nan"))
            lse_out.fill_(float("nan"))
            return o_out, lse_out

        merge.outputs = poisoned
        return self

    def __exit__(self, *exc):
        merge.outputs = self.original


def merge_or_skip(test, dtype, head_dim):
    return compile_or_skip(test, MergeSpec(dtype=dtype, head_dim=head_dim))


@NEEDS_HOPPER
class MergeAttentionTest(unittest.TestCase):
    """fmha.attention over key sets, merged, against attention over all."""

    @classmethod
    def setUpClass(cls):
        torch.zeros(1, device="cuda")
        torch.manual_seed(0)

    def check_split(self, batch, heads, seq_q, seq_k, cuts, dtype="bf16",
                    head_dim=128):
        attention_or_skip(self, dtype, head_dim, return_lse=True)
        merge_or_skip(self, dtype, head_dim)
        t = DTYPES[dtype]
        q = torch.randn(batch, heads, seq_q, head_dim, device="cuda",
                        dtype=t)
        k = torch.randn(batch, heads, seq_k, head_dim, device="cuda",
                        dtype=t)
        v = torch.randn(batch, heads, seq_k, head_dim, device="cuda",
                        dtype=t)
        bounds = [0, *cuts, seq_k]
        states = [fmha.attention(q, k[:, :, a:b], v[:, :, a:b],
                                 return_lse=True)
                  for a, b in zip(bounds, bounds[1:])]
        with Poisoned():
            if len(states) == 2:
                o, lse = fmha.merge_states(states[0][0], states[0][1],
                                           states[1][0], states[1][1])
            else:
                o, lse = fmha.merge_states(states)
        torch.cuda.synchronize()
        ref_o, ref_lse = attention_reference(q, k, v)
        self.assertEqual(o.shape, q.shape)
        self.assertEqual(o.dtype, q.dtype)
        self.assertEqual(lse.shape, (batch, heads, seq_q))
        self.assertFalse(torch.isnan(o).any(), "unwritten or NaN o")
        self.assertFalse(torch.isnan(lse).any(), "unwritten or NaN lse")
        err = (o.double() - ref_o).abs().max().item()
        self.assertLess(err, 2e-2 if dtype == "bf16" else 5e-3)
        self.assertLess((lse.double() - ref_lse).abs().max().item(), 1e-3)

    def test_two_sets(self):
        self.check_split(2, 4, 100, 300, [128])

    def test_three_sets_odd_sizes(self):
        self.check_split(3, 2, 17, 1000, [1, 517])

    def test_decode_rows(self):
        # One query row: the merge runs the batch as one sequence.
        self.check_split(8, 8, 1, 700, [300])

    def test_f16_head_dims(self):
        for d in (64, 256):
            with self.subTest(head_dim=d):
                self.check_split(1, 3, 65, 200, [64, 100], "f16", d)


@NEEDS_HOPPER
class MergeStatesTest(unittest.TestCase):
    """Synthetic states in every layout, empty sets, graphs, compile."""

    @classmethod
    def setUpClass(cls):
        torch.zeros(1, device="cuda")
        torch.manual_seed(1)

    def states(self, n, shape, lse_shape, dtype="bf16"):
        return [(torch.randn(shape, device="cuda", dtype=DTYPES[dtype]),
                 torch.randn(lse_shape, device="cuda") * 4)
                for _ in range(n)]

    def check(self, states, layout="bhsd", tol=2e-2):
        with Poisoned():
            o, lse = fmha.merge_states(states, layout=layout)
        torch.cuda.synchronize()
        # The kernel's layout: lse [..., rows], o [..., rows, d].
        def rows(o_, lse_):
            if o_.dim() == 3:  # [T, H, D], [H, T]
                return o_.transpose(0, 1), lse_
            if layout == "bshd":
                return o_.transpose(1, 2), lse_
            return o_, lse_
        ref_o, ref_lse = merge_reference([rows(*s) for s in states])
        got_o, got_lse = rows(o, lse)
        self.assertFalse(torch.isnan(got_o).any(), "NaN in o")
        self.assertLess((got_o.double() - ref_o).abs().max().item(), tol)
        self.assertTrue(torch.equal(torch.isinf(got_lse),
                                    torch.isinf(ref_lse)))
        finite = torch.isfinite(ref_lse)
        if finite.any():
            self.assertLess((got_lse.double() - ref_lse)[finite].abs()
                            .max().item(), 1e-4)
        return o, lse

    def test_layouts(self):
        merge_or_skip(self, "bf16", 128)
        self.check(self.states(2, (2, 4, 33, 128), (2, 4, 33)))
        self.check(self.states(3, (2, 33, 4, 128), (2, 4, 33)), "bshd")
        self.check(self.states(4, (1001, 8, 128), (8, 1001)))

    def test_many_states(self):
        merge_or_skip(self, "bf16", 128)
        self.check(self.states(16, (1, 300, 2, 128), (1, 2, 300)), "bshd")

    def test_head_dim_24(self):
        merge_or_skip(self, "f16", 24)
        self.check(self.states(2, (3, 5, 130, 24), (3, 5, 130), "f16"),
                   tol=5e-3)

    def test_empty_sets(self):
        merge_or_skip(self, "bf16", 128)
        states = self.states(3, (2, 4, 50, 128), (2, 4, 50))
        # State 1 saw no key anywhere, its o is garbage; state 2 none for
        # rows 10..19.
        states[1][0].fill_(float("nan"))
        states[1][1].fill_(float("-inf"))
        states[2][1][:, :, 10:20] = float("-inf")
        states[2][0][:, :, 10:20] = float("nan")
        self.check(states)
        # No keys in any state: o = 0, lse = -inf.
        for o_, lse_ in states:
            lse_.fill_(float("-inf"))
        o, lse = self.check(states)
        self.assertTrue(bool((o == 0).all()))
        self.assertTrue(bool(torch.isneginf(lse).all()))

    def test_strided_states(self):
        merge_or_skip(self, "bf16", 128)
        # Different layouts: no common state stride, the states are stacked.
        a = torch.randn(2, 40, 4, 128, device="cuda",
                        dtype=torch.bfloat16).transpose(1, 2)
        b = torch.randn(2, 4, 40, 128, device="cuda", dtype=torch.bfloat16)
        la = torch.randn(2, 40, 4, device="cuda").transpose(1, 2)
        lb = torch.randn(2, 4, 40, device="cuda")
        self.check([(a, la), (b, lb)])

    def test_one_layout_many_distances(self):
        merge_or_skip(self, "bf16", 128)
        # One layout, so one bound launch (the first call binds it): the
        # states' distance changes from call to call, including negative
        # and zero, and three states at unequal distances take the
        # stacking path.
        shape, lse_shape = (2, 4, 37, 128), (2, 4, 37)
        pool = self.states(4, (4, *shape), (4, *lse_shape))
        o_pool, lse_pool = pool[0]
        for i, j in ((0, 1), (1, 3), (3, 0), (2, 2)):
            with self.subTest(states=(i, j)):
                self.check([(o_pool[i], lse_pool[i]),
                            (o_pool[j], lse_pool[j])])
        separate = self.states(2, shape, lse_shape)
        self.check(separate)
        self.check([(o_pool[0], lse_pool[0]), (o_pool[1], lse_pool[1]),
                    (o_pool[3], lse_pool[3])])
        self.check([(o_pool[0], lse_pool[0]), *separate])

    def test_cuda_graph(self):
        merge_or_skip(self, "bf16", 128)
        states = self.states(2, (2, 4, 70, 128), (2, 4, 70))
        flat = [t for s in states for t in s]
        fmha.merge_states(*flat)  # compile and load outside the capture
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            o, lse = fmha.merge_states(*flat)
        for t in flat:
            t.copy_(torch.randn_like(t))
        graph.replay()
        torch.cuda.synchronize()
        ref_o, ref_lse = merge_reference(states)
        self.assertLess((o.double() - ref_o).abs().max().item(), 2e-2)
        self.assertLess((lse.double() - ref_lse).abs().max().item(), 1e-4)

    def test_torch_compile(self):
        merge_or_skip(self, "bf16", 128)
        states = self.states(2, (1, 2, 30, 128), (1, 2, 30))

        @torch.compile(fullgraph=True)
        def f(oa, la, ob, lb):
            return fmha.merge_states(oa, la, ob, lb)

        o, lse = f(*[t for s in states for t in s])
        ref_o, ref_lse = merge_reference(states)
        self.assertLess((o.double() - ref_o).abs().max().item(), 2e-2)

    def test_checks(self):
        a = torch.randn(1, 2, 3, 128, device="cuda", dtype=torch.bfloat16)
        la = torch.randn(1, 2, 3, device="cuda")
        with self.assertRaisesRegex(TypeError, "lse must be float32"):
            fmha.merge_states(a, la.half(), a, la)
        with self.assertRaisesRegex(ValueError, "one device"):
            fmha.merge_states(a, la, a, la.cpu())
        with self.assertRaisesRegex(ValueError, "must have shape"):
            fmha.merge_states(a, la[:, :, :2], a, la)


if __name__ == "__main__":
    unittest.main()
