// RUN: fmha-opt %s -split-input-file --ws-lower-roles --ws-lower-cta-pairs | FileCheck %s

// A CTA pair (`ws.cta_pair`) built at the ws level: no example kernel is one.
// Its two epilogue warpgroups are replica roles. ws-lower-roles model-checks
// the rings with the arrival counts of one CTA, then merges the epilogues
// into one copy of code that arrives on a select of their empty barriers.
// ws-lower-cta-pairs then doubles the counts of the barriers that threads
// and TMA copies arrive on (full: 2 x 1; empty0 and empty1, found through
// the select: 2 x 128), keeps that of the barrier tcgen05 commits arrive on
// (done: 1), marks the copy, the arrivals and the tensor-memory ops
// `ws.cta_pair` for convert-ws-to-nvvm, and takes the kernel's `ws.cta_pair`
// away.
// CHECK-LABEL: gpu.module @pair
// CHECK: gpu.func @k(
// CHECK-SAME: kernel attributes {nvvm.cluster_dim = array<i32: 2, 1, 1>, nvvm.maxntid = array<i32: 384, 1, 1>, ws.num_threads = 384 : i64, ws.smem_bytes = 17440 : i64}
// CHECK: ws.tmem_alloc columns 512 in %{{.*}} {ws.cta_pair}
// CHECK: ws.tmem_relinquish {ws.cta_pair}
// CHECK: %[[FULL:.*]] = ws.mbarrier_alloc arrivals 2 offset 17408
// CHECK: %[[DONE:.*]] = ws.mbarrier_alloc arrivals 1 offset 17416
// CHECK: %[[EMPTY0:.*]] = ws.mbarrier_alloc arrivals 256 offset 17424
// CHECK: %[[EMPTY1:.*]] = ws.mbarrier_alloc arrivals 256 offset 17432
// Load role.
// CHECK: ws.tma_load_mbarrier {{.*}}, %[[FULL]][%{{.*}}] {ws.cta_pair, ws.leader_guarded}
// CHECK: ws.mbarrier_arrive %[[FULL]][%{{.*}}] leader tx_bytes 16384 {ws.cta_pair, ws.leader_guarded}
// MMA role.
// CHECK: ws.tcgen05_mma
// CHECK: ws.mbarrier_arrive %[[DONE]][%{{.*}}] leader tcgen05 {ws.cta_pair, ws.leader_guarded}
// The epilogues, one copy.
// CHECK: %[[EMPTY:.*]] = arith.select %{{.*}}, %[[EMPTY1]], %[[EMPTY0]] : !ws.mbarrier<1>
// CHECK: ws.mbarrier_arrive %[[EMPTY]][%{{.*}}] {ws.cta_pair}
// CHECK-NOT: ws.role
// CHECK: ws.tmem_dealloc %{{.*}} columns 512 {ws.cta_pair}
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
module attributes {gpu.container_module} {
  gpu.module @pair {
    gpu.func @k(%desc: !tile.desc<tensor<128x64xbf16, #smem>>, %acc: i1) kernel
        attributes {ws.cta_pair, ws.num_threads = 384 : i64, ws.smem_bytes = 17440 : i64} {
      %slot = ws.buffer_alloc offset 0 : memref<1xi32, 3>
      %t = ws.tmem_alloc columns 512 in %slot : memref<1xi32, 3>
      ws.tmem_relinquish
      %abuf = ws.buffer_alloc offset 1024 : memref<128x64xbf16, 3>
      %full = ws.mbarrier_alloc arrivals 1 offset 17408 : !ws.mbarrier<1>
      %done = ws.mbarrier_alloc arrivals 1 offset 17416 : !ws.mbarrier<1>
      %empty0 = ws.mbarrier_alloc arrivals 128 offset 17424 : !ws.mbarrier<1>
      %empty1 = ws.mbarrier_alloc arrivals 128 offset 17432 : !ws.mbarrier<1>
      %ring = ws.tmem_buffer base %t column 0 : memref<2x128x256xf32, #ws.tmem>
      %c0 = arith.constant 0 : i32
      ws.warp_specialize {
        ws.role "load" warps 1 first_warp 0 {
          ws.tma_load_mbarrier %desc[%c0, %c0], %abuf, %full[%c0] : !tile.desc<tensor<128x64xbf16, #smem>>, memref<128x64xbf16, 3>, !ws.mbarrier<1>
          ws.mbarrier_arrive %full[%c0] leader tx_bytes 16384 : !ws.mbarrier<1>
        }
        ws.role "mma" warps 1 first_warp 1 {
          ws.mbarrier_wait %full[%c0], %c0 : !ws.mbarrier<1>
          %d = ws.slot %ring[%c0] : memref<2x128x256xf32, #ws.tmem> -> memref<128x256xf32, #ws.tmem>
          %a = ws.as_tensor %abuf : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #smem>
          ws.tcgen05_mma %a, %a, %d, %acc {cta_pair, transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, memref<128x256xf32, #ws.tmem>
          ws.mbarrier_arrive %done[%c0] leader tcgen05 : !ws.mbarrier<1>
        }
        ws.role "epilogue0" warps 4 first_warp 4 {
          ws.mbarrier_wait %done[%c0], %c0 : !ws.mbarrier<1>
          ws.mbarrier_arrive %empty0[%c0] : !ws.mbarrier<1>
        }
        ws.role "epilogue1" warps 4 first_warp 8 {
          ws.mbarrier_wait %done[%c0], %c0 : !ws.mbarrier<1>
          ws.mbarrier_arrive %empty1[%c0] : !ws.mbarrier<1>
        }
      }
      ws.tmem_dealloc %t columns 512 : i32
      gpu.return
    }
  }
}

// -----

// A kernel that is not a CTA pair keeps its counts and gets no marks.
// CHECK-LABEL: gpu.module @single
// CHECK: ws.mbarrier_alloc arrivals 1 offset 0
// CHECK-NOT: ws.cta_pair
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @single {
    gpu.func @k() kernel attributes {ws.num_threads = 32 : i64} {
      %bar = ws.mbarrier_alloc arrivals 1 offset 0 : !ws.mbarrier<1>
      %c0 = arith.constant 0 : i32
      ws.warp_specialize {
        ws.role "r" warps 1 first_warp 0 {
          ws.mbarrier_arrive %bar[%c0] leader : !ws.mbarrier<1>
          ws.mbarrier_wait %bar[%c0], %c0 : !ws.mbarrier<1>
        }
      }
      gpu.return
    }
  }
}
