// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-assign-roles --ws-partition-roles | FileCheck %s --check-prefix=WHOLE
// The roles store whole rows read from tensor memory; as in the sm_100a
// pipeline, ws-chunk-row-stores (ws-chunk-row-stores.mlir) streams them 32
// columns at a time afterwards, and the CHECK lines follow both:
// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-assign-roles --ws-partition-roles \
// RUN:   --ws-chunk-row-stores | FileCheck %s
// The protocols it builds pass ws-verify-protocol and, as rings,
// ws-verify-phases (tcgen05 commits count one arrival), and their tensor
// memory fits:
// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-assign-roles --ws-partition-roles \
// RUN:   --ws-chunk-row-stores --ws-verify-protocol --ws-insert-mbarriers --ws-verify-phases \
// RUN:   --ws-allocate-tmem -o /dev/null

// A GEMM main loop after tile-assign-layouts (sm_100a): the operand ring
// as on sm90 (fmha.stages sets its depth), and a two-slot tensor-memory ring
// of accumulators between the MMA warp and the epilogue warpgroup.
// CHECK-DAG: #[[SMEM:[a-z0-9_]+]] = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
// CHECK-DAG: #[[CHUNK:[a-z0-9_]+]] = #tile.tmem<block = [128, 32], unpacked = true>
// CHECK-DAG: #[[REGS:[a-z0-9_]+]] = #tile.tmem_32x32b<warpgroups = 1>
// CHECK-LABEL: gpu.func @gemm(
// CHECK-NOT: arith.constant dense
// CHECK: %[[OPS:.*]] = ws.channel : !ws.channel<[memref<128x64xbf16, 3>, memref<256x64xbf16, 3>], stages = 4>
// CHECK: %[[ACCS:.*]] = ws.channel : !ws.channel<[memref<128x256xf32, #ws.tmem>], stages = 2>
// CHECK: %[[STAGE:.*]] = ws.buffer_alloc : memref<128x256xbf16, 3>
// CHECK: ws.warp_specialize {
// The load warp: TMA into the operand ring, nothing else.
// CHECK: ws.role "load" warps 1 regs 40 {
// CHECK:   scf.for
// CHECK:     ws.producer_acquire %[[OPS]]
// CHECK-COUNT-2: ws.tma_load
// CHECK:     ws.producer_commit %[[OPS]], %{{.*}} by tma tx_bytes 49152
// CHECK-NOT: tile.dot
// The MMA warp: an accumulator slot per tile; per K step, the operands in
// place, one tcgen05 MMA (accumulating after the first step), the operand
// slot released by a commit; the accumulator handed over by a commit.
// CHECK: ws.role "mma" warps 1 regs 40 {
// CHECK:   %[[TOK:.*]], %[[ACC:.*]] = ws.producer_acquire %[[ACCS]]
// CHECK:   scf.for %[[K:.*]] = %[[LB:.*]] to %{{.*}} step %{{.*}} : i32 {
// CHECK:     %[[OTOK:.*]], %[[OBUF:.*]]:2 = ws.consumer_wait %[[OPS]]
// CHECK:     %[[X:.*]] = ws.as_tensor %[[OBUF]]#0 : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #[[SMEM]]>
// CHECK:     %[[Y:.*]] = ws.as_tensor %[[OBUF]]#1 : memref<256x64xbf16, 3> -> tensor<256x64xbf16, #[[SMEM]]>
// CHECK:     %[[FLAG:.*]] = arith.cmpi ne, %[[K]], %[[LB]] : i32
// CHECK:     ws.tcgen05_mma %[[X]], %[[Y]], %[[ACC]], %[[FLAG]] {transpose_b}
// CHECK:     ws.consumer_release %[[OPS]], %[[OTOK]] by tcgen05
// CHECK:   }
// CHECK:   ws.producer_commit %[[ACCS]], %[[TOK]] by tcgen05
// CHECK-NOT: tile.dot
// The epilogue: wait for the accumulator, then, once the staging buffer is
// free, read it 32 columns at a time (a tensor-memory view, tcgen05.ld,
// convert, a view of the staging buffer): 8 chunks for N = 256, so a thread
// holds 32 values of its row, not 256. The slot goes back after the last
// read; one TMA store follows.
// ws-partition-roles alone: the whole row loaded, the slot released after
// it, the row staged whole.
// WHOLE-LABEL: gpu.func @gemm(
// WHOLE: ws.role "epilogue0" warps 4 regs 232 {
// WHOLE:   %[[ETOK:.*]], %[[EBUF:.*]] = ws.consumer_wait %[[ACCS:.*]] :
// WHOLE:   %[[A:.*]] = ws.as_tensor %[[EBUF]] : memref<128x256xf32, #ws.tmem>
// WHOLE:   tile.convert_layout %[[A]] : tensor<128x256xf32, #{{.*}}> -> tensor<128x256xf32, #{{.*}}>
// WHOLE:   ws.consumer_release %[[ACCS]], %[[ETOK]] by threads
// WHOLE:   ws.store_shared %{{.*}}, %{{.*}} : tensor<128x256xbf16, #{{.*}}>, memref<128x256xbf16, 3>
// WHOLE:   ws.tma_store
// CHECK: ws.role "epilogue0" warps 4 regs 232 {
// CHECK:   %[[ETOK:.*]], %[[EBUF:.*]] = ws.consumer_wait %[[ACCS]]
// CHECK:   ws.tma_store_wait
// CHECK:   ws.barrier_sync 1 threads 128
// CHECK:   %[[V0:.*]] = memref.subview %[[EBUF]][0, 0] [128, 32] [1, 1] : memref<128x256xf32, #ws.tmem> to memref<128x32xf32, strided<[256, 1]>, #ws.tmem>
// CHECK:   %[[T0:.*]] = ws.as_tensor %[[V0]] : memref<128x32xf32, strided<[256, 1]>, #ws.tmem> -> tensor<128x32xf32, #[[CHUNK]]>
// CHECK:   %[[R0:.*]] = tile.convert_layout %[[T0]] : tensor<128x32xf32, #[[CHUNK]]> -> tensor<128x32xf32, #[[REGS]]>
// CHECK:   %[[B0:.*]] = arith.truncf %[[R0]] : tensor<128x32xf32, #[[REGS]]> to tensor<128x32xbf16, #[[REGS]]>
// CHECK:   %[[S0:.*]] = memref.subview %[[STAGE]][0, 0] [128, 32] [1, 1] : memref<128x256xbf16, 3> to memref<128x32xbf16, strided<[256, 1]>, 3>
// CHECK:   ws.store_shared %[[B0]], %[[S0]]
// CHECK:   memref.subview %[[EBUF]][0, 32] [128, 32] [1, 1]
// CHECK:   ws.store_shared
// CHECK-COUNT-5: ws.store_shared
// CHECK:   %[[V7:.*]] = memref.subview %[[EBUF]][0, 224] [128, 32] [1, 1]
// CHECK:   %[[T7:.*]] = ws.as_tensor %[[V7]]
// CHECK:   tile.convert_layout %[[T7]]
// CHECK:   ws.consumer_release %[[ACCS]], %[[ETOK]] by threads
// CHECK:   arith.truncf
// CHECK:   memref.subview %[[STAGE]][0, 224] [128, 32] [1, 1]
// CHECK:   ws.store_shared
// CHECK-NOT: ws.store_shared
// CHECK:   ws.fence_async_shared
// CHECK:   ws.barrier_sync 1 threads 128
// CHECK:   ws.tma_store %{{.*}}, %[[STAGE]]
// CHECK: ws.tma_store_wait
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#tmem = #tile.tmem<block = [128, 256], unpacked = true>
#regs = #tile.tmem_32x32b<warpgroups = 1>
gpu.module @gemm [#nvvm.target<chip = "sm_100a">] {
  gpu.func @gemm(%a: !tile.desc<tensor<128x64xbf16, #smem>>,
                 %b: !tile.desc<tensor<256x64xbf16, #smem>>,
                 %c: !tile.desc<tensor<128x256xbf16>>, %k: i32) kernel
      attributes {fmha.stages = 4 : i64} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %m = tile.program_id x : i32
    %n = tile.program_id y : i32
    %zero = arith.constant dense<0.0> : tensor<128x256xf32, #tmem>
    %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %zero)
        -> (tensor<128x256xf32, #tmem>) : i32 {
      %kk = arith.muli %i, %c64 : i32
      %x = tile.load %a[%m, %kk] : !tile.desc<tensor<128x64xbf16, #smem>>
      %y = tile.load %b[%n, %kk] : !tile.desc<tensor<256x64xbf16, #smem>>
      %d = tile.dot %x, %y, %acc {transpose_b}
          : tensor<128x64xbf16, #smem>, tensor<256x64xbf16, #smem>, tensor<128x256xf32, #tmem>
      scf.yield %d : tensor<128x256xf32, #tmem>
    }
    %v = tile.convert_layout %r : tensor<128x256xf32, #tmem> -> tensor<128x256xf32, #regs>
    %t = arith.truncf %v : tensor<128x256xf32, #regs> to tensor<128x256xbf16, #regs>
    tile.store %c[%m, %n], %t : !tile.desc<tensor<128x256xbf16>>, tensor<128x256xbf16, #regs>
    gpu.return
  }
}

// -----

// A CTA pair's dot (2-CTA mode) becomes a CTA pair's MMA: B is this CTA's
// half (128 of N = 256) in the operand ring, the accumulator the whole N.
// CHECK-LABEL: gpu.func @gemm_pair(
// CHECK: ws.channel : !ws.channel<[memref<128x64xbf16, 3>, memref<128x64xbf16, 3>], stages = 4>
// CHECK: ws.channel : !ws.channel<[memref<128x256xf32, #ws.tmem>], stages = 2>
// CHECK: ws.role "mma"
// CHECK: ws.tcgen05_mma %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {cta_pair, transpose_b} : tensor<128x64xbf16, #{{.*}}>, tensor<128x64xbf16, #{{.*}}>, memref<128x256xf32, #ws.tmem>
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#tmem = #tile.tmem<block = [128, 256], unpacked = true>
#regs = #tile.tmem_32x32b<warpgroups = 1>
gpu.module @gemm [#nvvm.target<chip = "sm_100a">] {
  gpu.func @gemm_pair(%a: !tile.desc<tensor<128x64xbf16, #smem>>,
                      %b: !tile.desc<tensor<128x64xbf16, #smem>>,
                      %c: !tile.desc<tensor<128x256xbf16>>, %k: i32) kernel
      attributes {fmha.stages = 4 : i64, ws.cta_pair} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %m = tile.program_id x : i32
    %n = tile.program_id y : i32
    %zero = arith.constant dense<0.0> : tensor<128x256xf32, #tmem>
    %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %zero)
        -> (tensor<128x256xf32, #tmem>) : i32 {
      %kk = arith.muli %i, %c64 : i32
      %x = tile.load %a[%m, %kk] : !tile.desc<tensor<128x64xbf16, #smem>>
      %y = tile.load %b[%n, %kk] : !tile.desc<tensor<128x64xbf16, #smem>>
      %d = tile.dot %x, %y, %acc {cta_pair, transpose_b}
          : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x256xf32, #tmem>
      scf.yield %d : tensor<128x256xf32, #tmem>
    }
    %v = tile.convert_layout %r : tensor<128x256xf32, #tmem> -> tensor<128x256xf32, #regs>
    %t = arith.truncf %v : tensor<128x256xf32, #regs> to tensor<128x256xbf16, #regs>
    tile.store %c[%m, %n], %t : !tile.desc<tensor<128x256xbf16>>, tensor<128x256xbf16, #regs>
    gpu.return
  }
}

// -----

// TMA multicast (`ws.multicast`): the load warp loads B, the dot's B
// operand, by multicast (each CTA half of it, into both CTAs); A stays this
// CTA's own load. The MMA is an ordinary one-CTA MMA.
// CHECK-LABEL: gpu.func @gemm_multicast(
// CHECK: ws.role "load"
// CHECK: %[[TOK:.*]], %[[BUFS:.*]]:2 = ws.producer_acquire
// CHECK: ws.tma_load %{{.*}}[%{{.*}}, %{{.*}}], %[[BUFS]]#0, %[[TOK]] :
// CHECK: ws.tma_load %{{.*}}[%{{.*}}, %{{.*}}], %[[BUFS]]#1, %[[TOK]] multicast :
// CHECK: ws.producer_commit %{{.*}}, %[[TOK]] by tma tx_bytes 32768
// CHECK: ws.role "mma"
// CHECK: ws.tcgen05_mma %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {transpose_b} : tensor<128x64xbf16, #{{.*}}>, tensor<128x64xbf16, #{{.*}}>, memref<128x128xf32, #ws.tmem>
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#tmem = #tile.tmem<block = [128, 128], unpacked = true>
#regs = #tile.tmem_32x32b<warpgroups = 1>
gpu.module @gemm [#nvvm.target<chip = "sm_100a">] {
  gpu.func @gemm_multicast(%a: !tile.desc<tensor<128x64xbf16, #smem>>,
                           %b: !tile.desc<tensor<128x64xbf16, #smem>>,
                           %c: !tile.desc<tensor<128x128xbf16>>, %k: i32) kernel
      attributes {fmha.stages = 4 : i64, ws.multicast} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %m = tile.program_id x : i32
    %n = tile.program_id y : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #tmem>
    %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %zero)
        -> (tensor<128x128xf32, #tmem>) : i32 {
      %kk = arith.muli %i, %c64 : i32
      %x = tile.load %a[%m, %kk] : !tile.desc<tensor<128x64xbf16, #smem>>
      %y = tile.load %b[%n, %kk] : !tile.desc<tensor<128x64xbf16, #smem>>
      %d = tile.dot %x, %y, %acc {transpose_b}
          : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #tmem>
      scf.yield %d : tensor<128x128xf32, #tmem>
    }
    %v = tile.convert_layout %r : tensor<128x128xf32, #tmem> -> tensor<128x128xf32, #regs>
    %t = arith.truncf %v : tensor<128x128xf32, #regs> to tensor<128x128xbf16, #regs>
    tile.store %c[%m, %n], %t : !tile.desc<tensor<128x128xbf16>>, tensor<128x128xbf16, #regs>
    gpu.return
  }
}

// -----

// Attention (Q loaded before the main loop): a load warp (Q once into a
// one-slot channel, K and V per step), an MMA warp (S into a one-slot
// tensor-memory channel committed by tcgen05; P V once P, from the channel
// that aliases S's, and O, from its own tensor-memory channel, are in;
// accumulating after the first step; both released by tcgen05), an
// epilogue warp (the staged O to global memory by TMA), a correction
// warpgroup (per step: the rescale factor from the softmax through shared
// memory, a slot of O, O rescaled 32 columns at a time, O committed; after
// the loop: the last O, the row sum, O normalised and staged) and a softmax
// warpgroup per consumer (a P slot, S read and released, the rescale
// factor sent, P stored over S and committed; after the loop the row sum
// sent).
// CHECK-LABEL: gpu.func @attention(
// CHECK: %[[Q:.*]] = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 1>
// CHECK: %[[KV:.*]] = ws.channel : !ws.channel<[memref<128x64xbf16, 3>, memref<128x64xbf16, 3>], stages = 2>
// CHECK: %[[S:.*]] = ws.channel : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 1>
// CHECK: %[[P:.*]] = ws.channel aliases %[[S]] : !ws.channel<[memref<128x128xbf16, #ws.tmem>], stages = 1> over !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 1>
// CHECK: %[[O:.*]] = ws.channel : !ws.channel<[memref<128x64xf32, #ws.tmem>], stages = 1>
// CHECK: %[[ROWS:.*]] = ws.channel : !ws.channel<[memref<128xf32, 3>], stages = 2>
// CHECK: %[[OUT:.*]] = ws.channel : !ws.channel<[memref<128x64xf32, 3>], stages = 1>
// CHECK: ws.role "load" warps 1 regs 72
// CHECK:   ws.producer_acquire %[[Q]]
// CHECK:   scf.for
// CHECK:     ws.producer_acquire %[[KV]]
// CHECK: ws.role "mma" warps 1 regs 72
// CHECK:   %[[QT:.*]], %[[QB:.*]] = ws.consumer_wait %[[Q]]
// CHECK:   scf.for %[[J:.*]] = %[[LB:[^ ]*]] to
// CHECK:     %[[ACC:.*]] = arith.cmpi ne, %[[J]], %[[LB]] : i32
// CHECK:     ws.consumer_wait %[[KV]]
// CHECK:     %[[STOK:.*]], %[[SBUF:.*]] = ws.producer_acquire %[[S]]
// CHECK:     ws.tcgen05_mma %{{.*}}, %{{.*}}, %[[SBUF]], %{{.*}} {transpose_b}
// CHECK:     ws.producer_commit %[[S]], %[[STOK]] by tcgen05
// CHECK:     %[[PTOK:.*]], %[[PBUF:.*]] = ws.consumer_wait %[[P]]
// CHECK:     %[[OTOK:.*]], %[[OBUF:.*]] = ws.consumer_wait %[[O]]
// CHECK:     %[[PT:.*]] = ws.as_tensor %[[PBUF]] : memref<128x128xbf16, #ws.tmem> -> tensor<128x128xbf16, #{{.*}}>
// CHECK:     ws.tcgen05_mma %[[PT]], %{{.*}}, %[[OBUF]], %[[ACC]] :
// CHECK:     ws.consumer_release %[[P]], %[[PTOK]] by tcgen05
// CHECK:     ws.consumer_release %[[O]], %[[OTOK]] by tcgen05
// CHECK:     ws.consumer_release %[[KV]], %{{.*}} by tcgen05
// CHECK:   }
// CHECK:   %[[LTOK:.*]], %{{.*}} = ws.consumer_wait %[[O]]
// CHECK:   ws.consumer_release %[[O]], %[[LTOK]] by tcgen05
// CHECK:   ws.consumer_release %[[Q]], %[[QT]] by tcgen05
// CHECK: ws.role "epilogue" warps 1 regs 72
// CHECK-NOT: scf.for
// CHECK:   %[[ETOK:.*]], %[[EBUF:.*]] = ws.consumer_wait %[[OUT]]
// CHECK:   ws.tma_store %{{.*}}, %[[EBUF]]
// CHECK:   ws.tma_store_wait
// CHECK:   ws.consumer_release %[[OUT]], %[[ETOK]] by threads
// CHECK: ws.role "correction" warps 4 regs 88
// CHECK:   scf.for
// CHECK:     %[[RTOK:.*]], %[[RBUF:.*]] = ws.consumer_wait %[[ROWS]]
// CHECK:     %[[ALPHA:.*]] = ws.load_shared %[[RBUF]] : memref<128xf32, 3> -> tensor<128xf32, #{{.*}}>
// CHECK:     ws.consumer_release %[[ROWS]], %[[RTOK]] by threads
// CHECK:     %[[CTOK:.*]], %[[CBUF:.*]] = ws.producer_acquire %[[O]]
// CHECK:     %[[V0:.*]] = memref.subview %[[CBUF]][0, 0] [128, 32] [1, 1]
// CHECK:     %[[T0:.*]] = ws.as_tensor %[[V0]]
// CHECK:     %[[R0:.*]] = tile.convert_layout %[[T0]]
// CHECK:     %[[F0:.*]] = tile.broadcast %[[ALPHA]] axis 1 : tensor<128xf32, #{{.*}}> -> tensor<128x32xf32, #{{.*}}>
// CHECK:     %[[M0:.*]] = arith.mulf %[[R0]], %[[F0]]
// CHECK:     %[[W0:.*]] = memref.subview %[[CBUF]][0, 0] [128, 32] [1, 1]
// CHECK:     ws.store_tmem %[[M0]], %[[W0]]
// CHECK:     memref.subview %[[CBUF]][0, 32] [128, 32] [1, 1]
// CHECK:     ws.store_tmem
// CHECK:     ws.producer_commit %[[O]], %[[CTOK]] by threads
// CHECK:   }
// CHECK:   %[[FTOK:.*]], %[[FBUF:.*]] = ws.producer_acquire %[[O]]
// CHECK:   %[[SUMTOK:.*]], %[[SUMBUF:.*]] = ws.consumer_wait %[[ROWS]]
// CHECK:   %[[SUM:.*]] = ws.load_shared %[[SUMBUF]]
// CHECK:   ws.consumer_release %[[ROWS]], %[[SUMTOK]] by threads
// CHECK:   %[[STTOK:.*]], %[[STBUF:.*]] = ws.producer_acquire %[[OUT]]
// CHECK:   memref.subview %[[FBUF]][0, 0] [128, 32] [1, 1]
// CHECK:   tile.broadcast %[[SUM]]
// CHECK:   arith.mulf
// CHECK:   memref.subview %[[STBUF]][0, 0] [128, 32] [1, 1]
// CHECK:   ws.store_shared
// CHECK:   memref.subview %[[FBUF]][0, 32] [128, 32] [1, 1]
// CHECK:   arith.mulf
// CHECK:   memref.subview %[[STBUF]][0, 32] [128, 32] [1, 1]
// CHECK:   ws.store_shared
// CHECK:   ws.producer_commit %[[OUT]], %[[STTOK]] by threads
// CHECK:   ws.producer_commit %[[O]], %[[FTOK]] by threads
// One consumer: its softmax gets the consumer budget (232).
// WHOLE-LABEL: gpu.func @attention(
// WHOLE: ws.role "softmax0" warps 4 regs 232
// WHOLE:   %[[SWTOK:.*]], %[[SWBUF:.*]] = ws.consumer_wait %[[S:.*]] :
// WHOLE:   %[[SA:.*]] = ws.as_tensor %[[SWBUF]] : memref<128x128xf32, #ws.tmem>
// WHOLE:   tile.convert_layout %[[SA]]
// WHOLE:   ws.consumer_release %[[S]], %[[SWTOK]] by threads
// WHOLE:   tile.reduce max %{{.*}} axis 1 : tensor<128x128xf32
// WHOLE:   ws.store_tmem %{{.*}}, %{{.*}} : tensor<128x128xbf16, #{{.*}}>, memref<128x128xbf16, #ws.tmem>
// CHECK: ws.role "softmax0" warps 4 regs 232
// CHECK:   scf.for
// CHECK:     %[[SPTOK:.*]], %[[SPBUF:.*]] = ws.producer_acquire %[[P]]
// CHECK:     %[[SWTOK:.*]], %[[SWBUF:.*]] = ws.consumer_wait %[[S]]
// S is streamed 32 columns at a time: a pass for the row maximum...
// CHECK:     %[[SV0:.*]] = memref.subview %[[SWBUF]][0, 0] [128, 32] [1, 1]
// CHECK:     %[[ST0:.*]] = ws.as_tensor %[[SV0]]
// CHECK:     %[[SR0:.*]] = tile.convert_layout %[[ST0]]
// CHECK:     %[[MX0:.*]] = tile.reduce max %[[SR0]] axis 1 : tensor<128x32xf32
// CHECK:     memref.subview %[[SWBUF]][0, 32] [128, 32] [1, 1]
// CHECK:     %[[MX1:.*]] = tile.reduce max
// CHECK:     arith.maximumf %[[MX0]], %[[MX1]]
// CHECK:     memref.subview %[[SWBUF]][0, 96] [128, 32] [1, 1]
// CHECK:     tile.reduce max
// CHECK:     %[[TILEMAX:.*]] = arith.maximumf
// CHECK:     %[[NEWMAX:.*]] = arith.maximumf %{{.*}}, %[[TILEMAX]]
// CHECK:     %[[NEWALPHA:.*]] = math.exp2
// CHECK:     %[[ATOK:.*]], %[[ABUF:.*]] = ws.producer_acquire %[[ROWS]]
// CHECK:     ws.store_shared %[[NEWALPHA]], %[[ABUF]] : tensor<128xf32, #{{.*}}>, memref<128xf32, 3>
// CHECK:     ws.producer_commit %[[ROWS]], %[[ATOK]] by threads
// ... then one for P, its row sum and its store over S, chunk by chunk:
// P's 32 bf16 columns of chunk c take packed columns 16c.. of S, which
// chunks 0..c have read already.
// CHECK:     memref.subview %[[SWBUF]][0, 0] [128, 32] [1, 1]
// CHECK:     tile.broadcast %[[NEWMAX]] axis 1 : tensor<128xf32, #{{.*}}> -> tensor<128x32xf32
// CHECK:     math.exp2 %{{.*}} : tensor<128x32xf32
// CHECK:     tile.reduce sum
// CHECK:     arith.truncf
// CHECK:     %[[PV0:.*]] = memref.subview %[[SPBUF]][0, 0] [128, 32] [1, 1] : memref<128x128xbf16, #ws.tmem>
// CHECK:     ws.store_tmem %{{.*}}, %[[PV0]] : tensor<128x32xbf16, #{{.*}}>
// CHECK:     memref.subview %[[SWBUF]][0, 32] [128, 32] [1, 1]
// CHECK:     memref.subview %[[SPBUF]][0, 32] [128, 32] [1, 1]
// CHECK:     ws.store_tmem
// CHECK:     memref.subview %[[SWBUF]][0, 96] [128, 32] [1, 1]
// CHECK:     tile.convert_layout
// S goes back after its last chunk is read.
// CHECK:     ws.consumer_release %[[S]], %[[SWTOK]] by threads
// CHECK:     memref.subview %[[SPBUF]][0, 96] [128, 32] [1, 1]
// CHECK:     ws.store_tmem
// CHECK-NOT: tensor<128x128xf32, #tmem_32x32b>
// CHECK:     ws.producer_commit %[[P]], %[[SPTOK]] by threads
// CHECK:   }
// After the loop: the reciprocal of the row sum (the program's) to the
// correction.
// CHECK:   %[[RECIP:.*]] = arith.divf {{.*}} fastmath<afn>
// CHECK:   %[[LSTOK:.*]], %[[LSBUF:.*]] = ws.producer_acquire %[[ROWS]]
// CHECK:   ws.store_shared %[[RECIP]], %[[LSBUF]]
// CHECK:   ws.producer_commit %[[ROWS]], %[[LSTOK]] by threads
// CHECK-NOT: ws.tma_store
// CHECK: gpu.return
#nvmma_shared = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#tmem = #tile.tmem<block = [128, 64], unpacked = true>
#tmem1 = #tile.tmem<block = [128, 128], unpacked = true>
#tmem2 = #tile.tmem<block = [128, 128], unpacked = false>
#tmem_32x32b = #tile.tmem_32x32b<warpgroups = 1>
#slice = #tile.slice<dim = 1, parent = #tmem_32x32b>
gpu.module @attention [#nvvm.target<chip = "sm_100a">] {
  gpu.func @attention(%arg0: !tile.desc<tensor<128x64xbf16, #nvmma_shared>>, %arg1: !tile.desc<tensor<128x64xbf16, #nvmma_shared>>, %arg2: !tile.desc<tensor<128x64xbf16, #nvmma_shared>>, %arg3: !tile.desc<tensor<128x64xf32>>, %arg4: i32) kernel {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %0 = tile.load %arg0[%c0_i32, %c0_i32] : !tile.desc<tensor<128x64xbf16, #nvmma_shared>>
    %cst = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #tmem>
    %cst_0 = arith.constant dense<0xFF800000> : tensor<128xf32, #slice>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<128xf32, #slice>
    %1:3 = scf.for %arg5 = %c0_i32 to %arg4 step %c1_i32 iter_args(%arg6 = %cst, %arg7 = %cst_0, %arg8 = %cst_1) -> (tensor<128x64xf32, #tmem>, tensor<128xf32, #slice>, tensor<128xf32, #slice>)  : i32 {
      %5 = tile.convert_layout %arg6 : tensor<128x64xf32, #tmem> -> tensor<128x64xf32, #tmem_32x32b>
      %6 = tile.load %arg1[%arg5, %c0_i32] : !tile.desc<tensor<128x64xbf16, #nvmma_shared>>
      %7 = tile.load %arg2[%arg5, %c0_i32] : !tile.desc<tensor<128x64xbf16, #nvmma_shared>>
      %cst_2 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #tmem1>
      %8 = tile.dot %0, %6, %cst_2 {transpose_b} : tensor<128x64xbf16, #nvmma_shared>, tensor<128x64xbf16, #nvmma_shared>, tensor<128x128xf32, #tmem1>
      %9 = tile.convert_layout %8 : tensor<128x128xf32, #tmem1> -> tensor<128x128xf32, #tmem_32x32b>
      %10 = tile.reduce max %9 axis 1 : tensor<128x128xf32, #tmem_32x32b> -> tensor<128xf32, #slice>
      %11 = arith.maximumf %arg7, %10 : tensor<128xf32, #slice>
      %12 = arith.subf %arg7, %11 : tensor<128xf32, #slice>
      %13 = math.exp2 %12 : tensor<128xf32, #slice>
      %14 = tile.broadcast %13 axis 1 : tensor<128xf32, #slice> -> tensor<128x64xf32, #tmem_32x32b>
      %15 = arith.mulf %5, %14 : tensor<128x64xf32, #tmem_32x32b>
      %16 = tile.convert_layout %15 : tensor<128x64xf32, #tmem_32x32b> -> tensor<128x64xf32, #tmem>
      %17 = tile.broadcast %11 axis 1 : tensor<128xf32, #slice> -> tensor<128x128xf32, #tmem_32x32b>
      %18 = arith.subf %9, %17 : tensor<128x128xf32, #tmem_32x32b>
      %19 = math.exp2 %18 : tensor<128x128xf32, #tmem_32x32b>
      %20 = tile.reduce sum %19 axis 1 : tensor<128x128xf32, #tmem_32x32b> -> tensor<128xf32, #slice>
      %21 = arith.mulf %arg8, %13 : tensor<128xf32, #slice>
      %22 = arith.addf %21, %20 : tensor<128xf32, #slice>
      %23 = arith.truncf %19 : tensor<128x128xf32, #tmem_32x32b> to tensor<128x128xbf16, #tmem_32x32b>
      %24 = tile.convert_layout %23 : tensor<128x128xbf16, #tmem_32x32b> -> tensor<128x128xbf16, #tmem2>
      %25 = tile.dot %24, %7, %16 : tensor<128x128xbf16, #tmem2>, tensor<128x64xbf16, #nvmma_shared>, tensor<128x64xf32, #tmem>
      scf.yield %25, %11, %22 : tensor<128x64xf32, #tmem>, tensor<128xf32, #slice>, tensor<128xf32, #slice>
    }
    %2 = tile.convert_layout %1#0 : tensor<128x64xf32, #tmem> -> tensor<128x64xf32, #tmem_32x32b>
    %one = arith.constant dense<1.0> : tensor<128xf32, #slice>
    %inv = arith.divf %one, %1#2 fastmath<afn> : tensor<128xf32, #slice>
    %3 = tile.broadcast %inv axis 1 : tensor<128xf32, #slice> -> tensor<128x64xf32, #tmem_32x32b>
    %4 = arith.mulf %2, %3 : tensor<128x64xf32, #tmem_32x32b>
    tile.store %arg3[%c0_i32, %c0_i32], %4 : !tile.desc<tensor<128x64xf32>>, tensor<128x64xf32, #tmem_32x32b>
    gpu.return
  }
}

// -----

// Attention whose O leaves by plain stores (tile.store_direct: varlen's,
// bounded by each sequence's end): the correction stores O itself, 32
// columns at a time, and then the LSE row, which the softmax computes after
// the loop and hands over through the ring of row vectors after the row
// sum's reciprocal. Nothing is staged, the epilogue warp has nothing to do
// and the correction gets 80 registers.
// CHECK-LABEL: gpu.func @attention_direct(
// CHECK: %[[O:.*]] = ws.channel : !ws.channel<[memref<128x64xf32, #ws.tmem>], stages = 1>
// CHECK: %[[ROWS:.*]] = ws.channel : !ws.channel<[memref<128xf32, 3>], stages = 2>
// CHECK-NOT: = ws.channel
// CHECK: ws.role "epilogue" warps 1 regs 72 {
// CHECK-NEXT: }
// CHECK: ws.role "correction" warps 4 regs 80
// CHECK:   scf.for
// CHECK:   }
// CHECK:   %[[FTOK:.*]], %[[FBUF:.*]] = ws.producer_acquire %[[O]]
// CHECK:   %[[SUMTOK:.*]], %[[SUMBUF:.*]] = ws.consumer_wait %[[ROWS]]
// CHECK:   %[[SUM:.*]] = ws.load_shared %[[SUMBUF]]
// CHECK:   ws.consumer_release %[[ROWS]], %[[SUMTOK]] by threads
// CHECK:   memref.subview %[[FBUF]][0, 0] [128, 32] [1, 1]
// CHECK:   tile.broadcast %[[SUM]]
// CHECK:   tile.store_direct %{{.*}}, %{{.*}} : memref<?x64xf32>, tensor<128x32xf32, #{{.*}}>
// CHECK:   memref.subview %[[FBUF]][0, 32] [128, 32] [1, 1]
// CHECK:   tile.store_direct %{{.*}}, %{{.*}} : memref<?x64xf32>, tensor<128x32xf32, #{{.*}}>
// CHECK:   ws.producer_commit %[[O]], %[[FTOK]] by threads
// CHECK:   %[[LTOK:.*]], %[[LBUF:.*]] = ws.consumer_wait %[[ROWS]]
// CHECK:   %[[LSE:.*]] = ws.load_shared %[[LBUF]]
// CHECK:   ws.consumer_release %[[ROWS]], %[[LTOK]] by threads
// CHECK:   tile.store_direct %{{.*}}, %[[LSE]] : memref<?xf32>, tensor<128xf32, #{{.*}}>
// CHECK: ws.role "softmax0" warps 4 regs 232
// CHECK:   scf.for
// CHECK:   }
// CHECK:   %[[RECIP:.*]] = arith.divf {{.*}} fastmath<afn>
// CHECK:   %[[STOK:.*]], %[[SBUF:.*]] = ws.producer_acquire %[[ROWS]]
// CHECK:   ws.store_shared %[[RECIP]], %[[SBUF]]
// CHECK:   ws.producer_commit %[[ROWS]], %[[STOK]] by threads
// CHECK:   math.log2
// CHECK:   %[[ROW:.*]] = arith.addf
// CHECK:   %[[RTOK:.*]], %[[RBUF:.*]] = ws.producer_acquire %[[ROWS]]
// CHECK:   ws.store_shared %[[ROW]], %[[RBUF]]
// CHECK:   ws.producer_commit %[[ROWS]], %[[RTOK]] by threads
// CHECK-NOT: tile.store_direct
// CHECK: gpu.return
#nvmma_shared = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#tmem = #tile.tmem<block = [128, 64], unpacked = true>
#tmem1 = #tile.tmem<block = [128, 128], unpacked = true>
#tmem2 = #tile.tmem<block = [128, 128], unpacked = false>
#tmem_32x32b = #tile.tmem_32x32b<warpgroups = 1>
#slice = #tile.slice<dim = 1, parent = #tmem_32x32b>
gpu.module @attention_direct [#nvvm.target<chip = "sm_100a">] {
  gpu.func @attention_direct(%arg0: !tile.desc<tensor<128x64xbf16, #nvmma_shared>>, %arg1: !tile.desc<tensor<128x64xbf16, #nvmma_shared>>, %arg2: !tile.desc<tensor<128x64xbf16, #nvmma_shared>>, %arg3: memref<?x64xf32>, %arg4: memref<?xf32>, %arg5: i32) kernel {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %0 = tile.load %arg0[%c0_i32, %c0_i32] : !tile.desc<tensor<128x64xbf16, #nvmma_shared>>
    %cst = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #tmem>
    %cst_0 = arith.constant dense<0xFF800000> : tensor<128xf32, #slice>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<128xf32, #slice>
    %1:3 = scf.for %arg6 = %c0_i32 to %arg5 step %c1_i32 iter_args(%arg7 = %cst, %arg8 = %cst_0, %arg9 = %cst_1) -> (tensor<128x64xf32, #tmem>, tensor<128xf32, #slice>, tensor<128xf32, #slice>)  : i32 {
      %5 = tile.convert_layout %arg7 : tensor<128x64xf32, #tmem> -> tensor<128x64xf32, #tmem_32x32b>
      %6 = tile.load %arg1[%arg6, %c0_i32] : !tile.desc<tensor<128x64xbf16, #nvmma_shared>>
      %7 = tile.load %arg2[%arg6, %c0_i32] : !tile.desc<tensor<128x64xbf16, #nvmma_shared>>
      %cst_2 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #tmem1>
      %8 = tile.dot %0, %6, %cst_2 {transpose_b} : tensor<128x64xbf16, #nvmma_shared>, tensor<128x64xbf16, #nvmma_shared>, tensor<128x128xf32, #tmem1>
      %9 = tile.convert_layout %8 : tensor<128x128xf32, #tmem1> -> tensor<128x128xf32, #tmem_32x32b>
      %10 = tile.reduce max %9 axis 1 : tensor<128x128xf32, #tmem_32x32b> -> tensor<128xf32, #slice>
      %11 = arith.maximumf %arg8, %10 : tensor<128xf32, #slice>
      %12 = arith.subf %arg8, %11 : tensor<128xf32, #slice>
      %13 = math.exp2 %12 : tensor<128xf32, #slice>
      %14 = tile.broadcast %13 axis 1 : tensor<128xf32, #slice> -> tensor<128x64xf32, #tmem_32x32b>
      %15 = arith.mulf %5, %14 : tensor<128x64xf32, #tmem_32x32b>
      %16 = tile.convert_layout %15 : tensor<128x64xf32, #tmem_32x32b> -> tensor<128x64xf32, #tmem>
      %17 = tile.broadcast %11 axis 1 : tensor<128xf32, #slice> -> tensor<128x128xf32, #tmem_32x32b>
      %18 = arith.subf %9, %17 : tensor<128x128xf32, #tmem_32x32b>
      %19 = math.exp2 %18 : tensor<128x128xf32, #tmem_32x32b>
      %20 = tile.reduce sum %19 axis 1 : tensor<128x128xf32, #tmem_32x32b> -> tensor<128xf32, #slice>
      %21 = arith.mulf %arg9, %13 : tensor<128xf32, #slice>
      %22 = arith.addf %21, %20 : tensor<128xf32, #slice>
      %23 = arith.truncf %19 : tensor<128x128xf32, #tmem_32x32b> to tensor<128x128xbf16, #tmem_32x32b>
      %24 = tile.convert_layout %23 : tensor<128x128xbf16, #tmem_32x32b> -> tensor<128x128xbf16, #tmem2>
      %25 = tile.dot %24, %7, %16 : tensor<128x128xbf16, #tmem2>, tensor<128x64xbf16, #nvmma_shared>, tensor<128x64xf32, #tmem>
      scf.yield %25, %11, %22 : tensor<128x64xf32, #tmem>, tensor<128xf32, #slice>, tensor<128xf32, #slice>
    }
    %2 = tile.convert_layout %1#0 : tensor<128x64xf32, #tmem> -> tensor<128x64xf32, #tmem_32x32b>
    %one = arith.constant dense<1.0> : tensor<128xf32, #slice>
    %inv = arith.divf %one, %1#2 fastmath<afn> : tensor<128xf32, #slice>
    %3 = tile.broadcast %inv axis 1 : tensor<128xf32, #slice> -> tensor<128x64xf32, #tmem_32x32b>
    %4 = arith.mulf %2, %3 : tensor<128x64xf32, #tmem_32x32b>
    tile.store_direct %arg3[%c0_i32, %c0_i32], %4 : memref<?x64xf32>, tensor<128x64xf32, #tmem_32x32b>
    %log = math.log2 %1#2 : tensor<128xf32, #slice>
    %lse = arith.addf %1#1, %log : tensor<128xf32, #slice>
    tile.store_direct %arg4[%c0_i32], %lse : memref<?xf32>, tensor<128xf32, #slice>
    gpu.return
  }
}

// -----

// Split-KV's partial results (plain stores of O and its LSE row), the
// arrival at the tile's counter after them and the merge on the last
// arrival: the correction, which stores the partials, arrives (on a named
// barrier of its own, publishing its threads' stores) and runs the scf.if;
// other roles have neither. The merge needs the correction's 88 registers.
// CHECK-LABEL: gpu.func @attention_split(
// CHECK: ws.role "correction" warps 4 regs 88
// CHECK:   scf.for
// CHECK:   }
// CHECK:   tile.store_direct %{{.*}} : memref<?x64xf32>, tensor<128x32xf32, #{{.*}}>
// CHECK:   tile.store_direct %{{.*}} : memref<?x64xf32>, tensor<128x32xf32, #{{.*}}>
// CHECK:   ws.consumer_wait
// CHECK:   tile.store_direct %{{.*}} : memref<?xf32>, tensor<128xf32, #{{.*}}>
// CHECK:   %[[LAST:.*]] = ws.counter_arrive %{{.*}}[%{{.*}}], %{{.*}} barrier 1 threads 128
// CHECK:   scf.if %[[LAST]] {
// CHECK:     tile.load_direct
// CHECK:     tile.store_direct %{{.*}} : memref<?x64xbf16>
// CHECK:   }
// CHECK: ws.role "softmax0"
// CHECK-NOT: counter_arrive
// CHECK-NOT: tile.store_direct
// CHECK: gpu.return
#nvmma_shared = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#tmem = #tile.tmem<block = [128, 64], unpacked = true>
#tmem1 = #tile.tmem<block = [128, 128], unpacked = true>
#tmem2 = #tile.tmem<block = [128, 128], unpacked = false>
#tmem_32x32b = #tile.tmem_32x32b<warpgroups = 1>
#slice = #tile.slice<dim = 1, parent = #tmem_32x32b>
gpu.module @attention_split [#nvvm.target<chip = "sm_100a">] {
  gpu.func @attention_split(%arg0: !tile.desc<tensor<128x64xbf16, #nvmma_shared>>, %arg1: !tile.desc<tensor<128x64xbf16, #nvmma_shared>>, %arg2: !tile.desc<tensor<128x64xbf16, #nvmma_shared>>, %arg3: memref<?x64xf32>, %arg4: memref<?xf32>, %arg5: i32, %counters: memref<?xi32>, %out: memref<?x64xbf16>) kernel {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %0 = tile.load %arg0[%c0_i32, %c0_i32] : !tile.desc<tensor<128x64xbf16, #nvmma_shared>>
    %cst = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #tmem>
    %cst_0 = arith.constant dense<0xFF800000> : tensor<128xf32, #slice>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<128xf32, #slice>
    %1:3 = scf.for %arg6 = %c0_i32 to %arg5 step %c1_i32 iter_args(%arg7 = %cst, %arg8 = %cst_0, %arg9 = %cst_1) -> (tensor<128x64xf32, #tmem>, tensor<128xf32, #slice>, tensor<128xf32, #slice>)  : i32 {
      %5 = tile.convert_layout %arg7 : tensor<128x64xf32, #tmem> -> tensor<128x64xf32, #tmem_32x32b>
      %6 = tile.load %arg1[%arg6, %c0_i32] : !tile.desc<tensor<128x64xbf16, #nvmma_shared>>
      %7 = tile.load %arg2[%arg6, %c0_i32] : !tile.desc<tensor<128x64xbf16, #nvmma_shared>>
      %cst_2 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #tmem1>
      %8 = tile.dot %0, %6, %cst_2 {transpose_b} : tensor<128x64xbf16, #nvmma_shared>, tensor<128x64xbf16, #nvmma_shared>, tensor<128x128xf32, #tmem1>
      %9 = tile.convert_layout %8 : tensor<128x128xf32, #tmem1> -> tensor<128x128xf32, #tmem_32x32b>
      %10 = tile.reduce max %9 axis 1 : tensor<128x128xf32, #tmem_32x32b> -> tensor<128xf32, #slice>
      %11 = arith.maximumf %arg8, %10 : tensor<128xf32, #slice>
      %12 = arith.subf %arg8, %11 : tensor<128xf32, #slice>
      %13 = math.exp2 %12 : tensor<128xf32, #slice>
      %14 = tile.broadcast %13 axis 1 : tensor<128xf32, #slice> -> tensor<128x64xf32, #tmem_32x32b>
      %15 = arith.mulf %5, %14 : tensor<128x64xf32, #tmem_32x32b>
      %16 = tile.convert_layout %15 : tensor<128x64xf32, #tmem_32x32b> -> tensor<128x64xf32, #tmem>
      %17 = tile.broadcast %11 axis 1 : tensor<128xf32, #slice> -> tensor<128x128xf32, #tmem_32x32b>
      %18 = arith.subf %9, %17 : tensor<128x128xf32, #tmem_32x32b>
      %19 = math.exp2 %18 : tensor<128x128xf32, #tmem_32x32b>
      %20 = tile.reduce sum %19 axis 1 : tensor<128x128xf32, #tmem_32x32b> -> tensor<128xf32, #slice>
      %21 = arith.mulf %arg9, %13 : tensor<128xf32, #slice>
      %22 = arith.addf %21, %20 : tensor<128xf32, #slice>
      %23 = arith.truncf %19 : tensor<128x128xf32, #tmem_32x32b> to tensor<128x128xbf16, #tmem_32x32b>
      %24 = tile.convert_layout %23 : tensor<128x128xbf16, #tmem_32x32b> -> tensor<128x128xbf16, #tmem2>
      %25 = tile.dot %24, %7, %16 : tensor<128x128xbf16, #tmem2>, tensor<128x64xbf16, #nvmma_shared>, tensor<128x64xf32, #tmem>
      scf.yield %25, %11, %22 : tensor<128x64xf32, #tmem>, tensor<128xf32, #slice>, tensor<128xf32, #slice>
    }
    %2 = tile.convert_layout %1#0 : tensor<128x64xf32, #tmem> -> tensor<128x64xf32, #tmem_32x32b>
    %one = arith.constant dense<1.0> : tensor<128xf32, #slice>
    %inv = arith.divf %one, %1#2 fastmath<afn> : tensor<128xf32, #slice>
    %3 = tile.broadcast %inv axis 1 : tensor<128xf32, #slice> -> tensor<128x64xf32, #tmem_32x32b>
    %4 = arith.mulf %2, %3 : tensor<128x64xf32, #tmem_32x32b>
    tile.store_direct %arg3[%c0_i32, %c0_i32], %4 : memref<?x64xf32>, tensor<128x64xf32, #tmem_32x32b>
    %log = math.log2 %1#2 : tensor<128xf32, #slice>
    %lse = arith.addf %1#1, %log : tensor<128xf32, #slice>
    tile.store_direct %arg4[%c0_i32], %lse : memref<?xf32>, tensor<128xf32, #slice>
    %c2_i32 = arith.constant 2 : i32
    %last = tile.counter_arrive %counters[%c0_i32], %c2_i32 : memref<?xi32>
    scf.if %last {
      %p = tile.load_direct %arg3[%c0_i32, %c0_i32] : memref<?x64xf32> -> tensor<128x64xf32, #tmem_32x32b>
      %t = arith.truncf %p : tensor<128x64xf32, #tmem_32x32b> to tensor<128x64xbf16, #tmem_32x32b>
      tile.store_direct %out[%c0_i32, %c0_i32], %t : memref<?x64xbf16>, tensor<128x64xbf16, #tmem_32x32b>
    }
    gpu.return
  }
}

// -----

// Every loop-carried value must be an accumulator.
gpu.module @carried [#nvvm.target<chip = "sm_100a">] {
  gpu.func @carried(%a: !tile.desc<tensor<128x64xbf16>>, %n: i32) kernel {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    // expected-error @+1 {{'scf.for' op carries a value that is not a tile.dot accumulator; sm100 partitioning handles GEMM main loops only}}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %c0) -> (i32) : i32 {
      %x = tile.load %a[%i, %c0] : !tile.desc<tensor<128x64xbf16>>
      %t = arith.addi %s, %c1 : i32
      scf.yield %t : i32
    }
    gpu.return
  }
}

// -----

// The accumulator must be in tensor memory (layouts for sm100).
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
gpu.module @sm90_layouts [#nvvm.target<chip = "sm_100a">] {
  gpu.func @sm90_layouts(%a: !tile.desc<tensor<128x64xbf16, #smem>>, %n: i32) kernel {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32, #acc>) : i32 {
      %x = tile.load %a[%i, %c0] : !tile.desc<tensor<128x64xbf16, #smem>>
      // expected-error @+1 {{'tile.dot' op needs a tensor-memory accumulator: run tile-assign-layouts on an sm_100a gpu.module first}}
      %d = tile.dot %x, %x, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
      scf.yield %d : tensor<128x128xf32, #acc>
    }
    gpu.return
  }
}

// -----

// Operands are read in place from shared memory, so they come from loads.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#tmem = #tile.tmem<block = [128, 128], unpacked = true>
gpu.module @operand [#nvvm.target<chip = "sm_100a">] {
  gpu.func @operand(%a: !tile.desc<tensor<128x64xbf16, #smem>>, %y: tensor<128x64xbf16, #smem>, %n: i32) kernel {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #tmem>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32, #tmem>) : i32 {
      %x = tile.load %a[%i, %c0] : !tile.desc<tensor<128x64xbf16, #smem>>
      // expected-error @+1 {{'tile.dot' op operands must come straight from tile.load on sm100 (shared memory)}}
      %d = tile.dot %x, %y, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #tmem>
      scf.yield %d : tensor<128x128xf32, #tmem>
    }
    gpu.return
  }
}

// -----

// Attention needs an O += P V for every S = Q K^T.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#s = #tile.tmem<block = [128, 128], unpacked = true>
#regs = #tile.tmem_32x32b<warpgroups = 1>
#row = #tile.slice<dim = 1, parent = #regs>
gpu.module @no_pv [#nvvm.target<chip = "sm_100a">] {
  gpu.func @no_pv(%q: !tile.desc<tensor<128x64xbf16, #smem>>, %k: !tile.desc<tensor<128x64xbf16, #smem>>, %n: i32) kernel {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %x = tile.load %q[%c0, %c0] : !tile.desc<tensor<128x64xbf16, #smem>>
    %ninf = arith.constant dense<0xFF800000> : tensor<128xf32, #row>
    // expected-error @+1 {{'scf.for' op attention on sm100: expects one S = Q K^T and one O += P V per consumer}}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%m = %ninf) -> (tensor<128xf32, #row>) : i32 {
      %y = tile.load %k[%i, %c0] : !tile.desc<tensor<128x64xbf16, #smem>>
      %zs = arith.constant dense<0.0> : tensor<128x128xf32, #s>
      %sd = tile.dot %x, %y, %zs {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #s>
      %sr = tile.convert_layout %sd : tensor<128x128xf32, #s> -> tensor<128x128xf32, #regs>
      %mx = tile.reduce max %sr axis 1 : tensor<128x128xf32, #regs> -> tensor<128xf32, #row>
      scf.yield %mx : tensor<128xf32, #row>
    }
    gpu.return
  }
}

// -----

// With O stored by plain stores the LSE row goes through the ring of row
// vectors: it must be computed after the loop, in its block (a loop result
// itself is no op of the softmax to hand over).
#nvmma_shared = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#tmem = #tile.tmem<block = [128, 64], unpacked = true>
#tmem1 = #tile.tmem<block = [128, 128], unpacked = true>
#tmem2 = #tile.tmem<block = [128, 128], unpacked = false>
#tmem_32x32b = #tile.tmem_32x32b<warpgroups = 1>
#slice = #tile.slice<dim = 1, parent = #tmem_32x32b>
gpu.module @row_from_loop [#nvvm.target<chip = "sm_100a">] {
  gpu.func @row_from_loop(%arg0: !tile.desc<tensor<128x64xbf16, #nvmma_shared>>, %arg1: !tile.desc<tensor<128x64xbf16, #nvmma_shared>>, %arg2: !tile.desc<tensor<128x64xbf16, #nvmma_shared>>, %arg3: memref<?x64xf32>, %arg4: memref<?xf32>, %arg5: i32) kernel {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %0 = tile.load %arg0[%c0_i32, %c0_i32] : !tile.desc<tensor<128x64xbf16, #nvmma_shared>>
    %cst = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #tmem>
    %cst_0 = arith.constant dense<0xFF800000> : tensor<128xf32, #slice>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<128xf32, #slice>
    %1:3 = scf.for %arg6 = %c0_i32 to %arg5 step %c1_i32 iter_args(%arg7 = %cst, %arg8 = %cst_0, %arg9 = %cst_1) -> (tensor<128x64xf32, #tmem>, tensor<128xf32, #slice>, tensor<128xf32, #slice>)  : i32 {
      %5 = tile.convert_layout %arg7 : tensor<128x64xf32, #tmem> -> tensor<128x64xf32, #tmem_32x32b>
      %6 = tile.load %arg1[%arg6, %c0_i32] : !tile.desc<tensor<128x64xbf16, #nvmma_shared>>
      %7 = tile.load %arg2[%arg6, %c0_i32] : !tile.desc<tensor<128x64xbf16, #nvmma_shared>>
      %cst_2 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #tmem1>
      %8 = tile.dot %0, %6, %cst_2 {transpose_b} : tensor<128x64xbf16, #nvmma_shared>, tensor<128x64xbf16, #nvmma_shared>, tensor<128x128xf32, #tmem1>
      %9 = tile.convert_layout %8 : tensor<128x128xf32, #tmem1> -> tensor<128x128xf32, #tmem_32x32b>
      %10 = tile.reduce max %9 axis 1 : tensor<128x128xf32, #tmem_32x32b> -> tensor<128xf32, #slice>
      %11 = arith.maximumf %arg8, %10 : tensor<128xf32, #slice>
      %12 = arith.subf %arg8, %11 : tensor<128xf32, #slice>
      %13 = math.exp2 %12 : tensor<128xf32, #slice>
      %14 = tile.broadcast %13 axis 1 : tensor<128xf32, #slice> -> tensor<128x64xf32, #tmem_32x32b>
      %15 = arith.mulf %5, %14 : tensor<128x64xf32, #tmem_32x32b>
      %16 = tile.convert_layout %15 : tensor<128x64xf32, #tmem_32x32b> -> tensor<128x64xf32, #tmem>
      %17 = tile.broadcast %11 axis 1 : tensor<128xf32, #slice> -> tensor<128x128xf32, #tmem_32x32b>
      %18 = arith.subf %9, %17 : tensor<128x128xf32, #tmem_32x32b>
      %19 = math.exp2 %18 : tensor<128x128xf32, #tmem_32x32b>
      %20 = tile.reduce sum %19 axis 1 : tensor<128x128xf32, #tmem_32x32b> -> tensor<128xf32, #slice>
      %21 = arith.mulf %arg9, %13 : tensor<128xf32, #slice>
      %22 = arith.addf %21, %20 : tensor<128xf32, #slice>
      %23 = arith.truncf %19 : tensor<128x128xf32, #tmem_32x32b> to tensor<128x128xbf16, #tmem_32x32b>
      %24 = tile.convert_layout %23 : tensor<128x128xbf16, #tmem_32x32b> -> tensor<128x128xbf16, #tmem2>
      %25 = tile.dot %24, %7, %16 : tensor<128x128xbf16, #tmem2>, tensor<128x64xbf16, #nvmma_shared>, tensor<128x64xf32, #tmem>
      scf.yield %25, %11, %22 : tensor<128x64xf32, #tmem>, tensor<128xf32, #slice>, tensor<128xf32, #slice>
    }
    %2 = tile.convert_layout %1#0 : tensor<128x64xf32, #tmem> -> tensor<128x64xf32, #tmem_32x32b>
    %one = arith.constant dense<1.0> : tensor<128xf32, #slice>
    %inv = arith.divf %one, %1#2 fastmath<afn> : tensor<128xf32, #slice>
    %3 = tile.broadcast %inv axis 1 : tensor<128xf32, #slice> -> tensor<128x64xf32, #tmem_32x32b>
    %4 = arith.mulf %2, %3 : tensor<128x64xf32, #tmem_32x32b>
    tile.store_direct %arg3[%c0_i32, %c0_i32], %4 : memref<?x64xf32>, tensor<128x64xf32, #tmem_32x32b>
    // expected-error @+1 {{attention on sm100: stores a row computed after the main loop from the statistics of one consumer}}
    tile.store_direct %arg4[%c0_i32], %1#1 : memref<?xf32>, tensor<128xf32, #slice>
    gpu.return
  }
}

// -----

// A counter arrival publishes plain stores of partial results: not with O
// leaving by TMA.
#nvmma_shared = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#tmem = #tile.tmem<block = [128, 64], unpacked = true>
#tmem1 = #tile.tmem<block = [128, 128], unpacked = true>
#tmem2 = #tile.tmem<block = [128, 128], unpacked = false>
#tmem_32x32b = #tile.tmem_32x32b<warpgroups = 1>
#slice = #tile.slice<dim = 1, parent = #tmem_32x32b>
gpu.module @arrive_with_tma [#nvvm.target<chip = "sm_100a">] {
  gpu.func @arrive_with_tma(%arg0: !tile.desc<tensor<128x64xbf16, #nvmma_shared>>, %arg1: !tile.desc<tensor<128x64xbf16, #nvmma_shared>>, %arg2: !tile.desc<tensor<128x64xbf16, #nvmma_shared>>, %arg3: !tile.desc<tensor<128x64xf32>>, %arg4: memref<?xf32>, %arg5: i32, %counters: memref<?xi32>) kernel {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %0 = tile.load %arg0[%c0_i32, %c0_i32] : !tile.desc<tensor<128x64xbf16, #nvmma_shared>>
    %cst = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #tmem>
    %cst_0 = arith.constant dense<0xFF800000> : tensor<128xf32, #slice>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<128xf32, #slice>
    %1:3 = scf.for %arg6 = %c0_i32 to %arg5 step %c1_i32 iter_args(%arg7 = %cst, %arg8 = %cst_0, %arg9 = %cst_1) -> (tensor<128x64xf32, #tmem>, tensor<128xf32, #slice>, tensor<128xf32, #slice>)  : i32 {
      %5 = tile.convert_layout %arg7 : tensor<128x64xf32, #tmem> -> tensor<128x64xf32, #tmem_32x32b>
      %6 = tile.load %arg1[%arg6, %c0_i32] : !tile.desc<tensor<128x64xbf16, #nvmma_shared>>
      %7 = tile.load %arg2[%arg6, %c0_i32] : !tile.desc<tensor<128x64xbf16, #nvmma_shared>>
      %cst_2 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #tmem1>
      %8 = tile.dot %0, %6, %cst_2 {transpose_b} : tensor<128x64xbf16, #nvmma_shared>, tensor<128x64xbf16, #nvmma_shared>, tensor<128x128xf32, #tmem1>
      %9 = tile.convert_layout %8 : tensor<128x128xf32, #tmem1> -> tensor<128x128xf32, #tmem_32x32b>
      %10 = tile.reduce max %9 axis 1 : tensor<128x128xf32, #tmem_32x32b> -> tensor<128xf32, #slice>
      %11 = arith.maximumf %arg8, %10 : tensor<128xf32, #slice>
      %12 = arith.subf %arg8, %11 : tensor<128xf32, #slice>
      %13 = math.exp2 %12 : tensor<128xf32, #slice>
      %14 = tile.broadcast %13 axis 1 : tensor<128xf32, #slice> -> tensor<128x64xf32, #tmem_32x32b>
      %15 = arith.mulf %5, %14 : tensor<128x64xf32, #tmem_32x32b>
      %16 = tile.convert_layout %15 : tensor<128x64xf32, #tmem_32x32b> -> tensor<128x64xf32, #tmem>
      %17 = tile.broadcast %11 axis 1 : tensor<128xf32, #slice> -> tensor<128x128xf32, #tmem_32x32b>
      %18 = arith.subf %9, %17 : tensor<128x128xf32, #tmem_32x32b>
      %19 = math.exp2 %18 : tensor<128x128xf32, #tmem_32x32b>
      %20 = tile.reduce sum %19 axis 1 : tensor<128x128xf32, #tmem_32x32b> -> tensor<128xf32, #slice>
      %21 = arith.mulf %arg9, %13 : tensor<128xf32, #slice>
      %22 = arith.addf %21, %20 : tensor<128xf32, #slice>
      %23 = arith.truncf %19 : tensor<128x128xf32, #tmem_32x32b> to tensor<128x128xbf16, #tmem_32x32b>
      %24 = tile.convert_layout %23 : tensor<128x128xbf16, #tmem_32x32b> -> tensor<128x128xbf16, #tmem2>
      %25 = tile.dot %24, %7, %16 : tensor<128x128xbf16, #tmem2>, tensor<128x64xbf16, #nvmma_shared>, tensor<128x64xf32, #tmem>
      scf.yield %25, %11, %22 : tensor<128x64xf32, #tmem>, tensor<128xf32, #slice>, tensor<128xf32, #slice>
    }
    %2 = tile.convert_layout %1#0 : tensor<128x64xf32, #tmem> -> tensor<128x64xf32, #tmem_32x32b>
    %one = arith.constant dense<1.0> : tensor<128xf32, #slice>
    %inv = arith.divf %one, %1#2 fastmath<afn> : tensor<128xf32, #slice>
    %3 = tile.broadcast %inv axis 1 : tensor<128xf32, #slice> -> tensor<128x64xf32, #tmem_32x32b>
    %4 = arith.mulf %2, %3 : tensor<128x64xf32, #tmem_32x32b>
    tile.store %arg3[%c0_i32, %c0_i32], %4 : !tile.desc<tensor<128x64xf32>>, tensor<128x64xf32, #tmem_32x32b>
    %log = math.log2 %1#2 : tensor<128xf32, #slice>
    %lse = arith.addf %1#1, %log : tensor<128xf32, #slice>
    tile.store_direct %arg4[%c0_i32], %lse : memref<?xf32>, tensor<128xf32, #slice>
    %c2_i32 = arith.constant 2 : i32
    // expected-error @+1 {{attention on sm100: arrives at a counter in the block of the main loop, after plain stores of the partial results only}}
    %last = tile.counter_arrive %counters[%c0_i32], %c2_i32 : memref<?xi32>
    gpu.return
  }
}
