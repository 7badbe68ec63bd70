"""fmha.merge_states without a GPU: the argument checks, the spec it
compiles, the stacked view of its states, and the runtime's side of its
manifest (strided memrefs)."""

import copy
import unittest

from fmha.merge import (check_merge_args, expected_lse_shape,
                        stacked_view, _states)
from fmha.runtime.errors import ManifestError
from fmha.runtime.kernel import Kernel
from fmha.runtime.manifest import parse_manifest
from fmha.specs import MergeSpec, spec_from_dict

from .fakes import FakeDriver, view

# The manifest the compiler writes for a merge kernel (bf16, head dim 128,
# 32 rows per CTA).
MERGE = {
    "format": "fmha-manifest/1",
    "name": "merge_states_bf16_d128",
    "entry": "merge_states_bf16_d128",
    "target": "sm_90a",
    "cubin": "merge_states_bf16_d128.sm_90a.cubin",
    "block": [128, 1, 1],
    "cluster": [1, 1, 1],
    "dynamic_smem": 0,
    "tensors": {
        "o_states": {"shape": ["S", "B", "T", "H", 128], "dtype": "bf16",
                     "role": "input"},
        "lse_states": {"shape": ["S", "B", "H", "T"], "dtype": "f32",
                       "role": "input"},
        "o": {"shape": ["B", "T", "H", 128], "dtype": "bf16",
              "role": "output"},
        "lse": {"shape": ["B", "H", "T"], "dtype": "f32", "role": "output"},
    },
    "params": [
        {"kind": "memref", "tensor": "o_states", "strided": True},
        {"kind": "memref", "tensor": "lse_states", "strided": True},
        {"kind": "memref", "tensor": "o", "strided": True},
        {"kind": "memref", "tensor": "lse", "strided": True},
    ],
    "grid": [{"ceildiv": ["T", 32]}, "H", "B"],
}


class ArgsTest(unittest.TestCase):
    def args(self, n=2, o_shape=(2, 8, 100, 128), lse_shape=(2, 8, 100),
             dtype="bf16", lse_dtype="f32", layout="bhsd"):
        return dict(o_shapes=[o_shape] * n, lse_shapes=[lse_shape] * n,
                    o_dtypes=[dtype] * n, lse_dtypes=[lse_dtype] * n,
                    layout=layout)

    def test_valid(self):
        check_merge_args(**self.args())
        check_merge_args(**self.args(n=5))
        check_merge_args(**self.args(n=1))
        check_merge_args(**self.args(o_shape=(2, 100, 8, 64),
                                     lse_shape=(2, 8, 100), layout="bshd",
                                     dtype="f16"))
        # varlen: [tokens, heads, head_dim] with [heads, tokens]
        check_merge_args(**self.args(o_shape=(300, 8, 256),
                                     lse_shape=(8, 300)))
        # any multiple of 8 up to 512
        check_merge_args(**self.args(o_shape=(300, 8, 24),
                                     lse_shape=(8, 300)))

    def test_lse_shape(self):
        self.assertEqual(expected_lse_shape((2, 8, 100, 64), "bhsd"),
                         (2, 8, 100))
        self.assertEqual(expected_lse_shape((2, 100, 8, 64), "bshd"),
                         (2, 8, 100))
        self.assertEqual(expected_lse_shape((300, 8, 64), "bhsd"), (8, 300))

    def test_rejects(self):
        cases = [
            (dict(n=0), ValueError, "at least one state"),
            (dict(layout="nhwc"), ValueError, "layout must be one of"),
            (dict(o_shape=(8, 128), lse_shape=(8,)), ValueError,
             "o must be"),
            (dict(lse_shape=(2, 100, 8)), ValueError,
             r"lse of state 0 must have shape \[2, 8, 100\]"),
            (dict(lse_shape=(2, 8)), ValueError,
             r"lse of state 0 must be \[batch, heads, seq\]"),
            (dict(o_shape=(2, 8, 100, 128), layout="bshd"), ValueError,
             r"must have shape \[2, 100, 8\] for o of shape \[2, 8, 100, "
             r"128\] \(layout 'bshd'\)"),
            (dict(dtype="f32"), TypeError, "bfloat16 or float16"),
            (dict(dtype=None), TypeError, "another type"),
            (dict(lse_dtype="bf16"), TypeError, "lse must be float32"),
            (dict(o_shape=(2, 8, 100, 100)), ValueError,
             "head_dim must be a multiple of 8"),
            (dict(o_shape=(2, 8, 100, 1024)), ValueError,
             "head_dim must be a multiple of 8 from 8 to 512"),
        ]
        for changes, error, message in cases:
            with self.subTest(changes=changes):
                with self.assertRaisesRegex(error, message):
                    check_merge_args(**self.args(**changes))

    def test_states_disagree(self):
        args = self.args()
        args["o_shapes"] = [(2, 8, 100, 128), (2, 8, 101, 128)]
        with self.assertRaisesRegex(ValueError, "one shape"):
            check_merge_args(**args)
        args = self.args()
        args["o_dtypes"] = ["bf16", "f16"]
        with self.assertRaisesRegex(TypeError, "one dtype"):
            check_merge_args(**args)
        args = self.args()
        args["lse_shapes"] = [(2, 8, 100)]
        with self.assertRaisesRegex(ValueError, "2 o tensors but 1 lse"):
            check_merge_args(**args)

    def test_positional_forms(self):
        self.assertEqual(_states(("oa", "la", "ob", "lb")),
                         (["oa", "ob"], ["la", "lb"]))
        self.assertEqual(_states(([("o1", "l1"), ("o2", "l2"),
                                   ("o3", "l3")],)),
                         (["o1", "o2", "o3"], ["l1", "l2", "l3"]))
        with self.assertRaisesRegex(TypeError, "takes"):
            _states(("oa", "la"))
        with self.assertRaisesRegex(TypeError, "state 1 must be a pair"):
            _states(([("o1", "l1"), "o2"],))


class StackedViewTest(unittest.TestCase):
    def test_distance_is_the_state_stride(self):
        a = view((2, 100, 8, 128), ptr=0x10000)
        b = view((2, 100, 8, 128), ptr=0x10000 + 2 * 4096)
        s = stacked_view([a, b])
        self.assertEqual(s.shape, (2, 2, 100, 8, 128))
        self.assertEqual(s.strides, (4096, *a.strides))
        self.assertEqual(s.data_ptr, a.data_ptr)
        # b before a: a negative stride.
        s = stacked_view([b, a])
        self.assertEqual(s.strides[0], -4096)
        self.assertEqual(s.data_ptr, b.data_ptr)

    def test_many(self):
        views = [view((4, 64), "f32", ptr=0x1000 + i * 4 * 1024)
                 for i in range(3)]
        self.assertEqual(stacked_view(views).strides, (1024, 64, 1))
        views[2] = view((4, 64), "f32", ptr=0x1000 + 5 * 4 * 1024)
        self.assertIsNone(stacked_view(views))

    def test_layouts_must_match(self):
        a = view((4, 64), strides=(64, 1), ptr=0x1000)
        b = view((4, 64), strides=(128, 1), ptr=0x9000)
        self.assertIsNone(stacked_view([a, b]))
        # A distance that is not whole elements.
        c = view((4, 64), "f32", ptr=0x1000)
        d = view((4, 64), "f32", ptr=0x1002)
        self.assertIsNone(stacked_view([c, d]))


class SpecTest(unittest.TestCase):
    def test_mlir(self):
        spec = MergeSpec(dtype="f16", head_dim=64)
        self.assertEqual(spec.name, "merge_states_f16_d64")
        self.assertEqual(
            spec.to_mlir(),
            "fmha.merge_states @merge_states_f16_d64 "
            "(tensor<?x?x?x?x64xf16>, tensor<?x?x?x?xf32>) -> "
            "(tensor<?x?x?x64xf16>, tensor<?x?x?xf32>)\n"
            "    target sm_90a\n")
        self.assertEqual(spec_from_dict(spec.to_dict()), spec)

    def test_rejects(self):
        with self.assertRaisesRegex(ValueError, "multiple of 8"):
            MergeSpec(head_dim=100)
        with self.assertRaisesRegex(ValueError, r"head_dim must be in"):
            MergeSpec(head_dim=1024)
        with self.assertRaisesRegex(ValueError, "dtype"):
            MergeSpec(dtype="f32")


def merge_tensors(states=2, batch=2, seq=100, heads=8):
    # fmha.attention's layout: o [B, H, T, D] seen as [B, T, H, D].
    o_states = view((states, batch, seq, heads, 128),
                    strides=(batch * heads * seq * 128, heads * seq * 128,
                             128, seq * 128, 1))
    lse_states = view((states, batch, heads, seq), "f32")
    return {"o_states": o_states, "lse_states": lse_states,
            "o": view((batch, seq, heads, 128),
                      strides=(heads * seq * 128, 128, seq * 128, 1)),
            "lse": view((batch, heads, seq), "f32")}


class LaunchTest(unittest.TestCase):
    def test_strided_memrefs(self):
        drv = FakeDriver()
        k = Kernel(parse_manifest(copy.deepcopy(MERGE)), b"CUBIN", drv)
        t = merge_tensors()
        # A transposed lse view: any strides.
        t["lse"] = view((2, 8, 100), "f32", strides=(800, 1, 8))
        k(**t)
        launch = drv.calls[-1]
        self.assertEqual(launch[0], "launch")
        self.assertEqual(launch[2], (4, 8, 2))  # ceil(100 / 32), H, B

    def test_dense_memref_still_checked(self):
        manifest = copy.deepcopy(MERGE)
        del manifest["params"][2]["strided"]
        k = Kernel(parse_manifest(manifest), b"CUBIN", FakeDriver())
        with self.assertRaisesRegex(ValueError, "dense and row-major"):
            k(**merge_tensors())

    def test_misaligned(self):
        k = Kernel(parse_manifest(copy.deepcopy(MERGE)), b"CUBIN",
                   FakeDriver())
        t = merge_tensors()
        t["lse"] = view((2, 8, 100), "f32", ptr=0x7F0000000002)
        with self.assertRaisesRegex(ValueError, "not aligned to its 4-byte"):
            k(**t)

    def test_strided_must_be_a_bool(self):
        manifest = copy.deepcopy(MERGE)
        manifest["params"][0]["strided"] = "yes"
        with self.assertRaisesRegex(ManifestError, "strided: expected a "
                                    "boolean"):
            parse_manifest(manifest)


if __name__ == "__main__":
    unittest.main()
