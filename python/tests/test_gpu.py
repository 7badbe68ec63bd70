"""The runtime against PyTorch and the real CUDA driver. Skipped without
PyTorch (the torch adapter) or without a CUDA device (the driver)."""

import unittest

try:
    import torch
except ImportError:  # the runtime itself never needs it
    torch = None

from fmha.runtime.errors import CudaError
from fmha.runtime.kernel import Kernel
from fmha.runtime.tensormap import tensor_map_args
from fmha.runtime.tensors import as_view, current_torch_stream

from .fakes import gemm_manifest

HAS_CUDA = torch is not None and torch.cuda.is_available()


@unittest.skipIf(torch is None, "no PyTorch")
class TorchAdapterTest(unittest.TestCase):
    def test_view(self):
        t = torch.zeros(6, 64, dtype=torch.bfloat16)[:, :32]
        v = as_view(t, "t")
        self.assertEqual(v.shape, (6, 32))
        self.assertEqual(v.strides, (64, 1))
        self.assertEqual(v.itemsize, 2)
        self.assertEqual(v.data_ptr, t.data_ptr())
        self.assertEqual(v.dtype, "bf16")
        self.assertIsNone(v.device)
        self.assertEqual(v.describe_device(), "cpu")

    def test_dtypes(self):
        for dtype, name in ((torch.float16, "f16"), (torch.float32, "f32"),
                            (torch.bfloat16, "bf16"),
                            (torch.float8_e4m3fn, "f8e4m3"),
                            (torch.int64, None)):
            self.assertEqual(as_view(torch.zeros(2, dtype=dtype)).dtype, name)
        self.assertEqual(as_view(torch.zeros(2, dtype=torch.int64))
                         .describe_dtype(), "torch.int64")


@unittest.skipUnless(HAS_CUDA, "no CUDA device")
class DriverTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.zeros(1, device="cuda")  # PyTorch creates its context first
        from fmha.runtime.driver import get_driver
        cls.driver = get_driver()

    def test_device_attributes(self):
        dev = torch.cuda.current_device()
        self.assertEqual(self.driver.current_device(), dev)
        self.assertEqual(self.driver.compute_capability(dev),
                         torch.cuda.get_device_capability(dev))
        self.assertEqual(self.driver.multiprocessor_count(dev),
                         torch.cuda.get_device_properties(dev)
                         .multi_processor_count)

    def test_stream(self):
        dev = torch.cuda.current_device()
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            self.assertEqual(current_torch_stream(dev), s.cuda_stream)

    def test_bad_cubin(self):
        with self.assertRaises(CudaError) as cm:
            self.driver.get_function("not-a-cubin", b"not a cubin", "k")
        self.assertEqual(cm.exception.call, "cuModuleLoadData")
        self.assertTrue(cm.exception.name.startswith("CUDA_ERROR_"),
                        str(cm.exception))

    @unittest.skipUnless(HAS_CUDA and torch.cuda.get_device_capability()[0]
                         >= 9, "tensor maps need sm_90 or newer")
    def test_encode_tensor_map(self):
        a = torch.zeros(1000, 192, dtype=torch.bfloat16, device="cuda")
        args = tensor_map_args("a", as_view(a), "bf16", (128, 64), 128)
        tmap = self.driver.encode_tensor_map(args)
        self.assertNotEqual(tmap.to_bytes(), bytes(128))

    def test_checks_with_torch_tensors(self):
        k = Kernel(gemm_manifest(), b"", self.driver)
        a = torch.zeros(64, 128, dtype=torch.float16, device="cuda")
        b = torch.zeros(64, 128, dtype=torch.bfloat16, device="cuda")
        c = torch.zeros(64, 64, dtype=torch.bfloat16, device="cuda")
        with self.assertRaisesRegex(ValueError, r"tensor 'a' has dtype "
                                    r"torch\.float16 but the kernel expects "
                                    "bf16"):
            k(a=a, b=b, c=c)
        with self.assertRaisesRegex(ValueError, "tensor 'a' is on cpu"):
            k(a=torch.zeros(64, 128, dtype=torch.bfloat16), b=b, c=c)


if __name__ == "__main__":
    unittest.main()
