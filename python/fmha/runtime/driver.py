"""The CUDA driver API through ctypes: ``libcuda.so.1``, loaded on first use.

Only what the runtime needs: devices and their attributes, the current
context, modules loaded from cubin bytes (cached per context and cubin),
function attributes, ``cuTensorMapEncodeTiled`` and kernel launches
(``cuLaunchKernel``, or ``cuLaunchKernelEx`` with a cluster dimension).
Every function gets explicit argtypes and restype from :data:`SIGNATURES`,
checked against CUDA 13's ``cuda.h``. A failing call raises
:class:`~fmha.runtime.errors.CudaError` with the driver's error name and
string.

With PyTorch in the same process, let PyTorch create its context first (any
CUDA tensor does); the runtime uses the context current on the calling
thread, or the device's primary context (PyTorch's) when none is.
"""

from __future__ import annotations

import ctypes
import threading
from ctypes import (POINTER, Structure, Union, c_char, c_char_p, c_int,
                    c_uint, c_uint32, c_uint64, c_ulonglong, c_void_p)
from typing import Any, Optional, Sequence

from .errors import CudaError
from .tensormap import TensorMap, TensorMapArgs

LIBRARY = "libcuda.so.1"

CUDA_SUCCESS = 0
CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14
CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4
# Dynamic shared memory a kernel gets without raising its limit.
DEFAULT_DYNAMIC_SMEM_LIMIT = 48 * 1024
# Clusters above this many CTAs need the non-portable attribute.
MAX_PORTABLE_CLUSTER_SIZE = 8

CUresult = c_int
CUdevice = c_int
CUcontext = c_void_p
CUmodule = c_void_p
CUfunction = c_void_p
CUstream = c_void_p


class CUlaunchAttributeValue(Union):
    """``CUlaunchAttributeValue``: a 64-byte union (only clusterDim used)."""

    class _Dim3(Structure):
        _fields_ = [("x", c_uint), ("y", c_uint), ("z", c_uint)]

    _fields_ = [("pad", c_char * 64), ("clusterDim", _Dim3),
                ("_align", c_void_p)]


class CUlaunchAttribute(Structure):
    """``CUlaunchAttribute``: id, 4 bytes of padding, value (72 bytes)."""

    _fields_ = [("id", c_int), ("pad", c_char * 4),
                ("value", CUlaunchAttributeValue)]


class CUlaunchConfig(Structure):
    """``CUlaunchConfig`` (56 bytes)."""

    _fields_ = [("gridDimX", c_uint), ("gridDimY", c_uint),
                ("gridDimZ", c_uint), ("blockDimX", c_uint),
                ("blockDimY", c_uint), ("blockDimZ", c_uint),
                ("sharedMemBytes", c_uint), ("hStream", CUstream),
                ("attrs", POINTER(CUlaunchAttribute)), ("numAttrs", c_uint)]


# name -> (argtypes); every function returns CUresult.
SIGNATURES: dict[str, list[Any]] = {
    "cuInit": [c_uint],
    "cuGetErrorName": [CUresult, POINTER(c_char_p)],
    "cuGetErrorString": [CUresult, POINTER(c_char_p)],
    "cuDeviceGet": [POINTER(CUdevice), c_int],
    "cuDeviceGetCount": [POINTER(c_int)],
    "cuDeviceGetAttribute": [POINTER(c_int), c_int, CUdevice],
    "cuDevicePrimaryCtxRetain": [POINTER(CUcontext), CUdevice],
    "cuCtxGetCurrent": [POINTER(CUcontext)],
    "cuCtxSetCurrent": [CUcontext],
    "cuCtxGetDevice": [POINTER(CUdevice)],
    "cuCtxGetId": [CUcontext, POINTER(c_ulonglong)],
    "cuCtxSynchronize": [],
    "cuModuleLoadData": [POINTER(CUmodule), c_void_p],
    "cuModuleGetFunction": [POINTER(CUfunction), CUmodule, c_char_p],
    "cuFuncSetAttribute": [CUfunction, c_int, c_int],
    "cuLaunchKernel": [CUfunction, c_uint, c_uint, c_uint, c_uint, c_uint,
                       c_uint, c_uint, CUstream, POINTER(c_void_p),
                       POINTER(c_void_p)],
    "cuLaunchKernelEx": [POINTER(CUlaunchConfig), CUfunction,
                         POINTER(c_void_p), POINTER(c_void_p)],
    "cuTensorMapEncodeTiled": [c_void_p, c_int, c_uint32, c_void_p,
                               POINTER(c_uint64), POINTER(c_uint64),
                               POINTER(c_uint32), POINTER(c_uint32), c_int,
                               c_int, c_int, c_int],
    "cuTensorMapReplaceAddress": [c_void_p, c_void_p],
    "cuOccupancyMaxActiveClusters": [POINTER(c_int), CUfunction,
                                     POINTER(CUlaunchConfig)],
}


def cluster_attributes(cluster: Sequence[int]) -> Any:
    """The ``CUlaunchAttribute`` array for a launch with cluster shape
    ``cluster``; None for ``[1, 1, 1]`` (a plain launch)."""
    if tuple(cluster) == (1, 1, 1):
        return None
    attrs = (CUlaunchAttribute * 1)()
    attrs[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    dim = attrs[0].value.clusterDim
    dim.x, dim.y, dim.z = (int(c) for c in cluster)
    return attrs


def launch_config(grid: Sequence[int], block: Sequence[int], smem: int,
                  stream: int, attrs: Any) -> CUlaunchConfig:
    """The ``CUlaunchConfig`` of a ``cuLaunchKernelEx`` launch."""
    config = CUlaunchConfig()
    config.gridDimX, config.gridDimY, config.gridDimZ = grid
    config.blockDimX, config.blockDimY, config.blockDimZ = block
    config.sharedMemBytes = smem
    config.hStream = stream or None
    config.attrs = ctypes.cast(attrs, POINTER(CUlaunchAttribute))
    config.numAttrs = len(attrs)
    return config


class Driver:
    """The CUDA driver, through ctypes. Create it with :func:`get_driver`."""

    def __init__(self, lib: Any = None) -> None:
        if lib is None:
            try:
                lib = ctypes.CDLL(LIBRARY)
            except OSError as e:
                raise CudaError(f"loading {LIBRARY}", None,
                                description=f"no CUDA driver: {e}") from None
        self._lib = lib
        self._functions: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._modules: dict[tuple[Any, str], int] = {}
        self._kernels: dict[tuple[Any, str, str], int] = {}
        self._smem_set: set[tuple[int, int]] = set()
        self._cluster_set: set[int] = set()
        self._clusters: dict[tuple, int] = {}
        self._primary: dict[int, int] = {}
        self._sms: dict[int, int] = {}
        self._capabilities: dict[int, tuple[int, int]] = {}
        self._context_devices: dict[int, int] = {}
        self.call("cuInit", 0)

    # -- calls -------------------------------------------------------------

    def function(self, name: str) -> Any:
        """The driver function ``name`` with its argtypes and restype."""
        fn = self._functions.get(name)
        if fn is None:
            try:
                fn = getattr(self._lib, name)
            except AttributeError:
                raise CudaError(name, None, description=f"{LIBRARY} has no "
                                f"{name}; the driver is too old") from None
            fn.argtypes = SIGNATURES[name]
            fn.restype = CUresult
            self._functions[name] = fn
        return fn

    def call(self, name: str, *args: Any) -> None:
        """Calls ``name``; raises CudaError unless it returns CUDA_SUCCESS."""
        result = self.function(name)(*args)
        if result != CUDA_SUCCESS:
            raise self.error(name, result)

    def error(self, call: str, code: int) -> CudaError:
        """The CudaError for ``call`` returning ``code``."""
        texts = []
        for getter in ("cuGetErrorName", "cuGetErrorString"):
            text = c_char_p()
            ok = self.function(getter)(code, ctypes.byref(text))
            texts.append(text.value.decode() if ok == CUDA_SUCCESS
                         and text.value else "")
        return CudaError(call, code, texts[0] or "unrecognized CUresult",
                         texts[1])

    # -- devices and contexts ----------------------------------------------

    def _device(self, ordinal: int) -> int:
        dev = CUdevice()
        self.call("cuDeviceGet", ctypes.byref(dev), ordinal)
        return dev.value

    def device_attribute(self, ordinal: int, attribute: int) -> int:
        value = c_int()
        self.call("cuDeviceGetAttribute", ctypes.byref(value), attribute,
                  self._device(ordinal))
        return value.value

    def compute_capability(self, ordinal: int) -> tuple[int, int]:
        """The (major, minor) compute capability of device ``ordinal``."""
        cap = self._capabilities.get(ordinal)
        if cap is None:
            cap = self._capabilities[ordinal] = (
                self.device_attribute(
                    ordinal, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                self.device_attribute(
                    ordinal, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR))
        return cap

    def multiprocessor_count(self, ordinal: int) -> int:
        """The number of multiprocessors (SMs) of device ``ordinal``."""
        if ordinal not in self._sms:
            self._sms[ordinal] = self.device_attribute(
                ordinal, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        return self._sms[ordinal]

    def _current_context(self) -> Optional[int]:
        ctx = CUcontext()
        self.call("cuCtxGetCurrent", ctypes.byref(ctx))
        return ctx.value

    def current_context(self) -> Optional[int]:
        """The calling thread's current context (a ``CUcontext`` handle),
        or None: one driver call, for the launch cache's check."""
        return self._current_context()

    def current_device(self) -> Optional[int]:
        """The ordinal of the device of the calling thread's current
        context, or None when no context is current."""
        ctx = self._current_context()
        if ctx is None:
            return None
        ordinal = self._context_devices.get(ctx)
        if ordinal is not None:
            return ordinal
        dev = CUdevice()
        self.call("cuCtxGetDevice", ctypes.byref(dev))
        count = c_int()
        self.call("cuDeviceGetCount", ctypes.byref(count))
        ordinal = dev.value
        for i in range(count.value):
            if self._device(i) == dev.value:
                ordinal = i
                break
        with self._lock:
            self._context_devices[ctx] = ordinal
        return ordinal

    def use_primary_context(self, ordinal: int) -> None:
        """Makes device ``ordinal``'s primary context (the one PyTorch and
        the runtime API use) current on the calling thread."""
        with self._lock:
            ctx = self._primary.get(ordinal)
            if ctx is None:
                handle = CUcontext()
                self.call("cuDevicePrimaryCtxRetain", ctypes.byref(handle),
                          self._device(ordinal))
                ctx = self._primary[ordinal] = handle.value
        self.call("cuCtxSetCurrent", ctx)

    def _context_key(self) -> Any:
        ctx = self._current_context()
        if ctx is None:
            raise CudaError("cuCtxGetCurrent", None,
                            description="no CUDA context is current")
        try:
            ident = c_ulonglong()
            self.call("cuCtxGetId", ctx, ctypes.byref(ident))
            return ("id", ident.value)
        except CudaError:
            return ("handle", ctx)

    def synchronize(self) -> None:
        """Waits for the current context's work (cuCtxSynchronize)."""
        self.call("cuCtxSynchronize")

    # -- modules and functions ---------------------------------------------

    def get_function(self, cubin_key: str, image: bytes, entry: str) -> int:
        """The ``CUfunction`` ``entry`` of the cubin ``image`` in the current
        context; the module is loaded once per context and ``cubin_key``."""
        ctx = self._context_key()
        with self._lock:
            func = self._kernels.get((ctx, cubin_key, entry))
            if func is not None:
                return func
            module = self._modules.get((ctx, cubin_key))
            if module is None:
                handle = CUmodule()
                self.call("cuModuleLoadData", ctypes.byref(handle), image)
                module = self._modules[(ctx, cubin_key)] = handle.value
            f = CUfunction()
            self.call("cuModuleGetFunction", ctypes.byref(f), module,
                      entry.encode())
            self._kernels[(ctx, cubin_key, entry)] = f.value
            return f.value

    def set_max_dynamic_smem(self, func: int, nbytes: int) -> None:
        """Raises ``func``'s dynamic shared memory limit to ``nbytes``
        (needed above 48 KiB)."""
        if (func, nbytes) in self._smem_set:
            return
        self.call("cuFuncSetAttribute", func,
                  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, nbytes)
        self._smem_set.add((func, nbytes))

    def max_active_clusters(self, func: int, block: Sequence[int],
                            smem: int, cluster: Sequence[int]) -> int:
        """How many clusters of shape ``cluster`` of ``func`` (``block``
        threads and ``smem`` bytes of dynamic shared memory per CTA, the
        limit already raised) the device runs at once:
        ``cuOccupancyMaxActiveClusters``. Not every multiprocessor can take
        part in clusters (they are formed within a GPC), so a persistent
        grid of clusters is sized by this, not by the multiprocessor
        count."""
        key = (func, tuple(block), smem, tuple(cluster))
        if key not in self._clusters:
            attrs = cluster_attributes(cluster)
            config = launch_config(tuple(cluster), block, smem, 0, attrs)
            count = c_int()
            self.call("cuOccupancyMaxActiveClusters", ctypes.byref(count),
                      func, ctypes.byref(config))
            self._clusters[key] = count.value
        return self._clusters[key]

    def allow_non_portable_cluster(self, func: int) -> None:
        """Lets ``func`` launch with clusters of more than 8 CTAs."""
        if func in self._cluster_set:
            return
        self.call("cuFuncSetAttribute", func,
                  CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)
        self._cluster_set.add(func)

    # -- tensor maps and launches ------------------------------------------

    def encode_tensor_map(self, args: TensorMapArgs) -> TensorMap:
        """Encodes checked ``args`` (fmha.runtime.tensormap) with
        ``cuTensorMapEncodeTiled``."""
        tmap = TensorMap()
        rank = args.rank
        dims = (c_uint64 * rank)(*args.global_dim)
        strides = (c_uint64 * max(rank - 1, 1))(*args.global_strides)
        box = (c_uint32 * rank)(*args.box_dim)
        elem = (c_uint32 * rank)(*args.element_strides)
        try:
            self.call("cuTensorMapEncodeTiled", tmap.address, args.data_type,
                      rank, args.global_address, dims, strides, box, elem,
                      args.interleave, args.swizzle, args.l2_promotion,
                      args.oob_fill)
        except CudaError as e:
            raise CudaError(
                f"cuTensorMapEncodeTiled (tensor '{args.tensor}', dims "
                f"{list(args.global_dim)}, strides {list(args.global_strides)}"
                f", box {list(args.box_dim)}, innermost first)", e.code,
                e.name, e.description) from None
        return tmap

    def replace_tensor_map_address(self, tmap: TensorMap,
                                   address: int) -> None:
        """Points the encoded map ``tmap`` at ``address`` (16-byte aligned),
        everything else unchanged: ``cuTensorMapReplaceAddress``."""
        self.call("cuTensorMapReplaceAddress", tmap.address, address)

    def launcher(self, func: int, grid: Sequence[int], block: Sequence[int],
                 smem: int, params: Any,
                 cluster: Sequence[int] = (1, 1, 1)) -> Any:
        """A function of a stream handle that launches ``func`` as
        :meth:`launch` does, with every other argument bound: the least
        host work per launch. With a cluster, the launch configuration is
        built once and only its stream changes per call, so calls of one
        launcher must not overlap (fmha.runtime.BoundLaunch holds a lock)."""
        attrs = cluster_attributes(cluster)
        if attrs is not None:
            config = launch_config(grid, block, smem, 0, attrs)
            config_ref = ctypes.byref(config)
            ex = self.function("cuLaunchKernelEx")

            def go_cluster(stream: int) -> None:
                config.hStream = stream or None
                result = ex(config_ref, func, params, None)
                if result != CUDA_SUCCESS:
                    raise self.error("cuLaunchKernelEx", result)
            go_cluster.keep = (attrs, config)  # type: ignore[attr-defined]
            return go_cluster
        fn = self.function("cuLaunchKernel")
        gx, gy, gz = grid
        bx, by, bz = block

        def go(stream: int) -> None:
            result = fn(func, gx, gy, gz, bx, by, bz, smem, stream or None,
                        params, None)
            if result != CUDA_SUCCESS:
                raise self.error("cuLaunchKernel", result)
        return go

    def launch(self, func: int, grid: Sequence[int], block: Sequence[int],
               smem: int, stream: int, params: Any,
               cluster: Sequence[int] = (1, 1, 1)) -> None:
        """Launches ``func``: ``cuLaunchKernel``, or ``cuLaunchKernelEx``
        with a cluster dimension attribute when ``cluster`` is not
        ``[1, 1, 1]``. ``params`` is the ``void *`` array of
        fmha.runtime.params."""
        # An array of c_void_p passes as the void ** as it is.
        kernel_params = params if isinstance(params, ctypes.Array) \
            else ctypes.cast(params, POINTER(c_void_p))
        attrs = cluster_attributes(cluster)
        if attrs is None:
            self.call("cuLaunchKernel", func, *grid, *block, smem,
                      stream or None, kernel_params, None)
            return
        config = launch_config(grid, block, smem, stream, attrs)
        self.call("cuLaunchKernelEx", ctypes.byref(config), func,
                  kernel_params, None)


_DRIVER: Optional[Driver] = None
_DRIVER_LOCK = threading.Lock()


def get_driver() -> Driver:
    """The process-wide Driver; loads ``libcuda.so.1`` on the first call."""
    global _DRIVER
    with _DRIVER_LOCK:
        if _DRIVER is None:
            _DRIVER = Driver()
        return _DRIVER
