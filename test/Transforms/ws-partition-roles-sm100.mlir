// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-partition-roles=target=sm100 | FileCheck %s
// RUN: not fmha-opt %s -split-input-file --ws-partition-roles=target=sm80 2>&1 | FileCheck %s --check-prefix=TARGET

// TARGET: error: ws-partition-roles: unknown target 'sm80' (known: sm90, sm100)

// A GEMM main loop after tile-assign-layouts{target=sm100}: the operand ring
// as on sm90 (fmha.stages sets its depth), and a two-slot tensor-memory ring
// of accumulators between the MMA warp and the epilogue warpgroup.
// CHECK-DAG: #[[SMEM:[a-z0-9_]+]] = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
// CHECK-DAG: #[[TMEM:[a-z0-9_]+]] = #tile.tmem<block = [128, 256], unpacked = true>
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
// The epilogue: wait for the accumulator, read it (tcgen05.ld), give the slot
// back, convert, store through the staging buffer.
// CHECK: ws.role "epilogue0" warps 4 regs 232 {
// CHECK:   %[[ETOK:.*]], %[[EBUF:.*]] = ws.consumer_wait %[[ACCS]]
// CHECK:   %[[T:.*]] = ws.as_tensor %[[EBUF]] : memref<128x256xf32, #ws.tmem> -> tensor<128x256xf32, #[[TMEM]]>
// CHECK:   %[[V:.*]] = tile.convert_layout %[[T]] : tensor<128x256xf32, #[[TMEM]]> -> tensor<128x256xf32, #[[REGS]]>
// CHECK:   ws.consumer_release %[[ACCS]], %[[ETOK]] by threads
// CHECK:   %[[B:.*]] = arith.truncf %[[V]]
// CHECK:   ws.tma_store_wait
// CHECK:   ws.barrier_sync 1 threads 128
// CHECK:   ws.store_shared %[[B]], %[[STAGE]]
// CHECK:   ws.fence_async_shared
// CHECK:   ws.barrier_sync 1 threads 128
// CHECK:   ws.tma_store
// CHECK: ws.tma_store_wait
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#tmem = #tile.tmem<block = [128, 256], unpacked = true>
#regs = #tile.tmem_32x32b<warpgroups = 1>
gpu.module @gemm {
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

// Attention loads Q before its main loop: not partitioned for sm100 yet.
gpu.module @attention {
  gpu.func @attention(%q: !tile.desc<tensor<128x64xbf16>>, %kd: !tile.desc<tensor<128x64xbf16>>, %n: i32) kernel {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    // expected-error @+1 {{'tile.load' op ws-partition-roles{target=sm100} handles tile programs whose loads all sit directly in one scf.for (GEMM main loops); attention is not partitioned for sm100 yet}}
    %x = tile.load %q[%c0, %c0] : !tile.desc<tensor<128x64xbf16>>
    %zero = arith.constant dense<0.0> : tensor<128x128xf32>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
      %y = tile.load %kd[%i, %c0] : !tile.desc<tensor<128x64xbf16>>
      %d = tile.dot %x, %y, %acc {transpose_b} : tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x128xf32>
      scf.yield %d : tensor<128x128xf32>
    }
    gpu.return
  }
}

// -----

// Every loop-carried value must be an accumulator.
gpu.module @carried {
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
gpu.module @sm90_layouts {
  gpu.func @sm90_layouts(%a: !tile.desc<tensor<128x64xbf16, #smem>>, %n: i32) kernel {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32, #acc>) : i32 {
      %x = tile.load %a[%i, %c0] : !tile.desc<tensor<128x64xbf16, #smem>>
      // expected-error @+1 {{'tile.dot' op needs a tensor-memory accumulator: run tile-assign-layouts{target=sm100} first}}
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
gpu.module @operand {
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
