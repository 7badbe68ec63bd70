#ifndef FMHA_DIALECT_FMHA_TRANSFORMS_PASSES_TD
#define FMHA_DIALECT_FMHA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FMHAExpandKernels : Pass<"fmha-expand-kernels", "::mlir::ModuleOp"> {
  let summary = "expand fmha kernel ops into tile programs";
  let description = [{
    Replaces each `fmha.gemm` by a `gpu.module` holding one kernel, a
    `gpu.func` whose body is the tile program of one CTA, and marks the
    enclosing module as a GPU container. The `gpu.module` carries the
    `#nvvm.target` of the op's target.

    GEMM (`C = A @ B^T` with B given as [N, K] and `transpose_b`, or
    `C = A @ B` with B given as [K, N]): the kernel is persistent; each CTA
    walks output tiles in grouped order (8 tile rows at a time, for L2
    reuse), and for each computes `consumers` tiles of block_m x block_n
    stacked along M, one accumulator chain per tile, looping over K in
    block_k steps:

    ```mlir
    %acc:2 = scf.for %kt = %c0 to %ktiles step %c1 iter_args(%a0 = %zero, %a1 = %zero) -> (...) : i32 {
      %x0 = tile.load %a[%m0, %k] : !tile.desc<tensor<128x64xbf16>>
      %x1 = tile.load %a[%m1, %k] : !tile.desc<tensor<128x64xbf16>>
      %y = tile.load %b[%n0, %k] : !tile.desc<tensor<128x64xbf16>>
      %d0 = tile.dot %x0, %y, %a0 {transpose_b} : ...
      %d1 = tile.dot %x1, %y, %a1 {transpose_b} : ...
      scf.yield %d0, %d1 : ...
    }
    ```
    then converts each accumulator to C's element type and stores it.

    Kernel parameters are tensor descriptors for A, B and C and the sizes
    M, N, K as i32; the manifest launches one CTA per SM. The kernel records its launch contract (tensors, their
    symbolic shapes, parameters, grid) as the JSON string attribute
    `fmha.manifest`, which `fmha-translate --fmha-manifest` completes, and
    the pipeline depth as `fmha.stages`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tile::TileDialect"];
}

#endif // FMHA_DIALECT_FMHA_TRANSFORMS_PASSES_TD
