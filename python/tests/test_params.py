"""Parameter packing: entries and the void ** array the driver reads."""

import ctypes
import unittest

from fmha.runtime.errors import TensorMapError
from fmha.runtime.params import pack_params
from fmha.runtime.tensormap import TensorMap

from .fakes import gemm_json, gemm_manifest, view
from fmha.runtime.manifest import parse_manifest


def read(address, ctype):
    return ctypes.cast(address, ctypes.POINTER(ctype)).contents.value


class Encoder:
    def __init__(self):
        self.args = []
        self.maps = []

    def __call__(self, args):
        self.args.append(args)
        self.maps.append(TensorMap())
        return self.maps[-1]


class PackTest(unittest.TestCase):
    def test_gemm(self):
        m = gemm_manifest()
        views = {"a": view((1000, 128)), "b": view((256, 128)),
                 "c": view((1000, 256))}
        enc = Encoder()
        p = pack_params(m, views, {"M": 1000, "N": 256, "K": 128}, enc)
        self.assertEqual([k for k, _ in p.entries],
                         ["tensor_map"] * 3 + ["i32"] * 3)
        self.assertEqual([v for _, v in p.entries[3:]], [1000, 256, 128])
        self.assertEqual([a.tensor for a in enc.args], ["a", "b", "c"])
        self.assertEqual(enc.args[2].box_dim, (128, 128))
        self.assertEqual(enc.args[2].swizzle, 0)
        # The array points at each map's 128 bytes and at each scalar.
        self.assertEqual(len(p), 6)
        self.assertEqual([p.array[i] for i in range(3)],
                         [t.address for t in enc.maps])
        self.assertEqual([read(p.array[i], ctypes.c_int32)
                          for i in range(3, 6)], [1000, 256, 128])

    def test_scalars_pointers_memrefs(self):
        d = gemm_json()
        d["params"] = [
            {"kind": "pointer", "tensor": "c"},
            {"kind": "memref", "tensor": "a"},
            {"kind": "scalar", "dtype": "f32", "value": 0.125},
            {"kind": "scalar", "dtype": "f32", "value": "K"},
            {"kind": "scalar", "dtype": "i64", "value": {"mul": ["M", "N"]}},
            {"kind": "scalar", "dtype": "i32", "value": "num_sms"},
        ]
        m = parse_manifest(d)
        a = view((1000, 128), strides=(256, 1))
        c = view((1000, 256))
        p = pack_params(m, {"a": a, "b": view((256, 128)), "c": c},
                        {"M": 1000, "N": 256, "K": 128}, Encoder(),
                        num_sms=lambda: 132)
        self.assertEqual(p.entries, [
            ("ptr", c.data_ptr),
            ("ptr", a.data_ptr), ("ptr", a.data_ptr), ("i64", 0),
            ("i64", 1000), ("i64", 128), ("i64", 256), ("i64", 1),
            ("f32", 0.125), ("f32", 128.0), ("i64", 256000), ("i32", 132)])
        types = {"ptr": ctypes.c_uint64, "i64": ctypes.c_int64,
                 "i32": ctypes.c_int32, "f32": ctypes.c_float}
        for i, (kind, value) in enumerate(p.entries):
            self.assertEqual(read(p.array[i], types[kind]), value)

    def test_scalar_overflow(self):
        m = gemm_manifest()
        with self.assertRaisesRegex(
                ValueError, r"params\[3\] \(scalar\): M = 2147483648 does not "
                "fit in i32"):
            pack_params(m, {"a": view((8, 64)), "b": view((8, 64)),
                            "c": view((8, 8))},
                        {"M": 2**31, "N": 8, "K": 64}, Encoder())

    def test_tensor_map_rules(self):
        m = gemm_manifest()
        with self.assertRaisesRegex(TensorMapError, "tensor map of 'b': "
                                    "strides must be multiples of 16 bytes"):
            pack_params(m, {"a": view((8, 64)), "b": view((8, 60),
                                                          strides=(60, 1)),
                            "c": view((8, 8))}, {"M": 8, "N": 8, "K": 64},
                        Encoder())

    def test_no_params(self):
        m = gemm_manifest(params=[])
        p = pack_params(m, {}, {}, Encoder())
        self.assertEqual(len(p), 0)
        self.assertIsNotNone(p.array)


if __name__ == "__main__":
    unittest.main()
