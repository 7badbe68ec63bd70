// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-lower-roles --ws-lower-cta-pairs \
// RUN:   --convert-scf-to-cf --convert-ws-to-nvvm | FileCheck %s

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

// Softmax pieces on 32x32b rows: a row reduction combines the thread's own
// values (no shuffles), a broadcast copies its one value, iota gives columns
// (axis 1) or the row (%tid.x % 128, axis 0); ws.store_tmem packs bf16 pairs
// into 32-bit columns and stores them (tcgen05.st 32x32b, 64 columns in two
// chunks of 32) into its warp's lanes, then waits and fences.
// CHECK-LABEL: llvm.func @softmax(
// CHECK: llvm.intr.maximum
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.urem %{{.*}}, %{{.*}} : i32
// CHECK: llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: %[[Q:.*]] = llvm.shl %{{.*}}, %{{.*}} : i32
// CHECK: %[[ROW:.*]] = llvm.add %{{.*}}, %[[Q]] : i32
// CHECK-COUNT-2: nvvm.tcgen05.st %{{.*}}, %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
// CHECK: nvvm.tcgen05.wait <store>
// CHECK-NEXT: nvvm.tcgen05.fence <before>
#regs = #tile.tmem_32x32b<warpgroups = 1>
#row = #tile.slice<dim = 1, parent = #regs>
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @softmax(%v: f32, %t: i32) kernel {
      %p = ws.tmem_buffer base %t column 0 : memref<128x128xbf16, #ws.tmem>
      %s = tensor.splat %v : tensor<128x128xf32, #regs>
      %m = tile.reduce max %s axis 1 : tensor<128x128xf32, #regs> -> tensor<128xf32, #row>
      %mb = tile.broadcast %m axis 1 : tensor<128xf32, #row> -> tensor<128x128xf32, #regs>
      %ci = tile.iota axis 1 : tensor<128x128xi32, #regs>
      %ri = tile.iota axis 0 : tensor<128x128xi32, #regs>
      %vis = arith.cmpi sge, %ri, %ci : tensor<128x128xi32, #regs>
      %x = arith.select %vis, %mb, %s : tensor<128x128xi1, #regs>, tensor<128x128xf32, #regs>
      %b = arith.truncf %x : tensor<128x128xf32, #regs> to tensor<128x128xbf16, #regs>
      ws.store_tmem %b, %p : tensor<128x128xbf16, #regs>, memref<128x128xbf16, #ws.tmem>
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

// -----

// A chunk of a row store (ws-chunk-row-stores streams epilogues 32 columns
// at a time): a view of tensor memory that keeps every lane is the
// buffer's address plus its first column; a view of a shared-memory
// staging buffer is a descriptor with the view's offset (32 elements) and
// row stride (128), and the thread's row starts at row * 128 + 32.
// CHECK-LABEL: llvm.func @chunk(
// CHECK: %[[C32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT: %[[ADDR:.*]] = llvm.add %{{.*}}, %[[C32]] : i32
// CHECK: %[[LANES:.*]] = llvm.shl
// CHECK-NEXT: llvm.add %[[ADDR]], %[[LANES]] : i32
// CHECK: nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
// CHECK: nvvm.tcgen05.wait <load>
// CHECK: llvm.mlir.constant(32 : index) : i64
// CHECK: %[[ROW:.*]] = llvm.urem
// CHECK-NEXT: %[[STRIDE:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT: %[[R:.*]] = llvm.mul %[[ROW]], %[[STRIDE]] : i32
// CHECK-NEXT: %[[OFF:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT: %[[START:.*]] = llvm.add %[[R]], %[[OFF]] : i32
// CHECK-NEXT: llvm.getelementptr %{{.*}}[%[[START]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK-COUNT-8: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
#tmem = #tile.tmem<block = [128, 32], unpacked = true>
#regs = #tile.tmem_32x32b<warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @chunk(%t: i32) kernel attributes {ws.smem_bytes = 65536 : i64} {
      %acc = ws.tmem_buffer base %t column 0 : memref<128x128xf32, #ws.tmem>
      %out = ws.buffer_alloc offset 0 : memref<128x128xf32, 3>
      %v = memref.subview %acc[0, 32] [128, 32] [1, 1] : memref<128x128xf32, #ws.tmem> to memref<128x32xf32, strided<[128, 1], offset: 32>, #ws.tmem>
      %x = ws.as_tensor %v : memref<128x32xf32, strided<[128, 1], offset: 32>, #ws.tmem> -> tensor<128x32xf32, #tmem>
      %r = tile.convert_layout %x : tensor<128x32xf32, #tmem> -> tensor<128x32xf32, #regs>
      %s = memref.subview %out[0, 32] [128, 32] [1, 1] : memref<128x128xf32, 3> to memref<128x32xf32, strided<[128, 1], offset: 32>, 3>
      ws.store_shared %r, %s : tensor<128x32xf32, #regs>, memref<128x32xf32, strided<[128, 1], offset: 32>, 3>
      gpu.return
    }
  }
}

// -----

// A row vector read from shared memory (the correction's rescale factor):
// thread t loads element t % 128.
// CHECK-LABEL: llvm.func @row(
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[ROW:.*]] = llvm.urem %[[TID]], %{{.*}} : i32
// CHECK: %[[ADDR:.*]] = llvm.getelementptr %{{.*}}[%[[ROW]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
// CHECK: llvm.load %[[ADDR]] : !llvm.ptr<3> -> f32
#regs = #tile.tmem_32x32b<warpgroups = 1>
#row = #tile.slice<dim = 1, parent = #regs>
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @row(%out: memref<128xf32, 3>) kernel attributes {ws.smem_bytes = 1024 : i64} {
      %buf = ws.buffer_alloc offset 0 : memref<128xf32, 3>
      %r = ws.load_shared %buf : memref<128xf32, 3> -> tensor<128xf32, #row>
      ws.store_shared %r, %buf : tensor<128xf32, #row>, memref<128xf32, 3>
      gpu.return
    }
  }
}

// -----

// A view of shared memory needs a static layout.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @dynamic(%c: index) kernel attributes {ws.smem_bytes = 65536 : i64} {
      %out = ws.buffer_alloc offset 0 : memref<128x128xf32, 3>
      // expected-error @+1 {{'memref.subview' op views a shared-memory buffer with static offsets, sizes and strides only}}
      %s = memref.subview %out[0, %c] [128, 32] [1, 1] : memref<128x128xf32, 3> to memref<128x32xf32, strided<[128, 1], offset: ?>, 3>
      gpu.return
    }
  }
}
