// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-lower-roles=verify-phases=false --ws-lower-cta-pairs \
// RUN:   --convert-scf-to-cf --convert-ws-to-nvvm | FileCheck %s

// Units of the lowering on IR that is not a whole protocol: the rings are
// not model-checked first (verify-phases=false; the default check is tested
// in test/Transforms/ws-lower-roles.mlir).

// TMA multicast (`ws.multicast` on the kernel) in ws-lower-roles and
// convert-ws-to-nvvm: a cluster of two CTAs (nvvm.cluster_dim) that run the
// same roles with cta_group::1 tensor memory and MMAs. After the barriers are
// initialised the cluster meets (each CTA's copies and commits reach the
// other's barriers). A copy marked multicast loads this CTA's half of the block
// (cluster rank r) into the same offset of both CTAs (mask 0b11), completing
// the barrier at that offset in both: a block whose row is one TMA box by rows
// (64 of 128 rows: row coordinate + 64 r, 8192 r bytes in), a block whose rows
// are two 128-byte boxes by boxes (box r: column coordinate + 64 r, 8192 r
// bytes in). A multicast commit reaches the barrier in both CTAs (cta_group::1,
// mask 0b11); the others stay local. After the roles the cluster meets again
// before tensor memory is freed and the CTAs exit.
// CHECK-LABEL: llvm.func @k(
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK: nvvm.tcgen05.alloc %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// CHECK: %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %[[TWO]], predicate
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.barrier
// CHECK-NEXT: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// Load role: A is this CTA's own.
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] {isCTAOnly = true} : !llvm.ptr<3>, !llvm.ptr
// B as [N, K]: half of the rows.
// CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: %[[MASK:.*]] = llvm.mlir.constant(3 : i16) : i16
// CHECK: %[[C64:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK: %[[ROWS:.*]] = llvm.mul %[[RANK]], %[[C64]] : i32
// CHECK: %[[ROW:.*]] = llvm.add %{{.*}}, %[[ROWS]] : i32
// CHECK: %[[C8K:.*]] = llvm.mlir.constant(8192 : i32) : i32
// CHECK: %[[BYTES:.*]] = llvm.mul %[[RANK]], %[[C8K]] : i32
// CHECK: %[[HALF:.*]] = llvm.getelementptr %{{.*}}[%[[BYTES]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK: %[[DST:.*]] = nvvm.mapa %[[HALF]], %[[RANK]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[DST]], %{{.*}}, %{{.*}}, box[%{{.*}}, %[[ROW]]] multicast_mask = %[[MASK]] : !llvm.ptr<7>, !llvm.ptr
// B as [K, N]: one of its two boxes.
// CHECK: %[[RANK2:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: %[[MASK2:.*]] = llvm.mlir.constant(3 : i16) : i16
// CHECK: %[[BOX:.*]] = llvm.add %{{.*}}, %{{.*}} : i32
// CHECK: %[[COLS:.*]] = llvm.mul %[[BOX]], %{{.*}} : i32
// CHECK: %[[COL:.*]] = llvm.add %{{.*}}, %[[COLS]] : i32
// CHECK: %[[BOXBYTES:.*]] = llvm.mul %[[BOX]], %{{.*}} : i32
// CHECK: %[[HALF2:.*]] = llvm.getelementptr %{{.*}}[%[[BOXBYTES]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
// CHECK: %[[DST2:.*]] = nvvm.mapa %[[HALF2]], %[[RANK2]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[DST2]], %{{.*}}, %{{.*}}, box[%[[COL]], %{{.*}}] multicast_mask = %[[MASK2]] : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// MMA role: in both CTAs, cta_group::1.
// CHECK: nvvm.tcgen05.mma %{{.*}} {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>}
// CHECK: %[[BOTH:.*]] = llvm.mlir.constant(3 : i16) : i16
// CHECK: nvvm.tcgen05.commit %{{.*}}, multicast_mask = %[[BOTH]] : !llvm.ptr<3>, i16
// CHECK: nvvm.tcgen05.commit %{{.*}} : !llvm.ptr<3>
// Epilogue role: a local arrival.
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// The end.
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK-NEXT: nvvm.tcgen05.fence <before>
// CHECK-NEXT: nvvm.barrier
// CHECK-NEXT: nvvm.tcgen05.fence <after>
// CHECK: nvvm.tcgen05.dealloc %{{.*}}, %{{.*}} : !llvm.ptr<6>, i32
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#tmem = #tile.tmem<block = [128, 128], unpacked = true>
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%a: !tile.desc<tensor<128x64xbf16, #smem>>, %b: !tile.desc<tensor<128x64xbf16, #smem>>,
                %bn: !tile.desc<tensor<64x128xbf16, #smem>>, %stage: i32, %acc: i1) kernel
        attributes {ws.multicast, ws.num_threads = 256 : i64, ws.smem_bytes = 50216 : i64} {
      %slot = ws.buffer_alloc offset 0 : memref<1xi32, 3>
      %t = ws.tmem_alloc columns 256 in %slot : memref<1xi32, 3>
      ws.tmem_relinquish
      %abuf = ws.buffer_alloc offset 1024 : memref<128x64xbf16, 3>
      %bbuf = ws.buffer_alloc offset 17408 : memref<128x64xbf16, 3>
      %nbuf = ws.buffer_alloc offset 33792 : memref<64x128xbf16, 3>
      %full = ws.mbarrier_alloc arrivals 1 offset 50176 : !ws.mbarrier<1>
      %empty = ws.mbarrier_alloc arrivals 2 offset 50184 : !ws.mbarrier<1>
      %done = ws.mbarrier_alloc arrivals 1 offset 50192 : !ws.mbarrier<1>
      %free = ws.mbarrier_alloc arrivals 128 offset 50200 : !ws.mbarrier<1>
      %ring = ws.tmem_buffer base %t column 0 : memref<2x128x128xf32, #ws.tmem>
      %c0 = arith.constant 0 : i32
      ws.warp_specialize {
        ws.role "load" warps 1 first_warp 0 {
          ws.mbarrier_wait %empty[%c0], %c0 : !ws.mbarrier<1>
          ws.tma_load_mbarrier %a[%c0, %c0], %abuf, %full[%c0] : !tile.desc<tensor<128x64xbf16, #smem>>, memref<128x64xbf16, 3>, !ws.mbarrier<1>
          ws.tma_load_mbarrier %b[%c0, %c0], %bbuf, %full[%c0] multicast : !tile.desc<tensor<128x64xbf16, #smem>>, memref<128x64xbf16, 3>, !ws.mbarrier<1>
          ws.tma_load_mbarrier %bn[%c0, %c0], %nbuf, %full[%c0] multicast : !tile.desc<tensor<64x128xbf16, #smem>>, memref<64x128xbf16, 3>, !ws.mbarrier<1>
          ws.mbarrier_arrive %full[%c0] leader tx_bytes 49152 : !ws.mbarrier<1>
        }
        ws.role "mma" warps 1 first_warp 1 {
          ws.mbarrier_wait %full[%c0], %c0 : !ws.mbarrier<1>
          %d = ws.slot %ring[%stage] : memref<2x128x128xf32, #ws.tmem> -> memref<128x128xf32, #ws.tmem>
          %x = ws.as_tensor %abuf : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #smem>
          %y = ws.as_tensor %bbuf : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #smem>
          ws.tcgen05_mma %x, %y, %d, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, memref<128x128xf32, #ws.tmem>
          ws.mbarrier_arrive %empty[%c0] leader tcgen05 multicast : !ws.mbarrier<1>
          ws.mbarrier_arrive %done[%c0] leader tcgen05 : !ws.mbarrier<1>
        }
        ws.role "epilogue" warps 4 first_warp 4 {
          ws.mbarrier_wait %done[%c0], %c0 : !ws.mbarrier<1>
          ws.mbarrier_arrive %free[%c0] : !ws.mbarrier<1>
        }
      }
      ws.tmem_dealloc %t columns 256 : i32
      gpu.return
    }
  }
}

// -----

// sm_90a TMA multicast: consumers release a slot after wgmma by one
// arrival per warp in each CTA. The first lane of each warp (thread id
// mod 32 = 0) arrives on this CTA's empty barrier and, through `mapa` to
// the peer (cluster rank xor 1), on the peer's; both with the default
// semantics (release at CTA scope).
// CHECK-LABEL: llvm.func @wgmma_release(
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: %[[C31:.*]] = llvm.mlir.constant(31 : i32) : i32
// CHECK-NEXT: %[[LANE:.*]] = llvm.and %{{.*}}, %[[C31]] : i32
// CHECK: %[[FIRST:.*]] = llvm.icmp "eq" %[[LANE]], %{{.*}} : i32
// CHECK: llvm.cond_br %[[FIRST]]
// CHECK: nvvm.mbarrier.arrive %[[BAR:.*]] : !llvm.ptr<3>
// CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: %[[PEER:.*]] = llvm.xor %[[RANK]], %[[ONE]] : i32
// CHECK: %[[REMOTE:.*]] = nvvm.mapa %[[BAR]], %[[PEER]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %[[REMOTE]] : !llvm.ptr<7>
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @wgmma_release(%stage: i32) kernel
        attributes {ws.multicast, ws.num_threads = 128 : i64, ws.smem_bytes = 16 : i64} {
      %empty = ws.mbarrier_alloc arrivals 8 offset 0 : !ws.mbarrier<2>
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 0 {
          nvvm.wgmma.wait.group.sync.aligned 0
          ws.mbarrier_arrive %empty[%stage] multicast : !ws.mbarrier<2>
        }
      }
      gpu.return
    }
  }
}
