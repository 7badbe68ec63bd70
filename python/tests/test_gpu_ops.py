"""fmha.gemm and fmha.attention on a Hopper GPU, against PyTorch.

Skipped without PyTorch, without a CUDA device of compute capability 9.0,
or when a kernel is neither in the cache nor compilable here. On a machine
without the compiler, point FMHA_CACHE_DIR at a cache warmed elsewhere:

    fmha compile gemm --dtype bf16 && fmha compile gemm --dtype f16 && \\
    fmha compile gemm --dtype bf16 --out-dtype f32 && \\
    fmha compile gemm --dtype f16 --out-dtype f32

and the attention kernels AttentionTest uses (fmha compile attention ...
with the options of each attention_or_skip call, --lse for return_lse).
"""

import os
import subprocess
import sys
import time
import unittest

try:
    import torch
except ImportError:
    torch = None

import fmha
from fmha import ops, torch_ops, tuning

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOPPER = (torch is not None and torch.cuda.is_available()
          and torch.cuda.get_device_capability() == (9, 0))
NEEDS_HOPPER = unittest.skipUnless(
    HOPPER, "needs PyTorch and a CUDA device of compute capability 9.0")

# Odd sizes on purpose: K or N not a multiple of 8 takes the padded paths.
SIZES = [(1, 1, 1), (1, 8, 8), (3, 5, 7), (17, 33, 65), (129, 257, 63),
         (255, 129, 1000), (300, 200, 64), (1000, 1000, 1000),
         (4097, 129, 4100), (64, 4100, 130), (2, 3000, 17)]


def kernel_or_skip(test, dtype, out_dtype):
    return compile_or_skip(test, ops.gemm_spec(dtype, out_dtype))


class Poisoned:
    """Makes fmha.gemm's outputs start as NaN, with a sentinel in the row
    padding, to catch unwritten elements and stray writes past N.

    The kernel's TMA store writes whole 16-byte pieces of a row: the
    elements from N up to the next 16-byte boundary, which fmha.gemm's
    padding covers, come back as zeros (see test_tma_store_granularity).
    Anything else there is a stray write."""

    SENTINEL = 7.0

    def __enter__(self):
        self.original = torch_ops.gemm_output
        self.outputs = []

        def poisoned(torch_, m, n, dtype, device):
            c = self.original(torch_, m, n, dtype, device)
            stride = c.stride(0)
            if m and stride > n:
                torch.as_strided(c, (m, stride), (stride, 1)) \
                    .fill_(self.SENTINEL)
            c.fill_(float("nan"))
            self.outputs.append(c)
            return c

        torch_ops.gemm_output = poisoned
        return self

    def __exit__(self, *exc):
        torch_ops.gemm_output = self.original

    def padding_intact(self, c):
        m, n = c.shape
        stride = c.stride(0)
        if m == 0 or stride == n:
            return True
        full = torch.as_strided(c, (m, stride), (stride, 1))
        pad = full[:, n:]
        return bool(((pad == self.SENTINEL) | (pad == 0)).all())


def rel_err(c, ref):
    return ((c.float() - ref).norm() / ref.norm().clamp_min(1e-30)).item()


@NEEDS_HOPPER
class GemmTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.zeros(1, device="cuda")  # PyTorch's context first
        torch.manual_seed(0)

    def check(self, a, b, out_dtype=None, tol=1e-2):
        with Poisoned() as p:
            c = fmha.gemm(a, b, out_dtype)
        torch.cuda.synchronize()
        ref = a.reshape(-1, a.shape[-1]).float() @ b.float().t()
        ref = ref.reshape(*a.shape[:-1], b.shape[0])
        self.assertEqual(c.shape, ref.shape)
        self.assertEqual(c.dtype, out_dtype or a.dtype)
        self.assertEqual(int(torch.isnan(c).sum()), 0, "unwritten elements")
        if ref.numel():
            self.assertLess(rel_err(c, ref), tol)
        rows = c.reshape(-1, c.shape[-1]) if c.dim() > 2 else c
        self.assertTrue(p.padding_intact(rows), "stray write in the padding")
        self.assertEqual(rows.stride(0) * c.element_size() % 16, 0)
        self.assertGreaterEqual(rows.untyped_storage().nbytes(),
                                rows.shape[0] * rows.stride(0)
                                * c.element_size())
        return c

    def test_random_odd_sizes(self):
        for dtype, out_dtype, tol in (
                (torch.bfloat16, None, 1e-2), (torch.float16, None, 5e-3),
                (torch.bfloat16, torch.float32, 1e-4),
                (torch.float16, torch.float32, 1e-4)):
            kernel_or_skip(self, ops.fmha_dtype(dtype),
                           ops.fmha_dtype(out_dtype or dtype))
            gen = torch.Generator().manual_seed(1)
            sizes = SIZES + [tuple(int(x) * 2 + 1 for x in
                                   torch.randint(0, 700, (3,), generator=gen))
                             for _ in range(4)]
            for m, n, k in sizes:
                with self.subTest(dtype=dtype, out=out_dtype, m=m, n=n, k=k):
                    a = torch.randn(m, k, device="cuda").to(dtype)
                    b = torch.randn(n, k, device="cuda").to(dtype)
                    self.check(a, b, out_dtype, tol)

    def test_thin_rows(self):
        """A few rows of A (a decode step's tokens times a weight): the
        table's swapped kernels (C^T = B A^T, split-K among them), with B
        as [N, K] and as [K, N]."""
        kernel_or_skip(self, "bf16", "bf16")
        config = tuning.choose(("gemm",), (7, 8192, 4096))
        self.assertTrue(config.get("swap_ab"), config)
        for m, n, k in ((7, 8192, 4096), (13, 4000, 4096), (1, 14336, 1000),
                        (16, 4096, 4104), (40, 8200, 4096), (5, 4096, 14336)):
            with self.subTest(m=m, n=n, k=k):
                a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
                b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
                self.check(a, b)
                with Poisoned():
                    c = fmha.gemm(a, b.t().contiguous(), b_transposed=False)
                torch.cuda.synchronize()
                self.assertLess(rel_err(c, a.float() @ b.float().t()), 1e-2)

    def test_thin_rows_odd_columns(self):
        """The swapped split-K kernels of thin rows when N is not a
        multiple of 4: their f32 workspace rows are padded to whole 16-byte
        vectors (the stress test's 2 x 62 x 4096 faulted on a misaligned
        vector, and 2 x 2 x 64 gave C = 0, before)."""
        for dtype, out_dtype, tol in ((torch.float16, torch.float32, 1e-4),
                                      (torch.bfloat16, None, 1e-2)):
            kernel_or_skip(self, ops.fmha_dtype(dtype),
                           ops.fmha_dtype(out_dtype or dtype))
            for m, n, k in ((2, 62, 4096), (2, 2, 64), (7, 4001, 4096),
                            (3, 4099, 1000)):
                with self.subTest(dtype=dtype, out=out_dtype, m=m, n=n, k=k):
                    a = torch.randn(m, k, device="cuda").to(dtype)
                    b = torch.randn(n, k, device="cuda").to(dtype)
                    self.check(a, b, out_dtype, tol)

    def test_tma_store_granularity(self):
        """What the kernel writes past N in a row: zeros up to the next
        16-byte boundary (the TMA store's granule), nothing beyond. So a C
        that is a column slice of a wider tensor gets the neighbouring
        columns up to that boundary zeroed: fmha.gemm's outputs own their
        padding; callers of the runtime must leave it free."""
        compiled = kernel_or_skip(self, "bf16", "bf16")
        a = torch.randn(300, 64, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(133, 64, device="cuda", dtype=torch.bfloat16)
        base = torch.full((300, 160), 7.0, device="cuda",
                          dtype=torch.bfloat16)
        c = base[:, :133]
        compiled(a=a, b=b, c=c)
        torch.cuda.synchronize()
        self.assertLess(rel_err(c, a.float() @ b.float().t()), 1e-2)
        granule = base[:, 133:136]      # up to 136 * 2 bytes = 17 x 16
        beyond = base[:, 136:]
        print(f"\n  past N: {granule[0].tolist()} then "
              f"{beyond[0, :4].tolist()}...", file=sys.stderr)
        self.assertTrue(bool(((granule == 0) | (granule == 7)).all()))
        self.assertTrue(bool((beyond == 7).all()), "wrote past the granule")

    def test_layouts(self):
        kernel_or_skip(self, "bf16", "bf16")
        x = torch.randn(2, 3, 96, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(80, 96, device="cuda", dtype=torch.bfloat16)
        self.check(x, w)                           # leading dimensions
        at = torch.randn(96, 50, device="cuda", dtype=torch.bfloat16)
        self.check(at.t(), w)                      # a not row-major
        wide = torch.randn(80, 200, device="cuda", dtype=torch.bfloat16)
        self.check(x, wide[:, 8:104])              # b a strided slice
        self.check(x[..., 1:], wide[:, 8:103])     # misaligned start

    def test_empty(self):
        kernel_or_skip(self, "bf16", "bf16")
        for m, n, k in ((0, 8, 8), (8, 0, 8), (8, 8, 0)):
            a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
            c = fmha.gemm(a, b)
            self.assertEqual(tuple(c.shape), (m, n))
            self.assertTrue(bool((c == 0).all()))

    def test_stream(self):
        kernel_or_skip(self, "bf16", "bf16")
        a = torch.randn(1000, 512, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(700, 512, device="cuda", dtype=torch.bfloat16)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            c = fmha.gemm(a, b)
        s.synchronize()
        self.assertLess(rel_err(c, a.float() @ b.float().t()), 1e-2)

    def test_errors(self):
        a = torch.randn(8, 16, device="cuda", dtype=torch.bfloat16)
        with self.assertRaisesRegex(Exception, r"b \[K, N\] = \[8, 16\]"
                                    r".*K differ"):
            fmha.gemm(a, a, b_transposed=False)
        with self.assertRaisesRegex(TypeError, "must match"):
            fmha.gemm(a, a.half())
        with self.assertRaisesRegex(ValueError, "CUDA tensors"):
            fmha.gemm(a.cpu(), a.cpu())

    def test_autograd(self):
        kernel_or_skip(self, "bf16", "bf16")
        a = torch.randn(64, 32, device="cuda", dtype=torch.bfloat16,
                        requires_grad=True)
        b = torch.randn(48, 32, device="cuda", dtype=torch.bfloat16,
                        requires_grad=True)
        fmha.gemm(a, b).float().sum().backward()
        a2 = a.detach().clone().requires_grad_()
        b2 = b.detach().clone().requires_grad_()
        (a2 @ b2.t()).float().sum().backward()
        self.assertLess(rel_err(a.grad, a2.grad.float()), 1e-2)
        self.assertLess(rel_err(b.grad, b2.grad.float()), 1e-2)

    def test_opcheck(self):
        kernel_or_skip(self, "bf16", "bf16")
        kernel_or_skip(self, "bf16", "f32")
        for m, n, k, out in ((64, 48, 32, None), (33, 17, 24, torch.float32)):
            a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
            torch.library.opcheck(torch.ops.fmha.gemm.default, (a, b, out))

    def test_repeated_launch_uses_the_cache(self):
        compiled = kernel_or_skip(self, "bf16", "bf16")
        k = compiled.kernel
        a = torch.randn(512, 256, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(384, 256, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(512, 384, device="cuda", dtype=torch.bfloat16)
        k.clear_cache()
        for _ in range(10):
            compiled(a=a, b=b, c=c)
        torch.cuda.synchronize()
        self.assertEqual(k.cache_info()["launches"]["hits"], 9)
        self.assertLess(rel_err(c, a.float() @ b.float().t()), 1e-2)
        # Host time per call on the same tensors (printed, loosely bound).
        n = 2000
        t = time.perf_counter()
        for _ in range(n):
            k(a=a, b=b, c=c)
        cached = (time.perf_counter() - t) / n * 1e6
        t = time.perf_counter()
        for _ in range(200):
            k.prepare({"a": a, "b": b, "c": c})
        full = (time.perf_counter() - t) / 200 * 1e6
        torch.cuda.synchronize()
        print(f"\n  Kernel launch host time: {cached:.1f} us cached, "
              f"{full:.1f} us for the full checks", file=sys.stderr)
        self.assertLess(cached, full)


@NEEDS_HOPPER
class TorchCompileTest(unittest.TestCase):
    def test_fullgraph(self):
        kernel_or_skip(self, "bf16", "bf16")

        class Tiny(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.w1 = torch.nn.Parameter(torch.randn(
                    200, 96, device="cuda", dtype=torch.bfloat16) * 0.1)
                self.w2 = torch.nn.Parameter(torch.randn(
                    64, 200, device="cuda", dtype=torch.bfloat16) * 0.1)

            def forward(self, x):
                h = torch.relu(fmha.gemm(x, self.w1))
                return fmha.gemm(h, self.w2) * 2

        model = Tiny()
        compiled = torch.compile(model, fullgraph=True, dynamic=True)
        with torch.no_grad():
            for m in (100, 37, 256):
                x = torch.randn(m, 96, device="cuda", dtype=torch.bfloat16)
                got = compiled(x)
                want = model(x)
                torch.cuda.synchronize()
                self.assertEqual(got.shape, (m, 64))
                self.assertLess(rel_err(got, want.float()), 2e-2)

    def test_first_use_inside_compile(self):
        """A fresh process whose first fmha.gemm call is traced (fmha
        imported before torch, as import sorting does)."""
        kernel_or_skip(self, "bf16", "bf16")
        code = (
            "import fmha, torch\n"
            "f = torch.compile(lambda x, w: fmha.gemm(x, w).float() * 2,\n"
            "                  fullgraph=True)\n"
            "x = torch.randn(50, 64, device='cuda', dtype=torch.bfloat16)\n"
            "w = torch.randn(30, 64, device='cuda', dtype=torch.bfloat16)\n"
            "got = f(x, w)\n"
            "want = (x.float() @ w.float().t()) * 2\n"
            "err = ((got - want).norm() / want.norm()).item()\n"
            "assert got.shape == (50, 30) and err < 1e-2, err\n"
            "print('ok')\n")
        r = subprocess.run([sys.executable, "-c", code], capture_output=True,
                           text=True, timeout=600,
                           env=dict(os.environ, PYTHONPATH=ROOT))
        self.assertEqual(r.returncode, 0, r.stderr[-3000:])
        self.assertIn("ok", r.stdout)


def compile_or_skip(test, spec):
    """Compiles ``spec`` (or finds it in the cache), or skips ``test`` when
    it is neither in the cache nor compilable here."""
    try:
        return fmha.compile(spec)
    except fmha.CompileError as e:
        if e.step == "tools":
            test.skipTest(f"{spec.name} is not in the cache and there is "
                          f"no compiler (FMHA_CACHE_DIR)")
        raise


def attention_or_skip(test, dtype="bf16", head_dim=128, **options):
    """The kernel fmha.attention compiles for these options, or a skip when
    it is neither in the cache nor compilable here."""
    return compile_or_skip(test, ops.attention_spec(dtype, head_dim,
                                                    **options))


def attention_reference(q, k, v, causal=False, window=None, scale=None):
    """o and lse in float64 with fmha's masks (bottom-right aligned);
    rows that see no key: o = 0, lse = -inf."""
    group = q.shape[1] // k.shape[1]
    kd = k.double().repeat_interleave(group, dim=1)
    vd = v.double().repeat_interleave(group, dim=1)
    scale = 1.0 / q.shape[-1] ** 0.5 if scale is None else scale
    s = q.double() @ kd.transpose(-1, -2) * scale
    sq, sk = q.shape[2], k.shape[2]
    diag = torch.arange(sq, device=q.device)[:, None] + (sk - sq)
    cols = torch.arange(sk, device=q.device)[None, :]
    hidden = torch.zeros(sq, sk, dtype=torch.bool, device=q.device)
    if causal:
        hidden |= cols > diag
    if window is not None:
        hidden |= (cols < diag - window[0]) | (cols > diag + window[1])
    s = s.masked_fill(hidden, float("-inf"))
    p = torch.nan_to_num(torch.softmax(s, dim=-1))
    return p @ vd, torch.logsumexp(s, dim=-1)


@NEEDS_HOPPER
class AttentionTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.zeros(1, device="cuda")  # PyTorch's context first
        torch.manual_seed(0)

    def check(self, q, k, v, tol=2e-2, **options):
        """fmha.attention with and without lse against the reference; the
        outputs come from fresh torch.empty buffers, so poison the caching
        allocator's memory first."""
        torch.full((1 << 24,), float("nan"), device="cuda")
        o, lse = fmha.attention(q, k, v, return_lse=True, **options)
        o_only = fmha.attention(q, k, v, **options)
        torch.cuda.synchronize()
        ref, ref_lse = attention_reference(q, k, v, **options)
        for out in (o, o_only):
            self.assertEqual(out.shape, q.shape)
            self.assertEqual(out.dtype, q.dtype)
            self.assertEqual(int(torch.isnan(out).sum()), 0, "unwritten o")
            if ref.numel():
                self.assertLess(rel_err(out, ref), tol)
        self.assertEqual((lse.shape, lse.dtype), (q.shape[:3], torch.float32))
        empty = torch.isinf(ref_lse)
        self.assertTrue(bool((o[empty] == 0).all()), "o of an empty row")
        self.assertTrue(bool(torch.isneginf(lse[empty]).all()),
                        "lse of an empty row")
        self.assertEqual(int(torch.isnan(lse).sum()), 0, "unwritten lse")
        if (~empty).any():
            err = (lse.double() - ref_lse)[~empty].abs().max().item()
            self.assertLess(err, 1e-3)
        return o, lse

    def test_shapes(self):
        """Odd lengths, GQA and MQA, seq_q above and below seq_k, causal
        and not, both dtypes and head dims."""
        cases = [(2, 4, 4, 128, 128), (1, 8, 2, 1000, 1000),
                 (2, 4, 1, 17, 300), (1, 2, 2, 1, 1), (1, 4, 4, 301, 77),
                 (1, 2, 1, 77, 301), (3, 6, 3, 257, 513)]
        for dtype, head_dim in ((torch.bfloat16, 128), (torch.float16, 64)):
            for causal in (False, True):
                attention_or_skip(self, ops.fmha_dtype(dtype), head_dim,
                                  causal=causal)
                attention_or_skip(self, ops.fmha_dtype(dtype), head_dim,
                                  causal=causal, return_lse=True)
                for b, h, hkv, sq, sk in cases:
                    with self.subTest(dtype=dtype, d=head_dim, causal=causal,
                                      shape=(b, h, hkv, sq, sk)):
                        q = torch.randn(b, h, sq, head_dim, device="cuda",
                                        dtype=dtype)
                        k = torch.randn(b, hkv, sk, head_dim, device="cuda",
                                        dtype=dtype)
                        v = torch.randn_like(k)
                        self.check(q, k, v, causal=causal)

    def test_growing_scores(self):
        """Scores that rise along the keys, so that the row max grows from
        key block to key block: by less than the conditional rescaling's
        threshold per block (the reference stays behind the max and P
        reaches 2^8), by more, and in one jump past the middle; causal and
        not, odd lengths. Head dim 256 rescales conditionally, 64 does
        not."""
        for dtype, head_dim in ((torch.bfloat16, 256), (torch.float16, 64)):
            for causal in (False, True):
                attention_or_skip(self, ops.fmha_dtype(dtype), head_dim,
                                  causal=causal)
                attention_or_skip(self, ops.fmha_dtype(dtype), head_dim,
                                  causal=causal, return_lse=True)
            for rise, sk, jump in ((40.0, 1000, 0.0), (300.0, 777, 0.0),
                                   (12.0, 2001, 0.0), (0.0, 900, 30.0)):
                # s[i, j] = rise * j / sk (+ jump past the middle), in
                # natural-log units after the 1/sqrt(head_dim) scale.
                keys = torch.arange(sk, device="cuda", dtype=torch.float64)
                level = rise * keys / sk + jump * (keys >= sk // 2)
                k = torch.randn(2, 2, sk, head_dim, device="cuda",
                                dtype=torch.float64) * 0.1
                k[..., 0] += level * head_dim ** 0.5
                q = torch.randn(2, 4, 333, head_dim, device="cuda",
                                dtype=torch.float64) * 0.1
                q[..., 0] = 1.0
                v = torch.randn(2, 2, sk, head_dim, device="cuda")
                q, k, v = (t.to(dtype) for t in (q, k, v))
                for causal in (False, True):
                    with self.subTest(dtype=dtype, rise=rise, sk=sk,
                                      jump=jump, causal=causal):
                        self.check(q, k, v, causal=causal)

    def test_many_single_tile_items(self):
        """A persistent CTA walking several work items of one key tile each
        (the pipelined loop runs no iteration), the two consumers' masks
        differing (seq_q < seq_k, causal): the ping-pong barriers once let
        one consumer run an item ahead and the kernel hung. 864 items, 6-7
        per CTA on 132 SMs."""
        for dtype, head_dim in ((torch.float16, 64), (torch.bfloat16, 128)):
            attention_or_skip(self, ops.fmha_dtype(dtype), head_dim,
                              causal=True, return_lse=True)
            for sq, sk in ((45, 128), (100, 128), (45, 200)):
                with self.subTest(dtype=dtype, d=head_dim, shape=(sq, sk)):
                    q = torch.randn(18, 48, sq, head_dim, device="cuda",
                                    dtype=dtype)
                    k = torch.randn(18, 24, sk, head_dim, device="cuda",
                                    dtype=dtype)
                    v = torch.randn_like(k)
                    self.check(q, k, v, causal=True)

    def test_window_and_scale(self):
        attention_or_skip(self, window=(64, 16), scale=0.05)
        attention_or_skip(self, window=(64, 16), scale=0.05, return_lse=True)
        q = torch.randn(2, 4, 500, 128, device="cuda", dtype=torch.bfloat16)
        kv = torch.randn(2, 2, 300, 128, device="cuda", dtype=torch.bfloat16)
        # Query i's diagonal is key i - 200: rows 0..183 see no key (their
        # window ends before key 0).
        _, lse = self.check(q, kv, kv, window=(64, 16), scale=0.05)
        self.assertGreater(int(torch.isneginf(lse).sum()), 0)

    def test_layouts(self):
        """[B, S, H, D] tensors transposed to [B, H, S, D] are read in place;
        a misaligned start or a non-unit innermost stride is copied."""
        attention_or_skip(self, causal=True)
        attention_or_skip(self, causal=True, return_lse=True)
        x = torch.randn(2, 200, 8, 128, device="cuda", dtype=torch.bfloat16)
        y = torch.randn(2, 300, 2, 128, device="cuda", dtype=torch.bfloat16)
        q, k = x.transpose(1, 2), y.transpose(1, 2)
        self.check(q, k, k, causal=True)
        flat = torch.randn(2 * 8 * 200 * 128 + 1, device="cuda",
                           dtype=torch.bfloat16)
        misaligned = flat[1:].view(2, 8, 200, 128)
        self.check(misaligned, k, k, causal=True)
        wide = torch.randn(2, 2, 300, 256, device="cuda",
                           dtype=torch.bfloat16)
        self.check(q, wide[..., ::2], wide[..., 1::2], causal=True)

    def test_empty(self):
        attention_or_skip(self, return_lse=True)
        q = torch.randn(1, 2, 5, 128, device="cuda", dtype=torch.bfloat16)
        kv = torch.randn(1, 2, 0, 128, device="cuda", dtype=torch.bfloat16)
        o, lse = fmha.attention(q, kv, kv, return_lse=True)
        self.assertTrue(bool((o == 0).all()))
        self.assertTrue(bool(torch.isneginf(lse).all()))
        q0 = torch.randn(0, 2, 5, 128, device="cuda", dtype=torch.bfloat16)
        k0 = torch.randn(0, 2, 7, 128, device="cuda", dtype=torch.bfloat16)
        o, lse = fmha.attention(q0, k0, k0, return_lse=True)
        self.assertEqual((tuple(o.shape), tuple(lse.shape)),
                         ((0, 2, 5, 128), (0, 2, 5)))

    def test_stream(self):
        attention_or_skip(self)
        q = torch.randn(2, 4, 1000, 128, device="cuda", dtype=torch.bfloat16)
        kv = torch.randn(2, 4, 1000, 128, device="cuda", dtype=torch.bfloat16)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            o = fmha.attention(q, kv, kv)
        s.synchronize()
        self.assertLess(rel_err(o, attention_reference(q, kv, kv)[0]), 2e-2)

    def test_errors(self):
        q = torch.randn(1, 4, 64, 128, device="cuda", dtype=torch.bfloat16)
        kv = torch.randn(1, 3, 64, 128, device="cuda", dtype=torch.bfloat16)
        with self.assertRaisesRegex(ValueError, "multiple of heads_kv"):
            fmha.attention(q, kv, kv)
        with self.assertRaisesRegex(TypeError, "one dtype"):
            fmha.attention(q, q.half(), q.half())
        with self.assertRaisesRegex(ValueError, "head_dim must be one of"):
            x = torch.randn(1, 4, 64, 96, device="cuda", dtype=torch.bfloat16)
            fmha.attention(x, x, x)
        with self.assertRaisesRegex(ValueError, "CUDA tensors"):
            fmha.attention(q.cpu(), q.cpu(), q.cpu())
        with self.assertRaisesRegex(ValueError, "right must be 0"):
            fmha.attention(q, q, q, causal=True, window=(8, 8))

    def test_opcheck(self):
        attention_or_skip(self, causal=True, return_lse=True)
        q = torch.randn(1, 4, 100, 128, device="cuda", dtype=torch.bfloat16)
        kv = torch.randn(1, 2, 130, 128, device="cuda", dtype=torch.bfloat16)
        torch.library.opcheck(torch.ops.fmha.attention.default,
                              (q, kv, kv, True, None, None, True))

    def test_fullgraph(self):
        attention_or_skip(self, causal=True)
        attention_or_skip(self, causal=True, return_lse=True)

        def f(q, k, v):
            o, lse = fmha.attention(q, k, v, causal=True, return_lse=True)
            return o.float() * 2 + fmha.attention(q, k, v, causal=True), lse

        graphs = []

        def backend(gm, inputs):
            graphs.append(gm)
            return gm.forward

        compiled = torch.compile(f, fullgraph=True, backend=backend,
                                 dynamic=True)
        for sq, sk in ((100, 130), (257, 64)):
            q = torch.randn(1, 4, sq, 128, device="cuda",
                            dtype=torch.bfloat16)
            kv = torch.randn(1, 2, sk, 128, device="cuda",
                             dtype=torch.bfloat16)
            got, lse = compiled(q, kv, kv)
            ref, ref_lse = attention_reference(q, kv, kv, causal=True)
            torch.cuda.synchronize()
            self.assertLess(rel_err(got, ref * 3), 2e-2)
            finite = ~torch.isinf(ref_lse)
            self.assertLess((lse.double() - ref_lse)[finite].abs().max()
                            .item(), 1e-3)
        self.assertGreaterEqual(len(graphs), 1)
        self.assertIn("fmha.attention", str(graphs[0].graph))


if __name__ == "__main__":
    unittest.main()
