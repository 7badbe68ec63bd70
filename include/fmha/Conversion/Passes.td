#ifndef FMHA_CONVERSION_PASSES_TD
#define FMHA_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertWSToNVVM : Pass<"convert-ws-to-nvvm"> {
  let summary = "lower warp-specialized kernels (explicit rings) to NVVM";
  let description = [{
    Lowers every `gpu.module` below the op it runs on, after
    `ws-insert-mbarriers`, `ws-allocate-smem` and `ws-allocate-registers`.

    First it checks, before changing anything: it rejects ws ops outside a
    `gpu.module`, a kernel with more than one `ws.warp_specialize` or one
    that does not stand directly in the kernel's body (the roles divide the
    kernel's warps once, from the register cap it starts with), and it
    model-checks the rings of every `ws.warp_specialize` that
    `ws-verify-phases` has not marked (`ws.phases_verified`) with that
    pass's check, so a hand-written chain gets it too
    (docs/Conventions.md; `verify-phases=false` turns this off for IR that
    is not a whole protocol). Then it lowers:

    - `ws.warp_specialize`: the warp index selects each role's body; every
      warpgroup first moves to its role's register budget with `setmaxnreg`
      (`inc` or `dec` from the cap the kernel starts with, which is set by
      `nvvm.maxntid` and `nvvm.minctasm = 1` so that ptxas honours it);
    - replica roles (`replica-roles`, on by default): roles of the same
      size and register budget that follow each other in the warp space and
      differ only in values (the consumer roles partitioning clones per
      tile: their rows, their staging buffers, their named barriers) run one
      copy of the code. The bodies are lined up op by op (a longest common
      subsequence per block); a differing operand becomes a select on the
      replica index ((warp - first warp) / warps, warp-uniform), a named
      barrier whose id differs takes it from such a select (ptxas then
      reserves all 16 barriers: fine for the one CTA per SM these kernels
      run), an op with effects that only some replicas have runs under a
      test of the index, and a pure op only some have runs in all. Roles
      that do not line up this way stay apart. One copy halves the code the
      consumers run from the instruction cache; in a kernel with hang
      reports (`ws-insert-hang-reports`) roles stay apart, so that each
      report names its role;
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
      `math`, `memref` and `cf` ops around them, to LLVM and NVVM;
    - a TMA multicast kernel (`ws.multicast`): clusters of two CTAs
      (`nvvm.cluster_dim`); after the barrier initialisation and after the
      roles the cluster meets (`barrier.cluster.arrive/wait`), so no CTA
      signals the other's barriers before they exist or after it exited;
      a multicast copy loads this CTA's half of the block
      (`%cluster_ctarank`) into both CTAs (`.multicast::cluster`, mask
      0b11), a multicast commit arrives in both.

    ```mlir
    gpu.func @k(%a: !tile.desc<tensor<128x64xbf16>>) kernel attributes {ws.num_threads = 256 : i64, ws.smem_bytes = 32800 : i64} {
      ...
    }
    ```
    becomes an `llvm.func` with `nvvm.kernel`, `nvvm.maxntid = array<i32: 256, 1, 1>`,
    `nvvm.minctasm = 1` and NVVM ops.

    **Hang detection**: a `ws.mbarrier_wait` with a hang report and a
    timeout (`ws.hang_report`, `ws.wait_timeout`, from
    `ws-insert-hang-reports`) becomes a bounded loop of single
    `mbarrier.try_wait.parity` tries that, once the wait has not completed
    for that many microseconds by `%globaltimer`, stores the stage, the
    parity, `%tid.x` and `%ctaid` in a stack slot of the kernel, prints the
    report with `vprintf` and traps.
  }];
  let options = [
    Option<"replicaRoles", "replica-roles", "bool", "true",
           "Lower roles that differ only in values (a kernel's consumer "
           "roles) as one copy of code, parameterised by the replica index">,
    Option<"verifyPhases", "verify-phases", "bool", "true",
           "Model-check the rings of each ws.warp_specialize that "
           "ws-verify-phases has not marked; off only for IR that is not a "
           "whole protocol (unit tests of the lowering, a deliberately "
           "broken kernel)">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // FMHA_CONVERSION_PASSES_TD
