"""fmha.attention_kvcache without a GPU: the argument and value checks, the
spec it compiles, and the runtime's side of a paged kvcache manifest (tensor
maps over permuted rank-4 views, the block table as an i32 memref)."""

import copy
import unittest

from fmha import ops
from fmha.kvcache import (MAX_SPLITS, check_cache_values,
                          check_kvcache_args, check_new_kv, check_num_splits,
                          decode_block_n, decode_plan,
                          decode_spec, pack_gqa_applies, split_heuristic)
from fmha.runtime.kernel import Kernel
from fmha.runtime.manifest import parse_manifest
from fmha.specs import AttentionSpec

from .fakes import FakeDriver, load_data, view

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

    def test_new_kv(self):
        cache = (100, 64, 8, 128)
        types = ("bf16",) * 3
        check_new_kv(None, None, cache, 4, types)
        check_new_kv((4, 1, 8, 128), (4, 1, 8, 128), cache, 4, types)
        check_new_kv((4, 0, 8, 128), (4, 0, 8, 128), cache, 4, types)
        cases = [
            (ValueError, "k_new and v_new go together",
             ((4, 1, 8, 128), None, cache, 4, types)),
            (ValueError, "go together", (None, (4, 1, 8, 128), cache, 4,
                                         types)),
            (ValueError, r"k_new and v_new must be \[batch, seq_new, "
             r"heads_kv, head_dim\]", ((4, 8, 128), (4, 8, 128), cache, 4,
                                       types)),
            (TypeError, "the caches' dtype bf16, got f16 and bf16",
             ((4, 1, 8, 128), (4, 1, 8, 128), cache, 4,
              ("f16", "bf16", "bf16"))),
            (TypeError, "got bf16 and another",
             ((4, 1, 8, 128), (4, 1, 8, 128), cache, 4,
              ("bf16", None, "bf16"))),
            (ValueError, "one shape", ((4, 1, 8, 128), (4, 2, 8, 128), cache,
                                       4, types)),
            (ValueError, r"= \[4, seq_new, 8, 128\], got \[3, 1, 8, 128\]",
             ((3, 1, 8, 128), (3, 1, 8, 128), cache, 4, types)),
            (ValueError, r"got \[4, 1, 2, 128\]",
             ((4, 1, 2, 128), (4, 1, 2, 128), cache, 4, types)),
            (ValueError, r"got \[4, 1, 8, 64\]",
             ((4, 1, 8, 64), (4, 1, 8, 64), cache, 4, types)),
        ]
        for error, pattern, args in cases:
            with self.subTest(args=args):
                with self.assertRaisesRegex(error, pattern):
                    check_new_kv(*args)

    def test_num_splits(self):
        for good in (0, 1, 7, 2 ** 31 - 1):
            check_num_splits(good)
        for bad in (-1, 2 ** 31, True, 2.0, "4", None):
            with self.subTest(num_splits=bad):
                with self.assertRaisesRegex(
                        ValueError, r"num_splits must be an int in \[0, "
                        r"2147483647\]"):
                    check_num_splits(bad)


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


class DecodePlanTest(unittest.TestCase):
    """decode_plan: when a call packs its query-head groups and how many
    key ranges it splits into."""

    def plan(self, batch=1, seq_q=1, heads_q=32, heads_kv=8, head_dim=128,
             capacity=131072, page_size=None, num_splits=0, num_sms=132,
             window=None):
        return decode_plan(batch, seq_q, heads_q, heads_kv, head_dim,
                           capacity, page_size, num_splits, num_sms, window)

    def test_pack(self):
        # Groups of 2 to 64 that divide 64 pack, up to 16 queries.
        for heads_q, heads_kv in ((32, 8), (8, 1), (16, 8), (64, 1),
                                  (128, 2)):
            for seq_q in (1, 4, 16):
                self.assertTrue(pack_gqa_applies(heads_q, heads_kv, seq_q))
        self.assertFalse(pack_gqa_applies(32, 8, 17))   # prefill
        self.assertFalse(pack_gqa_applies(8, 8, 1))     # MHA: G = 1
        self.assertFalse(pack_gqa_applies(24, 2, 1))    # G = 12
        self.assertFalse(pack_gqa_applies(128, 1, 1))   # G = 128 > 64
        self.assertFalse(pack_gqa_applies(32, 5, 1))    # not a group
        self.assertEqual(self.plan(seq_q=17, capacity=100)[0], False)
        self.assertEqual(self.plan(heads_q=8, heads_kv=8)[0], False)

    def test_block_n(self):
        self.assertEqual(decode_block_n(64), 128)
        self.assertEqual(decode_block_n(128), 128)
        self.assertEqual(decode_block_n(256), 64)
        self.assertEqual(decode_block_n(128, 16), 16)
        self.assertEqual(decode_block_n(128, 256), 128)
        self.assertEqual(decode_block_n(256, 32), 32)

    def test_auto_splits(self):
        # One long sequence, 8 KV heads packed: 8 work items on 132 SMs;
        # 16 ranges of 64 tiles make 128 items, one wave.
        self.assertEqual(self.plan(), (True, 16))
        # 8 sequences: 64 items, two ranges each.
        self.assertEqual(self.plan(batch=8), (True, 2))
        # Items that (nearly) fill the GPU do not split.
        self.assertEqual(self.plan(batch=16), (True, 1))
        self.assertEqual(self.plan(batch=64), (True, 1))
        self.assertEqual(self.plan(batch=17, num_sms=132), (True, 1))
        # Unpacked MHA: 32 items, four ranges.
        self.assertEqual(self.plan(heads_q=32, heads_kv=32, capacity=4096),
                         (False, 4))
        # Few keys: no split.
        self.assertEqual(self.plan(capacity=256), (True, 1))
        self.assertEqual(self.plan(capacity=511), (True, 1))
        # A short cache: fewer ranges than key tiles, each merged partial
        # costing SPLIT_MERGE_KEYS.
        self.assertEqual(self.plan(capacity=1024), (True, 4))
        # Pages of 64 cut the key tiles (block_n 64): more of them.
        self.assertEqual(self.plan(capacity=4096, page_size=64), (True, 8))
        # Head dim 64 and MQA: 4 items, 33 tiles of 128 keys.
        self.assertEqual(self.plan(batch=4, heads_q=8, heads_kv=1,
                                   head_dim=64, capacity=4097,
                                   page_size=256), (True, 7))
        # Head dim 256 splits like the others (tiles of 64 keys).
        self.assertEqual(self.plan(head_dim=256), (True, 16))
        self.assertEqual(self.plan(head_dim=256, num_splits=7), (True, 7))
        # A window bounds the keys a query block sees.
        self.assertEqual(self.plan(window=(1024, 0)), (True, 3))
        self.assertEqual(self.plan(window=(100, 0)), (True, 1))
        # Prefill is not packed, but still split when the GPU is idle.
        self.assertEqual(self.plan(seq_q=300, heads_q=8, heads_kv=2,
                                   capacity=100000), (False, 13))
        # Never more than MAX_SPLITS, nor more items than needed.
        for num_sms in (1, 132, 1000, 10000):
            for capacity in (1, 100, 5000, 10 ** 6, 2 ** 31 - 1):
                with self.subTest(num_sms=num_sms, capacity=capacity):
                    _, splits = self.plan(num_sms=num_sms, capacity=capacity)
                    self.assertGreaterEqual(splits, 1)
                    self.assertLessEqual(splits, MAX_SPLITS)
                    self.assertLessEqual(splits, -(-capacity // 128))

    def test_heuristic(self):
        tiles = 128
        self.assertEqual(split_heuristic(132, 1000 * tiles, 128, 132), 1)
        self.assertEqual(split_heuristic(1, 1000 * tiles, 128, 132), 40)
        self.assertEqual(split_heuristic(1, 1000 * tiles, 128, 132, 16), 16)
        self.assertEqual(split_heuristic(1, 512, 128, 132), 2)
        self.assertEqual(split_heuristic(1, 511, 128, 132), 1)
        self.assertEqual(split_heuristic(1, 512, 128, 1), 1)
        # An S whose ranges hold as many tiles as S - 1's is never chosen:
        # 10 tiles in 6 ranges would leave one empty (2, 2, 2, 2, 2, 0).
        for sms in range(1, 20):
            self.assertNotIn(split_heuristic(1, 10 * tiles, 128, sms),
                             (6, 7, 8, 9))

    def test_forced_splits(self):
        self.assertEqual(self.plan(batch=64, num_splits=7), (True, 7))
        self.assertEqual(self.plan(num_splits=1), (True, 1))
        self.assertEqual(self.plan(num_splits=2), (True, 2))
        # Cut to the key tiles of the capacity.
        self.assertEqual(self.plan(capacity=300, num_splits=7), (True, 3))
        self.assertEqual(self.plan(capacity=100, num_splits=7), (True, 1))
        self.assertEqual(self.plan(capacity=300, page_size=16,
                                   num_splits=100), (True, 19))
        self.assertEqual(self.plan(num_splits=500), (True, 500))

    def test_decode_spec(self):
        spec = decode_spec("bf16", 128, True, None, None, True, "sm_90a", 64,
                           32, 8, True, True)
        self.assertEqual(
            spec.name,
            "attention_bf16_d128_hq32_hkv8_causal_lse_64x64_c1_kvcache_pk_"
            "skv_p64")
        self.assertEqual((spec.tile, spec.consumers), ((64, 64), 1))
        # Not packed: dynamic head counts (one kernel for every GQA).
        spec = decode_spec("f16", 256, False, (128, 0), 0.0625, False,
                           "sm_90a", None, 32, 8, False, True)
        self.assertEqual(spec.name,
                         "attention_f16_d256_w128_0_64x64_c1_kvcache_skv")
        self.assertIn("kvcache split_kv window [128, 0] tile [64, 64] "
                      "consumers 1", spec.to_mlir())
        # The default scale is left out (one kernel).
        spec = decode_spec("bf16", 64, False, None, 0.125, False, "sm_90a",
                           16, 8, 1, True, False)
        self.assertEqual(spec.name,
                         "attention_bf16_d64_hq8_hkv1_64x16_c1_kvcache_pk_p16")


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

    def test_packed_split_contract(self):
        """The manifest the compiler writes for a packed (32 query heads on
        8 KV heads: groups of 4), split, paged kernel: q and o as
        [B, SQ, HKV, 4, D] views, the size S, and scratch tensors sized by
        S (Kernel.scratch_shapes)."""
        drv = FakeDriver()
        k = Kernel(parse_manifest(load_data("kvcache-pk-skv.json")),
                   b"CUBIN", drv)
        self.assertEqual(k.manifest.sizes, ("S",))
        self.assertEqual(set(k.scratch_names),
                         {"partial_o", "partial_lse", "counters"})
        t = paged_tensors(batch=3, seq_q=2)
        t["q"] = view((3, 2, 8, 4, 128))
        t["o"] = view((3, 2, 8, 4, 128))
        specs = k.scratch_shapes({n: x.shape for n, x in t.items()},
                                 {"S": 7})
        self.assertEqual(specs, {
            "partial_o": ((7, 3, 8, 8, 128), "scratch", "f32"),
            "partial_lse": ((7, 3, 8, 8), "scratch", "f32"),
            "counters": ((24,), "zeroed", "i32")})
        for name, (shape, _, dtype) in specs.items():
            t[name] = view(shape, dtype)
        with self.assertRaisesRegex(ValueError, "missing tensor.*'S'"):
            k(**t)
        k(**t, S=7)
        # 7 ranges x 3 sequences x 8 KV heads x 1 block of 8 packed rows.
        self.assertEqual(drv.calls[-1][2], (132, 1, 1))
        # Q's map: 16 positions x 4 heads x 64 columns per box, over
        # [batch, heads_kv, seq_q, group, head_dim] (innermost first).
        q_map = drv.encoded[0]
        self.assertEqual(q_map.global_dim, (128, 4, 2, 8, 3))
        self.assertEqual(q_map.box_dim, (64, 4, 16, 1, 1))
        bound = k.bind({**t, "S": 7}, order=tuple(t))
        self.assertEqual(bound.launch_info.symbols["S"], 7)
        t["partial_o"] = view((6, 3, 8, 8, 128), "f32")
        with self.assertRaisesRegex(ValueError, "partial_o"):
            k(**t, S=7)

    def test_page_size_is_checked(self):
        k = Kernel(parse_manifest(copy.deepcopy(PAGED)), b"CUBIN",
                   FakeDriver())
        t = paged_tensors()
        t["k"] = t["v"] = view((40, 32, 8, 128))
        with self.assertRaisesRegex(ValueError, "64"):
            k(**t)


if __name__ == "__main__":
    unittest.main()
