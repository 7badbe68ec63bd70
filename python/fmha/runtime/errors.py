"""The runtime's error classes.

- ``ManifestError``: the manifest file is unreadable or breaks the format
  (docs/Manifest.md); the message names the file and the field.
- ``TensorMapError``: a tensor breaks a rule of ``cuTensorMapEncodeTiled``;
  the message names the rule, the tensor and the offending values. Raised
  before the driver is called.
- ``CudaError``: a CUDA driver call failed (or the driver cannot be loaded);
  the message names the call and the driver's error name and string.

Caller mistakes found before a launch (a missing tensor, a wrong dtype or
rank, inconsistent sizes, a tensor on the wrong device) are ``ValueError``;
``ManifestError`` and ``TensorMapError`` are ``ValueError`` too.
"""

from __future__ import annotations


class ManifestError(ValueError):
    """A manifest is missing, malformed, or breaks the format's rules."""


class TensorMapError(ValueError):
    """A tensor cannot be described by a TMA tensor map (CUtensorMap)."""


class CudaError(RuntimeError):
    """A CUDA driver API call failed.

    Attributes:
        call: the driver function, e.g. ``"cuModuleLoadData"``.
        code: the ``CUresult`` value, or ``None`` when the driver itself
            could not be loaded or lacks the function.
        name: the driver's name of the error (``cuGetErrorName``).
        description: the driver's description (``cuGetErrorString``).
    """

    def __init__(self, call: str, code: int | None, name: str = "",
                 description: str = "") -> None:
        self.call = call
        self.code = code
        self.name = name
        self.description = description
        if code is None:
            message = f"{call}: {description}"
        else:
            message = f"{call} failed: {name or 'unknown error'} ({code})"
            if description:
                message += f": {description}"
        super().__init__(message)
