"""fmha.gemm / fmha.attention: the pure rules (output padding, targets,
specs) and, with PyTorch (CPU is enough), the custom ops' fake
implementations on meta tensors."""

import importlib.util
import unittest

import fmha
from fmha import ops, tuning, torch_ops
from fmha.specs import AttentionSpec, GemmSpec

HAS_TORCH = importlib.util.find_spec("torch") is not None


class PaddingTest(unittest.TestCase):
    def test_padded_row_stride(self):
        for n, itemsize, stride in (
                (1, 2, 8), (7, 2, 8), (8, 2, 8), (9, 2, 16), (100, 2, 104),
                (4096, 2, 4096), (1, 4, 4), (5, 4, 8), (129, 4, 132),
                (0, 2, 0), (3, 1, 16), (17, 8, 18)):
            with self.subTest(n=n, itemsize=itemsize):
                got = ops.padded_row_stride(n, itemsize)
                self.assertEqual(got, stride)
                self.assertEqual(got * itemsize % 16, 0)
                self.assertGreaterEqual(got, n)
                self.assertLess(got - n, 16 // itemsize)
        for bad in (0, 3, 32):
            with self.assertRaises(ValueError):
                ops.padded_row_stride(8, bad)


class TargetTest(unittest.TestCase):
    def test_targets(self):
        self.assertEqual(ops.target_for_capability((9, 0)), "sm_90a")
        for cap in ((8, 0), (8, 9), (10, 0), (12, 0)):
            with self.assertRaisesRegex(RuntimeError,
                                        rf"compute capability 9\.0 .*"
                                        rf"cuda:3 has compute capability "
                                        rf"{cap[0]}\.{cap[1]}"):
                ops.target_for_capability(cap, "cuda:3")

    def test_gemm_spec(self):
        # Without a configuration: GemmSpec's defaults, the stages the
        # compiler's (the most that fit, so also right for an f32 output).
        self.assertEqual(ops.gemm_spec("bf16", "bf16"), GemmSpec())
        self.assertIsNone(ops.gemm_spec("f16", "f16").stages)
        spec = ops.gemm_spec("bf16", "f32")
        self.assertEqual((spec.stages, spec.tile), (None, (128, 128, 64)))
        self.assertEqual((spec.m, spec.n, spec.k), (None, None, None))
        spec = ops.gemm_spec("bf16", "bf16", config={
            "tile": [64, 256, 64], "consumers": 1, "stages": None},
            b_transposed=False)
        self.assertEqual((spec.tile, spec.consumers, spec.stages,
                          spec.transpose_b),
                         ((64, 256, 64), 1, None, False))
        self.assertNotIn("transpose_b", spec.to_mlir())

    def test_kernel_specs(self):
        # Every configuration the selector can pick is listed (the defaults
        # first), each once.
        specs = ops.gemm_kernel_specs("bf16", "bf16")
        self.assertEqual(specs[0], ops.gemm_spec("bf16", "bf16"))
        self.assertEqual(len(specs), len(set(specs)))
        for c in tuning.GEMM_CANDIDATES:
            self.assertIn(ops.gemm_spec("bf16", "bf16", config=c), specs)
        for row in tuning.table().configs(("gemm",)):
            self.assertIn(ops.gemm_spec("bf16", "bf16", config=row), specs)
        specs = ops.attention_kernel_specs("bf16", 128, causal=True)
        self.assertEqual(specs[0], ops.attention_spec("bf16", 128, True))
        for row in tuning.table().configs(("attention", 128)):
            self.assertIn(ops.attention_spec("bf16", 128, True, config=row),
                          specs)

    def test_attention_spec(self):
        spec = ops.attention_spec("bf16", 128, causal=True, return_lse=True)
        # Without a configuration: the compiler's defaults (which choose
        # the persistent schedule where it fits).
        self.assertEqual(spec, AttentionSpec(
            dtype="bf16", head_dim=128, causal=True, return_lse=True))
        # Batch, heads and lengths are dynamic: one kernel for every shape.
        self.assertEqual((spec.batch, spec.heads_q, spec.heads_kv,
                          spec.seq_q, spec.seq_k), (None,) * 5)
        spec = ops.attention_spec("f16", 64, window=[16, 4], scale=0.5)
        self.assertEqual((spec.window, spec.scale, spec.return_lse),
                         ((16, 4), 0.5, False))
        spec = ops.attention_spec("bf16", 256, config={
            "schedule": "persistent", "tile": [64, 48]})
        self.assertEqual((spec.tile, spec.stages, spec.schedule),
                         ((64, 48), None, "persistent"))
        self.assertIn("-> tensor<?x?x?x256xbf16>\n", spec.to_mlir())
        with self.assertRaisesRegex(ValueError, "head_dim"):
            ops.attention_spec("bf16", 96)
        # Three consumers (a dense row of the table at head dim 64): the
        # dense and varlen kernels take them, KV-cache kernels the default.
        three = {"consumers": 3, "tile": [64, 128]}
        self.assertEqual(ops.attention_spec("bf16", 64, config=three,
                                            varlen=True).consumers, 3)
        spec = ops.attention_spec("bf16", 64, config=three, kvcache=True)
        self.assertEqual((spec.consumers, spec.tile), (None, (64, 128)))
        self.assertEqual(three["consumers"], 3)

    def test_fmha_dtype(self):
        self.assertEqual(ops.fmha_dtype("torch.bfloat16"), "bf16")
        self.assertEqual(ops.fmha_dtype("float32"), "f32")
        self.assertIsNone(ops.fmha_dtype("torch.int8"))
        self.assertIsNone(ops.fmha_dtype("torch.float8_e4m3fn"))
        self.assertEqual(ops.fp8_dtype("torch.float8_e4m3fn"), "f8e4m3")
        self.assertEqual(ops.fp8_dtype("float8_e5m2"), "f8e5m2")
        self.assertIsNone(ops.fp8_dtype("torch.bfloat16"))

    def test_fp8_kernel_specs(self):
        # fp8: its own candidates (block_k 128 by default) and category.
        specs = ops.gemm_kernel_specs("f8e4m3", "bf16", scale_a="row",
                                      scale_b="column")
        self.assertEqual(specs[0], ops.gemm_spec("f8e4m3", "bf16",
                                                 scale_a="row",
                                                 scale_b="column"))
        self.assertEqual(specs[0].tile, (128, 128, 128))
        self.assertEqual(len(specs), len(set(specs)))
        for c in tuning.GEMM_FP8_CANDIDATES:
            self.assertIn(ops.gemm_spec("f8e4m3", "bf16", config=c,
                                        scale_a="row", scale_b="column"),
                          specs)
        for spec in specs:
            self.assertEqual((spec.dtype, spec.b_dtype, spec.scale_a,
                              spec.scale_b), ("f8e4m3", "f8e4m3", "row",
                                              "column"))
        self.assertEqual(tuning.gemm_problem(8, 16, 32, fp8=True),
                         (("gemm_fp8",), (8, 16, 32)))

    def test_fp8_promotion_specs(self):
        # Accumulate promotion: a category and candidates of its own; the
        # default configuration a tile that fits twice in the registers
        # (64 x 128), promoting every K step; a configured tile kept.
        self.assertEqual(
            tuning.gemm_problem(8, 16, 32, fp8=True, promote=True),
            (("gemm_fp8_promote",), (8, 16, 32)))
        spec = ops.gemm_spec("f8e4m3", "bf16", promote=True)
        self.assertEqual((spec.tile, spec.consumers, spec.promote_every),
                         ((64, 128, 128), 2, 1))
        spec = ops.gemm_spec("f8e4m3", "bf16",
                             config={"tile": (128, 96, 128)}, promote=True)
        self.assertEqual((spec.tile, spec.promote_every),
                         ((128, 96, 128), 1))
        specs = ops.gemm_kernel_specs("f8e4m3", "bf16", promote=True)
        self.assertEqual(len(specs), len(set(specs)))
        self.assertTrue(all(s.promote_every >= 1 for s in specs))
        for c in tuning.GEMM_FP8_PROMOTE_CANDIDATES:
            self.assertIn(ops.gemm_spec("f8e4m3", "bf16", config=c,
                                        promote=True), specs)
        self.assertEqual(ops.gemm_spec("f8e4m3", "bf16").promote_every, 0)

    def test_accumulate_promotion(self):
        # use_fast_accum in torch._scaled_mm's sense: False promotes; None
        # is the default (fast, for now); 16-bit GEMMs take None only.
        self.assertTrue(ops.accumulate_promotion(True, False))
        self.assertFalse(ops.accumulate_promotion(True, True))
        self.assertEqual(ops.accumulate_promotion(True, None),
                         not ops.DEFAULT_FP8_FAST_ACCUM)
        self.assertFalse(ops.accumulate_promotion(False, None))
        with self.assertRaisesRegex(ValueError, "use_fast_accum is for fp8"):
            ops.accumulate_promotion(False, False)
        with self.assertRaisesRegex(TypeError, "must be a bool or None"):
            ops.accumulate_promotion(True, 1)


class Fp8GemmArgsTest(unittest.TestCase):
    """fmha.gemm's fp8 checks (ops.check_fp8_gemm), on shapes and dtype
    names: every rule raises ValueError before a launch."""

    E4, E5 = "float8_e4m3fn", "float8_e5m2"
    ONE = ((1,), "float32", True, True)

    def check(self, a=E4, b=E4, m=300, k=64, n=40, b_transposed=True,
              scale_a=ONE, scale_b=ONE):
        return ops.check_fp8_gemm(a, b, m, k, n, b_transposed, scale_a,
                                  scale_b)

    def test_kinds(self):
        f32 = ("float32", True, True)
        for scale_a, scale_b, kinds in (
                ((), (), ("tensor", "tensor")),
                ((1,), (1, 1), ("tensor", "tensor")),
                ((300,), (40,), ("row", "column")),
                ((300, 1), (1, 40), ("row", "column")),
                ((300, 1), (1,), ("row", "tensor")),
                ((), (40,), ("tensor", "column"))):
            with self.subTest(scale_a=scale_a, scale_b=scale_b):
                self.assertEqual(self.check(scale_a=(scale_a, *f32),
                                            scale_b=(scale_b, *f32)), kinds)
        self.assertEqual(self.check(b=self.E5), ("tensor", "tensor"))
        self.assertEqual(self.check(a=self.E5), ("tensor", "tensor"))
        # M = 1: one value per row is one value.
        self.assertEqual(self.check(m=1, scale_a=((1, 1), *f32)),
                         ("tensor", "tensor"))

    def test_errors(self):
        f32 = ("float32", True, True)
        for kwargs, text in (
                ({"scale_a": None}, r"need scale_a and scale_b .*; scale_a "
                                    r"missing"),
                ({"scale_a": None, "scale_b": None},
                 "scale_a and scale_b missing"),
                ({"b": "bfloat16"}, "fp8 needs both in float8_e4m3fn"),
                ({"a": self.E5, "b": self.E5}, "both float8_e5m2"),
                ({"b_transposed": False}, r"b as \[N, K\]"),
                ({"k": 40}, "K a multiple of 16.*got K = 40"),
                ({"scale_a": ((1,), "bfloat16", True, True)},
                 "scale_a must be float32, got bfloat16"),
                ({"scale_b": ((1,), "float32", False, True)},
                 "scale_b must be on a's device"),
                ({"scale_a": ((40,), *f32)},
                 r"scale_a must be one value .* one per row of a \(\[M\] "
                 r"or \[M, 1\], M = 300\), got shape \[40\]"),
                ({"scale_b": ((40, 1), *f32)},
                 r"scale_b .* one per column of the result \(\[N\] or "
                 r"\[1, N\], N = 40\), got shape \[40, 1\]"),
                ({"scale_b": ((2,), *f32)}, "got shape \\[2\\]"),
                ({"scale_a": ((300,), "float32", True, False)},
                 "scale_a must be contiguous")):
            with self.subTest(**{k: str(v) for k, v in kwargs.items()}):
                with self.assertRaisesRegex(ValueError, text):
                    self.check(**kwargs)


class AttentionArgsTest(unittest.TestCase):
    """fmha.attention's argument checks, on shapes and dtype names."""

    Q, KV = (2, 8, 100, 128), (2, 2, 300, 128)
    BF16 = ("bf16", "bf16", "bf16")

    def check(self, q=Q, k=KV, v=KV, dtypes=BF16, **kwargs):
        ops.check_attention_args(q, k, v, dtypes, **kwargs)

    def test_valid(self):
        self.check()
        self.check(dtypes=("f16",) * 3, causal=True, window=(64, 0),
                   scale=0.1)
        self.check(window=[3, 5], scale=2)
        self.check(q=(1, 4, 7, 64), k=(1, 1, 1, 64), v=(1, 1, 1, 64))
        self.check(q=(0, 4, 0, 256), k=(0, 4, 0, 256), v=(0, 4, 0, 256))

    def test_errors(self):
        for kwargs, error, text in (
                ({"q": (8, 100, 128)}, ValueError,
                 r"must be \[batch, heads, seq, head_dim\], got shapes "
                 r"\[8, 100, 128\]"),
                ({"dtypes": ("f32",) * 3}, TypeError,
                 "q must be bfloat16 or float16, got f32"),
                ({"dtypes": (None,) * 3}, TypeError, "another type"),
                ({"dtypes": ("bf16", "f16", "bf16")}, TypeError,
                 "one dtype, got bf16, f16, bf16"),
                ({"k": (2, 2, 300, 64), "v": (2, 2, 300, 64)}, ValueError,
                 "one head_dim"),
                ({"q": (2, 8, 100, 96), "k": (2, 2, 300, 96),
                  "v": (2, 2, 300, 96)}, ValueError,
                 "head_dim must be one of 64, 128, 256, got 96"),
                ({"v": (2, 2, 299, 128)}, ValueError,
                 "k and v must have one shape"),
                ({"k": (3, 2, 300, 128), "v": (3, 2, 300, 128)}, ValueError,
                 "one batch size, got 2 and 3"),
                ({"k": (2, 3, 300, 128), "v": (2, 3, 300, 128)}, ValueError,
                 r"heads_q \(8\) must be a multiple of heads_kv \(3\)"),
                ({"k": (2, 0, 300, 128), "v": (2, 0, 300, 128)}, ValueError,
                 "at least one head"),
                ({"window": (1, 2, 3)}, ValueError, r"window must be \(left"),
                ({"window": (-1, 0)}, ValueError,
                 r"two ints in \[0, 2147483647\]"),
                ({"window": (True, 0)}, ValueError, r"ints in \[0, "),
                ({"window": (2**31, 0)}, ValueError,
                 r"ints in \[0, 2147483647\] \(i32"),
                ({"window": (0, 2**32)}, ValueError, "ints in"),
                ({"causal": True, "window": (8, 2)}, ValueError,
                 "right must be 0"),
                ({"causal": 1}, TypeError, "causal must be a bool"),
                ({"scale": 0.0}, ValueError, "scale must be > 0"),
                ({"scale": float("nan")}, ValueError, "finite"),
                ({"scale": 1e300}, ValueError,
                 r"scale must be a normal float32, in \[1.1754944e-38, "
                 r"3.4028235e\+38\]"),
                ({"scale": 4.9e-324}, ValueError, "normal float32"),
                ({"scale": 1e-39}, ValueError, "normal float32"),
                ({"scale": "0.1"}, TypeError, "scale must be a float")):
            with self.subTest(kwargs=kwargs):
                with self.assertRaisesRegex(error, text):
                    self.check(**kwargs)

    def test_check_hook(self):
        """Size relations go through the hook (torch._check when traced)."""
        seen = []
        ops.check_attention_args(self.Q, self.KV, self.KV, self.BF16,
                                 check=lambda c, m: seen.append(bool(c)))
        self.assertEqual(len(seen), 5)
        self.assertTrue(all(seen))


class ApiTest(unittest.TestCase):
    @unittest.skipIf(HAS_TORCH, "PyTorch is installed")
    def test_without_torch(self):
        self.assertFalse(torch_ops.register())
        with self.assertRaisesRegex(ImportError, "needs PyTorch"):
            fmha.gemm(None, None)
        with self.assertRaisesRegex(ImportError, "needs PyTorch"):
            fmha.attention(None, None, None)


@unittest.skipUnless(HAS_TORCH, "no PyTorch")
class FakeImplTest(unittest.TestCase):
    """The fake implementations, through the ops, on meta tensors."""

    @classmethod
    def setUpClass(cls):
        import torch
        cls.torch = torch
        assert torch_ops.register()

    def test_gemm_shapes_and_padding(self):
        torch = self.torch
        for m, n, k, dtype, out, stride in (
                (100, 256, 64, torch.bfloat16, None, 256),
                (100, 255, 64, torch.bfloat16, None, 256),
                (3, 5, 7, torch.float16, torch.float32, 8),
                (0, 9, 8, torch.bfloat16, torch.float16, 16)):
            a = torch.empty(m, k, dtype=dtype, device="meta")
            b = torch.empty(n, k, dtype=dtype, device="meta")
            c = torch.ops.fmha.gemm(a, b, out)
            self.assertEqual(tuple(c.shape), (m, n))
            self.assertEqual(c.stride(), (stride, 1))
            self.assertEqual(c.dtype, out or dtype)
        x = torch.empty(2, 3, 64, dtype=torch.bfloat16, device="meta")
        w = torch.empty(100, 64, dtype=torch.bfloat16, device="meta")
        y = fmha.gemm(x, w)
        self.assertEqual(tuple(y.shape), (2, 3, 100))

    def test_gemm_errors(self):
        torch = self.torch
        a = torch.empty(4, 64, dtype=torch.bfloat16, device="meta")
        with self.assertRaises(Exception):
            torch.ops.fmha.gemm(a, torch.empty(8, 32, dtype=torch.bfloat16,
                                               device="meta"), None)
        with self.assertRaisesRegex(TypeError, "must match"):
            torch.ops.fmha.gemm(a, torch.empty(8, 64, dtype=torch.float16,
                                               device="meta"), None)
        with self.assertRaisesRegex(TypeError, "bfloat16 or float16"):
            fmha.gemm(a.float(), a.float())
        with self.assertRaisesRegex(TypeError, "out_dtype"):
            fmha.gemm(a, a, torch.int32)

    def test_attention_fake(self):
        torch = self.torch
        q = torch.empty(2, 8, 100, 128, dtype=torch.bfloat16, device="meta")
        kv = torch.empty(2, 2, 300, 128, dtype=torch.bfloat16, device="meta")
        o = fmha.attention(q, kv, kv, causal=True)
        self.assertEqual((tuple(o.shape), o.dtype),
                         ((2, 8, 100, 128), torch.bfloat16))
        o, lse = fmha.attention(q, kv, kv, window=(64, 0), scale=0.1,
                                return_lse=True)
        self.assertEqual((tuple(lse.shape), lse.dtype),
                         ((2, 8, 100), torch.float32))

    def test_attention_spec(self):
        torch = self.torch
        q = torch.empty(2, 8, 100, 64, dtype=torch.float16, device="meta")
        kv = torch.empty(2, 2, 300, 64, dtype=torch.float16, device="meta")
        spec = torch_ops.attention_spec(q, kv, True, [32, 0], None, True,
                                        "sm_90a")
        self.assertEqual((spec.dtype, spec.head_dim, spec.heads_q,
                          spec.heads_kv, spec.batch, spec.seq_q,
                          spec.window, spec.return_lse),
                         ("f16", 64, None, None, None, None, (32, 0), True))

    def test_attention_fake_errors(self):
        torch = self.torch
        q = torch.empty(2, 8, 100, 128, dtype=torch.bfloat16, device="meta")
        kv = torch.empty(2, 3, 300, 128, dtype=torch.bfloat16, device="meta")
        with self.assertRaisesRegex(Exception, "multiple of heads_kv"):
            fmha.attention(q, kv, kv)
        with self.assertRaisesRegex(TypeError, "one dtype"):
            fmha.attention(q, kv.half(), kv.half())
        with self.assertRaisesRegex(ValueError, "right must be 0"):
            fmha.attention(q, q, q, causal=True, window=(4, 4))


if __name__ == "__main__":
    unittest.main()
