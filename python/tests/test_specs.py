"""Kernel specs: validation, names and the exact MLIR they render."""

import unittest

from fmha import ops
from fmha.specs import (AttentionSpec, GemmSpec, float_literal,
                        spec_from_dict, tensor_type)


class GemmSpecTest(unittest.TestCase):
    def test_default_rendering(self):
        self.assertEqual(
            GemmSpec().to_mlir(),
            "fmha.gemm @gemm_bf16_bf16_128x128x64_c2 (tensor<?x?xbf16>, "
            "tensor<?x?xbf16>) -> tensor<?x?xbf16>\n"
            "    transpose_b tile [128, 128, 64] consumers 2 "
            "target sm_90a\n")

    def test_static_sizes_and_types(self):
        spec = GemmSpec(dtype="f16", out_dtype="f32", tile=[128, 64, 32],
                        stages=2, consumers=1, m=None, n=4096, k=1024)
        self.assertEqual(spec.tile, (128, 64, 32))  # normalized to a tuple
        self.assertEqual(spec.name, "gemm_f16_f32_128x64x32_s2_c1_n4096_k1024")
        self.assertEqual(
            spec.to_mlir(),
            "fmha.gemm @gemm_f16_f32_128x64x32_s2_c1_n4096_k1024 "
            "(tensor<?x1024xf16>, tensor<4096x1024xf16>) -> "
            "tensor<?x4096xf32>\n"
            "    transpose_b tile [128, 64, 32] stages 2 consumers 1 "
            "target sm_90a\n")

    def test_multicast(self):
        spec = GemmSpec(tile=(64, 256, 64), multicast=2)
        self.assertEqual(spec.name, "gemm_bf16_bf16_64x256x64_c2_mc2")
        self.assertIn("consumers 2 multicast 2 target sm_90a",
                      spec.to_mlir())
        self.assertNotIn("multicast", GemmSpec().to_mlir())
        with self.assertRaisesRegex(ValueError,
                                    r"multicast must be in \[1, 2\]"):
            GemmSpec(multicast=3)

    def test_schedule(self):
        spec = GemmSpec(schedule="pingpong")
        self.assertEqual(spec.name, "gemm_bf16_bf16_128x128x64_c2_pp")
        self.assertIn("consumers 2 schedule pingpong target sm_90a",
                      spec.to_mlir())
        self.assertEqual(spec.to_dict()["schedule"], "pingpong")
        self.assertEqual(GemmSpec(schedule="cooperative").name,
                         "gemm_bf16_bf16_128x128x64_c2_coop")
        # Without a schedule the spec (and its cache key) is as before the
        # field existed.
        self.assertNotIn("schedule", GemmSpec().to_mlir())
        self.assertNotIn("schedule", GemmSpec().to_dict())
        with self.assertRaisesRegex(ValueError, "schedule must be one of"):
            GemmSpec(schedule="persistent")

    def test_splits(self):
        spec = GemmSpec(tile=(64, 128, 64), stages=6, splits=2)
        self.assertEqual(spec.name, "gemm_bf16_bf16_64x128x64_s6_c2_sk2")
        self.assertIn("consumers 2 splits 2 target sm_90a", spec.to_mlir())
        self.assertEqual(spec.to_dict()["splits"], 2)
        # Without split-K the spec (and its cache key) is as before the
        # field existed.
        self.assertNotIn("splits", GemmSpec().to_mlir())
        self.assertNotIn("splits", GemmSpec().to_dict())
        with self.assertRaisesRegex(ValueError, r"splits must be in"):
            GemmSpec(splits=0)

    def test_swap_ab(self):
        spec = GemmSpec(tile=(8, 64, 64), stages=24, consumers=1,
                        swap_ab=True)
        self.assertEqual(spec.name, "gemm_bf16_bf16_8x64x64_s24_c1_swab")
        self.assertIn("transpose_b swap_ab tile [8, 64, 64] stages 24 "
                      "consumers 1 target sm_90a", spec.to_mlir())
        self.assertIs(spec.to_dict()["swap_ab"], True)
        # Without it the spec (and its cache key) is as before the field
        # existed.
        self.assertNotIn("swap_ab", GemmSpec().to_mlir())
        self.assertNotIn("swap_ab", GemmSpec().to_dict())
        kn = GemmSpec(tile=(8, 64, 64), consumers=1, swap_ab=True,
                      transpose_b=False)
        self.assertEqual(kn.name, "gemm_bf16_bf16_8x64x64_c1_swab_bkn")
        self.assertIn("swap_ab tile [8, 64, 64]", kn.to_mlir())
        self.assertNotIn("transpose_b", kn.to_mlir())
        with self.assertRaisesRegex(TypeError, "swap_ab must be a bool"):
            GemmSpec(swap_ab=1)

    def test_kernel_specs_have_swap_ab_for_both_layouts_of_b(self):
        for b_transposed in (True, False):
            self.assertTrue([s for s in ops.gemm_kernel_specs(
                "bf16", "bf16", b_transposed=b_transposed) if s.swap_ab])

    def test_equal_and_hashable(self):
        a = GemmSpec(tile=[128, 128, 64])
        b = GemmSpec(tile=(128, 128, 64))
        self.assertEqual(a, b)
        self.assertEqual(hash(a), hash(b))
        self.assertNotEqual(a, GemmSpec(stages=4))
        with self.assertRaises(Exception):
            a.stages = 4  # frozen

    def test_validation(self):
        for kwargs, error, text in (
                ({"dtype": "f32"}, ValueError, "dtype must be one of"),
                ({"dtype": "bfloat16"}, ValueError, "'bf16', 'f16'"),
                ({"out_dtype": "f8"}, ValueError, "out_dtype"),
                ({"tile": (128, 128)}, ValueError, "tile must have 3"),
                ({"tile": 128}, TypeError, "tile must be a sequence"),
                ({"tile": (128, 0, 64)}, ValueError, r"tile\[1\] must be"),
                ({"stages": 0}, ValueError, r"stages must be in \[1, 32\]"),
                ({"stages": 33}, ValueError, "stages"),
                ({"stages": 2.0}, TypeError, "stages must be an int"),
                ({"consumers": 4}, ValueError, "consumers"),
                ({"target": "sm_80"}, ValueError, "target"),
                ({"m": 0}, ValueError, "m must be"),
                ({"k": 2**32 + 1}, ValueError, "k must be"),
                ({"m": 2**31}, ValueError,
                 r"m must be in \[1, 2147483647\] \(an i32"),
                ({"n": 2**32}, ValueError, r"n must be in \[1, 2147483647\]"),
                ({"tile": (2**31, 128, 64)}, ValueError,
                 r"tile\[0\] must be in \[1, 2147483647\]"),
                ({"out_dtype": "f64"}, ValueError, "out_dtype"),
                ({"n": True}, TypeError, "n must be an int")):
            with self.subTest(kwargs=kwargs):
                with self.assertRaisesRegex(error, text):
                    GemmSpec(**kwargs)

    def test_limits_accepted(self):
        # The largest values that fit pass, and render as given.
        spec = GemmSpec(m=2**31 - 1, n=1, k=2**31 - 1)
        self.assertIn("tensor<2147483647x2147483647xbf16>", spec.to_mlir())

    def test_defaults_are_the_api_rule(self):
        # fmha.gemm's default output type is the input type, and it leaves
        # the stages to the compiler (the most that fit): so does GemmSpec.
        from fmha import ops
        self.assertEqual(GemmSpec(dtype="f16").out_dtype, "f16")
        self.assertEqual(GemmSpec(dtype="f16").name,
                         "gemm_f16_f16_128x128x64_c2")
        self.assertIsNone(GemmSpec(out_dtype="f32").stages)
        for dtype, out in (("bf16", "bf16"), ("f16", "f16"),
                           ("bf16", "f32"), ("f16", "f32")):
            self.assertEqual(GemmSpec(dtype=dtype, out_dtype=out),
                             ops.gemm_spec(dtype, out))
        self.assertEqual(GemmSpec(dtype="f16"), ops.gemm_spec("f16", "f16"))

    def test_dict_round_trip(self):
        spec = GemmSpec(out_dtype="f32", stages=2, m=128)
        data = spec.to_dict()
        self.assertEqual(data["kind"], "gemm")
        self.assertEqual(data["tile"], [128, 128, 64])
        self.assertEqual(spec_from_dict(data), spec)
        with self.assertRaisesRegex(ValueError, "unknown field"):
            spec_from_dict({**data, "bogus": 1})
        with self.assertRaisesRegex(ValueError, "unknown kernel kind"):
            spec_from_dict({"kind": "conv"})


class GemmSpecFp8Test(unittest.TestCase):
    def test_rendering(self):
        # fp8 defaults: B like A, one scale per tensor, a bf16 result and
        # block_k 128 (one 128-byte swizzle span).
        spec = GemmSpec(dtype="f8e4m3")
        self.assertEqual(
            (spec.b_dtype, spec.scale_a, spec.scale_b, spec.out_dtype,
             spec.tile), ("f8e4m3", "tensor", "tensor", "bf16",
                          (128, 128, 128)))
        self.assertEqual(
            spec.to_mlir(),
            "fmha.gemm @gemm_f8e4m3_bf16_128x128x128_c2 "
            "(tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>, tensor<1xf32>, "
            "tensor<1xf32>) -> tensor<?x?xbf16>\n"
            "    transpose_b tile [128, 128, 128] consumers 2 "
            "target sm_90a\n")
        spec = GemmSpec(dtype="f8e4m3", b_dtype="f8e5m2", scale_a="row",
                        scale_b="column", out_dtype="f32",
                        tile=(64, 256, 128), n=4096, k=1024)
        self.assertEqual(spec.name, "gemm_f8e4m3xf8e5m2_f32_64x256x128_c2"
                                    "_rows_cols_n4096_k1024")
        self.assertIn("(tensor<?x1024xf8E4M3FN>, tensor<4096x1024xf8E5M2>, "
                      "tensor<?xf32>, tensor<4096xf32>) -> "
                      "tensor<?x4096xf32>", spec.to_mlir())
        self.assertEqual(spec_from_dict(spec.to_dict()), spec)

    def test_promotion(self):
        # Accumulate promotion: promote_every n in the op, _pr<n> in the
        # name, and in the dict only when set (the cache keys of kernels
        # without it stay).
        spec = GemmSpec(dtype="f8e4m3", tile=(64, 128, 128),
                        promote_every=4)
        self.assertEqual(spec.name, "gemm_f8e4m3_bf16_64x128x128_c2_pr4")
        self.assertIn("tile [64, 128, 128] consumers 2 promote_every 4 "
                      "target sm_90a", spec.to_mlir())
        self.assertEqual(spec.to_dict()["promote_every"], 4)
        self.assertEqual(spec_from_dict(spec.to_dict()), spec)
        self.assertNotIn("promote_every", GemmSpec(dtype="f8e4m3").to_dict())
        self.assertNotIn("promote_every",
                         GemmSpec(dtype="f8e4m3").to_mlir())

    def test_old_keys_kept(self):
        # The fp8 fields stay out of a 16-bit spec's dict (its cache key).
        data = GemmSpec().to_dict()
        for name in ("b_dtype", "scale_a", "scale_b", "promote_every"):
            self.assertNotIn(name, data)
        self.assertEqual(data["tile"], [128, 128, 64])

    def test_validation(self):
        for kwargs, text in (
                ({"dtype": "f8e5m2"}, "both 'f8e5m2'"),
                ({"dtype": "f8e4m3", "b_dtype": "bf16"}, "b_dtype must be"),
                ({"dtype": "f8e4m3", "scale_a": "column"}, "scale_a must be"),
                ({"dtype": "f8e4m3", "scale_b": "row"}, "scale_b must be"),
                ({"dtype": "f8e4m3", "transpose_b": False},
                 "fp8 GEMMs need transpose_b=True"),
                ({"scale_a": "tensor"}, "scale_a is for fp8 GEMMs only"),
                ({"b_dtype": "f8e4m3"}, "b_dtype is for fp8 GEMMs only"),
                ({"promote_every": 2}, "promote_every is for fp8 GEMMs only"),
                ({"dtype": "f8e4m3", "promote_every": -1},
                 "promote_every must be in"),
                ({"dtype": "f8e4m3", "out_dtype": "f8e4m3"},
                 "out_dtype must be")):
            with self.subTest(**kwargs):
                with self.assertRaisesRegex(ValueError, text):
                    GemmSpec(**kwargs)


class AttentionSpecTest(unittest.TestCase):
    def test_default_rendering(self):
        self.assertEqual(
            AttentionSpec().to_mlir(),
            "fmha.attention @attention_bf16_d128 (tensor<?x?x?x128xbf16>, "
            "tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>) -> "
            "tensor<?x?x?x128xbf16>\n"
            "    target sm_90a\n")

    def test_full_rendering(self):
        spec = AttentionSpec(dtype="f16", head_dim=64, heads_q=32,
                             heads_kv=8, return_lse=True, causal=True,
                             window=[256, 0], scale=0.125, tile=(64, 128),
                             stages=2, consumers=2, target="sm_100a")
        self.assertEqual(
            spec.to_mlir(),
            "fmha.attention @attention_f16_d64_hq32_hkv8_causal_w256_0_lse_"
            "64x128_s2_c2 (tensor<?x32x?x64xf16>, tensor<?x8x?x64xf16>, "
            "tensor<?x8x?x64xf16>) -> (tensor<?x32x?x64xf16>, "
            "tensor<?x32x?xf32>)\n"
            "    causal window [256, 0] scale 0.125 tile [64, 128] stages 2 "
            "consumers 2 target sm_100a\n")

    def test_static_sizes(self):
        spec = AttentionSpec(batch=2, heads_q=4, heads_kv=4, seq_q=1000,
                             seq_k=2000)
        self.assertIn("(tensor<2x4x1000x128xbf16>, tensor<2x4x2000x128xbf16>"
                      ", tensor<2x4x2000x128xbf16>) -> "
                      "tensor<2x4x1000x128xbf16>", spec.to_mlir())

    def test_scale_literals(self):
        self.assertIn("scale 1.0 ", AttentionSpec(scale=1).to_mlir())
        self.assertIn("scale 1.0e-05 ", AttentionSpec(scale=1e-5).to_mlir())
        self.assertEqual(AttentionSpec(scale=1).scale, 1.0)
        self.assertIsInstance(AttentionSpec(scale=1).scale, float)

    def test_validation(self):
        for kwargs, error, text in (
                ({"head_dim": 96}, ValueError, "head_dim"),
                ({"scale": 0.0}, ValueError, "scale must be > 0"),
                ({"scale": float("inf")}, ValueError, "finite"),
                ({"scale": "1"}, TypeError, "scale must be a float"),
                ({"window": (1, 2, 3)}, ValueError, "window must have 2"),
                ({"window": (-1, 0)}, ValueError,
                 r"window\[0\] must be in \[0, 2147483647\], got -1: no "
                 "negative value means unbounded"),
                ({"window": (2**32, 0)}, ValueError,
                 r"window\[0\] must be in \[0, 2147483647\] \(an i32"),
                ({"window": (2**31, 0)}, ValueError, r"window\[0\]"),
                ({"window": (0, 2**63 - 1)}, ValueError, r"window\[1\]"),
                ({"scale": 1.0e300}, ValueError,
                 r"scale must be a normal float32, in \[1.1754944e-38, "
                 r"3.4028235e\+38\] \(the kernel computes in float32\)"),
                ({"scale": 4.9e-324}, ValueError, "normal float32"),
                ({"scale": 3.5e38}, ValueError, "normal float32"),
                ({"scale": float("nan")}, ValueError, "finite"),
                ({"batch": 2**31}, ValueError, r"batch must be in \[1, "),
                ({"heads_q": 2**40}, ValueError, "heads_q"),
                ({"heads_kv": 0}, ValueError, "heads_kv"),
                ({"seq_k": 2**31}, ValueError, r"seq_k must be in \[1, "
                 r"2147483647\]"),
                ({"tile": (64, 2**31)}, ValueError, r"tile\[1\]"),
                ({"consumers": 4}, ValueError, r"consumers must be in \[1, 3\]"),
                ({"stages": 33}, ValueError, r"stages must be in \[1, 32\]"),
                ({"tile": (64,)}, ValueError, "tile must have 2"),
                ({"causal": 1}, TypeError, "causal must be a bool"),
                ({"stages": 0}, ValueError, "stages"),
                ({"seq_q": -1}, ValueError, "seq_q")):
            with self.subTest(kwargs=kwargs):
                with self.assertRaisesRegex(error, text):
                    AttentionSpec(**kwargs)

    def test_limits_accepted(self):
        spec = AttentionSpec(window=(2**31 - 1, 2**31 - 1), scale=3.4e38,
                             seq_q=2**31 - 1)
        self.assertIn("window [2147483647, 2147483647] scale 3.4e+38",
                      spec.to_mlir())
        self.assertEqual(AttentionSpec(scale=1.2e-38).scale, 1.2e-38)

    def test_dict_round_trip(self):
        spec = AttentionSpec(causal=True, window=(128, 0), scale=0.1)
        self.assertEqual(spec_from_dict(spec.to_dict()), spec)

    def test_decode_rendering(self):
        """pack_gqa and split_kv: keywords right after kvcache, in that
        order, and name suffixes _pk and _skv."""
        spec = AttentionSpec(heads_q=32, heads_kv=8, causal=True,
                             return_lse=True, tile=(64, 64), consumers=1,
                             kvcache=True, page_size=64, pack_gqa=True,
                             split_kv=True)
        self.assertEqual(
            spec.to_mlir(),
            "fmha.attention @attention_bf16_d128_hq32_hkv8_causal_lse_64x64_"
            "c1_kvcache_pk_skv_p64 (tensor<?x?x32x128xbf16>, "
            "tensor<?x64x8x128xbf16>, tensor<?x64x8x128xbf16>, "
            "tensor<?xi32>, tensor<?x?xi32>) -> (tensor<?x?x32x128xbf16>, "
            "tensor<?x32x?xf32>)\n"
            "    kvcache pack_gqa split_kv causal tile [64, 64] consumers 1 "
            "target sm_90a\n")
        only_split = AttentionSpec(kvcache=True, split_kv=True)
        self.assertEqual(only_split.name, "attention_bf16_d128_kvcache_skv")
        self.assertIn("    kvcache split_kv target", only_split.to_mlir())
        only_pack = AttentionSpec(kvcache=True, pack_gqa=True, heads_q=8,
                                  heads_kv=1)
        self.assertEqual(only_pack.name,
                         "attention_bf16_d128_hq8_hkv1_kvcache_pk")
        self.assertIn("    kvcache pack_gqa target", only_pack.to_mlir())
        self.assertEqual(spec_from_dict(spec.to_dict()), spec)

    def test_decode_fields_keep_old_keys(self):
        """The new fields at their defaults stay out of to_dict, so the
        cache keys of the kernels cached before them are unchanged."""
        data = AttentionSpec(kvcache=True, page_size=16).to_dict()
        self.assertNotIn("pack_gqa", data)
        self.assertNotIn("split_kv", data)
        data = AttentionSpec(kvcache=True, split_kv=True).to_dict()
        self.assertIs(data["split_kv"], True)
        self.assertNotIn("pack_gqa", data)

    def test_decode_validation(self):
        for kwargs, error, text in (
                ({"pack_gqa": True, "heads_q": 8, "heads_kv": 2}, ValueError,
                 "pack_gqa needs kvcache=True"),
                ({"split_kv": True}, ValueError,
                 "split_kv needs kvcache=True"),
                ({"split_kv": True, "varlen": True}, ValueError,
                 "split_kv needs kvcache=True"),
                ({"kvcache": True, "pack_gqa": True}, ValueError,
                 "pack_gqa needs static heads_q and heads_kv"),
                ({"kvcache": True, "pack_gqa": True, "heads_q": 8},
                 ValueError, "static heads_q and heads_kv"),
                ({"kvcache": True, "pack_gqa": True, "heads_q": 12,
                  "heads_kv": 8}, ValueError,
                 "heads_q a multiple of heads_kv"),
                ({"kvcache": True, "pack_gqa": True, "heads_q": 24,
                  "heads_kv": 2}, ValueError,
                 "group heads_q / heads_kv = 12 to divide 64"),
                ({"kvcache": True, "pack_gqa": True, "heads_q": 128,
                  "heads_kv": 1}, ValueError, "= 128 to divide 64"),
                ({"kvcache": True, "pack_gqa": 1, "heads_q": 8,
                  "heads_kv": 1}, TypeError, "pack_gqa must be a bool"),
                ({"kvcache": True, "split_kv": "yes"}, TypeError,
                 "split_kv must be a bool")):
            with self.subTest(kwargs=kwargs):
                with self.assertRaisesRegex(error, text):
                    AttentionSpec(**kwargs)
        # Groups of 1 (MHA) to 64 pack.
        for heads_q in (4, 8, 32, 64, 256):
            AttentionSpec(kvcache=True, pack_gqa=True, heads_q=heads_q,
                          heads_kv=4 if heads_q < 64 else heads_q // 64)


class HelpersTest(unittest.TestCase):
    def test_float_literal(self):
        for value, text in ((1.0, "1.0"), (0.125, "0.125"), (2, "2.0"),
                            (1e-5, "1.0e-05"), (1.5e20, "1.5e+20"),
                            (0.08838834764831845, "0.08838834764831845")):
            self.assertEqual(float_literal(value), text)
            self.assertEqual(float(float_literal(value)), float(value))

    def test_tensor_type(self):
        self.assertEqual(tensor_type((None, 8), "f32"), "tensor<?x8xf32>")


if __name__ == "__main__":
    unittest.main()
