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
  // expected-error @+2 {{role 'p': the register budget must be a multiple of 8 from 24 to 256, or 0 for none, got 20}}
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
// -----

// Attention on sm_100a written by hand, one consumer (the assignment
// ws-assign-roles writes, docs/Roles.md): results handed between roles
// through channels (ws.result_channel). S's dot (mma) fills channel 2;
// P's convert into tensor memory (softmax) fills channel 3, which lies
// over S's (ws.channel_aliases); O is a handed accumulator (channel 4: the
// loop-carried value of ws.output_channels, rescaled by the correction's
// convert); the rescale factor and the row sum's reciprocal (softmax) go
// through the two-slot ring 5; the normalised output (correction) through
// channel 6 to the epilogue's TMA store.
// CHECK-LABEL: gpu.func @handed_values(
// CHECK-DAG: %[[Q:.*]] = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 1>
// CHECK-DAG: %[[KV:.*]] = ws.channel : !ws.channel<[memref<128x64xbf16, 3>, memref<128x64xbf16, 3>], stages = 2>
// CHECK-DAG: %[[S:.*]] = ws.channel : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 1>
// CHECK-DAG: %[[P:.*]] = ws.channel aliases %[[S]] : !ws.channel<[memref<128x128xbf16, #ws.tmem>], stages = 1>
// CHECK-DAG: %[[O:.*]] = ws.channel : !ws.channel<[memref<128x64xf32, #ws.tmem>], stages = 1>
// CHECK-DAG: %[[ROWS:.*]] = ws.channel : !ws.channel<[memref<128xf32, 3>], stages = 2>
// CHECK-DAG: %[[OUT:.*]] = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 1>
// The MMA warp: S into its slot; P V into O's slot once P and O are in,
// releasing both by tcgen05; O once more after the loop.
// CHECK: ws.role "mma"
// CHECK:   scf.for %[[I:.*]] = %[[LB:[^ ]*]] to
// CHECK:     %[[FIRST:.*]] = arith.cmpi ne, %[[I]], %[[LB]]
// CHECK:     %[[STOK:.*]], %[[SBUF:.*]] = ws.producer_acquire %[[S]]
// CHECK:     ws.tcgen05_mma %{{.*}}, %{{.*}}, %[[SBUF]], %false {transpose_b}
// CHECK:     ws.producer_commit %[[S]], %[[STOK]] by tcgen05
// CHECK:     %[[PTOK:.*]], %[[PBUF:.*]] = ws.consumer_wait %[[P]]
// CHECK:     %[[OTOK:.*]], %[[OBUF:.*]] = ws.consumer_wait %[[O]]
// CHECK:     %[[PT:.*]] = ws.as_tensor %[[PBUF]]
// CHECK:     ws.tcgen05_mma %[[PT]], %{{.*}}, %[[OBUF]], %[[FIRST]]
// CHECK:     ws.consumer_release %[[P]], %[[PTOK]] by tcgen05
// CHECK:     ws.consumer_release %[[O]], %[[OTOK]] by tcgen05
// CHECK:     ws.consumer_release %[[KV]], %{{.*}} by tcgen05
// CHECK:   }
// CHECK:   %[[LTOK:.*]], %{{.*}} = ws.consumer_wait %[[O]]
// CHECK:   ws.consumer_release %[[O]], %[[LTOK]] by tcgen05
// CHECK:   ws.consumer_release %[[Q]], %{{.*}} by tcgen05
// The epilogue: the output straight from its slot.
// CHECK: ws.role "epilogue"
// CHECK-NOT: scf.for
// CHECK:   %[[ETOK:.*]], %[[EBUF:.*]] = ws.consumer_wait %[[OUT]]
// CHECK:   ws.tma_store %{{.*}}, %[[EBUF]]
// CHECK:   ws.tma_store_wait
// CHECK:   ws.consumer_release %[[OUT]], %[[ETOK]] by threads
// The correction: per step the factor, then O taken, rescaled and handed
// back; after the loop the last O, the row sum, the staged output.
// CHECK: ws.role "correction"
// CHECK:   scf.for
// CHECK:     %[[RTOK:.*]], %[[RBUF:.*]] = ws.consumer_wait %[[ROWS]]
// CHECK:     %[[ALPHA:.*]] = ws.load_shared %[[RBUF]]
// CHECK:     ws.consumer_release %[[ROWS]], %[[RTOK]] by threads
// CHECK:     %[[CTOK:.*]], %[[CBUF:.*]] = ws.producer_acquire %[[O]]
// CHECK:     %[[OLD:.*]] = ws.as_tensor %[[CBUF]]
// CHECK:     %[[OREG:.*]] = tile.convert_layout %[[OLD]]
// CHECK:     tile.broadcast %[[ALPHA]]
// CHECK:     %[[NEW:.*]] = arith.mulf
// CHECK:     ws.store_tmem %[[NEW]], %[[CBUF]]
// CHECK:     ws.producer_commit %[[O]], %[[CTOK]] by threads
// CHECK-NOT: scf.yield
// CHECK:   }
// CHECK:   %[[FTOK:.*]], %[[FBUF:.*]] = ws.producer_acquire %[[O]]
// CHECK:   %[[LAST:.*]] = ws.as_tensor %[[FBUF]]
// CHECK:   ws.consumer_wait %[[ROWS]]
// CHECK:   ws.load_shared
// CHECK:   ws.consumer_release %[[ROWS]]
// CHECK:   %[[XTOK:.*]], %[[XBUF:.*]] = ws.producer_acquire %[[OUT]]
// CHECK:   tile.convert_layout %[[LAST]]
// CHECK:   tile.broadcast
// CHECK:   arith.mulf
// CHECK:   %[[STAGED:.*]] = arith.truncf
// CHECK:   ws.store_shared %[[STAGED]], %[[XBUF]]
// CHECK:   ws.producer_commit %[[OUT]], %[[XTOK]] by threads
// CHECK:   ws.producer_commit %[[O]], %[[FTOK]] by threads
// The softmax: P's slot (over S's) taken first, S read in place and
// released after its read, the factor sent, P over S; the row sum's
// reciprocal after the loop.
// CHECK: ws.role "softmax0"
// CHECK:   scf.for
// CHECK:     %[[PPTOK:.*]], %[[PPBUF:.*]] = ws.producer_acquire %[[P]]
// CHECK:     %[[WTOK:.*]], %[[WBUF:.*]] = ws.consumer_wait %[[S]]
// CHECK:     %[[ST:.*]] = ws.as_tensor %[[WBUF]]
// CHECK:     tile.convert_layout %[[ST]]
// CHECK:     ws.consumer_release %[[S]], %[[WTOK]] by threads
// CHECK:     math.exp2
// CHECK:     %[[FACTOR:.*]] = math.exp2
// CHECK:     %[[ATOK:.*]], %[[ABUF:.*]] = ws.producer_acquire %[[ROWS]]
// CHECK:     ws.store_shared %[[FACTOR]], %[[ABUF]]
// CHECK:     ws.producer_commit %[[ROWS]], %[[ATOK]] by threads
// CHECK:     %[[PREG:.*]] = arith.truncf
// CHECK:     ws.store_tmem %[[PREG]], %[[PPBUF]]
// CHECK:     ws.producer_commit %[[P]], %[[PPTOK]] by threads
// CHECK:   }
// CHECK:   %[[RECIP:.*]] = arith.divf
// CHECK:   %[[SUMTOK:.*]], %[[SUMBUF:.*]] = ws.producer_acquire %[[ROWS]]
// CHECK:   ws.store_shared %[[RECIP]], %[[SUMBUF]]
// CHECK:   ws.producer_commit %[[ROWS]], %[[SUMTOK]] by threads
// CHECK-NOT: ws.result_channel
// CHECK-NOT: ws.channel_aliases
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#tmem_o = #tile.tmem<block = [128, 64], unpacked = true>
#tmem_s = #tile.tmem<block = [128, 128], unpacked = true>
#tmem_p = #tile.tmem<block = [128, 128], unpacked = false>
#regs = #tile.tmem_32x32b<warpgroups = 1>
#row = #tile.slice<dim = 1, parent = #regs>
gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @handed_values(%q: !tile.desc<tensor<128x64xbf16, #smem>>,
                          %k: !tile.desc<tensor<128x64xbf16, #smem>>,
                          %v: !tile.desc<tensor<128x64xbf16, #smem>>,
                          %out: !tile.desc<tensor<128x64xbf16>>, %n: i32) kernel
      attributes {ws.roles = [#ws.role_spec<"load", warps = 1, regs = 72>,
                              #ws.role_spec<"mma", warps = 1, regs = 72>,
                              #ws.role_spec<"epilogue", warps = 1, regs = 72>,
                              #ws.role_spec<"correction", warps = 4, regs = 88>,
                              #ws.role_spec<"softmax0", warps = 4, regs = 176>],
                  ws.channel_stages = array<i32: 1, 2, 1, 1, 1, 2, 1>,
                  ws.channel_aliases = array<i32: -1, -1, -1, 2, -1, -1, -1>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c128 = arith.constant 128 : i32
    %x = tile.load %q[%c0, %c0] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
    %zero_o = arith.constant dense<0.0> : tensor<128x64xf32, #tmem_o>
    %ninf = arith.constant dense<0xFF800000> : tensor<128xf32, #row>
    %zero_l = arith.constant dense<0.0> : tensor<128xf32, #row>
    %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%o = %zero_o, %m = %ninf, %l = %zero_l) -> (tensor<128x64xf32, #tmem_o>, tensor<128xf32, #row>, tensor<128xf32, #row>) : i32 {
      %oreg = tile.convert_layout %o : tensor<128x64xf32, #tmem_o> -> tensor<128x64xf32, #regs>
      %row0 = arith.muli %i, %c128 : i32
      %kt = tile.load %k[%row0, %c0] {ws.load_channel = 1 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
      %vt = tile.load %v[%row0, %c0] {ws.load_channel = 1 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
      %zero_s = arith.constant dense<0.0> : tensor<128x128xf32, #tmem_s>
      %s = tile.dot %x, %kt, %zero_s {transpose_b, ws.partition = array<i32: 1>, ws.result_channel = 2 : i32} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #tmem_s>
      %sreg = tile.convert_layout %s : tensor<128x128xf32, #tmem_s> -> tensor<128x128xf32, #regs>
      %mx = tile.reduce max %sreg axis 1 : tensor<128x128xf32, #regs> -> tensor<128xf32, #row>
      %mnew = arith.maximumf %m, %mx : tensor<128xf32, #row>
      %mb = tile.broadcast %mnew axis 1 : tensor<128xf32, #row> -> tensor<128x128xf32, #regs>
      %d = arith.subf %sreg, %mb : tensor<128x128xf32, #regs>
      %p = math.exp2 %d : tensor<128x128xf32, #regs>
      %dm = arith.subf %m, %mnew : tensor<128xf32, #row>
      %alpha = math.exp2 %dm {ws.partition = array<i32: 4>, ws.result_channel = 5 : i32} : tensor<128xf32, #row>
      %ps = tile.reduce sum %p axis 1 : tensor<128x128xf32, #regs> -> tensor<128xf32, #row>
      %la = arith.mulf %l, %alpha : tensor<128xf32, #row>
      %lnew = arith.addf %la, %ps : tensor<128xf32, #row>
      %ab = tile.broadcast %alpha axis 1 : tensor<128xf32, #row> -> tensor<128x64xf32, #regs>
      %oscaled = arith.mulf %oreg, %ab : tensor<128x64xf32, #regs>
      %oback = tile.convert_layout %oscaled {ws.partition = array<i32: 3>, ws.result_channel = 4 : i32} : tensor<128x64xf32, #regs> -> tensor<128x64xf32, #tmem_o>
      %pb = arith.truncf %p : tensor<128x128xf32, #regs> to tensor<128x128xbf16, #regs>
      %pt = tile.convert_layout %pb {ws.partition = array<i32: 4>, ws.result_channel = 3 : i32} : tensor<128x128xbf16, #regs> -> tensor<128x128xbf16, #tmem_p>
      %onew = tile.dot %pt, %vt, %oback : tensor<128x128xbf16, #tmem_p>, tensor<128x64xbf16, #smem>, tensor<128x64xf32, #tmem_o>
      scf.yield %onew, %mnew, %lnew : tensor<128x64xf32, #tmem_o>, tensor<128xf32, #row>, tensor<128xf32, #row>
    } {ws.partition_outputs = [array<i32: 1>, array<i32: 4>, array<i32: 4>],
       ws.output_channels = array<i32: 4, -1, -1>}
    %ofinal = tile.convert_layout %r#0 : tensor<128x64xf32, #tmem_o> -> tensor<128x64xf32, #regs>
    %one = arith.constant dense<1.0> : tensor<128xf32, #row>
    %recip = arith.divf %one, %r#2 {ws.partition = array<i32: 4>, ws.result_channel = 5 : i32} : tensor<128xf32, #row>
    %rb = tile.broadcast %recip axis 1 : tensor<128xf32, #row> -> tensor<128x64xf32, #regs>
    %norm = arith.mulf %ofinal, %rb : tensor<128x64xf32, #regs>
    %staged = arith.truncf %norm {ws.partition = array<i32: 3>, ws.result_channel = 6 : i32} : tensor<128x64xf32, #regs> to tensor<128x64xbf16, #regs>
    tile.store %out[%c0, %c0], %staged {ws.partition = array<i32: 2>} : !tile.desc<tensor<128x64xbf16>>, tensor<128x64xbf16, #regs>
    gpu.return
  }
}

// -----

// A result handed through a channel the kernel does not have.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#regs = #tile.tmem_32x32b<warpgroups = 1>
gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @result_channel_range(%a: !tile.desc<tensor<128x64xbf16, #smem>>) kernel
      attributes {ws.roles = [#ws.role_spec<"p", warps = 1, regs = 24>],
                  ws.channel_stages = array<i32: 1>} {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
    // expected-error @+1 {{ws-partition-roles: 'ws.result_channel' must be the index of one of the kernel's 1 channels (ws.channel_stages), got 2}}
    %one = arith.constant {ws.partition = array<i32: 0>, ws.result_channel = 2 : i32} dense<1.0> : tensor<128xf32, #tile.slice<dim = 1, parent = #regs>>
    gpu.return
  }
}

// -----

// A result handed over by two roles.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#regs = #tile.tmem_32x32b<warpgroups = 1>
gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @result_channel_roles(%a: !tile.desc<tensor<128x64xbf16, #smem>>) kernel
      attributes {ws.roles = [#ws.role_spec<"p", warps = 1, regs = 24>,
                              #ws.role_spec<"q", warps = 1, regs = 24>],
                  ws.channel_stages = array<i32: 1, 1>} {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
    // expected-error @+1 {{ws-partition-roles: an op with 'ws.result_channel' needs a 'ws.partition' of one role, the one that hands its result over}}
    %one = arith.constant {ws.partition = array<i32: 0, 1>, ws.result_channel = 1 : i32} dense<1.0> : tensor<128xf32, #tile.slice<dim = 1, parent = #regs>>
    gpu.return
  }
}

// -----

// One entry of ws.channel_aliases per channel.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  // expected-error @+1 {{ws-partition-roles: 'ws.channel_aliases' needs one entry per channel (1, ws.channel_stages), got 2}}
  gpu.func @aliases_count(%a: !tile.desc<tensor<128x64xbf16, #smem>>) kernel
      attributes {ws.roles = [#ws.role_spec<"p", warps = 1, regs = 24>],
                  ws.channel_stages = array<i32: 1>,
                  ws.channel_aliases = array<i32: -1, -1>} {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
    gpu.return
  }
}

// -----

// A channel overlays an earlier channel only.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  // expected-error @+1 {{ws-partition-roles: 'ws.channel_aliases' entry 0 must be -1 or an earlier channel, got 1}}
  gpu.func @aliases_later(%a: !tile.desc<tensor<128x64xbf16, #smem>>) kernel
      attributes {ws.roles = [#ws.role_spec<"p", warps = 1, regs = 24>],
                  ws.channel_stages = array<i32: 1, 1>,
                  ws.channel_aliases = array<i32: 1, -1>} {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
    gpu.return
  }
}

// -----

// Only tensor-memory value channels overlay others.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  // expected-error @+1 {{ws-partition-roles: channel 1 overlays channel 0 (ws.channel_aliases), but only a channel of tensor-memory values (ws.result_channel) may}}
  gpu.func @aliases_loads(%a: !tile.desc<tensor<128x64xbf16, #smem>>) kernel
      attributes {ws.roles = [#ws.role_spec<"p", warps = 1, regs = 24>],
                  ws.channel_stages = array<i32: 1, 1>,
                  ws.channel_aliases = array<i32: -1, 0>} {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
    %y = tile.load %a[%c0, %c0] {ws.load_channel = 1 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
    gpu.return
  }
}

// -----

// A result handed through a channel that loads fill.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#regs = #tile.tmem_32x32b<warpgroups = 1>
gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @result_into_loads(%a: !tile.desc<tensor<128x64xbf16, #smem>>) kernel
      attributes {ws.roles = [#ws.role_spec<"p", warps = 1, regs = 24>],
                  ws.channel_stages = array<i32: 1>} {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
    // expected-error @+1 {{ws-partition-roles: hands its result over through channel 0 (ws.result_channel) which tile.loads fill}}
    %one = arith.constant {ws.partition = array<i32: 0>, ws.result_channel = 0 : i32} dense<1.0> : tensor<128xf32, #tile.slice<dim = 1, parent = #regs>>
    gpu.return
  }
}

// -----

// A tile.dot handed over writes its slot: it accumulates onto zeros.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#tmem = #tile.tmem<block = [128, 128], unpacked = true>
gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @result_dot_acc(%a: !tile.desc<tensor<128x64xbf16, #smem>>) kernel
      attributes {ws.roles = [#ws.role_spec<"p", warps = 1, regs = 24>],
                  ws.channel_stages = array<i32: 1, 1>} {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
    %one = arith.constant dense<1.0> : tensor<128x128xf32, #tmem>
    // expected-error @+1 {{ws-partition-roles: hands its result over through channel 1 (ws.result_channel) but a tile.dot handed over is synchronous, with a tensor-memory accumulator of zeros: its MMA writes the slot}}
    %s = tile.dot %x, %x, %one {transpose_b, ws.partition = array<i32: 0>, ws.result_channel = 1 : i32} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #tmem>
    gpu.return
  }
}

// -----

// A tensor-memory value comes from a tile.dot or a tile.convert_layout.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#tmem = #tile.tmem<block = [128, 128], unpacked = true>
gpu.module @m [#nvvm.target<chip = "sm_100a">] {
  gpu.func @result_tmem_kind(%a: !tile.desc<tensor<128x64xbf16, #smem>>) kernel
      attributes {ws.roles = [#ws.role_spec<"p", warps = 1, regs = 24>],
                  ws.channel_stages = array<i32: 1, 1>} {
    %c0 = arith.constant 0 : i32
    %x = tile.load %a[%c0, %c0] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<128x64xbf16, #smem>>
    // expected-error @+1 {{ws-partition-roles: hands its result over through channel 1 (ws.result_channel) but a tensor-memory value is the result of a tile.dot or a tile.convert_layout}}
    %one = arith.constant {ws.partition = array<i32: 0>, ws.result_channel = 1 : i32} dense<1.0> : tensor<128x128xf32, #tmem>
    gpu.return
  }
}

// -----

// A register tile staged for a dot that reads it from shared memory (the
// attention backward's dS, read transposed for dK += dS^T Q): the consumer
// stores it into a buffer of its own in the NVMMA layout, between two
// waits at its named barrier with a proxy fence before the second, and the
// dot reads the buffer in place. The consumer's TMA store takes the same
// barrier.
// CHECK-DAG: #[[SMEM:[a-z0-9_]+]] = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
// CHECK-LABEL: gpu.func @staged_operand(
// CHECK: %[[STAGE:.*]] = ws.buffer_alloc : memref<64x64xbf16, 3>
// CHECK: ws.warp_specialize {
// CHECK: ws.role "math" warps 4 regs 240 {
// CHECK:   %[[T:.*]] = arith.truncf
// CHECK:   ws.barrier_sync 1 threads 128
// CHECK:   ws.store_shared %[[T]], %[[STAGE]] {layout = #[[SMEM]]} : tensor<64x64xbf16, #{{.*}}>, memref<64x64xbf16, 3>
// CHECK:   ws.fence_async_shared
// CHECK:   ws.barrier_sync 1 threads 128
// CHECK:   %[[A:.*]] = ws.as_tensor %[[STAGE]] : memref<64x64xbf16, 3> -> tensor<64x64xbf16, #{{.*}}>
// CHECK:   tile.dot %[[A]], %{{.*}}, %{{.*}} {async, transpose_a}
// CHECK:   tile.dot_wait
// CHECK:   ws.barrier_sync 1 threads 128
// CHECK:   ws.tma_store
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @staged_operand(%a: !tile.desc<tensor<64x64xbf16, #smem>>,
                           %c: !tile.desc<tensor<64x64xf32>>, %n: i32) kernel
      attributes {ws.roles = [#ws.role_spec<"loader", warps = 1, regs = 24>,
                              #ws.role_spec<"math", warps = 4, regs = 240>],
                  ws.channel_stages = array<i32: 2>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    scf.for %i = %c0 to %n step %c1 : i32 {
      %x = tile.load %a[%i, %c0] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<64x64xbf16, #smem>>
      %s = tile.dot %x, %x, %zero {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
      %t = arith.truncf %s : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
      %st = tile.convert_layout %t : tensor<64x64xbf16, #acc> -> tensor<64x64xbf16, #smem>
      %d = tile.dot %st, %x, %zero {async, transpose_a} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
      %w = tile.dot_wait %d pending 0 : tensor<64x64xf32, #acc>
      tile.store %c[%i, %c0], %w reduce add {ws.partition = array<i32: 1>} : !tile.desc<tensor<64x64xf32>>, tensor<64x64xf32, #acc>
    }
    gpu.return
  }
}

// -----

// A staged register tile read by a dot in another block (a loop's body):
// the next write of the buffer could overtake the read.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
gpu.module @m [#nvvm.target<chip = "sm_90a">] {
  gpu.func @staged_elsewhere(%a: !tile.desc<tensor<64x64xbf16, #smem>>,
                             %c: !tile.desc<tensor<64x64xf32>>, %n: i32) kernel
      attributes {ws.roles = [#ws.role_spec<"loader", warps = 1, regs = 24>,
                              #ws.role_spec<"math", warps = 4, regs = 240>],
                  ws.channel_stages = array<i32: 2>} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    %x0 = tile.load %a[%c0, %c0] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<64x64xbf16, #smem>>
    %s = tile.dot %x0, %x0, %zero {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
    %t = arith.truncf %s : tensor<64x64xf32, #acc> to tensor<64x64xbf16, #acc>
    // expected-error @+1 {{'tile.convert_layout' op ws-partition-roles: a register tile staged into shared memory must be read by dots done (waited for) in its block}}
    %st = tile.convert_layout %t : tensor<64x64xbf16, #acc> -> tensor<64x64xbf16, #smem>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<64x64xf32, #acc>) : i32 {
      %x = tile.load %a[%i, %c0] {ws.load_channel = 0 : i32, ws.partition = array<i32: 0>} : !tile.desc<tensor<64x64xbf16, #smem>>
      %d = tile.dot %st, %x, %acc0 {transpose_a} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
      scf.yield %d : tensor<64x64xf32, #acc>
    } {ws.partition_outputs = [array<i32: 1>]}
    tile.store %c[%c0, %c0], %r {ws.partition = array<i32: 1>} : !tile.desc<tensor<64x64xf32>>, tensor<64x64xf32, #acc>
    gpu.return
  }
}
