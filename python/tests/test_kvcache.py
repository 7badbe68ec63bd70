"""fmha.attention_kvcache without a GPU: the argument and value checks, the
spec it compiles, and the runtime's side of a paged kvcache manifest (tensor
maps over permuted rank-4 views, the block table as an i32 memref)."""

import copy
import unittest

from fmha import ops
from fmha.kvcache import (check_cache_values, check_kvcache_args,
                          check_unsupported)
from fmha.runtime.kernel import Kernel
from fmha.runtime.manifest import parse_manifest
from fmha.specs import AttentionSpec

from .fakes import FakeDriver, view

# The manifest the compiler writes for a paged kvcache kernel (bf16, head
# dim 128, pages of 64 rows, causal, with lse, persistent).
PAGED = {
    "format": "fmha-manifest/1",
    "name": "attention_bf16_d128_causal_lse_kvcache_p64",
    "entry": "attention_bf16_d128_causal_lse_kvcache_p64",
    "target": "sm_90a",
    "cubin": "attention_bf16_d128_causal_lse_kvcache_p64.sm_90a.cubin",
    "block": [384, 1, 1],
    "cluster": [1, 1, 1],
    "dynamic_smem": 163968,
    "tensors": {
        "q": {"shape": ["B", "SQ", "H", 128], "dtype": "bf16",
              "role": "input"},
        "k": {"shape": ["NP", 64, "HKV", 128], "dtype": "bf16",
              "role": "input"},
        "v": {"shape": ["NP", 64, "HKV", 128], "dtype": "bf16",
              "role": "input"},
        "cache_seqlens": {"shape": ["B"], "dtype": "i32", "role": "input"},
        "block_table": {"shape": ["B", "MP"], "dtype": "i32",
                        "role": "input"},
        "o": {"shape": ["B", "SQ", "H", 128], "dtype": "bf16",
              "role": "output"},
        "lse": {"shape": ["B", "H", "SQ"], "dtype": "f32", "role": "output"},
    },
    "params": [
        {"kind": "tensor_map", "tensor": "q", "box": [64, 64],
         "swizzle": 128, "dims": [0, 2, 1, 3]},
        {"kind": "tensor_map", "tensor": "k", "box": [64, 64],
         "swizzle": 128, "dims": [0, 2, 1, 3]},
        {"kind": "tensor_map", "tensor": "v", "box": [64, 64],
         "swizzle": 128, "dims": [0, 2, 1, 3]},
        {"kind": "tensor_map", "tensor": "o", "box": [64, 128],
         "swizzle": 0, "dims": [0, 2, 1, 3]},
        {"kind": "memref", "tensor": "lse"},
        {"kind": "memref", "tensor": "cache_seqlens"},
        {"kind": "memref", "tensor": "block_table"},
        {"kind": "scalar", "dtype": "i32", "value": "B"},
        {"kind": "scalar", "dtype": "i32", "value": "H"},
        {"kind": "scalar", "dtype": "i32", "value": "HKV"},
        {"kind": "scalar", "dtype": "i32", "value": "SQ"},
        {"kind": "scalar", "dtype": "i32", "value": 64},
    ],
    "grid": [{"min": ["num_sms", {"mul": [{"ceildiv": ["SQ", 128]},
                                          {"mul": ["H", "B"]}]}]}, 1, 1],
}


def paged_tensors(batch=3, seq_q=4, heads=32, heads_kv=8, pages=40,
                  max_pages=10):
    return {"q": view((batch, seq_q, heads, 128)),
            "k": view((pages, 64, heads_kv, 128)),
            "v": view((pages, 64, heads_kv, 128)),
            "cache_seqlens": view((batch,), "i32"),
            "block_table": view((batch, max_pages), "i32"),
            "o": view((batch, seq_q, heads, 128)),
            "lse": view((batch, heads, seq_q), "f32")}


class ArgsTest(unittest.TestCase):
    def args(self, **changes):
        args = dict(q_shape=(4, 1, 32, 128), k_shape=(100, 64, 8, 128),
                    v_shape=(100, 64, 8, 128), seqlens_shape=(4,),
                    table_shape=(4, 16), dtypes=("bf16",) * 3,
                    index_dtypes=("i32", "i32"))
        args.update(changes)
        return args

    def test_valid(self):
        check_kvcache_args(**self.args())
        check_kvcache_args(**self.args(causal=True, window=(64, 0),
                                       scale=0.1))
        # Dense caches: no block table, one row block per sequence.
        check_kvcache_args(**self.args(k_shape=(4, 4096, 1, 128),
                                       v_shape=(4, 4096, 1, 128),
                                       table_shape=None,
                                       index_dtypes=("i32",)))
        for page in (16, 32, 128, 256):
            check_kvcache_args(**self.args(k_shape=(7, page, 8, 128),
                                           v_shape=(7, page, 8, 128)))

    def test_errors(self):
        cases = [
            (ValueError, r"q must be \[batch, seq_q, heads_q, head_dim\] and "
             r"k_cache, v_cache \[num_pages, page_size, heads_kv, head_dim\]",
             dict(q_shape=(4, 32, 128))),
            (ValueError, r"cache_seqlens must be \[batch\]",
             dict(seqlens_shape=(4, 1))),
            (ValueError, r"block_table must be \[batch, max_pages\]",
             dict(table_shape=(64,))),
            (TypeError, "q must be bfloat16 or float16",
             dict(dtypes=("f32", "f32", "f32"))),
            (TypeError, "one dtype", dict(dtypes=("bf16", "f16", "bf16"))),
            (TypeError, "cache_seqlens must be int32",
             dict(index_dtypes=(None, "i32"))),
            (TypeError, "block_table must be int32",
             dict(index_dtypes=("i32", None))),
            (ValueError, "one head_dim", dict(k_shape=(100, 64, 8, 64))),
            (ValueError, "head_dim must be one of",
             dict(q_shape=(4, 1, 32, 96), k_shape=(100, 64, 8, 96),
                  v_shape=(100, 64, 8, 96))),
            (ValueError, "k_cache and v_cache must have one shape",
             dict(v_shape=(101, 64, 8, 128))),
            (ValueError, "multiple of heads_kv",
             dict(k_shape=(100, 64, 5, 128), v_shape=(100, 64, 5, 128))),
            (ValueError, "at least one head|multiple of heads_kv",
             dict(k_shape=(100, 64, 0, 128), v_shape=(100, 64, 0, 128))),
            (ValueError, r"cache_seqlens must have one entry per sequence "
             r"\(batch 4\), got 3", dict(seqlens_shape=(3,))),
            (ValueError, r"page_size \(dim 1 of k_cache\) must be one of "
             r"16, 32, 64, 128, 256, got 48",
             dict(k_shape=(100, 48, 8, 128), v_shape=(100, 48, 8, 128))),
            (ValueError, r"page_size .* got 8",
             dict(k_shape=(100, 8, 8, 128), v_shape=(100, 8, 8, 128))),
            (ValueError, r"page_size .* got 512",
             dict(k_shape=(100, 512, 8, 128), v_shape=(100, 512, 8, 128))),
            (ValueError, r"block_table must have one row per sequence",
             dict(table_shape=(5, 16))),
            (ValueError, r"capacity max_pages \* page_size \(2147483647 \* "
             r"64\) must be at most 2147483647",
             dict(table_shape=(4, 2 ** 31 - 1))),
            (ValueError, r"a dense k_cache must have one row block per "
             r"sequence \(batch 4\), got 100",
             dict(table_shape=None, index_dtypes=("i32",))),
            (ValueError, "right must be 0",
             dict(causal=True, window=(4, 4))),
            (ValueError, r"scale must be > 0", dict(scale=-1.0)),
        ]
        for error, pattern, changes in cases:
            with self.subTest(changes=changes):
                with self.assertRaisesRegex(error, pattern):
                    check_kvcache_args(**self.args(**changes))

    def test_unsupported(self):
        check_unsupported(None, None, 0)
        check_unsupported(None, None, 1)
        with self.assertRaisesRegex(NotImplementedError, "k_new / v_new"):
            check_unsupported(object(), None, 0)
        with self.assertRaisesRegex(NotImplementedError, "split-KV"):
            check_unsupported(None, None, 4)
        with self.assertRaisesRegex(ValueError, "num_splits must be an int"):
            check_unsupported(None, None, -1)


class ValuesTest(unittest.TestCase):
    def test_valid(self):
        # Dense: lengths from 0 to max_len.
        check_cache_values([0, 1, 4096], None, 4096)
        # Paged: only the pages a sequence uses must be in the pool; the
        # rest of its row may hold anything.
        check_cache_values([0, 1, 64, 65], [[-1, -1], [3, 99], [0, -5],
                                            [1, 2]], 64, 4)
        check_cache_values([128], [[3, 2]], 64, 4)

    def test_errors(self):
        cases = [
            (r"cache_seqlens\[1\] = 4097 is out of range \[0, 4096\] "
             r"\(max_len = 4096\)", ([0, 4097], None, 4096)),
            (r"cache_seqlens\[0\] = -1 is out of range", ([-1], None, 16)),
            (r"cache_seqlens\[0\] = 129 is out of range \[0, 128\] "
             r"\(max_pages \* page_size = 2 \* 64\)",
             ([129], [[0, 1]], 64, 4)),
            (r"block_table\[1\]\[1\] = 4 points outside the pool of 4 "
             r"pages \(sequence 1 has 65 keys, so it uses its first 2 "
             r"entries\)", ([1, 65], [[0, 0], [1, 4]], 64, 4)),
            (r"block_table\[0\]\[0\] = -1 points outside",
             ([16], [[-1]], 16, 4)),
        ]
        for pattern, args in cases:
            with self.subTest(args=args):
                with self.assertRaisesRegex(ValueError, pattern):
                    check_cache_values(*args)


class SpecTest(unittest.TestCase):
    def test_mlir(self):
        spec = ops.attention_spec("bf16", 128, causal=True, return_lse=True,
                                  kvcache=True, page_size=64)
        self.assertEqual(spec.name,
                         "attention_bf16_d128_causal_lse_kvcache_p64")
        self.assertEqual(
            spec.to_mlir(),
            "fmha.attention @attention_bf16_d128_causal_lse_kvcache_p64 "
            "(tensor<?x?x?x128xbf16>, tensor<?x64x?x128xbf16>, "
            "tensor<?x64x?x128xbf16>, tensor<?xi32>, tensor<?x?xi32>) -> "
            "(tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>)\n"
            "    kvcache causal target sm_90a\n")
        dense = ops.attention_spec("f16", 64, kvcache=True)
        self.assertEqual(
            dense.signature(),
            "(tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, "
            "tensor<?x?x?x64xf16>, tensor<?xi32>) -> tensor<?x?x?x64xf16>")
        self.assertTrue(spec.to_dict()["kvcache"])
        self.assertEqual(spec.to_dict()["page_size"], 64)

    def test_tile_is_cut_to_the_page(self):
        spec = ops.attention_spec("bf16", 128, kvcache=True, page_size=16,
                                  config={"tile": [128, 128]})
        self.assertEqual(spec.tile, (128, 16))
        spec = ops.attention_spec("bf16", 128, kvcache=True, page_size=256,
                                  config={"tile": [128, 128]})
        self.assertEqual(spec.tile, (128, 128))

    def test_invalid_specs(self):
        with self.assertRaisesRegex(ValueError, "seq_k must be None"):
            AttentionSpec(kvcache=True, seq_k=128)
        with self.assertRaisesRegex(ValueError, "exclude each other"):
            AttentionSpec(kvcache=True, varlen=True)
        with self.assertRaisesRegex(ValueError, "page_size needs kvcache"):
            AttentionSpec(page_size=64)
        with self.assertRaisesRegex(ValueError, "power of two"):
            AttentionSpec(kvcache=True, page_size=48)
        with self.assertRaisesRegex(ValueError, "page_size"):
            AttentionSpec(kvcache=True, page_size=512)
        with self.assertRaisesRegex(TypeError, "kvcache must be a bool"):
            AttentionSpec(kvcache=1)

    def test_kernel_specs(self):
        specs = ops.attention_kernel_specs("bf16", 128, causal=True,
                                           kvcache=True, page_size=16)
        self.assertTrue(specs)
        self.assertTrue(all(s.kvcache and s.page_size == 16 for s in specs))
        self.assertTrue(all(s.tile is None or s.tile[1] <= 16
                            for s in specs))


class LaunchTest(unittest.TestCase):
    def test_launch(self):
        drv = FakeDriver()
        k = Kernel(parse_manifest(copy.deepcopy(PAGED)), b"CUBIN", drv)
        k(**paged_tensors())
        launch = drv.calls[-1]
        self.assertEqual(launch[0], "launch")
        # Q's map: [batch, heads, seq_q, head_dim] of the [batch, seq_q,
        # heads, head_dim] tensor (innermost first for the driver).
        q_map = drv.encoded[0]
        self.assertEqual(q_map.global_dim, (128, 4, 32, 3))
        self.assertEqual(q_map.global_strides,
                         (32 * 128 * 2, 128 * 2, 4 * 32 * 128 * 2))
        # K's map: [pages, heads_kv, page rows, head_dim].
        k_map = drv.encoded[1]
        self.assertEqual(k_map.global_dim, (128, 64, 8, 40))
        self.assertEqual(k_map.box_dim, (64, 64, 1, 1))

    def test_page_size_is_checked(self):
        k = Kernel(parse_manifest(copy.deepcopy(PAGED)), b"CUBIN",
                   FakeDriver())
        t = paged_tensors()
        t["k"] = t["v"] = view((40, 32, 8, 128))
        with self.assertRaisesRegex(ValueError, "64"):
            k(**t)


if __name__ == "__main__":
    unittest.main()
