"""Kernel: the checks before a launch and the launch itself, with a fake
driver and fake tensors."""

import json
import os
import tempfile
import unittest

from fmha.runtime.errors import ManifestError, TensorMapError
from fmha.runtime.kernel import Kernel, check_layout
from fmha.runtime.manifest import parse_manifest

from .fakes import FakeDriver, gemm_json, gemm_manifest, view


def gemm_kernel(driver=None, **changes):
    return Kernel(gemm_manifest(**changes), b"CUBIN", driver or FakeDriver())


def gemm_tensors(M=1000, N=256, K=128, **override):
    t = {"a": view((M, K)), "b": view((N, K)), "c": view((M, N))}
    t.update(override)
    return t


class LaunchTest(unittest.TestCase):
    def test_launch(self):
        drv = FakeDriver()
        k = gemm_kernel(drv)
        t = gemm_tensors()
        k(**t)
        launch = drv.calls[-1]
        self.assertEqual(launch[0], "launch")
        _, func, grid, block, smem, stream, params, cluster = launch
        self.assertEqual(func, 0xF00)
        self.assertEqual(grid, (4, 2, 1))
        self.assertEqual(block, (384, 1, 1))
        self.assertEqual(smem, 196608)
        self.assertEqual(stream, 0)
        self.assertEqual(cluster, (1, 1, 1))
        self.assertEqual(len(params), 6)
        self.assertEqual([a.tensor for a in drv.encoded], ["a", "b", "c"])
        self.assertEqual(drv.encoded[0].global_address, t["a"].data_ptr)
        # 192 KiB of dynamic shared memory needs the raised limit.
        self.assertIn(("set_max_dynamic_smem", 0xF00, 196608), drv.calls)
        self.assertIn(("get_function", "gemm_bf16", b"CUBIN"), drv.calls)
        self.assertNotIn("allow_non_portable_cluster", drv.names())

    def test_prepare(self):
        k = gemm_kernel()
        launch = k.prepare(gemm_tensors(M=513, N=136, K=64))
        self.assertEqual(launch.symbols, {"M": 513, "K": 64, "N": 136})
        self.assertEqual(launch.grid, (3, 2, 1))
        self.assertEqual(launch.device, 0)
        self.assertEqual([v for _, v in launch.params.entries[3:]],
                         [513, 136, 64])

    def test_small_smem_keeps_the_default_limit(self):
        drv = FakeDriver()
        gemm_kernel(drv, dynamic_smem=48 * 1024)(**gemm_tensors())
        self.assertNotIn("set_max_dynamic_smem", drv.names())

    def test_cluster(self):
        drv = FakeDriver()
        gemm_kernel(drv, cluster=[2, 1, 1])(**gemm_tensors(M=1024))
        self.assertEqual(drv.calls[-1][-1], (2, 1, 1))
        self.assertNotIn("allow_non_portable_cluster", drv.names())
        drv = FakeDriver()
        gemm_kernel(drv, cluster=[16, 1, 1],
                    grid=[16, 1, 1])(**gemm_tensors())
        self.assertIn(("allow_non_portable_cluster", 0xF00), drv.calls)

    def test_num_sms(self):
        drv = FakeDriver(sms=78)
        gemm_kernel(drv, grid=[{"mul": ["num_sms", 2]}, 1, 1])(
            **gemm_tensors())
        self.assertEqual(drv.calls[-1][2], (156, 1, 1))
        self.assertIn(("multiprocessor_count", 0), drv.calls)

    def test_num_sms_of_clusters(self):
        # In clusters, num_sms is what whole clusters occupy at once: 132
        # SMs of which 4 cannot join a cluster of two give 128 CTAs, one
        # wave, where 132 would leave two clusters for a second one.
        drv = FakeDriver(sms=132)
        drv.clusters_short = 4
        gemm_kernel(drv, cluster=[2, 1, 1], dynamic_smem=200000,
                    grid=[{"mul": [{"ceildiv": ["num_sms", 2]}, 2]}, 1, 1])(
            **gemm_tensors())
        self.assertEqual(drv.calls[-1][2], (128, 1, 1))
        self.assertIn(("max_active_clusters", 0xF00, (384, 1, 1), 200000,
                       (2, 1, 1)), drv.calls)
        self.assertNotIn("multiprocessor_count", drv.names())
        # The dynamic shared memory limit is raised before the query.
        names = drv.names()
        self.assertLess(names.index("set_max_dynamic_smem"),
                        names.index("max_active_clusters"))

    def test_streams(self):
        class Stream:
            cuda_stream = 0x5555

            class device:
                index = 0

        drv = FakeDriver()
        k = gemm_kernel(drv)
        k.launch(gemm_tensors(), stream=0x1234)
        self.assertEqual(drv.calls[-1][5], 0x1234)
        k.launch(gemm_tensors(), stream=Stream())
        self.assertEqual(drv.calls[-1][5], 0x5555)
        Stream.device.index = 1
        with self.assertRaisesRegex(ValueError, "the stream is on cuda:1 but "
                                    "the tensors are on cuda:0"):
            k.launch(gemm_tensors(), stream=Stream())
        with self.assertRaisesRegex(TypeError, "stream: expected"):
            k.launch(gemm_tensors(), stream="default")

    def test_no_current_context_uses_the_primary_one(self):
        drv = FakeDriver(current=None)
        k = gemm_kernel(drv)
        k(**gemm_tensors(a=view((1000, 128), device=1),
                         b=view((256, 128), device=1),
                         c=view((1000, 256), device=1)))
        self.assertEqual(drv.calls[0], ("use_primary_context", 1))

    def test_any_identifier_names_a_tensor(self):
        d = gemm_json()
        d["tensors"] = {"self": {"shape": ["M"], "dtype": "f32",
                                 "role": "input"}}
        d["params"] = [{"kind": "pointer", "tensor": "self"}]
        d["grid"] = [1, 1, 1]
        drv = FakeDriver()
        Kernel(parse_manifest(d), b"CUBIN", drv)(self=view((64,), "f32"))
        self.assertEqual(drv.names()[-1], "launch")

    def test_load(self):
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "gemm.json"), "w") as f:
                json.dump(gemm_json(), f)
            path = os.path.join(tmp, "gemm.json")
            with self.assertRaisesRegex(ManifestError, r"gemm\.json: cubin: "
                                        r"cannot read .*gemm_bf16\.sm_90a\."
                                        "cubin"):
                Kernel.load(path)
            with open(os.path.join(tmp, "gemm_bf16.sm_90a.cubin"),
                      "wb") as f:
                f.write(b"\x7fELF-cubin")
            drv = FakeDriver()
            k = Kernel.load(path, driver=drv)
            self.assertEqual(k.cubin, b"\x7fELF-cubin")
            self.assertEqual(k.name, "gemm_bf16")
            self.assertIn("gemm_bf16 (sm_90a) a: bf16[M, K]", repr(k))
            k(**gemm_tensors())
            self.assertEqual(drv.names()[-1], "launch")


class CheckTest(unittest.TestCase):
    """Each caller mistake is a ValueError that names it, raised before
    anything is launched."""

    def fails(self, pattern, tensors, error=ValueError, driver=None,
              **changes):
        drv = driver or FakeDriver()
        k = gemm_kernel(drv, **changes)
        with self.assertRaisesRegex(error, pattern):
            k.launch(tensors)
        self.assertNotIn("launch", drv.names())
        self.assertNotIn("get_function", drv.names())

    def test_missing_and_unexpected(self):
        t = gemm_tensors()
        del t["b"]
        self.fails(r"^kernel 'gemm_bf16' is missing tensor\(s\) 'b' \(it "
                   r"takes a, b, c\)$", t)
        self.fails(r"^kernel 'gemm_bf16' got unexpected tensor\(s\) 'd' "
                   r"\(it takes a, b, c\)$", gemm_tensors(d=view((8, 8))))

    def test_not_a_tensor(self):
        self.fails(r"^tensor 'a': expected a torch\.Tensor or a "
                   r"fmha\.runtime\.TensorView, got list$",
                   gemm_tensors(a=[1, 2]), error=TypeError)

    def test_dtype(self):
        self.fails(r"^tensor 'b' has dtype fake\.f16 but the kernel expects "
                   r"bf16$", gemm_tensors(b=view((256, 128), "f16")))
        self.fails(r"^tensor 'c' has dtype fake\.i64 but the kernel expects "
                   r"bf16$", gemm_tensors(c=view((1000, 256), "i64")))

    def test_rank_and_sizes(self):
        self.fails(r"^tensor 'c' has rank 1 \(shape \[1000\]\) but the kernel"
                   r" expects rank 2 \[M, N\]$",
                   gemm_tensors(c=view((1000,))))
        self.fails(r"^tensor 'b' has K = 100 but 'a' gave K = 128$",
                   gemm_tensors(b=view((256, 100))))

    def test_devices(self):
        self.fails(r"^tensor 'a' is on cpu; the kernel needs CUDA tensors$",
                   gemm_tensors(a=view((1000, 128), device=None)))
        self.fails(r"^tensor 'c' is on cuda:1 but 'a' is on cuda:0; all "
                   r"tensors must be on one device$",
                   gemm_tensors(c=view((1000, 256), device=1)))
        self.fails(r"^the tensors are on cuda:0 but the current CUDA device "
                   r"is cuda:1 \(launch inside `with torch\.cuda\.device\(0\)"
                   r":`\)$", gemm_tensors(), driver=FakeDriver(current=1))

    def test_capability(self):
        self.fails(r"^kernel 'gemm_bf16' is compiled for sm_90a \(compute "
                   r"capability 9\.0\) but cuda:0 has compute capability "
                   r"10\.0$", gemm_tensors(),
                   driver=FakeDriver(capability=(10, 0)))
        self.fails(r"compiled for sm_100a \(compute capability 10\.0\) but "
                   r"cuda:0 has compute capability 9\.0$", gemm_tensors(),
                   target="sm_100a")
        drv = FakeDriver(capability=(10, 0))
        gemm_kernel(drv, target="sm_100a")(**gemm_tensors())
        self.assertEqual(drv.names()[-1], "launch")

    def test_layout(self):
        self.fails(r"^tensor 'a' must be contiguous in its innermost "
                   r"dimension \(stride 1\), but has strides \[1, 1000\] for "
                   r"shape \[1000, 128\]$",
                   gemm_tensors(a=view((1000, 128), strides=(1, 1000))))
        self.fails(r"^tensor 'a' has a stride of 132 elements \(264 bytes\) "
                   r"in dimension 0; strides other than the innermost must be"
                   r" multiples of 16 bytes$",
                   gemm_tensors(a=view((1000, 128), strides=(132, 1))))
        self.fails(r"^tensor 'b' starts at 0x7f0000000002, which is not "
                   r"16-byte aligned$",
                   gemm_tensors(b=view((256, 128), ptr=0x7F0000000002)))

    def test_tensor_map_rules(self):
        # Empty tensors have no tensor map (sizes must be at least 1).
        self.fails(r"^tensor map of 'a': sizes must be in \[1, 2\^32\]",
                   gemm_tensors(M=0), error=TensorMapError, grid=[1, 1, 1])

    def test_grid(self):
        self.fails(r"grid x = ceildiv\(M, 256\) = 0 with M = 0, K = 128, "
                   r"N = 256 is outside", gemm_tensors(M=0))

    def test_check_layout_alone(self):
        check_layout("x", view((7, 8), "bf16"))
        with self.assertRaisesRegex(ValueError, "has 1 strides for shape"):
            check_layout("x", view((7, 8), strides=(8,)))

    def test_memref_tensors_need_only_be_dense(self):
        """A tensor passed only as a memref (attention's lse): any sizes,
        element alignment, but dense row-major."""
        d = gemm_json()
        d["tensors"]["lse"] = {"shape": ["M", "S"], "dtype": "f32",
                               "role": "output"}
        d["params"].append({"kind": "memref", "tensor": "lse"})
        drv = FakeDriver()
        k = Kernel(parse_manifest(d), b"CUBIN", drv)
        # 5 f32 per row (20 bytes) and a 4-byte aligned start: fine.
        k(**gemm_tensors(lse=view((1000, 5), "f32", ptr=0x7F0000000104)))
        self.assertEqual(drv.names()[-1], "launch")
        k(**gemm_tensors(lse=view((1000, 1), "f32", strides=(1, 7))))
        with self.assertRaisesRegex(
                ValueError, r"^tensor 'lse' must be dense and row-major "
                r"\(strides \[5, 1\] for shape \[1000, 5\]\), but has strides "
                r"\[8, 1\]"):
            k(**gemm_tensors(lse=view((1000, 5), "f32", strides=(8, 1))))
        with self.assertRaisesRegex(ValueError, "must be dense"):
            k(**gemm_tensors(lse=view((1000, 5), "f32", strides=(1, 1000))))
        with self.assertRaisesRegex(
                ValueError, r"^tensor 'lse' starts at 0x7f0000000102, which "
                r"is not aligned to its 4-byte elements$"):
            k(**gemm_tensors(lse=view((1000, 5), "f32", ptr=0x7F0000000102)))
        check_layout("x", view((0, 3), "f32", strides=(9, 9)), tma=False)


if __name__ == "__main__":
    unittest.main()
