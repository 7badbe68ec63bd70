"""fmha.gemm / fmha.attention: the pure rules (output padding, targets,
specs) and, with PyTorch (CPU is enough), the custom ops' fake
implementations on meta tensors."""

import importlib.util
import unittest

import fmha
from fmha import ops, torch_ops
from fmha.specs import GemmSpec

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
        self.assertEqual(ops.gemm_spec("bf16", "bf16"), GemmSpec())
        self.assertEqual(ops.gemm_spec("f16", "f16").stages, 3)
        spec = ops.gemm_spec("bf16", "f32")
        self.assertEqual((spec.stages, spec.tile), (2, (128, 128, 64)))
        self.assertEqual((spec.m, spec.n, spec.k), (None, None, None))

    def test_fmha_dtype(self):
        self.assertEqual(ops.fmha_dtype("torch.bfloat16"), "bf16")
        self.assertEqual(ops.fmha_dtype("float32"), "f32")
        self.assertIsNone(ops.fmha_dtype("torch.int8"))


class ApiTest(unittest.TestCase):
    def test_b_transposed_false(self):
        with self.assertRaisesRegex(NotImplementedError, r"\[K, N\]"):
            fmha.gemm(None, None, b_transposed=False)

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
                         ("f16", 64, 8, 2, None, None, (32, 0), True))


if __name__ == "__main__":
    unittest.main()
