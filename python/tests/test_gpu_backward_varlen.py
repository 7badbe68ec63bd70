"""fmha.attention_varlen_backward and autograd through
fmha.attention_varlen on a Hopper GPU, against a float64 reference computed
per sequence.

Skipped without PyTorch, without a CUDA device of compute capability 9.0,
when a kernel is neither in the cache nor compilable here. On a machine
without the compiler, point FMHA_CACHE_DIR at a cache that
test/GPU/prepare_cache.py filled (it compiles kernel_specs() below).

The reference: each sequence's slice as a batch of one, through
test_gpu_backward's dense references (masks aligned bottom-right with the
sequence's own lengths, as the varlen forward does); a sequence without
queries or keys contributes zero gradients. Tolerances are
test_gpu_backward's: each gradient's relative Frobenius-norm error over the
packed tensor at most twice that of the same algorithm in the dtype (the
emulated backward, from its own P V and from the o of fmha's forward, and
SDPA's math backend where every row sees a key), plus one unit of the
dtype's precision, not counting the summation noise of dS (summed over the
sequences). The outputs come from fresh torch.empty buffers over memory
filled with NaN, so an unwritten row shows. Each case prints its errors
with FMHA_VERBOSE=1.
"""

import os
import sys
import unittest

try:
    import torch
except ImportError:
    torch = None

import fmha
from fmha import backward, ops

from .test_gpu_backward import (OPTIONS, backward_reference,
                                cancellation_noise, check_grad_layout,
                                emulated_backward,
                                grad_error, poison_allocator, sdpa_backward)
from .test_gpu_ops import NEEDS_HOPPER, compile_or_skip
from .test_gpu_varlen import cu_seqlens

VERBOSE = os.environ.get("FMHA_VERBOSE") == "1"
# (lengths_q, lengths_k, heads_q, heads_kv): lengths 0, 1, 17, 300 and 1000
# in one batch, queries and keys of other lengths per sequence (a sequence
# without keys, one without queries), GQA 4:1 and MQA.
CASES = [
    ((0, 1, 17, 300, 1000), (0, 1, 17, 300, 1000), 8, 2),
    ((1000, 17, 0, 300, 1, 5), (300, 1000, 7, 17, 1, 0), 8, 2),
    ((17, 300, 1000, 1), (1000, 17, 300, 64), 4, 1),
    ((300, 0), (1000, 0), 2, 2),
]
TORCH_DTYPES = {"bf16": "bfloat16", "f16": "float16"}


def kernel_specs():
    """Every kernel these tests select: the varlen backward's and the
    varlen forward's with lse (what fmha.attention_varlen compiles when
    autograd records it; every candidate of its tuning) and without (under
    torch.no_grad()), for test_gpu_backward's options."""
    for dtype, hd, causal, window, scale in OPTIONS:
        yield from backward.backward_kernel_specs(dtype, hd, causal, window,
                                                  scale, varlen=True)
        for lse in (True, False):
            yield from ops.attention_kernel_specs(dtype, hd, causal, window,
                                                  scale, lse, varlen=True)


def varlen_backward_or_skip(test, dtype="bf16", head_dim=128, causal=False,
                            window=None, scale=None):
    """The varlen backward's kernel for these options and the varlen
    forward's with lse, or a skip when one is neither in the cache nor
    compilable here."""
    for spec in backward.backward_kernel_specs(dtype, head_dim, causal,
                                               window, scale, varlen=True):
        compile_or_skip(test, spec)
    compile_or_skip(test, ops.attention_spec(dtype, head_dim, causal, window,
                                             scale, return_lse=True,
                                             varlen=True))


def _batch(t, rows):
    """Rows ``rows`` of a packed [total, heads, d] tensor as [1, heads,
    seq, d]."""
    return t[rows].transpose(0, 1)[None]


def per_sequence(fn, q, k, v, do, cu_q, cu_k, o=None, **options):
    """``fn``'s (dq, dk, dv) (a dense backward of test_gpu_backward) of
    each sequence as a batch of one, packed as q and k in float64; zeros
    for a sequence without queries or keys. None when ``fn`` gives None
    for a sequence (SDPA where a row sees no key)."""
    grads = [torch.zeros(t.shape, dtype=torch.float64, device=t.device)
             for t in (q, k, v)]
    cq, ck = cu_q.tolist(), cu_k.tolist()
    for b in range(len(cq) - 1):
        rq, rk = slice(cq[b], cq[b + 1]), slice(ck[b], ck[b + 1])
        if cq[b + 1] == cq[b] or ck[b + 1] == ck[b]:
            continue
        extra = {} if o is None else {"o": _batch(o, rq)}
        got = fn(_batch(q, rq), _batch(k, rk), _batch(v, rk),
                 _batch(do, rq), **options, **extra)
        if got is None:
            return None
        for out, g, rows in zip(grads, got, (rq, rk, rk)):
            out[rows] = g[0].transpose(0, 1).double()
    return tuple(grads)


def varlen_noise(q, k, v, do, cu_q, cu_k, scale=None):
    """test_gpu_backward.cancellation_noise of each sequence, summed in
    quadrature (norms of the packed gradients)."""
    total = [0.0, 0.0, 0.0]
    cq, ck = cu_q.tolist(), cu_k.tolist()
    for b in range(len(cq) - 1):
        rq, rk = slice(cq[b], cq[b + 1]), slice(ck[b], ck[b + 1])
        if cq[b + 1] == cq[b] or ck[b + 1] == ck[b]:
            continue
        noise = cancellation_noise(_batch(q, rq), _batch(k, rk),
                                   _batch(v, rk), _batch(do, rq), scale)
        total = [t + n * n for t, n in zip(total, noise)]
    return tuple(t ** 0.5 for t in total)


def grad_errors(grads, q, k, v, do, cu_q, cu_k, o=None, causal=False,
                window=None, scale=None):
    """``[(name, error, bound)]`` of dq, dk, dv against the per-sequence
    float64 reference (the module's note); ``o``: the forward output the
    backward was given (a second emulated baseline)."""
    options = dict(causal=causal, window=window, scale=scale)
    args = (q, k, v, do, cu_q, cu_k)
    ref = per_sequence(backward_reference, *args, **options)
    baselines = [per_sequence(emulated_backward, *args, **options)]
    if o is not None:
        baselines.append(per_sequence(emulated_backward, *args, o=o,
                                      **options))
    sdpa = per_sequence(sdpa_backward, *args, **options)
    if sdpa is not None:
        baselines.append(sdpa)
    noise = varlen_noise(*args, scale)
    eps = torch.finfo(q.dtype).eps
    out = []
    for i, name in enumerate(("dq", "dk", "dv")):
        err = grad_error(grads[i], ref[i], noise[i])
        base = max(grad_error(b[i], ref[i], noise[i]) for b in baselines)
        out.append((name, err, 2 * base + eps))
    return out


@NEEDS_HOPPER
class VarlenBackwardTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.zeros(1, device="cuda")  # PyTorch's context first
        torch.manual_seed(0)

    def check_grads(self, grads, q, k, v, do, cu_q, cu_k, o=None,
                    causal=False, window=None, scale=None, what=""):
        """dq, dk, dv: shapes, dtypes, no NaN, and the error bound of the
        module's note."""
        check_grad_layout(self, grads, q, k, what)
        for name, err, bound in grad_errors(grads, q, k, v, do, cu_q, cu_k,
                                            o, causal, window, scale):
            if VERBOSE:
                print(f"\n  {what} {name}: fmha {err:.2e}, bound "
                      f"{bound:.2e}", file=sys.stderr)
            self.assertLessEqual(err, bound, f"{name} {what}: error "
                                 f"{err:.3e} above the bound {bound:.3e}")

    def inputs(self, lengths_q, lengths_k, heads_q, heads_kv, dtype,
               head_dim):
        q = torch.randn(sum(lengths_q), heads_q, head_dim, device="cuda",
                        dtype=dtype)
        k = torch.randn(sum(lengths_k), heads_kv, head_dim, device="cuda",
                        dtype=dtype)
        v = torch.randn_like(k)
        return q, k, v, cu_seqlens(lengths_q), cu_seqlens(lengths_k)

    def run_case(self, lengths_q, lengths_k, heads_q, heads_kv, dtype,
                 head_dim, causal=False, window=None, scale=None):
        q, k, v, cu_q, cu_k = self.inputs(lengths_q, lengths_k, heads_q,
                                          heads_kv, dtype, head_dim)
        maxima = (max(lengths_q), max(lengths_k))
        o, lse = fmha.attention_varlen(q, k, v, cu_q, cu_k, *maxima, causal,
                                       window, scale, return_lse=True)
        do = torch.randn_like(o)
        poison_allocator()
        grads = fmha.attention_varlen_backward(
            q, k, v, o, do, lse, cu_q, cu_k, *maxima, causal=causal,
            window=window, scale=scale)
        torch.cuda.synchronize()
        self.check_grads(grads, q, k, v, do, cu_q, cu_k, o, causal, window,
                         scale, what=f"{lengths_q} {lengths_k} "
                         f"{(heads_q, heads_kv)} {dtype} d{head_dim} "
                         f"causal={causal} window={window}")
        return q, k, v, o, do, lse, cu_q, cu_k, grads

    def test_lengths(self):
        """Lengths 0, 1, 17, 300, 1000 mixed, seq_q != seq_k per sequence,
        GQA 4:1 and MQA, causal and not, both dtypes and head dims."""
        for dtype, head_dim, causal, window, scale in OPTIONS:
            if window is not None:
                continue
            varlen_backward_or_skip(self, dtype, head_dim, causal)
            for case in CASES:
                with self.subTest(dtype=dtype, d=head_dim, causal=causal,
                                  case=case):
                    self.run_case(*case, getattr(torch, TORCH_DTYPES[dtype]),
                                  head_dim, causal)

    def test_long_sequence(self):
        """A sequence of 4097 queries and keys beside short ones."""
        for head_dim in (128, 64):
            varlen_backward_or_skip(self, head_dim=head_dim, causal=True)
            with self.subTest(head_dim=head_dim):
                self.run_case((17, 4097, 0, 300), (300, 4097, 5, 17), 4, 1,
                              torch.bfloat16, head_dim, True)

    def test_windows_and_scale(self):
        for dtype, head_dim, causal, window, scale in OPTIONS:
            if window is None:
                continue
            varlen_backward_or_skip(self, dtype, head_dim, causal, window,
                                    scale)
            # 500 queries on 300 keys: the first rows see no key.
            for case in (((500, 17, 0), (300, 300, 9), 4, 2),
                         ((1000, 1), (1000, 40), 4, 1)):
                with self.subTest(dtype=dtype, window=window, case=case):
                    self.run_case(*case, getattr(torch, TORCH_DTYPES[dtype]),
                                  head_dim, causal, window, scale)

    def test_fast_path_and_custom_op(self):
        """The eager fast path (a bound launch per layout, rebound to new
        addresses) and the custom op give the same bits, on every run;
        check_values=False too; a later call of a bound layout still
        checks its values."""
        varlen_backward_or_skip(self, causal=True)
        q, k, v, o, do, lse, cu_q, cu_k, grads = self.run_case(
            (300, 0, 17, 1000), (300, 5, 17, 1000), 8, 2, torch.bfloat16,
            128, True)
        again = fmha.attention_varlen_backward(q, k, v, o, do, lse, cu_q,
                                               cu_k, 1000, 1000, causal=True)
        copies = [t.clone() for t in (q, k, v, o, do, lse)]
        moved = fmha.attention_varlen_backward(*copies, cu_q, cu_k, 1000,
                                               1000, causal=True)
        op = torch.ops.fmha.attention_varlen_backward(
            q, k, v, o, do, lse, cu_q, cu_k, 1000, 1000, True, None, None,
            True, False)
        unchecked = fmha.attention_varlen_backward(
            q, k, v, o, do, lse, cu_q, cu_k, 1000, 1000, causal=True,
            check_values=False)
        torch.cuda.synchronize()
        for other in (again, moved, op, unchecked):
            for a, b in zip(grads, other):
                self.assertTrue(torch.equal(a, b))
        bad = cu_seqlens((1000, 0, 17, 300))
        with self.assertRaisesRegex(ValueError, "more than max_seqlen_q"):
            fmha.attention_varlen_backward(q, k, v, o, do, lse, bad, cu_k,
                                           999, 1000, causal=True)
        with self.assertRaisesRegex(ValueError, "must be sorted"):
            unsorted = torch.tensor([0, 300, 17, 317, 1317],
                                    dtype=torch.int32, device="cuda")
            fmha.attention_varlen_backward(q, k, v, o, do, lse, unsorted,
                                           cu_k, 1000, 1000, causal=True)

    def test_autograd(self):
        """loss.backward() through fmha.attention_varlen: the forward keeps
        lse, the backward gives what a direct call of
        fmha.attention_varlen_backward gives, and what the custom op's
        registered formula gives."""
        for dtype, head_dim, causal in ((torch.bfloat16, 128, True),
                                        (torch.float16, 64, False)):
            varlen_backward_or_skip(self, ops.fmha_dtype(dtype), head_dim,
                                    causal)
            lengths_q, lengths_k = (300, 0, 17, 1000), (1000, 3, 17, 300)
            leaves = [t.requires_grad_() for t in self.inputs(
                lengths_q, lengths_k, 8, 2, dtype, head_dim)[:3]]
            q, k, v = leaves
            cu_q, cu_k = cu_seqlens(lengths_q), cu_seqlens(lengths_k)
            do = torch.randn(q.shape, device="cuda", dtype=dtype)
            o = fmha.attention_varlen(q, k, v, cu_q, cu_k, 1000, 1000,
                                      causal=causal)
            # Eager: the autograd.Function over the bound launches, whose
            # output and gradients are the custom op's, bit for bit.
            self.assertIn("AttentionVarlen", type(o.grad_fn).__name__)
            (o.float() * do.float()).sum().backward()
            qd, kd, vd = (t.detach() for t in leaves)
            ops_leaves = [t.clone().requires_grad_() for t in (qd, kd, vd)]
            o_op, _ = torch.ops.fmha.attention_varlen(
                *ops_leaves, cu_q, cu_k, 1000, 1000, causal, None, None,
                True, True)
            self.assertIn("fmha_attention_varlen", type(o_op.grad_fn).__name__)
            self.assertTrue(torch.equal(o, o_op))
            (o_op.float() * do.float()).sum().backward()
            for leaf, op_leaf in zip(leaves, ops_leaves):
                self.assertTrue(torch.equal(leaf.grad, op_leaf.grad))
            o2, lse2 = fmha.attention_varlen(qd, kd, vd, cu_q, cu_k, 1000,
                                             1000, causal=causal,
                                             return_lse=True)
            direct = fmha.attention_varlen_backward(
                qd, kd, vd, o2, do, lse2, cu_q, cu_k, 1000, 1000,
                causal=causal)
            for leaf, want in zip(leaves, direct):
                self.assertTrue(torch.equal(leaf.grad, want))
            self.check_grads(direct, qd, kd, vd, do, cu_q, cu_k, o2, causal,
                             what="autograd")
            # Only v requires a gradient; return_lse with autograd: lse is
            # not differentiable.
            v2 = vd.clone().requires_grad_()
            o3, lse3 = fmha.attention_varlen(qd, kd, v2, cu_q, cu_k, 1000,
                                             1000, causal=causal,
                                             return_lse=True)
            self.assertFalse(lse3.requires_grad)
            o3.backward(do)
            self.assertTrue(torch.equal(v2.grad, v.grad))

    def test_fullgraph(self):
        """torch.compile(fullgraph=True) of a forward and backward, against
        the eager gradients."""
        varlen_backward_or_skip(self, causal=True)
        torch._dynamo.reset()

        def f(q, k, v, cu_q, cu_k):
            o = fmha.attention_varlen(q, k, v, cu_q, cu_k, 300, 300,
                                      causal=True)
            return o.float().square().sum()

        compiled = torch.compile(f, fullgraph=True)
        for lengths_q, lengths_k in (((300, 17, 0, 64), (300, 17, 5, 64)),
                                     ((1, 300, 100), (300, 1, 100))):
            q, k, v, cu_q, cu_k = self.inputs(lengths_q, lengths_k, 4, 2,
                                              torch.bfloat16, 128)
            for t in (q, k, v):
                t.requires_grad_()
            compiled(q, k, v, cu_q, cu_k).backward()
            got = (q.grad, k.grad, v.grad)
            for t in (q, k, v):
                t.grad = None
            f(q, k, v, cu_q, cu_k).backward()
            for a, b in zip(got, (q.grad, k.grad, v.grad)):
                torch.testing.assert_close(a, b, rtol=1e-2, atol=1e-2)

    def test_opcheck(self):
        varlen_backward_or_skip(self, causal=True)
        lengths = (100, 0, 31)
        q, kv, _, cu, _ = self.inputs(lengths, lengths, 4, 2,
                                      torch.bfloat16, 128)
        o, lse = fmha.attention_varlen(q, kv, kv, cu, cu, 100, 100,
                                       causal=True, return_lse=True)
        do = torch.randn_like(o)
        for check_values, checked in ((True, False), (False, True),
                                      (False, False)):
            torch.library.opcheck(
                torch.ops.fmha.attention_varlen_backward.default,
                (q, kv, kv, o, do, lse, cu, cu, 100, 100, True, None, None,
                 check_values, checked))
        # The forward's autograd formula (q, k, v requiring gradients),
        # with lse kept or recomputed by the backward.
        args = [t.detach().clone().requires_grad_() for t in (q, kv, kv)]
        for return_lse in (True, False):
            torch.library.opcheck(
                torch.ops.fmha.attention_varlen.default,
                (*args, cu, cu, 100, 100, True, None, None, return_lse,
                 True))

    def test_empty(self):
        """No batch, no query, no key, no head: zeros, no launch."""
        varlen_backward_or_skip(self)
        call = fmha.attention_varlen_backward
        q = torch.randn(0, 4, 128, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(5, 2, 128, device="cuda", dtype=torch.bfloat16)
        lse = torch.empty(4, 0, device="cuda")
        dq, dk, dv = call(q, k, k, q, q, lse, cu_seqlens([0, 0]),
                          cu_seqlens([2, 3]), 0, 3)
        self.assertEqual(tuple(dq.shape), (0, 4, 128))
        self.assertTrue(bool((dk == 0).all()) and bool((dv == 0).all()))
        q = torch.randn(5, 4, 128, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(0, 2, 128, device="cuda", dtype=torch.bfloat16)
        lse = torch.full((4, 5), float("-inf"), device="cuda")
        dq, dk, _ = call(q, k, k, q, q, lse, cu_seqlens([5]), cu_seqlens([0]),
                         5, 0)
        self.assertTrue(bool((dq == 0).all()))
        self.assertEqual(tuple(dk.shape), (0, 2, 128))
        empty = torch.randn(0, 4, 128, device="cuda", dtype=torch.bfloat16)
        dq, dk, _ = call(empty, empty, empty, empty, empty,
                         torch.empty(4, 0, device="cuda"), cu_seqlens([]),
                         cu_seqlens([]), 0, 0)
        self.assertEqual((tuple(dq.shape), tuple(dk.shape)),
                         ((0, 4, 128), (0, 4, 128)))
        no_heads = torch.randn(5, 0, 128, device="cuda", dtype=torch.bfloat16)
        one = torch.ones(5, 1, 128, device="cuda", dtype=torch.bfloat16)
        _, dk, dv = call(no_heads, one, one, no_heads, no_heads,
                         torch.empty(0, 5, device="cuda"), cu_seqlens([5]),
                         cu_seqlens([5]), 5, 5)
        self.assertTrue(bool((dk == 0).all()) and bool((dv == 0).all()))

    def test_bad_values_unchecked(self):
        """check_values=False with bounds that do not cover the tensors:
        the launch completes without a fault and the rows outside every
        sequence get zero gradients; bounds past the tensors are clamped
        (run under compute-sanitizer to see that no access leaves
        them)."""
        varlen_backward_or_skip(self)
        q = torch.randn(100, 4, 128, device="cuda", dtype=torch.bfloat16)
        lse = torch.zeros(4, 100, device="cuda")
        short = torch.tensor([0, 40, 90], dtype=torch.int32, device="cuda")
        poison_allocator()
        grads = fmha.attention_varlen_backward(q, q, q, q, q, lse, short,
                                               short, 50, 50,
                                               check_values=False)
        torch.cuda.synchronize()
        for grad in grads:
            self.assertTrue(bool((grad[90:] == 0).all()))
            self.assertEqual(int(torch.isnan(grad).sum()), 0)
        bad = torch.tensor([0, 90, 5000, -7, 100], dtype=torch.int32,
                           device="cuda")
        fmha.attention_varlen_backward(q, q, q, q, q, lse, bad, bad, 5000,
                                       5000, check_values=False)
        torch.cuda.synchronize()

    def test_errors(self):
        q = torch.randn(10, 4, 128, device="cuda", dtype=torch.bfloat16)
        kv = torch.randn(10, 2, 128, device="cuda", dtype=torch.bfloat16)
        lse = torch.zeros(4, 10, device="cuda")
        cu = cu_seqlens([4, 6])
        call = fmha.attention_varlen_backward
        with self.assertRaisesRegex(ValueError, r"lse must be \[heads_q, "
                                    r"total_q\] = \[4, 10\], got \[10, 4\]"):
            call(q, kv, kv, q, q, lse.t().contiguous(), cu, cu, 6, 6)
        with self.assertRaisesRegex(TypeError, "lse must be float32"):
            call(q, kv, kv, q, q, lse.bfloat16(), cu, cu, 6, 6)
        with self.assertRaisesRegex(ValueError, "o must have q's shape"):
            call(q, kv, kv, q[:9], q, lse, cu, cu, 6, 6)
        with self.assertRaisesRegex(TypeError, "do must have q's dtype"):
            call(q, kv, kv, q, q.half(), lse, cu, cu, 6, 6)
        with self.assertRaisesRegex(ValueError, "must be sorted"):
            call(q, kv, kv, q, q, lse, torch.tensor(
                [0, 6, 4, 10], dtype=torch.int32, device="cuda"),
                cu_seqlens([3, 3, 4]), 10, 10)
        with self.assertRaisesRegex(ValueError, "more than max_seqlen_k"):
            call(q, kv, kv, q, q, lse, cu, cu, 6, 5)
        with self.assertRaisesRegex(ValueError, "one device"):
            call(q, kv, kv, q, q, lse.cpu(), cu, cu, 6, 6)
        big = torch.randn(10, 4, 256, device="cuda", dtype=torch.bfloat16)
        with self.assertRaisesRegex(ValueError, "head_dim must be 64 or 128"):
            call(big, big, big, big, big, lse, cu, cu, 6, 6)
        # No backward at head dim 256: raised when autograd would record
        # the forward.
        big.requires_grad_()
        with self.assertRaisesRegex(NotImplementedError, "head_dim 256 has "
                                    "no backward"):
            fmha.attention_varlen(big, big, big, cu, cu, 6, 6)


if __name__ == "__main__":
    unittest.main()
