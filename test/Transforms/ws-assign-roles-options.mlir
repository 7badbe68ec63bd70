// RUN: not fmha-opt %s --ws-assign-roles=stages=0 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not fmha-opt %s --ws-assign-roles=stages=33 2>&1 | FileCheck %s --check-prefix=STAGES33
// RUN: not fmha-opt %s --ws-assign-roles=consumer-regs=300 2>&1 | FileCheck %s --check-prefix=REGS
// RUN: not fmha-opt %s --ws-assign-roles=producer-regs=41 2>&1 | FileCheck %s --check-prefix=PREGS
// RUN: not fmha-opt %s --ws-assign-roles 2>&1 | FileCheck %s --check-prefix=NOTARGET

// The options of ws-assign-roles are checked before it builds anything:
// a kernel without fmha.stages takes `stages`, which must fit a channel;
// the register budgets must be ones ws.role (setmaxnreg) takes.
// STAGES: error: ws-assign-roles: option 'stages' must be from 1 to 32, got 0
// STAGES33: error: ws-assign-roles: option 'stages' must be from 1 to 32, got 33
// REGS: error: ws-assign-roles: option 'consumer-regs' must be a multiple of 8 from 24 to 256 (setmaxnreg), got 300
// PREGS: error: ws-assign-roles: option 'producer-regs' must be a multiple of 8 from 24 to 256 (setmaxnreg), got 41
// A tile program outside a gpu.module with an #nvvm.target has no target
// (fmha::TargetInfo).
// NOTARGET: error: ws-assign-roles: no target: put the kernel in a gpu.module with an #nvvm.target (gpu.module @kernels [#nvvm.target<chip = "sm_90a">], or chip = "sm_100a"; --nvvm-attach-target attaches one to every gpu.module)
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
func.func @k(%a: !tile.desc<tensor<64x64xbf16, #smem>>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<64x64xf32, #acc>) : i32 {
    %x = tile.load %a[%i, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
    %d = tile.dot %x, %x, %acc0 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
    scf.yield %d : tensor<64x64xf32, #acc>
  }
  return
}
