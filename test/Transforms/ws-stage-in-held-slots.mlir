// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-stage-in-held-slots | FileCheck %s

// A consumer holds the slot of a one-slot channel (its Q tile) through its
// main loop, and stages its TMA store in a buffer of the same type. It
// stages in the slot's buffer instead, keeps the slot until the store has
// read it (the release moves after the ws.tma_store_wait), and the staging
// buffer goes. Consumer 1's Q tile is buffer #1, which only it reads.
// CHECK-LABEL: func.func @stage_in_q(
// CHECK-NOT: ws.buffer_alloc
// CHECK: ws.role "consumer0"
// CHECK:   %[[T:.*]], %[[Q:.*]]:2 = ws.consumer_wait %[[QCH:.*]] :
// CHECK:   scf.for
// CHECK:   }
// CHECK-NOT: ws.consumer_release %[[QCH]]
// CHECK:   ws.store_shared %{{.*}}, %[[Q]]#0
// CHECK:   ws.tma_store %{{.*}}, %[[Q]]#0
// CHECK-NEXT: ws.tma_store_wait
// CHECK-NEXT: ws.consumer_release %[[QCH]], %[[T]] by threads
// CHECK: ws.role "consumer1"
// CHECK:   %[[T1:.*]], %[[Q1:.*]]:2 = ws.consumer_wait %[[QCH]] :
// CHECK:   ws.store_shared %{{.*}}, %[[Q1]]#1
// CHECK:   ws.tma_store %{{.*}}, %[[Q1]]#1
// CHECK-NEXT: ws.tma_store_wait
// CHECK-NEXT: ws.consumer_release %[[QCH]], %[[T1]] by threads
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
!q = !ws.channel<[memref<64x64xbf16, 3>, memref<64x64xbf16, 3>], stages = 1>
func.func @stage_in_q(%qd: !tile.desc<tensor<64x64xbf16, #smem>>, %od: !tile.desc<tensor<64x64xbf16>>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  %q = ws.channel : !q
  %s0 = ws.buffer_alloc : memref<64x64xbf16, 3>
  %s1 = ws.buffer_alloc : memref<64x64xbf16, 3>
  ws.warp_specialize {
    ws.role "producer" warps 1 regs 40 {
      %t, %b:2 = ws.producer_acquire %q : !q
      ws.tma_load %qd[%c0, %c0], %b#0, %t : !tile.desc<tensor<64x64xbf16, #smem>>, memref<64x64xbf16, 3>
      ws.tma_load %qd[%c0, %c0], %b#1, %t : !tile.desc<tensor<64x64xbf16, #smem>>, memref<64x64xbf16, 3>
      ws.producer_commit %q, %t by tma tx_bytes 16384 : !q
    }
    ws.role "consumer0" warps 4 regs 232 {
      %t, %b:2 = ws.consumer_wait %q : !q
      %x = ws.as_tensor %b#0 : memref<64x64xbf16, 3> -> tensor<64x64xbf16, #smem>
      %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #acc>) : i32 {
        %d = tile.dot %x, %x, %acc {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        scf.yield %d : tensor<64x64xf32, #acc>
      }
      ws.consumer_release %q, %t by threads : !q
      %o = arith.truncf %r : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
      ws.tma_store_wait
      ws.barrier_sync 1 threads 128
      ws.store_shared %o, %s0 : tensor<64x64xbf16, #acc>, memref<64x64xbf16, 3>
      ws.fence_async_shared
      ws.barrier_sync 1 threads 128
      ws.tma_store %od[%c0, %c0], %s0 : !tile.desc<tensor<64x64xbf16>>, memref<64x64xbf16, 3>
      ws.tma_store_wait
    }
    ws.role "consumer1" warps 4 regs 232 {
      %t, %b:2 = ws.consumer_wait %q : !q
      %x = ws.as_tensor %b#1 : memref<64x64xbf16, 3> -> tensor<64x64xbf16, #smem>
      %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #acc>) : i32 {
        %d = tile.dot %x, %x, %acc {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        scf.yield %d : tensor<64x64xf32, #acc>
      }
      ws.consumer_release %q, %t by threads : !q
      %o = arith.truncf %r : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
      ws.tma_store_wait
      ws.barrier_sync 2 threads 128
      ws.store_shared %o, %s1 : tensor<64x64xbf16, #acc>, memref<64x64xbf16, 3>
      ws.fence_async_shared
      ws.barrier_sync 2 threads 128
      ws.tma_store %od[%c0, %c0], %s1 : !tile.desc<tensor<64x64xbf16>>, memref<64x64xbf16, 3>
      ws.tma_store_wait
    }
  }
  return
}

// -----

// Both consumers read buffer #0 of the slot: neither may write it, so the
// staging buffer stays and the slot is released after the loop.
// CHECK-LABEL: func.func @shared_buffer(
// CHECK: %[[S:.*]] = ws.buffer_alloc
// CHECK: ws.role "consumer0"
// CHECK:   ws.consumer_release
// CHECK:   ws.store_shared %{{.*}}, %[[S]]
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
!q = !ws.channel<[memref<64x64xbf16, 3>], stages = 1>
func.func @shared_buffer(%qd: !tile.desc<tensor<64x64xbf16, #smem>>, %od: !tile.desc<tensor<64x64xbf16>>) {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  %q = ws.channel : !q
  %s0 = ws.buffer_alloc : memref<64x64xbf16, 3>
  ws.warp_specialize {
    ws.role "producer" warps 1 regs 40 {
      %t, %b = ws.producer_acquire %q : !q
      ws.tma_load %qd[%c0, %c0], %b, %t : !tile.desc<tensor<64x64xbf16, #smem>>, memref<64x64xbf16, 3>
      ws.producer_commit %q, %t by tma tx_bytes 8192 : !q
    }
    ws.role "consumer0" warps 4 regs 232 {
      %t, %b = ws.consumer_wait %q : !q
      %x = ws.as_tensor %b : memref<64x64xbf16, 3> -> tensor<64x64xbf16, #smem>
      %d = tile.dot %x, %x, %zero {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
      ws.consumer_release %q, %t by threads : !q
      %o = arith.truncf %d : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
      ws.store_shared %o, %s0 : tensor<64x64xbf16, #acc>, memref<64x64xbf16, 3>
      ws.tma_store %od[%c0, %c0], %s0 : !tile.desc<tensor<64x64xbf16>>, memref<64x64xbf16, 3>
      ws.tma_store_wait
    }
    ws.role "consumer1" warps 4 regs 232 {
      %t, %b = ws.consumer_wait %q : !q
      %x = ws.as_tensor %b : memref<64x64xbf16, 3> -> tensor<64x64xbf16, #smem>
      %d = tile.dot %x, %x, %zero {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
      ws.consumer_release %q, %t by threads : !q
    }
  }
  return
}

// -----

// The store runs under an scf.if (a varlen block that ends inside its
// sequence): the staging still moves into the held slot, and the release
// moves after a ws.tma_store_wait added after the scf.if.
// CHECK-LABEL: func.func @conditional_store(
// CHECK-NOT: ws.buffer_alloc
// CHECK: ws.role "consumer0"
// CHECK:   %[[T:.*]], %[[Q:.*]] = ws.consumer_wait %[[QCH:.*]] :
// CHECK-NOT: ws.consumer_release
// CHECK:   scf.if
// CHECK:     ws.store_shared %{{.*}}, %[[Q]]
// CHECK:     ws.tma_store %{{.*}}, %[[Q]]
// CHECK:   }
// CHECK-NEXT: ws.tma_store_wait
// CHECK-NEXT: ws.consumer_release %[[QCH]], %[[T]] by threads
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
!q = !ws.channel<[memref<64x64xbf16, 3>], stages = 1>
func.func @conditional_store(%qd: !tile.desc<tensor<64x64xbf16, #smem>>, %od: !tile.desc<tensor<64x64xbf16>>, %inside: i1) {
  %c0 = arith.constant 0 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  %q = ws.channel : !q
  %s0 = ws.buffer_alloc : memref<64x64xbf16, 3>
  ws.warp_specialize {
    ws.role "producer" warps 1 regs 40 {
      %t, %b = ws.producer_acquire %q : !q
      ws.tma_load %qd[%c0, %c0], %b, %t : !tile.desc<tensor<64x64xbf16, #smem>>, memref<64x64xbf16, 3>
      ws.producer_commit %q, %t by tma tx_bytes 8192 : !q
    }
    ws.role "consumer0" warps 4 regs 232 {
      %t, %b = ws.consumer_wait %q : !q
      %x = ws.as_tensor %b : memref<64x64xbf16, 3> -> tensor<64x64xbf16, #smem>
      %d = tile.dot %x, %x, %zero {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
      ws.consumer_release %q, %t by threads : !q
      %o = arith.truncf %d : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
      scf.if %inside {
        ws.store_shared %o, %s0 : tensor<64x64xbf16, #acc>, memref<64x64xbf16, 3>
        ws.fence_async_shared
        ws.tma_store %od[%c0, %c0], %s0 : !tile.desc<tensor<64x64xbf16>>, memref<64x64xbf16, 3>
      }
    }
  }
  return
}
