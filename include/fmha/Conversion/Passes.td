#ifndef FMHA_CONVERSION_PASSES_TD
#define FMHA_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertWSToNVVM : Pass<"convert-ws-to-nvvm"> {
  let summary = "lower warp-specialized kernels (explicit rings) to NVVM";
  let description = [{
    Lowers every `gpu.module` below the op it runs on, after
    `ws-insert-mbarriers`, `ws-allocate-smem`, `ws-allocate-registers`,
    `ws-lower-roles`, `ws-lower-cta-pairs` and upstream `convert-scf-to-cf`:
    it converts, and rewrites nothing first. It rejects ws ops outside a
    `gpu.module`, and what those passes lower: a `ws.warp_specialize`, a
    kernel that still carries `ws.cta_pair`, an `scf` op. It lowers:

    - mbarriers: initialised by thread 0 where they are allocated, before
      the `fence.mbarrier_init` and CTA barrier that `ws-lower-roles` put
      ahead of the roles; waits spin on `mbarrier.try_wait.parity`;
      arrivals (with `expect_tx` for TMA) by every thread or by the role's
      leader;
    - shared memory: one dynamic shared-memory array; buffers and barriers
      at the offsets from `ws-allocate-smem`;
    - `!tile.desc` kernel parameters: 128-byte `CUtensorMap`s passed by
      value (`byval`, `nvvm.grid_constant`, 64-byte aligned), used by
      `cp.async.bulk.tensor` (coordinates innermost first in PTX);
    - named barriers, proxy fences, and the upstream `gpu`, `arith`,
      `math`, `memref` and `cf` ops around them, to LLVM and NVVM;
    - in a CTA pair, the ops `ws-lower-cta-pairs` marked (`ws.cta_pair`):
      arrivals and TMA copies reach the barrier of the pair's even CTA
      (`mapa`, cluster scope, `.cta_group::2`), commits and tensor-memory
      allocation take `.cta_group::2`;
    - in a TMA multicast kernel (`ws.multicast`, whose clusters
      `ws-lower-roles` set up), a multicast copy loads this CTA's half of
      the block (`%cluster_ctarank`) into both CTAs (`.multicast::cluster`,
      mask 0b11), and a multicast commit arrives in both;
    - `tile.dot` on sm_90a: a wgmma per k-step and repetition, with a
      descriptor each from its operand's address. In a kernel with
      `fmha.descriptors_at_use` the address goes through an opaque move
      (so that LLVM does not hoist the descriptors out of a loop, a
      register pair each), is encoded once per dot, and the k-steps'
      descriptors add their offset to its low word (one 32-bit add a
      wgmma). A zero accumulator (a constant) is never put into registers:
      the first k-step of each fragment runs with scale-d false;
    - `ws.store_shared` into a swizzled layout: a thread's swizzled offset
      once per row of the pattern, and the other columns' by one xor where
      the register layout bounds the thread's first column (a wgmma
      accumulator's is below 8).

    ```mlir
    gpu.func @k(%a: !tile.desc<tensor<128x64xbf16>>) kernel attributes {nvvm.maxntid = array<i32: 256, 1, 1>, nvvm.minctasm = 1 : i32, ws.num_threads = 256 : i64, ws.smem_bytes = 32800 : i64} {
      ...
    }
    ```
    becomes an `llvm.func` with `nvvm.kernel` and NVVM ops.

    **Hang detection**: a `ws.mbarrier_wait` with a hang report and a
    timeout (`ws.hang_report`, `ws.wait_timeout`, from
    `ws-insert-hang-reports`) becomes a bounded loop of single
    `mbarrier.try_wait.parity` tries that, once the wait has not completed
    for that many microseconds by `%globaltimer`, stores the stage, the
    parity, `%tid.x` and `%ctaid` in a stack slot of the kernel, prints the
    report with `vprintf` and traps.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // FMHA_CONVERSION_PASSES_TD
