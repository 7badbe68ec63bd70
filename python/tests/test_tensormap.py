"""The cuTensorMapEncodeTiled rules and arguments, on fake tensors."""

import ctypes
import dataclasses
import unittest

from fmha.runtime.errors import TensorMapError
from fmha.runtime.tensormap import (CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
                                    CU_TENSOR_MAP_INTERLEAVE_NONE,
                                    L2_PROMOTION, TensorMap,
                                    check_tensor_map_args, encode_tensor_map,
                                    full_box, tensor_map_args)

from .fakes import view


class ArgsTest(unittest.TestCase):
    def test_2d_bf16_reversed_for_the_driver(self):
        a = view((1000, 192), "bf16", ptr=0x7F0000000000)
        args = tensor_map_args("a", a, "bf16", (128, 64), 128)
        self.assertEqual(args.data_type, 9)  # CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
        self.assertEqual(args.rank, 2)
        self.assertEqual(args.global_address, 0x7F0000000000)
        self.assertEqual(args.global_dim, (192, 1000))
        self.assertEqual(args.global_strides, (384,))
        self.assertEqual(args.box_dim, (64, 128))
        self.assertEqual(args.element_strides, (1, 1))
        self.assertEqual(args.interleave, CU_TENSOR_MAP_INTERLEAVE_NONE)
        self.assertEqual(args.swizzle, 3)  # CU_TENSOR_MAP_SWIZZLE_128B
        self.assertEqual(args.l2_promotion, L2_PROMOTION)
        self.assertEqual(args.oob_fill, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)

    def test_dtypes_and_swizzles(self):
        cases = [("f16", 6, 2), ("f32", 7, 4), ("f8e4m3", 0, 1),
                 ("bf16", 9, 2)]
        for dtype, enum, size in cases:
            with self.subTest(dtype=dtype):
                args = tensor_map_args("t", view((64, 64), dtype), dtype,
                                       (8, 32 // size), 32)
                self.assertEqual(args.data_type, enum)
                self.assertEqual(args.global_strides, (64 * size,))
                self.assertEqual(args.swizzle, 1)
        for swizzle, enum in ((0, 0), (32, 1), (64, 2), (128, 3)):
            args = tensor_map_args("t", view((64, 64), "f16"), "f16",
                                   (8, 16), swizzle)
            self.assertEqual(args.swizzle, enum)

    def test_short_box_covers_the_innermost_dims(self):
        self.assertEqual(full_box((128, 64), 4), (1, 1, 128, 64))
        q = view((2, 8, 1024, 128), "bf16")
        args = tensor_map_args("q", q, "bf16", (128, 64), 128)
        self.assertEqual(args.global_dim, (128, 1024, 8, 2))
        self.assertEqual(args.global_strides, (256, 256 * 1024,
                                               256 * 1024 * 8))
        self.assertEqual(args.box_dim, (64, 128, 1, 1))
        self.assertEqual(args.element_strides, (1, 1, 1, 1))

    def test_strided_view(self):
        # Rows of a wider matrix: a[:, :64] of a [100, 256] bf16 tensor.
        a = view((100, 64), "bf16", strides=(256, 1))
        args = tensor_map_args("a", a, "bf16", (64, 64), 128)
        self.assertEqual(args.global_dim, (64, 100))
        self.assertEqual(args.global_strides, (512,))

    def test_rank_1(self):
        args = tensor_map_args("x", view((4096,), "f32"), "f32", (256,), 0)
        self.assertEqual(args.global_dim, (4096,))
        self.assertEqual(args.global_strides, ())
        self.assertEqual(args.box_dim, (256,))


class RuleTest(unittest.TestCase):
    """Each rule of cuTensorMapEncodeTiled is named before the driver."""

    def fails(self, pattern, t, box=(64, 64), swizzle=128, dtype="bf16",
              name="a"):
        with self.assertRaisesRegex(TensorMapError, pattern):
            tensor_map_args(name, t, dtype, box, swizzle)

    def test_rank(self):
        self.fails(r"^tensor map of 'a': rank must be in \[1, 5\]: the "
                   r"tensor has rank 6$", view((2,) * 5 + (64,)), box=(64,))

    def test_address_alignment(self):
        self.fails(r"^tensor map of 'a': the global address must be 16-byte "
                   r"aligned: address 0x7f0000000008 is 8 bytes past a "
                   r"16-byte boundary$",
                   view((64, 64), ptr=0x7F0000000008))

    def test_stride_multiple_of_16(self):
        self.fails(r"^tensor map of 'a': strides must be multiples of 16 "
                   r"bytes: dimension 0 has a stride of 100 elements = 200 "
                   r"bytes$", view((64, 100)))
        self.fails(r"strides must be multiples of 16 bytes: dimension 1 has "
                   r"a stride of 36 elements = 72 bytes$",
                   view((4, 64, 36), strides=(64 * 64, 36, 1)), box=(64, 32))

    def test_stride_below_2_40(self):
        self.fails(r"^tensor map of 'a': strides must be below 2\^40 bytes: "
                   r"dimension 0 has a stride of 1099511627776 bytes$",
                   view((4, 64), strides=(2**39, 1)))

    def test_innermost_stride(self):
        self.fails(r"^tensor map of 'a': the innermost stride must be 1 "
                   r"element: shape \[64, 64\] has strides \[1, 64\]$",
                   view((64, 64), strides=(1, 64)))

    def test_dims(self):
        self.fails(r"^tensor map of 'a': sizes must be in \[1, 2\^32\]: "
                   r"dimension 0 of shape \[0, 64\] is 0$", view((0, 64)))
        self.fails(r"sizes must be in \[1, 2\^32\]: dimension 0 of shape "
                   r"\[4294967297, 64\] is 4294967297$",
                   view((2**32 + 1, 64)))

    def test_box_sizes(self):
        self.fails(r"^tensor map of 'a': box sizes must be in \[1, 256\]: "
                   r"box \[257, 64\] has 257 at index 0$", view((512, 64)),
                   box=(257, 64))
        self.fails(r"box sizes must be in \[1, 256\]: box \[0, 64\] has 0",
                   view((512, 64)), box=(0, 64))

    def test_box_rank(self):
        self.fails(r"the box must have 1 to rank entries: box \[2, 64, 64\] "
                   r"has 3 entries for a tensor of rank 2$",
                   view((512, 64)), box=(2, 64, 64))

    def test_box_inner_bytes_multiple_of_16(self):
        self.fails(r"^tensor map of 'a': the box's inner dimension must be a "
                   r"multiple of 16 bytes: box \[64, 12\] of bf16 spans 12 x "
                   r"2 = 24 bytes$", view((64, 64)), box=(64, 12), swizzle=0)
        self.fails(r"multiple of 16 bytes: box \[64, 8\] of f8e4m3 spans 8 x "
                   r"1 = 8 bytes$", view((64, 64), "f8e4m3"), box=(64, 8),
                   dtype="f8e4m3", swizzle=0)

    def test_box_inner_bytes_within_swizzle_span(self):
        for swizzle, inner in ((32, 32), (64, 64), (128, 128)):
            with self.subTest(swizzle=swizzle):
                # Exactly the span is allowed, one more 16-byte chunk is not.
                tensor_map_args("a", view((64, 256)), "bf16",
                                (8, inner // 2), swizzle)
                self.fails(
                    rf"^tensor map of 'a': the box's inner dimension must fit"
                    rf" the swizzle span: box \[8, {inner // 2 + 8}\] of bf16"
                    rf" spans {inner + 16} bytes, more than the "
                    rf"{swizzle}-byte swizzle$", view((64, 256)),
                    box=(8, inner // 2 + 8), swizzle=swizzle)
        # Without swizzle the inner box may be as wide as 256 elements.
        tensor_map_args("a", view((64, 256)), "bf16", (8, 256), 0)

    def test_swizzle_value(self):
        self.fails(r"swizzle must be 0, 32, 64 or 128 bytes: got 256",
                   view((64, 64)), swizzle=256)

    def test_element_strides(self):
        args = tensor_map_args("a", view((64, 64)), "bf16", (64, 64), 128)
        bad = dataclasses.replace(args, element_strides=(1, 2))
        with self.assertRaisesRegex(TensorMapError, r"^tensor map of 'a': "
                                    r"element strides must be 1: got "
                                    r"\[2, 1\]$"):
            check_tensor_map_args(bad)

    def test_driver_order_rules(self):
        args = tensor_map_args("a", view((64, 64)), "bf16", (64, 64), 128)
        cases = [
            (dict(interleave=1), "interleave must be "
             "CU_TENSOR_MAP_INTERLEAVE_NONE"),
            (dict(swizzle=4), "swizzle must be none, 32B, 64B or 128B"),
            (dict(global_strides=(128, 128)), "global_strides must have 1 "
             "entries for rank 2"),
            (dict(box_dim=(128, 64)), r"the box's inner dimension must fit "
             r"the swizzle span: box \[64, 128\] spans 256 bytes"),
        ]
        for change, pattern in cases:
            with self.subTest(change=change):
                with self.assertRaisesRegex(TensorMapError, pattern):
                    check_tensor_map_args(dataclasses.replace(args, **change))

    def test_encode_checks_before_the_driver(self):
        class NoDriver:
            def encode_tensor_map(self, args):
                raise AssertionError("the driver was called")

        args = tensor_map_args("a", view((64, 64)), "bf16", (64, 64), 128)
        bad = dataclasses.replace(args, global_address=args.global_address
                                  + 2)
        with self.assertRaisesRegex(TensorMapError, "16-byte aligned"):
            encode_tensor_map(bad, NoDriver())

    def test_unknown_dtype(self):
        with self.assertRaisesRegex(TensorMapError, "unknown tensor dtype "
                                    "'f64'"):
            tensor_map_args("a", view((64, 64)), "f64", (64, 64), 0)


class TensorMapBufferTest(unittest.TestCase):
    def test_aligned_128_bytes(self):
        maps = [TensorMap() for _ in range(8)]
        for m in maps:
            self.assertEqual(m.address % 128, 0)
            self.assertEqual(m.to_bytes(), bytes(128))
            # The 128 bytes lie inside the buffer the map owns.
            base = ctypes.addressof(m._raw)
            self.assertLessEqual(base, m.address)
            self.assertLessEqual(m.address + 128, base + len(m._raw))


if __name__ == "__main__":
    unittest.main()
