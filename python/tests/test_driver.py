"""The ctypes driver layer, against a fake libcuda (and cuda.h if present)."""

import ctypes
import os
import re
import unittest

from fmha.runtime import driver as drv
from fmha.runtime import dtypes, tensormap
from fmha.runtime.errors import CudaError
from fmha.runtime.tensormap import tensor_map_args

from .fakes import view

ERRORS = {0: ("CUDA_SUCCESS", "no error"),
          1: ("CUDA_ERROR_INVALID_VALUE", "invalid argument"),
          201: ("CUDA_ERROR_INVALID_CONTEXT", "invalid device context")}


def _address(p):
    """Where a ``void **`` argument points: a pointer's target, or an
    array passed as it is (the driver passes the params array unconverted;
    ctypes turns it into a pointer at the C boundary)."""
    if isinstance(p, ctypes.Array):
        return ctypes.addressof(p)
    return ctypes.addressof(p.contents)


class FakeLib:
    """Python stand-ins for libcuda's functions. Outputs are written
    through ``byref`` arguments (``._obj``); every call is recorded."""

    def __init__(self, missing=()):
        self.calls = []
        self.results = {}  # name -> CUresult to return
        self.ctx = 0xC0
        self.ctx_id = 1
        for name in drv.SIGNATURES:
            if name not in missing:
                setattr(self, name, self._make(name))

    def _make(self, name):
        impl = getattr(self, "_" + name, None)

        def fn(*args):
            self.calls.append((name, args))
            result = self.results.get(name, 0)
            if result == 0 and impl is not None:
                return impl(*args) or 0
            return result
        return fn

    def names(self):
        return [c[0] for c in self.calls]

    def _cuGetErrorName(self, code, out):
        if code not in ERRORS:
            return 1
        out._obj.value = ERRORS[code][0].encode()

    def _cuGetErrorString(self, code, out):
        if code not in ERRORS:
            return 1
        out._obj.value = ERRORS[code][1].encode()

    def _cuDeviceGet(self, out, ordinal):
        out._obj.value = ordinal

    def _cuDeviceGetCount(self, out):
        out._obj.value = 2

    def _cuDeviceGetAttribute(self, out, attribute, dev):
        out._obj.value = {16: 132, 75: 9, 76: 0}[attribute]

    def _cuCtxGetCurrent(self, out):
        out._obj.value = self.ctx

    def _cuCtxSetCurrent(self, ctx):
        self.ctx = ctx

    def _cuCtxGetDevice(self, out):
        out._obj.value = 1

    def _cuCtxGetId(self, ctx, out):
        out._obj.value = self.ctx_id

    def _cuDevicePrimaryCtxRetain(self, out, dev):
        out._obj.value = 0xD0 + dev

    def _cuModuleLoadData(self, out, image):
        out._obj.value = 0xA000 + len(self.names())

    def _cuModuleGetFunction(self, out, module, name):
        out._obj.value = module + 1


class DriverTest(unittest.TestCase):
    def setUp(self):
        self.lib = FakeLib()
        self.driver = drv.Driver(self.lib)

    def test_init_and_signatures(self):
        self.assertEqual(self.lib.calls, [("cuInit", (0,))])
        fn = self.driver.function("cuTensorMapEncodeTiled")
        self.assertEqual(len(fn.argtypes), 12)
        self.assertIs(fn.restype, ctypes.c_int)

    def test_error_message(self):
        self.lib.results["cuModuleLoadData"] = 201
        with self.assertRaises(CudaError) as cm:
            self.driver.get_function("k", b"cubin", "kern")
        e = cm.exception
        self.assertEqual(str(e), "cuModuleLoadData failed: "
                         "CUDA_ERROR_INVALID_CONTEXT (201): invalid device "
                         "context")
        self.assertEqual((e.call, e.code, e.name),
                         ("cuModuleLoadData", 201,
                          "CUDA_ERROR_INVALID_CONTEXT"))

    def test_unknown_error_code(self):
        self.lib.results["cuCtxSynchronize"] = 999
        with self.assertRaisesRegex(CudaError, r"^cuCtxSynchronize failed: "
                                    r"unrecognized CUresult \(999\)$"):
            self.driver.synchronize()

    def test_missing_function(self):
        d = drv.Driver(FakeLib(missing=("cuLaunchKernelEx",)))
        with self.assertRaisesRegex(CudaError, "^cuLaunchKernelEx: "
                                    "libcuda.so.1 has no cuLaunchKernelEx; "
                                    "the driver is too old$"):
            d.launch(1, (1, 1, 1), (32, 1, 1), 0, 0,
                     (ctypes.c_void_p * 1)(), cluster=(2, 1, 1))

    def test_devices(self):
        self.assertEqual(self.driver.compute_capability(0), (9, 0))
        self.assertEqual(self.driver.multiprocessor_count(0), 132)
        self.driver.multiprocessor_count(0)
        self.assertEqual(self.lib.names().count("cuDeviceGetAttribute"), 3)
        self.assertEqual(self.driver.current_device(), 1)

    def test_contexts(self):
        self.lib.ctx = None
        self.assertIsNone(self.driver.current_device())
        self.driver.use_primary_context(1)
        self.driver.use_primary_context(1)
        self.assertEqual(self.lib.names().count("cuDevicePrimaryCtxRetain"),
                         1)
        self.assertEqual(self.lib.ctx, 0xD1)
        self.assertEqual(self.driver.current_device(), 1)

    def test_function_cache_per_context_and_cubin(self):
        f1 = self.driver.get_function("k#1", b"cubin", "kern")
        f2 = self.driver.get_function("k#1", b"cubin", "kern")
        self.assertEqual(f1, f2)
        self.assertEqual(self.lib.names().count("cuModuleLoadData"), 1)
        self.driver.get_function("k#1", b"cubin", "other")
        self.assertEqual(self.lib.names().count("cuModuleLoadData"), 1)
        self.assertEqual(self.lib.names().count("cuModuleGetFunction"), 2)
        self.driver.get_function("k#2", b"cubin2", "kern")
        self.assertEqual(self.lib.names().count("cuModuleLoadData"), 2)
        self.lib.ctx_id = 2  # another context: its own module
        self.driver.get_function("k#1", b"cubin", "kern")
        self.assertEqual(self.lib.names().count("cuModuleLoadData"), 3)
        loads = [a for n, a in self.lib.calls if n == "cuModuleLoadData"]
        self.assertEqual(loads[0][1], b"cubin")
        name = [a for n, a in self.lib.calls if n == "cuModuleGetFunction"]
        self.assertEqual(name[0][2], b"kern")

    def test_no_context(self):
        self.lib.ctx = None
        with self.assertRaisesRegex(CudaError, "no CUDA context is current"):
            self.driver.get_function("k", b"cubin", "kern")

    def test_function_attributes_once(self):
        self.driver.set_max_dynamic_smem(7, 200000)
        self.driver.set_max_dynamic_smem(7, 200000)
        self.driver.allow_non_portable_cluster(7)
        self.driver.allow_non_portable_cluster(7)
        sets = [a for n, a in self.lib.calls if n == "cuFuncSetAttribute"]
        self.assertEqual(sets, [(7, 8, 200000), (7, 14, 1)])

    def test_plain_launch(self):
        params = (ctypes.c_void_p * 2)(16, 32)
        self.driver.launch(0xF, (4, 2, 1), (384, 1, 1), 1024, 0x5, params)
        name, args = self.lib.calls[-1]
        self.assertEqual(name, "cuLaunchKernel")
        self.assertEqual(args[:9], (0xF, 4, 2, 1, 384, 1, 1, 1024, 0x5))
        self.assertEqual(_address(args[9]), ctypes.addressof(params))
        self.assertIsNone(args[10])
        self.driver.launch(0xF, (4, 2, 1), (384, 1, 1), 0, 0, params)
        self.assertIsNone(self.lib.calls[-1][1][8])  # the default stream

    def test_cluster_launch(self):
        params = (ctypes.c_void_p * 1)(16)
        self.driver.launch(0xF, (4, 2, 1), (128, 1, 1), 4096, 0x5, params,
                           cluster=(2, 1, 1))
        name, (config_ref, func, kparams, extra) = self.lib.calls[-1]
        self.assertEqual(name, "cuLaunchKernelEx")
        config = config_ref._obj
        self.assertEqual((config.gridDimX, config.gridDimY, config.gridDimZ,
                          config.blockDimX, config.blockDimY,
                          config.blockDimZ, config.sharedMemBytes,
                          config.hStream, config.numAttrs),
                         (4, 2, 1, 128, 1, 1, 4096, 0x5, 1))
        attr = config.attrs[0]
        self.assertEqual(attr.id, drv.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
        dim = attr.value.clusterDim
        self.assertEqual((dim.x, dim.y, dim.z), (2, 1, 1))
        self.assertEqual(func, 0xF)
        self.assertEqual(_address(kparams), ctypes.addressof(params))

    def test_encode_tensor_map(self):
        args = tensor_map_args("q", view((2, 8, 1024, 128)), "bf16",
                               (128, 64), 128)
        tmap = self.driver.encode_tensor_map(args)
        name, a = self.lib.calls[-1]
        self.assertEqual(name, "cuTensorMapEncodeTiled")
        self.assertEqual(a[0], tmap.address)
        self.assertEqual(tmap.address % 128, 0)
        self.assertEqual(a[1:4], (9, 4, args.global_address))
        self.assertEqual(list(a[4]), [128, 1024, 8, 2])
        self.assertEqual(list(a[5]), [256, 256 * 1024, 256 * 1024 * 8])
        self.assertEqual(list(a[6]), [64, 128, 1, 1])
        self.assertEqual(list(a[7]), [1, 1, 1, 1])
        self.assertEqual(a[8:], (0, 3, tensormap.L2_PROMOTION, 0))

    def test_encode_error_names_the_tensor(self):
        self.lib.results["cuTensorMapEncodeTiled"] = 1
        args = tensor_map_args("q", view((64, 64)), "bf16", (64, 64), 128)
        with self.assertRaisesRegex(
                CudaError, r"^cuTensorMapEncodeTiled \(tensor 'q', dims "
                r"\[64, 64\], strides \[128\], box \[64, 64\], innermost "
                r"first\) failed: CUDA_ERROR_INVALID_VALUE \(1\): invalid "
                r"argument$"):
            self.driver.encode_tensor_map(args)


class StructTest(unittest.TestCase):
    @unittest.skipUnless(ctypes.sizeof(ctypes.c_void_p) == 8, "64-bit only")
    def test_layouts(self):
        self.assertEqual(ctypes.sizeof(drv.CUlaunchAttributeValue), 64)
        self.assertEqual(ctypes.sizeof(drv.CUlaunchAttribute), 72)
        self.assertEqual(drv.CUlaunchAttribute.value.offset, 8)
        self.assertEqual(ctypes.sizeof(drv.CUlaunchConfig), 56)
        self.assertEqual(drv.CUlaunchConfig.hStream.offset, 32)
        self.assertEqual(drv.CUlaunchConfig.attrs.offset, 40)
        self.assertEqual(drv.CUlaunchConfig.numAttrs.offset, 48)

    def test_no_cluster_attribute_for_1x1x1(self):
        self.assertIsNone(drv.cluster_attributes((1, 1, 1)))
        attrs = drv.cluster_attributes((1, 2, 1))
        self.assertEqual(attrs[0].value.clusterDim.y, 2)

    def test_without_libcuda(self):
        try:
            ctypes.CDLL(drv.LIBRARY)
        except OSError:
            with self.assertRaisesRegex(CudaError, r"^loading libcuda\.so\.1:"
                                        " no CUDA driver"):
                drv.Driver()
        else:
            self.skipTest("libcuda.so.1 is present")


def _cuda_header():
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"),
                 "/usr/local/cuda"):
        if root and os.path.isfile(os.path.join(root, "include", "cuda.h")):
            return os.path.join(root, "include", "cuda.h")
    return None


def _enum_values(text, enum):
    """name -> value of the C enum ``enum`` in ``text``."""
    body = re.search(r"typedef enum %s\s*\{(.*?)\}" % enum, text,
                     re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    body = re.sub(r"//[^\n]*", "", body)
    values, nxt = {}, 0
    for item in body.split(","):
        m = re.fullmatch(r"\s*(\w+)\s*(?:=\s*(\w+))?\s*", item)
        if m:
            nxt = int(m.group(2), 0) if m.group(2) else nxt
            values[m.group(1)] = nxt
            nxt += 1
    return values


@unittest.skipUnless(_cuda_header(), "no cuda.h (set CUDA_HOME)")
class HeaderTest(unittest.TestCase):
    """The runtime's constants and signatures are those of cuda.h."""

    @classmethod
    def setUpClass(cls):
        with open(_cuda_header(), encoding="utf-8", errors="replace") as f:
            cls.text = f.read()

    def check(self, enum, expected):
        values = _enum_values(self.text, enum)
        for name, value in expected.items():
            self.assertEqual(values[name], value, name)

    def test_enums(self):
        self.check("CUtensorMapDataType_enum", {
            "CU_TENSOR_MAP_DATA_TYPE_UINT8":
                dtypes.CU_TENSOR_MAP_DATA_TYPE_UINT8,
            "CU_TENSOR_MAP_DATA_TYPE_FLOAT16":
                dtypes.CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
            "CU_TENSOR_MAP_DATA_TYPE_FLOAT32":
                dtypes.CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
            "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16":
                dtypes.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16})
        self.check("CUtensorMapSwizzle_enum", {
            "CU_TENSOR_MAP_SWIZZLE_NONE": tensormap.SWIZZLE_MODES[0],
            "CU_TENSOR_MAP_SWIZZLE_32B": tensormap.SWIZZLE_MODES[32],
            "CU_TENSOR_MAP_SWIZZLE_64B": tensormap.SWIZZLE_MODES[64],
            "CU_TENSOR_MAP_SWIZZLE_128B": tensormap.SWIZZLE_MODES[128]})
        self.check("CUtensorMapInterleave_enum", {
            "CU_TENSOR_MAP_INTERLEAVE_NONE":
                tensormap.CU_TENSOR_MAP_INTERLEAVE_NONE})
        self.check("CUtensorMapL2promotion_enum", {
            "CU_TENSOR_MAP_L2_PROMOTION_L2_128B":
                tensormap.CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
            "CU_TENSOR_MAP_L2_PROMOTION_L2_256B":
                tensormap.CU_TENSOR_MAP_L2_PROMOTION_L2_256B})
        self.check("CUtensorMapFloatOOBfill_enum", {
            "CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE":
                tensormap.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE})
        self.check("CUlaunchAttributeID_enum", {
            "CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION":
                drv.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION})

    def test_attribute_values(self):
        for name in ("CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT",
                     "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR",
                     "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR",
                     "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES",
                     "CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED",
                     "CUDA_SUCCESS"):
            m = re.search(r"\b%s\s*=\s*(\d+)" % name, self.text)
            self.assertEqual(int(m.group(1)), getattr(drv, name), name)

    def test_signatures_have_the_right_arity(self):
        for name, argtypes in drv.SIGNATURES.items():
            m = re.search(r"CUresult CUDAAPI %s\((.*?)\);" % name, self.text,
                          re.S)
            self.assertIsNotNone(m, name)
            params = m.group(1).strip()
            n = 0 if params == "void" else params.count(",") + 1
            self.assertEqual(n, len(argtypes), name)

    def test_no_versioned_names(self):
        # cuda.h #defines some entry points to _v2 or _ptsz symbols; the
        # runtime must call the plain ones only where there is no #define.
        for name in drv.SIGNATURES:
            self.assertIsNone(
                re.search(r"#define %s\s+%s_v\d" % (name, name), self.text),
                name)
