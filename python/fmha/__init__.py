"""fmha: warp-specialized attention and GEMM kernels for Hopper and Blackwell.

``fmha.runtime`` launches compiled kernels (cubin + JSON manifest) on PyTorch
tensors through the CUDA driver API; it imports without PyTorch or a GPU.
"""

__version__ = "0.1.0"
