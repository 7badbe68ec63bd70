"""The ctypes layer through the real C ABI: a stand-in libcuda compiled
against cuda.h (tests/native/fake_libcuda.c) logs what it receives, read
with the header's own types. Skipped without a C compiler or cuda.h."""

import ctypes
import os
import shutil
import subprocess
import tempfile
import unittest

from fmha.runtime.driver import Driver
from fmha.runtime.errors import CudaError
from fmha.runtime.kernel import Kernel
from fmha.runtime.manifest import load_manifest
from fmha.runtime.tensormap import L2_PROMOTION

from .fakes import FakeDriver, data_path, gemm_manifest, view
from .test_driver import _cuda_header

HERE = os.path.dirname(os.path.abspath(__file__))
COMPILER = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")


@unittest.skipUnless(COMPILER and _cuda_header(),
                     "needs a C compiler and cuda.h (set CUDA_HOME)")
class NativeDriverTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        lib = os.path.join(cls.tmp, "libfakecuda.so")
        include = os.path.dirname(_cuda_header())
        subprocess.run([COMPILER, "-shared", "-fPIC", "-O1", "-I", include,
                        os.path.join(HERE, "native", "fake_libcuda.c"), "-o",
                        lib], check=True, capture_output=True)
        cls.lib = ctypes.CDLL(lib)
        cls.lib.fake_log.restype = ctypes.c_char_p
        cls.lib.fake_reset.argtypes = [ctypes.c_int]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        self.lib.fake_reset(0)
        self.driver = Driver(self.lib)

    def log(self):
        return self.lib.fake_log().decode().splitlines()

    def test_init_and_devices(self):
        self.assertEqual(self.log(), ["cuInit 0"])
        self.assertEqual(self.driver.compute_capability(0), (9, 0))
        self.assertEqual(self.driver.multiprocessor_count(0), 132)
        self.assertEqual(self.driver.current_device(), 0)

    def test_error(self):
        with self.assertRaisesRegex(CudaError, r"^cuCtxSynchronize failed: "
                                    r"CUDA_ERROR_INVALID_VALUE \(1\): invalid "
                                    r"argument$"):
            self.driver.synchronize()

    def test_ws_row_sum_launch(self):
        manifest = load_manifest(data_path("ws-row-sum.json"))
        kernel = Kernel(manifest, b"\x7fELFfake-cubin", self.driver)
        a = view((1000, 192), "bf16", ptr=0x7F0000001000)
        out = view((1000,), "f32", ptr=0x7F0000100000)
        launch = kernel.prepare({"a": a, "out": out}, stream=0x5150)
        self.lib.fake_reset(len(launch.params))
        self.driver.launch(launch.function, launch.grid, launch.block,
                           launch.dynamic_smem, launch.stream,
                           launch.params.array, launch.cluster)
        params = " ".join(f"{launch.params.array[i]:x}"
                          for i in range(len(launch.params)))
        self.assertEqual(self.log(), [
            "cuLaunchKernel 1 grid 8 1 1 block 256 1 1 smem 32800 stream "
            f"5150 extra 1 params {params}"])
        tmap = launch.params.storage[0]
        self.assertEqual(tmap.to_bytes(), b"\xab" * 128)

    def test_module_and_tensor_map(self):
        manifest = load_manifest(data_path("ws-row-sum.json"))
        kernel = Kernel(manifest, b"\x7fELFfake-cubin", self.driver)
        self.lib.fake_reset(0)
        kernel.prepare({"a": view((1000, 192), "bf16", ptr=0x7F0000001000),
                        "out": view((1000,), "f32")})
        self.assertEqual(self.log(), [
            "cuTensorMapEncodeTiled aligned 1 type 9 rank 2 addr 7f0000001000"
            " dims 192 1000 strides 384 box 64 128 elem 1 1 interleave 0 "
            f"swizzle 0 l2 {L2_PROMOTION} oob 0",
            "cuModuleLoadData \x7fELFfake",
            "cuModuleGetFunction 1 row_sum"])

    def test_cluster_launch_and_smem(self):
        kernel = Kernel(gemm_manifest(cluster=[2, 1, 1]), b"cubin",
                        self.driver)
        tensors = {"a": view((1024, 128)), "b": view((256, 128)),
                   "c": view((1024, 256))}
        self.lib.fake_reset(0)
        launch = kernel.prepare(tensors)
        self.assertIn("cuFuncSetAttribute 1 8 196608", self.log())
        self.lib.fake_reset(len(launch.params))
        self.driver.launch(launch.function, launch.grid, launch.block,
                           launch.dynamic_smem, 0, launch.params.array,
                           launch.cluster)
        params = " ".join(f"{launch.params.array[i]:x}"
                          for i in range(len(launch.params)))
        self.assertEqual(self.log(), [
            "cuLaunchKernelEx 1 grid 4 2 1 block 384 1 1 smem 196608 stream 0"
            f" extra 1 attrs 1 id 4 cluster 2 1 1 params {params}"])

    def test_persistent_grid_of_clusters(self):
        # num_sms of a cluster kernel: what cuOccupancyMaxActiveClusters
        # says whole clusters occupy (64 clusters of two, not 132 SMs).
        kernel = Kernel(gemm_manifest(
            cluster=[2, 1, 1],
            grid=[{"mul": [{"ceildiv": ["num_sms", 2]}, 2]}, 1, 1]),
            b"cubin", self.driver)
        tensors = {"a": view((1024, 128)), "b": view((256, 128)),
                   "c": view((1024, 256))}
        self.lib.fake_reset(0)
        launch = kernel.prepare(tensors)
        self.assertEqual(launch.grid, (128, 1, 1))
        self.assertIn("cuOccupancyMaxActiveClusters 1 grid 2 block 384 smem "
                      "196608 attrs 1 cluster 2", self.log())
        # A bound launcher keeps its configuration; the stream is per call.
        go = self.driver.launcher(launch.function, launch.grid, launch.block,
                                  launch.dynamic_smem, launch.params.array,
                                  launch.cluster)
        self.lib.fake_reset(len(launch.params))
        go(0x1234)
        go(0x5678)
        log = self.log()
        self.assertEqual(len(log), 2)
        self.assertTrue(log[0].startswith(
            "cuLaunchKernelEx 1 grid 128 1 1 block 384 1 1 smem 196608 "
            "stream 1234 extra 1 attrs 1 id 4 cluster 2 1 1"), log[0])
        self.assertIn("stream 5678", log[1])

    def test_same_params_as_the_fake_driver(self):
        # The fake driver used elsewhere sees what the native one does.
        manifest = load_manifest(data_path("ws-row-sum.json"))
        tensors = {"a": view((300, 200), "bf16"), "out": view((300,), "f32")}
        native = Kernel(manifest, b"c", self.driver).prepare(tensors)
        fake = Kernel(manifest, b"c", FakeDriver()).prepare(tensors)
        self.assertEqual(native.params.entries, fake.params.entries)
        self.assertEqual(native.grid, fake.grid)


if __name__ == "__main__":
    unittest.main()
