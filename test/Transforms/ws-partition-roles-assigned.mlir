// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-partition-roles | FileCheck %s
// The materialised kernels pass the protocol and phase checks:
// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-partition-roles --ws-chunk-row-stores \
// RUN:   --ws-verify-protocol --ws-insert-mbarriers --ws-verify-phases -o /dev/null

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

// -----

// A Blackwell GEMM written by hand: the accumulator lives in tensor memory,
// in a slot of channel 1 (ws.output_channels). The load warp fills the
// operand ring; the MMA warp, which computes the accumulator, takes an
// accumulator slot before the loop, issues tcgen05 MMAs into it (not
// accumulating on the first step: the accumulator starts from zeros),
// releases each operand slot by tcgen05 and hands the accumulator over by
// tcgen05 after the loop; the epilogue, which reads the loop's result,
// waits for the slot instead of the operand ring, reads the accumulator in
// place and releases it after the read, then stores through a staging
// buffer.
// CHECK-LABEL: gpu.func @tensor_memory_accumulator(
// CHECK-NOT: arith.constant dense<0.0
// CHECK: %[[OPS:.*]] = ws.channel : !ws.channel<[memref<128x64xbf16, 3>, memref<128x64xbf16, 3>], stages = 3>
// CHECK: %[[ACCS:.*]] = ws.channel : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 2>
// CHECK: ws.role "load" warps 1 regs 40 {
// CHECK:   ws.producer_acquire %[[OPS]]
// CHECK:   ws.producer_commit %[[OPS]], %{{.*}} by tma tx_bytes 32768
// CHECK-NOT: tcgen05_mma
// CHECK: ws.role "mma" warps 1 regs 40 {
// CHECK:   %[[TOK:.*]], %[[ACC:.*]] = ws.producer_acquire %[[ACCS]]
// CHECK:   scf.for %[[I:.*]] = %[[LB:.*]] to %{{.*}} step %{{.*}} : i32 {
// CHECK:     %[[OTOK:.*]], %{{.*}} = ws.consumer_wait %[[OPS]]
// CHECK:     %[[FLAG:.*]] = arith.cmpi ne, %[[I]], %[[LB]] : i32
// CHECK:     ws.tcgen05_mma %{{.*}}, %{{.*}}, %[[ACC]], %[[FLAG]] {transpose_b}
// CHECK:     ws.consumer_release %[[OPS]], %[[OTOK]] by tcgen05
// CHECK:   }
// CHECK:   ws.producer_commit %[[ACCS]], %[[TOK]] by tcgen05
// CHECK-NOT: tile.dot
// CHECK: ws.role "epilogue" warps 4 regs 232 {
// CHECK-NOT: ws.consumer_wait %[[OPS]]
// CHECK-NOT: scf.for
// CHECK:   %[[ETOK:.*]], %[[EBUF:.*]] = ws.consumer_wait %[[ACCS]]
// CHECK:   %[[T:.*]] = ws.as_tensor %[[EBUF]] : memref<128x128xf32, #ws.tmem>
// CHECK:   tile.convert_layout %[[T]]
// CHECK:   ws.consumer_release %[[ACCS]], %[[ETOK]] by threads
// CHECK:   ws.barrier_sync 1 threads 128
// CHECK:   ws.store_shared
// CHECK:   ws.tma_store
// CHECK-NOT: ws.output_channels
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#tmem = #tile.tmem<block = [128, 128], unpacked = true>
#regs = #tile.tmem_32x32b<warpgroups = 1>
gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @tensor_memory_accumulator(%a: !tile.desc<tensor<128x64xbf16, #smem>>,
                 %b: !tile.desc<tensor<128x64xbf16, #smem>>,
                 %c: !tile.desc<tensor<128x128xbf16>>, %n: i32) kernel
      attributes {ws.roles = [#ws.role_spec<"load", warps = 1, regs = 40>,
                              #ws.role_spec<"mma", warps = 1, regs = 40>,
                              #ws.role_spec<"epilogue", warps = 4, regs = 232>],
                  ws.channel_stages = array<i32: 3, 2>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #tmem>
    %one = arith.constant dense<1.0> : tensor<128x128xf32, #tmem>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32, #tmem>) : i32 {
      %k = arith.muli %i, %c64 : i32
      %x = tile.load %a[%c0, %k] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
      %y = tile.load %b[%c0, %k] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
      %d = tile.dot %x, %y, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #tmem>
      scf.yield %d : tensor<128x128xf32, #tmem>
    } {ws.partition_outputs = [array<i32: 1>], ws.output_channels = array<i32: 1>}
    %v = tile.convert_layout %r : tensor<128x128xf32, #tmem> -> tensor<128x128xf32, #regs>
    %o = arith.truncf %v : tensor<128x128xf32, #regs> to tensor<128x128xbf16, #regs>
    tile.store %c[%c0, %c0], %o {ws.partition = array<i32: 2>} : !tile.desc<tensor<128x128xbf16>>, tensor<128x128xbf16, #regs>
    gpu.return
  }
}

// -----

// One entry of ws.output_channels per loop-carried value.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#tmem = #tile.tmem<block = [128, 128], unpacked = true>
#regs = #tile.tmem_32x32b<warpgroups = 1>
gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @output_channels_count(%a: !tile.desc<tensor<128x64xbf16, #smem>>,
                 %b: !tile.desc<tensor<128x64xbf16, #smem>>,
                 %c: !tile.desc<tensor<128x128xbf16>>, %n: i32) kernel
      attributes {ws.roles = [#ws.role_spec<"load", warps = 1, regs = 40>,
                              #ws.role_spec<"mma", warps = 1, regs = 40>,
                              #ws.role_spec<"epilogue", warps = 4, regs = 232>],
                  ws.channel_stages = array<i32: 3, 2>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #tmem>
    %one = arith.constant dense<1.0> : tensor<128x128xf32, #tmem>
    // expected-error @+1 {{ws-partition-roles: 'ws.output_channels' belongs on an scf.for, one entry per loop-carried value}}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32, #tmem>) : i32 {
      %k = arith.muli %i, %c64 : i32
      %x = tile.load %a[%c0, %k] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
      %y = tile.load %b[%c0, %k] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
      %d = tile.dot %x, %y, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #tmem>
      scf.yield %d : tensor<128x128xf32, #tmem>
    } {ws.partition_outputs = [array<i32: 1>], ws.output_channels = array<i32: 1, 1>}
    %v = tile.convert_layout %r : tensor<128x128xf32, #tmem> -> tensor<128x128xf32, #regs>
    %o = arith.truncf %v : tensor<128x128xf32, #regs> to tensor<128x128xbf16, #regs>
    tile.store %c[%c0, %c0], %o {ws.partition = array<i32: 2>} : !tile.desc<tensor<128x128xbf16>>, tensor<128x128xbf16, #regs>
    gpu.return
  }
}

// -----

// A channel of ws.output_channels is one of the kernel's.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#tmem = #tile.tmem<block = [128, 128], unpacked = true>
#regs = #tile.tmem_32x32b<warpgroups = 1>
gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @output_channel_range(%a: !tile.desc<tensor<128x64xbf16, #smem>>,
                 %b: !tile.desc<tensor<128x64xbf16, #smem>>,
                 %c: !tile.desc<tensor<128x128xbf16>>, %n: i32) kernel
      attributes {ws.roles = [#ws.role_spec<"load", warps = 1, regs = 40>,
                              #ws.role_spec<"mma", warps = 1, regs = 40>,
                              #ws.role_spec<"epilogue", warps = 4, regs = 232>],
                  ws.channel_stages = array<i32: 3, 2>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #tmem>
    %one = arith.constant dense<1.0> : tensor<128x128xf32, #tmem>
    // expected-error @+1 {{ws-partition-roles: 'ws.output_channels' entries are -1 or the index of one of the kernel's 2 channels (ws.channel_stages), got 2}}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32, #tmem>) : i32 {
      %k = arith.muli %i, %c64 : i32
      %x = tile.load %a[%c0, %k] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
      %y = tile.load %b[%c0, %k] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
      %d = tile.dot %x, %y, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #tmem>
      scf.yield %d : tensor<128x128xf32, #tmem>
    } {ws.partition_outputs = [array<i32: 1>], ws.output_channels = array<i32: 2>}
    %v = tile.convert_layout %r : tensor<128x128xf32, #tmem> -> tensor<128x128xf32, #regs>
    %o = arith.truncf %v : tensor<128x128xf32, #regs> to tensor<128x128xbf16, #regs>
    tile.store %c[%c0, %c0], %o {ws.partition = array<i32: 2>} : !tile.desc<tensor<128x128xbf16>>, tensor<128x128xbf16, #regs>
    gpu.return
  }
}

// -----

// The accumulator's slot is not one the loads fill.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#tmem = #tile.tmem<block = [128, 128], unpacked = true>
#regs = #tile.tmem_32x32b<warpgroups = 1>
gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @output_channel_of_loads(%a: !tile.desc<tensor<128x64xbf16, #smem>>,
                 %b: !tile.desc<tensor<128x64xbf16, #smem>>,
                 %c: !tile.desc<tensor<128x128xbf16>>, %n: i32) kernel
      attributes {ws.roles = [#ws.role_spec<"load", warps = 1, regs = 40>,
                              #ws.role_spec<"mma", warps = 1, regs = 40>,
                              #ws.role_spec<"epilogue", warps = 4, regs = 232>],
                  ws.channel_stages = array<i32: 3, 2>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #tmem>
    %one = arith.constant dense<1.0> : tensor<128x128xf32, #tmem>
    // expected-error @+1 {{ws-partition-roles: loop-carried value #0 (held in channel 0, ws.output_channels) shares its channel with tile.loads}}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32, #tmem>) : i32 {
      %k = arith.muli %i, %c64 : i32
      %x = tile.load %a[%c0, %k] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
      %y = tile.load %b[%c0, %k] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
      %d = tile.dot %x, %y, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #tmem>
      scf.yield %d : tensor<128x128xf32, #tmem>
    } {ws.partition_outputs = [array<i32: 1>], ws.output_channels = array<i32: 0>}
    %v = tile.convert_layout %r : tensor<128x128xf32, #tmem> -> tensor<128x128xf32, #regs>
    %o = arith.truncf %v : tensor<128x128xf32, #regs> to tensor<128x128xbf16, #regs>
    tile.store %c[%c0, %c0], %o {ws.partition = array<i32: 2>} : !tile.desc<tensor<128x128xbf16>>, tensor<128x128xbf16, #regs>
    gpu.return
  }
}

// -----

// One role computes a value held in a channel (it fills the slot).
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#tmem = #tile.tmem<block = [128, 128], unpacked = true>
#regs = #tile.tmem_32x32b<warpgroups = 1>
gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @output_two_roles(%a: !tile.desc<tensor<128x64xbf16, #smem>>,
                 %b: !tile.desc<tensor<128x64xbf16, #smem>>,
                 %c: !tile.desc<tensor<128x128xbf16>>, %n: i32) kernel
      attributes {ws.roles = [#ws.role_spec<"load", warps = 1, regs = 40>,
                              #ws.role_spec<"mma", warps = 1, regs = 40>,
                              #ws.role_spec<"epilogue", warps = 4, regs = 232>],
                  ws.channel_stages = array<i32: 3, 2>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #tmem>
    %one = arith.constant dense<1.0> : tensor<128x128xf32, #tmem>
    // expected-error @+1 {{ws-partition-roles: loop-carried value #0 (held in channel 1, ws.output_channels) must be computed by one role (ws.partition_outputs)}}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32, #tmem>) : i32 {
      %k = arith.muli %i, %c64 : i32
      %x = tile.load %a[%c0, %k] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
      %y = tile.load %b[%c0, %k] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
      %d = tile.dot %x, %y, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #tmem>
      scf.yield %d : tensor<128x128xf32, #tmem>
    } {ws.partition_outputs = [array<i32: 1, 2>], ws.output_channels = array<i32: 1>}
    %v = tile.convert_layout %r : tensor<128x128xf32, #tmem> -> tensor<128x128xf32, #regs>
    %o = arith.truncf %v : tensor<128x128xf32, #regs> to tensor<128x128xbf16, #regs>
    tile.store %c[%c0, %c0], %o {ws.partition = array<i32: 2>} : !tile.desc<tensor<128x128xbf16>>, tensor<128x128xbf16, #regs>
    gpu.return
  }
}

// -----

// The first MMA of a slot overwrites it: the accumulator starts from zeros.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#tmem = #tile.tmem<block = [128, 128], unpacked = true>
#regs = #tile.tmem_32x32b<warpgroups = 1>
gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @output_not_zero(%a: !tile.desc<tensor<128x64xbf16, #smem>>,
                 %b: !tile.desc<tensor<128x64xbf16, #smem>>,
                 %c: !tile.desc<tensor<128x128xbf16>>, %n: i32) kernel
      attributes {ws.roles = [#ws.role_spec<"load", warps = 1, regs = 40>,
                              #ws.role_spec<"mma", warps = 1, regs = 40>,
                              #ws.role_spec<"epilogue", warps = 4, regs = 232>],
                  ws.channel_stages = array<i32: 3, 2>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #tmem>
    %one = arith.constant dense<1.0> : tensor<128x128xf32, #tmem>
    // expected-error @+1 {{ws-partition-roles: loop-carried value #0 (held in channel 1, ws.output_channels) must start from zeros: the first MMA of each slot overwrites it}}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %one) -> (tensor<128x128xf32, #tmem>) : i32 {
      %k = arith.muli %i, %c64 : i32
      %x = tile.load %a[%c0, %k] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
      %y = tile.load %b[%c0, %k] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
      %d = tile.dot %x, %y, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #tmem>
      scf.yield %d : tensor<128x128xf32, #tmem>
    } {ws.partition_outputs = [array<i32: 1>], ws.output_channels = array<i32: 1>}
    %v = tile.convert_layout %r : tensor<128x128xf32, #tmem> -> tensor<128x128xf32, #regs>
    %o = arith.truncf %v : tensor<128x128xf32, #regs> to tensor<128x128xbf16, #regs>
    tile.store %c[%c0, %c0], %o {ws.partition = array<i32: 2>} : !tile.desc<tensor<128x128xbf16>>, tensor<128x128xbf16, #regs>
    gpu.return
  }
}

// -----

// A value held in a channel is a tensor-memory accumulator.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @output_in_registers(%a: !tile.desc<tensor<128x64xbf16, #smem>>,
                                %c: !tile.desc<tensor<128x128xbf16>>, %n: i32) kernel
      attributes {ws.roles = [#ws.role_spec<"producer", warps = 1, regs = 24>,
                              #ws.role_spec<"consumer", warps = 4, regs = 240>],
                  ws.channel_stages = array<i32: 2, 1>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
    // expected-error @+1 {{ws-partition-roles: loop-carried value #0 (held in channel 1, ws.output_channels) must be a tensor-memory accumulator (#tile.tmem layout)}}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<128x128xf32, #acc>) : i32 {
      %x = tile.load %a[%c0, %i] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
      %d = tile.dot %x, %x, %acc0 {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
      scf.yield %d : tensor<128x128xf32, #acc>
    } {ws.partition_outputs = [array<i32: 1>], ws.output_channels = array<i32: 1>}
    %o = arith.truncf %r : tensor<128x128xf32, #acc> to tensor<128x128xbf16, #acc>
    tile.store %c[%c0, %c0], %o {ws.partition = array<i32: 1>} : !tile.desc<tensor<128x128xbf16>>, tensor<128x128xbf16, #acc>
    gpu.return
  }
}

// -----

// A value held in a channel is the result of one tile.dot accumulating onto
// it (what the producer issues as tcgen05 MMAs).
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#tmem = #tile.tmem<block = [128, 128], unpacked = true>
gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @output_not_a_dot(%a: !tile.desc<tensor<128x64xbf16, #smem>>, %n: i32) kernel
      attributes {ws.roles = [#ws.role_spec<"load", warps = 1, regs = 40>,
                              #ws.role_spec<"mma", warps = 1, regs = 40>],
                  ws.channel_stages = array<i32: 2, 2>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #tmem>
    // expected-error @+1 {{ws-partition-roles: loop-carried value #0 (held in channel 1, ws.output_channels) must be one synchronous tile.dot accumulating onto it, yielded and read by nothing else}}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<128x128xf32, #tmem>) : i32 {
      %x = tile.load %a[%c0, %i] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
      scf.yield %acc : tensor<128x128xf32, #tmem>
    } {ws.partition_outputs = [array<i32: 1>], ws.output_channels = array<i32: 1>}
    gpu.return
  }
}

// -----

// The values of one channel fill one slot: one role computes them all.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#tmem = #tile.tmem<block = [128, 128], unpacked = true>
gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @outputs_two_producers(%a: !tile.desc<tensor<128x64xbf16, #smem>>, %n: i32) kernel
      attributes {ws.roles = [#ws.role_spec<"load", warps = 1, regs = 40>,
                              #ws.role_spec<"mma0", warps = 1, regs = 40>,
                              #ws.role_spec<"mma1", warps = 1, regs = 40>],
                  ws.channel_stages = array<i32: 2, 2>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #tmem>
    // expected-error @+1 {{ws-partition-roles: loop-carried value #1 (held in channel 1, ws.output_channels) is computed by another role than the channel's other values}}
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %zero, %acc1 = %zero)
        -> (tensor<128x128xf32, #tmem>, tensor<128x128xf32, #tmem>) : i32 {
      %x = tile.load %a[%c0, %i] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
      %d0 = tile.dot %x, %x, %acc0 {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #tmem>
      %d1 = tile.dot %x, %x, %acc1 {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #tmem>
      scf.yield %d0, %d1 : tensor<128x128xf32, #tmem>, tensor<128x128xf32, #tmem>
    } {ws.partition_outputs = [array<i32: 1>, array<i32: 2>], ws.output_channels = array<i32: 1, 1>}
    gpu.return
  }
}
