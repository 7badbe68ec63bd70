// RUN: fmha-opt %s -split-input-file --ws-chunk-row-stores | FileCheck %s
// What it makes still passes the protocol check:
// RUN: fmha-opt %s -split-input-file --ws-chunk-row-stores --ws-verify-protocol -o /dev/null

// A GEMM epilogue as ws-partition-roles builds it on sm_100a: the whole
// accumulator row loaded (tcgen05.ld), the slot released, the row converted
// and staged. It becomes four chunks of 32 columns (a view of the slot, a
// load, the conversion, a view of the staging buffer, a store), and the
// release moves after the last chunk's load.
// CHECK-DAG: #[[CHUNK:[a-z0-9_]+]] = #tile.tmem<block = [128, 32], unpacked = true>
// CHECK-DAG: #[[REGS:[a-z0-9_]+]] = #tile.tmem_32x32b<warpgroups = 1>
// CHECK-LABEL: gpu.func @epilogue(
// CHECK: %[[ACCS:.*]] = ws.channel
// CHECK: %[[STAGE:.*]] = ws.buffer_alloc
// CHECK: %[[TOK:.*]], %[[BUF:.*]] = ws.consumer_wait %[[ACCS]]
// CHECK-NOT: ws.consumer_release
// CHECK: ws.barrier_sync 1 threads 128
// CHECK: %[[V0:.*]] = memref.subview %[[BUF]][0, 0] [128, 32] [1, 1] : memref<128x128xf32, #ws.tmem> to memref<128x32xf32, strided<[128, 1]>, #ws.tmem>
// CHECK: %[[T0:.*]] = ws.as_tensor %[[V0]] : memref<128x32xf32, strided<[128, 1]>, #ws.tmem> -> tensor<128x32xf32, #[[CHUNK]]>
// CHECK: %[[R0:.*]] = tile.convert_layout %[[T0]] : tensor<128x32xf32, #[[CHUNK]]> -> tensor<128x32xf32, #[[REGS]]>
// CHECK: %[[B0:.*]] = arith.truncf %[[R0]] : tensor<128x32xf32, #[[REGS]]> to tensor<128x32xbf16, #[[REGS]]>
// CHECK: %[[S0:.*]] = memref.subview %[[STAGE]][0, 0] [128, 32] [1, 1] : memref<128x128xbf16, 3> to memref<128x32xbf16, strided<[128, 1]>, 3>
// CHECK: ws.store_shared %[[B0]], %[[S0]]
// CHECK: memref.subview %[[BUF]][0, 32] [128, 32] [1, 1]
// CHECK: ws.store_shared
// CHECK: memref.subview %[[BUF]][0, 64] [128, 32] [1, 1]
// CHECK: ws.store_shared
// CHECK: %[[V3:.*]] = memref.subview %[[BUF]][0, 96] [128, 32] [1, 1]
// CHECK: %[[T3:.*]] = ws.as_tensor %[[V3]]
// CHECK: tile.convert_layout %[[T3]]
// CHECK-NEXT: ws.consumer_release %[[ACCS]], %[[TOK]] by threads
// CHECK: arith.truncf
// CHECK: memref.subview %[[STAGE]][0, 96] [128, 32] [1, 1]
// CHECK: ws.store_shared
// CHECK-NOT: ws.store_shared
// CHECK-NOT: tensor<128x128xf32, #[[REGS]]>
// CHECK: ws.fence_async_shared
// CHECK: ws.tma_store
#tmem = #tile.tmem<block = [128, 128], unpacked = true>
#regs = #tile.tmem_32x32b<warpgroups = 1>
gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
  gpu.func @epilogue(%c: !tile.desc<tensor<128x128xbf16>>) kernel {
    %accs = ws.channel : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 2>
    %stage = ws.buffer_alloc : memref<128x128xbf16, 3>
    ws.warp_specialize {
      ws.role "mma" warps 1 regs 40 {
        %token, %buffers = ws.producer_acquire %accs : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 2>
        ws.producer_commit %accs, %token by tcgen05 : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 2>
      }
      ws.role "epilogue0" warps 4 regs 232 {
        %m = tile.program_id x : i32
        %n = tile.program_id y : i32
        %token, %buffers = ws.consumer_wait %accs : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 2>
        %acc = ws.as_tensor %buffers : memref<128x128xf32, #ws.tmem> -> tensor<128x128xf32, #tmem>
        %row = tile.convert_layout %acc : tensor<128x128xf32, #tmem> -> tensor<128x128xf32, #regs>
        ws.consumer_release %accs, %token by threads : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 2>
        %t = arith.truncf %row : tensor<128x128xf32, #regs> to tensor<128x128xbf16, #regs>
        ws.tma_store_wait
        ws.barrier_sync 1 threads 128
        ws.store_shared %t, %stage : tensor<128x128xbf16, #regs>, memref<128x128xbf16, 3>
        ws.fence_async_shared
        ws.barrier_sync 1 threads 128
        ws.tma_store %c[%m, %n], %stage : !tile.desc<tensor<128x128xbf16>>, memref<128x128xbf16, 3>
        ws.tma_store_wait
      }
    }
    gpu.return
  }
}

// -----

// Attention's softmax step as ws-partition-roles builds it on sm_100a: S
// read whole, its row maximum, the rescale factor sent, P = exp2(S - max)
// with its row sum, P stored over S's columns in tensor memory. Two passes
// over the chunks: the row maximum (partial maxima combined), then P, its
// row sum (partial sums added) and its store, one chunk loaded once for
// both. S's release follows the last chunk's load; the ws ops that send the
// factor stay between the passes.
// CHECK-LABEL: gpu.func @softmax(
// CHECK: %[[S:.*]] = ws.channel : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 1>
// CHECK: ws.role "softmax0"
// CHECK: scf.for
// CHECK:   %[[PTOK:.*]], %[[PBUF:.*]] = ws.producer_acquire
// CHECK:   %[[STOK:.*]], %[[SBUF:.*]] = ws.consumer_wait %[[S]]
// CHECK-NOT: ws.consumer_release %[[S]]
// CHECK:   memref.subview %[[SBUF]][0, 0] [128, 32] [1, 1]
// CHECK:   %[[M0:.*]] = tile.reduce max %{{.*}} axis 1 : tensor<128x32xf32
// CHECK:   memref.subview %[[SBUF]][0, 32] [128, 32] [1, 1]
// CHECK:   %[[M1:.*]] = tile.reduce max %{{.*}} axis 1 : tensor<128x32xf32
// CHECK:   %[[M01:.*]] = arith.maximumf %[[M0]], %[[M1]]
// CHECK:   memref.subview %[[SBUF]][0, 64] [128, 32] [1, 1]
// CHECK:   tile.reduce max
// CHECK:   arith.maximumf
// CHECK:   memref.subview %[[SBUF]][0, 96] [128, 32] [1, 1]
// CHECK:   tile.reduce max
// CHECK:   %[[MAX:.*]] = arith.maximumf
// CHECK:   %[[NEW:.*]] = arith.maximumf %{{.*}}, %[[MAX]]
// CHECK:   ws.store_shared
// CHECK:   ws.producer_commit
// CHECK:   memref.subview %[[SBUF]][0, 0] [128, 32] [1, 1]
// CHECK:   tile.broadcast %[[NEW]] axis 1 : tensor<128xf32, #{{.*}}> -> tensor<128x32xf32
// CHECK:   %[[L0:.*]] = tile.reduce sum
// CHECK:   %[[P0:.*]] = memref.subview %[[PBUF]][0, 0] [128, 32] [1, 1] : memref<128x128xbf16, #ws.tmem>
// CHECK:   ws.store_tmem %{{.*}}, %[[P0]] : tensor<128x32xbf16, #{{.*}}>
// CHECK:   memref.subview %[[SBUF]][0, 32] [128, 32] [1, 1]
// CHECK:   %[[L1:.*]] = tile.reduce sum
// CHECK:   arith.addf %[[L0]], %[[L1]]
// CHECK:   memref.subview %[[PBUF]][0, 32] [128, 32] [1, 1]
// CHECK:   ws.store_tmem
// CHECK:   memref.subview %[[SBUF]][0, 64] [128, 32] [1, 1]
// CHECK:   ws.store_tmem
// CHECK:   memref.subview %[[SBUF]][0, 96] [128, 32] [1, 1]
// CHECK:   tile.convert_layout
// CHECK-NEXT: ws.consumer_release %[[S]], %[[STOK]] by threads
// CHECK:   tile.reduce sum
// CHECK:   memref.subview %[[PBUF]][0, 96] [128, 32] [1, 1]
// CHECK:   ws.store_tmem
// CHECK-NOT: ws.store_tmem
// CHECK:   ws.producer_commit %{{.*}}, %[[PTOK]] by threads
// CHECK:   scf.yield
#tmem = #tile.tmem<block = [128, 128], unpacked = true>
#regs = #tile.tmem_32x32b<warpgroups = 1>
#slice = #tile.slice<dim = 1, parent = #regs>
gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
  gpu.func @softmax(%n: i32) kernel {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %ninf = arith.constant dense<0xFF800000> : tensor<128xf32, #slice>
    %zero = arith.constant dense<0.0> : tensor<128xf32, #slice>
    %s = ws.channel : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 1>
    %p = ws.channel : !ws.channel<[memref<128x128xbf16, #ws.tmem>], stages = 1>
    %rows = ws.channel : !ws.channel<[memref<128xf32, 3>], stages = 2>
    ws.warp_specialize {
      ws.role "mma" warps 1 regs 40 {
        scf.for %i = %c0 to %n step %c1 : i32 {
          %st, %sb = ws.producer_acquire %s : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 1>
          ws.producer_commit %s, %st by tcgen05 : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 1>
          %pt, %pb = ws.consumer_wait %p : !ws.channel<[memref<128x128xbf16, #ws.tmem>], stages = 1>
          ws.consumer_release %p, %pt by tcgen05 : !ws.channel<[memref<128x128xbf16, #ws.tmem>], stages = 1>
        }
      }
      ws.role "correction" warps 4 regs 88 {
        scf.for %i = %c0 to %n step %c1 : i32 {
          %rt, %rb = ws.consumer_wait %rows : !ws.channel<[memref<128xf32, 3>], stages = 2>
          ws.consumer_release %rows, %rt by threads : !ws.channel<[memref<128xf32, 3>], stages = 2>
        }
      }
      ws.role "softmax0" warps 4 regs 176 {
        %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%m = %ninf, %l = %zero)
            -> (tensor<128xf32, #slice>, tensor<128xf32, #slice>) : i32 {
          %pt, %pb = ws.producer_acquire %p : !ws.channel<[memref<128x128xbf16, #ws.tmem>], stages = 1>
          %st, %sb = ws.consumer_wait %s : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 1>
          %sa = ws.as_tensor %sb : memref<128x128xf32, #ws.tmem> -> tensor<128x128xf32, #tmem>
          %sr = tile.convert_layout %sa : tensor<128x128xf32, #tmem> -> tensor<128x128xf32, #regs>
          ws.consumer_release %s, %st by threads : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 1>
          %mx = tile.reduce max %sr axis 1 : tensor<128x128xf32, #regs> -> tensor<128xf32, #slice>
          %mn = arith.maximumf %m, %mx : tensor<128xf32, #slice>
          %d = arith.subf %m, %mn : tensor<128xf32, #slice>
          %alpha = math.exp2 %d : tensor<128xf32, #slice>
          %rt, %rb = ws.producer_acquire %rows : !ws.channel<[memref<128xf32, 3>], stages = 2>
          ws.store_shared %alpha, %rb : tensor<128xf32, #slice>, memref<128xf32, 3>
          ws.producer_commit %rows, %rt by threads : !ws.channel<[memref<128xf32, 3>], stages = 2>
          %b = tile.broadcast %mn axis 1 : tensor<128xf32, #slice> -> tensor<128x128xf32, #regs>
          %x = arith.subf %sr, %b : tensor<128x128xf32, #regs>
          %e = math.exp2 %x : tensor<128x128xf32, #regs>
          %sum = tile.reduce sum %e axis 1 : tensor<128x128xf32, #regs> -> tensor<128xf32, #slice>
          %ls = arith.mulf %l, %alpha : tensor<128xf32, #slice>
          %ln = arith.addf %ls, %sum : tensor<128xf32, #slice>
          %pr = arith.truncf %e : tensor<128x128xf32, #regs> to tensor<128x128xbf16, #regs>
          ws.store_tmem %pr, %pb : tensor<128x128xbf16, #regs>, memref<128x128xbf16, #ws.tmem>
          ws.producer_commit %p, %pt by threads : !ws.channel<[memref<128x128xbf16, #ws.tmem>], stages = 1>
          scf.yield %mn, %ln : tensor<128xf32, #slice>, tensor<128xf32, #slice>
        }
      }
    }
    gpu.return
  }
}

// -----

// A column vector loaded by plain loads and broadcast over the rows (an
// fp8 GEMM's per-column scales): each chunk loads its own 32 values of
// it, at the vector's column plus the chunk's first column, and the
// whole-vector load goes.
// CHECK-LABEL: gpu.func @column_scales(
// CHECK: ws.role "epilogue0"
// CHECK: %[[N:.*]] = tile.program_id y : i32
// CHECK-NOT: tensor<64xf32
// CHECK: %[[V0:.*]] = tile.load_direct %{{.*}}[%[[N]]] : memref<?xf32> -> tensor<32xf32, #{{.*}}>
// CHECK: %[[B0:.*]] = tile.broadcast %[[V0]] axis 0 : tensor<32xf32, #{{.*}}> -> tensor<128x32xf32, #{{.*}}>
// CHECK: arith.mulf %{{.*}}, %[[B0]] : tensor<128x32xf32
// CHECK: ws.store_shared
// CHECK: %[[C32:.*]] = arith.constant 32 : i32
// CHECK: %[[N32:.*]] = arith.addi %[[N]], %[[C32]] : i32
// CHECK: tile.load_direct %{{.*}}[%[[N32]]] : memref<?xf32> -> tensor<32xf32
// CHECK: ws.store_shared
// CHECK-NOT: ws.store_shared
// CHECK-NOT: tensor<64xf32
#tmem = #tile.tmem<block = [128, 64], unpacked = true>
#regs = #tile.tmem_32x32b<warpgroups = 1>
#cols = #tile.slice<dim = 0, parent = #regs>
gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
  gpu.func @column_scales(%scale: memref<?xf32>) kernel {
    %accs = ws.channel : !ws.channel<[memref<128x64xf32, #ws.tmem>], stages = 2>
    %stage = ws.buffer_alloc : memref<128x64xf32, 3>
    ws.warp_specialize {
      ws.role "mma" warps 1 regs 40 {
        %token, %buffers = ws.producer_acquire %accs : !ws.channel<[memref<128x64xf32, #ws.tmem>], stages = 2>
        ws.producer_commit %accs, %token by tcgen05 : !ws.channel<[memref<128x64xf32, #ws.tmem>], stages = 2>
      }
      ws.role "epilogue0" warps 4 regs 232 {
        %n = tile.program_id y : i32
        %token, %buffers = ws.consumer_wait %accs : !ws.channel<[memref<128x64xf32, #ws.tmem>], stages = 2>
        %acc = ws.as_tensor %buffers : memref<128x64xf32, #ws.tmem> -> tensor<128x64xf32, #tmem>
        %row = tile.convert_layout %acc : tensor<128x64xf32, #tmem> -> tensor<128x64xf32, #regs>
        ws.consumer_release %accs, %token by threads : !ws.channel<[memref<128x64xf32, #ws.tmem>], stages = 2>
        %v = tile.load_direct %scale[%n] : memref<?xf32> -> tensor<64xf32, #cols>
        %b = tile.broadcast %v axis 0 : tensor<64xf32, #cols> -> tensor<128x64xf32, #regs>
        %t = arith.mulf %row, %b : tensor<128x64xf32, #regs>
        ws.store_shared %t, %stage : tensor<128x64xf32, #regs>, memref<128x64xf32, 3>
      }
    }
    gpu.return
  }
}

// -----

// Splat constants hoisted out of the role (canonicalization puts them in
// the kernel's body) are chunked too; the whole-row constant goes once
// nothing uses it.
// CHECK-LABEL: gpu.func @scaled(
// CHECK-NOT: tensor<128x64xf32, #{{.*}}>
// CHECK: ws.role "epilogue0"
// CHECK: %[[C:.*]] = arith.constant dense<5.000000e-01> : tensor<128x32xf32
// CHECK: tile.convert_layout
// CHECK: arith.mulf %{{.*}}, %[[C]] : tensor<128x32xf32
// CHECK: ws.store_shared
// CHECK: arith.constant dense<5.000000e-01> : tensor<128x32xf32
// CHECK: ws.store_shared
// CHECK-NOT: ws.store_shared
#tmem = #tile.tmem<block = [128, 64], unpacked = true>
#regs = #tile.tmem_32x32b<warpgroups = 1>
gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
  gpu.func @scaled() kernel {
    %half = arith.constant dense<0.5> : tensor<128x64xf32, #regs>
    %accs = ws.channel : !ws.channel<[memref<128x64xf32, #ws.tmem>], stages = 2>
    %stage = ws.buffer_alloc : memref<128x64xf32, 3>
    ws.warp_specialize {
      ws.role "mma" warps 1 regs 40 {
        %token, %buffers = ws.producer_acquire %accs : !ws.channel<[memref<128x64xf32, #ws.tmem>], stages = 2>
        ws.producer_commit %accs, %token by tcgen05 : !ws.channel<[memref<128x64xf32, #ws.tmem>], stages = 2>
      }
      ws.role "epilogue0" warps 4 regs 232 {
        %token, %buffers = ws.consumer_wait %accs : !ws.channel<[memref<128x64xf32, #ws.tmem>], stages = 2>
        %acc = ws.as_tensor %buffers : memref<128x64xf32, #ws.tmem> -> tensor<128x64xf32, #tmem>
        %row = tile.convert_layout %acc : tensor<128x64xf32, #tmem> -> tensor<128x64xf32, #regs>
        ws.consumer_release %accs, %token by threads : !ws.channel<[memref<128x64xf32, #ws.tmem>], stages = 2>
        %t = arith.mulf %row, %half : tensor<128x64xf32, #regs>
        ws.store_shared %t, %stage : tensor<128x64xf32, #regs>, memref<128x64xf32, 3>
      }
    }
    gpu.return
  }
}

// -----

// Left alone: a row of 32 columns (one chunk already), and a row not
// computed from tensor-memory loads (a value from outside the block). The
// releases stay where they are.
// CHECK-LABEL: gpu.func @whole(
// CHECK: ws.consumer_wait
// CHECK-NEXT: ws.as_tensor %{{.*}} : memref<128x32xf32, #ws.tmem>
// CHECK-NEXT: tile.convert_layout
// CHECK-NEXT: ws.consumer_release
// CHECK-NEXT: arith.truncf
// CHECK-NEXT: ws.store_shared %{{.*}}, %{{.*}} : tensor<128x32xbf16, #{{.*}}>, memref<128x32xbf16, 3>
// CHECK: ws.store_shared %{{.*}}, %{{.*}} : tensor<128x128xbf16, #{{.*}}>, memref<128x128xbf16, 3>
#tmem = #tile.tmem<block = [128, 32], unpacked = true>
#regs = #tile.tmem_32x32b<warpgroups = 1>
gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
  gpu.func @whole(%v: tensor<128x128xbf16, #regs>) kernel {
    %accs = ws.channel : !ws.channel<[memref<128x32xf32, #ws.tmem>], stages = 2>
    %stage = ws.buffer_alloc : memref<128x32xbf16, 3>
    %wide = ws.buffer_alloc : memref<128x128xbf16, 3>
    ws.warp_specialize {
      ws.role "mma" warps 1 regs 40 {
        %token, %buffers = ws.producer_acquire %accs : !ws.channel<[memref<128x32xf32, #ws.tmem>], stages = 2>
        ws.producer_commit %accs, %token by tcgen05 : !ws.channel<[memref<128x32xf32, #ws.tmem>], stages = 2>
      }
      ws.role "epilogue0" warps 4 regs 232 {
        %token, %buffers = ws.consumer_wait %accs : !ws.channel<[memref<128x32xf32, #ws.tmem>], stages = 2>
        %acc = ws.as_tensor %buffers : memref<128x32xf32, #ws.tmem> -> tensor<128x32xf32, #tmem>
        %row = tile.convert_layout %acc : tensor<128x32xf32, #tmem> -> tensor<128x32xf32, #regs>
        ws.consumer_release %accs, %token by threads : !ws.channel<[memref<128x32xf32, #ws.tmem>], stages = 2>
        %t = arith.truncf %row : tensor<128x32xf32, #regs> to tensor<128x32xbf16, #regs>
        ws.store_shared %t, %stage : tensor<128x32xbf16, #regs>, memref<128x32xbf16, 3>
        ws.store_shared %v, %wide : tensor<128x128xbf16, #regs>, memref<128x128xbf16, 3>
      }
    }
    gpu.return
  }
}

// -----

// An epilogue that stores the accumulator itself with plain stores into
// global memory (tile.store_direct: attention's O on sm_100a when it leaves
// bounded by a sequence's end): four chunks of 32 columns, each stored at
// the store's coordinates with the innermost one moved by the chunk's first
// column; the view stays whole (its sizes bound the rows).
// CHECK-LABEL: gpu.func @direct(
// CHECK: %[[TOK:.*]], %[[BUF:.*]] = ws.consumer_wait
// CHECK: %[[V0:.*]] = memref.subview %[[BUF]][0, 0] [128, 32] [1, 1]
// CHECK: %[[T0:.*]] = ws.as_tensor %[[V0]]
// CHECK: %[[R0:.*]] = tile.convert_layout %[[T0]]
// CHECK: %[[B0:.*]] = arith.truncf %[[R0]]
// CHECK: tile.store_direct %[[VIEW:.*]][%[[ROW:.*]], %[[COL:.*]]], %[[B0]] : memref<?x128xbf16, strided<[128, 1], offset: ?>>, tensor<128x32xbf16, #{{.*}}>
// CHECK: %[[C32:.*]] = arith.constant 32 : i32
// CHECK: %[[COL1:.*]] = arith.addi %[[COL]], %[[C32]] : i32
// CHECK: tile.store_direct %[[VIEW]][%[[ROW]], %[[COL1]]], %{{.*}} : memref<?x128xbf16, strided<[128, 1], offset: ?>>, tensor<128x32xbf16, #{{.*}}>
// CHECK: arith.constant 64 : i32
// CHECK: tile.store_direct
// CHECK: memref.subview %[[BUF]][0, 96] [128, 32] [1, 1]
// CHECK: arith.constant 96 : i32
// CHECK: tile.store_direct
// CHECK-NEXT: ws.consumer_release
// CHECK-NOT: tile.store_direct
#tmem = #tile.tmem<block = [128, 128], unpacked = true>
#regs = #tile.tmem_32x32b<warpgroups = 1>
gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
  gpu.func @direct(%o: memref<?x128xbf16, strided<[128, 1], offset: ?>>) kernel {
    %accs = ws.channel : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 2>
    ws.warp_specialize {
      ws.role "mma" warps 1 regs 40 {
        %token, %buffers = ws.producer_acquire %accs : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 2>
        ws.producer_commit %accs, %token by tcgen05 : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 2>
      }
      ws.role "epilogue0" warps 4 regs 232 {
        %m = tile.program_id x : i32
        %c0 = arith.constant 0 : i32
        %token, %buffers = ws.consumer_wait %accs : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 2>
        %acc = ws.as_tensor %buffers : memref<128x128xf32, #ws.tmem> -> tensor<128x128xf32, #tmem>
        %row = tile.convert_layout %acc : tensor<128x128xf32, #tmem> -> tensor<128x128xf32, #regs>
        %t = arith.truncf %row : tensor<128x128xf32, #regs> to tensor<128x128xbf16, #regs>
        tile.store_direct %o[%m, %c0], %t : memref<?x128xbf16, strided<[128, 1], offset: ?>>, tensor<128x128xbf16, #regs>
        ws.consumer_release %accs, %token by threads : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 2>
      }
    }
    gpu.return
  }
}
