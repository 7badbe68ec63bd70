"""fmha.attention_varlen without a GPU: the argument and value checks, the
spec it compiles, and the runtime's side of a varlen manifest (caller
sizes, tensor maps over permuted dimensions, i32 tensors)."""

import copy
import unittest

from fmha import ops
from fmha.runtime.errors import ManifestError
from fmha.runtime.kernel import Kernel
from fmha.runtime.manifest import parse_manifest
from fmha.specs import AttentionSpec
from fmha.varlen import check_cu_seqlens, check_varlen_args

from .fakes import FakeDriver, view

# The manifest the compiler writes for a varlen kernel (bf16, head dim 128,
# 8 query heads on 2 KV heads, with lse, one CTA per query block).
VARLEN = {
    "format": "fmha-manifest/1",
    "name": "attention_varlen",
    "entry": "attention_varlen",
    "target": "sm_90a",
    "cubin": "attention_varlen.sm_90a.cubin",
    "block": [384, 1, 1],
    "cluster": [1, 1, 1],
    "dynamic_smem": 197000,
    "tensors": {
        "q": {"shape": ["TQ", 8, 128], "dtype": "bf16", "role": "input"},
        "k": {"shape": ["TK", 2, 128], "dtype": "bf16", "role": "input"},
        "v": {"shape": ["TK", 2, 128], "dtype": "bf16", "role": "input"},
        "cu_seqlens_q": {"shape": ["B1"], "dtype": "i32", "role": "input"},
        "cu_seqlens_k": {"shape": ["B1"], "dtype": "i32", "role": "input"},
        "o": {"shape": ["TQ", 8, 128], "dtype": "bf16", "role": "output"},
        "lse": {"shape": [8, "TQ"], "dtype": "f32", "role": "output"},
    },
    "sizes": ["B", "MAXQ"],
    "params": [
        {"kind": "tensor_map", "tensor": "q", "box": [64, 64],
         "swizzle": 128, "dims": [1, 0, 2]},
        {"kind": "tensor_map", "tensor": "k", "box": [128, 64],
         "swizzle": 128, "dims": [1, 0, 2]},
        {"kind": "tensor_map", "tensor": "v", "box": [128, 64],
         "swizzle": 128, "dims": [1, 0, 2]},
        {"kind": "memref", "tensor": "o"},
        {"kind": "memref", "tensor": "lse"},
        {"kind": "memref", "tensor": "cu_seqlens_q"},
        {"kind": "memref", "tensor": "cu_seqlens_k"},
        {"kind": "scalar", "dtype": "i32", "value": "B"},
        {"kind": "scalar", "dtype": "i32", "value": 8},
        {"kind": "scalar", "dtype": "i32", "value": 2},
        {"kind": "scalar", "dtype": "i32", "value": "MAXQ"},
        {"kind": "scalar", "dtype": "i32", "value": "TQ"},
        {"kind": "scalar", "dtype": "i32", "value": "TK"},
    ],
    "grid": [{"ceildiv": ["MAXQ", 128]}, 8, "B"],
}


def varlen_tensors(tq=1100, tk=1300, batch=3):
    return {"q": view((tq, 8, 128)), "k": view((tk, 2, 128)),
            "v": view((tk, 2, 128)),
            "cu_seqlens_q": view((batch + 1,), "i32"),
            "cu_seqlens_k": view((batch + 1,), "i32"),
            "o": view((tq, 8, 128)), "lse": view((8, tq), "f32")}


class ArgsTest(unittest.TestCase):
    def args(self, **changes):
        args = dict(q_shape=(100, 8, 128), k_shape=(120, 2, 128),
                    v_shape=(120, 2, 128), cu_q_shape=(4,),
                    cu_k_shape=(4,), dtypes=("bf16",) * 3,
                    cu_dtypes=("i32", "i32"), max_seqlen_q=50,
                    max_seqlen_k=60)
        args.update(changes)
        return args

    def test_valid(self):
        check_varlen_args(**self.args())
        check_varlen_args(**self.args(causal=True, window=(64, 0),
                                      scale=0.1))

    def test_errors(self):
        cases = [
            (ValueError, r"q must be \[total_q, heads_q, head_dim\]",
             dict(q_shape=(1, 100, 8, 128))),
            (ValueError, r"must be \[batch \+ 1\]", dict(cu_q_shape=(4, 1))),
            (TypeError, "q must be bfloat16 or float16",
             dict(dtypes=("f32", "f32", "f32"))),
            (TypeError, "one dtype", dict(dtypes=("bf16", "f16", "bf16"))),
            (TypeError, "cu_seqlens_k must be int32",
             dict(cu_dtypes=("i32", None))),
            (TypeError, "max_seqlen_q must be an int",
             dict(max_seqlen_q=1.5)),
            (ValueError, r"max_seqlen_k must be in \[0, ",
             dict(max_seqlen_k=-1)),
            (ValueError, "one head_dim", dict(k_shape=(120, 2, 64))),
            (ValueError, "head_dim must be one of",
             dict(q_shape=(100, 8, 96), k_shape=(120, 2, 96),
                  v_shape=(120, 2, 96))),
            (ValueError, "k and v must have one shape",
             dict(v_shape=(121, 2, 128))),
            (ValueError, "multiple of heads_kv", dict(k_shape=(120, 3, 128),
                                                      v_shape=(120, 3, 128))),
            (ValueError, "one size", dict(cu_k_shape=(5,))),
            (ValueError, "at least one head|multiple of heads_kv",
             dict(k_shape=(120, 0, 128), v_shape=(120, 0, 128))),
            (ValueError, "right must be 0",
             dict(causal=True, window=(4, 4))),
            (ValueError, r"scale must be > 0", dict(scale=-1.0)),
        ]
        for error, pattern, changes in cases:
            with self.subTest(changes=changes):
                with self.assertRaisesRegex(error, pattern):
                    check_varlen_args(**self.args(**changes))


class ValuesTest(unittest.TestCase):
    def test_valid(self):
        check_cu_seqlens([0, 0, 1, 18, 1018], [0, 5, 5, 100, 200], 1018, 200,
                         1000, 100)
        check_cu_seqlens([0], [0], 0, 0, 0, 0)

    def test_errors(self):
        cases = [
            (r"cu_seqlens_q\[0\] must be 0", ([1, 5], [0, 5], 5, 5, 5, 5)),
            (r"must be sorted .* cu_seqlens_k\[2\] = 3 < cu_seqlens_k\[1\] "
             r"= 4", ([0, 2, 5], [0, 4, 3], 5, 3, 5, 5)),
            (r"sequence 1 has 4 queries .* more than max_seqlen_q = 3",
             ([0, 1, 5], [0, 1, 2], 5, 2, 3, 5)),
            (r"sequence 0 has 9 keys .* more than max_seqlen_k = 8",
             ([0, 1], [0, 9], 1, 9, 1, 8)),
            (r"cu_seqlens_q\[-1\] must be the tokens of q \(total = 6\), "
             r"got 5", ([0, 5], [0, 5], 6, 5, 9, 9)),
        ]
        for pattern, args in cases:
            with self.subTest(args=args):
                with self.assertRaisesRegex(ValueError, pattern):
                    check_cu_seqlens(*args)


class SpecTest(unittest.TestCase):
    def test_mlir(self):
        spec = ops.attention_spec("bf16", 128, causal=True, return_lse=True,
                                  varlen=True)
        self.assertEqual(spec.name, "attention_bf16_d128_causal_lse_varlen")
        self.assertEqual(
            spec.to_mlir(),
            "fmha.attention @attention_bf16_d128_causal_lse_varlen "
            "(tensor<?x?x128xbf16>, tensor<?x?x128xbf16>, "
            "tensor<?x?x128xbf16>, tensor<?xi32>, tensor<?xi32>) -> "
            "(tensor<?x?x128xbf16>, tensor<?x?xf32>)\n"
            "    varlen causal target sm_90a\n")
        self.assertTrue(spec.to_dict()["varlen"])

    def test_static_lengths_are_rejected(self):
        with self.assertRaisesRegex(ValueError, "seq_q must be None"):
            AttentionSpec(varlen=True, seq_q=128)
        with self.assertRaisesRegex(TypeError, "varlen must be a bool"):
            AttentionSpec(varlen=1)

    def test_kernel_specs(self):
        specs = ops.attention_kernel_specs("f16", 64, causal=True,
                                           varlen=True)
        self.assertTrue(specs)
        self.assertTrue(all(s.varlen for s in specs))


class ManifestTest(unittest.TestCase):
    def test_parse(self):
        m = parse_manifest(copy.deepcopy(VARLEN))
        self.assertEqual(m.sizes, ("B", "MAXQ"))
        self.assertEqual(m.params[0].dims, (1, 0, 2))
        self.assertEqual(m.tensors["cu_seqlens_q"].dtype.name, "i32")

    def check(self, pattern, change):
        data = copy.deepcopy(VARLEN)
        change(data)
        with self.assertRaisesRegex(ManifestError, pattern):
            parse_manifest(data, source="m.json")

    def test_errors(self):
        self.check(r"params\[0\]\.dims: expected a permutation of the "
                   r"dimensions of 'q' \(0 to 2\), got \[1, 0\]",
                   lambda d: d["params"][0].update(dims=[1, 0]))
        self.check(r"params\[1\]\.dims: expected a permutation",
                   lambda d: d["params"][1].update(dims=[0, 0, 2]))
        self.check(r"sizes\[0\]: 'TQ' is already a tensor's name or size "
                   r"symbol", lambda d: d.update(sizes=["TQ"]))
        self.check(r"sizes\[1\]: \"num_sms\" cannot be a size symbol",
                   lambda d: d.update(sizes=["B", "num_sms"]))
        self.check(r"sizes: expected a list", lambda d: d.update(sizes="B"))
        self.check(r"params\[7\]\.value: unknown size symbol 'B' \(the "
                   r"tensors' shapes and the sizes define: B1, MAXQ, TK, TQ\)",
                   lambda d: d.update(sizes=["MAXQ"]))


class LaunchTest(unittest.TestCase):
    def test_launch(self):
        drv = FakeDriver()
        k = Kernel(parse_manifest(copy.deepcopy(VARLEN)), b"CUBIN", drv)
        t = varlen_tensors()
        k(B=3, MAXQ=1000, **t)
        launch = drv.calls[-1]
        self.assertEqual(launch[0], "launch")
        self.assertEqual(launch[2], (8, 8, 3))  # ceil(1000 / 128), H, B
        # Q's map: [heads, total, head_dim] with the strides of the packed
        # tensor (innermost first for the driver: d, total, heads).
        q_map = drv.encoded[0]
        self.assertEqual(q_map.global_dim, (128, 1100, 8))
        self.assertEqual(q_map.global_strides, (8 * 128 * 2, 128 * 2))
        self.assertEqual(q_map.box_dim, (64, 64, 1))

    def test_sizes_are_checked(self):
        k = Kernel(parse_manifest(copy.deepcopy(VARLEN)), b"CUBIN",
                   FakeDriver())
        with self.assertRaisesRegex(ValueError, r"missing tensor\(s\) 'MAXQ'"):
            k(B=3, **varlen_tensors())
        with self.assertRaisesRegex(ValueError, r"size 'MAXQ' must be an int "
                                    r"in \[1, 2147483647\], got 0"):
            k(B=3, MAXQ=0, **varlen_tensors())
        with self.assertRaisesRegex(ValueError, "unexpected tensor"):
            k(B=3, MAXQ=5, X=1, **varlen_tensors())

    def test_launch_cache_keys_the_sizes(self):
        drv = FakeDriver()
        k = Kernel(parse_manifest(copy.deepcopy(VARLEN)), b"CUBIN", drv)
        t = varlen_tensors()
        k(B=3, MAXQ=1000, **t)
        k(B=3, MAXQ=100, **t)
        grids = [c[2] for c in drv.calls if c[0] == "launch"]
        self.assertEqual(grids, [(8, 8, 3), (1, 8, 3)])

    def test_misaligned_o(self):
        k = Kernel(parse_manifest(copy.deepcopy(VARLEN)), b"CUBIN",
                   FakeDriver())
        t = varlen_tensors()
        t["o"] = view((1100, 8, 128), ptr=0x7F0000000002)
        with self.assertRaisesRegex(ValueError, "not aligned to 4 bytes"):
            k(B=3, MAXQ=5, **t)


if __name__ == "__main__":
    unittest.main()
