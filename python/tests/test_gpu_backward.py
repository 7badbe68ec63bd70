"""fmha.attention_backward and autograd through fmha.attention on a Hopper
GPU, against a float64 reference.

Skipped without PyTorch, without a CUDA device of compute capability 9.0,
when a kernel is neither in the cache nor compilable here. On a machine
without the compiler, point FMHA_CACHE_DIR at a cache that
test/GPU/prepare_cache.py filled (it compiles kernel_specs() below).

Tolerances. Each gradient's error is its relative Frobenius-norm distance
to the float64 reference (below a floor of 1e-3 RMS for gradients that are
nearly zero, such as dq with a single key), not counting a difference
within the summation noise of dS where dP - D cancels
(`cancellation_noise`). The bound is derived from what
the same algorithm in the same precision gets: `emulated_backward` runs
FlashAttention's backward in PyTorch with the kernel's roundings (P and dS
rounded to the input dtype for their products, fp32 accumulation, O, dq,
dk, dv rounded to the input dtype), and where SDPA can express the mask
(no fully masked row) SDPA's math backend in the input dtype is measured
too; fmha's error must be at most twice the larger of the two, plus one
unit of the dtype's precision (torch.finfo(dtype).eps). Each case prints
its three errors with FMHA_VERBOSE=1.
"""

import itertools
import os
import sys
import unittest

try:
    import torch
except ImportError:
    torch = None

import fmha
from fmha import backward, ops

from .test_gpu_ops import NEEDS_HOPPER, compile_or_skip

# (dtype, head_dim, causal, window, scale) of the tests (and the training
# run and benchmark: bf16, 64 and 128, causal or not).
OPTIONS = [(dtype, hd, causal, None, None)
           for dtype, hd, causal in itertools.product(
               ("bf16", "f16"), (64, 128), (False, True))] + [
    ("bf16", 128, False, (64, 16), 0.05),
    ("f16", 64, True, (128, 0), None),
]
VERBOSE = os.environ.get("FMHA_VERBOSE") == "1"


def kernel_specs():
    """Every kernel these tests select: the backward's and the forward's
    with lse (what fmha.attention compiles when autograd records it; every
    candidate of its tuning, as for the forward's tests), and the forward's
    without lse (under torch.no_grad())."""
    for dtype, hd, causal, window, scale in OPTIONS:
        yield from backward.backward_kernel_specs(dtype, hd, causal, window,
                                                  scale)
        for lse in (True, False):
            yield from ops.attention_kernel_specs(dtype, hd, causal, window,
                                                  scale, lse)


def backward_or_skip(test, dtype="bf16", head_dim=128, causal=False,
                     window=None, scale=None):
    """The backward's kernels for these options (deterministic or not)
    and the forward's with lse, or a skip when one is neither in the cache
    nor compilable here."""
    for spec in backward.backward_kernel_specs(dtype, head_dim, causal,
                                               window, scale):
        compile_or_skip(test, spec)
    compile_or_skip(test, ops.attention_spec(dtype, head_dim, causal, window,
                                             scale, return_lse=True))


def _mask(sq, sk, causal, window, device):
    """True where query i does not see key j (fmha's bottom-right
    alignment)."""
    diag = torch.arange(sq, device=device)[:, None] + (sk - sq)
    cols = torch.arange(sk, device=device)[None, :]
    hidden = torch.zeros(sq, sk, dtype=torch.bool, device=device)
    if causal:
        hidden |= cols > diag
    if window is not None:
        hidden |= (cols < diag - window[0]) | (cols > diag + window[1])
    return hidden


def _probabilities(q, k, causal, window, scale, dtype):
    """P = softmax(scale q k^T) in ``dtype`` with masked entries and rows
    that see no key 0; k already repeated to q's heads."""
    s = (q.to(dtype) @ k.to(dtype).transpose(-1, -2)) * scale
    hidden = _mask(q.shape[2], k.shape[2], causal, window, q.device)
    s = s.masked_fill(hidden, float("-inf"))
    return torch.nan_to_num(torch.softmax(s, dim=-1), nan=0.0)


def _fold(x, heads_kv):
    """Sums the query heads of each group: [B, H, S, D] -> [B, HKV, S, D]."""
    b, h, s, d = x.shape
    return x.view(b, heads_kv, h // heads_kv, s, d).sum(2)


def backward_reference(q, k, v, do, causal=False, window=None, scale=None):
    """dq, dk, dv in float64 (dk, dv summed over each group of query
    heads)."""
    return _backward(q, k, v, do, causal, window, scale, torch.float64,
                     None)


def emulated_backward(q, k, v, do, causal=False, window=None, scale=None,
                      o=None):
    """The backward with a bf16/f16 kernel's roundings, in PyTorch (see the
    module's note): the baseline error of the algorithm in the dtype.
    ``o``: the forward output D is computed from (default: P V rounded);
    the kernel's own forward rounds P before P V, which moves D where
    dP - D cancels (rows that see one or two keys)."""
    return _backward(q, k, v, do, causal, window, scale, torch.float32,
                     q.dtype, o)


def _backward(q, k, v, do, causal, window, scale, compute, low, o=None):
    group = q.shape[1] // k.shape[1]
    scale = q.shape[-1] ** -0.5 if scale is None else scale
    kr = k.to(compute).repeat_interleave(group, dim=1)
    vr = v.to(compute).repeat_interleave(group, dim=1)
    qc, doc = q.to(compute), do.to(compute)

    def rounded(x):
        return x if low is None else x.to(low).to(compute)

    p = _probabilities(qc, kr, causal, window, scale, compute)
    o = rounded(p @ vr) if o is None else o.to(compute)
    pl = rounded(p)
    dv = pl.transpose(-1, -2) @ doc
    dp = doc @ vr.transpose(-1, -2)
    d = (doc * o).sum(-1, keepdim=True)
    ds = rounded(p * (dp - d))
    dq = ds @ kr * scale
    dk = ds.transpose(-1, -2) @ qc * scale
    out = (dq, _fold(dk, k.shape[1]), _fold(dv, k.shape[1]))
    return tuple(rounded(x) for x in out)


def sdpa_backward(q, k, v, do, causal=False, window=None, scale=None):
    """SDPA's math backend in q's dtype, or None where a row sees no key
    (SDPA's result there is NaN, fmha's 0)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    hidden = _mask(q.shape[2], k.shape[2], causal, window, q.device)
    if bool(hidden.all(dim=-1).any()):
        return None
    group = q.shape[1] // k.shape[1]
    qs, ks, vs = (t.detach().clone().requires_grad_() for t in (q, k, v))
    with sdpa_kernel(SDPBackend.MATH):
        o = torch.nn.functional.scaled_dot_product_attention(
            qs, ks.repeat_interleave(group, dim=1),
            vs.repeat_interleave(group, dim=1), attn_mask=~hidden,
            scale=scale)
    o.backward(do)
    return qs.grad, ks.grad, vs.grad


def grad_error(got, ref, noise=0.0):
    """(||got - ref|| - noise, at least 0) / max(||ref||, 1e-3 sqrt(numel)),
    in float64: a difference within ``noise`` (cancellation_noise) is not
    counted."""
    floor = 1e-3 * max(ref.numel(), 1) ** 0.5
    diff = max((got.double() - ref).norm().item() - noise, 0.0)
    return diff / max(ref.norm().item(), floor)


def cancellation_noise(q, k, v, do, scale=None):
    """The norms up to which dq and dk may differ by summation noise (dv
    has none):
    dS = P (dP - D) subtracts two f32 sums of head_dim products, dP by the
    MMA and D by the prep kernel, in different orders; where they cancel
    (a row that sees one key: dS is 0) what is left is about
    2^-23 * head_dim * rms(dO) * rms(V) per element, summed over the rows
    of dq = c dS K and dk = c dS^T Q. Four times that, for (dq, dk, dv)."""
    d = q.shape[-1]
    scale = d ** -0.5 if scale is None else scale

    def rms(t):
        return t.double().pow(2).mean().sqrt().item() if t.numel() else 0.0
    noise = 2.0 ** -23 * d * rms(do) * rms(v)
    group = q.shape[1] // max(k.shape[1], 1)
    per_dq = scale * k.shape[2] ** 0.5 * noise * rms(k)
    per_dk = scale * (q.shape[2] * group) ** 0.5 * noise * rms(q)
    return (4 * per_dq * q.numel() ** 0.5, 4 * per_dk * k.numel() ** 0.5,
            0.0)


def poison_allocator():
    """Fills free memory of PyTorch's caching allocator with NaN, so that
    outputs from torch.empty that a kernel leaves unwritten show."""
    torch.full((1 << 26,), float("nan"), device="cuda")


def check_grad_layout(test, grads, q, k, what=""):
    """dq shaped like q, dk and dv like k, all in q's dtype, without NaN
    (an element left unwritten in a poisoned output, or a wrong one)."""
    for i, name in enumerate(("dq", "dk", "dv")):
        got = grads[i]
        want_shape = q.shape if i == 0 else k.shape
        test.assertEqual(tuple(got.shape), tuple(want_shape), name)
        test.assertEqual(got.dtype, q.dtype, name)
        test.assertEqual(int(torch.isnan(got).sum()), 0,
                         f"{name}: NaN (unwritten or wrong) {what}")


@NEEDS_HOPPER
class BackwardTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.zeros(1, device="cuda")  # PyTorch's context first
        torch.manual_seed(0)

    def check_grads(self, grads, q, k, v, do, causal=False, window=None,
                    scale=None, what=""):
        """dq, dk, dv: shapes, dtypes, no NaN, and the error bound of the
        module's note."""
        ref = backward_reference(q, k, v, do, causal, window, scale)
        emul = emulated_backward(q, k, v, do, causal, window, scale)
        sdpa = sdpa_backward(q, k, v, do, causal, window, scale)
        eps = torch.finfo(q.dtype).eps
        noise = cancellation_noise(q, k, v, do, scale)
        check_grad_layout(self, grads, q, k, what)
        for i, name in enumerate(("dq", "dk", "dv")):
            err = grad_error(grads[i], ref[i], noise[i])
            base = grad_error(emul[i], ref[i], noise[i])
            if sdpa is not None:
                base = max(base, grad_error(sdpa[i], ref[i], noise[i]))
            bound = 2 * base + eps
            if VERBOSE:
                print(f"\n  {what} {name}: fmha {err:.2e}, baseline "
                      f"{base:.2e}, bound {bound:.2e}", file=sys.stderr)
            self.assertLessEqual(err, bound, f"{name} {what}: error {err:.3e}"
                                 f" above 2 x baseline {base:.3e} + {eps}")

    def run_case(self, b, h, hkv, sq, sk, dtype, head_dim, causal=False,
                 window=None, scale=None, deterministic=False):
        q = torch.randn(b, h, sq, head_dim, device="cuda", dtype=dtype)
        k = torch.randn(b, hkv, sk, head_dim, device="cuda", dtype=dtype)
        v = torch.randn(b, hkv, sk, head_dim, device="cuda", dtype=dtype)
        o, lse = fmha.attention(q, k, v, causal, window, scale,
                                return_lse=True)
        do = torch.randn_like(o)
        poison_allocator()
        grads = fmha.attention_backward(q, k, v, o, do, lse, causal=causal,
                                        window=window, scale=scale,
                                        deterministic=deterministic)
        torch.cuda.synchronize()
        self.check_grads(grads, q, k, v, do, causal, window, scale,
                         what=f"{(b, h, hkv, sq, sk)} {dtype} d{head_dim} "
                         f"causal={causal} window={window} "
                         f"deterministic={deterministic}")
        return q, k, v, o, do, lse, grads

    def test_shapes(self):
        """Odd lengths (1, 17, 300, 1000, 4097), seq_q above and below
        seq_k, GQA 4:1 and MQA, causal and not, both dtypes and head
        dims, dq fused (the default at head dim 64, and at 128 on 4097
        keys) and by its own kernel (deterministic)."""
        cases = [(1, 2, 2, 1, 1), (2, 4, 4, 17, 17), (1, 8, 2, 300, 1000),
                 (1, 4, 1, 1000, 300), (1, 2, 2, 4097, 4097),
                 (1, 4, 1, 17, 4097), (2, 8, 2, 1000, 1000)]
        for dtype, head_dim, causal, window, scale in OPTIONS:
            if window is not None:
                continue
            backward_or_skip(self, dtype, head_dim, causal)
            for case, det in itertools.product(cases, (False, True)):
                with self.subTest(dtype=dtype, d=head_dim, causal=causal,
                                  shape=case, deterministic=det):
                    self.run_case(*case, getattr(torch, {
                        "bf16": "bfloat16", "f16": "float16"}[dtype]),
                        head_dim, causal, deterministic=det)

    def test_windows_and_scale(self):
        for dtype, head_dim, causal, window, scale in OPTIONS:
            if window is None:
                continue
            backward_or_skip(self, dtype, head_dim, causal, window, scale)
            torch_dtype = getattr(torch, {"bf16": "bfloat16",
                                          "f16": "float16"}[dtype])
            # seq_q 500 on 300 keys: the first rows see no key (their
            # window ends before key 0); 2100 keys: head dim 128 fuses dq.
            for case, det in itertools.product(
                    ((2, 4, 2, 500, 300), (1, 4, 1, 1000, 1000),
                     (1, 2, 2, 17, 300), (1, 4, 2, 300, 2100)),
                    (False, True)):
                with self.subTest(dtype=dtype, window=window, shape=case,
                                  deterministic=det):
                    self.run_case(*case, torch_dtype, head_dim, causal,
                                  window, scale, det)

    def test_deterministic(self):
        """deterministic=True, or torch.use_deterministic_algorithms(True)
        with the default: the same bits on every run; without it (dq fused
        at head dim 64) dk and dv are still the same bits (only dq's sums
        are added in a varying order)."""
        backward_or_skip(self, head_dim=64, causal=True)
        q, k, v, o, do, lse, grads = self.run_case(
            1, 8, 2, 1000, 1000, torch.bfloat16, 64, True,
            deterministic=True)
        again = fmha.attention_backward(q, k, v, o, do, lse, causal=True,
                                        deterministic=True)
        for a, b in zip(grads, again):
            self.assertTrue(torch.equal(a, b))
        previous = torch.are_deterministic_algorithms_enabled()
        torch.use_deterministic_algorithms(True)
        try:
            by_setting = fmha.attention_backward(q, k, v, o, do, lse,
                                                 causal=True)
        finally:
            torch.use_deterministic_algorithms(previous)
        for a, b in zip(grads, by_setting):
            self.assertTrue(torch.equal(a, b))
        fused = fmha.attention_backward(q, k, v, o, do, lse, causal=True,
                                        deterministic=False)
        for a, b in zip(grads[1:], fused[1:]):
            self.assertTrue(torch.equal(a, b))
        with self.assertRaisesRegex(TypeError, "deterministic must be"):
            fmha.attention_backward(q, k, v, o, do, lse, deterministic=1)

    def test_layouts(self):
        """[B, S, H, D] views transposed to [B, H, S, D] (transformers'
        layout) are read in place; do with a zero stride (the gradient of a
        sum) is copied; lse may start at any 4-byte boundary."""
        backward_or_skip(self)
        b, s, h, hkv, d = 2, 300, 8, 2, 128
        q = torch.randn(b, s, h, d, device="cuda",
                        dtype=torch.bfloat16).transpose(1, 2)
        k = torch.randn(b, s, hkv, d, device="cuda",
                        dtype=torch.bfloat16).transpose(1, 2)
        v = torch.randn_like(k)
        o, lse = fmha.attention(q, k, v, return_lse=True)
        do = torch.randn(b, s, h, d, device="cuda",
                         dtype=torch.bfloat16).transpose(1, 2)
        grads = fmha.attention_backward(q, k, v, o, do, lse)
        self.check_grads(grads, q, k, v, do, what="transposed")
        ones = torch.ones(1, device="cuda",
                          dtype=torch.bfloat16).expand(q.shape)
        grads = fmha.attention_backward(q, k, v, o, ones, lse)
        self.check_grads(grads, q, k, v, ones, what="expanded do")
        buffer = torch.empty(lse.numel() + 1, device="cuda")
        odd = buffer[1:].view(lse.shape).copy_(lse)
        grads = fmha.attention_backward(q, k, v, o, do, odd)
        self.check_grads(grads, q, k, v, do, what="misaligned lse")

    def test_fast_path_rebinds(self):
        """The eager fast path: a second call of a layout on other tensors
        launches with their addresses."""
        backward_or_skip(self, causal=True)
        first = self.run_case(1, 4, 2, 300, 300, torch.bfloat16, 128, True)
        second = self.run_case(1, 4, 2, 300, 300, torch.bfloat16, 128, True)
        self.assertFalse(torch.equal(first[-1][0], second[-1][0]))

    def test_autograd(self):
        """loss.backward() through fmha.attention: the forward keeps lse,
        the backward runs fmha's kernels."""
        for dtype, head_dim, causal in ((torch.bfloat16, 128, True),
                                        (torch.float16, 64, False)):
            backward_or_skip(self, ops.fmha_dtype(dtype), head_dim, causal)
            q = torch.randn(2, 8, 300, head_dim, device="cuda", dtype=dtype,
                            requires_grad=True)
            k = torch.randn(2, 2, 1000, head_dim, device="cuda", dtype=dtype,
                            requires_grad=True)
            v = torch.randn(2, 2, 1000, head_dim, device="cuda", dtype=dtype,
                            requires_grad=True)
            do = torch.randn(2, 8, 300, head_dim, device="cuda", dtype=dtype)
            o = fmha.attention(q, k, v, causal=causal)
            self.assertIsNotNone(o.grad_fn)
            (o.float() * do.float()).sum().backward()
            self.check_grads((q.grad, k.grad, v.grad), q.detach(),
                             k.detach(), v.detach(), do, causal,
                             what="autograd")
            # Only v requires a gradient.
            v2 = v.detach().requires_grad_()
            fmha.attention(q.detach(), k.detach(), v2,
                           causal=causal).backward(do)
            torch.testing.assert_close(v2.grad, v.grad, rtol=0, atol=0)

    def test_cuda_graph(self):
        """A training step's attention (forward and autograd backward)
        captured in a CUDA graph and replayed on new inputs gives the
        gradients an eager step gives on them; head dim 64 takes the fused
        dQ (its f32 scratch), 128 the two kernels."""
        for head_dim in (128, 64):
            with self.subTest(head_dim=head_dim):
                self.cuda_graph_case(head_dim)

    def cuda_graph_case(self, head_dim):
        backward_or_skip(self, head_dim=head_dim, causal=True)

        def fresh(shape):
            return torch.randn(shape, device="cuda", dtype=torch.bfloat16)

        q_shape, kv_shape = (2, 4, 300, head_dim), (2, 2, 300, head_dim)
        static = [fresh(s).requires_grad_()
                  for s in (q_shape, kv_shape, kv_shape)]
        do = fresh(q_shape)

        def step():
            o = fmha.attention(*static, causal=True)
            return torch.autograd.grad(o, static, do)

        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(2):
                step()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            captured = step()
        with torch.no_grad():
            for t, shape in zip(static, (q_shape, kv_shape, kv_shape)):
                t.copy_(fresh(shape))
            do.copy_(fresh(q_shape))
        graph.replay()
        torch.cuda.synchronize()
        want = step()
        for got, ref in zip(captured, want):
            torch.testing.assert_close(got, ref, rtol=1e-2, atol=1e-2)

    def test_lse_not_differentiable(self):
        backward_or_skip(self, causal=True)
        q = torch.randn(1, 4, 100, 128, device="cuda", dtype=torch.bfloat16,
                        requires_grad=True)
        o, lse = fmha.attention(q, q, q, causal=True, return_lse=True)
        self.assertFalse(lse.requires_grad)
        self.assertTrue(o.requires_grad)

    def test_eager_path_matches_custom_op(self):
        """An eager call autograd records takes the autograd.Function over
        the bound launches (fmha.backward.attention_recorded); its outputs
        and gradients are the custom op's, bit for bit, and
        only the inputs that require a gradient get one."""
        backward_or_skip(self, causal=True)
        q = torch.randn(2, 4, 300, 128, device="cuda", dtype=torch.bfloat16,
                        requires_grad=True)
        k = torch.randn(2, 2, 301, 128, device="cuda", dtype=torch.bfloat16,
                        requires_grad=True)
        v = torch.randn(2, 2, 301, 128, device="cuda", dtype=torch.bfloat16)
        do = torch.randn(2, 4, 300, 128, device="cuda", dtype=torch.bfloat16)
        # Head dim 128: dq by a kernel of its own, the same bits every run.
        o, lse = fmha.attention(q, k, v, causal=True, return_lse=True)
        self.assertIn("Attention", type(o.grad_fn).__name__)
        self.assertFalse(lse.requires_grad)
        got = torch.autograd.grad(o, (q, k), do)
        ref_o, ref_lse = torch.ops.fmha.attention(q, k, v, True, None, None,
                                                  True)
        self.assertIn("fmha_attention", type(ref_o.grad_fn).__name__)
        ref = torch.autograd.grad(ref_o, (q, k), do)
        self.assertTrue(torch.equal(o, ref_o))
        self.assertTrue(torch.equal(lse, ref_lse))
        for a, b in zip(got, ref):
            self.assertTrue(torch.equal(a, b))
        # Only v needs a gradient: q and k get none.
        q2, k2 = q.detach(), k.detach()
        v2 = v.detach().clone().requires_grad_()
        (dv,) = torch.autograd.grad(fmha.attention(q2, k2, v2, causal=True),
                                    (v2,), do)
        self.assertTrue(torch.isfinite(dv).all())
        self.assertIsNone(q2.grad)

    def test_fullgraph(self):
        """torch.compile(fullgraph=True) of a forward and backward, against
        the eager gradients; head dim 64 takes the fused dQ (a scratch
        allocated per call), 128 the two kernels."""
        for head_dim in (128, 64):
            with self.subTest(head_dim=head_dim):
                self.fullgraph_case(head_dim)

    def fullgraph_case(self, head_dim):
        backward_or_skip(self, head_dim=head_dim, causal=True)
        torch._dynamo.reset()

        def f(q, k, v):
            return fmha.attention(q, k, v, causal=True).float().square().sum()

        compiled = torch.compile(f, fullgraph=True)
        for sq, sk in ((100, 130), (257, 64)):
            q = torch.randn(1, 4, sq, head_dim, device="cuda",
                            dtype=torch.bfloat16, requires_grad=True)
            k = torch.randn(1, 2, sk, head_dim, device="cuda",
                            dtype=torch.bfloat16, requires_grad=True)
            v = torch.randn(1, 2, sk, head_dim, device="cuda",
                            dtype=torch.bfloat16, requires_grad=True)
            compiled(q, k, v).backward()
            got = (q.grad, k.grad, v.grad)
            for t in (q, k, v):
                t.grad = None
            f(q, k, v).backward()
            for a, b in zip(got, (q.grad, k.grad, v.grad)):
                torch.testing.assert_close(a, b, rtol=1e-2, atol=1e-2)

    def test_opcheck(self):
        backward_or_skip(self, causal=True)
        backward_or_skip(self, head_dim=64, causal=True)
        q = torch.randn(1, 4, 100, 128, device="cuda", dtype=torch.bfloat16)
        kv = torch.randn(1, 2, 130, 128, device="cuda", dtype=torch.bfloat16)
        o, lse = fmha.attention(q, kv, kv, causal=True, return_lse=True)
        do = torch.randn_like(o)
        # Head dim 64 not deterministic: the fused dQ (dq_acc).
        q64, kv64 = q[..., :64].contiguous(), kv[..., :64].contiguous()
        o64, lse64 = fmha.attention(q64, kv64, kv64, causal=True,
                                    return_lse=True)
        for args, deterministic in (((q, kv, kv, o, do, lse), False),
                                    ((q, kv, kv, o, do, lse), True),
                                    ((q64, kv64, kv64, o64,
                                      torch.randn_like(o64), lse64), False)):
            torch.library.opcheck(torch.ops.fmha.attention_backward.default,
                                  (*args, True, None, None, deterministic))
        # The forward's autograd formula (q, k, v requiring gradients).
        args = [t.detach().clone().requires_grad_() for t in (q, kv, kv)]
        torch.library.opcheck(torch.ops.fmha.attention.default,
                              (*args, True, None, None, True))
        torch.library.opcheck(torch.ops.fmha.attention.default,
                              (*args, True, None, None, False))

    def test_empty(self):
        backward_or_skip(self)
        q = torch.randn(1, 2, 0, 128, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(1, 2, 5, 128, device="cuda", dtype=torch.bfloat16)
        lse = torch.empty(1, 2, 0, device="cuda")
        dq, dk, dv = fmha.attention_backward(q, k, k, q, q, lse)
        self.assertEqual(dq.shape, q.shape)
        self.assertTrue(bool((dk == 0).all()) and bool((dv == 0).all()))

    def test_errors(self):
        q = torch.randn(1, 4, 64, 128, device="cuda", dtype=torch.bfloat16)
        kv = torch.randn(1, 2, 64, 128, device="cuda", dtype=torch.bfloat16)
        lse = torch.zeros(1, 4, 64, device="cuda")
        with self.assertRaisesRegex(TypeError, "lse must be float32"):
            fmha.attention_backward(q, kv, kv, q, q, lse.bfloat16())
        with self.assertRaisesRegex(ValueError, "lse must be \\[batch, "
                                    "heads_q, seq_q\\]"):
            fmha.attention_backward(q, kv, kv, q, q, lse[:, :, :10])
        with self.assertRaisesRegex(ValueError, "do must have q's shape"):
            fmha.attention_backward(q, kv, kv, q, q[:, :, :10], lse)
        three = kv[:, :1].expand(1, 3, 64, 128)
        with self.assertRaisesRegex(ValueError, "must be a multiple of "
                                    "heads_kv"):
            fmha.attention_backward(q, three, three, q, q, lse)
        with self.assertRaisesRegex(ValueError, "one device"):
            fmha.attention_backward(q, kv, kv, q, q, lse.cpu())
        with self.assertRaisesRegex(ValueError, "head_dim must be 64 or 128"):
            big = torch.randn(1, 4, 64, 256, device="cuda",
                              dtype=torch.bfloat16)
            fmha.attention_backward(big, big, big, big, big, lse)
        # No backward: raised when autograd would record the call.
        big = torch.randn(1, 4, 64, 256, device="cuda", dtype=torch.bfloat16,
                          requires_grad=True)
        with self.assertRaisesRegex(NotImplementedError, "head_dim 256 has "
                                    "no backward"):
            fmha.attention(big, big, big)
        fp8 = q.to(torch.float8_e4m3fn)
        try:
            fp8.requires_grad_()
        except RuntimeError:
            pass  # a PyTorch without gradients of fp8 tensors
        else:
            one = torch.ones(1, device="cuda")
            with self.assertRaisesRegex(NotImplementedError, "fp8 "
                                        "attention has no backward"):
                fmha.attention(fp8, fp8, fp8, descale_q=one, descale_k=one,
                               descale_v=one)
        # fmha.attention_varlen is differentiable too
        # (test_gpu_backward_varlen.py), but not at head dim 256.
        packed = torch.randn(64, 4, 256, device="cuda", dtype=torch.bfloat16,
                             requires_grad=True)
        cu = torch.tensor([0, 64], device="cuda", dtype=torch.int32)
        with self.assertRaisesRegex(NotImplementedError, "head_dim 256 has "
                                    "no backward"):
            fmha.attention_varlen(packed, packed, packed, cu, cu, 64, 64)


@NEEDS_HOPPER
class TrainingTest(unittest.TestCase):
    def test_llama_steps_match_sdpa(self):
        """Five training steps of a small transformers Llama (GQA, head dim
        128, bf16) with fmha's attention and with SDPA from one seed: the
        losses agree to bf16 noise (bench/train_llama.py runs 100 steps and
        measures that noise)."""
        try:
            import transformers  # noqa: F401
        except ImportError:
            self.skipTest("needs transformers")
        backward_or_skip(self, causal=True)
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
            os.path.dirname(os.path.abspath(__file__)))), "bench"))
        import train_llama
        import fmha.integrations.transformers as integration
        calls = integration.CALLS["fmha"]
        ours = train_llama.train("fmha", 5)
        self.assertGreater(integration.CALLS["fmha"], calls)
        theirs = train_llama.train("sdpa", 5)
        self.assertLess(train_llama.max_diff(ours, theirs), 2e-2,
                        f"fmha {ours} sdpa {theirs}")
        self.assertLess(ours[-1], ours[0])


if __name__ == "__main__":
    unittest.main()
