"""The runtime's view of a caller's tensor, and the PyTorch adapter.

The runtime reads tensors only through :class:`TensorView`: shape and strides
(in elements, outermost first), element size, data pointer, manifest dtype
name and CUDA device index. :func:`as_view` turns a ``torch.Tensor`` into one
without importing PyTorch (a torch tensor can only exist once PyTorch is
imported); tests and other frameworks pass ``TensorView`` objects directly.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Optional

# torch dtype names (``str(t.dtype)`` without "torch.") -> manifest names.
TORCH_DTYPES: dict[str, str] = {
    "bfloat16": "bf16",
    "float16": "f16",
    "float32": "f32",
    "float8_e4m3fn": "f8e4m3",
    "float8_e5m2": "f8e5m2",
    "int32": "i32",
}


@dataclass(frozen=True)
class TensorView:
    """What the runtime needs to know about a tensor.

    Attributes:
        shape: sizes, outermost first.
        strides: strides in elements, outermost first.
        itemsize: bytes per element.
        data_ptr: the address of the first element.
        dtype: the manifest's name of the element type (``bf16``, ``f16``,
            ``f32``, ``f8e4m3``, ``f8e5m2``), or None when it has none.
        device: the CUDA device index, or None when not on a CUDA device.
        dtype_repr: how the caller's framework names the type (messages).
        device_repr: how the caller's framework names the device (messages).
    """

    shape: tuple[int, ...]
    strides: tuple[int, ...]
    itemsize: int
    data_ptr: int
    dtype: Optional[str]
    device: Optional[int]
    dtype_repr: str = ""
    device_repr: str = ""

    def describe_dtype(self) -> str:
        return self.dtype_repr or str(self.dtype)

    def describe_device(self) -> str:
        if self.device_repr:
            return self.device_repr
        return "cpu" if self.device is None else f"cuda:{self.device}"


def _torch() -> Any:
    """The torch module when it is imported, without importing it."""
    return sys.modules.get("torch")


def is_torch_tensor(obj: Any) -> bool:
    torch = _torch()
    return torch is not None and isinstance(obj, torch.Tensor)


def torch_view(t: Any) -> TensorView:
    """The view of a ``torch.Tensor``."""
    dtype_repr = str(t.dtype)
    dev = t.device
    return TensorView(
        shape=tuple(int(s) for s in t.shape),
        strides=tuple(int(s) for s in t.stride()),
        itemsize=int(t.element_size()),
        data_ptr=int(t.data_ptr()),
        dtype=TORCH_DTYPES.get(dtype_repr.removeprefix("torch.")),
        device=dev.index if dev.type == "cuda" else None,
        dtype_repr=dtype_repr,
        device_repr=str(dev),
    )


def as_view(obj: Any, name: str = "?") -> TensorView:
    """The view of ``obj``: a TensorView as is, or a ``torch.Tensor``.
    Raises TypeError for anything else."""
    if isinstance(obj, TensorView):
        return obj
    if is_torch_tensor(obj):
        return torch_view(obj)
    raise TypeError(f"tensor '{name}': expected a torch.Tensor or a "
                    f"fmha.runtime.TensorView, got {type(obj).__name__}")


def current_torch_stream(device: int) -> int:
    """The handle (``CUstream``) of PyTorch's current stream on ``device``,
    or 0 (the default stream) when PyTorch is not imported."""
    raw = _RAW_STREAM[0]
    if raw is not None:
        return int(raw(device))
    torch = _torch()
    if torch is None:
        return 0
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:  # what Triton and Inductor use: no Stream object
        _RAW_STREAM[0] = raw
        return int(raw(device))
    return int(torch.cuda.current_stream(device).cuda_stream)


_RAW_STREAM: list = [None]
_TENSOR_CLASS: list = [None]


def torch_tensor_class() -> Any:
    """``torch.Tensor`` when PyTorch is imported, else None."""
    cls = _TENSOR_CLASS[0]
    if cls is None:
        torch = _torch()
        if torch is None:
            return None
        cls = _TENSOR_CLASS[0] = torch.Tensor
    return cls
