#ifndef FMHA_CONVERSION_PASSES_TD
#define FMHA_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertWSToNVVM : Pass<"convert-ws-to-nvvm"> {
  let summary = "lower warp-specialized kernels (explicit rings) to NVVM";
  let description = [{
    Lowers every `gpu.module` below the op it runs on, after
    `ws-insert-mbarriers`, `ws-allocate-smem` and `ws-allocate-registers`:

    - `ws.warp_specialize`: the warp index selects each role's body; every
      warpgroup first moves to its role's register budget with `setmaxnreg`
      (`inc` or `dec` from the cap the kernel starts with, which is set by
      `nvvm.maxntid` and `nvvm.minctasm = 1` so that ptxas honours it);
    - mbarriers: initialised by thread 0 before the roles start, then
      `fence.mbarrier_init` and a CTA barrier; waits spin on
      `mbarrier.try_wait.parity`; arrivals (with `expect_tx` for TMA) by
      every thread or by the role's leader;
    - shared memory: one dynamic shared-memory array; buffers and barriers
      at the offsets from `ws-allocate-smem`;
    - `!tile.desc` kernel parameters: 128-byte `CUtensorMap`s passed by
      value (`byval`, `nvvm.grid_constant`, 64-byte aligned), used by
      `cp.async.bulk.tensor` (coordinates innermost first in PTX);
    - named barriers, proxy fences, and the upstream `gpu`, `scf`, `arith`,
      `math`, `memref` and `cf` ops around them, to LLVM and NVVM.

    ```mlir
    gpu.func @k(%a: !tile.desc<tensor<128x64xbf16>>) kernel attributes {ws.num_threads = 256 : i64, ws.smem_bytes = 32800 : i64} {
      ...
    }
    ```
    becomes an `llvm.func` with `nvvm.kernel`, `nvvm.maxntid = array<i32: 256, 1, 1>`,
    `nvvm.minctasm = 1` and NVVM ops.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // FMHA_CONVERSION_PASSES_TD
