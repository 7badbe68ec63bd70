"""Bound launches (the front door's fast path) with a fake driver: only
the addresses that moved are rewritten, in copies of the tensor maps, and
each run launches once with the bound parameters."""

import ctypes
import unittest

from fmha.runtime.kernel import Kernel

from .fakes import FakeDriver, gemm_manifest, view


def tensors(base, M=1000, N=256, K=128):
    return {"a": view((M, K), ptr=base), "b": view((N, K), ptr=base + 0x100000),
            "c": view((M, N), ptr=base + 0x200000)}


class BoundLaunchTest(unittest.TestCase):
    def setUp(self):
        self.driver = FakeDriver()
        self.kernel = Kernel(gemm_manifest(), b"CUBIN", self.driver)
        self.t = tensors(0x10000)
        self.bound = self.kernel.bind(self.t, order=("c", "a", "b"))

    def replaced(self):
        return [c for c in self.driver.calls if c[0] == "replace"]

    def test_same_addresses_rewrite_nothing(self):
        self.bound.run((0x210000, 0x10000, 0x110000), 7)
        self.assertEqual(self.replaced(), [])
        self.assertEqual(self.driver.names()[-1], "launch")
        self.assertEqual(self.driver.calls[-1][5], 7)  # the stream

    def test_moved_tensor_rewritten_in_a_copy(self):
        self.bound.run((0x900000, 0x10000, 0x110000), 0)
        (call,) = self.replaced()
        self.assertEqual(call[2], 0x900000)
        # The rewritten map is the bound launch's copy, not one the
        # runtime's map cache shares with other launches.
        cache = self.kernel._tensor_maps
        shared = [cache.get(key) for key in cache.keys()]
        self.assertTrue(shared)
        self.assertFalse(any(call[1] is m for m in shared))
        # Moving back rewrites again; running twice at one address once.
        self.bound.run((0x900000, 0x10000, 0x110000), 0)
        self.assertEqual(len(self.replaced()), 1)
        self.bound.run((0x210000, 0x10000, 0x110000), 0)
        self.assertEqual(len(self.replaced()), 2)

    def test_params_point_at_the_copies(self):
        launches = [c for c in self.driver.calls if c[0] == "launch"]
        self.assertEqual(launches, [])  # bind launches nothing
        self.bound.run((0x210000, 0x10000, 0x110000), 0)
        params = self.driver.calls[-1][6]
        addresses = [params[i] for i in range(len(params))]
        maps = [obj.address for slot in self.bound._slots
                for kind, obj in slot if kind == "tensor_map"]
        self.assertTrue(maps)
        for address in maps:
            self.assertIn(address, addresses)

    def test_strides_set_per_run(self):
        # A kernel reading "a" as a strided memref: a run sets the bound
        # stride and leaves the others as bind found them.
        params = [{"kind": "memref", "tensor": "a", "strided": True},
                  {"kind": "tensor_map", "tensor": "b", "box": [128, 64],
                   "swizzle": 128},
                  {"kind": "memref", "tensor": "c"}]
        kernel = Kernel(gemm_manifest(params=params), b"CUBIN", self.driver)
        t = tensors(0x10000)
        t["a"] = view((1000, 128), strides=(256, 1), ptr=0x10000)
        bound = kernel.bind(t, order=("a", "b", "c"), strides=(("a", 0),))
        bound.run((0x10000, 0x110000, 0x210000), 0, (512,))
        params = self.driver.calls[-1][6]
        values = [ctypes.c_int64.from_address(params[i]).value
                  for i in range(len(params))]
        # a: allocated, aligned, offset, sizes (2), strides (2); b's map.
        self.assertEqual(values[5:7], [512, 1])
        self.assertEqual(values[3:5], [1000, 128])
        with self.assertRaisesRegex(ValueError, "no stride 0 a run can set"):
            kernel.bind(t, order=("a", "b", "c"), strides=(("c", 0),))
        with self.assertRaisesRegex(ValueError, "no stride 2"):
            kernel.bind(t, order=("a", "b", "c"), strides=(("a", 2),))

    def test_order_must_name_every_tensor(self):
        with self.assertRaisesRegex(ValueError, "takes tensors"):
            self.kernel.bind(self.t, order=("a", "b"))


if __name__ == "__main__":
    unittest.main()
