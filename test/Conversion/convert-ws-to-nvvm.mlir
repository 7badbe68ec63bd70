// RUN: fmha-opt %s -split-input-file -verify-diagnostics --convert-ws-to-nvvm | FileCheck %s
// RUN: fmha-opt %s -split-input-file -verify-diagnostics --convert-ws-to-nvvm=wait-timeout=1000 \
// RUN: | FileCheck %s --check-prefix=HANG

// Roles become branches on the warp index after per-warpgroup setmaxnreg;
// barriers are initialised by thread 0; the TMA descriptor is a by-value
// grid-constant parameter and its coordinates are reversed for PTX.
// CHECK-LABEL: gpu.module @roles
// CHECK: llvm.mlir.global external @__fmha_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.func @k(%[[DESC:.*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %[[ROW:.*]]: i32, %[[COL:.*]]: i32)
// CHECK-SAME: nvvm.kernel
// CHECK-SAME: nvvm.maxntid = array<i32: 256, 1, 1>
// CHECK-SAME: nvvm.minctasm = 1 : i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %{{.*}}, predicate = %{{.*}} : !llvm.ptr<3>, i32, i1
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.barrier
// CHECK: nvvm.setmaxregister  decrease 40
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[DESC]], %{{.*}}, box[%[[COL]], %[[ROW]]] {isCTAOnly = true}
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// CHECK: nvvm.setmaxregister  decrease 232
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %{{.*}}
module attributes {gpu.container_module} {
  gpu.module @roles {
    gpu.func @k(%desc: !tile.desc<tensor<128x64xbf16>>, %row: i32, %col: i32) kernel
        attributes {ws.num_threads = 256 : i64, ws.smem_bytes = 32800 : i64} {
      %ring = ws.buffer_alloc offset 0 : memref<2x128x64xbf16, 3>
      %full = ws.mbarrier_alloc arrivals 1 offset 32768 : !ws.mbarrier<2>
      %empty = ws.mbarrier_alloc arrivals 128 offset 32784 : !ws.mbarrier<2>
      ws.warp_specialize {
        ws.role "producer" warps 1 regs 40 first_warp 0 {
          %c0 = arith.constant 0 : i32
          ws.mbarrier_wait %empty[%c0], %c0 : !ws.mbarrier<2>
          %buf = ws.slot %ring[%c0] : memref<2x128x64xbf16, 3> -> memref<128x64xbf16, 3>
          ws.tma_load_mbarrier %desc[%row, %col], %buf, %full[%c0] : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>, !ws.mbarrier<2>
          ws.mbarrier_arrive %full[%c0] leader tx_bytes 16384 : !ws.mbarrier<2>
        }
        ws.role "consumer" warps 4 regs 232 first_warp 4 {
          %c0 = arith.constant 0 : i32
          ws.fence_async_shared
          ws.mbarrier_arrive %empty[%c0] : !ws.mbarrier<2>
          ws.barrier_sync 1 threads 128
          ws.barrier_arrive 2 threads 128
        }
      }
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @no_threads {
    // expected-error @+1 {{kernel has no ws.num_threads: run ws-allocate-registers before convert-ws-to-nvvm}}
    gpu.func @k() kernel {
      ws.warp_specialize {
        ws.role "producer" warps 1 first_warp 0 {
        }
      }
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @no_range {
    gpu.func @k() kernel attributes {ws.num_threads = 32 : i64} {
      ws.warp_specialize {
        // expected-error @+1 {{'ws.role' op has no warp range: run ws-allocate-registers before convert-ws-to-nvvm}}
        ws.role "producer" warps 1 {
        }
      }
      gpu.return
    }
  }
}

// -----

// The compute ops of a GEMM consumer: a 128x128 accumulator over 128x64 bf16
// operands read in place from swizzled shared memory is 2 (M) x 4 (K) wgmmas
// of m64n128k16 between a fence and a commit; the epilogue converts to bf16,
// writes pairs of elements to the staging buffer, fences the async proxy,
// syncs the warpgroup and has its leader TMA-store the tile (coordinates
// reversed) and wait until the buffer has been read.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
// CHECK-LABEL: gpu.module @compute
// CHECK: llvm.func @k(%[[C:.*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %[[ROW:.*]]: i32)
// CHECK-SAME: nvvm.maxntid = array<i32: 256, 1, 1>
// CHECK: nvvm.setmaxregister  decrease 40
// CHECK: nvvm.setmaxregister  decrease 232
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-8: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: llvm.fptrunc %{{.*}} : f32 to bf16
// CHECK: llvm.store {{.*}} : vector<2xbf16>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: %[[N:.*]] = nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[C]], %{{.*}}, box[%[[N]], %[[ROW]]]
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NOT: ws.
// CHECK-NOT: tile.
// CHECK: llvm.return
module attributes {gpu.container_module} {
  gpu.module @compute {
    gpu.func @k(%c: !tile.desc<tensor<128x128xbf16>>, %row: i32) kernel
        attributes {ws.num_threads = 256 : i64, ws.smem_bytes = 65536 : i64} {
      %a = ws.buffer_alloc offset 0 : memref<128x64xbf16, 3>
      %b = ws.buffer_alloc offset 16384 : memref<128x64xbf16, 3>
      %s = ws.buffer_alloc offset 32768 : memref<128x128xbf16, 3>
      ws.warp_specialize {
        ws.role "producer" warps 1 regs 40 first_warp 0 {
        }
        ws.role "consumer" warps 4 regs 232 first_warp 4 {
          %x = ws.as_tensor %a : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #smem>
          %y = ws.as_tensor %b : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #smem>
          %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
          %d = tile.dot %x, %y, %zero {transpose_b}
              : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
          %t = arith.truncf %d : tensor<128x128xf32, #acc> to tensor<128x128xbf16, #acc>
          ws.store_shared %t, %s : tensor<128x128xbf16, #acc>, memref<128x128xbf16, 3>
          ws.fence_async_shared
          ws.barrier_sync 1 threads 128
          %n = tile.program_id y : i32
          ws.tma_store %c[%row, %n], %s : !tile.desc<tensor<128x128xbf16>>, memref<128x128xbf16, 3>
          ws.tma_store_wait
        }
      }
      gpu.return
    }
  }
}

// -----

// Hang detection. Off by default: a wait is one try_wait.parity loop. With
// wait-timeout=1000 (microseconds), it is a loop of single try_waits that,
// once %globaltimer says 1 ms has passed since the first failed try, prints
// the wait's report with vprintf and traps. The report names the role, the
// wait's location, and the ring (from ws-insert-mbarriers' attributes, or
// else the location of the barrier array); the stage, the parity, the thread
// and the CTA are printed from their runtime values.
// CHECK-LABEL: gpu.module @hang
// CHECK-NOT: vprintf
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: vprintf
// CHECK: llvm.return
// HANG-LABEL: gpu.module @hang
// HANG-DAG: llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
// HANG-DAG: llvm.mlir.global internal constant @__fmha_hang_report_0("fmha: hang in role 'producer': ws.mbarrier_wait at convert-ws-to-nvvm.mlir:[[#]]:[[#]] on the empty barrier of channel 0, stage %u, phase parity %u, not completed after 1000 us; thread %u, CTA (%u, %u, %u)\0A\00")
// HANG-DAG: llvm.mlir.global internal constant @__fmha_hang_report_1("fmha: hang in role 'con%%sumer': ws.mbarrier_wait at convert-ws-to-nvvm.mlir:[[#]]:[[#]] on the mbarrier array allocated at convert-ws-to-nvvm.mlir:[[#]]:[[#]], stage %u, phase parity %u, not completed after 1000 us; thread %u, CTA (%u, %u, %u)\0A\00")
// HANG: llvm.func @k()
// The reports' arguments: one stack slot per wait, in the entry block.
// HANG-COUNT-2: llvm.alloca %{{.*}} x !llvm.struct<(i32, i32, i32, i32, i32, i32)> {alignment = 4 : i64} : (i64) -> !llvm.ptr
// A first try, then the slow path: the start time, more tries, the bound.
// HANG: %[[OK0:.*]] = nvvm.mbarrier.try_wait %[[BAR:.*]], %[[PARITY:.*]] : !llvm.ptr<3>, i32 -> i1
// HANG-NEXT: llvm.cond_br %[[OK0]], ^[[DONE:.*]], ^[[SLOW:[^ ]*]]
// HANG-NEXT: ^[[SLOW]]:
// HANG-NEXT: %[[START:.*]] = nvvm.read.ptx.sreg.globaltimer : i64
// HANG-NEXT: llvm.br ^[[RETRY:[^ ]*]]
// HANG-NEXT: ^[[RETRY]]:
// HANG-NEXT: %[[OK:.*]] = nvvm.mbarrier.try_wait %[[BAR]], %[[PARITY]] : !llvm.ptr<3>, i32 -> i1
// HANG-NEXT: llvm.cond_br %[[OK]], ^[[DONE]], ^[[TIMER:[^ ]*]]
// HANG-NEXT: ^[[TIMER]]:
// HANG-NEXT: %[[NOW:.*]] = nvvm.read.ptx.sreg.globaltimer : i64
// HANG-NEXT: %[[ELAPSED:.*]] = llvm.sub %[[NOW]], %[[START]] : i64
// HANG-NEXT: %[[LIMIT:.*]] = llvm.mlir.constant(1000000 : i64) : i64
// HANG-NEXT: %[[OVER:.*]] = llvm.icmp "ugt" %[[ELAPSED]], %[[LIMIT]] : i64
// HANG-NEXT: llvm.cond_br %[[OVER]], ^[[FAIL:[^ ]*]], ^[[RETRY]]
// The report: stage, parity, thread, CTA, then vprintf and trap.
// HANG-NEXT: ^[[FAIL]]:
// HANG-NEXT: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// HANG-NEXT: %[[X:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// HANG-NEXT: %[[Y:.*]] = nvvm.read.ptx.sreg.ctaid.y : i32
// HANG-NEXT: %[[Z:.*]] = nvvm.read.ptx.sreg.ctaid.z : i32
// HANG-NEXT: %[[F0:.*]] = llvm.getelementptr %[[ARGS:.*]][0, 0]
// HANG-NEXT: llvm.store %{{.*}}, %[[F0]] : i32, !llvm.ptr
// HANG-NEXT: %[[F1:.*]] = llvm.getelementptr %[[ARGS]][0, 1]
// HANG-NEXT: llvm.store %[[PARITY]], %[[F1]] : i32, !llvm.ptr
// HANG-NEXT: %[[F2:.*]] = llvm.getelementptr %[[ARGS]][0, 2]
// HANG-NEXT: llvm.store %[[TID]], %[[F2]] : i32, !llvm.ptr
// HANG: llvm.store %[[Z]], %{{.*}} : i32, !llvm.ptr
// HANG-NEXT: %[[FORMAT:.*]] = llvm.mlir.addressof @__fmha_hang_report_0 : !llvm.ptr
// HANG-NEXT: llvm.call @vprintf(%[[FORMAT]], %[[ARGS]]) : (!llvm.ptr, !llvm.ptr) -> i32
// HANG-NEXT: llvm.intr.trap
// HANG-NEXT: llvm.unreachable
// HANG-NEXT: ^[[DONE]]:
// HANG: llvm.mlir.addressof @__fmha_hang_report_1 : !llvm.ptr
// HANG: llvm.intr.trap
// HANG-NOT: ws.
// HANG: llvm.return
module attributes {gpu.container_module} {
  gpu.module @hang {
    gpu.func @k() kernel attributes {ws.num_threads = 256 : i64, ws.smem_bytes = 32 : i64} {
      %full = ws.mbarrier_alloc arrivals 1 offset 0 : !ws.mbarrier<2>
      %empty = ws.mbarrier_alloc arrivals 128 offset 16 : !ws.mbarrier<2>
      ws.warp_specialize {
        ws.role "producer" warps 1 first_warp 0 {
          %c0 = arith.constant 0 : i32
          %c1 = arith.constant 1 : i32
          ws.mbarrier_wait %empty[%c0], %c1 {ws.channel = 0 : i32, ws.ring = "empty"} : !ws.mbarrier<2>
          ws.mbarrier_arrive %full[%c0] leader : !ws.mbarrier<2>
        }
        ws.role "con%sumer" warps 4 first_warp 4 {
          %c0 = arith.constant 0 : i32
          ws.mbarrier_wait %full[%c0], %c0 : !ws.mbarrier<2>
          ws.mbarrier_arrive %empty[%c0] : !ws.mbarrier<2>
        }
      }
      gpu.return
    }
  }
}
