// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-verify-phases | FileCheck %s
// The protocol of examples/ws-row-sum.mlir after ws-insert-mbarriers: a TMA
// producer and a thread consumer on a 2-stage ring, a loop to a kernel
// argument. Nothing changes.
// CHECK-LABEL: gpu.func @row_sum
// CHECK: ws.mbarrier_wait %{{.*}}, %{{.*}} {ws.channel = 0 : i32, ws.ring = "empty"}
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @row_sum(%arg0: !tile.desc<tensor<128x64xbf16>>, %arg1: memref<?xf32>, %arg2: i32, %arg3: i32) kernel {
      %0 = ws.buffer_alloc : memref<2x128x64xbf16, 3>
      %1 = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
      %2 = ws.mbarrier_alloc arrivals 128 : !ws.mbarrier<2>
      ws.warp_specialize {
        ws.role "producer" warps 1 regs 40 {
          %c0_i32 = arith.constant 0 : i32
          %c0_i32_0 = arith.constant 0 : i32
          %c1_i32 = arith.constant 1 : i32
          %c64_i32 = arith.constant 64 : i32
          %c128_i32 = arith.constant 128 : i32
          %block_id_x = gpu.block_id  x
          %3 = arith.index_cast %block_id_x : index to i32
          %4 = arith.muli %3, %c128_i32 : i32
          %5:2 = scf.for %arg4 = %c0_i32_0 to %arg3 step %c1_i32 iter_args(%arg5 = %c0_i32, %arg6 = %c0_i32) -> (i32, i32)  : i32 {
            %c1_i32_1 = arith.constant 1 : i32
            %6 = arith.xori %arg6, %c1_i32_1 : i32
            ws.mbarrier_wait %2[%arg5], %6 {ws.channel = 0 : i32, ws.ring = "empty"} : !ws.mbarrier<2>
            %7 = ws.slot %0[%arg5] : memref<2x128x64xbf16, 3> -> memref<128x64xbf16, 3>
            %8 = arith.addi %arg5, %c1_i32_1 : i32
            %c2_i32 = arith.constant 2 : i32
            %9 = arith.cmpi eq, %8, %c2_i32 : i32
            %10 = arith.xori %arg6, %c1_i32_1 : i32
            %c0_i32_2 = arith.constant 0 : i32
            %11 = arith.select %9, %c0_i32_2, %8 : i32
            %12 = arith.select %9, %10, %arg6 : i32
            %13 = arith.muli %arg4, %c64_i32 : i32
            ws.tma_load_mbarrier %arg0[%4, %13], %7, %1[%arg5] : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>, !ws.mbarrier<2>
            ws.mbarrier_arrive %1[%arg5] leader tx_bytes 16384 : !ws.mbarrier<2>
            scf.yield %11, %12 : i32, i32
          }
        }
        ws.role "consumer" warps 4 regs 232 {
          %c0_i32 = arith.constant 0 : i32
          %c0_i32_0 = arith.constant 0 : i32
          %c1_i32 = arith.constant 1 : i32
          %c128_i32 = arith.constant 128 : i32
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          %c64 = arith.constant 64 : index
          %cst = arith.constant 0.000000e+00 : f32
          %3 = ws.thread_id : i32
          %4 = arith.index_cast %3 : i32 to index
          %5:3 = scf.for %arg4 = %c0_i32_0 to %arg3 step %c1_i32 iter_args(%arg5 = %cst, %arg6 = %c0_i32, %arg7 = %c0_i32) -> (f32, i32, i32)  : i32 {
            %c1_i32_1 = arith.constant 1 : i32
            ws.mbarrier_wait %1[%arg6], %arg7 {ws.channel = 0 : i32, ws.ring = "full"} : !ws.mbarrier<2>
            %10 = ws.slot %0[%arg6] : memref<2x128x64xbf16, 3> -> memref<128x64xbf16, 3>
            %11 = arith.addi %arg6, %c1_i32_1 : i32
            %c2_i32 = arith.constant 2 : i32
            %12 = arith.cmpi eq, %11, %c2_i32 : i32
            %13 = arith.xori %arg7, %c1_i32_1 : i32
            %c0_i32_2 = arith.constant 0 : i32
            %14 = arith.select %12, %c0_i32_2, %11 : i32
            %15 = arith.select %12, %13, %arg7 : i32
            %16 = scf.for %arg8 = %c0 to %c64 step %c1 iter_args(%arg9 = %arg5) -> (f32) {
              %17 = memref.load %10[%4, %arg8] : memref<128x64xbf16, 3>
              %18 = arith.extf %17 : bf16 to f32
              %19 = arith.addf %arg9, %18 : f32
              scf.yield %19 : f32
            }
            ws.mbarrier_arrive %2[%arg6] : !ws.mbarrier<2>
            scf.yield %16, %14, %15 : f32, i32, i32
          }
          %block_id_x = gpu.block_id  x
          %6 = arith.index_cast %block_id_x : index to i32
          %7 = arith.muli %6, %c128_i32 : i32
          %8 = arith.addi %7, %3 : i32
          %9 = arith.cmpi slt, %8, %arg2 : i32
          scf.if %9 {
            %10 = arith.index_cast %8 : i32 to index
            memref.store %5#0, %arg1[%10] : memref<?xf32>
          }
        }
      }
      gpu.return
    }
  }
}

// -----

// A GEMM-like protocol after ws-insert-mbarriers: a 3-stage ring filled by
// TMA, two consumer warpgroups that release each slot one iteration late (by
// wgmma) and the last one after the loop, with a trip count computed from a
// kernel argument.
// CHECK-LABEL: func.func @gemm_two_consumers
func.func @gemm_two_consumers(%arg0: !tile.desc<tensor<128x64xbf16>>, %arg1: !tile.desc<tensor<128x64xbf16>>, %arg2: i32) {
  %0 = ws.buffer_alloc : memref<3x128x64xbf16, 3>
  %1 = ws.buffer_alloc : memref<3x128x64xbf16, 3>
  %2 = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<3>
  %3 = ws.mbarrier_alloc arrivals 256 : !ws.mbarrier<3>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0_i32 = arith.constant 0 : i32
      %c0_i32_0 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %c63_i32 = arith.constant 63 : i32
      %c64_i32 = arith.constant 64 : i32
      %4 = arith.addi %arg2, %c63_i32 : i32
      %5 = arith.divui %4, %c64_i32 : i32
      %6:2 = scf.for %arg3 = %c0_i32_0 to %5 step %c1_i32 iter_args(%arg4 = %c0_i32, %arg5 = %c0_i32) -> (i32, i32)  : i32 {
        %c1_i32_1 = arith.constant 1 : i32
        %7 = arith.xori %arg5, %c1_i32_1 : i32
        ws.mbarrier_wait %3[%arg4], %7 {ws.channel = 0 : i32, ws.ring = "empty"} : !ws.mbarrier<3>
        %8 = ws.slot %0[%arg4] : memref<3x128x64xbf16, 3> -> memref<128x64xbf16, 3>
        %9 = ws.slot %1[%arg4] : memref<3x128x64xbf16, 3> -> memref<128x64xbf16, 3>
        %10 = arith.addi %arg4, %c1_i32_1 : i32
        %c3_i32 = arith.constant 3 : i32
        %11 = arith.cmpi eq, %10, %c3_i32 : i32
        %12 = arith.xori %arg5, %c1_i32_1 : i32
        %c0_i32_2 = arith.constant 0 : i32
        %13 = arith.select %11, %c0_i32_2, %10 : i32
        %14 = arith.select %11, %12, %arg5 : i32
        %15 = arith.muli %arg3, %c64_i32 : i32
        ws.tma_load_mbarrier %arg0[%c0_i32_0, %15], %8, %2[%arg4] : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>, !ws.mbarrier<3>
        ws.tma_load_mbarrier %arg1[%c0_i32_0, %15], %9, %2[%arg4] : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>, !ws.mbarrier<3>
        ws.mbarrier_arrive %2[%arg4] leader tx_bytes 32768 : !ws.mbarrier<3>
        scf.yield %13, %14 : i32, i32
      }
    }
    ws.role "consumer0" warps 4 {
      %c0_i32 = arith.constant 0 : i32
      %c0_i32_0 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %c63_i32 = arith.constant 63 : i32
      %c64_i32 = arith.constant 64 : i32
      %4 = arith.addi %arg2, %c63_i32 : i32
      %5 = arith.divui %4, %c64_i32 : i32
      %c-1_i32 = arith.constant -1 : i32
      %6:3 = scf.for %arg3 = %c0_i32_0 to %5 step %c1_i32 iter_args(%arg4 = %c0_i32, %arg5 = %c0_i32, %arg6 = %c-1_i32) -> (i32, i32, i32)  : i32 {
        %c1_i32_2 = arith.constant 1 : i32
        ws.mbarrier_wait %2[%arg4], %arg5 {ws.channel = 0 : i32, ws.ring = "full"} : !ws.mbarrier<3>
        %8 = ws.slot %0[%arg4] : memref<3x128x64xbf16, 3> -> memref<128x64xbf16, 3>
        %9 = ws.slot %1[%arg4] : memref<3x128x64xbf16, 3> -> memref<128x64xbf16, 3>
        %10 = arith.addi %arg4, %c1_i32_2 : i32
        %c3_i32 = arith.constant 3 : i32
        %11 = arith.cmpi eq, %10, %c3_i32 : i32
        %12 = arith.xori %arg5, %c1_i32_2 : i32
        %c0_i32_3 = arith.constant 0 : i32
        %13 = arith.select %11, %c0_i32_3, %10 : i32
        %14 = arith.select %11, %12, %arg5 : i32
        nvvm.wgmma.wait.group.sync.aligned 1
        %c0_i32_4 = arith.constant 0 : i32
        %15 = arith.cmpi sge, %arg6, %c0_i32_4 : i32
        scf.if %15 {
          ws.mbarrier_arrive %3[%arg6] : !ws.mbarrier<3>
        }
        scf.yield %13, %14, %arg4 : i32, i32, i32
      }
      nvvm.wgmma.wait.group.sync.aligned 0
      %c0_i32_1 = arith.constant 0 : i32
      %7 = arith.cmpi sge, %6#2, %c0_i32_1 : i32
      scf.if %7 {
        ws.mbarrier_arrive %3[%6#2] : !ws.mbarrier<3>
      }
    }
    ws.role "consumer1" warps 4 {
      %c0_i32 = arith.constant 0 : i32
      %c0_i32_0 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %c63_i32 = arith.constant 63 : i32
      %c64_i32 = arith.constant 64 : i32
      %4 = arith.addi %arg2, %c63_i32 : i32
      %5 = arith.divui %4, %c64_i32 : i32
      %c-1_i32 = arith.constant -1 : i32
      %6:3 = scf.for %arg3 = %c0_i32_0 to %5 step %c1_i32 iter_args(%arg4 = %c0_i32, %arg5 = %c0_i32, %arg6 = %c-1_i32) -> (i32, i32, i32)  : i32 {
        %c1_i32_2 = arith.constant 1 : i32
        ws.mbarrier_wait %2[%arg4], %arg5 {ws.channel = 0 : i32, ws.ring = "full"} : !ws.mbarrier<3>
        %8 = ws.slot %0[%arg4] : memref<3x128x64xbf16, 3> -> memref<128x64xbf16, 3>
        %9 = ws.slot %1[%arg4] : memref<3x128x64xbf16, 3> -> memref<128x64xbf16, 3>
        %10 = arith.addi %arg4, %c1_i32_2 : i32
        %c3_i32 = arith.constant 3 : i32
        %11 = arith.cmpi eq, %10, %c3_i32 : i32
        %12 = arith.xori %arg5, %c1_i32_2 : i32
        %c0_i32_3 = arith.constant 0 : i32
        %13 = arith.select %11, %c0_i32_3, %10 : i32
        %14 = arith.select %11, %12, %arg5 : i32
        nvvm.wgmma.wait.group.sync.aligned 1
        %c0_i32_4 = arith.constant 0 : i32
        %15 = arith.cmpi sge, %arg6, %c0_i32_4 : i32
        scf.if %15 {
          ws.mbarrier_arrive %3[%arg6] : !ws.mbarrier<3>
        }
        scf.yield %13, %14, %arg4 : i32, i32, i32
      }
      nvvm.wgmma.wait.group.sync.aligned 0
      %c0_i32_1 = arith.constant 0 : i32
      %7 = arith.cmpi sge, %6#2, %c0_i32_1 : i32
      scf.if %7 {
        ws.mbarrier_arrive %3[%6#2] : !ws.mbarrier<3>
      }
    }
  }
  return
}

// -----

// A persistent loop over tiles (from the block id, in grid steps) around a
// k loop, and one more slot under an scf.if on a kernel argument in both
// roles: both branches are simulated.
// CHECK-LABEL: func.func @persistent_and_if
func.func @persistent_and_if(%arg0: i32, %arg1: i32, %arg2: i1) {
  %0 = ws.buffer_alloc : memref<2x128xf32, 3>
  %1 = ws.mbarrier_alloc arrivals 32 : !ws.mbarrier<2>
  %2 = ws.mbarrier_alloc arrivals 128 : !ws.mbarrier<2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0_i32 = arith.constant 0 : i32
      %c0_i32_0 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %block_id_x = gpu.block_id  x
      %grid_dim_x = gpu.grid_dim  x
      %3 = arith.index_cast %block_id_x : index to i32
      %4 = arith.index_cast %grid_dim_x : index to i32
      %5:2 = scf.for %arg3 = %3 to %arg0 step %4 iter_args(%arg4 = %c0_i32, %arg5 = %c0_i32) -> (i32, i32)  : i32 {
        %6:2 = scf.for %arg6 = %c0_i32_0 to %arg1 step %c1_i32 iter_args(%arg7 = %arg4, %arg8 = %arg5) -> (i32, i32)  : i32 {
          %c1_i32_1 = arith.constant 1 : i32
          %8 = arith.xori %arg8, %c1_i32_1 : i32
          ws.mbarrier_wait %2[%arg7], %8 {ws.channel = 0 : i32, ws.ring = "empty"} : !ws.mbarrier<2>
          %9 = ws.slot %0[%arg7] : memref<2x128xf32, 3> -> memref<128xf32, 3>
          %10 = arith.addi %arg7, %c1_i32_1 : i32
          %c2_i32 = arith.constant 2 : i32
          %11 = arith.cmpi eq, %10, %c2_i32 : i32
          %12 = arith.xori %arg8, %c1_i32_1 : i32
          %c0_i32_2 = arith.constant 0 : i32
          %13 = arith.select %11, %c0_i32_2, %10 : i32
          %14 = arith.select %11, %12, %arg8 : i32
          ws.fence_async_shared
          ws.mbarrier_arrive %1[%arg7] : !ws.mbarrier<2>
          scf.yield %13, %14 : i32, i32
        }
        %7:2 = scf.if %arg2 -> (i32, i32) {
          %c1_i32_1 = arith.constant 1 : i32
          %8 = arith.xori %6#1, %c1_i32_1 : i32
          ws.mbarrier_wait %2[%6#0], %8 {ws.channel = 0 : i32, ws.ring = "empty"} : !ws.mbarrier<2>
          %9 = ws.slot %0[%6#0] : memref<2x128xf32, 3> -> memref<128xf32, 3>
          %10 = arith.addi %6#0, %c1_i32_1 : i32
          %c2_i32 = arith.constant 2 : i32
          %11 = arith.cmpi eq, %10, %c2_i32 : i32
          %12 = arith.xori %6#1, %c1_i32_1 : i32
          %c0_i32_2 = arith.constant 0 : i32
          %13 = arith.select %11, %c0_i32_2, %10 : i32
          %14 = arith.select %11, %12, %6#1 : i32
          ws.fence_async_shared
          ws.mbarrier_arrive %1[%6#0] : !ws.mbarrier<2>
          scf.yield %13, %14 : i32, i32
        } else {
          scf.yield %6#0, %6#1 : i32, i32
        }
        scf.yield %7#0, %7#1 : i32, i32
      }
    }
    ws.role "consumer" warps 4 {
      %c0_i32 = arith.constant 0 : i32
      %c0_i32_0 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %block_id_x = gpu.block_id  x
      %grid_dim_x = gpu.grid_dim  x
      %3 = arith.index_cast %block_id_x : index to i32
      %4 = arith.index_cast %grid_dim_x : index to i32
      %5:2 = scf.for %arg3 = %3 to %arg0 step %4 iter_args(%arg4 = %c0_i32, %arg5 = %c0_i32) -> (i32, i32)  : i32 {
        %6:2 = scf.for %arg6 = %c0_i32_0 to %arg1 step %c1_i32 iter_args(%arg7 = %arg4, %arg8 = %arg5) -> (i32, i32)  : i32 {
          %c1_i32_1 = arith.constant 1 : i32
          ws.mbarrier_wait %1[%arg7], %arg8 {ws.channel = 0 : i32, ws.ring = "full"} : !ws.mbarrier<2>
          %8 = ws.slot %0[%arg7] : memref<2x128xf32, 3> -> memref<128xf32, 3>
          %9 = arith.addi %arg7, %c1_i32_1 : i32
          %c2_i32 = arith.constant 2 : i32
          %10 = arith.cmpi eq, %9, %c2_i32 : i32
          %11 = arith.xori %arg8, %c1_i32_1 : i32
          %c0_i32_2 = arith.constant 0 : i32
          %12 = arith.select %10, %c0_i32_2, %9 : i32
          %13 = arith.select %10, %11, %arg8 : i32
          ws.mbarrier_arrive %2[%arg7] : !ws.mbarrier<2>
          scf.yield %12, %13 : i32, i32
        }
        %7:2 = scf.if %arg2 -> (i32, i32) {
          %c1_i32_1 = arith.constant 1 : i32
          ws.mbarrier_wait %1[%6#0], %6#1 {ws.channel = 0 : i32, ws.ring = "full"} : !ws.mbarrier<2>
          %8 = ws.slot %0[%6#0] : memref<2x128xf32, 3> -> memref<128xf32, 3>
          %9 = arith.addi %6#0, %c1_i32_1 : i32
          %c2_i32 = arith.constant 2 : i32
          %10 = arith.cmpi eq, %9, %c2_i32 : i32
          %11 = arith.xori %6#1, %c1_i32_1 : i32
          %c0_i32_2 = arith.constant 0 : i32
          %12 = arith.select %10, %c0_i32_2, %9 : i32
          %13 = arith.select %10, %11, %6#1 : i32
          ws.mbarrier_arrive %2[%6#0] : !ws.mbarrier<2>
          scf.yield %12, %13 : i32, i32
        } else {
          scf.yield %6#0, %6#1 : i32, i32
        }
        scf.yield %7#0, %7#1 : i32, i32
      }
    }
  }
  return
}

// -----

// An off-by-one in the phase flip: the consumer flips its phase one stage
// too early, so its first wait on slot 1 waits for the second phase.
func.func @flip_too_early(%n: i32) {
  %full = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
  %empty = ws.mbarrier_alloc arrivals 128 : !ws.mbarrier<2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0, %p = %c0) -> (i32, i32) : i32 {
        %np = arith.xori %p, %c1 : i32
        ws.mbarrier_wait %empty[%s], %np {ws.channel = 0 : i32, ws.ring = "empty"} : !ws.mbarrier<2>
        ws.mbarrier_arrive %full[%s] leader : !ws.mbarrier<2>
        %s1 = arith.addi %s, %c1 : i32
        %wrap = arith.cmpi eq, %s1, %c2 : i32
        %s2 = arith.select %wrap, %c0, %s1 : i32
        %p2 = arith.select %wrap, %np, %p : i32
        scf.yield %s2, %p2 : i32, i32
      }
    }
    ws.role "consumer" warps 4 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0, %p = %c0) -> (i32, i32) : i32 {
        // expected-error-re @+1 {{deadlock: role 'consumer' waits here forever on full[1] of channel 0 for parity 1 (1 phase completed, 0 of 1 arrivals in the current one; as its 1st wait on this full barrier it should wait for parity 0) (simulating loops of unknown trip count with 2 iterations)}}
        ws.mbarrier_wait %full[%s], %p {ws.channel = 0 : i32, ws.ring = "full"} : !ws.mbarrier<2>
        ws.mbarrier_arrive %empty[%s] : !ws.mbarrier<2>
        %s1 = arith.addi %s, %c1 : i32
        %wrap = arith.cmpi eq, %s1, %c2 : i32
        %s2 = arith.select %wrap, %c0, %s1 : i32
        // The bug: the phase flips when the stage moves to 1, not when it wraps.
        %flip = arith.cmpi eq, %s1, %c1 : i32
        %np = arith.xori %p, %c1 : i32
        %p2 = arith.select %flip, %np, %p : i32
        scf.yield %s2, %p2 : i32, i32
      }
    }
  }
  return
}

// -----

// A producer that waits for the empty barrier with the phase itself, not
// the inverted phase: a fresh barrier does not pass it, and both roles
// deadlock at the first iteration.
func.func @producer_parity_not_inverted(%n: i32) {
  %full = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
  %empty = ws.mbarrier_alloc arrivals 128 : !ws.mbarrier<2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0, %p = %c0) -> (i32, i32) : i32 {
        %np = arith.xori %p, %c1 : i32
        // The bug: %p, not %np.
        // expected-error-re @+1 {{deadlock: role 'producer' waits here forever on empty[0] of channel 0 for parity 0 (0 phases completed, 0 of 128 arrivals in the current one; as its 1st wait on this empty barrier it should wait for parity 1); role 'consumer' waits at {{[0-9]+}}:{{[0-9]+}} forever on full[0] of channel 0 for parity 0 (0 phases completed, 0 of 1 arrivals in the current one) (simulating loops of unknown trip count with 1 iteration)}}
        ws.mbarrier_wait %empty[%s], %p {ws.channel = 0 : i32, ws.ring = "empty"} : !ws.mbarrier<2>
        ws.mbarrier_arrive %full[%s] leader : !ws.mbarrier<2>
        %s1 = arith.addi %s, %c1 : i32
        %wrap = arith.cmpi eq, %s1, %c2 : i32
        %s2 = arith.select %wrap, %c0, %s1 : i32
        %p2 = arith.select %wrap, %np, %p : i32
        scf.yield %s2, %p2 : i32, i32
      }
    }
    ws.role "consumer" warps 4 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0, %p = %c0) -> (i32, i32) : i32 {
        ws.mbarrier_wait %full[%s], %p {ws.channel = 0 : i32, ws.ring = "full"} : !ws.mbarrier<2>
        ws.mbarrier_arrive %empty[%s] : !ws.mbarrier<2>
        %s1 = arith.addi %s, %c1 : i32
        %wrap = arith.cmpi eq, %s1, %c2 : i32
        %s2 = arith.select %wrap, %c0, %s1 : i32
        %np = arith.xori %p, %c1 : i32
        %p2 = arith.select %wrap, %np, %p : i32
        scf.yield %s2, %p2 : i32, i32
      }
    }
  }
  return
}

// -----

// A wrong arrival count: the empty barrier expects 256 arrivals per phase,
// but its only consumer has 128 threads. The producer cannot refill slot 0.
func.func @arrivals_too_many() {
  %full = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
  %empty = ws.mbarrier_alloc arrivals 256 : !ws.mbarrier<2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %c4 = arith.constant 4 : i32
      %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%s = %c0, %p = %c0) -> (i32, i32) : i32 {
        %np = arith.xori %p, %c1 : i32
        // expected-error-re @+1 {{deadlock: role 'producer' waits here forever on empty[0] of channel 0 for parity 0 (0 phases completed, 128 of 256 arrivals in the current one); role 'consumer' waits at {{[0-9]+}}:{{[0-9]+}} forever on full[0] of channel 0 for parity 1 (1 phase completed, 0 of 1 arrivals in the current one)}}
        ws.mbarrier_wait %empty[%s], %np {ws.channel = 0 : i32, ws.ring = "empty"} : !ws.mbarrier<2>
        ws.mbarrier_arrive %full[%s] leader : !ws.mbarrier<2>
        %s1 = arith.addi %s, %c1 : i32
        %wrap = arith.cmpi eq, %s1, %c2 : i32
        %s2 = arith.select %wrap, %c0, %s1 : i32
        %p2 = arith.select %wrap, %np, %p : i32
        scf.yield %s2, %p2 : i32, i32
      }
    }
    ws.role "consumer" warps 4 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %c4 = arith.constant 4 : i32
      %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%s = %c0, %p = %c0) -> (i32, i32) : i32 {
        ws.mbarrier_wait %full[%s], %p {ws.channel = 0 : i32, ws.ring = "full"} : !ws.mbarrier<2>
        ws.mbarrier_arrive %empty[%s] : !ws.mbarrier<2>
        %s1 = arith.addi %s, %c1 : i32
        %wrap = arith.cmpi eq, %s1, %c2 : i32
        %s2 = arith.select %wrap, %c0, %s1 : i32
        %np = arith.xori %p, %c1 : i32
        %p2 = arith.select %wrap, %np, %p : i32
        scf.yield %s2, %p2 : i32, i32
      }
    }
  }
  return
}

// -----

// The same with a trip count from a kernel argument: after one iteration the
// roles finish and leave half a phase on the empty barrier.
func.func @arrivals_too_many_short(%n: i32) {
  %full = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
  // expected-error-re @+1 {{empty[0] of channel 0 is left with 128 of its 256 arrivals per phase when every role has finished: the arrivals on it do not add up to whole phases (simulating loops of unknown trip count with 1 iteration)}}
  %empty = ws.mbarrier_alloc arrivals 256 : !ws.mbarrier<2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0, %p = %c0) -> (i32, i32) : i32 {
        %np = arith.xori %p, %c1 : i32
        ws.mbarrier_wait %empty[%s], %np {ws.channel = 0 : i32, ws.ring = "empty"} : !ws.mbarrier<2>
        ws.mbarrier_arrive %full[%s] leader : !ws.mbarrier<2>
        %s1 = arith.addi %s, %c1 : i32
        %wrap = arith.cmpi eq, %s1, %c2 : i32
        %s2 = arith.select %wrap, %c0, %s1 : i32
        %p2 = arith.select %wrap, %np, %p : i32
        scf.yield %s2, %p2 : i32, i32
      }
    }
    ws.role "consumer" warps 4 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0, %p = %c0) -> (i32, i32) : i32 {
        ws.mbarrier_wait %full[%s], %p {ws.channel = 0 : i32, ws.ring = "full"} : !ws.mbarrier<2>
        ws.mbarrier_arrive %empty[%s] : !ws.mbarrier<2>
        %s1 = arith.addi %s, %c1 : i32
        %wrap = arith.cmpi eq, %s1, %c2 : i32
        %s2 = arith.select %wrap, %c0, %s1 : i32
        %np = arith.xori %p, %c1 : i32
        %p2 = arith.select %wrap, %np, %p : i32
        scf.yield %s2, %p2 : i32, i32
      }
    }
  }
  return
}

// -----

// Too few arrivals: 64 expected, 128 threads release.
func.func @arrivals_too_few(%n: i32) {
  %full = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
  %empty = ws.mbarrier_alloc arrivals 64 : !ws.mbarrier<2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0, %p = %c0) -> (i32, i32) : i32 {
        %np = arith.xori %p, %c1 : i32
        ws.mbarrier_wait %empty[%s], %np {ws.channel = 0 : i32, ws.ring = "empty"} : !ws.mbarrier<2>
        ws.mbarrier_arrive %full[%s] leader : !ws.mbarrier<2>
        %s1 = arith.addi %s, %c1 : i32
        %wrap = arith.cmpi eq, %s1, %c2 : i32
        %s2 = arith.select %wrap, %c0, %s1 : i32
        %p2 = arith.select %wrap, %np, %p : i32
        scf.yield %s2, %p2 : i32, i32
      }
    }
    ws.role "consumer" warps 4 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0, %p = %c0) -> (i32, i32) : i32 {
        ws.mbarrier_wait %full[%s], %p {ws.channel = 0 : i32, ws.ring = "full"} : !ws.mbarrier<2>
        // expected-error-re @+1 {{role 'consumer' arrives 128 times on empty[0] of channel 0, more than the 64 arrivals left in its current phase (it counts 64 per phase): the barrier would complete a phase early (simulating loops of unknown trip count with 1 iteration)}}
        ws.mbarrier_arrive %empty[%s] : !ws.mbarrier<2>
        %s1 = arith.addi %s, %c1 : i32
        %wrap = arith.cmpi eq, %s1, %c2 : i32
        %s2 = arith.select %wrap, %c0, %s1 : i32
        %np = arith.xori %p, %c1 : i32
        %p2 = arith.select %wrap, %np, %p : i32
        scf.yield %s2, %p2 : i32, i32
      }
    }
  }
  return
}

// -----

// A stage that wraps at the wrong value: at 3 in a 2-stage ring.
func.func @wrap_too_late(%n: i32) {
  %full = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
  %empty = ws.mbarrier_alloc arrivals 128 : !ws.mbarrier<2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %c3 = arith.constant 3 : i32
      %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0, %p = %c0) -> (i32, i32) : i32 {
        %np = arith.xori %p, %c1 : i32
        // expected-error-re @+1 {{role 'producer' uses barrier 2 of the mbarrier array at {{[0-9]+}}:{{[0-9]+}}, which holds 2 barriers: the stage is out of range (simulating loops of unknown trip count with 3 iterations)}}
        ws.mbarrier_wait %empty[%s], %np {ws.channel = 0 : i32, ws.ring = "empty"} : !ws.mbarrier<2>
        ws.mbarrier_arrive %full[%s] leader : !ws.mbarrier<2>
        %s1 = arith.addi %s, %c1 : i32
        // The bug: the stage wraps at 3.
        %wrap = arith.cmpi eq, %s1, %c3 : i32
        %s2 = arith.select %wrap, %c0, %s1 : i32
        %p2 = arith.select %wrap, %np, %p : i32
        scf.yield %s2, %p2 : i32, i32
      }
    }
    ws.role "consumer" warps 4 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %c3 = arith.constant 3 : i32
      %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0, %p = %c0) -> (i32, i32) : i32 {
        ws.mbarrier_wait %full[%s], %p {ws.channel = 0 : i32, ws.ring = "full"} : !ws.mbarrier<2>
        ws.mbarrier_arrive %empty[%s] : !ws.mbarrier<2>
        %s1 = arith.addi %s, %c1 : i32
        // The bug: the stage wraps at 3.
        %wrap = arith.cmpi eq, %s1, %c3 : i32
        %s2 = arith.select %wrap, %c0, %s1 : i32
        %np = arith.xori %p, %c1 : i32
        %p2 = arith.select %wrap, %np, %p : i32
        scf.yield %s2, %p2 : i32, i32
      }
    }
  }
  return
}

// -----

// A consumer whose stage wraps at 1: it waits for slot 0 again while the
// producer fills slot 1.
func.func @wrap_too_early(%n: i32) {
  %full = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
  %empty = ws.mbarrier_alloc arrivals 128 : !ws.mbarrier<2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0, %p = %c0) -> (i32, i32) : i32 {
        %np = arith.xori %p, %c1 : i32
        ws.mbarrier_wait %empty[%s], %np {ws.channel = 0 : i32, ws.ring = "empty"} : !ws.mbarrier<2>
        ws.mbarrier_arrive %full[%s] leader : !ws.mbarrier<2>
        %s1 = arith.addi %s, %c1 : i32
        %wrap = arith.cmpi eq, %s1, %c2 : i32
        %s2 = arith.select %wrap, %c0, %s1 : i32
        %p2 = arith.select %wrap, %np, %p : i32
        scf.yield %s2, %p2 : i32, i32
      }
    }
    ws.role "consumer" warps 4 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0, %p = %c0) -> (i32, i32) : i32 {
        // expected-error-re @+1 {{deadlock: role 'consumer' waits here forever on full[0] of channel 0 for parity 1 (1 phase completed, 0 of 1 arrivals in the current one) (simulating loops of unknown trip count with 2 iterations)}}
        ws.mbarrier_wait %full[%s], %p {ws.channel = 0 : i32, ws.ring = "full"} : !ws.mbarrier<2>
        ws.mbarrier_arrive %empty[%s] : !ws.mbarrier<2>
        %s1 = arith.addi %s, %c1 : i32
        // The bug: the stage wraps at 1.
        %wrap = arith.cmpi eq, %s1, %c1 : i32
        %s2 = arith.select %wrap, %c0, %s1 : i32
        %np = arith.xori %p, %c1 : i32
        %p2 = arith.select %wrap, %np, %p : i32
        scf.yield %s2, %p2 : i32, i32
      }
    }
  }
  return
}

// -----

// A producer whose phase never flips, written without ws.ring attributes:
// the ring's sides are inferred (the barrier TMA copies complete is full;
// the one waited on by the role that fills it is empty). In the second round the
// producer refills slot 0 before the consumer released it.
func.func @phase_never_flips(%n: i32, %d: !tile.desc<tensor<128x64xbf16>>) {
  %ring = ws.buffer_alloc : memref<2x128x64xbf16, 3>
  %full = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
  %empty = ws.mbarrier_alloc arrivals 128 : !ws.mbarrier<2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0, %p = %c0) -> (i32, i32) : i32 {
        %np = arith.xori %p, %c1 : i32
        // expected-error-re @+1 {{role 'producer' passes this wait on empty[0] (the mbarrier array at {{[0-9]+}}:{{[0-9]+}}) too early: its 2nd wait on this empty barrier needs 1 completed phase, but 0 have completed (it waits for parity 1) (simulating loops of unknown trip count with 3 iterations)}}
        ws.mbarrier_wait %empty[%s], %np : !ws.mbarrier<2>
        %buf = ws.slot %ring[%s] : memref<2x128x64xbf16, 3> -> memref<128x64xbf16, 3>
        ws.tma_load_mbarrier %d[%c0, %c0], %buf, %full[%s] : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>, !ws.mbarrier<2>
        ws.mbarrier_arrive %full[%s] leader tx_bytes 16384 : !ws.mbarrier<2>
        %s1 = arith.addi %s, %c1 : i32
        %wrap = arith.cmpi eq, %s1, %c2 : i32
        %s2 = arith.select %wrap, %c0, %s1 : i32
        // The bug: the phase is never flipped.
        %p2 = arith.addi %p, %c0 : i32
        scf.yield %s2, %p2 : i32, i32
      }
    }
    ws.role "consumer" warps 4 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0, %p = %c0) -> (i32, i32) : i32 {
        ws.mbarrier_wait %full[%s], %p : !ws.mbarrier<2>
        ws.mbarrier_arrive %empty[%s] : !ws.mbarrier<2>
        %s1 = arith.addi %s, %c1 : i32
        %wrap = arith.cmpi eq, %s1, %c2 : i32
        %s2 = arith.select %wrap, %c0, %s1 : i32
        %np = arith.xori %p, %c1 : i32
        %p2 = arith.select %wrap, %np, %p : i32
        scf.yield %s2, %p2 : i32, i32
      }
    }
  }
  return
}

// -----

// The kernel of test/Target/sm90/ws-hang-detection.mlir: the consumer takes
// two slots per iteration, the producer fills one.
func.func @two_takes_per_iteration(%n: i32) {
  %full = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
  %empty = ws.mbarrier_alloc arrivals 128 : !ws.mbarrier<2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0, %p = %c0) -> (i32, i32) : i32 {
        %np = arith.xori %p, %c1 : i32
        ws.mbarrier_wait %empty[%s], %np {ws.channel = 0 : i32, ws.ring = "empty"} : !ws.mbarrier<2>
        ws.mbarrier_arrive %full[%s] leader : !ws.mbarrier<2>
        %s1 = arith.addi %s, %c1 : i32
        %wrap = arith.cmpi eq, %s1, %c2 : i32
        %s2 = arith.select %wrap, %c0, %s1 : i32
        %p2 = arith.select %wrap, %np, %p : i32
        scf.yield %s2, %p2 : i32, i32
      }
    }
    ws.role "consumer" warps 4 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0, %p = %c0) -> (i32, i32) : i32 {
        ws.mbarrier_wait %full[%s], %p {ws.channel = 0 : i32, ws.ring = "full"} : !ws.mbarrier<2>
        ws.mbarrier_arrive %empty[%s] : !ws.mbarrier<2>
        %s1 = arith.addi %s, %c1 : i32
        %wrap = arith.cmpi eq, %s1, %c2 : i32
        %s2 = arith.select %wrap, %c0, %s1 : i32
        %np = arith.xori %p, %c1 : i32
        %p2 = arith.select %wrap, %np, %p : i32
        // expected-error @+1 {{deadlock: role 'consumer' waits here forever on full[1] of channel 0 for parity 0 (0 phases completed, 0 of 1 arrivals in the current one) (simulating loops of unknown trip count with 1 iteration)}}
        ws.mbarrier_wait %full[%s2], %p2 {ws.channel = 0 : i32, ws.ring = "full"} : !ws.mbarrier<2>
        ws.mbarrier_arrive %empty[%s2] : !ws.mbarrier<2>
        %s3 = arith.addi %s2, %c1 : i32
        %wrap2 = arith.cmpi eq, %s3, %c2 : i32
        %s4 = arith.select %wrap2, %c0, %s3 : i32
        %np2 = arith.xori %p2, %c1 : i32
        %p4 = arith.select %wrap2, %np2, %p2 : i32
        scf.yield %s4, %p4 : i32, i32
      }
    }
  }
  return
}

// -----

// A stage read from memory cannot be interpreted.
func.func @stage_from_memory(%m: memref<4xi32>) {
  %full = ws.mbarrier_alloc arrivals 128 : !ws.mbarrier<2>
  ws.warp_specialize {
    ws.role "consumer" warps 4 {
      %i0 = arith.constant 0 : index
      %c0 = arith.constant 0 : i32
      %s = memref.load %m[%i0] : memref<4xi32>
      %t = arith.addi %s, %c0 : i32
      // expected-error-re @+1 {{cannot interpret 'memref.load' at {{[0-9]+}}:{{[0-9]+}}, which the stage of this 'ws.mbarrier_wait' in role 'consumer' depends on}}
      ws.mbarrier_wait %full[%t], %c0 : !ws.mbarrier<2>
    }
  }
  return
}

// -----

// Kernel arguments may bound loops, not give stages or parities.
func.func @parity_from_argument(%phase: i32) {
  %full = ws.mbarrier_alloc arrivals 128 : !ws.mbarrier<2>
  ws.warp_specialize {
    ws.role "consumer" warps 4 {
      %c0 = arith.constant 0 : i32
      // expected-error @+1 {{cannot interpret kernel argument #0 (only trip counts of scf.for may depend on kernel arguments), which the phase parity of this 'ws.mbarrier_wait' in role 'consumer' depends on}}
      ws.mbarrier_wait %full[%c0], %phase : !ws.mbarrier<2>
    }
  }
  return
}

// -----

func.func @parity_two() {
  %full = ws.mbarrier_alloc arrivals 128 : !ws.mbarrier<2>
  ws.warp_specialize {
    ws.role "consumer" warps 4 {
      %c0 = arith.constant 0 : i32
      %c2 = arith.constant 2 : i32
      // expected-error-re @+1 {{role 'consumer' waits on barrier 0 of the mbarrier array at {{[0-9]+}}:{{[0-9]+}} for parity 2, which is neither 0 nor 1}}
      ws.mbarrier_wait %full[%c0], %c2 : !ws.mbarrier<2>
    }
  }
  return
}

// -----

func.func @while_loop(%cond: i1) {
  %full = ws.mbarrier_alloc arrivals 128 : !ws.mbarrier<2>
  ws.warp_specialize {
    ws.role "consumer" warps 4 {
      %c0 = arith.constant 0 : i32
      // expected-error @+1 {{cannot interpret 'scf.while' in role 'consumer', which holds mbarrier operations: only scf.for and scf.if may}}
      scf.while : () -> () {
        scf.condition(%cond)
      } do {
        ws.mbarrier_wait %full[%c0], %c0 : !ws.mbarrier<2>
        scf.yield
      }
    }
  }
  return
}

// -----

func.func @barriers_from_argument(%full: !ws.mbarrier<2>) {
  ws.warp_specialize {
    ws.role "consumer" warps 4 {
      %c0 = arith.constant 0 : i32
      // expected-error @+1 {{cannot interpret the mbarrier array of this 'ws.mbarrier_wait' in role 'consumer': it is not a ws.mbarrier_alloc above the ws.warp_specialize}}
      ws.mbarrier_wait %full[%c0], %c0 : !ws.mbarrier<2>
    }
  }
  return
}

// -----

// Arithmetic the interpreter cannot fold (a division by zero, a shift past
// the width) gives unknown values, not a crash.
func.func @undefined_arithmetic() {
  %full = ws.mbarrier_alloc arrivals 128 : !ws.mbarrier<2>
  ws.warp_specialize {
    ws.role "consumer" warps 4 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c40 = arith.constant 40 : i32
      %x = arith.shli %c1, %c40 : i32
      %y = arith.divsi %x, %c0 : i32
      // expected-error-re @+1 {{cannot interpret 'arith.shli' at {{[0-9]+}}:{{[0-9]+}}, which the stage of this 'ws.mbarrier_wait' in role 'consumer' depends on}}
      ws.mbarrier_wait %full[%y], %c0 : !ws.mbarrier<2>
    }
  }
  return
}

// -----

// A role that would run over 2^20 operations is not checked.
func.func @too_long() {
  %full = ws.mbarrier_alloc arrivals 32 : !ws.mbarrier<1>
  // expected-warning @+1 {{ws-verify-phases: not checked: role 'r' runs more than 1048576 operations}}
  ws.warp_specialize {
    ws.role "r" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %big = arith.constant 1000000 : i32
      %p = scf.for %i = %c0 to %big step %c1 iter_args(%p = %c0) -> (i32) : i32 {
        ws.mbarrier_arrive %full[%c0] : !ws.mbarrier<1>
        ws.mbarrier_wait %full[%c0], %p : !ws.mbarrier<1>
        %np = arith.xori %p, %c1 : i32
        scf.yield %np : i32
      }
    }
  }
  return
}

// -----

// TMA multicast (`ws.multicast`, the output of ws-insert-mbarriers): the
// kernel runs as two CTAs, each a copy of the roles; a multicast copy
// brings half of the block's bytes to the full barrier of both CTAs, a
// multicast commit arrives on the empty barrier of both, which therefore
// counts 2 arrivals per phase. The producers' drains pass once both CTAs'
// consumers have released every slot. Nothing changes.
// CHECK-LABEL: func.func @multicast_ring
// CHECK: ws.mbarrier_alloc arrivals 2
func.func @multicast_ring(%arg0: !tile.desc<tensor<128x64xbf16>>, %arg1: i32) attributes {ws.multicast} {
  %0 = ws.buffer_alloc : memref<2x128x64xbf16, 3>
  %1 = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
  %2 = ws.mbarrier_alloc arrivals 2 : !ws.mbarrier<2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0_i32 = arith.constant 0 : i32
      %c0_i32_0 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %3:2 = scf.for %arg2 = %c0_i32_0 to %arg1 step %c1_i32 iter_args(%arg3 = %c0_i32, %arg4 = %c0_i32) -> (i32, i32)  : i32 {
        %c1_i32_3 = arith.constant 1 : i32
        %11 = arith.xori %arg4, %c1_i32_3 : i32
        ws.mbarrier_wait %2[%arg3], %11 {ws.channel = 0 : i32, ws.ring = "empty"} : !ws.mbarrier<2>
        %12 = ws.slot %0[%arg3] : memref<2x128x64xbf16, 3> -> memref<128x64xbf16, 3>
        %13 = arith.xori %arg4, %c1_i32_3 : i32
        %14 = arith.addi %arg3, %c1_i32_3 : i32
        %c2_i32_4 = arith.constant 2 : i32
        %15 = arith.cmpi eq, %14, %c2_i32_4 : i32
        %c0_i32_5 = arith.constant 0 : i32
        %16 = arith.select %15, %c0_i32_5, %14 : i32
        %17 = arith.select %15, %13, %arg4 : i32
        ws.tma_load_mbarrier %arg0[%c0_i32_0, %arg2], %12, %1[%arg3] multicast : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>, !ws.mbarrier<2>
        ws.mbarrier_arrive %1[%arg3] leader tx_bytes 16384 : !ws.mbarrier<2>
        scf.yield %16, %17 : i32, i32
      }
      %c1_i32_1 = arith.constant 1 : i32
      %4 = arith.xori %3#1, %c1_i32_1 : i32
      ws.mbarrier_wait %2[%3#0], %4 {ws.channel = 0 : i32, ws.drain, ws.ring = "empty"} : !ws.mbarrier<2>
      %5 = arith.addi %3#0, %c1_i32_1 : i32
      %c2_i32 = arith.constant 2 : i32
      %6 = arith.cmpi eq, %5, %c2_i32 : i32
      %7 = arith.xori %3#1, %c1_i32_1 : i32
      %c0_i32_2 = arith.constant 0 : i32
      %8 = arith.select %6, %c0_i32_2, %5 : i32
      %9 = arith.select %6, %7, %3#1 : i32
      %10 = arith.xori %9, %c1_i32_1 : i32
      ws.mbarrier_wait %2[%8], %10 {ws.channel = 0 : i32, ws.drain, ws.ring = "empty"} : !ws.mbarrier<2>
    }
    ws.role "consumer" warps 1 {
      %c0_i32 = arith.constant 0 : i32
      %c0_i32_0 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %3:2 = scf.for %arg2 = %c0_i32_0 to %arg1 step %c1_i32 iter_args(%arg3 = %c0_i32, %arg4 = %c0_i32) -> (i32, i32)  : i32 {
        %c1_i32_1 = arith.constant 1 : i32
        ws.mbarrier_wait %1[%arg3], %arg4 {ws.channel = 0 : i32, ws.ring = "full"} : !ws.mbarrier<2>
        %4 = ws.slot %0[%arg3] : memref<2x128x64xbf16, 3> -> memref<128x64xbf16, 3>
        %5 = arith.xori %arg4, %c1_i32_1 : i32
        %6 = arith.addi %arg3, %c1_i32_1 : i32
        %c2_i32 = arith.constant 2 : i32
        %7 = arith.cmpi eq, %6, %c2_i32 : i32
        %c0_i32_2 = arith.constant 0 : i32
        %8 = arith.select %7, %c0_i32_2, %6 : i32
        %9 = arith.select %7, %5, %arg4 : i32
        ws.mbarrier_arrive %2[%arg3] leader tcgen05 multicast : !ws.mbarrier<2>
        scf.yield %8, %9 : i32, i32
      }
    }
  }
  return
}

// -----

// The same with 1 arrival per phase on the empty barriers, as if the
// peer's commit were not counted: each CTA's release completes a phase in
// both CTAs, two phases per use of a slot, so the producers' drains wait
// for a parity that never comes back.
func.func @multicast_one_arrival(%arg0: !tile.desc<tensor<128x64xbf16>>, %arg1: i32) attributes {ws.multicast} {
  %0 = ws.buffer_alloc : memref<2x128x64xbf16, 3>
  %1 = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
  %2 = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0_i32 = arith.constant 0 : i32
      %c0_i32_0 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %3:2 = scf.for %arg2 = %c0_i32_0 to %arg1 step %c1_i32 iter_args(%arg3 = %c0_i32, %arg4 = %c0_i32) -> (i32, i32)  : i32 {
        %c1_i32_3 = arith.constant 1 : i32
        %11 = arith.xori %arg4, %c1_i32_3 : i32
        ws.mbarrier_wait %2[%arg3], %11 {ws.channel = 0 : i32, ws.ring = "empty"} : !ws.mbarrier<2>
        %12 = ws.slot %0[%arg3] : memref<2x128x64xbf16, 3> -> memref<128x64xbf16, 3>
        %13 = arith.xori %arg4, %c1_i32_3 : i32
        %14 = arith.addi %arg3, %c1_i32_3 : i32
        %c2_i32_4 = arith.constant 2 : i32
        %15 = arith.cmpi eq, %14, %c2_i32_4 : i32
        %c0_i32_5 = arith.constant 0 : i32
        %16 = arith.select %15, %c0_i32_5, %14 : i32
        %17 = arith.select %15, %13, %arg4 : i32
        ws.tma_load_mbarrier %arg0[%c0_i32_0, %arg2], %12, %1[%arg3] multicast : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>, !ws.mbarrier<2>
        ws.mbarrier_arrive %1[%arg3] leader tx_bytes 16384 : !ws.mbarrier<2>
        scf.yield %16, %17 : i32, i32
      }
      %c1_i32_1 = arith.constant 1 : i32
      %4 = arith.xori %3#1, %c1_i32_1 : i32
      ws.mbarrier_wait %2[%3#0], %4 {ws.channel = 0 : i32, ws.drain, ws.ring = "empty"} : !ws.mbarrier<2>
      %5 = arith.addi %3#0, %c1_i32_1 : i32
      %c2_i32 = arith.constant 2 : i32
      %6 = arith.cmpi eq, %5, %c2_i32 : i32
      %7 = arith.xori %3#1, %c1_i32_1 : i32
      %c0_i32_2 = arith.constant 0 : i32
      %8 = arith.select %6, %c0_i32_2, %5 : i32
      %9 = arith.select %6, %7, %3#1 : i32
      %10 = arith.xori %9, %c1_i32_1 : i32
      // expected-error @+1 {{deadlock: role 'producer' of CTA 0 waits here forever on empty[0] of channel 0 for parity 0 (2 phases completed, 0 of 1 arrivals in the current one); role 'producer' of CTA 1 waits at}}
      ws.mbarrier_wait %2[%8], %10 {ws.channel = 0 : i32, ws.drain, ws.ring = "empty"} : !ws.mbarrier<2>
    }
    ws.role "consumer" warps 1 {
      %c0_i32 = arith.constant 0 : i32
      %c0_i32_0 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %3:2 = scf.for %arg2 = %c0_i32_0 to %arg1 step %c1_i32 iter_args(%arg3 = %c0_i32, %arg4 = %c0_i32) -> (i32, i32)  : i32 {
        %c1_i32_1 = arith.constant 1 : i32
        ws.mbarrier_wait %1[%arg3], %arg4 {ws.channel = 0 : i32, ws.ring = "full"} : !ws.mbarrier<2>
        %4 = ws.slot %0[%arg3] : memref<2x128x64xbf16, 3> -> memref<128x64xbf16, 3>
        %5 = arith.xori %arg4, %c1_i32_1 : i32
        %6 = arith.addi %arg3, %c1_i32_1 : i32
        %c2_i32 = arith.constant 2 : i32
        %7 = arith.cmpi eq, %6, %c2_i32 : i32
        %c0_i32_2 = arith.constant 0 : i32
        %8 = arith.select %7, %c0_i32_2, %6 : i32
        %9 = arith.select %7, %5, %arg4 : i32
        ws.mbarrier_arrive %2[%arg3] leader tcgen05 multicast : !ws.mbarrier<2>
        scf.yield %8, %9 : i32, i32
      }
    }
  }
  return
}

// -----

// TMA multicast on sm_90a (ws-insert-mbarriers' output): two consumer
// warpgroups release each slot after wgmma by one arrival per warp in each
// CTA, so each empty barrier counts 2 x 8 = 16 arrivals per phase.
// CHECK-LABEL: func.func @multicast_wgmma
func.func @multicast_wgmma(%arg0: !tile.desc<tensor<128x64xbf16>>, %arg1: i32) attributes {ws.multicast} {
  %0 = ws.buffer_alloc : memref<2x128x64xbf16, 3>
  %1 = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
  %2 = ws.mbarrier_alloc arrivals 16 : !ws.mbarrier<2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0_i32 = arith.constant 0 : i32
      %c0_i32_0 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %3:2 = scf.for %arg2 = %c0_i32_0 to %arg1 step %c1_i32 iter_args(%arg3 = %c0_i32, %arg4 = %c0_i32) -> (i32, i32)  : i32 {
        %c1_i32_3 = arith.constant 1 : i32
        %11 = arith.xori %arg4, %c1_i32_3 : i32
        ws.mbarrier_wait %2[%arg3], %11 {ws.channel = 0 : i32, ws.ring = "empty"} : !ws.mbarrier<2>
        %12 = ws.slot %0[%arg3] : memref<2x128x64xbf16, 3> -> memref<128x64xbf16, 3>
        %13 = arith.xori %arg4, %c1_i32_3 : i32
        %14 = arith.addi %arg3, %c1_i32_3 : i32
        %c2_i32_4 = arith.constant 2 : i32
        %15 = arith.cmpi eq, %14, %c2_i32_4 : i32
        %c0_i32_5 = arith.constant 0 : i32
        %16 = arith.select %15, %c0_i32_5, %14 : i32
        %17 = arith.select %15, %13, %arg4 : i32
        ws.tma_load_mbarrier %arg0[%c0_i32_0, %arg2], %12, %1[%arg3] multicast : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>, !ws.mbarrier<2>
        ws.mbarrier_arrive %1[%arg3] leader tx_bytes 16384 : !ws.mbarrier<2>
        scf.yield %16, %17 : i32, i32
      }
      %c1_i32_1 = arith.constant 1 : i32
      %4 = arith.xori %3#1, %c1_i32_1 : i32
      ws.mbarrier_wait %2[%3#0], %4 {ws.channel = 0 : i32, ws.drain, ws.ring = "empty"} : !ws.mbarrier<2>
      %5 = arith.addi %3#0, %c1_i32_1 : i32
      %c2_i32 = arith.constant 2 : i32
      %6 = arith.cmpi eq, %5, %c2_i32 : i32
      %7 = arith.xori %3#1, %c1_i32_1 : i32
      %c0_i32_2 = arith.constant 0 : i32
      %8 = arith.select %6, %c0_i32_2, %5 : i32
      %9 = arith.select %6, %7, %3#1 : i32
      %10 = arith.xori %9, %c1_i32_1 : i32
      ws.mbarrier_wait %2[%8], %10 {ws.channel = 0 : i32, ws.drain, ws.ring = "empty"} : !ws.mbarrier<2>
    }
    ws.role "consumer0" warps 4 {
      %c0_i32 = arith.constant 0 : i32
      %c0_i32_0 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %c-1_i32 = arith.constant -1 : i32
      %3:3 = scf.for %arg2 = %c0_i32_0 to %arg1 step %c1_i32 iter_args(%arg3 = %c0_i32, %arg4 = %c0_i32, %arg5 = %c-1_i32) -> (i32, i32, i32)  : i32 {
        %c1_i32_2 = arith.constant 1 : i32
        ws.mbarrier_wait %1[%arg3], %arg4 {ws.channel = 0 : i32, ws.ring = "full"} : !ws.mbarrier<2>
        %5 = ws.slot %0[%arg3] : memref<2x128x64xbf16, 3> -> memref<128x64xbf16, 3>
        %6 = arith.xori %arg4, %c1_i32_2 : i32
        %7 = arith.addi %arg3, %c1_i32_2 : i32
        %c2_i32 = arith.constant 2 : i32
        %8 = arith.cmpi eq, %7, %c2_i32 : i32
        %c0_i32_3 = arith.constant 0 : i32
        %9 = arith.select %8, %c0_i32_3, %7 : i32
        %10 = arith.select %8, %6, %arg4 : i32
        nvvm.wgmma.wait.group.sync.aligned 1
        %c0_i32_4 = arith.constant 0 : i32
        %11 = arith.cmpi sge, %arg5, %c0_i32_4 : i32
        scf.if %11 {
          ws.mbarrier_arrive %2[%arg5] multicast : !ws.mbarrier<2>
        }
        scf.yield %9, %10, %arg3 : i32, i32, i32
      }
      nvvm.wgmma.wait.group.sync.aligned 0
      %c0_i32_1 = arith.constant 0 : i32
      %4 = arith.cmpi sge, %3#2, %c0_i32_1 : i32
      scf.if %4 {
        ws.mbarrier_arrive %2[%3#2] multicast : !ws.mbarrier<2>
      }
    }
    ws.role "consumer1" warps 4 {
      %c0_i32 = arith.constant 0 : i32
      %c0_i32_0 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %c-1_i32 = arith.constant -1 : i32
      %3:3 = scf.for %arg2 = %c0_i32_0 to %arg1 step %c1_i32 iter_args(%arg3 = %c0_i32, %arg4 = %c0_i32, %arg5 = %c-1_i32) -> (i32, i32, i32)  : i32 {
        %c1_i32_2 = arith.constant 1 : i32
        ws.mbarrier_wait %1[%arg3], %arg4 {ws.channel = 0 : i32, ws.ring = "full"} : !ws.mbarrier<2>
        %5 = ws.slot %0[%arg3] : memref<2x128x64xbf16, 3> -> memref<128x64xbf16, 3>
        %6 = arith.xori %arg4, %c1_i32_2 : i32
        %7 = arith.addi %arg3, %c1_i32_2 : i32
        %c2_i32 = arith.constant 2 : i32
        %8 = arith.cmpi eq, %7, %c2_i32 : i32
        %c0_i32_3 = arith.constant 0 : i32
        %9 = arith.select %8, %c0_i32_3, %7 : i32
        %10 = arith.select %8, %6, %arg4 : i32
        nvvm.wgmma.wait.group.sync.aligned 1
        %c0_i32_4 = arith.constant 0 : i32
        %11 = arith.cmpi sge, %arg5, %c0_i32_4 : i32
        scf.if %11 {
          ws.mbarrier_arrive %2[%arg5] multicast : !ws.mbarrier<2>
        }
        scf.yield %9, %10, %arg3 : i32, i32, i32
      }
      nvvm.wgmma.wait.group.sync.aligned 0
      %c0_i32_1 = arith.constant 0 : i32
      %4 = arith.cmpi sge, %3#2, %c0_i32_1 : i32
      scf.if %4 {
        ws.mbarrier_arrive %2[%3#2] multicast : !ws.mbarrier<2>
      }
    }
  }
  return
}

// -----

// The same with the empty barriers counting one CTA's warps (8): the two
// CTAs' releases complete two phases where one was due, and the drain waits
// forever.
func.func @multicast_wgmma_per_cta(%arg0: !tile.desc<tensor<128x64xbf16>>, %arg1: i32) attributes {ws.multicast} {
  %0 = ws.buffer_alloc : memref<2x128x64xbf16, 3>
  %1 = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
  %2 = ws.mbarrier_alloc arrivals 8 : !ws.mbarrier<2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0_i32 = arith.constant 0 : i32
      %c0_i32_0 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %3:2 = scf.for %arg2 = %c0_i32_0 to %arg1 step %c1_i32 iter_args(%arg3 = %c0_i32, %arg4 = %c0_i32) -> (i32, i32)  : i32 {
        %c1_i32_3 = arith.constant 1 : i32
        %11 = arith.xori %arg4, %c1_i32_3 : i32
        ws.mbarrier_wait %2[%arg3], %11 {ws.channel = 0 : i32, ws.ring = "empty"} : !ws.mbarrier<2>
        %12 = ws.slot %0[%arg3] : memref<2x128x64xbf16, 3> -> memref<128x64xbf16, 3>
        %13 = arith.xori %arg4, %c1_i32_3 : i32
        %14 = arith.addi %arg3, %c1_i32_3 : i32
        %c2_i32_4 = arith.constant 2 : i32
        %15 = arith.cmpi eq, %14, %c2_i32_4 : i32
        %c0_i32_5 = arith.constant 0 : i32
        %16 = arith.select %15, %c0_i32_5, %14 : i32
        %17 = arith.select %15, %13, %arg4 : i32
        ws.tma_load_mbarrier %arg0[%c0_i32_0, %arg2], %12, %1[%arg3] multicast : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>, !ws.mbarrier<2>
        ws.mbarrier_arrive %1[%arg3] leader tx_bytes 16384 : !ws.mbarrier<2>
        scf.yield %16, %17 : i32, i32
      }
      %c1_i32_1 = arith.constant 1 : i32
      %4 = arith.xori %3#1, %c1_i32_1 : i32
      ws.mbarrier_wait %2[%3#0], %4 {ws.channel = 0 : i32, ws.drain, ws.ring = "empty"} : !ws.mbarrier<2>
      %5 = arith.addi %3#0, %c1_i32_1 : i32
      %c2_i32 = arith.constant 2 : i32
      %6 = arith.cmpi eq, %5, %c2_i32 : i32
      %7 = arith.xori %3#1, %c1_i32_1 : i32
      %c0_i32_2 = arith.constant 0 : i32
      %8 = arith.select %6, %c0_i32_2, %5 : i32
      %9 = arith.select %6, %7, %3#1 : i32
      %10 = arith.xori %9, %c1_i32_1 : i32
      // expected-error @+1 {{deadlock: role 'producer' of CTA 0 waits here forever on empty[0] of channel 0 for parity 0 (2 phases completed, 0 of 8 arrivals in the current one)}}
      ws.mbarrier_wait %2[%8], %10 {ws.channel = 0 : i32, ws.drain, ws.ring = "empty"} : !ws.mbarrier<2>
    }
    ws.role "consumer0" warps 4 {
      %c0_i32 = arith.constant 0 : i32
      %c0_i32_0 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %c-1_i32 = arith.constant -1 : i32
      %3:3 = scf.for %arg2 = %c0_i32_0 to %arg1 step %c1_i32 iter_args(%arg3 = %c0_i32, %arg4 = %c0_i32, %arg5 = %c-1_i32) -> (i32, i32, i32)  : i32 {
        %c1_i32_2 = arith.constant 1 : i32
        ws.mbarrier_wait %1[%arg3], %arg4 {ws.channel = 0 : i32, ws.ring = "full"} : !ws.mbarrier<2>
        %5 = ws.slot %0[%arg3] : memref<2x128x64xbf16, 3> -> memref<128x64xbf16, 3>
        %6 = arith.xori %arg4, %c1_i32_2 : i32
        %7 = arith.addi %arg3, %c1_i32_2 : i32
        %c2_i32 = arith.constant 2 : i32
        %8 = arith.cmpi eq, %7, %c2_i32 : i32
        %c0_i32_3 = arith.constant 0 : i32
        %9 = arith.select %8, %c0_i32_3, %7 : i32
        %10 = arith.select %8, %6, %arg4 : i32
        nvvm.wgmma.wait.group.sync.aligned 1
        %c0_i32_4 = arith.constant 0 : i32
        %11 = arith.cmpi sge, %arg5, %c0_i32_4 : i32
        scf.if %11 {
          ws.mbarrier_arrive %2[%arg5] multicast : !ws.mbarrier<2>
        }
        scf.yield %9, %10, %arg3 : i32, i32, i32
      }
      nvvm.wgmma.wait.group.sync.aligned 0
      %c0_i32_1 = arith.constant 0 : i32
      %4 = arith.cmpi sge, %3#2, %c0_i32_1 : i32
      scf.if %4 {
        ws.mbarrier_arrive %2[%3#2] multicast : !ws.mbarrier<2>
      }
    }
    ws.role "consumer1" warps 4 {
      %c0_i32 = arith.constant 0 : i32
      %c0_i32_0 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %c-1_i32 = arith.constant -1 : i32
      %3:3 = scf.for %arg2 = %c0_i32_0 to %arg1 step %c1_i32 iter_args(%arg3 = %c0_i32, %arg4 = %c0_i32, %arg5 = %c-1_i32) -> (i32, i32, i32)  : i32 {
        %c1_i32_2 = arith.constant 1 : i32
        ws.mbarrier_wait %1[%arg3], %arg4 {ws.channel = 0 : i32, ws.ring = "full"} : !ws.mbarrier<2>
        %5 = ws.slot %0[%arg3] : memref<2x128x64xbf16, 3> -> memref<128x64xbf16, 3>
        %6 = arith.xori %arg4, %c1_i32_2 : i32
        %7 = arith.addi %arg3, %c1_i32_2 : i32
        %c2_i32 = arith.constant 2 : i32
        %8 = arith.cmpi eq, %7, %c2_i32 : i32
        %c0_i32_3 = arith.constant 0 : i32
        %9 = arith.select %8, %c0_i32_3, %7 : i32
        %10 = arith.select %8, %6, %arg4 : i32
        nvvm.wgmma.wait.group.sync.aligned 1
        %c0_i32_4 = arith.constant 0 : i32
        %11 = arith.cmpi sge, %arg5, %c0_i32_4 : i32
        scf.if %11 {
          ws.mbarrier_arrive %2[%arg5] multicast : !ws.mbarrier<2>
        }
        scf.yield %9, %10, %arg3 : i32, i32, i32
      }
      nvvm.wgmma.wait.group.sync.aligned 0
      %c0_i32_1 = arith.constant 0 : i32
      %4 = arith.cmpi sge, %3#2, %c0_i32_1 : i32
      scf.if %4 {
        ws.mbarrier_arrive %2[%3#2] multicast : !ws.mbarrier<2>
      }
    }
  }
  return
}
