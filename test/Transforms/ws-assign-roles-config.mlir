// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-assign-roles

// The kernel attributes ws-assign-roles decides the channels from are
// checked before it decides anything: fmha.stages (1 to 8),
// fmha.item_slots (1 or 2) and fmha.consumer_registers (1 to 255). Before, it built a !ws.channel its own parser
// rejects, or ignored a value that is not an integer. The fmha dialect
// verifies the same attributes wherever they appear
// (test/Dialect/FMHA/invalid-kernel-attrs.mlir).

// No stages.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
// expected-error @+1 {{'fmha.stages' (pipeline stages) must be an integer from 1 to 32, got 0}}
func.func @k(%a: !tile.desc<tensor<64x64xbf16, #smem>>, %n: i32) attributes {fmha.stages = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<64x64xf32, #acc>) : i32 {
    %x = tile.load %a[%i, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
    %d = tile.dot %x, %x, %acc0 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
    scf.yield %d : tensor<64x64xf32, #acc>
  }
  return
}
}

// -----

// More stages than any kernel has.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
// expected-error @+1 {{'fmha.stages' (pipeline stages) must be an integer from 1 to 32, got 100}}
func.func @k(%a: !tile.desc<tensor<64x64xbf16, #smem>>, %n: i32) attributes {fmha.stages = 100 : i64} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<64x64xf32, #acc>) : i32 {
    %x = tile.load %a[%i, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
    %d = tile.dot %x, %x, %acc0 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
    scf.yield %d : tensor<64x64xf32, #acc>
  }
  return
}
}

// -----

// Negative stages.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
// expected-error @+1 {{'fmha.stages' (pipeline stages) must be an integer from 1 to 32, got -3}}
func.func @k(%a: !tile.desc<tensor<64x64xbf16, #smem>>, %n: i32) attributes {fmha.stages = -3 : i64} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<64x64xf32, #acc>) : i32 {
    %x = tile.load %a[%i, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
    %d = tile.dot %x, %x, %acc0 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
    scf.yield %d : tensor<64x64xf32, #acc>
  }
  return
}
}

// -----

// Stages that are not a number.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
// expected-error @+1 {{'fmha.stages' (pipeline stages) must be an integer from 1 to 32, got "many"}}
func.func @k(%a: !tile.desc<tensor<64x64xbf16, #smem>>, %n: i32) attributes {fmha.stages = "many"} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<64x64xf32, #acc>) : i32 {
    %x = tile.load %a[%i, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
    %d = tile.dot %x, %x, %acc0 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
    scf.yield %d : tensor<64x64xf32, #acc>
  }
  return
}
}

// -----

// A float.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
// expected-error @+1 {{'fmha.stages' (pipeline stages) must be an integer from 1 to 32, got 2.000000e+00 : f32}}
func.func @k(%a: !tile.desc<tensor<64x64xbf16, #smem>>, %n: i32) attributes {fmha.stages = 2.0 : f32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<64x64xf32, #acc>) : i32 {
    %x = tile.load %a[%i, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
    %d = tile.dot %x, %x, %acc0 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
    scf.yield %d : tensor<64x64xf32, #acc>
  }
  return
}
}

// -----

// Three slots per work item.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
// expected-error @+1 {{'fmha.item_slots' (slots of the per-item ring) must be an integer from 1 to 2, got 3}}
func.func @k(%a: !tile.desc<tensor<64x64xbf16, #smem>>, %n: i32) attributes {fmha.stages = 2 : i64, fmha.item_slots = 3 : i64} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<64x64xf32, #acc>) : i32 {
    %x = tile.load %a[%i, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
    %d = tile.dot %x, %x, %acc0 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
    scf.yield %d : tensor<64x64xf32, #acc>
  }
  return
}
}

// -----

// A register need past any thread's registers.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
// expected-error @+1 {{'fmha.consumer_registers' (registers per consumer thread) must be an integer from 1 to 255, got 0}}
func.func @k(%a: !tile.desc<tensor<64x64xbf16, #smem>>, %n: i32) attributes {fmha.stages = 2 : i64, fmha.consumer_registers = 0 : i64} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc0 = %zero) -> (tensor<64x64xf32, #acc>) : i32 {
    %x = tile.load %a[%i, %c0] : !tile.desc<tensor<64x64xbf16, #smem>>
    %d = tile.dot %x, %x, %acc0 {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
    scf.yield %d : tensor<64x64xf32, #acc>
  }
  return
}
}
