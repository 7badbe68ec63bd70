// RUN: fmha-opt %s -split-input-file -verify-diagnostics --convert-ws-to-nvvm | FileCheck %s

// The sm100 ops of convert-ws-to-nvvm on a kernel as ws-allocate-tmem,
// ws-allocate-smem and ws-allocate-registers leave it: warp 0 allocates the
// TMEM columns into shared memory and gives up the permit; every thread
// reads the address after a fenced barrier. A tensor-memory buffer is the
// address plus its column, a slot of a ring adds the stage times the
// stride. The MMA warp's leader issues the K steps of tcgen05.mma (the
// first with the op's accumulate flag) and commits to the barrier; the
// epilogue reads its row of the accumulator with tcgen05.ld 32x32b (lanes
// of its warp's quarter: (warp % 4) << 21) and stores it into shared
// memory. At the end every thread meets and warp 0 frees the columns.
// CHECK-LABEL: llvm.func @k(
// CHECK: llvm.cond_br %{{.*}}, ^[[ALLOC:.*]], ^[[AFTER:.*]]
// CHECK: ^[[ALLOC]]:
// CHECK: nvvm.tcgen05.alloc %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// CHECK: ^[[AFTER]]:
// CHECK: nvvm.tcgen05.fence <before>
// CHECK-NEXT: nvvm.barrier
// CHECK-NEXT: nvvm.tcgen05.fence <after>
// CHECK-NEXT: %[[TMEM:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK: nvvm.tcgen05.relinquish_alloc_permit
// CHECK: %[[COL:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT: %[[RING:.*]] = llvm.add %[[TMEM]], %[[COL]] : i32
// CHECK: %[[OFF:.*]] = llvm.mul %arg0, %{{.*}} : i32
// CHECK-NEXT: %[[SLOT:.*]] = llvm.add %[[RING]], %[[OFF]] : i32
// CHECK: %[[IDESC:.*]] = llvm.mlir.constant(136316048 : i32) : i32
// CHECK-NEXT: %[[D:.*]] = llvm.inttoptr %[[SLOT]] : i32 to !llvm.ptr<6>
// CHECK: nvvm.tcgen05.fence <after>
// CHECK: nvvm.tcgen05.mma %[[D]], %{{.*}}, %{{.*}}, %[[IDESC]], %arg1 {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>}
// CHECK-COUNT-3: nvvm.tcgen05.mma %[[D]], %{{.*}}, %{{.*}}, %[[IDESC]], %{{.*}} {
// CHECK: nvvm.tcgen05.commit %{{.*}} : !llvm.ptr<3>
// CHECK: nvvm.tcgen05.fence <after>
// CHECK-COUNT-4: nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
// CHECK: nvvm.tcgen05.wait <load>
// CHECK: nvvm.tcgen05.fence <before>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: nvvm.tcgen05.fence <before>
// CHECK-NEXT: nvvm.barrier
// CHECK-NEXT: nvvm.tcgen05.fence <after>
// CHECK: nvvm.tcgen05.dealloc %{{.*}}, %{{.*}} : !llvm.ptr<6>, i32
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#tmem = #tile.tmem<block = [128, 128], unpacked = true>
#regs = #tile.tmem_32x32b<warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%stage: i32, %acc: i1) kernel
        attributes {ws.num_threads = 256 : i64, ws.smem_bytes = 82952 : i64} {
      %slot = ws.buffer_alloc offset 0 : memref<1xi32, 3>
      %t = ws.tmem_alloc columns 512 in %slot : memref<1xi32, 3>
      ws.tmem_relinquish
      %abuf = ws.buffer_alloc offset 1024 : memref<128x64xbf16, 3>
      %bbuf = ws.buffer_alloc offset 17408 : memref<128x64xbf16, 3>
      %out = ws.buffer_alloc offset 33792 : memref<128x128xf32, 3>
      %bar = ws.mbarrier_alloc arrivals 1 offset 82944 : !ws.mbarrier<1>
      %ring = ws.tmem_buffer base %t column 128 : memref<2x128x128xf32, #ws.tmem>
      %c0 = arith.constant 0 : i32
      ws.warp_specialize {
        ws.role "mma" warps 1 first_warp 0 {
          %d = ws.slot %ring[%stage] : memref<2x128x128xf32, #ws.tmem> -> memref<128x128xf32, #ws.tmem>
          %a = ws.as_tensor %abuf : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #smem>
          %b = ws.as_tensor %bbuf : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #smem>
          ws.tcgen05_mma %a, %b, %d, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, memref<128x128xf32, #ws.tmem>
          ws.mbarrier_arrive %bar[%c0] leader tcgen05 : !ws.mbarrier<1>
        }
        ws.role "epilogue" warps 4 first_warp 4 {
          %d = ws.slot %ring[%stage] : memref<2x128x128xf32, #ws.tmem> -> memref<128x128xf32, #ws.tmem>
          %x = ws.as_tensor %d : memref<128x128xf32, #ws.tmem> -> tensor<128x128xf32, #tmem>
          %r = tile.convert_layout %x : tensor<128x128xf32, #tmem> -> tensor<128x128xf32, #regs>
          ws.store_shared %r, %out : tensor<128x128xf32, #regs>, memref<128x128xf32, 3>
        }
      }
      ws.tmem_dealloc %t columns 512 : i32
      gpu.return
    }
  }
}

// -----

// Before ws-allocate-tmem a tensor-memory buffer has no address.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k() kernel {
      // expected-error @+1 {{failed to legalize operation 'ws.tmem_buffer' that was explicitly marked illegal}}
      %ring = ws.tmem_buffer : memref<2x128x128xf32, #ws.tmem>
      gpu.return
    }
  }
}
