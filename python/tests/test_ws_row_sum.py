"""The manifest of examples/ws-row-sum.mlir's kernel
(tests/data/ws-row-sum.json): its launch matches what test/GPU/ws_row_sum.py
passes by hand."""

import ctypes
import unittest

from fmha.runtime.kernel import Kernel
from fmha.runtime.manifest import load_manifest

from .fakes import FakeDriver, data_path, view


def read(address, ctype):
    return ctypes.cast(address, ctypes.POINTER(ctype)).contents.value


class WsRowSumTest(unittest.TestCase):
    def setUp(self):
        self.manifest = load_manifest(data_path("ws-row-sum.json"))
        self.driver = FakeDriver()
        self.kernel = Kernel(self.manifest, b"cubin", self.driver)

    def test_manifest(self):
        m = self.manifest
        self.assertEqual((m.entry, m.target, m.block, m.dynamic_smem),
                         ("row_sum", "sm_90a", (256, 1, 1), 32800))
        self.assertEqual([p.kind for p in m.params],
                         ["tensor_map", "memref", "scalar", "scalar"])

    def test_launch(self):
        rows, tiles = 1000, 3
        a = view((rows, 64 * tiles), "bf16")
        out = view((rows,), "f32")
        self.kernel(a=a, out=out)
        _, func, grid, block, smem, stream, array, cluster = \
            self.driver.calls[-1]
        self.assertEqual((grid, block, smem, cluster),
                         ((8, 1, 1), (256, 1, 1), 32800, (1, 1, 1)))
        self.assertNotIn("set_max_dynamic_smem", self.driver.names())

        tmap, = self.driver.encoded
        self.assertEqual(tmap.data_type, 9)
        self.assertEqual(tmap.global_dim, (192, 1000))
        self.assertEqual(tmap.global_strides, (384,))
        self.assertEqual(tmap.box_dim, (64, 128))
        self.assertEqual(tmap.swizzle, 0)

        # tensor map, out's memref (allocated, aligned, offset, size,
        # stride), rows, num_tiles: as test/GPU/ws_row_sum.py passes them.
        launch = self.kernel.prepare({"a": a, "out": out})
        self.assertEqual(launch.params.entries[1:], [
            ("ptr", out.data_ptr), ("ptr", out.data_ptr), ("i64", 0),
            ("i64", rows), ("i64", 1), ("i32", rows), ("i32", tiles)])
        values = [read(launch.params.array[i], t) for i, t in enumerate(
            [ctypes.c_uint64] * 2 + [ctypes.c_int64] * 3 +
            [ctypes.c_int32] * 2, start=1)]
        self.assertEqual(values, [out.data_ptr, out.data_ptr, 0, rows, 1,
                                  rows, tiles])

    def test_partial_last_tile(self):
        # 200 columns: 4 tiles, the last one half out of bounds (zero-filled
        # by TMA).
        launch = self.kernel.prepare({"a": view((300, 200), "bf16"),
                                      "out": view((300,), "f32")})
        self.assertEqual(launch.grid, (3, 1, 1))
        self.assertEqual(launch.params.entries[-2:], [("i32", 300),
                                                      ("i32", 4)])

    def test_mismatched_rows(self):
        with self.assertRaisesRegex(ValueError, "tensor 'out' has rows = 999 "
                                    "but 'a' gave rows = 1000"):
            self.kernel(a=view((1000, 64), "bf16"), out=view((999,), "f32"))


if __name__ == "__main__":
    unittest.main()
