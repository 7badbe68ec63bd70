"""fp8 fmha.attention: the pure rules (argument checks, the spec, V's key
permutation) and, with PyTorch (CPU is enough), the permuted copy of V and
the checks on tensors. The kernels run in test_gpu_fp8_attention."""

import importlib.util
import unittest

from fmha import fp8_attention, tuning
from fmha.specs import AttentionSpec, TransposeSpec, spec_from_dict

HAS_TORCH = importlib.util.find_spec("torch") is not None

ONE = ((1,), "float32", True)


def check(q=(2, 8, 100, 128), k=(2, 2, 70, 128), v=None,
          dtypes=("f8e4m3",) * 3, descales=(ONE, ONE, ONE), out=None,
          **options):
    fp8_attention.check_fp8_attention_args(
        q, k, k if v is None else v, dtypes, descales, out, **options)


class KeyOrderTest(unittest.TestCase):
    def test_key_order(self):
        # Thread t holds accumulator columns 2t, 2t + 1, 2t + 8, 2t + 9 of
        # a group of 16; its A fragment positions are 4t .. 4t + 3.
        self.assertEqual(fp8_attention.KEY_ORDER,
                         (0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14,
                          15))
        self.assertEqual(sorted(fp8_attention.KEY_ORDER), list(range(16)))

    def test_padded_keys(self):
        for keys, padded in ((1, 16), (16, 16), (17, 32), (300, 304),
                             (1000, 1008)):
            self.assertEqual(fp8_attention.padded_keys(keys), padded)


class TransposeSpecTest(unittest.TestCase):
    def test_mlir(self):
        spec = fp8_attention.transpose_spec("f8e4m3", 128, "sm_90a")
        self.assertEqual(spec, TransposeSpec(head_dim=128))
        self.assertEqual(spec.name, "transpose_values_f8e4m3_d128")
        self.assertEqual(
            spec.to_mlir(),
            "fmha.transpose_values @transpose_values_f8e4m3_d128 "
            "(tensor<?x?x?x128xf8E4M3FN>) -> (tensor<?x?x128x?xf8E4M3FN>)\n"
            "    target sm_90a\n")
        self.assertEqual(spec_from_dict(spec.to_dict()), spec)
        self.assertIn("f8E5M2", TransposeSpec(dtype="f8e5m2").to_mlir())

    def test_rejects(self):
        with self.assertRaisesRegex(ValueError, "multiple of 16"):
            TransposeSpec(head_dim=72)
        with self.assertRaisesRegex(ValueError, "head_dim must be in"):
            TransposeSpec(head_dim=512)
        with self.assertRaisesRegex(ValueError, "dtype"):
            TransposeSpec(dtype="bf16")
        with self.assertRaisesRegex(ValueError, "target"):
            TransposeSpec(target="sm_80")


class ArgsTest(unittest.TestCase):
    def test_accepted(self):
        check()
        check(q=(1, 4, 1, 64), k=(1, 1, 1, 64), out="f16", causal=True)
        check(descales=(((), "float32", True),) * 3, window=(8, 0))

    def test_missing_descales(self):
        with self.assertRaisesRegex(ValueError, "missing descale_k, "
                                    "descale_v"):
            check(descales=(ONE, None, None))
        with self.assertRaisesRegex(ValueError, "missing descale_q"):
            check(descales=(None, ONE, ONE))

    def test_descales_of_16_bit_inputs(self):
        with self.assertRaisesRegex(ValueError, "descale_q, out_dtype are "
                                    "for float8_e4m3fn q, k, v only"):
            fp8_attention.reject_fp8_arguments(
                "torch.bfloat16", (ONE, None, None), "bf16")
        fp8_attention.reject_fp8_arguments("torch.bfloat16",
                                           (None, None, None), None)

    def test_types(self):
        with self.assertRaisesRegex(TypeError, "float8_e4m3fn q, k, v, got "
                                    "q in f8e5m2"):
            check(dtypes=("f8e5m2",) * 3)
        with self.assertRaisesRegex(TypeError, "one dtype"):
            check(dtypes=("f8e4m3", "bf16", "f8e4m3"))
        with self.assertRaisesRegex(TypeError, "descale_v must be float32"):
            check(descales=(ONE, ONE, ((1,), "bfloat16", True)))
        with self.assertRaisesRegex(TypeError, "out_dtype must be bfloat16 "
                                    "or float16"):
            check(out="f32")

    def test_head_descales(self):
        # [batch, heads_kv], FlashAttention-3's convention (q's per KV head
        # too); mixed with per-tensor ones (broadcast by kernel_descales).
        heads = ((2, 2), "float32", True)
        check(descales=(heads, heads, heads))
        check(descales=(ONE, heads, ((), "float32", True)), causal=True)
        self.assertTrue(fp8_attention.per_head_descales((ONE[0], (2, 2), ())))
        self.assertFalse(fp8_attention.per_head_descales(((1,), (), (1,))))
        self.assertFalse(fp8_attention.per_head_descales((None, None, None)))

    def test_head_descale_shapes(self):
        # Per query head instead of per KV head (GQA 8:2).
        with self.assertRaisesRegex(ValueError, r"descale_q per KV head "
                                    r"must be \[batch, heads_kv\] = "
                                    r"\[2, 2\], got shape \[2, 8\]"):
            check(descales=(((2, 8), "float32", True), ONE, ONE))
        with self.assertRaisesRegex(ValueError, r"descale_v per KV head "
                                    r"must be .* got shape \[1, 2\]"):
            check(descales=(ONE, ONE, ((1, 2), "float32", True)))
        with self.assertRaisesRegex(TypeError, "descale_k must be float32"):
            check(descales=(ONE, ((2, 2), "float16", True), ONE))
        with self.assertRaisesRegex(ValueError, r"descale_q must be 0-d or "
                                    r"\[1\] .* or \[batch, heads_kv\]"):
            check(descales=(((2, 2, 1), "float32", True), ONE, ONE))

    def test_shapes(self):
        with self.assertRaisesRegex(ValueError, r"descale_k must be 0-d or "
                                    r"\[1\] \(one factor per tensor\) or "
                                    r"\[batch, heads_kv\] \(one per "
                                    r"sequence and KV head\), got shape "
                                    r"\[8\]"):
            check(descales=(ONE, ((8,), "float32", True), ONE))
        with self.assertRaisesRegex(ValueError, "descale_q must be on q's "
                                    "device"):
            check(descales=(((1,), "float32", False), ONE, ONE))
        with self.assertRaisesRegex(ValueError, "head_dim must be one of"):
            check(q=(2, 8, 100, 96), k=(2, 2, 70, 96))
        with self.assertRaisesRegex(ValueError, "multiple of heads_kv"):
            check(k=(2, 3, 70, 128))
        with self.assertRaisesRegex(ValueError, "k and v must have one "
                                    "shape"):
            check(v=(2, 2, 71, 128))
        with self.assertRaisesRegex(ValueError, "right must be 0"):
            check(causal=True, window=(4, 4))


class SpecTest(unittest.TestCase):
    def test_rendering(self):
        spec = fp8_attention.spec(128, "bf16", True, None, None, True,
                                  "sm_90a")
        self.assertEqual(spec.name, "attention_f8e4m3_d128_bf16_causal_lse")
        self.assertIn(
            "(tensor<?x?x?x128xf8E4M3FN>, tensor<?x?x?x128xf8E4M3FN>, "
            "tensor<?x?x128x?xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>, "
            "tensor<1xf32>) -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>)",
            spec.to_mlir())
        static = AttentionSpec(dtype="f8e4m3", head_dim=64, seq_k=17,
                               out_dtype="f16")
        self.assertIn("tensor<?x?x64x32xf8E4M3FN>", static.to_mlir())
        self.assertIn("-> tensor<?x?x?x64xf16>", static.to_mlir())

    def test_validation(self):
        with self.assertRaisesRegex(ValueError, "out_dtype is for fp8"):
            AttentionSpec(dtype="bf16", out_dtype="f16")
        with self.assertRaisesRegex(ValueError, "dense layout only"):
            AttentionSpec(dtype="f8e4m3", varlen=True)
        with self.assertRaises(ValueError):
            AttentionSpec(dtype="f8e5m2")
        self.assertEqual(AttentionSpec(dtype="f8e4m3").out_dtype, "bf16")

    def test_head_descales(self):
        spec = fp8_attention.spec(64, "bf16", False, None, None, False,
                                  "sm_90a", head_descales=True)
        self.assertEqual(spec.name, "attention_f8e4m3_d64_bf16_hdesc")
        self.assertIn("tensor<?x?x64x?xf8E4M3FN>, tensor<?x?xf32>, "
                      "tensor<?x?xf32>, tensor<?x?xf32>) -> "
                      "tensor<?x?x?x64xbf16>", spec.to_mlir())
        static = AttentionSpec(dtype="f8e4m3", batch=2, heads_kv=4,
                               head_descales=True)
        self.assertIn("tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>",
                      static.to_mlir())
        self.assertTrue(spec.to_dict()["head_descales"])
        # Per-tensor kernels keep their names and cache keys.
        per_tensor = fp8_attention.spec(64, "bf16", False, None, None,
                                        False, "sm_90a")
        self.assertNotIn("head_descales", per_tensor.to_dict())
        self.assertEqual(per_tensor.name, "attention_f8e4m3_d64_bf16")
        with self.assertRaisesRegex(ValueError, "head_descales is for fp8"):
            AttentionSpec(head_descales=True)
        with self.assertRaisesRegex(TypeError, "head_descales must be a "
                                    "bool"):
            AttentionSpec(dtype="f8e4m3", head_descales=1)
        specs = fp8_attention.kernel_specs(128, head_descales=True)
        self.assertTrue(specs and all(s.head_descales for s in specs))

    def test_transpose_v(self):
        """transpose_v: v as k in the signature, the op's keyword, `_tv`
        in the name; the other kernels keep their names and cache keys;
        fp8 only; which V a compiled kernel takes, from its manifest."""
        spec = fp8_attention.spec(128, "bf16", True, None, None, False,
                                  "sm_90a", {"transpose_v": True})
        self.assertEqual(spec.name, "attention_f8e4m3_d128_bf16_causal_tv")
        self.assertIn("(tensor<?x?x?x128xf8E4M3FN>, tensor<?x?x?x128xf8E4M3FN>, "
                      "tensor<?x?x?x128xf8E4M3FN>, tensor<1xf32>",
                      spec.to_mlir())
        self.assertIn("transpose_v causal", spec.to_mlir())
        self.assertTrue(spec.to_dict()["transpose_v"])
        self.assertEqual(spec_from_dict(spec.to_dict()), spec)
        plain = fp8_attention.spec(128, "bf16", True, None, None, False,
                                   "sm_90a")
        self.assertNotIn("transpose_v", plain.to_dict())
        with self.assertRaisesRegex(ValueError, "transpose_v is for fp8"):
            AttentionSpec(transpose_v=True)
        with self.assertRaisesRegex(TypeError, "transpose_v must be a bool"):
            AttentionSpec(dtype="f8e4m3", transpose_v=1)

        class Tensor:
            def __init__(self, shape):
                self.shape = shape

        class Manifest:
            def __init__(self, v_shape):
                self.tensors = {"v": Tensor(v_shape)}

        class Kernel:
            def __init__(self, v_shape):
                self.manifest = Manifest(v_shape)

        self.assertTrue(fp8_attention.takes_values_as_is(
            Kernel(["B", "HKV", "SK", 128])))
        self.assertFalse(fp8_attention.takes_values_as_is(
            Kernel(["B", "HKV", 128, "SKV"])))

    def test_16_bit_keys_unchanged(self):
        self.assertNotIn("out_dtype", AttentionSpec().to_dict())
        self.assertNotIn("head_descales", AttentionSpec().to_dict())

    def test_kernel_specs(self):
        specs = fp8_attention.kernel_specs(128)
        self.assertEqual(len(specs),
                         len(tuning.attention_fp8_candidates(128)))
        self.assertTrue(all(s.dtype == "f8e4m3" for s in specs))

    def test_category(self):
        category, _ = tuning.attention_problem(128, False, 1, 1, 1, fp8=True)
        self.assertEqual(category[0], "attention_fp8")


@unittest.skipUnless(HAS_TORCH, "needs PyTorch")
class PermuteTest(unittest.TestCase):
    def test_permuted_copy(self):
        """Every position of the permuted V^T against KEY_ORDER: whole
        groups of 16 keys, a partial last group (zero padded), only a
        partial group, and a strided v (a [B, S, H, D] view)."""
        import torch
        batch, heads, dim = 2, 3, 64
        for keys, strided in ((37, False), (48, False), (5, False),
                              (33, True)):
            with self.subTest(keys=keys, strided=strided):
                if strided:
                    v = (torch.randn(batch, keys, heads, dim) * 4).to(
                        torch.float8_e4m3fn).transpose(1, 2)
                else:
                    v = (torch.randn(batch, heads, keys, dim) * 4).to(
                        torch.float8_e4m3fn)
                vt = fp8_attention.permute_values(torch, v)
                padded = fp8_attention.padded_keys(keys)
                self.assertEqual(vt.dtype, torch.float8_e4m3fn)
                self.assertEqual(tuple(vt.shape), (batch, heads, dim, padded))
                self.assertTrue(vt.is_contiguous())
                raw, rawt = v.view(torch.uint8), vt.view(torch.uint8)
                for position in range(padded):
                    key = (position // 16) * 16 + fp8_attention.KEY_ORDER[
                        position % 16]
                    column = rawt[:, :, :, position]
                    if key < keys:
                        self.assertTrue(torch.equal(column,
                                                    raw[:, :, key, :]))
                    else:
                        self.assertEqual(int(column.abs().sum()), 0)

    def test_tensor_checks(self):
        import torch
        from fmha import torch_ops
        torch_ops.register()
        q = torch.zeros(1, 2, 4, 64, dtype=torch.float8_e4m3fn)
        one = torch.ones(1)
        with self.assertRaisesRegex(ValueError, "missing descale_v"):
            fp8_attention.check(torch, q, q, q, (one, one, None), None,
                                False, None, None)
        with self.assertRaisesRegex(TypeError, "descale_k must be a "
                                    "torch.Tensor"):
            fp8_attention.check(torch, q, q, q, (one, 2.0, one), None,
                                False, None, None)
        fp8_attention.check(torch, q, q, q, (one, one, one),
                            torch.float16, False, None, None)
        heads = torch.ones(1, 2)
        fp8_attention.check(torch, q, q, q, (heads, one, heads), None,
                            False, None, None)
        with self.assertRaisesRegex(ValueError, r"descale_k per KV head must "
                                    r"be \[batch, heads_kv\] = \[1, 2\]"):
            fp8_attention.check(torch, q, q, q, (one, torch.ones(2, 1), one),
                                None, False, None, None)

    def test_kernel_descales(self):
        import torch
        one, scalar = torch.tensor([2.0]), torch.tensor(3.0)
        heads = torch.arange(6, dtype=torch.float32).reshape(3, 2).t()
        # Per tensor: three [1].
        out = fp8_attention.kernel_descales((one, scalar, one), 2, 3)
        self.assertEqual([tuple(d.shape) for d in out], [(1,)] * 3)
        self.assertEqual(float(out[1]), 3.0)
        # Per head: all [batch, heads_kv], contiguous, per-tensor ones
        # broadcast.
        out = fp8_attention.kernel_descales((one, heads, scalar), 2, 3)
        self.assertEqual([tuple(d.shape) for d in out], [(2, 3)] * 3)
        self.assertTrue(all(d.is_contiguous() for d in out))
        self.assertTrue(torch.equal(out[0], torch.full((2, 3), 2.0)))
        self.assertTrue(torch.equal(out[1], heads))
        self.assertTrue(torch.equal(out[2], torch.full((2, 3), 3.0)))


if __name__ == "__main__":
    unittest.main()
