"""Launching fmha kernels (cubin + JSON manifest) through the CUDA driver.

Importing this package needs neither PyTorch nor a GPU: the driver
(``libcuda.so.1``) is loaded on the first launch, PyTorch is only used when
the caller passes its tensors.
"""

from .errors import CudaError, ManifestError, TensorMapError
from .kernel import Kernel, Launch, check_layout
from .manifest import (Manifest, bind_symbols, evaluate, launch_grid,
                       load_manifest, parse_expr, parse_manifest)
from .params import PackedParams, pack_params
from .tensormap import (TensorMap, TensorMapArgs, check_box,
                        check_tensor_map_args, encode_tensor_map,
                        tensor_map_args, tensor_map_key)
from .tensors import TensorView, as_view

__all__ = [
    "CudaError", "Kernel", "Launch", "Manifest", "ManifestError",
    "PackedParams", "TensorMap", "TensorMapArgs", "TensorMapError",
    "TensorView", "as_view", "bind_symbols", "check_box", "check_layout",
    "check_tensor_map_args", "encode_tensor_map", "evaluate", "launch_grid",
    "load_manifest", "pack_params", "parse_expr", "parse_manifest",
    "tensor_map_args", "tensor_map_key",
]
