"""Launching a compiled kernel (cubin + manifest) on a caller's tensors.

    kernel = Kernel.load("gemm_bf16.json")
    kernel(a=a, b=b, c=c)                  # on PyTorch's current stream
    kernel.launch({"a": a, "b": b, "c": c}, stream=s)

Before anything reaches the GPU, :meth:`Kernel.prepare` checks the tensors
against the manifest (every tensor present, dtypes, ranks, consistent sizes,
one CUDA device that is the current one, the device's compute capability,
the layout rules, the tensor-map rules) and raises ValueError (or its
subclass TensorMapError) with a message that names the tensor and the rule.
"""

from __future__ import annotations

import hashlib
import math
import os
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Union

from .driver import DEFAULT_DYNAMIC_SMEM_LIMIT, MAX_PORTABLE_CLUSTER_SIZE
from .errors import ManifestError
from .manifest import Manifest, bind_symbols, launch_grid, load_manifest
from .params import PackedParams, pack_params
from .tensors import TensorView, as_view, current_torch_stream, is_torch_tensor

ALIGNMENT = 16


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


def check_layout(name: str, view: TensorView) -> None:
    """The manifest's layout rules for every tensor: innermost stride 1,
    other strides multiples of 16 bytes, a 16-byte aligned address."""
    if len(view.strides) != len(view.shape):
        raise ValueError(f"tensor '{name}' has {len(view.strides)} strides "
                         f"for shape {list(view.shape)}")
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
        """Checks ``tensors`` (by name), builds the parameters and launches.
        ``stream``: None for PyTorch's current stream on the tensors' device
        (the default stream without PyTorch), a ``torch.cuda.Stream`` or
        anything with ``cuda_stream``, or a raw ``CUstream`` handle (int)."""
        launch = self.prepare(tensors, stream)
        self.driver.launch(launch.function, launch.grid, launch.block,
                           launch.dynamic_smem, launch.stream,
                           launch.params.array, launch.cluster)

    def prepare(self, tensors: Mapping[str, Any],
                stream: Any = None) -> Launch:
        """Does everything :meth:`launch` does except the launch itself."""
        m = self.manifest
        self._check_names(tensors)
        views = {name: as_view(tensors[name], name) for name in m.tensors}
        for name, spec in m.tensors.items():
            view = views[name]
            if view.dtype != spec.dtype.name:
                raise ValueError(
                    f"tensor '{name}' has dtype {view.describe_dtype()} but "
                    f"the kernel expects {spec.dtype.name}")
        symbols = bind_symbols(m, {n: v.shape for n, v in views.items()})
        device = self._check_device(views)
        driver = self.driver
        self._check_capability(driver, device)
        for name, view in views.items():
            check_layout(name, view)

        def num_sms() -> int:
            return driver.multiprocessor_count(device)

        grid = launch_grid(m, symbols, num_sms)
        params = pack_params(m, views, symbols, driver.encode_tensor_map,
                             num_sms)
        handle = self._stream(stream, device, tensors)
        function = driver.get_function(self._cubin_key, self.cubin, m.entry)
        if m.dynamic_smem > DEFAULT_DYNAMIC_SMEM_LIMIT:
            driver.set_max_dynamic_smem(function, m.dynamic_smem)
        if math.prod(m.cluster) > MAX_PORTABLE_CLUSTER_SIZE:
            driver.allow_non_portable_cluster(function)
        return Launch(function=function, grid=grid, block=m.block,
                      cluster=m.cluster, dynamic_smem=m.dynamic_smem,
                      stream=handle, params=params, symbols=symbols,
                      device=device)

    # -- checks ------------------------------------------------------------

    def _check_names(self, tensors: Mapping[str, Any]) -> None:
        expected = list(self.manifest.tensors)
        missing = [n for n in expected if n not in tensors]
        if missing:
            raise ValueError(
                f"kernel '{self.name}' is missing tensor(s) "
                f"{', '.join(repr(n) for n in missing)} (it takes "
                f"{', '.join(expected)})")
        unexpected = [n for n in tensors if n not in self.manifest.tensors]
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
