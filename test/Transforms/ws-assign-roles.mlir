// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-assign-roles | FileCheck %s
// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-assign-roles="producer-regs=56 consumer-regs=224" | FileCheck %s --check-prefix=BUDGETS

// ws-assign-roles writes the role decision on the tile program
// (docs/Roles.md): the roles and channel depths on the kernel, the channel
// and issuing role on each load, the roles computing each loop-carried
// value on the main loop, the storing role on each store. Nothing else
// changes; ws-partition-roles builds from it (ws-partition-roles.mlir runs
// the two together).

// A two-consumer GEMM: role 0 the producer issues the three loads of a K
// step, which fill one slot of channel 0 (fmha.stages deep); consumer i
// (role 1 + i) computes loop-carried value i and stores it.
// CHECK-LABEL: gpu.func @gemm(
// CHECK-SAME: ws.channel_stages = array<i32: 3>
// CHECK-SAME: ws.roles = [#ws.role_spec<"producer", warps = 1, regs = 40>, #ws.role_spec<"consumer0", warps = 4, regs = 232>, #ws.role_spec<"consumer1", warps = 4, regs = 232>]
// The register budgets are the target's (fmha::TargetInfo) unless the
// options set them.
// BUDGETS-LABEL: gpu.func @gemm(
// BUDGETS-SAME: ws.roles = [#ws.role_spec<"producer", warps = 1, regs = 56>, #ws.role_spec<"consumer0", warps = 4, regs = 224>, #ws.role_spec<"consumer1", warps = 4, regs = 224>]
// CHECK: tile.load {{.*}} {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>}
// CHECK: tile.load {{.*}} {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>}
// CHECK: tile.load {{.*}} {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>}
// CHECK: } {ws.partition_outputs = [array<i32: 1>, array<i32: 2>]}
// CHECK: tile.store {{.*}} {ws.partition = array<i32: 1>}
// CHECK: tile.store {{.*}} {ws.partition = array<i32: 2>}
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @gemm_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @gemm(%a: !tile.desc<tensor<128x64xbf16, #smem>>,
                   %b: !tile.desc<tensor<128x64xbf16, #smem>>,
                   %c: !tile.desc<tensor<128x128xbf16>>,
                   %m: i32, %n: i32, %k: i32) kernel attributes {fmha.stages = 3 : i64} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c63 = arith.constant 63 : i32
      %c64 = arith.constant 64 : i32
      %c128 = arith.constant 128 : i32
      %c256 = arith.constant 256 : i32
      %pid_m = tile.program_id x : i32
      %pid_n = tile.program_id y : i32
      %m0 = arith.muli %pid_m, %c256 : i32
      %m1 = arith.addi %m0, %c128 : i32
      %n0 = arith.muli %pid_n, %c128 : i32
      %kp = arith.addi %k, %c63 : i32
      %ktiles = arith.divui %kp, %c64 : i32
      %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
      %r:2 = scf.for %kt = %c0 to %ktiles step %c1
          iter_args(%acc0 = %zero, %acc1 = %zero)
          -> (tensor<128x128xf32, #acc>, tensor<128x128xf32, #acc>) : i32 {
        %ko = arith.muli %kt, %c64 : i32
        %x0 = tile.load %a[%m0, %ko] : !tile.desc<tensor<128x64xbf16, #smem>>
        %x1 = tile.load %a[%m1, %ko] : !tile.desc<tensor<128x64xbf16, #smem>>
        %y = tile.load %b[%n0, %ko] : !tile.desc<tensor<128x64xbf16, #smem>>
        %d0 = tile.dot %x0, %y, %acc0 {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
        %d1 = tile.dot %x1, %y, %acc1 {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
        scf.yield %d0, %d1 : tensor<128x128xf32, #acc>, tensor<128x128xf32, #acc>
      }
      %t0 = arith.truncf %r#0 : tensor<128x128xf32, #acc> to tensor<128x128xbf16, #acc>
      tile.store %c[%m0, %n0], %t0 : !tile.desc<tensor<128x128xbf16>>, tensor<128x128xbf16, #acc>
      %t1 = arith.truncf %r#1 : tensor<128x128xf32, #acc> to tensor<128x128xbf16, #acc>
      tile.store %c[%m1, %n0], %t1 : !tile.desc<tensor<128x128xbf16>>, tensor<128x128xbf16, #acc>
      gpu.return
    }
  }
}

// -----

// A tile transposed in shared memory (fp8 attention's V^T with
// transpose_v): a transposer role of three warps at the producer's budget
// comes last; the transpose hands its result through a channel of its own
// (fmha.stages deep) from the transposer; the load it reads stays the
// producer's.
// CHECK-LABEL: gpu.func @transposed_operand(
// CHECK-SAME: ws.channel_stages = array<i32: 3, 3>
// CHECK-SAME: ws.roles = [#ws.role_spec<"producer", warps = 1, regs = 40>, #ws.role_spec<"consumer0", warps = 4, regs = 232>, #ws.role_spec<"transposer", warps = 3, regs = 40>]
// CHECK: tile.load {{.*}} {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>}
// CHECK: tile.load {{.*}} {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>}
// CHECK: tile.transpose {{.*}} {k_quad16, ws.partition = array<i32: 2>, ws.result_channel = 1 : i32}
// CHECK: } {ws.partition_outputs = [array<i32: 1>]}
// CHECK: tile.store {{.*}} {ws.partition = array<i32: 1>}
#s64 = #tile.nvmma_shared<swizzle = 64, transposed = false, element_bits = 8>
#s128 = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 8>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @transposed_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @transposed_operand(%a: !tile.desc<tensor<64x64xf8E4M3FN, #s64>>,
                                 %b: !tile.desc<tensor<64x128xf8E4M3FN, #s128>>,
                                 %c: !tile.desc<tensor<64x128xf32>>,
                                 %k: i32) kernel attributes {fmha.stages = 3 : i64} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c64 = arith.constant 64 : i32
      %zero = arith.constant dense<0.0> : tensor<64x128xf32, #acc>
      %r = scf.for %kt = %c0 to %k step %c1 iter_args(%acc = %zero)
          -> (tensor<64x128xf32, #acc>) : i32 {
        %ko = arith.muli %kt, %c64 : i32
        %x = tile.load %a[%c0, %ko] : !tile.desc<tensor<64x64xf8E4M3FN, #s64>>
        %y = tile.load %b[%ko, %c0] : !tile.desc<tensor<64x128xf8E4M3FN, #s128>>
        %yt = tile.transpose %y {k_quad16} : tensor<64x128xf8E4M3FN, #s128> -> tensor<128x64xf8E4M3FN, #s64>
        %d = tile.dot %x, %yt, %acc {transpose_b} : tensor<64x64xf8E4M3FN, #s64>, tensor<128x64xf8E4M3FN, #s64>, tensor<64x128xf32, #acc>
        scf.yield %d : tensor<64x128xf32, #acc>
      }
      tile.store %c[%c0, %c0], %r : !tile.desc<tensor<64x128xf32>>, tensor<64x128xf32, #acc>
      gpu.return
    }
  }
}

// -----

// Three consumers (a GEMM's `consumers 3`) share the register file at
// less: the producer at 40 and each consumer at (65536 / 128 - 40) / 3
// rounded down to 152.
// CHECK-LABEL: gpu.func @gemm3(
// CHECK-SAME: ws.roles = [#ws.role_spec<"producer", warps = 1, regs = 40>, #ws.role_spec<"consumer0", warps = 4, regs = 152>, #ws.role_spec<"consumer1", warps = 4, regs = 152>, #ws.role_spec<"consumer2", warps = 4, regs = 152>]
// CHECK: } {ws.partition_outputs = [array<i32: 1>, array<i32: 2>, array<i32: 3>]}
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @gemm3_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @gemm3(%a: !tile.desc<tensor<64x64xbf16, #smem>>,
                    %b: !tile.desc<tensor<64x64xbf16, #smem>>,
                    %c: !tile.desc<tensor<64x64xbf16>>,
                    %k: i32) kernel attributes {fmha.stages = 3 : i64} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c64 = arith.constant 64 : i32
      %c128 = arith.constant 128 : i32
      %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
      %r:3 = scf.for %kt = %c0 to %k step %c1
          iter_args(%acc0 = %zero, %acc1 = %zero, %acc2 = %zero)
          -> (tensor<64x64xf32, #acc>, tensor<64x64xf32, #acc>, tensor<64x64xf32, #acc>) : i32 {
        %ko = arith.muli %kt, %c64 : i32
        %x0 = tile.load %a[%c0, %ko] : !tile.desc<tensor<64x64xbf16, #smem>>
        %x1 = tile.load %a[%c64, %ko] : !tile.desc<tensor<64x64xbf16, #smem>>
        %x2 = tile.load %a[%c128, %ko] : !tile.desc<tensor<64x64xbf16, #smem>>
        %y = tile.load %b[%c0, %ko] : !tile.desc<tensor<64x64xbf16, #smem>>
        %d0 = tile.dot %x0, %y, %acc0 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        %d1 = tile.dot %x1, %y, %acc1 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        %d2 = tile.dot %x2, %y, %acc2 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        scf.yield %d0, %d1, %d2 : tensor<64x64xf32, #acc>, tensor<64x64xf32, #acc>, tensor<64x64xf32, #acc>
      }
      %t0 = arith.truncf %r#0 : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
      tile.store %c[%c0, %c0], %t0 : !tile.desc<tensor<64x64xbf16>>, tensor<64x64xbf16, #acc>
      %t1 = arith.truncf %r#1 : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
      tile.store %c[%c64, %c0], %t1 : !tile.desc<tensor<64x64xbf16>>, tensor<64x64xbf16, #acc>
      %t2 = arith.truncf %r#2 : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
      tile.store %c[%c128, %c0], %t2 : !tile.desc<tensor<64x64xbf16>>, tensor<64x64xbf16, #acc>
      gpu.return
    }
  }
}

// -----

// Accumulate promotion (an fp8 GEMM's promote_every): the main loop (the
// innermost loop with loads) runs a group of K steps onto zeros, and a loop
// around it adds each group's accumulators into its sums. The stores read
// the sums, which come from the main loop's chains through the group loop;
// the group loop's values are computed by the consumers of the chains
// they add up.
// CHECK-LABEL: gpu.func @gemm_promote(
// CHECK-SAME: ws.roles = [#ws.role_spec<"producer", warps = 1, regs = 40>, #ws.role_spec<"consumer0", warps = 4, regs = 232>, #ws.role_spec<"consumer1", warps = 4, regs = 232>]
// CHECK: tile.load {{.*}} {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>}
// CHECK: tile.load {{.*}} {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>}
// CHECK: tile.load {{.*}} {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>}
// CHECK: } {ws.partition_outputs = [array<i32: 1>, array<i32: 2>]}
// CHECK: arith.addf
// CHECK: arith.addf
// CHECK: } {ws.partition_outputs = [array<i32: 1>, array<i32: 2>]}
// CHECK: tile.store {{.*}} {ws.partition = array<i32: 1>}
// CHECK: tile.store {{.*}} {ws.partition = array<i32: 2>}
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 8>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @gemm_promote_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @gemm_promote(%a: !tile.desc<tensor<64x128xf8E4M3FN, #smem>>,
                           %b: !tile.desc<tensor<128x128xf8E4M3FN, #smem>>,
                           %c: !tile.desc<tensor<64x128xf32>>,
                           %m: i32, %n: i32, %k: i32) kernel attributes {fmha.stages = 3 : i64} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c4 = arith.constant 4 : i32
      %c64 = arith.constant 64 : i32
      %c127 = arith.constant 127 : i32
      %c128 = arith.constant 128 : i32
      %pid_m = tile.program_id x : i32
      %pid_n = tile.program_id y : i32
      %m0 = arith.muli %pid_m, %c128 : i32
      %m1 = arith.addi %m0, %c64 : i32
      %n0 = arith.muli %pid_n, %c128 : i32
      %kp = arith.addi %k, %c127 : i32
      %ktiles = arith.divui %kp, %c128 : i32
      %zero = arith.constant dense<0.0> : tensor<64x128xf32, #acc>
      %s:2 = scf.for %g = %c0 to %ktiles step %c4
          iter_args(%sum0 = %zero, %sum1 = %zero)
          -> (tensor<64x128xf32, #acc>, tensor<64x128xf32, #acc>) : i32 {
        %g4 = arith.addi %g, %c4 : i32
        %end = arith.minui %g4, %ktiles : i32
        %r:2 = scf.for %kt = %g to %end step %c1
            iter_args(%acc0 = %zero, %acc1 = %zero)
            -> (tensor<64x128xf32, #acc>, tensor<64x128xf32, #acc>) : i32 {
          %ko = arith.muli %kt, %c128 : i32
          %x0 = tile.load %a[%m0, %ko] : !tile.desc<tensor<64x128xf8E4M3FN, #smem>>
          %x1 = tile.load %a[%m1, %ko] : !tile.desc<tensor<64x128xf8E4M3FN, #smem>>
          %y = tile.load %b[%n0, %ko] : !tile.desc<tensor<128x128xf8E4M3FN, #smem>>
          %d0 = tile.dot %x0, %y, %acc0 {transpose_b} : tensor<64x128xf8E4M3FN, #smem>, tensor<128x128xf8E4M3FN, #smem>, tensor<64x128xf32, #acc>
          %d1 = tile.dot %x1, %y, %acc1 {transpose_b} : tensor<64x128xf8E4M3FN, #smem>, tensor<128x128xf8E4M3FN, #smem>, tensor<64x128xf32, #acc>
          scf.yield %d0, %d1 : tensor<64x128xf32, #acc>, tensor<64x128xf32, #acc>
        }
        %a0 = arith.addf %sum0, %r#0 : tensor<64x128xf32, #acc>
        %a1 = arith.addf %sum1, %r#1 : tensor<64x128xf32, #acc>
        scf.yield %a0, %a1 : tensor<64x128xf32, #acc>, tensor<64x128xf32, #acc>
      }
      tile.store %c[%m0, %n0], %s#0 : !tile.desc<tensor<64x128xf32>>, tensor<64x128xf32, #acc>
      tile.store %c[%m1, %n0], %s#1 : !tile.desc<tensor<64x128xf32>>, tensor<64x128xf32, #acc>
      gpu.return
    }
  }
}

// -----

// TMA multicast: in a ws.multicast kernel the loads of the dots' B operands
// are multicast.
// CHECK-LABEL: gpu.func @gemm_multicast(
// CHECK-SAME: ws.channel_stages = array<i32: 2>
// CHECK-SAME: ws.roles = [#ws.role_spec<"producer", warps = 1, regs = 40>, #ws.role_spec<"consumer0", warps = 4, regs = 232>]
// CHECK: tile.load {{.*}} {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>}
// CHECK: tile.load {{.*}} {ws.load_channel = 0 : i32, ws.multicast_load, ws.partition = array<i32: 0>}
// CHECK: } {ws.partition_outputs = [array<i32: 1>]}
// CHECK: tile.store {{.*}} {ws.partition = array<i32: 1>}
#smem = #tile.nvmma_shared<swizzle = 64, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @gemm_multicast_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @gemm_multicast(%a: !tile.desc<tensor<64x32xf16, #smem>>,
                             %b: !tile.desc<tensor<128x32xf16, #smem>>,
                             %c: !tile.desc<tensor<64x128xf32>>,
                             %m0: i32, %n0: i32, %ktiles: i32) kernel
        attributes {ws.multicast} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      %zero = arith.constant dense<0.0> : tensor<64x128xf32, #acc>
      %r = scf.for %kt = %c0 to %ktiles step %c1 iter_args(%acc0 = %zero)
          -> (tensor<64x128xf32, #acc>) : i32 {
        %ko = arith.muli %kt, %c32 : i32
        %x = tile.load %a[%m0, %ko] : !tile.desc<tensor<64x32xf16, #smem>>
        %y = tile.load %b[%n0, %ko] : !tile.desc<tensor<128x32xf16, #smem>>
        %d = tile.dot %x, %y, %acc0 {transpose_b} : tensor<64x32xf16, #smem>, tensor<128x32xf16, #smem>, tensor<64x128xf32, #acc>
        scf.yield %d : tensor<64x128xf32, #acc>
      }
      tile.store %c[%m0, %n0], %r : !tile.desc<tensor<64x128xf32>>, tensor<64x128xf32, #acc>
      gpu.return
    }
  }
}

// -----

// A kernel whose consumers need more than the default split gives them
// (fmha.consumer_registers, the op's estimate) gets the widest split: the
// producer at 24, each consumer at 240. The options still override it.
// CHECK-LABEL: gpu.func @gemm_wide_registers(
// CHECK-SAME: ws.roles = [#ws.role_spec<"producer", warps = 1, regs = 24>, #ws.role_spec<"consumer0", warps = 4, regs = 240>]
// BUDGETS-LABEL: gpu.func @gemm_wide_registers(
// BUDGETS-SAME: ws.roles = [#ws.role_spec<"producer", warps = 1, regs = 56>, #ws.role_spec<"consumer0", warps = 4, regs = 224>]
#smem = #tile.nvmma_shared<swizzle = 64, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @gemm_wide_registers_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @gemm_wide_registers(%a: !tile.desc<tensor<64x32xf16, #smem>>,
                                  %b: !tile.desc<tensor<128x32xf16, #smem>>,
                                  %c: !tile.desc<tensor<64x128xf32>>,
                                  %m0: i32, %n0: i32, %ktiles: i32) kernel
        attributes {fmha.consumer_registers = 240 : i64} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %zero = arith.constant dense<0.0> : tensor<64x128xf32, #acc>
      %r = scf.for %kt = %c0 to %ktiles step %c1 iter_args(%acc0 = %zero)
          -> (tensor<64x128xf32, #acc>) : i32 {
        %ko = arith.muli %kt, %c1 : i32
        %x = tile.load %a[%m0, %ko] : !tile.desc<tensor<64x32xf16, #smem>>
        %y = tile.load %b[%n0, %ko] : !tile.desc<tensor<128x32xf16, #smem>>
        %d = tile.dot %x, %y, %acc0 {transpose_b} : tensor<64x32xf16, #smem>, tensor<128x32xf16, #smem>, tensor<64x128xf32, #acc>
        scf.yield %d : tensor<64x128xf32, #acc>
      }
      tile.store %c[%m0, %n0], %r : !tile.desc<tensor<64x128xf32>>, tensor<64x128xf32, #acc>
      gpu.return
    }
  }
}

// -----

// Plain stores of row statistics: each goes to the consumer whose chain
// computes the value (accumulator and row max of consumer 0, of consumer 1).
// CHECK-LABEL: gpu.func @row_max(
// CHECK-SAME: ws.channel_stages = array<i32: 2>
// CHECK-SAME: ws.roles = [#ws.role_spec<"producer", warps = 1, regs = 40>, #ws.role_spec<"consumer0", warps = 4, regs = 232>, #ws.role_spec<"consumer1", warps = 4, regs = 232>]
// CHECK: tile.load {{.*}} {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>}
// CHECK: tile.load {{.*}} {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>}
// CHECK: tile.load {{.*}} {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>}
// CHECK: } {ws.partition_outputs = [array<i32: 1>, array<i32: 1>, array<i32: 2>, array<i32: 2>]}
// CHECK: tile.store_direct {{.*}} {ws.partition = array<i32: 1>}
// CHECK: tile.store_direct {{.*}} {ws.partition = array<i32: 2>}
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
#row = #tile.slice<dim = 1, parent = #acc>
module attributes {gpu.container_module} {
  gpu.module @row_max_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @row_max(%a: !tile.desc<tensor<64x64xbf16, #smem>>,
                      %out: memref<?xf32>, %n: i32) kernel {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c64 = arith.constant 64 : i32
      %c128 = arith.constant 128 : i32
      %pid = tile.program_id x : i32
      %m0 = arith.muli %pid, %c128 : i32
      %m1 = arith.addi %m0, %c64 : i32
      %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
      %ninf = arith.constant dense<0xFF800000> : tensor<64xf32, #row>
      %r:4 = scf.for %i = %c0 to %n step %c1
          iter_args(%acc0 = %zero, %max0 = %ninf, %acc1 = %zero, %max1 = %ninf)
          -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>,
              tensor<64x64xf32, #acc>, tensor<64xf32, #row>) : i32 {
        %k0 = arith.muli %i, %c64 : i32
        %x0 = tile.load %a[%m0, %k0] : !tile.desc<tensor<64x64xbf16, #smem>>
        %x1 = tile.load %a[%m1, %k0] : !tile.desc<tensor<64x64xbf16, #smem>>
        %y = tile.load %a[%k0, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
        %d0 = tile.dot %x0, %y, %acc0 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        %t0 = tile.reduce max %d0 axis 1 : tensor<64x64xf32, #acc> -> tensor<64xf32, #row>
        %n0 = arith.maximumf %max0, %t0 : tensor<64xf32, #row>
        %d1 = tile.dot %x1, %y, %acc1 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        %t1 = tile.reduce max %d1 axis 1 : tensor<64x64xf32, #acc> -> tensor<64xf32, #row>
        %n1 = arith.maximumf %max1, %t1 : tensor<64xf32, #row>
        scf.yield %d0, %n0, %d1, %n1 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64x64xf32, #acc>, tensor<64xf32, #row>
      }
      tile.store_direct %out[%m0], %r#1 : memref<?xf32>, tensor<64xf32, #row>
      tile.store_direct %out[%m1], %r#3 : memref<?xf32>, tensor<64xf32, #row>
      gpu.return
    }
  }
}

// -----

// Attention's shape: Q before the loop (channel 0, one slot), K first
// before the loop and then in it (channel 1), V in the loop and last after
// it (channel 2); K and V rings have `stages` slots.
// CHECK-LABEL: gpu.func @pipelined(
// CHECK-SAME: ws.channel_stages = array<i32: 1, 2, 2>
// CHECK-SAME: ws.roles = [#ws.role_spec<"producer", warps = 1, regs = 40>, #ws.role_spec<"consumer0", warps = 4, regs = 232>, #ws.role_spec<"consumer1", warps = 4, regs = 232>]
// CHECK: tile.load {{.*}} {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>}
// CHECK: tile.load {{.*}} {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>}
// CHECK: tile.load {{.*}} {ws.load_channel = 1 : i32, ws.partition = array<i32: 0>}
// CHECK: tile.load {{.*}} {ws.load_channel = 1 : i32, ws.partition = array<i32: 0>}
// CHECK: tile.load {{.*}} {ws.load_channel = 2 : i32, ws.partition = array<i32: 0>}
// CHECK: } {ws.partition_outputs = [array<i32: 1>, array<i32: 1>, array<i32: 2>, array<i32: 2>]}
// CHECK: tile.load {{.*}} {ws.load_channel = 2 : i32, ws.partition = array<i32: 0>}
// CHECK: tile.store {{.*}} {ws.partition = array<i32: 1>}
// CHECK: tile.store {{.*}} {ws.partition = array<i32: 2>}
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @pipelined_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @pipelined(%q: !tile.desc<tensor<64x64xbf16, #smem>>,
                        %k: !tile.desc<tensor<64x64xbf16, #smem>>,
                        %v: !tile.desc<tensor<64x64xbf16, #smem>>,
                        %o: !tile.desc<tensor<64x64xbf16>>, %n: i32) kernel {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c64 = arith.constant 64 : i32
      %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
      %q0 = tile.load %q[%c0, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
      %q1 = tile.load %q[%c64, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
      %k0 = tile.load %k[%c0, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
      %s0 = tile.dot %q0, %k0, %zero {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
      %s1 = tile.dot %q1, %k0, %zero {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
      %p0 = arith.truncf %s0 : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
      %p1 = arith.truncf %s1 : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
      %r:4 = scf.for %i = %c1 to %n step %c1
          iter_args(%o0 = %zero, %pp0 = %p0, %o1 = %zero, %pp1 = %p1)
          -> (tensor<64x64xf32, #acc>, tensor<64x64xbf16, #acc>,
              tensor<64x64xf32, #acc>, tensor<64x64xbf16, #acc>) : i32 {
        %n0 = arith.muli %i, %c64 : i32
        %prev = arith.subi %n0, %c64 : i32
        %kt = tile.load %k[%n0, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
        %t0 = tile.dot %q0, %kt, %zero {async, transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        %t1 = tile.dot %q1, %kt, %zero {async, transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        %vt = tile.load %v[%prev, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
        %a0 = tile.dot %pp0, %vt, %o0 {async} : tensor<64x64xbf16, #acc>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        %a1 = tile.dot %pp1, %vt, %o1 {async} : tensor<64x64xbf16, #acc>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        %u0 = tile.dot_wait %t0 pending 1 : tensor<64x64xf32, #acc>
        %n0p = arith.truncf %u0 : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
        %b0 = tile.dot_wait %a0 pending 0 : tensor<64x64xf32, #acc>
        %u1 = tile.dot_wait %t1 pending 1 : tensor<64x64xf32, #acc>
        %n1p = arith.truncf %u1 : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
        %b1 = tile.dot_wait %a1 pending 0 : tensor<64x64xf32, #acc>
        scf.yield %b0, %n0p, %b1, %n1p : tensor<64x64xf32, #acc>, tensor<64x64xbf16, #acc>, tensor<64x64xf32, #acc>, tensor<64x64xbf16, #acc>
      }
      %last = arith.muli %n, %c64 : i32
      %vl = tile.load %v[%last, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
      %f0 = tile.dot %r#1, %vl, %r#0 : tensor<64x64xbf16, #acc>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
      %f1 = tile.dot %r#3, %vl, %r#2 : tensor<64x64xbf16, #acc>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
      %g0 = arith.truncf %f0 : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
      tile.store %o[%c0, %c0], %g0 : !tile.desc<tensor<64x64xbf16>>, tensor<64x64xbf16, #acc>
      %g1 = arith.truncf %f1 : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
      tile.store %o[%c64, %c0], %g1 : !tile.desc<tensor<64x64xbf16>>, tensor<64x64xbf16, #acc>
      gpu.return
    }
  }
}

// -----

// A persistent program: Q loaded once per tile of the loop around the main
// loop takes fmha.item_slots slots (1 by default).
// CHECK-LABEL: gpu.func @persistent(
// CHECK-SAME: ws.channel_stages = array<i32: 1, 2>
// CHECK-SAME: ws.roles = [#ws.role_spec<"producer", warps = 1, regs = 40>, #ws.role_spec<"consumer0", warps = 4, regs = 232>]
// CHECK: tile.load {{.*}} {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>}
// CHECK: tile.load {{.*}} {ws.load_channel = 1 : i32, ws.partition = array<i32: 0>}
// CHECK: } {ws.partition_outputs = [array<i32: 1>]}
// CHECK: tile.store {{.*}} {ws.partition = array<i32: 1>}
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @persistent_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @persistent(%q: !tile.desc<tensor<128x64xbf16, #smem>>,
                         %k: !tile.desc<tensor<128x64xbf16, #smem>>,
                         %o: !tile.desc<tensor<128x128xf32>>,
                         %tiles: i32, %steps: i32) kernel attributes {fmha.stages = 2 : i64} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c64 = arith.constant 64 : i32
      %c128 = arith.constant 128 : i32
      %pid = tile.program_id x : i32
      %np = tile.num_programs x : i32
      %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
      scf.for %t = %pid to %tiles step %np : i32 {
        %m0 = arith.muli %t, %c128 : i32
        %x = tile.load %q[%m0, %c0] : !tile.desc<tensor<128x64xbf16, #smem>>
        %r = scf.for %s = %c0 to %steps step %c1 iter_args(%acc = %zero)
            -> (tensor<128x128xf32, #acc>) : i32 {
          %n0 = arith.muli %s, %c128 : i32
          %y = tile.load %k[%n0, %c0] : !tile.desc<tensor<128x64xbf16, #smem>>
          %d = tile.dot %x, %y, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
          scf.yield %d : tensor<128x128xf32, #acc>
        }
        tile.store %o[%m0, %c0], %r : !tile.desc<tensor<128x128xf32>>, tensor<128x128xf32, #acc>
      }
      gpu.return
    }
  }
}

// -----

// Main loops side by side (a ping-pong GEMM's pair of work items): a
// consumer per loop, which computes what the loop carries and stores its
// result; the loops' loads fill one channel (fmha.stages deep) in program
// order; the loops are marked ws.turn.
// CHECK-LABEL: gpu.func @turns(
// CHECK-SAME: ws.channel_stages = array<i32: 2>
// CHECK-SAME: ws.roles = [#ws.role_spec<"producer", warps = 1, regs = 40>, #ws.role_spec<"consumer0", warps = 4, regs = 232>, #ws.role_spec<"consumer1", warps = 4, regs = 232>]
// CHECK: scf.for
// CHECK:   tile.load {{.*}} {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>}
// CHECK:   tile.load {{.*}} {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>}
// CHECK: } {ws.partition_outputs = [array<i32: 1>], ws.turn}
// CHECK: tile.store {{.*}} {ws.partition = array<i32: 1>}
// CHECK: scf.for
// CHECK:   tile.load {{.*}} {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>}
// CHECK:   tile.load {{.*}} {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>}
// CHECK: } {ws.partition_outputs = [array<i32: 2>], ws.turn}
// CHECK: tile.store {{.*}} {ws.partition = array<i32: 2>}
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @turns_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @turns(%a: !tile.desc<tensor<128x64xbf16, #smem>>,
                    %b: !tile.desc<tensor<128x64xbf16, #smem>>,
                    %c: !tile.desc<tensor<128x128xbf16>>,
                    %tiles: i32, %steps: i32) kernel attributes {fmha.stages = 2 : i64} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %c64 = arith.constant 64 : i32
      %c128 = arith.constant 128 : i32
      %pid = tile.program_id x : i32
      %np = tile.num_programs x : i32
      %step = arith.muli %np, %c2 : i32
      %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
      scf.for %t = %pid to %tiles step %step : i32 {
        %m0 = arith.muli %t, %c128 : i32
        %r0 = scf.for %s = %c0 to %steps step %c1 iter_args(%acc = %zero)
            -> (tensor<128x128xf32, #acc>) : i32 {
          %ko = arith.muli %s, %c64 : i32
          %x = tile.load %a[%m0, %ko] : !tile.desc<tensor<128x64xbf16, #smem>>
          %y = tile.load %b[%c0, %ko] : !tile.desc<tensor<128x64xbf16, #smem>>
          %d = tile.dot %x, %y, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
          scf.yield %d : tensor<128x128xf32, #acc>
        }
        %s0 = arith.truncf %r0 : tensor<128x128xf32, #acc> to tensor<128x128xbf16, #acc>
        tile.store %c[%m0, %c0], %s0 : !tile.desc<tensor<128x128xbf16>>, tensor<128x128xbf16, #acc>
        %t1 = arith.addi %t, %np : i32
        %m1 = arith.muli %t1, %c128 : i32
        %r1 = scf.for %s = %c0 to %steps step %c1 iter_args(%acc = %zero)
            -> (tensor<128x128xf32, #acc>) : i32 {
          %ko = arith.muli %s, %c64 : i32
          %x = tile.load %a[%m1, %ko] : !tile.desc<tensor<128x64xbf16, #smem>>
          %y = tile.load %b[%c0, %ko] : !tile.desc<tensor<128x64xbf16, #smem>>
          %d = tile.dot %x, %y, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
          scf.yield %d : tensor<128x128xf32, #acc>
        }
        %s1 = arith.truncf %r1 : tensor<128x128xf32, #acc> to tensor<128x128xbf16, #acc>
        tile.store %c[%m1, %c0], %s1 : !tile.desc<tensor<128x128xbf16>>, tensor<128x128xbf16, #acc>
      }
      gpu.return
    }
  }
}

// -----

// Main loops side by side, but one store reads both results: neither
// consumer can store it.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @turns_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @turns_shared_store(%a: !tile.desc<tensor<128x64xbf16, #smem>>,
                                 %c: !tile.desc<tensor<128x128xf32>>,
                                 %steps: i32) kernel {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
      %r0 = scf.for %s = %c0 to %steps step %c1 iter_args(%acc = %zero)
          -> (tensor<128x128xf32, #acc>) : i32 {
        %x = tile.load %a[%s, %c0] : !tile.desc<tensor<128x64xbf16, #smem>>
        %d = tile.dot %x, %x, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
        scf.yield %d : tensor<128x128xf32, #acc>
      }
      %r1 = scf.for %s = %c0 to %steps step %c1 iter_args(%acc = %zero)
          -> (tensor<128x128xf32, #acc>) : i32 {
        %x = tile.load %a[%s, %c1] : !tile.desc<tensor<128x64xbf16, #smem>>
        %d = tile.dot %x, %x, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
        scf.yield %d : tensor<128x128xf32, #acc>
      }
      %sum = arith.addf %r0, %r1 : tensor<128x128xf32, #acc>
      // expected-error @+1 {{'tile.store' op stores a value computed from several main loops: no one consumer role can store it}}
      tile.store %c[%c0, %c0], %sum : !tile.desc<tensor<128x128xf32>>, tensor<128x128xf32, #acc>
      gpu.return
    }
  }
}

// -----

// Main loops side by side, one of which accumulates nothing.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @turns_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @turns_no_dot(%a: !tile.desc<tensor<128x64xbf16, #smem>>,
                           %c: !tile.desc<tensor<128x128xf32>>,
                           %steps: i32) kernel {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
      %r0 = scf.for %s = %c0 to %steps step %c1 iter_args(%acc = %zero)
          -> (tensor<128x128xf32, #acc>) : i32 {
        %x = tile.load %a[%s, %c0] : !tile.desc<tensor<128x64xbf16, #smem>>
        %d = tile.dot %x, %x, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
        scf.yield %d : tensor<128x128xf32, #acc>
      }
      tile.store %c[%c0, %c0], %r0 : !tile.desc<tensor<128x128xf32>>, tensor<128x128xf32, #acc>
      // expected-error @+1 {{'scf.for' op carries no tile.dot accumulator: nothing for its consumer role to do}}
      scf.for %s = %c0 to %steps step %c1 : i32 {
        %x = tile.load %a[%s, %c1] : !tile.desc<tensor<128x64xbf16, #smem>>
      }
      gpu.return
    }
  }
}

// -----

// sm_100a GEMM: the whole decision. Role 0 (the load warp) issues every
// load into channel 0 (B multicast in a ws.multicast kernel); role 1 (the
// MMA warp) computes both accumulators, held in the two-slot channel 1 in
// tensor memory (ws.output_channels); epilogue i stores what is computed
// from accumulator i.
// CHECK-LABEL: gpu.func @gemm_sm100(
// CHECK-SAME: ws.channel_stages = array<i32: 4, 2>
// CHECK-SAME: ws.roles = [#ws.role_spec<"load", warps = 1, regs = 40>, #ws.role_spec<"mma", warps = 1, regs = 40>, #ws.role_spec<"epilogue0", warps = 4, regs = 232>, #ws.role_spec<"epilogue1", warps = 4, regs = 232>]
// CHECK: tile.load %arg0{{.*}} {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>}
// CHECK: tile.load %arg0{{.*}} {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>}
// CHECK: tile.load %arg1{{.*}} {ws.load_channel = 0 : i32, ws.multicast_load, ws.partition = array<i32: 0>}
// CHECK: } {ws.output_channels = array<i32: 1, 1>, ws.partition_outputs = [array<i32: 1>, array<i32: 1>]}
// CHECK: tile.store {{.*}} {ws.partition = array<i32: 2>}
// CHECK: tile.store {{.*}} {ws.partition = array<i32: 3>}
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#tmem = #tile.tmem<block = [128, 128], unpacked = true>
#regs = #tile.tmem_32x32b<warpgroups = 1>
gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @gemm_sm100(%a: !tile.desc<tensor<128x64xbf16, #smem>>,
                       %b: !tile.desc<tensor<128x64xbf16, #smem>>,
                       %c: !tile.desc<tensor<128x128xbf16>>, %n: i32) kernel
      attributes {fmha.stages = 4 : i64, ws.multicast} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %c128 = arith.constant 128 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #tmem>
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %zero, %acc1 = %zero)
        -> (tensor<128x128xf32, #tmem>, tensor<128x128xf32, #tmem>) : i32 {
      %k = arith.muli %i, %c64 : i32
      %x0 = tile.load %a[%c0, %k] : !tile.desc<tensor<128x64xbf16, #smem>>
      %x1 = tile.load %a[%c128, %k] : !tile.desc<tensor<128x64xbf16, #smem>>
      %y = tile.load %b[%c0, %k] : !tile.desc<tensor<128x64xbf16, #smem>>
      %d0 = tile.dot %x0, %y, %acc0 {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #tmem>
      %d1 = tile.dot %x1, %y, %acc1 {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #tmem>
      scf.yield %d0, %d1 : tensor<128x128xf32, #tmem>, tensor<128x128xf32, #tmem>
    }
    %v0 = tile.convert_layout %r#0 : tensor<128x128xf32, #tmem> -> tensor<128x128xf32, #regs>
    %o0 = arith.truncf %v0 : tensor<128x128xf32, #regs> to tensor<128x128xbf16, #regs>
    tile.store %c[%c0, %c0], %o0 : !tile.desc<tensor<128x128xbf16>>, tensor<128x128xbf16, #regs>
    %v1 = tile.convert_layout %r#1 : tensor<128x128xf32, #tmem> -> tensor<128x128xf32, #regs>
    %o1 = arith.truncf %v1 : tensor<128x128xf32, #regs> to tensor<128x128xbf16, #regs>
    tile.store %c[%c128, %c0], %o1 : !tile.desc<tensor<128x128xbf16>>, tensor<128x128xbf16, #regs>
    gpu.return
  }
}

// -----

// Split-K (`fmha.gemm ... splits 2`, one consumer): the arrival at the
// tile's counter goes to the consumer whose plain store (the partial sum)
// precedes it, and so does the scf.if on the last arrival with the store
// of C inside it.
// CHECK-LABEL: gpu.func @gemm_splitk
// CHECK: tile.store_direct {{.*}} {ws.partition = array<i32: 1>}
// CHECK: %[[LAST:.*]] = tile.counter_arrive {{.*}} {ws.partition = array<i32: 1>}
// CHECK: scf.if %[[LAST]] {
// CHECK:   tile.load_direct
// CHECK:   tile.store {{.*}} {ws.partition = array<i32: 1>}
// CHECK: } {ws.partition = array<i32: 1>}
#nvmma_shared = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#wgmma_acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @gemm_splitk_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @gemm_splitk(%arg0: !tile.desc<tensor<64x64xbf16, #nvmma_shared>>, %arg1: !tile.desc<tensor<64x64xbf16, #nvmma_shared>>, %arg2: !tile.desc<tensor<64x64xbf16>>, %arg3: i32, %arg4: i32, %arg5: i32, %arg6: memref<?x?x?xf32>, %arg7: memref<?xi32>) kernel attributes {fmha.stages = 2 : i64} {
      %c64_i32 = arith.constant 64 : i32
      %c63_i32 = arith.constant 63 : i32
      %0 = arith.addi %arg3, %c63_i32 : i32
      %1 = arith.divui %0, %c64_i32 : i32
      %c64_i32_0 = arith.constant 64 : i32
      %c63_i32_1 = arith.constant 63 : i32
      %2 = arith.addi %arg4, %c63_i32_1 : i32
      %3 = arith.divui %2, %c64_i32_0 : i32
      %4 = arith.muli %1, %3 : i32
      %c2_i32 = arith.constant 2 : i32
      %5 = arith.muli %4, %c2_i32 : i32
      %6 = tile.program_id x : i32
      %7 = tile.num_programs x : i32
      %c64_i32_2 = arith.constant 64 : i32
      %c63_i32_3 = arith.constant 63 : i32
      %8 = arith.addi %arg5, %c63_i32_3 : i32
      %9 = arith.divui %8, %c64_i32_2 : i32
      scf.for %arg8 = %6 to %5 step %7  : i32 {
        %c2_i32_4 = arith.constant 2 : i32
        %10 = arith.divui %arg8, %c2_i32_4 : i32
        %c2_i32_5 = arith.constant 2 : i32
        %11 = arith.remui %arg8, %c2_i32_5 : i32
        %c8_i32 = arith.constant 8 : i32
        %12 = arith.muli %3, %c8_i32 : i32
        %c8_i32_6 = arith.constant 8 : i32
        %13 = arith.divui %10, %12 : i32
        %14 = arith.muli %13, %c8_i32_6 : i32
        %c8_i32_7 = arith.constant 8 : i32
        %15 = arith.subi %1, %14 : i32
        %16 = arith.minui %15, %c8_i32_7 : i32
        %17 = arith.remui %10, %12 : i32
        %18 = arith.remui %17, %16 : i32
        %19 = arith.addi %14, %18 : i32
        %20 = arith.divui %17, %16 : i32
        %c64_i32_8 = arith.constant 64 : i32
        %21 = arith.muli %19, %c64_i32_8 : i32
        %c64_i32_9 = arith.constant 64 : i32
        %22 = arith.muli %20, %c64_i32_9 : i32
        %c2_i32_10 = arith.constant 2 : i32
        %23 = arith.muli %11, %9 : i32
        %24 = arith.divui %23, %c2_i32_10 : i32
        %c1_i32 = arith.constant 1 : i32
        %25 = arith.addi %11, %c1_i32 : i32
        %c2_i32_11 = arith.constant 2 : i32
        %26 = arith.muli %25, %9 : i32
        %27 = arith.divui %26, %c2_i32_11 : i32
        %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #wgmma_acc>
        %c1_i32_12 = arith.constant 1 : i32
        %28 = scf.for %arg9 = %24 to %27 step %c1_i32_12 iter_args(%arg10 = %cst) -> (tensor<64x64xf32, #wgmma_acc>)  : i32 {
          %c64_i32_15 = arith.constant 64 : i32
          %32 = arith.muli %arg9, %c64_i32_15 : i32
          %33 = tile.load %arg0[%21, %32] : !tile.desc<tensor<64x64xbf16, #nvmma_shared>>
          %34 = tile.load %arg1[%22, %32] : !tile.desc<tensor<64x64xbf16, #nvmma_shared>>
          %35 = tile.dot %33, %34, %arg10 {transpose_b} : tensor<64x64xbf16, #nvmma_shared>, tensor<64x64xbf16, #nvmma_shared>, tensor<64x64xf32, #wgmma_acc>
          scf.yield %35 : tensor<64x64xf32, #wgmma_acc>
        }
        tile.store_direct %arg6[%11, %21, %22], %28 : memref<?x?x?xf32>, tensor<64x64xf32, #wgmma_acc>
        %c0_i32 = arith.constant 0 : i32
        %c1_i32_13 = arith.constant 1 : i32
        %29 = arith.muli %10, %c1_i32_13 : i32
        %30 = arith.addi %29, %c0_i32 : i32
        %c2_i32_14 = arith.constant 2 : i32
        %31 = tile.counter_arrive %arg7[%30], %c2_i32_14 : memref<?xi32>
        scf.if %31 {
          %c1_i32_15 = arith.constant 1 : i32
          %c2_i32_16 = arith.constant 2 : i32
          %c0_i32_17 = arith.constant 0 : i32
          %32 = scf.for %arg9 = %c0_i32_17 to %c2_i32_16 step %c1_i32_15 iter_args(%arg10 = %cst) -> (tensor<64x64xf32, #wgmma_acc>)  : i32 {
            %34 = tile.load_direct %arg6[%arg9, %21, %22] : memref<?x?x?xf32> -> tensor<64x64xf32, #wgmma_acc>
            %35 = arith.addf %arg10, %34 : tensor<64x64xf32, #wgmma_acc>
            scf.yield %35 : tensor<64x64xf32, #wgmma_acc>
          }
          %33 = arith.truncf %32 : tensor<64x64xf32, #wgmma_acc> to tensor<64x64xbf16, #wgmma_acc>
          tile.store %arg2[%21, %22], %33 : !tile.desc<tensor<64x64xbf16>>, tensor<64x64xbf16, #wgmma_acc>
        }
      }
      gpu.return
    }
  }
}

// -----

// An arrival with no plain store of a consumer before it: nothing tells
// which consumer's writes it publishes.
#nvmma_shared = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#wgmma_acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @gemm_splitk_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @gemm_splitk(%arg0: !tile.desc<tensor<64x64xbf16, #nvmma_shared>>, %arg1: !tile.desc<tensor<64x64xbf16, #nvmma_shared>>, %arg2: !tile.desc<tensor<64x64xbf16>>, %arg3: i32, %arg4: i32, %arg5: i32, %arg6: memref<?x?x?xf32>, %arg7: memref<?xi32>) kernel attributes {fmha.stages = 2 : i64} {
      %c64_i32 = arith.constant 64 : i32
      %c63_i32 = arith.constant 63 : i32
      %0 = arith.addi %arg3, %c63_i32 : i32
      %1 = arith.divui %0, %c64_i32 : i32
      %c64_i32_0 = arith.constant 64 : i32
      %c63_i32_1 = arith.constant 63 : i32
      %2 = arith.addi %arg4, %c63_i32_1 : i32
      %3 = arith.divui %2, %c64_i32_0 : i32
      %4 = arith.muli %1, %3 : i32
      %c2_i32 = arith.constant 2 : i32
      %5 = arith.muli %4, %c2_i32 : i32
      %6 = tile.program_id x : i32
      %7 = tile.num_programs x : i32
      %c64_i32_2 = arith.constant 64 : i32
      %c63_i32_3 = arith.constant 63 : i32
      %8 = arith.addi %arg5, %c63_i32_3 : i32
      %9 = arith.divui %8, %c64_i32_2 : i32
      scf.for %arg8 = %6 to %5 step %7  : i32 {
        %c2_i32_4 = arith.constant 2 : i32
        %10 = arith.divui %arg8, %c2_i32_4 : i32
        %c2_i32_5 = arith.constant 2 : i32
        %11 = arith.remui %arg8, %c2_i32_5 : i32
        %c8_i32 = arith.constant 8 : i32
        %12 = arith.muli %3, %c8_i32 : i32
        %c8_i32_6 = arith.constant 8 : i32
        %13 = arith.divui %10, %12 : i32
        %14 = arith.muli %13, %c8_i32_6 : i32
        %c8_i32_7 = arith.constant 8 : i32
        %15 = arith.subi %1, %14 : i32
        %16 = arith.minui %15, %c8_i32_7 : i32
        %17 = arith.remui %10, %12 : i32
        %18 = arith.remui %17, %16 : i32
        %19 = arith.addi %14, %18 : i32
        %20 = arith.divui %17, %16 : i32
        %c64_i32_8 = arith.constant 64 : i32
        %21 = arith.muli %19, %c64_i32_8 : i32
        %c64_i32_9 = arith.constant 64 : i32
        %22 = arith.muli %20, %c64_i32_9 : i32
        %c2_i32_10 = arith.constant 2 : i32
        %23 = arith.muli %11, %9 : i32
        %24 = arith.divui %23, %c2_i32_10 : i32
        %c1_i32 = arith.constant 1 : i32
        %25 = arith.addi %11, %c1_i32 : i32
        %c2_i32_11 = arith.constant 2 : i32
        %26 = arith.muli %25, %9 : i32
        %27 = arith.divui %26, %c2_i32_11 : i32
        %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #wgmma_acc>
        %c1_i32_12 = arith.constant 1 : i32
        %28 = scf.for %arg9 = %24 to %27 step %c1_i32_12 iter_args(%arg10 = %cst) -> (tensor<64x64xf32, #wgmma_acc>)  : i32 {
          %c64_i32_15 = arith.constant 64 : i32
          %32 = arith.muli %arg9, %c64_i32_15 : i32
          %33 = tile.load %arg0[%21, %32] : !tile.desc<tensor<64x64xbf16, #nvmma_shared>>
          %34 = tile.load %arg1[%22, %32] : !tile.desc<tensor<64x64xbf16, #nvmma_shared>>
          %35 = tile.dot %33, %34, %arg10 {transpose_b} : tensor<64x64xbf16, #nvmma_shared>, tensor<64x64xbf16, #nvmma_shared>, tensor<64x64xf32, #wgmma_acc>
          scf.yield %35 : tensor<64x64xf32, #wgmma_acc>
        }
        %c0_i32 = arith.constant 0 : i32
        %c1_i32_13 = arith.constant 1 : i32
        %29 = arith.muli %10, %c1_i32_13 : i32
        %30 = arith.addi %29, %c0_i32 : i32
        %c2_i32_14 = arith.constant 2 : i32
        // expected-error @+1 {{ws-assign-roles: arrives at a counter after no plain store of a consumer in its block: no consumer's writes for it to publish}}
        %31 = tile.counter_arrive %arg7[%30], %c2_i32_14 : memref<?xi32>
        tile.store_direct %arg6[%11, %21, %22], %28 : memref<?x?x?xf32>, tensor<64x64xf32, #wgmma_acc>
        scf.if %31 {
          %c1_i32_15 = arith.constant 1 : i32
          %c2_i32_16 = arith.constant 2 : i32
          %c0_i32_17 = arith.constant 0 : i32
          %32 = scf.for %arg9 = %c0_i32_17 to %c2_i32_16 step %c1_i32_15 iter_args(%arg10 = %cst) -> (tensor<64x64xf32, #wgmma_acc>)  : i32 {
            %34 = tile.load_direct %arg6[%arg9, %21, %22] : memref<?x?x?xf32> -> tensor<64x64xf32, #wgmma_acc>
            %35 = arith.addf %arg10, %34 : tensor<64x64xf32, #wgmma_acc>
            scf.yield %35 : tensor<64x64xf32, #wgmma_acc>
          }
          %33 = arith.truncf %32 : tensor<64x64xf32, #wgmma_acc> to tensor<64x64xbf16, #wgmma_acc>
          tile.store %arg2[%21, %22], %33 : !tile.desc<tensor<64x64xbf16>>, tensor<64x64xbf16, #wgmma_acc>
        }
      }
      gpu.return
    }
  }
}

// -----

// A program without tile.load and tile.dot (fmha.merge_states, laid out
// by tile-assign-layouts): one role, "worker", of the layout's 4 warps,
// without a register budget (regs = 0: no setmaxnreg, so several CTAs
// share an SM), no channels, and the plain store in it.
// CHECK-LABEL: gpu.func @merge(
// CHECK-SAME: ws.channel_stages = array<i32>
// CHECK-SAME: ws.roles = [#ws.role_spec<"worker", warps = 4, regs = 0>]
// CHECK: tile.store_direct {{.*}} {ws.partition = array<i32: 0>}
#blocked = #tile.blocked<vector = 8, lanes = 16, warps = 4>
#slice = #tile.slice<dim = 1, parent = #blocked>
module attributes {gpu.container_module} {
  gpu.module @merge_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @merge(%arg0: memref<?x?x128xbf16, strided<[?, ?, 1]>>, %arg1: memref<?x?xf32, strided<[?, ?]>>, %arg2: memref<?x128xbf16, strided<[?, 1]>>, %arg3: i32) kernel {
      %c0_i32 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %c32_i32 = arith.constant 32 : i32
      %0 = tile.program_id x : i32
      %1 = arith.muli %0, %c32_i32 : i32
      %cst = arith.constant dense<0.000000e+00> : tensor<32x128xf32, #blocked>
      %2 = scf.for %arg4 = %c0_i32 to %arg3 step %c1_i32 iter_args(%arg5 = %cst) -> (tensor<32x128xf32, #blocked>)  : i32 {
        %4 = tile.load_direct %arg1[%arg4, %1] : memref<?x?xf32, strided<[?, ?]>> -> tensor<32xf32, #slice>
        %5 = math.exp2 %4 : tensor<32xf32, #slice>
        %6 = tile.load_direct %arg0[%arg4, %1, %c0_i32] : memref<?x?x128xbf16, strided<[?, ?, 1]>> -> tensor<32x128xbf16, #blocked>
        %7 = arith.extf %6 : tensor<32x128xbf16, #blocked> to tensor<32x128xf32, #blocked>
        %8 = tile.broadcast %5 axis 1 : tensor<32xf32, #slice> -> tensor<32x128xf32, #blocked>
        %9 = arith.mulf %7, %8 : tensor<32x128xf32, #blocked>
        %10 = arith.addf %arg5, %9 : tensor<32x128xf32, #blocked>
        scf.yield %10 : tensor<32x128xf32, #blocked>
      }
      %3 = arith.truncf %2 : tensor<32x128xf32, #blocked> to tensor<32x128xbf16, #blocked>
      tile.store_direct %arg2[%1, %c0_i32], %3 : memref<?x128xbf16, strided<[?, 1]>>, tensor<32x128xbf16, #blocked>
      gpu.return
    }
  }
}


// -----

// A program without MMA runs in one role: its tensors' layouts must spread
// them over the same warps.
#blocked = #tile.blocked<vector = 8, lanes = 16, warps = 4>
#acc2 = #tile.wgmma_acc<instr_n = 128, warpgroups = 2>
module attributes {gpu.container_module} {
  gpu.module @mixed_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @mixed(%o: memref<?x128xbf16>, %i: i32) kernel {
      // expected-note @+1 {{the other tensor}}
      %a = arith.constant dense<0.0> : tensor<128x128xbf16, #blocked>
      // expected-error @+1 {{ws-assign-roles: a program without MMA runs in one role, but this tensor's layout spreads it over 8 warps and another's over 4}}
      %b = arith.constant dense<0.0> : tensor<128x128xbf16, #acc2>
      tile.store_direct %o[%i, %i], %a : memref<?x128xbf16>, tensor<128x128xbf16, #blocked>
      tile.store_direct %o[%i, %i], %b : memref<?x128xbf16>, tensor<128x128xbf16, #acc2>
      gpu.return
    }
  }
}

// -----

// Two accumulators computed from one product (an attention backward's dV
// and dK, both from P^T = f(K Q^T)) go to one consumer: role 1 computes
// both loop-carried values and runs both stores; a third accumulator that
// shares no product with them gets consumer 2.
// CHECK-LABEL: gpu.func @shared_product(
// CHECK-SAME: ws.roles = [#ws.role_spec<"producer", warps = 1, regs = 40>, #ws.role_spec<"consumer0", warps = 4, regs = 232>, #ws.role_spec<"consumer1", warps = 4, regs = 232>]
// CHECK: } {ws.partition_outputs = [array<i32: 1>, array<i32: 1>, array<i32: 2>]}
// CHECK: tile.store {{.*}} {ws.partition = array<i32: 1>}
// CHECK: tile.store {{.*}} {ws.partition = array<i32: 1>}
// CHECK: tile.store {{.*}} {ws.partition = array<i32: 2>}
module attributes {gpu.container_module} {
  gpu.module @shared_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @shared_product(%k: !tile.desc<tensor<64x64xbf16>>,
                             %q: !tile.desc<tensor<64x64xbf16>>,
                             %out: !tile.desc<tensor<64x64xbf16>>,
                             %n: i32) kernel attributes {fmha.stages = 2 : i64} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c64 = arith.constant 64 : i32
      %kt = tile.load %k[%c0, %c0] : !tile.desc<tensor<64x64xbf16>>
      %kt2 = tile.load %k[%c64, %c0] : !tile.desc<tensor<64x64xbf16>>
      %zero = arith.constant dense<0.0> : tensor<64x64xf32>
      %r:3 = scf.for %i = %c0 to %n step %c1
          iter_args(%dv = %zero, %dk = %zero, %other = %zero)
          -> (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) : i32 {
        %row = arith.muli %i, %c64 : i32
        %qt = tile.load %q[%row, %c0] : !tile.desc<tensor<64x64xbf16>>
        %s = tile.dot %kt, %qt, %zero {transpose_b} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        %p = math.exp2 %s : tensor<64x64xf32>
        %pb = arith.truncf %p : tensor<64x64xf32> to tensor<64x64xbf16>
        %dv1 = tile.dot %pb, %qt, %dv : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        %g = arith.mulf %p, %s : tensor<64x64xf32>
        %gb = arith.truncf %g : tensor<64x64xf32> to tensor<64x64xbf16>
        %dk1 = tile.dot %gb, %qt, %dk : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        %o1 = tile.dot %kt2, %qt, %other {transpose_b} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
        scf.yield %dv1, %dk1, %o1 : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>
      }
      %a = arith.truncf %r#0 : tensor<64x64xf32> to tensor<64x64xbf16>
      tile.store %out[%c0, %c0], %a : !tile.desc<tensor<64x64xbf16>>
      %b = arith.truncf %r#1 : tensor<64x64xf32> to tensor<64x64xbf16>
      tile.store %out[%c64, %c0], %b : !tile.desc<tensor<64x64xbf16>>
      %c = arith.truncf %r#2 : tensor<64x64xf32> to tensor<64x64xbf16>
      tile.store %out[%c64, %c64], %c : !tile.desc<tensor<64x64xbf16>>
      gpu.return
    }
  }
}

// -----

// A TMA store in the main loop goes to the consumer whose accumulator comes
// from the dots its value comes from; this one comes from a dot no
// accumulator is computed from.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @body_store_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @body_store_no_chain(%a: !tile.desc<tensor<128x64xbf16, #smem>>,
                                  %c: !tile.desc<tensor<128x128xf32>>,
                                  %steps: i32) kernel {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
      %r = scf.for %s = %c0 to %steps step %c1 iter_args(%acc = %zero)
          -> (tensor<128x128xf32, #acc>) : i32 {
        %x = tile.load %a[%s, %c0] : !tile.desc<tensor<128x64xbf16, #smem>>
        %d = tile.dot %x, %x, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
        %e = tile.dot %x, %x, %zero {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
        // expected-error @+1 {{'tile.store' op stores in the main loop a value computed from no dot that an accumulator is computed from: no consumer role computes it}}
        tile.store %c[%s, %c0], %e reduce add : !tile.desc<tensor<128x128xf32>>, tensor<128x128xf32, #acc>
        scf.yield %d : tensor<128x128xf32, #acc>
      }
      tile.store %c[%c0, %c0], %r : !tile.desc<tensor<128x128xf32>>, tensor<128x128xf32, #acc>
      gpu.return
    }
  }
}

// -----

// An in-loop store of a value computed from the dots of two consumers goes
// to one of them, which the other hands what it computes; but not an
// accumulator: a wgmma accumulator lives in its consumer's registers.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @body_store_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @body_store_two_chains(%a: !tile.desc<tensor<128x64xbf16, #smem>>,
                                    %c: !tile.desc<tensor<128x128xf32>>,
                                    %steps: i32) kernel {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c128 = arith.constant 128 : i32
      %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
      %r:2 = scf.for %s = %c0 to %steps step %c1 iter_args(%acc0 = %zero, %acc1 = %zero)
          -> (tensor<128x128xf32, #acc>, tensor<128x128xf32, #acc>) : i32 {
        %x = tile.load %a[%s, %c0] : !tile.desc<tensor<128x64xbf16, #smem>>
        %y = tile.load %a[%s, %c1] : !tile.desc<tensor<128x64xbf16, #smem>>
        %d0 = tile.dot %x, %x, %acc0 {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
        // expected-error @+1 {{'tile.dot' op ws-assign-roles: its result, another consumer's accumulator, is read by a store of consumer 0: hand over a value computed from it instead (a wgmma accumulator lives in its consumer's registers)}}
        %d1 = tile.dot %y, %y, %acc1 {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
        %sum = arith.addf %d0, %d1 : tensor<128x128xf32, #acc>
        tile.store %c[%s, %c0], %sum reduce add : !tile.desc<tensor<128x128xf32>>, tensor<128x128xf32, #acc>
        scf.yield %d0, %d1 : tensor<128x128xf32, #acc>, tensor<128x128xf32, #acc>
      }
      tile.store %c[%c0, %c0], %r#0 : !tile.desc<tensor<128x128xf32>>, tensor<128x128xf32, #acc>
      tile.store %c[%c128, %c0], %r#1 : !tile.desc<tensor<128x128xf32>>, tensor<128x128xf32, #acc>
      gpu.return
    }
  }
}

// -----

// A value another consumer computes is handed over as one op's one
// result: an scf.if with two results (both read by the store) is not.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @body_store_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @body_store_two_results(%a: !tile.desc<tensor<128x64xbf16, #smem>>,
                                     %c: !tile.desc<tensor<128x128xf32>>,
                                     %steps: i32, %flag: i1) kernel {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c128 = arith.constant 128 : i32
      %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
      %r:2 = scf.for %s = %c0 to %steps step %c1 iter_args(%acc0 = %zero, %acc1 = %zero)
          -> (tensor<128x128xf32, #acc>, tensor<128x128xf32, #acc>) : i32 {
        %x = tile.load %a[%s, %c0] : !tile.desc<tensor<128x64xbf16, #smem>>
        %y = tile.load %a[%s, %c1] : !tile.desc<tensor<128x64xbf16, #smem>>
        %p0 = tile.dot %x, %x, %zero {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
        %p1 = tile.dot %y, %y, %zero {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
        // expected-error @+1 {{'scf.if' op ws-assign-roles: computes a value that another consumer's store reads, but has 2 results: only an op's one result can be handed over}}
        %u:2 = scf.if %flag -> (tensor<128x128xf32, #acc>, tensor<128x128xf32, #acc>) {
          scf.yield %p1, %p1 : tensor<128x128xf32, #acc>, tensor<128x128xf32, #acc>
        } else {
          scf.yield %zero, %p1 : tensor<128x128xf32, #acc>, tensor<128x128xf32, #acc>
        }
        %a0 = arith.addf %acc0, %p0 : tensor<128x128xf32, #acc>
        %d0 = tile.dot %x, %x, %a0 {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
        %a1 = arith.addf %acc1, %u#0 : tensor<128x128xf32, #acc>
        %d1 = tile.dot %y, %y, %a1 {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
        %sum = arith.addf %p0, %u#1 : tensor<128x128xf32, #acc>
        tile.store %c[%s, %c0], %sum reduce add : !tile.desc<tensor<128x128xf32>>, tensor<128x128xf32, #acc>
        scf.yield %d0, %d1 : tensor<128x128xf32, #acc>, tensor<128x128xf32, #acc>
      }
      tile.store %c[%c0, %c0], %r#0 : !tile.desc<tensor<128x128xf32>>, tensor<128x128xf32, #acc>
      tile.store %c[%c128, %c0], %r#1 : !tile.desc<tensor<128x128xf32>>, tensor<128x128xf32, #acc>
      gpu.return
    }
  }
}
