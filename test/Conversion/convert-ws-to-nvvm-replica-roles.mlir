// RUN: fmha-opt %s -split-input-file --ws-lower-roles --ws-lower-cta-pairs \
// RUN:   --convert-scf-to-cf --convert-ws-to-nvvm | FileCheck %s
// RUN: fmha-opt %s -split-input-file --ws-lower-roles=replica-roles=false --ws-lower-cta-pairs \
// RUN:   --convert-scf-to-cf --convert-ws-to-nvvm \
// RUN: | FileCheck %s --check-prefix=APART
// A hang report names the role of its wait: with reports on, roles stay apart.
// RUN: fmha-opt %s -split-input-file --ws-insert-hang-reports=wait-timeout=1000 --ws-lower-roles --ws-lower-cta-pairs \
// RUN:   --convert-scf-to-cf --convert-ws-to-nvvm \
// RUN: | FileCheck %s --check-prefix=APART

// Two consumer roles, clones but for their values (the tile row, the slot
// of the staging ring, the named barrier of their warpgroup) and for a
// barrier op each has that the other has not: one copy of code, entered by
// both warpgroups (warps 4 to 11) after one setmaxnreg. The replica index is
// (warp - 4) / 4; the leader of each replica is its own first thread. An op
// only consumer 1 has and that only computes a value (the row + 64) runs in
// both; one with effects runs under a test of the index.
// CHECK-LABEL: gpu.module @replicas
// CHECK: nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[TID:.*]] = llvm.trunc %{{.*}} : i64 to i32
// CHECK: %[[WARP:.*]] = nvvm.shfl.sync idx
// CHECK: nvvm.setmaxregister increase 232
// CHECK-NOT: nvvm.setmaxregister
// CHECK: %[[C4:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK: %[[C12:.*]] = llvm.mlir.constant(12 : i32) : i32
// CHECK: llvm.icmp "ult" %[[WARP]], %[[C12]] : i32
// CHECK: %[[OFF:.*]] = llvm.sub %[[WARP]], %{{.*}} : i32
// CHECK: %[[IDX:.*]] = llvm.udiv %[[OFF]], %{{.*}} : i32
// CHECK: %[[FIRST:.*]] = llvm.mul %[[IDX]], %{{.*}} : i32
// CHECK: %[[LEADERTID:.*]] = llvm.add %[[FIRST]], %{{.*}} : i32
// CHECK: %[[LEADER:.*]] = llvm.icmp "eq" %[[TID]], %[[LEADERTID]] : i32
// CHECK: %[[ROW:.*]] = llvm.mul %arg1, %{{.*}} : i32
// CHECK: %[[ROW64:.*]] = llvm.add %[[ROW]], %{{.*}} : i32
// The slot: stage 0 or 1.
// CHECK: %[[IS1:.*]] = llvm.icmp "eq" %[[IDX]], %{{.*}} : i32
// CHECK: llvm.select %[[IS1]], %{{.*}}, %{{.*}} : i1, i32
// Consumer 1 alone arrives at barrier 3.
// CHECK: llvm.icmp "eq" %[[IDX]], %{{.*}} : i32
// CHECK: llvm.cond_br
// CHECK: %[[ID3:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK: nvvm.barrier.arrive id = %[[ID3]]
// Barrier 1 or 2.
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK: %[[IS1B:.*]] = llvm.icmp "eq" %[[IDX]], %{{.*}} : i32
// CHECK: %[[ID:.*]] = llvm.select %[[IS1B]], %[[TWO]], %[[ONE]] : i1, i32
// CHECK: nvvm.barrier id = %[[ID]]
// Row or row + 64.
// CHECK: %[[IS1C:.*]] = llvm.icmp "eq" %[[IDX]], %{{.*}} : i32
// CHECK: %[[R:.*]] = llvm.select %[[IS1C]], %[[ROW64]], %[[ROW]] : i1, i32
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %arg0, %{{.*}}, box[%{{.*}}, %[[R]]], predicate = %[[LEADER]]
// Consumer 0 alone waits at barrier 3.
// CHECK: %[[NOT1:.*]] = llvm.icmp "ne" %[[IDX]], %{{.*}} : i32
// CHECK: llvm.cond_br %[[NOT1]]
// CHECK: nvvm.barrier id =
// Each arrives on its own barrier.
// CHECK: llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, !llvm.ptr<3>
// CHECK: nvvm.mbarrier.arrive
// CHECK-NOT: nvvm.mbarrier.arrive
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: llvm.return
//
// Without replica roles: two copies, each after its own setmaxnreg.
// APART-LABEL: gpu.module @replicas
// APART: nvvm.setmaxregister increase 232
// APART: nvvm.cp.async.bulk.tensor.global.shared.cta
// APART: nvvm.setmaxregister increase 232
// APART: nvvm.cp.async.bulk.tensor.global.shared.cta
module attributes {gpu.container_module} {
  gpu.module @replicas {
    gpu.func @k(%desc: !tile.desc<tensor<64x64xbf16>>, %row: i32) kernel attributes {ws.num_threads = 384 : i64, ws.smem_bytes = 16400 : i64} {
      %bufs = ws.buffer_alloc offset 0 : memref<2x64x64xbf16, 3>
      %done0 = ws.mbarrier_alloc arrivals 128 offset 16384 : !ws.mbarrier<1>
      %done1 = ws.mbarrier_alloc arrivals 128 offset 16392 : !ws.mbarrier<1>
      ws.warp_specialize {
        ws.role "producer" warps 1 regs 40 first_warp 0 {
        }
        ws.role "consumer0" warps 4 regs 232 first_warp 4 {
          %c0 = arith.constant 0 : i32
          %c2 = arith.constant 2 : i32
          %r = arith.muli %row, %c2 : i32
          %buf = ws.slot %bufs[%c0] : memref<2x64x64xbf16, 3> -> memref<64x64xbf16, 3>
          ws.barrier_sync 1 threads 128
          ws.tma_store %desc[%r, %c0], %buf : !tile.desc<tensor<64x64xbf16>>, memref<64x64xbf16, 3>
          ws.barrier_sync 3 threads 256
          ws.mbarrier_arrive %done0[%c0] : !ws.mbarrier<1>
        }
        ws.role "consumer1" warps 4 regs 232 first_warp 8 {
          %c0 = arith.constant 0 : i32
          %c1 = arith.constant 1 : i32
          %c2 = arith.constant 2 : i32
          %c64 = arith.constant 64 : i32
          %r = arith.muli %row, %c2 : i32
          %r1 = arith.addi %r, %c64 : i32
          %buf = ws.slot %bufs[%c1] : memref<2x64x64xbf16, 3> -> memref<64x64xbf16, 3>
          ws.barrier_arrive 3 threads 256
          ws.barrier_sync 2 threads 128
          ws.tma_store %desc[%r1, %c0], %buf : !tile.desc<tensor<64x64xbf16>>, memref<64x64xbf16, 3>
          ws.mbarrier_arrive %done1[%c0] : !ws.mbarrier<1>
        }
      }
      gpu.return
    }
  }
}

// -----

// Roles that do not line up stay apart: here a loop with a result that
// only consumer 0 runs (an op with regions and results cannot be guarded),
// and roles of different register budgets.
// CHECK-LABEL: gpu.module @apart
// CHECK-COUNT-2: nvvm.setmaxregister increase 160
// CHECK: nvvm.setmaxregister increase 136
module attributes {gpu.container_module} {
  gpu.module @apart {
    gpu.func @k(%n: i32) kernel attributes {ws.num_threads = 512 : i64} {
      ws.warp_specialize {
        ws.role "producer" warps 1 regs 24 first_warp 0 {
        }
        ws.role "consumer0" warps 4 regs 160 first_warp 4 {
          %c0 = arith.constant 0 : i32
          %c1 = arith.constant 1 : i32
          %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> (i32) : i32 {
            %b = arith.addi %a, %i : i32
            scf.yield %b : i32
          }
          ws.barrier_arrive 1 threads 256
        }
        ws.role "consumer1" warps 4 regs 160 first_warp 8 {
          ws.barrier_sync 1 threads 256
        }
        ws.role "consumer2" warps 4 regs 136 first_warp 12 {
          ws.barrier_sync 2 threads 128
        }
      }
      gpu.return
    }
  }
}

// -----

// Consumers that differ in the tensor-memory ring they index stay apart:
// the lowering of ws.slot reads the stage stride off the ws.tmem_buffer
// that placed the ring, so the ring cannot come from a select. (A
// tensor-memory buffer used directly, as ws.store_tmem's, can.)
// CHECK-LABEL: gpu.module @tmem
// CHECK: nvvm.setmaxregister increase 232
// CHECK: nvvm.tcgen05.st
// CHECK: nvvm.setmaxregister increase 232
// CHECK: nvvm.tcgen05.st
#regs = #tile.tmem_32x32b<warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @tmem {
    gpu.func @k(%v: f32, %base: i32) kernel attributes {ws.num_threads = 384 : i64} {
      %t0 = ws.tmem_buffer base %base column 0 : memref<1x128x128xf32, #ws.tmem>
      %t1 = ws.tmem_buffer base %base column 128 : memref<1x128x128xf32, #ws.tmem>
      ws.warp_specialize {
        ws.role "producer" warps 1 regs 40 first_warp 0 {
        }
        ws.role "consumer0" warps 4 regs 232 first_warp 4 {
          %c0 = arith.constant 0 : i32
          %acc = ws.slot %t0[%c0] : memref<1x128x128xf32, #ws.tmem> -> memref<128x128xf32, #ws.tmem>
          %s = tensor.splat %v : tensor<128x128xf32, #regs>
          ws.store_tmem %s, %acc : tensor<128x128xf32, #regs>, memref<128x128xf32, #ws.tmem>
        }
        ws.role "consumer1" warps 4 regs 232 first_warp 8 {
          %c0 = arith.constant 0 : i32
          %acc = ws.slot %t1[%c0] : memref<1x128x128xf32, #ws.tmem> -> memref<128x128xf32, #ws.tmem>
          %s = tensor.splat %v : tensor<128x128xf32, #regs>
          ws.store_tmem %s, %acc : tensor<128x128xf32, #regs>, memref<128x128xf32, #ws.tmem>
        }
      }
      gpu.return
    }
  }
}
