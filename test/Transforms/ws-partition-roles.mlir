// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-assign-roles --ws-partition-roles --ws-schedule-ping-pong --ws-stage-in-held-slots | FileCheck %s
// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-assign-roles=stages=4 --ws-partition-roles --ws-schedule-ping-pong --ws-stage-in-held-slots | FileCheck %s --check-prefix=STAGES

// A two-consumer GEMM as fmha-expand-kernels and tile-assign-layouts leave it
// (the manifest dropped): one channel slot holds the three tiles of a K step
// (two A tiles, the shared B tile); fmha.stages sets the depth and wins over
// the option. Each consumer reads its A tile (#0 or #1) and B (#2) in place,
// keeps one accumulator chain and stores it through its own staging buffer,
// synchronizing its own warpgroup on its own named barrier.
// CHECK-DAG: #[[SMEM:[a-z0-9_]+]] = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
// CHECK-DAG: #[[ACC:[a-z0-9_]+]] = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
// CHECK-LABEL: gpu.func @gemm(
// CHECK-SAME: %[[A:[a-z0-9_]+]]: !tile.desc<tensor<128x64xbf16, #[[SMEM]]>>, %[[B:[a-z0-9_]+]]: !tile.desc<tensor<128x64xbf16, #[[SMEM]]>>, %[[C:[a-z0-9_]+]]: !tile.desc<tensor<128x128xbf16>>
// CHECK: %[[CH:.*]] = ws.channel : !ws.channel<[memref<128x64xbf16, 3>, memref<128x64xbf16, 3>, memref<128x64xbf16, 3>], stages = 3>
// CHECK: %[[S0:.*]] = ws.buffer_alloc : memref<128x128xbf16, 3>
// CHECK: %[[S1:.*]] = ws.buffer_alloc : memref<128x128xbf16, 3>
// CHECK: ws.warp_specialize {

// The producer: no dots, no stores; acquire, three TMA loads, one commit of
// 3 x 128 x 64 x 2 bytes.
// CHECK: ws.role "producer" warps 1 regs 40 {
// CHECK:   scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK:     %[[PTOK:.*]], %[[PBUF:.*]]:3 = ws.producer_acquire %[[CH]]
// CHECK:     ws.tma_load %[[A]][%{{.*}}, %{{.*}}], %[[PBUF]]#0, %[[PTOK]] : !tile.desc<tensor<128x64xbf16, #[[SMEM]]>>, memref<128x64xbf16, 3>
// CHECK:     ws.tma_load %[[A]][%{{.*}}, %{{.*}}], %[[PBUF]]#1, %[[PTOK]] : !tile.desc<tensor<128x64xbf16, #[[SMEM]]>>, memref<128x64xbf16, 3>
// CHECK:     ws.tma_load %[[B]][%{{.*}}, %{{.*}}], %[[PBUF]]#2, %[[PTOK]] : !tile.desc<tensor<128x64xbf16, #[[SMEM]]>>, memref<128x64xbf16, 3>
// CHECK:     ws.producer_commit %[[CH]], %[[PTOK]] by tma tx_bytes 49152
// CHECK-NOT: tile.dot
// CHECK-NOT: tile.store
// CHECK-NOT: ws.tma_store

// Consumer 0: A tile #0, B #2, the first chain, barrier 1.
// CHECK: ws.role "consumer0" warps 4 regs 232 {
// CHECK:   %[[R0:.*]] = scf.for {{.*}} iter_args(%[[ACC0:.*]] = %{{.*}}) -> (tensor<128x128xf32, #[[ACC]]>) : i32 {
// CHECK:     %[[TOK0:.*]], %[[BUF0:.*]]:3 = ws.consumer_wait %[[CH]]
// CHECK:     %[[X0:.*]] = ws.as_tensor %[[BUF0]]#0 : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #[[SMEM]]>
// CHECK:     %[[Y0:.*]] = ws.as_tensor %[[BUF0]]#2 : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #[[SMEM]]>
// CHECK:     %[[D0:.*]] = tile.dot %[[X0]], %[[Y0]], %[[ACC0]] {transpose_b}
// CHECK-NOT: tile.dot
// CHECK:     ws.consumer_release %[[CH]], %[[TOK0]] by wgmma
// CHECK:     scf.yield %[[D0]] : tensor<128x128xf32, #[[ACC]]>
// CHECK:   }
// CHECK:   %[[T0:.*]] = arith.truncf %[[R0]] : tensor<128x128xf32, #[[ACC]]> to tensor<128x128xbf16, #[[ACC]]>
// CHECK:   ws.store_shared %[[T0]], %[[S0]] : tensor<128x128xbf16, #[[ACC]]>, memref<128x128xbf16, 3>
// CHECK:   ws.fence_async_shared
// CHECK:   ws.barrier_sync 1 threads 128
// CHECK:   ws.tma_store %[[C]][%{{.*}}, %{{.*}}], %[[S0]] : !tile.desc<tensor<128x128xbf16>>, memref<128x128xbf16, 3>
// CHECK:   ws.tma_store_wait
// CHECK-NOT: ws.tma_store

// Consumer 1: A tile #1 (rows m0 + 128), B #2, the second chain, barrier 2.
// CHECK: ws.role "consumer1" warps 4 regs 232 {
// CHECK:   %[[M1:.*]] = arith.addi
// CHECK:   %[[R1:.*]] = scf.for {{.*}} iter_args(%[[ACC1:.*]] = %{{.*}}) -> (tensor<128x128xf32, #[[ACC]]>) : i32 {
// CHECK:     %[[TOK1:.*]], %[[BUF1:.*]]:3 = ws.consumer_wait %[[CH]]
// CHECK:     %[[X1:.*]] = ws.as_tensor %[[BUF1]]#1 : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #[[SMEM]]>
// CHECK:     %[[Y1:.*]] = ws.as_tensor %[[BUF1]]#2 : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #[[SMEM]]>
// CHECK:     %[[D1:.*]] = tile.dot %[[X1]], %[[Y1]], %[[ACC1]] {transpose_b}
// CHECK-NOT: tile.dot
// CHECK:     ws.consumer_release %[[CH]], %[[TOK1]] by wgmma
// CHECK:     scf.yield %[[D1]] : tensor<128x128xf32, #[[ACC]]>
// CHECK:   }
// CHECK:   %[[T1:.*]] = arith.truncf %[[R1]]
// CHECK:   ws.store_shared %[[T1]], %[[S1]] : tensor<128x128xbf16, #[[ACC]]>, memref<128x128xbf16, 3>
// CHECK:   ws.fence_async_shared
// CHECK:   ws.barrier_sync 2 threads 128
// CHECK:   ws.tma_store %[[C]][%[[M1]], %{{.*}}], %[[S1]] : !tile.desc<tensor<128x128xbf16>>, memref<128x128xbf16, 3>
// CHECK:   ws.tma_store_wait
// CHECK-NOT: ws.role
// CHECK-NOT: tile.load
// CHECK-NOT: tile.store
// CHECK: gpu.return

// STAGES-LABEL: gpu.func @gemm(
// STAGES: ws.channel : !ws.channel<[memref<128x64xbf16, 3>, memref<128x64xbf16, 3>, memref<128x64xbf16, 3>], stages = 3>

#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @gemm_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @gemm(%a: !tile.desc<tensor<128x64xbf16, #smem>>,
                   %b: !tile.desc<tensor<128x64xbf16, #smem>>,
                   %c: !tile.desc<tensor<128x128xbf16>>,
                   %m: i32, %n: i32, %k: i32) kernel attributes {fmha.stages = 3 : i64} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c63 = arith.constant 63 : i32
      %c64 = arith.constant 64 : i32
      %c128 = arith.constant 128 : i32
      %c256 = arith.constant 256 : i32
      %pid_m = tile.program_id x : i32
      %pid_n = tile.program_id y : i32
      %m0 = arith.muli %pid_m, %c256 : i32
      %m1 = arith.addi %m0, %c128 : i32
      %n0 = arith.muli %pid_n, %c128 : i32
      %kp = arith.addi %k, %c63 : i32
      %ktiles = arith.divui %kp, %c64 : i32
      %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
      %r:2 = scf.for %kt = %c0 to %ktiles step %c1
          iter_args(%acc0 = %zero, %acc1 = %zero)
          -> (tensor<128x128xf32, #acc>, tensor<128x128xf32, #acc>) : i32 {
        %ko = arith.muli %kt, %c64 : i32
        %x0 = tile.load %a[%m0, %ko] : !tile.desc<tensor<128x64xbf16, #smem>>
        %x1 = tile.load %a[%m1, %ko] : !tile.desc<tensor<128x64xbf16, #smem>>
        %y = tile.load %b[%n0, %ko] : !tile.desc<tensor<128x64xbf16, #smem>>
        %d0 = tile.dot %x0, %y, %acc0 {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
        %d1 = tile.dot %x1, %y, %acc1 {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
        scf.yield %d0, %d1 : tensor<128x128xf32, #acc>, tensor<128x128xf32, #acc>
      }
      %t0 = arith.truncf %r#0 : tensor<128x128xf32, #acc> to tensor<128x128xbf16, #acc>
      tile.store %c[%m0, %n0], %t0 : !tile.desc<tensor<128x128xbf16>>, tensor<128x128xbf16, #acc>
      %t1 = arith.truncf %r#1 : tensor<128x128xf32, #acc> to tensor<128x128xbf16, #acc>
      tile.store %c[%m1, %n0], %t1 : !tile.desc<tensor<128x128xbf16>>, tensor<128x128xbf16, #acc>
      gpu.return
    }
  }
}

// -----

// One consumer, f16 operands of different shapes, an f32 result stored as
// is, and no fmha.stages: the channel takes the `stages` option (2 by
// default). 64 x 32 x 2 + 128 x 32 x 2 bytes per slot.
// CHECK-LABEL: gpu.func @gemm_f32(
// CHECK: %[[CH:.*]] = ws.channel : !ws.channel<[memref<64x32xf16, 3>, memref<128x32xf16, 3>], stages = 2>
// CHECK: %[[S:.*]] = ws.buffer_alloc : memref<64x128xf32, 3>
// CHECK-NOT: ws.buffer_alloc
// CHECK: ws.role "producer" warps 1 regs 40 {
// CHECK:   ws.producer_acquire %[[CH]]
// CHECK:   ws.tma_load
// CHECK:   ws.tma_load
// CHECK:   ws.producer_commit %[[CH]], %{{.*}} by tma tx_bytes 12288
// CHECK: ws.role "consumer0" warps 4 regs 232 {
// CHECK:   %[[R:.*]] = scf.for
// CHECK:     ws.consumer_wait %[[CH]]
// CHECK:     ws.as_tensor %{{.*}}#0 : memref<64x32xf16, 3> -> tensor<64x32xf16, #{{.*}}>
// CHECK:     ws.as_tensor %{{.*}}#1 : memref<128x32xf16, 3> -> tensor<128x32xf16, #{{.*}}>
// CHECK:     tile.dot
// CHECK:     ws.consumer_release %[[CH]], %{{.*}} by wgmma
// CHECK-NOT: arith.truncf
// CHECK:   ws.store_shared %[[R]], %[[S]] : tensor<64x128xf32, #{{.*}}>, memref<64x128xf32, 3>
// CHECK:   ws.fence_async_shared
// CHECK:   ws.barrier_sync 1 threads 128
// CHECK:   ws.tma_store %{{.*}}[%{{.*}}, %{{.*}}], %[[S]] : !tile.desc<tensor<64x128xf32>>, memref<64x128xf32, 3>
// CHECK:   ws.tma_store_wait
// CHECK-NOT: ws.role "consumer1"

// STAGES-LABEL: gpu.func @gemm_f32(
// STAGES: ws.channel : !ws.channel<[memref<64x32xf16, 3>, memref<128x32xf16, 3>], stages = 4>

#smem = #tile.nvmma_shared<swizzle = 64, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @gemm_f32_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @gemm_f32(%a: !tile.desc<tensor<64x32xf16, #smem>>,
                       %b: !tile.desc<tensor<128x32xf16, #smem>>,
                       %c: !tile.desc<tensor<64x128xf32>>,
                       %m: i32, %n: i32, %k: i32) kernel {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c31 = arith.constant 31 : i32
      %c32 = arith.constant 32 : i32
      %c64 = arith.constant 64 : i32
      %c128 = arith.constant 128 : i32
      %pid_m = tile.program_id x : i32
      %pid_n = tile.program_id y : i32
      %m0 = arith.muli %pid_m, %c64 : i32
      %n0 = arith.muli %pid_n, %c128 : i32
      %kp = arith.addi %k, %c31 : i32
      %ktiles = arith.divui %kp, %c32 : i32
      %zero = arith.constant dense<0.0> : tensor<64x128xf32, #acc>
      %r = scf.for %kt = %c0 to %ktiles step %c1 iter_args(%acc0 = %zero)
          -> (tensor<64x128xf32, #acc>) : i32 {
        %ko = arith.muli %kt, %c32 : i32
        %x = tile.load %a[%m0, %ko] : !tile.desc<tensor<64x32xf16, #smem>>
        %y = tile.load %b[%n0, %ko] : !tile.desc<tensor<128x32xf16, #smem>>
        %d = tile.dot %x, %y, %acc0 {transpose_b} : tensor<64x32xf16, #smem>, tensor<128x32xf16, #smem>, tensor<64x128xf32, #acc>
        scf.yield %d : tensor<64x128xf32, #acc>
      }
      tile.store %c[%m0, %n0], %r : !tile.desc<tensor<64x128xf32>>, tensor<64x128xf32, #acc>
      gpu.return
    }
  }
}

// -----

// TMA multicast (`ws.multicast`, clusters of two CTAs sharing B tiles): the
// producer loads B, the dot's B operand, by multicast (each CTA half of it,
// into both CTAs); A stays this CTA's own load. The consumer still releases
// its slots by wgmma (ws-insert-mbarriers makes those releases reach both
// CTAs).
// CHECK-LABEL: gpu.func @gemm_multicast(
// CHECK: ws.role "producer" warps 1 regs 40 {
// CHECK:   %[[TOK:.*]], %[[BUFS:.*]]:2 = ws.producer_acquire
// CHECK:   ws.tma_load %{{.*}}[%{{.*}}, %{{.*}}], %[[BUFS]]#0, %[[TOK]] :
// CHECK:   ws.tma_load %{{.*}}[%{{.*}}, %{{.*}}], %[[BUFS]]#1, %[[TOK]] multicast :
// CHECK:   ws.producer_commit %{{.*}}, %[[TOK]] by tma tx_bytes 12288
// CHECK: ws.role "consumer0" warps 4 regs 232 {
// CHECK:   ws.consumer_release %{{.*}}, %{{.*}} by wgmma

#smem = #tile.nvmma_shared<swizzle = 64, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @gemm_multicast_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @gemm_multicast(%a: !tile.desc<tensor<64x32xf16, #smem>>,
                             %b: !tile.desc<tensor<128x32xf16, #smem>>,
                             %c: !tile.desc<tensor<64x128xf32>>,
                             %m0: i32, %n0: i32, %ktiles: i32) kernel
        attributes {ws.multicast} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      %zero = arith.constant dense<0.0> : tensor<64x128xf32, #acc>
      %r = scf.for %kt = %c0 to %ktiles step %c1 iter_args(%acc0 = %zero)
          -> (tensor<64x128xf32, #acc>) : i32 {
        %ko = arith.muli %kt, %c32 : i32
        %x = tile.load %a[%m0, %ko] : !tile.desc<tensor<64x32xf16, #smem>>
        %y = tile.load %b[%n0, %ko] : !tile.desc<tensor<128x32xf16, #smem>>
        %d = tile.dot %x, %y, %acc0 {transpose_b} : tensor<64x32xf16, #smem>, tensor<128x32xf16, #smem>, tensor<64x128xf32, #acc>
        scf.yield %d : tensor<64x128xf32, #acc>
      }
      tile.store %c[%m0, %n0], %r : !tile.desc<tensor<64x128xf32>>, tensor<64x128xf32, #acc>
      gpu.return
    }
  }
}

// -----

// Loads in two loops side by side: consumers that take turns, one per
// loop, but the second loop starts from the first one's result, which its
// consumer cannot get.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
func.func @two_loops(%a: !tile.desc<tensor<64x64xbf16, #smem>>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<64x64xf32, #acc>) : i32 {
    %x = tile.load %a[%i, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
    %d = tile.dot %x, %x, %acc0 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
    scf.yield %d : tensor<64x64xf32, #acc>
  }
  // expected-error @+1 {{'scf.for' op starts from a result of another main loop: the consumers of main loops that take turns compute them independently}}
  %r2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %r) -> (tensor<64x64xf32, #acc>) : i32 {
    %x = tile.load %a[%i, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
    %d = tile.dot %x, %x, %acc0 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
    scf.yield %d : tensor<64x64xf32, #acc>
  }
  return
}
}

// -----

// A load outside any loop.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
func.func @no_loop(%a: !tile.desc<tensor<64x64xbf16, #smem>>, %i: i32) {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  // expected-error @+1 {{'tile.load' op ws-assign-roles handles tile programs whose loads sit directly in one scf.for or before or after it in the same block, or directly in several scf.for side by side}}
  %x = tile.load %a[%i, %i] : !tile.desc<tensor<64x64xbf16, #smem>>
  %d = tile.dot %x, %x, %zero {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
  return
}
}

// -----

// The loop's dot does not accumulate into a loop-carried value.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
func.func @no_chain(%a: !tile.desc<tensor<64x64xbf16, #smem>>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  // expected-error @+1 {{'scf.for' op carries no tile.dot accumulator: nothing for consumer roles to do}}
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%last = %zero) -> (tensor<64x64xf32, #acc>) : i32 {
    %x = tile.load %a[%i, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
    %d = tile.dot %x, %x, %zero {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
    scf.yield %d : tensor<64x64xf32, #acc>
  }
  return
}
}

// -----

// A stored value that no consumer computes.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
func.func @foreign_store(%a: !tile.desc<tensor<64x64xbf16, #smem>>,
                         %c: !tile.desc<tensor<64x64xf32>>,
                         %other: tensor<64x64xf32, #acc>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<64x64xf32, #acc>) : i32 {
    %x = tile.load %a[%i, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
    %d = tile.dot %x, %x, %acc0 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
    scf.yield %d : tensor<64x64xf32, #acc>
  }
  tile.store %c[%c0, %c0], %r : !tile.desc<tensor<64x64xf32>>, tensor<64x64xf32, #acc>
  // expected-error @+1 {{'tile.store' op stores a value that does not come from an accumulator of the main loop}}
  tile.store %c[%c0, %c0], %other : !tile.desc<tensor<64x64xf32>>, tensor<64x64xf32, #acc>
  return
}
}

// -----

// Plain stores (tile.store_direct) of row statistics: each stays in place in
// the consumer whose accumulator the statistic is computed from (the row max
// of its S tiles), with no staging buffer and no TMA store; the producer and
// the other consumer drop it.
// CHECK-LABEL: gpu.func @row_max(
// CHECK-SAME: %[[OUT:[a-z0-9_]+]]: memref<?xf32>
// CHECK-NOT: ws.buffer_alloc
// CHECK: ws.role "producer"
// CHECK-NOT: tile.store_direct
// CHECK: ws.role "consumer0"
// CHECK:   %[[R0:.*]]:2 = scf.for
// CHECK:     tile.reduce max
// CHECK:   tile.store_direct %[[OUT]][%{{.*}}], %[[R0]]#1 : memref<?xf32>, tensor<64xf32, #{{.*}}>
// CHECK-NOT: tile.store_direct
// CHECK: ws.role "consumer1"
// CHECK:   %[[M1:.*]] = arith.addi
// CHECK:   %[[R1:.*]]:2 = scf.for
// CHECK:     tile.reduce max
// CHECK:   tile.store_direct %[[OUT]][%[[M1]]], %[[R1]]#1 : memref<?xf32>, tensor<64xf32, #{{.*}}>
// CHECK-NOT: tile.store_direct
// CHECK-NOT: ws.tma_store
// CHECK: gpu.return

#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
#row = #tile.slice<dim = 1, parent = #acc>
module attributes {gpu.container_module} {
  gpu.module @row_max_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @row_max(%a: !tile.desc<tensor<64x64xbf16, #smem>>,
                      %out: memref<?xf32>, %n: i32) kernel {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c64 = arith.constant 64 : i32
      %c128 = arith.constant 128 : i32
      %pid = tile.program_id x : i32
      %m0 = arith.muli %pid, %c128 : i32
      %m1 = arith.addi %m0, %c64 : i32
      %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
      %ninf = arith.constant dense<0xFF800000> : tensor<64xf32, #row>
      %r:4 = scf.for %i = %c0 to %n step %c1
          iter_args(%acc0 = %zero, %max0 = %ninf, %acc1 = %zero, %max1 = %ninf)
          -> (tensor<64x64xf32, #acc>, tensor<64xf32, #row>,
              tensor<64x64xf32, #acc>, tensor<64xf32, #row>) : i32 {
        %k0 = arith.muli %i, %c64 : i32
        %x0 = tile.load %a[%m0, %k0] : !tile.desc<tensor<64x64xbf16, #smem>>
        %x1 = tile.load %a[%m1, %k0] : !tile.desc<tensor<64x64xbf16, #smem>>
        %y = tile.load %a[%k0, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
        %d0 = tile.dot %x0, %y, %acc0 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        %t0 = tile.reduce max %d0 axis 1 : tensor<64x64xf32, #acc> -> tensor<64xf32, #row>
        %n0 = arith.maximumf %max0, %t0 : tensor<64xf32, #row>
        %d1 = tile.dot %x1, %y, %acc1 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        %t1 = tile.reduce max %d1 axis 1 : tensor<64x64xf32, #acc> -> tensor<64xf32, #row>
        %n1 = arith.maximumf %max1, %t1 : tensor<64xf32, #row>
        scf.yield %d0, %n0, %d1, %n1 : tensor<64x64xf32, #acc>, tensor<64xf32, #row>, tensor<64x64xf32, #acc>, tensor<64xf32, #row>
      }
      tile.store_direct %out[%m0], %r#1 : memref<?xf32>, tensor<64xf32, #row>
      tile.store_direct %out[%m1], %r#3 : memref<?xf32>, tensor<64xf32, #row>
      gpu.return
    }
  }
}

// -----

// A plain store of a value that no consumer computes.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
#row = #tile.slice<dim = 1, parent = #acc>
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
func.func @foreign_direct_store(%a: !tile.desc<tensor<64x64xbf16, #smem>>,
                                %out: memref<?xf32>,
                                %other: tensor<64xf32, #row>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<64x64xf32, #acc>) : i32 {
    %x = tile.load %a[%i, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
    %d = tile.dot %x, %x, %acc0 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
    scf.yield %d : tensor<64x64xf32, #acc>
  }
  // expected-error @+1 {{'tile.store_direct' op stores a value that does not come from an accumulator of the main loop}}
  tile.store_direct %out[%c0], %other : memref<?xf32>, tensor<64xf32, #row>
  return
}
}

// -----

// A plain store of a value that both consumers' accumulators feed.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
#row = #tile.slice<dim = 1, parent = #acc>
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
func.func @shared_direct_store(%a: !tile.desc<tensor<64x64xbf16, #smem>>,
                               %out: memref<?xf32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %zero, %acc1 = %zero)
      -> (tensor<64x64xf32, #acc>, tensor<64x64xf32, #acc>) : i32 {
    %x = tile.load %a[%i, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
    %d0 = tile.dot %x, %x, %acc0 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
    %d1 = tile.dot %x, %x, %acc1 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
    scf.yield %d0, %d1 : tensor<64x64xf32, #acc>, tensor<64x64xf32, #acc>
  }
  %sum = arith.addf %r#0, %r#1 : tensor<64x64xf32, #acc>
  %rows = tile.reduce sum %sum axis 1 : tensor<64x64xf32, #acc> -> tensor<64xf32, #row>
  // expected-error @+1 {{'tile.store_direct' op stores a value computed from the accumulators of several consumers (loop results 0 and 1): no one consumer role can store it}}
  tile.store_direct %out[%c0], %rows : memref<?xf32>, tensor<64xf32, #row>
  return
}
}

// -----

// Loads before the main loop (attention's Q tiles) fill one slot of a
// one-stage channel, which each consumer holds until its epilogue is done:
// it stages its result for the TMA store in its own prologue buffer, which
// it read last in the main loop and no other role reads, instead of a
// buffer of its own, and releases the slot once the TMA store has read it.
// CHECK-LABEL: gpu.func @prologue(
// CHECK-NOT: ws.buffer_alloc
// CHECK: %[[QCH:.*]] = ws.channel : !ws.channel<[memref<64x64xbf16, 3>, memref<64x64xbf16, 3>], stages = 1>
// CHECK: %[[KV:.*]] = ws.channel : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
// CHECK-NOT: ws.buffer_alloc
// CHECK: ws.role "producer"
// CHECK:   %[[PTOK:.*]], %[[PBUF:.*]]:2 = ws.producer_acquire %[[QCH]]
// CHECK:   ws.tma_load %{{.*}}, %[[PBUF]]#0, %[[PTOK]]
// CHECK:   ws.tma_load %{{.*}}, %[[PBUF]]#1, %[[PTOK]]
// CHECK:   ws.producer_commit %[[QCH]], %[[PTOK]] by tma tx_bytes 16384
// CHECK:   scf.for
// CHECK:     ws.producer_acquire %[[KV]]
// CHECK: ws.role "consumer0"
// CHECK:   %[[TOK0:.*]], %[[Q0:.*]]:2 = ws.consumer_wait %[[QCH]]
// CHECK:   ws.as_tensor %[[Q0]]#0
// CHECK:   scf.for
// CHECK:     ws.consumer_release %[[KV]], %{{.*}} by wgmma
// CHECK:     scf.yield
// CHECK-NEXT: }
// CHECK-NOT: ws.consumer_release
// CHECK:   ws.store_shared %{{.*}}, %[[Q0]]#0 : tensor<64x64xbf16, #{{.*}}>, memref<64x64xbf16, 3>
// CHECK:   ws.tma_store %{{.*}}, %[[Q0]]#0
// CHECK:   ws.tma_store_wait
// CHECK-NEXT: ws.consumer_release %[[QCH]], %[[TOK0]] by threads
// CHECK-NEXT: }
// CHECK: ws.role "consumer1"
// CHECK:   %[[TOK1:.*]], %[[Q1:.*]]:2 = ws.consumer_wait %[[QCH]]
// CHECK:   ws.as_tensor %[[Q1]]#1
// CHECK:   ws.store_shared %{{.*}}, %[[Q1]]#1
// CHECK:   ws.tma_store %{{.*}}, %[[Q1]]#1
// CHECK:   ws.tma_store_wait
// CHECK-NEXT: ws.consumer_release %[[QCH]], %[[TOK1]] by threads
// CHECK-NEXT: }

#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @prologue_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @prologue(%q: !tile.desc<tensor<64x64xbf16, #smem>>,
                       %k: !tile.desc<tensor<64x64xbf16, #smem>>,
                       %o: !tile.desc<tensor<64x64xbf16>>, %n: i32) kernel {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c64 = arith.constant 64 : i32
      %c128 = arith.constant 128 : i32
      %pid = tile.program_id x : i32
      %m0 = arith.muli %pid, %c128 : i32
      %m1 = arith.addi %m0, %c64 : i32
      %q0 = tile.load %q[%m0, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
      %q1 = tile.load %q[%m1, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
      %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
      %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a0 = %zero, %a1 = %zero)
          -> (tensor<64x64xf32, #acc>, tensor<64x64xf32, #acc>) : i32 {
        %n0 = arith.muli %i, %c64 : i32
        %kt = tile.load %k[%n0, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
        %d0 = tile.dot %q0, %kt, %a0 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        %d1 = tile.dot %q1, %kt, %a1 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        scf.yield %d0, %d1 : tensor<64x64xf32, #acc>, tensor<64x64xf32, #acc>
      }
      %t0 = arith.truncf %r#0 : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
      tile.store %o[%m0, %c0], %t0 : !tile.desc<tensor<64x64xbf16>>, tensor<64x64xbf16, #acc>
      %t1 = arith.truncf %r#1 : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
      tile.store %o[%m1, %c0], %t1 : !tile.desc<tensor<64x64xbf16>>, tensor<64x64xbf16, #acc>
      gpu.return
    }
  }
}

// -----

// Both consumers read the first prologue buffer: neither stages in it.
// Consumer 0 stages in the second one, which nobody reads; consumer 1 then
// keeps a staging buffer of its own, and releases the slot after its main
// loop.
// CHECK-LABEL: gpu.func @cross(
// CHECK: %[[S:.*]] = ws.buffer_alloc : memref<64x64xbf16, 3>
// CHECK: ws.role "consumer0"
// CHECK:   %[[TOK0:.*]], %[[Q0:.*]]:2 = ws.consumer_wait
// CHECK:   ws.as_tensor %[[Q0]]#0
// CHECK:   ws.store_shared %{{.*}}, %[[Q0]]#1
// CHECK:   ws.tma_store %{{.*}}, %[[Q0]]#1
// CHECK:   ws.tma_store_wait
// CHECK-NEXT: ws.consumer_release %{{.*}}, %[[TOK0]] by threads
// CHECK: ws.role "consumer1"
// CHECK:   %[[TOK1:.*]], %[[Q1:.*]]:2 = ws.consumer_wait
// CHECK:   ws.as_tensor %[[Q1]]#0
// CHECK:   scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: ws.consumer_release %{{.*}}, %[[TOK1]] by threads
// CHECK:   ws.store_shared %{{.*}}, %[[S]]
// CHECK:   ws.tma_store %{{.*}}, %[[S]]

#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @cross_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @cross(%q: !tile.desc<tensor<64x64xbf16, #smem>>,
                       %k: !tile.desc<tensor<64x64xbf16, #smem>>,
                       %o: !tile.desc<tensor<64x64xbf16>>, %n: i32) kernel {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c64 = arith.constant 64 : i32
      %c128 = arith.constant 128 : i32
      %pid = tile.program_id x : i32
      %m0 = arith.muli %pid, %c128 : i32
      %m1 = arith.addi %m0, %c64 : i32
      %q0 = tile.load %q[%m0, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
      %q1 = tile.load %q[%m1, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
      %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
      %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a0 = %zero, %a1 = %zero)
          -> (tensor<64x64xf32, #acc>, tensor<64x64xf32, #acc>) : i32 {
        %n0 = arith.muli %i, %c64 : i32
        %kt = tile.load %k[%n0, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
        %d0 = tile.dot %q0, %kt, %a0 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        %d1 = tile.dot %q0, %kt, %a1 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        scf.yield %d0, %d1 : tensor<64x64xf32, #acc>, tensor<64x64xf32, #acc>
      }
      %t0 = arith.truncf %r#0 : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
      tile.store %o[%m0, %c0], %t0 : !tile.desc<tensor<64x64xbf16>>, tensor<64x64xbf16, #acc>
      %t1 = arith.truncf %r#1 : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
      tile.store %o[%m1, %c0], %t1 : !tile.desc<tensor<64x64xbf16>>, tensor<64x64xbf16, #acc>
      gpu.return
    }
  }
}

// -----

// Results of another type than the prologue buffers (f32, not bf16) keep
// their staging buffers; the slot is released after the main loop.
// CHECK-LABEL: gpu.func @other_type(
// CHECK: %[[S0:.*]] = ws.buffer_alloc : memref<64x64xf32, 3>
// CHECK: %[[S1:.*]] = ws.buffer_alloc : memref<64x64xf32, 3>
// CHECK: ws.role "consumer0"
// CHECK:   %[[TOK0:.*]], %{{.*}}:2 = ws.consumer_wait
// CHECK:   scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: ws.consumer_release %{{.*}}, %[[TOK0]] by threads
// CHECK:   ws.store_shared %{{.*}}, %[[S0]]

#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @other_type_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @other_type(%q: !tile.desc<tensor<64x64xbf16, #smem>>,
                       %k: !tile.desc<tensor<64x64xbf16, #smem>>,
                       %o: !tile.desc<tensor<64x64xf32>>, %n: i32) kernel {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c64 = arith.constant 64 : i32
      %c128 = arith.constant 128 : i32
      %pid = tile.program_id x : i32
      %m0 = arith.muli %pid, %c128 : i32
      %m1 = arith.addi %m0, %c64 : i32
      %q0 = tile.load %q[%m0, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
      %q1 = tile.load %q[%m1, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
      %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
      %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a0 = %zero, %a1 = %zero)
          -> (tensor<64x64xf32, #acc>, tensor<64x64xf32, #acc>) : i32 {
        %n0 = arith.muli %i, %c64 : i32
        %kt = tile.load %k[%n0, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
        %d0 = tile.dot %q0, %kt, %a0 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        %d1 = tile.dot %q1, %kt, %a1 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        scf.yield %d0, %d1 : tensor<64x64xf32, #acc>, tensor<64x64xf32, #acc>
      }
      tile.store %o[%m0, %c0], %r#0 : !tile.desc<tensor<64x64xf32>>, tensor<64x64xf32, #acc>
      tile.store %o[%m1, %c0], %r#1 : !tile.desc<tensor<64x64xf32>>, tensor<64x64xf32, #acc>
      gpu.return
    }
  }
}

// -----

// A software-pipelined program (attention's shape, the softmax left out):
// Q before the loop; the first K tile before it and the others in it; V in
// it (the previous tile) and the last V tile after it. Each descriptor gets
// its own channel: Q one slot, K and V a ring each. A slot read by
// asynchronous dots is released right after the tile.dot_wait that
// completes them; one read by synchronous dots right after them. The two
// consumers issue their loop's dots in turn (ping-pong on named barriers 3
// and 4, 2 x 128 threads) with one turn token: consumer 1 creates it at its
// start, each waits for its turn once more after its loop and hands it on,
// and consumer 0 takes it back at its end.
// CHECK-LABEL: gpu.func @pipelined(
// CHECK: %[[QC:.*]] = ws.channel : !ws.channel<[memref<64x64xbf16, 3>, memref<64x64xbf16, 3>], stages = 1>
// CHECK: %[[KC:.*]] = ws.channel : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
// CHECK: %[[VC:.*]] = ws.channel : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
// CHECK: ws.role "producer"
// CHECK:   ws.producer_acquire %[[QC]]
// CHECK:   ws.producer_acquire %[[KC]]
// CHECK:   scf.for
// CHECK:     ws.producer_acquire %[[KC]]
// CHECK:     ws.producer_acquire %[[VC]]
// CHECK:   }
// CHECK:   ws.producer_acquire %[[VC]]
// CHECK: ws.role "consumer0"
// CHECK:   ws.consumer_wait %[[QC]]
// CHECK:   %[[K0:.*]], %{{.*}} = ws.consumer_wait %[[KC]]
// CHECK:   tile.dot
// CHECK-NEXT: ws.consumer_release %[[KC]], %[[K0]] by threads
// CHECK:   scf.for
// CHECK:     %[[KT:.*]], %{{.*}} = ws.consumer_wait %[[KC]]
// CHECK:     ws.barrier_sync 3 threads 256
// CHECK-NEXT: tile.dot {{.*}} {async, transpose_b}
// CHECK:     %[[VT:.*]], %{{.*}} = ws.consumer_wait %[[VC]]
// CHECK:     tile.dot {{.*}} {async}
// CHECK-NEXT: ws.barrier_arrive 4 threads 256
// CHECK-NEXT: tile.dot_wait {{.*}} pending 1
// CHECK-NEXT: ws.consumer_release %[[KC]], %[[KT]] by threads
// CHECK:     tile.dot_wait {{.*}} pending 0
// CHECK-NEXT: ws.consumer_release %[[VC]], %[[VT]] by threads
// CHECK:   }
// CHECK-NEXT: ws.barrier_sync 3 threads 256
// CHECK-NEXT: ws.barrier_arrive 4 threads 256
// CHECK:   %[[VL:.*]], %{{.*}} = ws.consumer_wait %[[VC]]
// CHECK:   tile.dot
// CHECK-NEXT: ws.consumer_release %[[VC]], %[[VL]] by threads
// CHECK:   ws.barrier_sync 3 threads 256
// CHECK-NEXT: }
// CHECK: ws.role "consumer1"
// CHECK-NEXT: ws.barrier_arrive 3 threads 256
// CHECK:   scf.for
// CHECK:     ws.barrier_sync 4 threads 256
// CHECK:     ws.barrier_arrive 3 threads 256
// CHECK:   }
// CHECK-NEXT: ws.barrier_sync 4 threads 256
// CHECK-NEXT: ws.barrier_arrive 3 threads 256

#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @pipelined_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @pipelined(%q: !tile.desc<tensor<64x64xbf16, #smem>>,
                        %k: !tile.desc<tensor<64x64xbf16, #smem>>,
                        %v: !tile.desc<tensor<64x64xbf16, #smem>>,
                        %o: !tile.desc<tensor<64x64xbf16>>, %n: i32) kernel {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c64 = arith.constant 64 : i32
      %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
      %q0 = tile.load %q[%c0, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
      %q1 = tile.load %q[%c64, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
      %k0 = tile.load %k[%c0, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
      %s0 = tile.dot %q0, %k0, %zero {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
      %s1 = tile.dot %q1, %k0, %zero {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
      %p0 = arith.truncf %s0 : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
      %p1 = arith.truncf %s1 : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
      %r:4 = scf.for %i = %c1 to %n step %c1
          iter_args(%o0 = %zero, %pp0 = %p0, %o1 = %zero, %pp1 = %p1)
          -> (tensor<64x64xf32, #acc>, tensor<64x64xbf16, #acc>,
              tensor<64x64xf32, #acc>, tensor<64x64xbf16, #acc>) : i32 {
        %n0 = arith.muli %i, %c64 : i32
        %prev = arith.subi %n0, %c64 : i32
        %kt = tile.load %k[%n0, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
        %t0 = tile.dot %q0, %kt, %zero {async, transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        %t1 = tile.dot %q1, %kt, %zero {async, transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        %vt = tile.load %v[%prev, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
        %a0 = tile.dot %pp0, %vt, %o0 {async} : tensor<64x64xbf16, #acc>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        %a1 = tile.dot %pp1, %vt, %o1 {async} : tensor<64x64xbf16, #acc>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        %u0 = tile.dot_wait %t0 pending 1 : tensor<64x64xf32, #acc>
        %n0p = arith.truncf %u0 : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
        %b0 = tile.dot_wait %a0 pending 0 : tensor<64x64xf32, #acc>
        %u1 = tile.dot_wait %t1 pending 1 : tensor<64x64xf32, #acc>
        %n1p = arith.truncf %u1 : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
        %b1 = tile.dot_wait %a1 pending 0 : tensor<64x64xf32, #acc>
        scf.yield %b0, %n0p, %b1, %n1p : tensor<64x64xf32, #acc>, tensor<64x64xbf16, #acc>, tensor<64x64xf32, #acc>, tensor<64x64xbf16, #acc>
      }
      %last = arith.muli %n, %c64 : i32
      %vl = tile.load %v[%last, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
      %f0 = tile.dot %r#1, %vl, %r#0 : tensor<64x64xbf16, #acc>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
      %f1 = tile.dot %r#3, %vl, %r#2 : tensor<64x64xbf16, #acc>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
      %g0 = arith.truncf %f0 : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
      tile.store %o[%c0, %c0], %g0 : !tile.desc<tensor<64x64xbf16>>, tensor<64x64xbf16, #acc>
      %g1 = arith.truncf %f1 : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
      tile.store %o[%c64, %c0], %g1 : !tile.desc<tensor<64x64xbf16>>, tensor<64x64xbf16, #acc>
      gpu.return
    }
  }
}

// -----

// A descriptor loaded in several places fills the same slot everywhere.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @uneven_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @uneven(%k: !tile.desc<tensor<64x64xbf16, #smem>>,
                     %o: !tile.desc<tensor<64x64xbf16>>, %n: i32) kernel {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
      %k0 = tile.load %k[%c0, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> (tensor<64x64xf32, #acc>) : i32 {
        // expected-error @+1 {{'tile.load' op fills a slot of a channel with 2 loads, where its other slots take 1}}
        %ka = tile.load %k[%i, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
        %kb = tile.load %k[%i, %c1] : !tile.desc<tensor<64x64xbf16, #smem>>
        %d = tile.dot %ka, %kb, %a {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        scf.yield %d : tensor<64x64xf32, #acc>
      }
      %t = arith.truncf %r : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
      tile.store %o[%c0, %c0], %t : !tile.desc<tensor<64x64xbf16>>, tensor<64x64xbf16, #acc>
      gpu.return
    }
  }
}

// -----

// A persistent program: a tile loop around the main loop, with a load (Q)
// in the tile loop before it. The main loop is the innermost loop with
// loads; Q gets a one-slot channel taken once per tile, and its slot is
// released by threads right after the main loop, where its last reader is
// done (not deferred to the tile loop's next iteration as a wgmma release).
// CHECK-LABEL: gpu.func @persistent(
// CHECK: %[[Q:.*]] = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 1>
// CHECK: %[[K:.*]] = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
// CHECK: ws.role "producer"
// CHECK:   scf.for
// CHECK:     ws.producer_acquire %[[Q]]
// CHECK:     scf.for
// CHECK:       ws.producer_acquire %[[K]]
// CHECK: ws.role "consumer0"
// CHECK:   scf.for
// CHECK:     %[[QT:.*]], %{{.*}} = ws.consumer_wait %[[Q]]
// CHECK:     scf.for
// CHECK:       %[[KT:.*]], %{{.*}} = ws.consumer_wait %[[K]]
// CHECK:       tile.dot
// CHECK:       ws.consumer_release %[[K]], %[[KT]] by wgmma
// CHECK:     }
// CHECK-NEXT: ws.consumer_release %[[Q]], %[[QT]] by threads
// CHECK:     ws.tma_store
// CHECK:   }
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @persistent_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @persistent(%q: !tile.desc<tensor<128x64xbf16, #smem>>,
                         %k: !tile.desc<tensor<128x64xbf16, #smem>>,
                         %o: !tile.desc<tensor<128x128xf32>>,
                         %tiles: i32, %steps: i32) kernel attributes {fmha.stages = 2 : i64} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c64 = arith.constant 64 : i32
      %c128 = arith.constant 128 : i32
      %pid = tile.program_id x : i32
      %np = tile.num_programs x : i32
      %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
      scf.for %t = %pid to %tiles step %np : i32 {
        %m0 = arith.muli %t, %c128 : i32
        %x = tile.load %q[%m0, %c0] : !tile.desc<tensor<128x64xbf16, #smem>>
        %r = scf.for %s = %c0 to %steps step %c1 iter_args(%acc = %zero)
            -> (tensor<128x128xf32, #acc>) : i32 {
          %n0 = arith.muli %s, %c128 : i32
          %y = tile.load %k[%n0, %c0] : !tile.desc<tensor<128x64xbf16, #smem>>
          %d = tile.dot %x, %y, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
          scf.yield %d : tensor<128x128xf32, #acc>
        }
        tile.store %o[%m0, %c0], %r : !tile.desc<tensor<128x128xf32>>, tensor<128x128xf32, #acc>
      }
      gpu.return
    }
  }
}

// -----

// fmha.item_slots = 2: the channel of the loads taken once per tile (Q)
// gets two slots, so the producer fills the next tile's while this tile's
// main loop and store run.
// CHECK-LABEL: gpu.func @persistent_slots(
// CHECK: %[[Q:.*]] = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
// CHECK: %[[K:.*]] = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @persistent_slots_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @persistent_slots(%q: !tile.desc<tensor<128x64xbf16, #smem>>,
                         %k: !tile.desc<tensor<128x64xbf16, #smem>>,
                         %o: !tile.desc<tensor<128x128xf32>>,
                         %tiles: i32, %steps: i32) kernel attributes {fmha.item_slots = 2 : i64, fmha.stages = 2 : i64} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c64 = arith.constant 64 : i32
      %c128 = arith.constant 128 : i32
      %pid = tile.program_id x : i32
      %np = tile.num_programs x : i32
      %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
      scf.for %t = %pid to %tiles step %np : i32 {
        %m0 = arith.muli %t, %c128 : i32
        %x = tile.load %q[%m0, %c0] : !tile.desc<tensor<128x64xbf16, #smem>>
        %r = scf.for %s = %c0 to %steps step %c1 iter_args(%acc = %zero)
            -> (tensor<128x128xf32, #acc>) : i32 {
          %n0 = arith.muli %s, %c128 : i32
          %y = tile.load %k[%n0, %c0] : !tile.desc<tensor<128x64xbf16, #smem>>
          %d = tile.dot %x, %y, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
          scf.yield %d : tensor<128x128xf32, #acc>
        }
        tile.store %o[%m0, %c0], %r : !tile.desc<tensor<128x128xf32>>, tensor<128x128xf32, #acc>
      }
      gpu.return
    }
  }
}

// -----

// Main loops side by side (a ping-pong GEMM): one channel, which the
// producer fills with the first loop's tiles, then the second's. Each
// consumer computes its own loop and stores its result (the other's dots
// and store are pruned from it), but walks the slots of the other loop
// too, waiting and releasing without reading, so that its place in the
// ring stays in step; it stages its store with a named barrier of its own
// and takes turns with the other around the loop it computes.
// CHECK-LABEL: gpu.func @turns(
// CHECK: %[[CH:.*]] = ws.channel : !ws.channel<[memref<128x64xbf16, 3>, memref<128x64xbf16, 3>], stages = 2>
// CHECK-NOT: ws.channel
// CHECK: ws.role "producer"
// CHECK:   ws.producer_acquire %[[CH]]
// CHECK:   ws.producer_commit %[[CH]], %{{.*}} by tma tx_bytes 32768
// CHECK:   ws.producer_acquire %[[CH]]
// CHECK:   ws.producer_commit %[[CH]], %{{.*}} by tma tx_bytes 32768
// CHECK-NOT: ws.turn
// CHECK: ws.role "consumer0"
// CHECK:   ws.barrier_sync 3 threads 256
// CHECK-NEXT: scf.for
// CHECK-NEXT: ws.consumer_wait %[[CH]]
// CHECK:     tile.dot
// CHECK:     ws.consumer_release %[[CH]], %{{.*}} by wgmma
// CHECK:   ws.barrier_arrive 4 threads 256
// CHECK:   ws.barrier_sync 1 threads 128
// CHECK:   ws.tma_store
// CHECK:   scf.for
// CHECK-NEXT: ws.consumer_wait %[[CH]]
// CHECK-NEXT: ws.consumer_release %[[CH]], %{{.*}} by wgmma
// CHECK-NEXT: }
// CHECK: ws.role "consumer1"
// CHECK-NEXT: ws.barrier_arrive 3 threads 256
// CHECK:   scf.for
// CHECK:     scf.for
// CHECK-NEXT: ws.consumer_wait %[[CH]]
// CHECK-NEXT: ws.consumer_release %[[CH]], %{{.*}} by wgmma
// CHECK-NEXT: }
// CHECK:   ws.barrier_sync 4 threads 256
// CHECK-NEXT: scf.for
// CHECK-NEXT: ws.consumer_wait %[[CH]]
// CHECK:     tile.dot
// CHECK:     ws.consumer_release %[[CH]], %{{.*}} by wgmma
// CHECK:   ws.barrier_arrive 3 threads 256
// CHECK:   ws.barrier_sync 2 threads 128
// CHECK:   ws.tma_store
// CHECK: gpu.return
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @turns_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @turns(%a: !tile.desc<tensor<128x64xbf16, #smem>>,
                    %b: !tile.desc<tensor<128x64xbf16, #smem>>,
                    %c: !tile.desc<tensor<128x128xbf16>>,
                    %tiles: i32, %steps: i32) kernel attributes {fmha.stages = 2 : i64} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %c64 = arith.constant 64 : i32
      %c128 = arith.constant 128 : i32
      %pid = tile.program_id x : i32
      %np = tile.num_programs x : i32
      %step = arith.muli %np, %c2 : i32
      %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
      scf.for %t = %pid to %tiles step %step : i32 {
        %m0 = arith.muli %t, %c128 : i32
        %r0 = scf.for %s = %c0 to %steps step %c1 iter_args(%acc = %zero)
            -> (tensor<128x128xf32, #acc>) : i32 {
          %ko = arith.muli %s, %c64 : i32
          %x = tile.load %a[%m0, %ko] : !tile.desc<tensor<128x64xbf16, #smem>>
          %y = tile.load %b[%c0, %ko] : !tile.desc<tensor<128x64xbf16, #smem>>
          %d = tile.dot %x, %y, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
          scf.yield %d : tensor<128x128xf32, #acc>
        }
        %s0 = arith.truncf %r0 : tensor<128x128xf32, #acc> to tensor<128x128xbf16, #acc>
        tile.store %c[%m0, %c0], %s0 : !tile.desc<tensor<128x128xbf16>>, tensor<128x128xbf16, #acc>
        %t1 = arith.addi %t, %np : i32
        %m1 = arith.muli %t1, %c128 : i32
        %r1 = scf.for %s = %c0 to %steps step %c1 iter_args(%acc = %zero)
            -> (tensor<128x128xf32, #acc>) : i32 {
          %ko = arith.muli %s, %c64 : i32
          %x = tile.load %a[%m1, %ko] : !tile.desc<tensor<128x64xbf16, #smem>>
          %y = tile.load %b[%c0, %ko] : !tile.desc<tensor<128x64xbf16, #smem>>
          %d = tile.dot %x, %y, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
          scf.yield %d : tensor<128x128xf32, #acc>
        }
        %s1 = arith.truncf %r1 : tensor<128x128xf32, #acc> to tensor<128x128xbf16, #acc>
        tile.store %c[%m1, %c0], %s1 : !tile.desc<tensor<128x128xbf16>>, tensor<128x128xbf16, #acc>
      }
      gpu.return
    }
  }
}

// -----

// Split-K (`fmha.gemm ... splits 2`, one consumer), as ws-assign-roles
// leaves it: the producer keeps neither the arrival nor the reduction; the
// consumer arrives on its store barrier (1, which the staged store of C
// inside the scf.if uses too), all 128 threads of it.
// CHECK-LABEL: gpu.func @gemm_splitk
// CHECK: ws.role "producer"
// CHECK-NOT: counter_arrive
// CHECK-NOT: scf.if
// CHECK: ws.role "consumer0"
// CHECK: tile.store_direct
// CHECK: %[[LAST:.*]] = ws.counter_arrive %{{.*}}[%{{.*}}], %{{.*}} barrier 1 threads 128 : memref<?xi32>
// CHECK: scf.if %[[LAST]] {
// CHECK:   tile.load_direct
// CHECK:   ws.tma_store_wait
// CHECK:   ws.barrier_sync 1 threads 128
// CHECK:   ws.tma_store
#nvmma_shared = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#wgmma_acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @gemm_splitk_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @gemm_splitk(%arg0: !tile.desc<tensor<64x64xbf16, #nvmma_shared>>, %arg1: !tile.desc<tensor<64x64xbf16, #nvmma_shared>>, %arg2: !tile.desc<tensor<64x64xbf16>>, %arg3: i32, %arg4: i32, %arg5: i32, %arg6: memref<?x?x?xf32>, %arg7: memref<?xi32>) kernel attributes {fmha.stages = 2 : i64} {
      %c64_i32 = arith.constant 64 : i32
      %c63_i32 = arith.constant 63 : i32
      %0 = arith.addi %arg3, %c63_i32 : i32
      %1 = arith.divui %0, %c64_i32 : i32
      %c64_i32_0 = arith.constant 64 : i32
      %c63_i32_1 = arith.constant 63 : i32
      %2 = arith.addi %arg4, %c63_i32_1 : i32
      %3 = arith.divui %2, %c64_i32_0 : i32
      %4 = arith.muli %1, %3 : i32
      %c2_i32 = arith.constant 2 : i32
      %5 = arith.muli %4, %c2_i32 : i32
      %6 = tile.program_id x : i32
      %7 = tile.num_programs x : i32
      %c64_i32_2 = arith.constant 64 : i32
      %c63_i32_3 = arith.constant 63 : i32
      %8 = arith.addi %arg5, %c63_i32_3 : i32
      %9 = arith.divui %8, %c64_i32_2 : i32
      scf.for %arg8 = %6 to %5 step %7  : i32 {
        %c2_i32_4 = arith.constant 2 : i32
        %10 = arith.divui %arg8, %c2_i32_4 : i32
        %c2_i32_5 = arith.constant 2 : i32
        %11 = arith.remui %arg8, %c2_i32_5 : i32
        %c8_i32 = arith.constant 8 : i32
        %12 = arith.muli %3, %c8_i32 : i32
        %c8_i32_6 = arith.constant 8 : i32
        %13 = arith.divui %10, %12 : i32
        %14 = arith.muli %13, %c8_i32_6 : i32
        %c8_i32_7 = arith.constant 8 : i32
        %15 = arith.subi %1, %14 : i32
        %16 = arith.minui %15, %c8_i32_7 : i32
        %17 = arith.remui %10, %12 : i32
        %18 = arith.remui %17, %16 : i32
        %19 = arith.addi %14, %18 : i32
        %20 = arith.divui %17, %16 : i32
        %c64_i32_8 = arith.constant 64 : i32
        %21 = arith.muli %19, %c64_i32_8 : i32
        %c64_i32_9 = arith.constant 64 : i32
        %22 = arith.muli %20, %c64_i32_9 : i32
        %c2_i32_10 = arith.constant 2 : i32
        %23 = arith.muli %11, %9 : i32
        %24 = arith.divui %23, %c2_i32_10 : i32
        %c1_i32 = arith.constant 1 : i32
        %25 = arith.addi %11, %c1_i32 : i32
        %c2_i32_11 = arith.constant 2 : i32
        %26 = arith.muli %25, %9 : i32
        %27 = arith.divui %26, %c2_i32_11 : i32
        %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #wgmma_acc>
        %c1_i32_12 = arith.constant 1 : i32
        %28 = scf.for %arg9 = %24 to %27 step %c1_i32_12 iter_args(%arg10 = %cst) -> (tensor<64x64xf32, #wgmma_acc>)  : i32 {
          %c64_i32_15 = arith.constant 64 : i32
          %32 = arith.muli %arg9, %c64_i32_15 : i32
          %33 = tile.load %arg0[%21, %32] : !tile.desc<tensor<64x64xbf16, #nvmma_shared>>
          %34 = tile.load %arg1[%22, %32] : !tile.desc<tensor<64x64xbf16, #nvmma_shared>>
          %35 = tile.dot %33, %34, %arg10 {transpose_b} : tensor<64x64xbf16, #nvmma_shared>, tensor<64x64xbf16, #nvmma_shared>, tensor<64x64xf32, #wgmma_acc>
          scf.yield %35 : tensor<64x64xf32, #wgmma_acc>
        }
        tile.store_direct %arg6[%11, %21, %22], %28 : memref<?x?x?xf32>, tensor<64x64xf32, #wgmma_acc>
        %c0_i32 = arith.constant 0 : i32
        %c1_i32_13 = arith.constant 1 : i32
        %29 = arith.muli %10, %c1_i32_13 : i32
        %30 = arith.addi %29, %c0_i32 : i32
        %c2_i32_14 = arith.constant 2 : i32
        %31 = tile.counter_arrive %arg7[%30], %c2_i32_14 : memref<?xi32>
        scf.if %31 {
          %c1_i32_15 = arith.constant 1 : i32
          %c2_i32_16 = arith.constant 2 : i32
          %c0_i32_17 = arith.constant 0 : i32
          %32 = scf.for %arg9 = %c0_i32_17 to %c2_i32_16 step %c1_i32_15 iter_args(%arg10 = %cst) -> (tensor<64x64xf32, #wgmma_acc>)  : i32 {
            %34 = tile.load_direct %arg6[%arg9, %21, %22] : memref<?x?x?xf32> -> tensor<64x64xf32, #wgmma_acc>
            %35 = arith.addf %arg10, %34 : tensor<64x64xf32, #wgmma_acc>
            scf.yield %35 : tensor<64x64xf32, #wgmma_acc>
          }
          %33 = arith.truncf %32 : tensor<64x64xf32, #wgmma_acc> to tensor<64x64xbf16, #wgmma_acc>
          tile.store %arg2[%21, %22], %33 : !tile.desc<tensor<64x64xbf16>>, tensor<64x64xbf16, #wgmma_acc>
        }
      }
      gpu.return
    }
  }
}

// -----

// A program without tile.load and tile.dot (fmha.merge_states): the whole
// program in one role of one warpgroup, "worker", without a register
// budget and without channels; its plain loads and stores stay in it.
// CHECK-LABEL: gpu.func @merge(
// CHECK: ws.warp_specialize {
// CHECK-NEXT: ws.role "worker" warps 4 {
// CHECK: scf.for
// CHECK: tile.load_direct
// CHECK: tile.load_direct
// CHECK: scf.yield
// CHECK: tile.store_direct
// CHECK-NOT: ws.role
#blocked = #tile.blocked<vector = 8, lanes = 16, warps = 4>
#slice = #tile.slice<dim = 1, parent = #blocked>
module attributes {gpu.container_module} {
  gpu.module @merge_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @merge(%arg0: memref<?x?x128xbf16, strided<[?, ?, 1]>>, %arg1: memref<?x?xf32, strided<[?, ?]>>, %arg2: memref<?x128xbf16, strided<[?, 1]>>, %arg3: i32) kernel {
      %c0_i32 = arith.constant 0 : i32
      %c1_i32 = arith.constant 1 : i32
      %c32_i32 = arith.constant 32 : i32
      %0 = tile.program_id x : i32
      %1 = arith.muli %0, %c32_i32 : i32
      %cst = arith.constant dense<0.000000e+00> : tensor<32x128xf32, #blocked>
      %2 = scf.for %arg4 = %c0_i32 to %arg3 step %c1_i32 iter_args(%arg5 = %cst) -> (tensor<32x128xf32, #blocked>)  : i32 {
        %4 = tile.load_direct %arg1[%arg4, %1] : memref<?x?xf32, strided<[?, ?]>> -> tensor<32xf32, #slice>
        %5 = math.exp2 %4 : tensor<32xf32, #slice>
        %6 = tile.load_direct %arg0[%arg4, %1, %c0_i32] : memref<?x?x128xbf16, strided<[?, ?, 1]>> -> tensor<32x128xbf16, #blocked>
        %7 = arith.extf %6 : tensor<32x128xbf16, #blocked> to tensor<32x128xf32, #blocked>
        %8 = tile.broadcast %5 axis 1 : tensor<32xf32, #slice> -> tensor<32x128xf32, #blocked>
        %9 = arith.mulf %7, %8 : tensor<32x128xf32, #blocked>
        %10 = arith.addf %arg5, %9 : tensor<32x128xf32, #blocked>
        scf.yield %10 : tensor<32x128xf32, #blocked>
      }
      %3 = arith.truncf %2 : tensor<32x128xf32, #blocked> to tensor<32x128xbf16, #blocked>
      tile.store_direct %arg2[%1, %c0_i32], %3 : memref<?x128xbf16, strided<[?, 1]>>, tensor<32x128xbf16, #blocked>
      gpu.return
    }
  }
}

// -----

// A store in the main loop computed from two consumers' dots (the
// attention backward's column part of dQ, sum_c dS_c K_c) goes to the
// first consumer; the second hands it its value (%t1) through a channel
// of one slot: it stores the value in the NVMMA layout and commits by
// threads (ws-insert-mbarriers fences that commit for the async proxy,
// which the reader's wgmma goes through); the first waits for the slot where
// its dot reads it, reads it in place as the dot's A operand and releases
// it once the dot is waited for.
// CHECK-LABEL: gpu.func @handed
// CHECK: %[[HANDED:.+]] = ws.channel : !ws.channel<[memref<64x64xbf16, 3>], stages = 1>
// CHECK: ws.role "consumer0"
// CHECK: scf.for
// CHECK: %[[A:.+]] = tile.dot {{.+}} {async}
// CHECK: %[[TOKEN:.+]], %[[SLOT:.+]] = ws.consumer_wait %[[HANDED]]
// CHECK: %[[T1:.+]] = ws.as_tensor %[[SLOT]] : memref<64x64xbf16, 3> -> tensor<64x64xbf16, #nvmma_shared>
// CHECK: %[[B:.+]] = tile.dot %[[T1]], %{{.+}}, %[[A]] {async}
// CHECK: tile.dot_wait %[[B]] pending 0
// CHECK-NEXT: ws.consumer_release %[[HANDED]], %[[TOKEN]] by threads
// CHECK: ws.tma_store {{.+}} reduce add
// CHECK: ws.role "consumer1"
// CHECK: scf.for
// CHECK: %[[PTOKEN:.+]], %[[PSLOT:.+]] = ws.producer_acquire %[[HANDED]]
// CHECK: ws.store_shared %{{.+}}, %[[PSLOT]] {layout = #nvmma_shared} : tensor<64x64xbf16, #wgmma_acc>
// CHECK-NEXT: ws.producer_commit %[[HANDED]], %[[PTOKEN]] by threads
// CHECK-NOT: ws.tma_store {{.+}} reduce add

#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @handed_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @handed(%a: !tile.desc<tensor<64x64xbf16, #smem>>,
                     %b: !tile.desc<tensor<64x64xbf16, #smem>>,
                     %c: !tile.desc<tensor<64x64xf32>>, %steps: i32) kernel {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c64 = arith.constant 64 : i32
      %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
      %k0 = tile.load %b[%c0, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
      %k1 = tile.load %b[%c64, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
      %r:2 = scf.for %s = %c0 to %steps step %c1 iter_args(%acc0 = %zero, %acc1 = %zero)
          -> (tensor<64x64xf32, #acc>, tensor<64x64xf32, #acc>) : i32 {
        %x = tile.load %a[%s, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
        %s0 = tile.dot %x, %k0, %zero {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        %t0 = arith.truncf %s0 : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
        %s1 = tile.dot %x, %k1, %zero {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        %t1 = arith.truncf %s1 : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
        %d0 = tile.dot %t0, %x, %acc0 : tensor<64x64xbf16, #acc>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        %d1 = tile.dot %t1, %x, %acc1 : tensor<64x64xbf16, #acc>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        %p0 = tile.dot %t0, %k0, %zero {async} : tensor<64x64xbf16, #acc>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        %p1 = tile.dot %t1, %k1, %p0 {async} : tensor<64x64xbf16, #acc>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        %p = tile.dot_wait %p1 pending 0 : tensor<64x64xf32, #acc>
        tile.store %c[%s, %c0], %p reduce add : !tile.desc<tensor<64x64xf32>>, tensor<64x64xf32, #acc>
        scf.yield %d0, %d1 : tensor<64x64xf32, #acc>, tensor<64x64xf32, #acc>
      }
      tile.store %c[%c0, %c0], %r#0 : !tile.desc<tensor<64x64xf32>>, tensor<64x64xf32, #acc>
      tile.store %c[%c64, %c0], %r#1 : !tile.desc<tensor<64x64xf32>>, tensor<64x64xf32, #acc>
      gpu.return
    }
  }
}
