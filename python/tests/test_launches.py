"""Manifests of several launches (docs/Manifest.md, "Several launches"):
parsing, one Kernel running every launch in order on one stream, scratch
tensors shared by the launches, and bound launches covering them all,
with a fake driver. The data file is the manifest the compiler writes for
fmha.attention_backward's prep and post kernels."""

import copy
import unittest

from fmha.runtime.errors import ManifestError
from fmha.runtime.kernel import Kernel
from fmha.runtime.manifest import load_manifest, parse_manifest

from .fakes import FakeDriver, data_path, load_data, view

PREP_POST = "attention-backward-prep-post.json"


def tensors(kernel, B=2, H=4, SQ=300, D=128, base=0x10000):
    """The caller's tensors and the scratch tensors of the prep/post
    manifest, at distinct aligned addresses."""
    t = {"o": view((B, H, SQ, D), ptr=base),
         "do": view((B, H, SQ, D), ptr=base + 0x1000000),
         "lse": view((B, H, SQ), "f32", ptr=base + 0x2000000),
         "dq": view((B, H, SQ, D), ptr=base + 0x3000000)}
    if "q" in kernel.manifest.tensors:
        t["q"] = view((B, H, SQ, D), ptr=base + 0x3800000)
    specs = kernel.scratch_shapes({n: v.shape for n, v in t.items()})
    for i, (name, (shape, _, dtype)) in enumerate(specs.items()):
        t[name] = view(shape, dtype, ptr=base + 0x4000000 * (i + 2))
    return t


def with_main(data):
    """The prep/post manifest with a third launch between them that reads
    q by TMA (as the main kernels will)."""
    data = copy.deepcopy(data)
    data["tensors"]["q"] = {"shape": ["B", "H", "SQ", 128], "dtype": "bf16",
                            "role": "input"}
    main = copy.deepcopy(data["launches"][0])
    main.update(entry="main", block=[384, 1, 1], dynamic_smem=100000,
                params=[{"kind": "tensor_map", "tensor": "q",
                         "box": [64, 64], "swizzle": 128},
                        {"kind": "memref", "tensor": "d_lse"},
                        {"kind": "scalar", "dtype": "i32", "value": "SQ"}],
                grid=[{"ceildiv": ["SQ", 128]}, "H", "B"])
    data["launches"].insert(1, main)
    return data


class ParseTest(unittest.TestCase):
    def test_compiler_manifest(self):
        m = load_manifest(data_path(PREP_POST))
        self.assertEqual([s.entry for s in m.steps],
                         ["attention_backward_bf16_d128_prep",
                          "attention_backward_bf16_d128_post"])
        self.assertEqual(m.entry, m.steps[0].entry)
        self.assertEqual([t for t, s in m.tensors.items() if s.scratch],
                         ["d_lse", "dq_acc"])
        self.assertEqual(len(m.all_params()), 7)

    def test_single_kernel_manifest_has_one_step(self):
        m = load_manifest(data_path("ws-row-sum.json"))
        self.assertEqual(m.launches, ())
        (step,) = m.steps
        self.assertEqual((step.entry, step.params, step.grid),
                         (m.entry, m.params, m.grid))

    def check(self, pattern, mutate):
        data = load_data(PREP_POST)
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
        self.kernel = Kernel(load_manifest(data_path(PREP_POST)), b"CUBIN",
                             self.driver)

    def launches(self):
        return [c for c in self.driver.calls if c[0] == "launch"]

    def test_scratch_shapes(self):
        shapes = self.kernel.scratch_shapes(
            {"o": (2, 4, 300, 128), "do": (2, 4, 300, 128),
             "lse": (2, 4, 300), "dq": (2, 4, 300, 128)})
        self.assertEqual(shapes, {
            "d_lse": ((2, 4, 2, 320), "scratch", "f32"),
            "dq_acc": ((2, 4, 300, 128), "scratch", "f32")})
        self.assertEqual(self.kernel.scratch_names, ("d_lse", "dq_acc"))

    def test_launches_in_order_on_one_stream(self):
        t = tensors(self.kernel)
        self.kernel.launch(t, stream=5)
        prep, post = self.launches()
        self.assertEqual([c[0] for c in self.driver.calls
                          if c[0] == "get_function"], ["get_function"] * 2)
        entries = [c[1] for c in self.driver.calls
                   if c[0] == "get_function"]
        self.assertEqual(entries, [s.entry for s in
                                   self.kernel.manifest.steps])
        self.assertEqual(prep[2], (5, 4, 2))  # ceildiv(300, 64), H, B
        self.assertEqual(post[2], (5, 4, 2))
        self.assertEqual((prep[5], post[5]), (5, 5))
        # prep: 5 memrefs of ranks 4, 4, 3, 4, 4; post: 2 of rank 4.
        self.assertEqual(len(prep[6]), 3 * 5 + 2 * (4 + 4 + 3 + 4 + 4))
        self.assertEqual(len(post[6]), 3 * 2 + 2 * (4 + 4))
        # A second call on the same tensors reuses the prepared launches.
        self.kernel.launch(t, stream=6)
        self.assertEqual(len(self.launches()), 4)
        self.assertEqual([c[5] for c in self.launches()[2:]], [6, 6])
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
        order = ("o", "do", "lse", "dq", "d_lse", "dq_acc")
        bound = self.kernel.bind(t, order=order)
        self.assertEqual(self.launches(), [])
        ptrs = tuple(t[n].data_ptr for n in order)
        bound.run(ptrs, 3)
        prep, post = self.launches()
        self.assertEqual((prep[5], post[5]), (3, 3))
        # dq_acc moves: its address changes in both launches' parameters.
        import ctypes
        moved = ptrs[:5] + (0x990000000,)
        bound.run(moved, 3)
        prep, post = self.launches()[2:]

        def values(params):
            return [ctypes.c_uint64.from_address(params[i]).value
                    for i in range(len(params))]
        self.assertEqual(values(prep[6]).count(0x990000000), 2)
        self.assertEqual(values(post[6])[:2], [0x990000000] * 2)

    def test_tma_rules_from_any_launch(self):
        kernel = Kernel(parse_manifest(with_main(load_data(PREP_POST))),
                        b"CUBIN", self.driver)
        t = tensors(kernel)
        good = t["q"]
        t["q"] = view((2, 4, 300, 128), strides=(4 * 300 * 128, 300 * 128,
                                                 128, 2), ptr=0x7000000)
        with self.assertRaisesRegex(ValueError, "tensor 'q' must be "
                                    "contiguous in its innermost"):
            kernel.launch(t)
        t["q"] = good
        kernel.launch(t)
        prep, main, post = self.launches()
        self.assertEqual(main[2], (3, 4, 2))
        self.assertEqual(main[3], (384, 1, 1))
        self.assertEqual(main[4], 100000)
        self.assertIn(("set_max_dynamic_smem", 0xF00, 100000),
                      self.driver.calls)
        self.assertEqual(len(self.driver.encoded), 1)

    def test_grid_error_names_the_launch(self):
        data = load_data(PREP_POST)
        data["launches"][1]["grid"] = [{"ceildiv": ["SQ", 64]}, "H",
                                       {"mul": ["B", 100000]}]
        kernel = Kernel(parse_manifest(data), b"CUBIN", self.driver)
        with self.assertRaisesRegex(ValueError, "kernel 'attention_backward_"
                                    "bf16_d128' launch 'attention_backward_"
                                    "bf16_d128_post': grid z"):
            kernel.launch(tensors(kernel))
        self.assertEqual(self.launches(), [])


if __name__ == "__main__":
    unittest.main()
