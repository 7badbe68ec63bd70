// RUN: fmha-opt %s -split-input-file -verify-diagnostics --convert-ws-to-nvvm | FileCheck %s

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
// CHECK: nvvm.setmaxregister  decrease 232
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[DESC]], %{{.*}}, box[%[[COL]], %[[ROW]]] {isCTAOnly = true}
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
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
