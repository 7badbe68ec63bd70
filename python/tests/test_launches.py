"""Manifests of several launches (docs/Manifest.md, "Several launches"):
parsing, one Kernel running every launch in order on one stream, scratch
tensors shared by the launches, and bound launches covering them all,
with a fake driver. The data file is the manifest the compiler writes for
fmha.attention_backward (bf16, head dim 128): its prep, dK/dV and dQ
kernels."""

import ctypes
import unittest

from fmha.runtime.errors import ManifestError
from fmha.runtime.kernel import Kernel
from fmha.runtime.manifest import load_manifest, parse_manifest

from .fakes import FakeDriver, data_path, load_data, view

BACKWARD = "attention-backward.json"


def tensors(kernel, B=2, H=4, SQ=300, SK=200, D=128, base=0x10000):
    """The caller's tensors and the scratch tensors of the backward's
    manifest, at distinct aligned addresses."""
    t = {}
    shapes = {"q": (B, H, SQ, D), "k": (B, H, SK, D), "v": (B, H, SK, D),
              "o": (B, H, SQ, D), "do": (B, H, SQ, D), "lse": (B, H, SQ),
              "dq": (B, H, SQ, D), "dk": (B, H, SK, D), "dv": (B, H, SK, D)}
    for i, (name, shape) in enumerate(shapes.items()):
        t[name] = view(shape, "f32" if name == "lse" else "bf16",
                       ptr=base + 0x1000000 * i)
    specs = kernel.scratch_shapes({n: v.shape for n, v in t.items()})
    for i, (name, (shape, _, dtype)) in enumerate(specs.items()):
        t[name] = view(shape, dtype, ptr=base + 0x40000000 * (i + 1))
    return t


class ParseTest(unittest.TestCase):
    def test_compiler_manifest(self):
        m = load_manifest(data_path(BACKWARD))
        self.assertEqual([s.entry for s in m.steps],
                         ["attention_backward_bf16_d128_prep",
                          "attention_backward_bf16_d128_dkdv",
                          "attention_backward_bf16_d128_dq"])
        self.assertEqual(m.entry, m.steps[0].entry)
        self.assertEqual([t for t, s in m.tensors.items() if s.scratch],
                         ["d_lse"])
        self.assertEqual(len(m.all_params()), 4 + 12 + 11)

    def test_single_kernel_manifest_has_one_step(self):
        m = load_manifest(data_path("ws-row-sum.json"))
        self.assertEqual(m.launches, ())
        (step,) = m.steps
        self.assertEqual((step.entry, step.params, step.grid),
                         (m.entry, m.params, m.grid))

    def check(self, pattern, mutate):
        data = load_data(BACKWARD)
        mutate(data)
        with self.assertRaisesRegex(ManifestError, "^m.json: " + pattern):
            parse_manifest(data, source="m.json")

    def test_errors_name_the_launch(self):
        self.check(r"launches: expected a non-empty list",
                   lambda d: d.update(launches=[]))
        self.check(r"launches\[1\]: expected an object",
                   lambda d: d["launches"].__setitem__(1, 3))
        self.check(r"launches\[1\]: missing required key 'grid'",
                   lambda d: d["launches"][1].pop("grid"))
        self.check(r"launches\[0\].params\[1\].tensor: unknown tensor "
                   r"\"dO\"",
                   lambda d: d["launches"][0]["params"][1].update(
                       tensor="dO"))
        self.check(r"launches\[1\].grid\[1\]: unknown size symbol 'HQ'",
                   lambda d: d["launches"][1]["grid"].__setitem__(1, "HQ"))
        self.check(r"launches\[0\].block: \[2048, 1, 1\] has 2048 threads",
                   lambda d: d["launches"][0].update(block=[2048, 1, 1]))
        self.check(r"grid: a manifest with launches has no top-level "
                   r"'grid'", lambda d: d.update(grid=[1, 1, 1]))


class LaunchTest(unittest.TestCase):
    def setUp(self):
        self.driver = FakeDriver()
        self.kernel = Kernel(load_manifest(data_path(BACKWARD)), b"CUBIN",
                             self.driver)

    def launches(self):
        return [c for c in self.driver.calls if c[0] == "launch"]

    def test_scratch_shapes(self):
        shapes = self.kernel.scratch_shapes(
            {n: v.shape for n, v in tensors(self.kernel).items()
             if n != "d_lse"})
        self.assertEqual(shapes, {"d_lse": ((2, 4, 2, 320), "scratch", "f32")})
        self.assertEqual(self.kernel.scratch_names, ("d_lse",))

    def test_launches_in_order_on_one_stream(self):
        t = tensors(self.kernel)
        self.kernel.launch(t, stream=5)
        prep, dkdv, dq = self.launches()
        entries = [c[1] for c in self.driver.calls
                   if c[0] == "get_function"]
        self.assertEqual(entries, [s.entry for s in
                                   self.kernel.manifest.steps])
        self.assertEqual(prep[2], (5, 4, 2))  # ceildiv(300, 64), H, B
        self.assertEqual(dkdv[2], (2, 4, 2))  # ceildiv(200, 128), HKV, B
        self.assertEqual(dq[2], (3, 4, 2))  # ceildiv(300, 128), H, B
        self.assertEqual((dkdv[3], dkdv[4]), ((384, 1, 1), 131120))
        self.assertEqual((prep[5], dkdv[5], dq[5]), (5, 5, 5))
        # prep: 4 memrefs of ranks 4, 4, 3, 4.
        self.assertEqual(len(prep[6]), 3 * 4 + 2 * (4 + 4 + 3 + 4))
        # A second call on the same tensors reuses the prepared launches.
        self.kernel.launch(t, stream=6)
        self.assertEqual(len(self.launches()), 6)
        self.assertEqual([c[5] for c in self.launches()[3:]], [6, 6, 6])
        self.assertEqual(self.kernel.cache_info()["launches"]["hits"], 1)

    def test_scratch_shape_checked(self):
        t = tensors(self.kernel)
        t["d_lse"] = view((2, 4, 2, 300), "f32")
        with self.assertRaisesRegex(ValueError, r"tensor 'd_lse' \(a scratch "
                                    r"tensor of the kernel\) has shape "
                                    r"\[2, 4, 2, 300\] but the kernel "
                                    r"expects \[2, 4, 2, 320\]"):
            self.kernel.launch(t)
        self.assertEqual(self.launches(), [])

    def test_bound_launch_runs_every_launch(self):
        t = tensors(self.kernel)
        order = tuple(t)
        bound = self.kernel.bind(t, order=order)
        self.assertEqual(self.launches(), [])
        ptrs = tuple(t[n].data_ptr for n in order)
        bound.run(ptrs, 3)
        self.assertEqual([c[5] for c in self.launches()], [3, 3, 3])
        # d_lse moves: its address changes in every launch's parameters
        # (a memref's allocated and aligned pointers).
        moved = ptrs[:-1] + (0x990000000,)
        bound.run(moved, 3)

        def values(params):
            return [ctypes.c_uint64.from_address(params[i]).value
                    for i in range(len(params))]
        for launch in self.launches()[3:]:
            self.assertEqual(values(launch[6]).count(0x990000000), 2)

    def test_tma_rules_from_any_launch(self):
        t = tensors(self.kernel)
        good = t["q"]
        t["q"] = view((2, 4, 300, 128), strides=(4 * 300 * 128, 300 * 128,
                                                 128, 2), ptr=0x7000000)
        with self.assertRaisesRegex(ValueError, "tensor 'q' must be "
                                    "contiguous in its innermost"):
            self.kernel.launch(t)
        self.assertEqual(self.launches(), [])
        t["q"] = good
        self.kernel.launch(t)
        self.assertEqual(len(self.launches()), 3)
        self.assertIn(("set_max_dynamic_smem", 0xF00, 131120),
                      self.driver.calls)

    def test_grid_error_names_the_launch(self):
        data = load_data(BACKWARD)
        data["launches"][1]["grid"] = [{"ceildiv": ["SK", 128]}, "HKV",
                                       {"mul": ["B", 100000]}]
        kernel = Kernel(parse_manifest(data), b"CUBIN", self.driver)
        with self.assertRaisesRegex(ValueError, "kernel 'attention_backward_"
                                    "bf16_d128' launch 'attention_backward_"
                                    "bf16_d128_dkdv': grid z"):
            kernel.launch(tensors(kernel))
        self.assertEqual(self.launches(), [])


if __name__ == "__main__":
    unittest.main()
