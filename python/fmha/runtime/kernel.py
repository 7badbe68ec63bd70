"""Launching a compiled kernel (cubin + manifest) on a caller's tensors.

    kernel = Kernel.load("gemm_bf16.json")
    kernel(a=a, b=b, c=c)                  # on PyTorch's current stream
    kernel.launch({"a": a, "b": b, "c": c}, stream=s)

Before anything reaches the GPU, :meth:`Kernel.prepare` checks the tensors
against the manifest (every tensor present, dtypes, ranks, consistent sizes,
one CUDA device that is the current one, the device's compute capability,
the layout rules, the tensor-map rules) and raises ValueError (or its
subclass TensorMapError) with a message that names the tensor and the rule.

Repeated launches are cheap: :meth:`Kernel.launch` keeps the prepared
launch (checks done, tensor maps encoded, parameters packed) of the last
``LAUNCH_CACHE_SIZE`` tensor sets, keyed by every tensor's data pointer,
shape, strides, dtype and device. A call on the same tensors only checks
that the same CUDA context is current, reads the stream and launches. A
launch on new tensors still reuses the encoded tensor maps of those it
shares with earlier ones (an LRU of ``TENSOR_MAP_CACHE_SIZE`` maps, keyed by
everything a map depends on: fmha.runtime.tensormap.tensor_map_key).
"""

from __future__ import annotations

import hashlib
import math
import os
import threading
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence, Union

from .driver import DEFAULT_DYNAMIC_SMEM_LIMIT, MAX_PORTABLE_CLUSTER_SIZE
from .errors import ManifestError
from .manifest import (Manifest, MemrefParam, bind_symbols, launch_grid,
                       load_manifest, scratch_shapes)
from .lru import LRUCache
from .params import PackedParams, pack_params, rebindable_copy
from .tensormap import TensorMapArgs, tensor_map_key
from .tensors import (TensorView, as_view, current_torch_stream,
                      is_torch_tensor, torch_tensor_class)

ALIGNMENT = 16
# Prepared launches and encoded tensor maps kept per kernel.
LAUNCH_CACHE_SIZE = 64
TENSOR_MAP_CACHE_SIZE = 64


@dataclass
class Launch:
    """Everything one launch needs, as :meth:`Kernel.prepare` built it."""

    function: Any
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    cluster: tuple[int, int, int]
    dynamic_smem: int
    stream: int
    params: PackedParams
    symbols: dict[str, int]
    device: int
    # The later launches of a manifest with several (docs/Manifest.md,
    # "Several launches"), run in order after this one on its stream.
    then: tuple = ()

    def steps(self) -> tuple:
        """This launch and the later ones, in order."""
        return (self, *self.then)


@dataclass
class _CachedLaunch:
    """A prepared launch, the context it was prepared in, and whether its
    tensors are PyTorch's (their current stream is the default one)."""

    launch: Launch
    context: Any
    torch: bool


def launch_key(names: tuple, tensors: Mapping[str, Any]) -> Optional[tuple]:
    """The launch cache's key for ``tensors`` (the kernel's tensor
    ``names``, in manifest order, then its sizes): per tensor its data
    pointer, shape, strides, dtype and device (a TensorView is its own
    key), per size its value. None when the set cannot be cached (a name
    missing or extra, not a tensor)."""
    if len(tensors) != len(names):
        return None
    tensor_cls = torch_tensor_class()
    parts = []
    for name in names:
        t = tensors.get(name)
        if type(t) is int:
            parts.append(t)
        elif tensor_cls is not None and isinstance(t, tensor_cls):
            # get_device(): the CUDA index, -1 on the CPU (no device object).
            parts.append((t.data_ptr(), t.shape, t.stride(), t.dtype,
                          t.get_device()))
        elif type(t) is TensorView:
            parts.append(t)
        else:
            return None
    return tuple(parts)


def check_layout(name: str, view: TensorView, tma: bool = True,
                 strided: bool = False) -> None:
    """The manifest's layout rules. A tensor that a tensor map describes
    (``tma``): innermost stride 1, other strides multiples of 16 bytes, a
    16-byte aligned address. A tensor passed only as a ``memref`` or a
    ``pointer`` (read and written with plain loads and stores): dense and
    row-major, its address aligned to its element size; a ``strided``
    memref (whose strides the kernel reads): any strides, its address
    aligned to its element size."""
    if len(view.strides) != len(view.shape):
        raise ValueError(f"tensor '{name}' has {len(view.strides)} strides "
                         f"for shape {list(view.shape)}")
    if strided and not tma:
        if view.itemsize and view.data_ptr % view.itemsize:
            raise ValueError(
                f"tensor '{name}' starts at {view.data_ptr:#x}, which is not "
                f"aligned to its {view.itemsize}-byte elements")
        return
    if not tma:
        _check_dense(name, view)
        return
    if view.strides[-1] != 1:
        raise ValueError(
            f"tensor '{name}' must be contiguous in its innermost dimension "
            f"(stride 1), but has strides {list(view.strides)} for shape "
            f"{list(view.shape)}")
    for dim, stride in enumerate(view.strides[:-1]):
        nbytes = stride * view.itemsize
        if nbytes % ALIGNMENT:
            raise ValueError(
                f"tensor '{name}' has a stride of {stride} elements "
                f"({nbytes} bytes) in dimension {dim}; strides other than "
                f"the innermost must be multiples of 16 bytes")
    if view.data_ptr % ALIGNMENT:
        raise ValueError(
            f"tensor '{name}' starts at {view.data_ptr:#x}, which is not "
            "16-byte aligned")


def _check_dense(name: str, view: TensorView) -> None:
    """A dense row-major tensor at an address aligned to its element size
    (strides of size-1 dimensions do not matter; an empty tensor has no
    layout)."""
    if 0 not in view.shape:
        expected = 1
        for dim in reversed(range(len(view.shape))):
            if view.shape[dim] != 1 and view.strides[dim] != expected:
                dense = [math.prod(view.shape[i + 1:])
                         for i in range(len(view.shape))]
                raise ValueError(
                    f"tensor '{name}' must be dense and row-major (strides "
                    f"{dense} for shape {list(view.shape)}), but has strides "
                    f"{list(view.strides)}; the kernel writes it with plain "
                    "stores at row-major offsets (pass a contiguous tensor)")
            expected *= view.shape[dim]
    # 16-bit tensors are written in pairs at least (a 2-d register tile's
    # runs of contiguous values, varlen attention's O): 4-byte aligned.
    if view.itemsize == 2 and view.data_ptr % 4:
        raise ValueError(
            f"tensor '{name}' starts at {view.data_ptr:#x}, which is not "
            "aligned to 4 bytes (its 2-byte elements are written in pairs)")
    if view.itemsize and view.data_ptr % view.itemsize:
        raise ValueError(
            f"tensor '{name}' starts at {view.data_ptr:#x}, which is not "
            f"aligned to its {view.itemsize}-byte elements")


class Kernel:
    """A compiled kernel: its manifest and cubin, launchable on tensors.

    ``driver`` defaults to the process-wide CUDA driver
    (fmha.runtime.driver.get_driver); tests pass a fake with the same
    methods.
    """

    def __init__(self, manifest: Manifest, cubin: bytes,
                 driver: Any = None) -> None:
        self.manifest = manifest
        self.cubin = cubin
        self._driver = driver
        digest = hashlib.sha256(cubin).hexdigest()[:16]
        self._cubin_key = f"{os.path.abspath(manifest.cubin_path)}#{digest}"
        # Tensors, then the sizes the caller passes as integers.
        self._tensor_names = tuple(manifest.tensors)
        self._names = self._tensor_names + manifest.sizes
        # Tensors a tensor map describes (in any launch) follow TMA's
        # layout rules; the others (memref and pointer parameters) need
        # only be dense.
        params = manifest.all_params()
        self._tma = frozenset(p.tensor for p in params
                              if p.kind == "tensor_map")
        # Memrefs whose strides every launch reads: any layout.
        self._strided = frozenset(
            p.tensor for p in params
            if p.kind == "memref" and p.strided) - frozenset(
                p.tensor for p in params
                if p.kind in ("pointer", "memref") and not getattr(
                    p, "strided", False))
        self._launches = LRUCache(LAUNCH_CACHE_SIZE)
        self._tensor_maps = LRUCache(TENSOR_MAP_CACHE_SIZE)
        self._context_query: Any = None

    @classmethod
    def load(cls, manifest_path: Union[str, os.PathLike],
             driver: Any = None) -> "Kernel":
        """Reads the manifest at ``manifest_path`` and the cubin it names
        (relative to it). Raises ManifestError."""
        manifest = load_manifest(manifest_path)
        try:
            cubin = manifest.cubin_path.read_bytes()
        except OSError as e:
            raise ManifestError(
                f"{manifest.source}: cubin: cannot read "
                f"{manifest.cubin_path}: {e.strerror or e}") from None
        return cls(manifest, cubin, driver)

    @property
    def name(self) -> str:
        return self.manifest.name

    @property
    def driver(self) -> Any:
        if self._driver is None:
            from .driver import get_driver
            self._driver = get_driver()
        return self._driver

    def __repr__(self) -> str:
        m = self.manifest
        tensors = ", ".join(f"{t.name}: {t.dtype.name}{t.shape_str()}"
                            for t in m.tensors.values())
        return f"<fmha Kernel {m.name} ({m.target}) {tensors}>"

    def __call__(self, /, **tensors: Any) -> None:
        """Launches on the tensors, by name, on the current stream."""
        self.launch(tensors)

    def launch(self, tensors: Mapping[str, Any], stream: Any = None) -> None:
        """Checks ``tensors`` (by name; with the sizes the manifest lists
        under ``sizes`` as integers among them), builds the parameters and
        launches.
        ``stream``: None for PyTorch's current stream on the tensors' device
        (the default stream without PyTorch), a ``torch.cuda.Stream`` or
        anything with ``cuda_stream``, or a raw ``CUstream`` handle (int)."""
        key = launch_key(self._names, tensors)
        if key is not None:
            cached = self._launches.get(key)
            if cached is not None and cached.context == self._context():
                launch = cached.launch
                if stream is None:
                    handle = current_torch_stream(launch.device) \
                        if cached.torch else 0
                else:
                    handle = self._stream(stream, launch.device, tensors)
                self._run(launch, handle)
                return
        launch = self.prepare(tensors, stream)
        if key is not None:
            self._launches.put(key, _CachedLaunch(
                launch, self._context(),
                any(is_torch_tensor(t) for t in tensors.values())))
        self._run(launch, launch.stream)

    def _run(self, launch: Launch, stream: int) -> None:
        """Launches ``launch`` and the ones after it, in order, on
        ``stream``."""
        driver = self.driver
        for step in launch.steps():
            driver.launch(step.function, step.grid, step.block,
                          step.dynamic_smem, stream, step.params.array,
                          step.cluster)

    def bind(self, tensors: Mapping[str, Any], stream: Any = None,
             order: Optional[tuple] = None,
             strides: Sequence[tuple] = ()) -> "BoundLaunch":
        """Prepares a launch on ``tensors`` (every check of :meth:`prepare`)
        that later launches can repeat on other tensors of the same shapes,
        strides, dtypes and device, given only their addresses, in
        ``order`` (tensor names; default the manifest's): see
        :class:`BoundLaunch`. This is the front door's fast path. The
        sizes the caller passes (the manifest's ``sizes``) are those of
        ``tensors`` for every later launch. ``strides``: ``(name, dim)``
        pairs of strides of tensors passed as strided memrefs that each
        run sets anew (fmha.merge_states' distance between states); the
        caller guarantees the kernel's layout rules for the values it
        passes."""
        launch = self.prepare(tensors, stream)
        names = self._tensor_names
        order = tuple(names if order is None else order)
        if sorted(order) != sorted(names):
            raise ValueError(f"kernel '{self.name}' takes tensors "
                             f"{', '.join(names)}, not "
                             f"{', '.join(order)}")
        # Per launch, copies of the parameters whose addresses and strides
        # a run rewrites; a tensor's slots gather those of every launch.
        copies = []
        slots: dict = {}
        memref_strides: dict = {}
        for spec, step in zip(self.manifest.steps, launch.steps()):
            params, step_slots, step_strides = rebindable_copy(
                self.manifest, step.params, spec)
            copies.append(params)
            for name, found in step_slots.items():
                slots.setdefault(name, []).extend(found)
            for name, found in step_strides.items():
                memref_strides.setdefault(name, []).append(found)
        strided = {p.tensor for p in self.manifest.all_params()
                   if isinstance(p, MemrefParam) and p.strided}
        stride_slots = []
        for name, dim in strides:
            if name not in strided or not all(
                    0 <= dim < len(found)
                    for found in memref_strides.get(name, [])):
                raise ValueError(f"kernel '{self.name}': tensor '{name}' "
                                 f"has no stride {dim} a run can set (a "
                                 f"strided memref's)")
            stride_slots.append([found[dim]
                                 for found in memref_strides[name]])
        ptrs = [as_view(tensors[name], name).data_ptr for name in order]
        return BoundLaunch(self, launch, copies[0],
                           [slots.get(name, []) for name in order], ptrs,
                           stride_slots, copies[1:])

    @property
    def scratch_names(self) -> tuple:
        """The kernel's scratch tensors (role ``scratch`` or ``zeroed``,
        docs/Manifest.md), in manifest order: the caller passes them like
        the others, shaped as :meth:`scratch_shapes` says."""
        return tuple(n for n, t in self.manifest.tensors.items()
                     if t.scratch)

    def scratch_shapes(self, shapes: Mapping[str, Any],
                       sizes: Optional[Mapping[str, int]] = None) -> dict:
        """``{name: (shape, role, dtype name)}`` of the scratch tensors for
        the caller's tensors of ``shapes`` (by name; the scratch tensors
        left out)."""
        return scratch_shapes(self.manifest, shapes, sizes)

    def cache_info(self) -> dict:
        """Sizes and hit counts of the launch and tensor-map caches."""
        return {name: {"size": len(c), "maxsize": c.maxsize,
                       "hits": c.hits, "misses": c.misses}
                for name, c in (("launches", self._launches),
                                ("tensor_maps", self._tensor_maps))}

    def clear_cache(self) -> None:
        """Forgets the prepared launches and encoded tensor maps."""
        self._launches.clear()
        self._tensor_maps.clear()

    def _context(self) -> Any:
        """What a cached launch must find current again: the CUDA context
        (the current device with a driver that has no context query)."""
        query = self._context_query
        if query is None:
            driver = self.driver
            query = self._context_query = getattr(
                driver, "current_context", driver.current_device)
        return query()

    def _encode(self, args: TensorMapArgs) -> Any:
        """Encodes a tensor map, or reuses the one of the same key."""
        key = tensor_map_key(args)
        tmap = self._tensor_maps.get(key)
        if tmap is None:
            tmap = self.driver.encode_tensor_map(args)
            self._tensor_maps.put(key, tmap)
        return tmap

    def prepare(self, tensors: Mapping[str, Any],
                stream: Any = None) -> Launch:
        """Does everything :meth:`launch` does except the launch itself,
        every check included (the caches are not consulted, except for
        reusing encoded tensor maps)."""
        m = self.manifest
        self._check_names(tensors)
        views = {name: as_view(tensors[name], name) for name in m.tensors}
        sizes = {name: tensors[name] for name in m.sizes}
        for name, spec in m.tensors.items():
            view = views[name]
            if view.dtype != spec.dtype.name:
                raise ValueError(
                    f"tensor '{name}' has dtype {view.describe_dtype()} but "
                    f"the kernel expects {spec.dtype.name}")
        symbols = bind_symbols(m, {n: v.shape for n, v in views.items()},
                               sizes)
        device = self._check_device(views)
        driver = self.driver
        self._check_capability(driver, device)
        for name, view in views.items():
            check_layout(name, view, name in self._tma,
                         name in self._strided)

        handle = self._stream(stream, device, tensors)
        launches = [self._prepare_step(step, views, symbols, device, handle)
                    for step in m.steps]
        first = launches[0]
        first.then = tuple(launches[1:])
        return first

    def _prepare_step(self, step: Any, views: Mapping[str, TensorView],
                      symbols: dict, device: int, handle: int) -> Launch:
        """The Launch of one of the manifest's launches (LaunchSpec)."""
        m = self.manifest
        driver = self.driver
        func: Optional[int] = None

        def function() -> int:
            # Loaded once, when first needed (a cluster kernel's occupancy
            # query for its grid, else the launch), after the checks.
            nonlocal func
            if func is None:
                func = driver.get_function(self._cubin_key, self.cubin,
                                           step.entry)
                if step.dynamic_smem > DEFAULT_DYNAMIC_SMEM_LIMIT:
                    driver.set_max_dynamic_smem(func, step.dynamic_smem)
                if math.prod(step.cluster) > MAX_PORTABLE_CLUSTER_SIZE:
                    driver.allow_non_portable_cluster(func)
            return func

        def num_sms() -> int:
            # A kernel launched in clusters runs on the multiprocessors
            # that whole clusters can occupy at once (docs/Manifest.md).
            if math.prod(step.cluster) == 1:
                return driver.multiprocessor_count(device)
            return math.prod(step.cluster) * driver.max_active_clusters(
                function(), step.block, step.dynamic_smem, step.cluster)

        grid = launch_grid(m, symbols, num_sms, step)
        params = pack_params(m, views, symbols, self._encode, num_sms, step)
        return Launch(function=function(), grid=grid, block=step.block,
                      cluster=step.cluster, dynamic_smem=step.dynamic_smem,
                      stream=handle, params=params, symbols=symbols,
                      device=device)

    # -- checks ------------------------------------------------------------

    def _check_names(self, tensors: Mapping[str, Any]) -> None:
        expected = list(self._names)
        missing = [n for n in expected if n not in tensors]
        if missing:
            raise ValueError(
                f"kernel '{self.name}' is missing tensor(s) "
                f"{', '.join(repr(n) for n in missing)} (it takes "
                f"{', '.join(expected)})")
        unexpected = [n for n in tensors if n not in expected]
        if unexpected:
            raise ValueError(
                f"kernel '{self.name}' got unexpected tensor(s) "
                f"{', '.join(repr(n) for n in unexpected)} (it takes "
                f"{', '.join(expected)})")

    def _check_device(self, views: Mapping[str, TensorView]) -> int:
        """The one CUDA device of all tensors, made or checked current."""
        first: Optional[str] = None
        for name, view in views.items():
            if view.device is None:
                raise ValueError(
                    f"tensor '{name}' is on {view.describe_device()}; the "
                    "kernel needs CUDA tensors")
            if first is None:
                first = name
            elif view.device != views[first].device:
                raise ValueError(
                    f"tensor '{name}' is on {view.describe_device()} but "
                    f"'{first}' is on {views[first].describe_device()}; all "
                    "tensors must be on one device")
        assert first is not None
        device = views[first].device
        assert device is not None
        current = self.driver.current_device()
        if current is None:
            self.driver.use_primary_context(device)
        elif current != device:
            raise ValueError(
                f"the tensors are on cuda:{device} but the current CUDA "
                f"device is cuda:{current} (launch inside "
                f"`with torch.cuda.device({device}):`)")
        return device

    def _check_capability(self, driver: Any, device: int) -> None:
        have = tuple(driver.compute_capability(device))
        want = self.manifest.capability
        if have != want:
            raise ValueError(
                f"kernel '{self.name}' is compiled for {self.manifest.target} "
                f"(compute capability {want[0]}.{want[1]}) but cuda:{device} "
                f"has compute capability {have[0]}.{have[1]}")

    def _stream(self, stream: Any, device: int,
                tensors: Mapping[str, Any]) -> int:
        if stream is None:
            if any(is_torch_tensor(t) for t in tensors.values()):
                return current_torch_stream(device)
            return 0
        if isinstance(stream, int):
            return stream
        handle = getattr(stream, "cuda_stream", None)
        if handle is None:
            raise TypeError(f"stream: expected a CUstream handle (int) or an "
                            f"object with cuda_stream, got "
                            f"{type(stream).__name__}")
        stream_device = getattr(getattr(stream, "device", None), "index",
                                None)
        if stream_device is not None and stream_device != device:
            raise ValueError(f"the stream is on cuda:{stream_device} but the "
                             f"tensors are on cuda:{device}")
        return int(handle)


class BoundLaunch:
    """A checked, prepared launch of a kernel whose tensors may move.

    :meth:`Kernel.bind` made it from one set of tensors; :meth:`run` repeats
    the launch for tensors of the same shapes, strides, dtypes and device
    at other addresses: it rewrites only the addresses that changed (in the
    tensor maps with ``cuTensorMapReplaceAddress``, in pointer parameters
    directly) and launches. The caller guarantees the layouts are those it
    was bound with (fmha.gemm and fmha.attention key their bound launches
    by shapes and strides) and that the addresses of tensors read by TMA
    are 16-byte aligned. Safe to use from several threads: a lock holds
    the parameters from the rewrite to the launch (the driver copies them
    at launch).
    """

    def __init__(self, kernel: Kernel, launch: Launch, params: PackedParams,
                 slots: list, ptrs: list, stride_slots: Sequence = (),
                 then_params: Sequence[PackedParams] = ()) -> None:
        self.kernel = kernel
        self.launch_info = launch
        # Keeps the parameter storage alive: the first launch's, then
        # those of the later launches of a manifest with several.
        self._params = params
        self._then_params = list(then_params)
        self._slots = slots  # per tensor, in the order run() takes them
        self._bound = list(ptrs)  # the addresses the parameters hold
        # Kernel.bind's strides: per stride, its slot in each launch.
        self._stride_slots = [s if isinstance(s, list) else [s]
                              for s in stride_slots]
        driver = kernel.driver
        self._replace = driver.replace_tensor_map_address
        self._go = self._launcher(driver, launch, params)
        self._then = tuple(self._launcher(driver, step, step_params)
                           for step, step_params in zip(launch.then,
                                                        self._then_params))
        self._lock = threading.Lock()
        # The caller's own data (fmha.gemm's front door keeps the shapes of
        # the scratch tensors it passes per call here).
        self.scratch: Any = None

    @staticmethod
    def _launcher(driver: Any, launch: Launch, params: PackedParams) -> Any:
        """A function of a stream handle that launches ``launch`` with
        ``params``."""
        launcher = getattr(driver, "launcher", None)
        if launcher is not None:
            return launcher(launch.function, launch.grid, launch.block,
                            launch.dynamic_smem, params.array,
                            launch.cluster)
        return lambda stream: driver.launch(
            launch.function, launch.grid, launch.block, launch.dynamic_smem,
            stream, params.array, launch.cluster)

    def run(self, ptrs: tuple, stream: int, strides: tuple = ()) -> None:
        """Launches on the tensors at ``ptrs`` (data pointers, in the order
        the launch was bound with) on stream handle ``stream``, with
        ``strides`` the values of the strides the launch was bound to set
        (:meth:`Kernel.bind`'s ``strides``, in that order)."""
        with self._lock:
            bound = self._bound
            for i, ptr in enumerate(ptrs):
                if ptr != bound[i]:
                    for kind, obj in self._slots[i]:
                        if kind == "tensor_map":
                            self._replace(obj, ptr)
                        else:
                            obj.value = ptr
                    bound[i] = ptr
            for found, value in zip(self._stride_slots, strides):
                for slot in found:
                    slot.value = value
            self._go(stream)
            for go in self._then:
                go(stream)
