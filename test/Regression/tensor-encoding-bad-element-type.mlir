// RUN: fmha-opt %s -split-input-file -verify-diagnostics

// Found by fmha-fuzz: the parser verifies a tensor's encoding before it
// checks that the element type parsed, so each tile layout's verifyEncoding
// sees a null element type after a parse error; it must fail quietly (the
// parser has reported the error), not crash.

// expected-error @+1 {{undefined symbol alias id 'f32'}}
func.func private @tmem() -> tensor<128x128x!f32, #tile.tmem<block = [128, 128], unpacked = true>>

// -----

// expected-error @+1 {{undefined symbol alias id 'f32'}}
func.func private @wgmma_acc() -> tensor<64x64x!f32, #tile.wgmma_acc<instr_n = 64, warpgroups = 1>>

// -----

// expected-error @+1 {{undefined symbol alias id 'f32'}}
func.func private @tmem_32x32b() -> tensor<128x128x!f32, #tile.tmem_32x32b<warpgroups = 1>>

// -----

// expected-error @+1 {{undefined symbol alias id 'f32'}}
func.func private @slice() -> tensor<64x!f32, #tile.slice<dim = 1, parent = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>>>

// -----

// expected-error @+1 {{undefined symbol alias id 'bf16'}}
func.func private @nvmma_shared() -> tensor<64x64x!bf16, #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>>
