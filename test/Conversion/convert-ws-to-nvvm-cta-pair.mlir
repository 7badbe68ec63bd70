// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-lower-roles=verify-phases=false --ws-lower-cta-pairs \
// RUN:   --convert-scf-to-cf --convert-ws-to-nvvm | FileCheck %s

// Units of the lowering on IR that is not a whole protocol: the rings are
// not model-checked first (verify-phases=false; the default check is tested
// in test/Transforms/ws-lower-roles.mlir).

// 2-CTA mode (`ws.cta_pair` on the kernel) in ws-lower-roles,
// ws-lower-cta-pairs (test/Transforms/ws-lower-cta-pairs.mlir) and
// convert-ws-to-nvvm: a cluster of two CTAs (nvvm.cluster_dim); tensor memory
// is allocated, given up and freed with cta_group::2; after the barriers are
// initialised the cluster meets. The MMA role (it issues `ws.tcgen05_mma
// {cta_pair}`) runs in the even CTA only and issues cta_group::2 MMAs of M =
// 256 (the instruction descriptor 0x10400490: M >> 4 = 16 at bit 24, N >> 3 =
// 32 at bit 17); its commits reach the barrier in both CTAs (mask 0b11).
// Barriers that threads and TMA arrive on live in the even CTA and expect both
// CTAs' arrivals (2 x 1, 2 x 128): loads complete there (cta_group::2, the
// buffer as this CTA's shared::cluster address), threads arrive there with
// cluster scope. At the end the cluster meets before the columns are freed.
// CHECK-LABEL: llvm.func @k(
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK: nvvm.tcgen05.alloc %{{.*}}, %{{.*}} {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i32
// CHECK: nvvm.tcgen05.relinquish_alloc_permit {group = #nvvm.cta_group<cta_2>}
// CHECK: %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %[[TWO]], predicate
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %[[ONE]], predicate
// CHECK: %[[BOTH:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %[[BOTH]], predicate
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.barrier
// CHECK-NEXT: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// Load role.
// CHECK: nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: %[[DST:.*]] = nvvm.mapa %{{.*}}, %[[RANK]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[DST]], %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<7>, !llvm.ptr
// CHECK: %[[E:.*]] = nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[E]], %{{.*}} {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>, i32
// MMA role: the even CTA's only.
// CHECK: %[[RANK2:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: llvm.icmp "eq" %[[RANK2]], %{{.*}} : i32
// CHECK: %[[IDESC:.*]] = llvm.mlir.constant(272630928 : i32) : i32
// CHECK-COUNT-4: nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %[[IDESC]], %{{.*}} {ctaGroup = #nvvm.cta_group<cta_2>, kind = #nvvm.tcgen05_mma_kind<f16>}
// CHECK: %[[MASK:.*]] = llvm.mlir.constant(3 : i16) : i16
// CHECK: nvvm.tcgen05.commit %{{.*}}, multicast_mask = %[[MASK]] {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i16
// Epilogue role: arrives on the even CTA's barrier.
// CHECK: %[[EMPTY:.*]] = nvvm.mapa %{{.*}}, %{{.*}} : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK: nvvm.mbarrier.arrive %[[EMPTY]] {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
// The end.
// CHECK: nvvm.tcgen05.fence <before>
// CHECK-NEXT: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK-NEXT: nvvm.tcgen05.fence <after>
// CHECK: nvvm.tcgen05.dealloc %{{.*}}, %{{.*}} {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<6>, i32
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#tmem = #tile.tmem<block = [128, 256], unpacked = true>
#regs = #tile.tmem_32x32b<warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%desc: !tile.desc<tensor<128x64xbf16, #smem>>, %stage: i32, %acc: i1) kernel
        attributes {ws.cta_pair, ws.num_threads = 256 : i64, ws.smem_bytes = 82976 : i64} {
      %slot = ws.buffer_alloc offset 0 : memref<1xi32, 3>
      %t = ws.tmem_alloc columns 512 in %slot : memref<1xi32, 3>
      ws.tmem_relinquish
      %abuf = ws.buffer_alloc offset 1024 : memref<128x64xbf16, 3>
      %bbuf = ws.buffer_alloc offset 17408 : memref<128x64xbf16, 3>
      %full = ws.mbarrier_alloc arrivals 1 offset 82944 : !ws.mbarrier<1>
      %done = ws.mbarrier_alloc arrivals 1 offset 82952 : !ws.mbarrier<1>
      %empty = ws.mbarrier_alloc arrivals 128 offset 82960 : !ws.mbarrier<1>
      %ring = ws.tmem_buffer base %t column 0 : memref<2x128x256xf32, #ws.tmem>
      %c0 = arith.constant 0 : i32
      ws.warp_specialize {
        ws.role "load" warps 1 first_warp 0 {
          ws.tma_load_mbarrier %desc[%c0, %c0], %abuf, %full[%c0] : !tile.desc<tensor<128x64xbf16, #smem>>, memref<128x64xbf16, 3>, !ws.mbarrier<1>
          ws.mbarrier_arrive %full[%c0] leader tx_bytes 16384 : !ws.mbarrier<1>
        }
        ws.role "mma" warps 1 first_warp 1 {
          ws.mbarrier_wait %full[%c0], %c0 : !ws.mbarrier<1>
          %d = ws.slot %ring[%stage] : memref<2x128x256xf32, #ws.tmem> -> memref<128x256xf32, #ws.tmem>
          %a = ws.as_tensor %abuf : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #smem>
          %b = ws.as_tensor %bbuf : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #smem>
          ws.tcgen05_mma %a, %b, %d, %acc {cta_pair, transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, memref<128x256xf32, #ws.tmem>
          ws.mbarrier_arrive %done[%c0] leader tcgen05 : !ws.mbarrier<1>
        }
        ws.role "epilogue" warps 4 first_warp 4 {
          ws.mbarrier_wait %done[%c0], %c0 : !ws.mbarrier<1>
          ws.mbarrier_arrive %empty[%c0] : !ws.mbarrier<1>
        }
      }
      ws.tmem_dealloc %t columns 512 : i32
      gpu.return
    }
  }
}

