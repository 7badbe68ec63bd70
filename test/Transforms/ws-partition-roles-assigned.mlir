// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-partition-roles | FileCheck %s

// Role assignments written by hand (docs/Roles.md) go through the same
// materialisation as those of ws-assign-roles, and a wrong one is an error
// at the op, before anything is built.

// A GEMM with one consumer whose loads are split over two channels: A in
// channel 0 (two slots), B in channel 1 (three slots), both filled by the
// producer (role 0). The consumer (role 1) computes the accumulator and
// stores it through a staging buffer, on named barrier 1. The assignment
// attributes are gone afterwards.
// CHECK-LABEL: gpu.func @two_channels(
// CHECK-NOT: ws.roles
// CHECK: %[[A:.*]] = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
// CHECK: %[[B:.*]] = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 3>
// CHECK: ws.warp_specialize {
// CHECK: ws.role "loader" warps 1 regs 24 {
// CHECK:   ws.producer_acquire %[[A]]
// CHECK:   ws.tma_load
// CHECK:   ws.producer_commit %[[A]], %{{.*}} by tma tx_bytes 16384
// CHECK:   ws.producer_acquire %[[B]]
// CHECK:   ws.tma_load
// CHECK:   ws.producer_commit %[[B]], %{{.*}} by tma tx_bytes 16384
// CHECK-NOT: tile.dot
// CHECK: ws.role "math" warps 4 regs 240 {
// CHECK:   ws.consumer_wait %[[A]]
// CHECK:   ws.consumer_wait %[[B]]
// CHECK:   tile.dot
// CHECK:   ws.consumer_release %[[A]], %{{.*}} by wgmma
// CHECK:   ws.consumer_release %[[B]], %{{.*}} by wgmma
// CHECK:   ws.barrier_sync 1 threads 128
// CHECK:   ws.tma_store
// CHECK:   ws.tma_store_wait
// CHECK-NOT: ws.partition
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @two_channels(%a: !tile.desc<tensor<128x64xbf16, #smem>>,
                         %b: !tile.desc<tensor<128x64xbf16, #smem>>,
                         %c: !tile.desc<tensor<128x128xbf16>>, %n: i32) kernel
      attributes {ws.roles = [#ws.role_spec<"loader", warps = 1, regs = 24>,
                              #ws.role_spec<"math", warps = 4, regs = 240>],
                  ws.channel_stages = array<i32: 2, 3>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<128x128xf32, #acc>) : i32 {
      %k = arith.muli %i, %c64 : i32
      %x = tile.load %a[%c0, %k] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
      %y = tile.load %b[%c0, %k] {ws.load_channel = 1 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
      %d = tile.dot %x, %y, %acc0 {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
      scf.yield %d : tensor<128x128xf32, #acc>
    } {ws.partition_outputs = [array<i32: 1>]}
    %o = arith.truncf %r : tensor<128x128xf32, #acc> to tensor<128x128xbf16, #acc>
    tile.store %c[%c0, %c0], %o {ws.partition = array<i32: 1>} : !tile.desc<tensor<128x128xbf16>>, tensor<128x128xbf16, #acc>
    gpu.return
  }
}

// -----

// A kernel with loads and no roles.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  // expected-error @+1 {{ws-partition-roles: the kernel has no 'ws.roles' (an array of #ws.role_spec): run ws-assign-roles first or write them}}
  gpu.func @no_roles(%a: !tile.desc<tensor<128x64xbf16, #smem>>) kernel {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] : !tile.desc<tensor<128x64xbf16, #smem>>
    gpu.return
  }
}

// -----

// A register budget setmaxnreg does not take.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  // expected-error @+2 {{role 'p': the register budget must be a multiple of 8 from 24 to 256, got 20}}
  gpu.func @bad_budget(%a: !tile.desc<tensor<128x64xbf16, #smem>>) kernel
      attributes {ws.roles = [#ws.role_spec<"p", warps = 1, regs = 20>],
                  ws.channel_stages = array<i32: 1>} {
    gpu.return
  }
}

// -----

// No channel depths.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  // expected-error @+1 {{ws-partition-roles: the kernel has no 'ws.channel_stages' (the slots of each channel, an i32 array)}}
  gpu.func @no_stages(%a: !tile.desc<tensor<128x64xbf16, #smem>>) kernel
      attributes {ws.roles = [#ws.role_spec<"p", warps = 1, regs = 24>]} {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
    gpu.return
  }
}

// -----

// A channel of 40 slots.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  // expected-error @+1 {{ws-partition-roles: 'ws.channel_stages' entries must be from 1 to 32 slots, got 40}}
  gpu.func @deep(%a: !tile.desc<tensor<128x64xbf16, #smem>>) kernel
      attributes {ws.roles = [#ws.role_spec<"p", warps = 1, regs = 24>],
                  ws.channel_stages = array<i32: 40>} {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
    gpu.return
  }
}

// -----

// A load without a channel.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @no_channel(%a: !tile.desc<tensor<128x64xbf16, #smem>>) kernel
      attributes {ws.roles = [#ws.role_spec<"p", warps = 1, regs = 24>],
                  ws.channel_stages = array<i32: 1>} {
    %c0 = arith.constant 0 : i32
    // expected-error @+1 {{ws-partition-roles: every tile.load needs 'ws.load_channel', the index of one of the kernel's 1 channels (ws.channel_stages)}}
    %x = tile.load %a[%c0, %c0] {ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
    gpu.return
  }
}

// -----

// A load issued by two roles.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @two_issuers(%a: !tile.desc<tensor<128x64xbf16, #smem>>) kernel
      attributes {ws.roles = [#ws.role_spec<"p", warps = 1, regs = 24>,
                              #ws.role_spec<"q", warps = 1, regs = 24>],
                  ws.channel_stages = array<i32: 1>} {
    %c0 = arith.constant 0 : i32
    // expected-error @+1 {{ws-partition-roles: a tile.load needs a 'ws.partition' of one role, the one that issues its copy}}
    %x = tile.load %a[%c0, %c0] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0, 1>} : !tile.desc<tensor<128x64xbf16, #smem>>
    gpu.return
  }
}

// -----

// A role index past the list.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @bad_index(%a: !tile.desc<tensor<128x64xbf16, #smem>>) kernel
      attributes {ws.roles = [#ws.role_spec<"p", warps = 1, regs = 24>],
                  ws.channel_stages = array<i32: 1>} {
    %c0 = arith.constant 0 : i32
    // expected-error @+1 {{ws-partition-roles: 'ws.partition' names role 3, but the kernel has 1 roles (ws.roles)}}
    %x = tile.load %a[%c0, %c0] {ws.load_channel = 0 : i32, ws.partition = array<i32: 3>} : !tile.desc<tensor<128x64xbf16, #smem>>
    gpu.return
  }
}

// -----

// One entry of ws.partition_outputs per loop-carried value.
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @outputs_count(%a: !tile.desc<tensor<128x64xbf16, #smem>>, %n: i32) kernel
      attributes {ws.roles = [#ws.role_spec<"p", warps = 1, regs = 24>],
                  ws.channel_stages = array<i32: 1>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
    // expected-error @+1 {{ws-partition-roles: 'ws.partition_outputs' belongs on an scf.for, one i32 array per loop-carried value}}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<128x128xf32, #acc>) : i32 {
      %x = tile.load %a[%c0, %i] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
      scf.yield %acc0 : tensor<128x128xf32, #acc>
    } {ws.partition_outputs = []}
    gpu.return
  }
}

// -----

// The store is the producer's, but the producer does not compute the
// accumulator it stores: it would store the initial zeros.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @store_without_value(%a: !tile.desc<tensor<128x64xbf16, #smem>>,
                                %c: !tile.desc<tensor<128x128xbf16>>, %n: i32) kernel
      attributes {ws.roles = [#ws.role_spec<"producer", warps = 1, regs = 24>,
                              #ws.role_spec<"consumer", warps = 4, regs = 240>],
                  ws.channel_stages = array<i32: 2>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
    // expected-error @+1 {{ws-partition-roles: role 'producer' needs loop-carried value #0, which ws.partition_outputs does not give it}}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<128x128xf32, #acc>) : i32 {
      %x = tile.load %a[%c0, %i] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
      %d = tile.dot %x, %x, %acc0 {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
      scf.yield %d : tensor<128x128xf32, #acc>
    } {ws.partition_outputs = [array<i32: 1>]}
    %o = arith.truncf %r : tensor<128x128xf32, #acc> to tensor<128x128xbf16, #acc>
    tile.store %c[%c0, %c0], %o {ws.partition = array<i32: 0>} : !tile.desc<tensor<128x128xbf16>>, tensor<128x128xbf16, #acc>
    gpu.return
  }
}

// -----

// The dot is assigned to the producer only, but the consumer's store needs
// it.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @op_of_another_role(%a: !tile.desc<tensor<128x64xbf16, #smem>>,
                               %c: !tile.desc<tensor<128x128xbf16>>, %n: i32) kernel
      attributes {ws.roles = [#ws.role_spec<"producer", warps = 1, regs = 24>,
                              #ws.role_spec<"consumer", warps = 4, regs = 240>],
                  ws.channel_stages = array<i32: 2>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<128x128xf32, #acc>) : i32 {
      %x = tile.load %a[%c0, %i] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
      // expected-error @+1 {{ws-partition-roles: is assigned to other roles than 'consumer', which needs its results: assign it to that role too, or pass its value through a channel}}
      %d = tile.dot %x, %x, %acc0 {transpose_b, ws.partition = array<i32: 0>} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
      scf.yield %d : tensor<128x128xf32, #acc>
    } {ws.partition_outputs = [array<i32: 1>]}
    %o = arith.truncf %r : tensor<128x128xf32, #acc> to tensor<128x128xbf16, #acc>
    tile.store %c[%c0, %c0], %o {ws.partition = array<i32: 1>} : !tile.desc<tensor<128x128xbf16>>, tensor<128x128xbf16, #acc>
    gpu.return
  }
}

// -----

// A role without warps.
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  // expected-error @+2 {{role 'p' needs 1 to 32 warps, got 0}}
  gpu.func @no_warps() kernel
      attributes {ws.roles = [#ws.role_spec<"p", warps = 0, regs = 24>],
                  ws.channel_stages = array<i32: 1>} {
    gpu.return
  }
}

// -----

// A role without a name.
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  // expected-error @+2 {{a role needs a name}}
  gpu.func @no_name() kernel
      attributes {ws.roles = [#ws.role_spec<"", warps = 1, regs = 24>],
                  ws.channel_stages = array<i32: 1>} {
    gpu.return
  }
}
