"""Element types a manifest may name, with their sizes and TMA encodings.

The ``CUtensorMapDataType`` values are those of ``cuda.h`` (CUDA 13):
UINT8 = 0, INT32 = 3, FLOAT16 = 6, FLOAT32 = 7, BFLOAT16 = 9. The driver has no 8-bit
float type; TMA copies bytes, so FP8 tensors are described as UINT8.
"""

from __future__ import annotations

from dataclasses import dataclass

# CUtensorMapDataType (cuda.h).
CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0
CU_TENSOR_MAP_DATA_TYPE_INT32 = 3
CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6
CU_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7
CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9


@dataclass(frozen=True)
class TensorDType:
    """A tensor element type of the manifest format."""

    name: str
    itemsize: int
    tensor_map_type: int


TENSOR_DTYPES: dict[str, TensorDType] = {
    d.name: d
    for d in (
        TensorDType("bf16", 2, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16),
        TensorDType("f16", 2, CU_TENSOR_MAP_DATA_TYPE_FLOAT16),
        TensorDType("f32", 4, CU_TENSOR_MAP_DATA_TYPE_FLOAT32),
        TensorDType("f8e4m3", 1, CU_TENSOR_MAP_DATA_TYPE_UINT8),
        TensorDType("f8e5m2", 1, CU_TENSOR_MAP_DATA_TYPE_UINT8),
        # Index tensors (varlen attention's cu_seqlens).
        TensorDType("i32", 4, CU_TENSOR_MAP_DATA_TYPE_INT32),
    )
}

# Scalar parameter types: name -> (size in bytes, is integer).
SCALAR_DTYPES: dict[str, tuple[int, bool]] = {
    "i32": (4, True),
    "i64": (8, True),
    "f32": (4, False),
}
