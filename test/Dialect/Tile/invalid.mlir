// RUN: fmha-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the tile dialect: the !tile.desc type, the
// layout encodings (their parameters, then the tensors they lay out), then
// the ops.

//===----------------------------------------------------------------------===//
// !tile.desc
//===----------------------------------------------------------------------===//

// expected-error @+1 {{a descriptor's block must have a static shape, got 'tensor<?x64xbf16>'}}
func.func private @desc_dynamic_block(!tile.desc<tensor<?x64xbf16>>)

// -----

// expected-error @+1 {{TMA handles tensors of rank 1 to 5, block has rank 6}}
func.func private @desc_block_rank(!tile.desc<tensor<2x2x2x2x2x2xbf16>>)

// -----

// expected-error @+1 {{TMA handles tensors of rank 1 to 5, block has rank 0}}
func.func private @desc_block_rank_0(!tile.desc<tensor<bf16>>)

// -----

// expected-error @+1 {{global rank 6 must be between the block's rank (2) and 5}}
func.func private @desc_global_rank_too_big(!tile.desc<tensor<64x64xbf16>, rank = 6>)

// -----

// expected-error @+1 {{global rank 1 must be between the block's rank (2) and 5}}
func.func private @desc_global_rank_too_small(!tile.desc<tensor<64x64xbf16>, rank = 1>)

// -----

// expected-error @+1 {{TMA box dimensions must be in [1, 256], got 512}}
func.func private @desc_box_dim(!tile.desc<tensor<512x64xbf16>>)

// -----

// expected-error @+1 {{element type must be an integer or float, got 'index'}}
func.func private @desc_element_type(!tile.desc<tensor<64xindex>>)

// -----

// expected-error @+1 {{a descriptor's block lives in shared memory: its encoding must be a #tile.nvmma_shared, got #tile.tmem<block = [128, 64], unpacked = true>}}
func.func private @desc_encoding(!tile.desc<tensor<128x64xf32, #tile.tmem<block = [128, 64], unpacked = true>>>)

//===----------------------------------------------------------------------===//
// #tile.wgmma_acc
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{instr_n must be a multiple of 8 in [8, 256] (wgmma m64nNk16), got 12}}
func.func private @wgmma_acc_instr_n(tensor<128x128xf32, #tile.wgmma_acc<instr_n = 12, warpgroups = 1>>)

// -----

// expected-error @+1 {{warpgroups must be in [1, 8] (a CTA has at most 1024 threads), got 0}}
func.func private @wgmma_acc_warpgroups(tensor<128x128xf32, #tile.wgmma_acc<instr_n = 128, warpgroups = 0>>)

// -----

// expected-error @+1 {{#tile.wgmma_acc lays out statically shaped tensors only}}
func.func private @wgmma_acc_dynamic(tensor<?x128xf32, #tile.wgmma_acc<instr_n = 128, warpgroups = 1>>)

// -----

// expected-error @+1 {{#tile.wgmma_acc lays out 2-d tensors, got a tensor of rank 1}}
func.func private @wgmma_acc_rank(tensor<128xf32, #tile.wgmma_acc<instr_n = 128, warpgroups = 1>>)

// -----

// expected-error @+1 {{#tile.wgmma_acc with 2 warpgroup(s) needs a multiple of 128 rows, got tensor<64x128xf32>}}
func.func private @wgmma_acc_rows(tensor<64x128xf32, #tile.wgmma_acc<instr_n = 128, warpgroups = 2>>)

// -----

// expected-error @+1 {{#tile.wgmma_acc with instr_n = 64 needs a multiple of 64 columns, got tensor<128x96xf32>}}
func.func private @wgmma_acc_columns(tensor<128x96xf32, #tile.wgmma_acc<instr_n = 64, warpgroups = 1>>)

//===----------------------------------------------------------------------===//
// #tile.tmem_32x32b
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{warpgroups must be in [1, 8] (a CTA has at most 1024 threads), got 9}}
func.func private @tmem_32x32b_warpgroups(tensor<128x128xf32, #tile.tmem_32x32b<warpgroups = 9>>)

// -----

// expected-error @+1 {{#tile.tmem_32x32b lays out 2-d tensors, got a tensor of rank 3}}
func.func private @tmem_32x32b_rank(tensor<2x128x128xf32, #tile.tmem_32x32b<warpgroups = 1>>)

// -----

// expected-error @+1 {{#tile.tmem_32x32b needs a multiple of 128 rows (one per thread of a warpgroup), got tensor<64x128xf32>}}
func.func private @tmem_32x32b_rows(tensor<64x128xf32, #tile.tmem_32x32b<warpgroups = 1>>)

// -----

// expected-error @+1 {{#tile.tmem_32x32b splits the columns over 2 warpgroups: the column count must divide evenly, got tensor<128x3xf32>}}
func.func private @tmem_32x32b_columns(tensor<128x3xf32, #tile.tmem_32x32b<warpgroups = 2>>)

//===----------------------------------------------------------------------===//
// #tile.blocked
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{vector must be a power of two in [1, 16], got 6}}
func.func private @blocked_vector(tensor<32x128xbf16, #tile.blocked<vector = 6, lanes = 16, warps = 4>>)

// -----

// expected-error @+1 {{lanes must be a power of two in [1, 32], got 64}}
func.func private @blocked_lanes(tensor<32x128xbf16, #tile.blocked<vector = 8, lanes = 64, warps = 4>>)

// -----

// expected-error @+1 {{warps must be in [1, 32] (a CTA has at most 1024 threads), got 0}}
func.func private @blocked_warps(tensor<32x128xbf16, #tile.blocked<vector = 8, lanes = 16, warps = 0>>)

// -----

// expected-error @+1 {{#tile.blocked lays out 2-d tensors, got a tensor of rank 1}}
func.func private @blocked_rank(tensor<32xbf16, #tile.blocked<vector = 8, lanes = 16, warps = 4>>)

// -----

// expected-error @+1 {{#tile.blocked<vector = 8, lanes = 16, warps = 4> needs a multiple of 8 rows, got tensor<12x128xbf16>}}
func.func private @blocked_rows(tensor<12x128xbf16, #tile.blocked<vector = 8, lanes = 16, warps = 4>>)

// -----

// expected-error @+1 {{#tile.blocked<vector = 8, lanes = 16> needs a multiple of 128 columns, got tensor<32x64xbf16>}}
func.func private @blocked_columns(tensor<32x64xbf16, #tile.blocked<vector = 8, lanes = 16, warps = 4>>)

//===----------------------------------------------------------------------===//
// #tile.slice
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{the parent of a #tile.slice must be a #tile.wgmma_acc, #tile.tmem_32x32b or #tile.blocked layout, got #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>}}
func.func private @slice_parent(tensor<128xf32, #tile.slice<dim = 1, parent = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>>>)

// -----

// expected-error @+1 {{#tile.slice dim 2 is out of range for a 2-d parent layout}}
func.func private @slice_dim(tensor<128xf32, #tile.slice<dim = 2, parent = #tile.tmem_32x32b<warpgroups = 1>>>)

// -----

// expected-error @+1 {{#tile.slice lays out 1-d tensors, got a tensor of rank 2}}
func.func private @slice_rank(tensor<128x1xf32, #tile.slice<dim = 1, parent = #tile.tmem_32x32b<warpgroups = 1>>>)

// -----

// expected-error @+1 {{#tile.slice<dim = 1> needs a multiple of 128 elements (the parent's tile along dimension 0), got 96}}
func.func private @slice_size(tensor<96xf32, #tile.slice<dim = 1, parent = #tile.wgmma_acc<instr_n = 64, warpgroups = 2>>>)

//===----------------------------------------------------------------------===//
// #tile.transposed
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{the parent of a #tile.transposed must be a #tile.wgmma_acc, #tile.tmem_32x32b or #tile.blocked layout, got #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>}}
func.func private @transposed_parent(tensor<8x64xf32, #tile.transposed<parent = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>>>)

// -----

// expected-error @+1 {{#tile.transposed lays out 2-d tensors, got a tensor of rank 1}}
func.func private @transposed_rank(tensor<64xf32, #tile.transposed<parent = #tile.wgmma_acc<instr_n = 8, warpgroups = 1>>>)

// -----

// The transpose, 8x64, is not made of the parent's 64-row tiles.
// expected-error @+1 {{#tile.wgmma_acc with 1 warpgroup(s) needs a multiple of 64 rows}}
func.func private @transposed_shape(tensor<64x8xf32, #tile.transposed<parent = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>>>)

//===----------------------------------------------------------------------===//
// #tile.nvmma_shared
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{swizzle must be 0, 32, 64 or 128 bytes, got 48}}
func.func private @nvmma_swizzle(tensor<128x64xbf16, #tile.nvmma_shared<swizzle = 48, transposed = false, element_bits = 16>>)

// -----

// expected-error @+1 {{element_bits must be 8, 16 or 32, got 4}}
func.func private @nvmma_element_bits(tensor<128x64xbf16, #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 4>>)

// -----

// expected-error @+1 {{#tile.nvmma_shared lays out statically shaped tensors only}}
func.func private @nvmma_dynamic(tensor<128x?xbf16, #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>>)

// -----

// expected-error @+1 {{#tile.nvmma_shared lays out tensors of rank 2 or more, got a tensor of rank 1}}
func.func private @nvmma_rank(tensor<64xbf16, #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>>)

// -----

// expected-error @+1 {{#tile.nvmma_shared has element_bits = 16 but the element type is 'f32'}}
func.func private @nvmma_element_type(tensor<128x64xf32, #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>>)

// -----

// expected-error @+1 {{the contiguous dimension 1 of tensor<128x32xbf16> spans 64 bytes, not a multiple of 128 (the swizzle width)}}
func.func private @nvmma_swizzle_width(tensor<128x32xbf16, #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>>)

// -----

// expected-error @+1 {{the contiguous dimension 0 of tensor<4x64xbf16> spans 8 bytes, not a multiple of 16 (the TMA and MMA granule)}}
func.func private @nvmma_granule(tensor<4x64xbf16, #tile.nvmma_shared<swizzle = 0, transposed = true, element_bits = 16>>)

//===----------------------------------------------------------------------===//
// #tile.tmem
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{#tile.tmem block rows must be 64 or 128 (the M of a tcgen05.mma), got 32}}
func.func private @tmem_block_rows(tensor<128x128xf32, #tile.tmem<block = [32, 128], unpacked = true>>)

// -----

// expected-error @+1 {{#tile.tmem block columns must be in [1, 256] (the N of a tcgen05.mma), got 512}}
func.func private @tmem_block_columns(tensor<128x512xf32, #tile.tmem<block = [128, 512], unpacked = true>>)

// -----

// expected-error @+1 {{#tile.tmem lays out 2-d tensors, got a tensor of rank 1}}
func.func private @tmem_rank(tensor<128xf32, #tile.tmem<block = [128, 128], unpacked = true>>)

// -----

// expected-error @+1 {{tensor<128x96xf32> is not made of whole #tile.tmem blocks of 128x64}}
func.func private @tmem_blocks(tensor<128x96xf32, #tile.tmem<block = [128, 64], unpacked = true>>)

// -----

// expected-error @+1 {{#tile.tmem holds 8-, 16- or 32-bit elements, got 'f64'}}
func.func private @tmem_element_type(tensor<128x64xf64, #tile.tmem<block = [128, 64], unpacked = true>>)

// -----

// expected-error @+1 {{32-bit elements take a whole TMEM column: #tile.tmem needs unpacked = true for 'f32'}}
func.func private @tmem_packed_f32(tensor<128x64xf32, #tile.tmem<block = [128, 64], unpacked = false>>)

// -----

// expected-error @+1 {{tensor<256x512xf32> takes 1024 TMEM columns, more than the 512 of a CTA}}
func.func private @tmem_columns(tensor<256x512xf32, #tile.tmem<block = [128, 256], unpacked = true>>)

//===----------------------------------------------------------------------===//
// tile.program_id, tile.num_programs
//===----------------------------------------------------------------------===//

// -----

func.func @program_id_type() {
  // expected-error @+1 {{'tile.program_id' op result #0 must be 32-bit signless integer, but got 'i64'}}
  %0 = tile.program_id x : i64
  return
}

// -----

func.func @num_programs_dim() {
  // expected-error @+1 {{custom op 'tile.num_programs' expected string or keyword containing one of the following enum values for attribute 'dim' [x, y, z]}}
  %0 = tile.num_programs w : i32
  return
}

//===----------------------------------------------------------------------===//
// tile.load, tile.store
//===----------------------------------------------------------------------===//

// -----

func.func @load_coords(%d: !tile.desc<tensor<128x64xbf16>, rank = 4>, %i: i32) {
  // expected-error @+1 {{'tile.load' op needs one coordinate per dimension of the global tensor: 4 for '!tile.desc<tensor<128x64xbf16>, rank = 4>', got 2}}
  %0 = tile.load %d[%i, %i] : !tile.desc<tensor<128x64xbf16>, rank = 4>
  return
}

// -----

func.func @load_coord_type(%d: !tile.desc<tensor<128x64xbf16>>, %i: i64) {
  // expected-error @+1 {{'tile.load' op operand #1 must be variadic of 32-bit signless integer, but got 'i64'}}
  %0 = "tile.load"(%d, %i, %i) : (!tile.desc<tensor<128x64xbf16>>, i64, i64) -> tensor<128x64xbf16>
  return
}

// -----

func.func @load_result_type(%d: !tile.desc<tensor<128x64xbf16>>, %i: i32) {
  // expected-error @+2 {{'tile.load' op failed to infer returned types}}
  // expected-error @+1 {{'tile.load' op inferred type(s) 'tensor<128x64xbf16>' are incompatible with return type(s) of operation 'tensor<64x64xbf16>'}}
  %0 = "tile.load"(%d, %i, %i) : (!tile.desc<tensor<128x64xbf16>>, i32, i32) -> tensor<64x64xbf16>
  return
}

// -----

func.func @store_coords(%d: !tile.desc<tensor<128x64xbf16>>, %v: tensor<128x64xbf16>, %i: i32) {
  // expected-error @+1 {{'tile.store' op needs one coordinate per dimension of the global tensor: 2 for '!tile.desc<tensor<128x64xbf16>>', got 3}}
  tile.store %d[%i, %i, %i], %v : !tile.desc<tensor<128x64xbf16>>
  return
}

// -----

func.func @store_value_type(%d: !tile.desc<tensor<128x64xbf16>>, %v: tensor<128x64xf32>, %i: i32) {
  // expected-error @+1 {{'tile.store' op stores a value of type 'tensor<128x64xf32>' but the block type of the descriptor is 'tensor<128x64xbf16>'}}
  "tile.store"(%d, %i, %i, %v) : (!tile.desc<tensor<128x64xbf16>>, i32, i32, tensor<128x64xf32>) -> ()
  return
}

// -----

func.func @store_reduce_bf16(%d: !tile.desc<tensor<128x64xbf16>>, %v: tensor<128x64xbf16>, %i: i32) {
  // expected-error @+1 {{'tile.store' op reduce add stores f32 tiles only so far, got 'bf16'}}
  tile.store %d[%i, %i], %v reduce add : !tile.desc<tensor<128x64xbf16>>
  return
}

//===----------------------------------------------------------------------===//
// tile.store_direct
//===----------------------------------------------------------------------===//

// -----

func.func @store_direct_coords(%m: memref<?x?x?xf32>, %v: tensor<64xf32>, %i: i32) {
  // expected-error @+1 {{'tile.store_direct' op needs one coordinate per dimension of the destination: 3 for 'memref<?x?x?xf32>', got 2}}
  tile.store_direct %m[%i, %i], %v : memref<?x?x?xf32>, tensor<64xf32>
  return
}

// -----

func.func @store_direct_rank(%m: memref<?xf32>, %v: tensor<4x64xf32>, %i: i32) {
  // expected-error @+1 {{'tile.store_direct' op stores a value of rank 2 into a destination of rank 1}}
  tile.store_direct %m[%i], %v : memref<?xf32>, tensor<4x64xf32>
  return
}

// -----

func.func @store_direct_element_type(%m: memref<?x?xbf16>, %v: tensor<64xf32>, %i: i32) {
  // expected-error @+1 {{'tile.store_direct' op stores 'f32' elements into a memref of 'bf16'}}
  tile.store_direct %m[%i, %i], %v : memref<?x?xbf16>, tensor<64xf32>
  return
}

// -----

func.func @store_direct_row_dims(%m: memref<?x?xf32>, %v: tensor<64x64xf32>, %i: i32) {
  // expected-error @+1 {{'tile.store_direct' op row_dims 2: the value's rows and other dimensions cover 3 dimensions, more than the 2 of the destination}}
  tile.store_direct %m[%i, %i], %v row_dims 2 : memref<?x?xf32>, tensor<64x64xf32>
  return
}

// -----

func.func @store_direct_row_dims_zero(%m: memref<?x?xf32>, %v: tensor<64xf32>, %i: i32) {
  // expected-error @+1 {{attribute 'row_dims' failed to satisfy constraint}}
  tile.store_direct %m[%i, %i], %v row_dims 0 : memref<?x?xf32>, tensor<64xf32>
  return
}

// -----

func.func @store_direct_shared(%m: memref<64xf32, 3>, %v: tensor<64xf32>, %i: i32) {
  // expected-error @+1 {{'tile.store_direct' op writes global memory, but the destination is in memory space 3 : i64}}
  tile.store_direct %m[%i], %v : memref<64xf32, 3>, tensor<64xf32>
  return
}

//===----------------------------------------------------------------------===//
// tile.dot
//===----------------------------------------------------------------------===//

// -----

func.func @dot_operand_type(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>, %c: tensor<64x16xf32>) {
  // expected-error @+1 {{'tile.dot' op operand #0 must be statically shaped 2-d tensor of bfloat16 type or 16-bit float or f8E4M3FN type or f8E5M2 type values, but got 'tensor<64x32xf32>'}}
  %0 = tile.dot %a, %b, %c : tensor<64x32xf32>, tensor<32x16xf32>, tensor<64x16xf32>
  return
}

// -----

func.func @dot_element_types(%a: tensor<64x32xf16>, %b: tensor<32x16xbf16>, %c: tensor<64x16xf32>) {
  // expected-error @+1 {{'tile.dot' op operands must have the same element type (or both be fp8), got 'f16' and 'bf16'}}
  %0 = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<32x16xbf16>, tensor<64x16xf32>
  return
}

// -----

func.func @dot_async_result_used(%a: tensor<64x32xbf16>, %b: tensor<32x16xbf16>, %c: tensor<64x16xf32>) {
  // expected-error @+1 {{'tile.dot' op async result may only be used by tile.dot_wait or as the accumulator of an async tile.dot, not by arith.addf}}
  %0 = tile.dot %a, %b, %c {async} : tensor<64x32xbf16>, tensor<32x16xbf16>, tensor<64x16xf32>
  %1 = arith.addf %0, %c : tensor<64x16xf32>
  return
}

// -----

func.func @dot_wait_sync_operand(%a: tensor<64x32xbf16>, %b: tensor<32x16xbf16>, %c: tensor<64x16xf32>) {
  %0 = tile.dot %a, %b, %c : tensor<64x32xbf16>, tensor<32x16xbf16>, tensor<64x16xf32>
  // expected-error @+1 {{'tile.dot_wait' op operand 0 is not the result of an async tile.dot}}
  %1 = tile.dot_wait %0 pending 0 : tensor<64x16xf32>
  return
}

// -----

func.func @dot_wait_negative_pending(%a: tensor<64x32xbf16>, %b: tensor<32x16xbf16>, %c: tensor<64x16xf32>) {
  %0 = tile.dot %a, %b, %c {async} : tensor<64x32xbf16>, tensor<32x16xbf16>, tensor<64x16xf32>
  // expected-error @+1 {{'tile.dot_wait' op attribute 'pending' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %1 = tile.dot_wait %0 pending -1 : tensor<64x16xf32>
  return
}

// -----

func.func @dot_bf16_f16_acc(%a: tensor<64x32xbf16>, %b: tensor<32x16xbf16>, %c: tensor<64x16xf16>) {
  // expected-error @+1 {{'tile.dot' op bf16 operands need an f32 accumulator, got 'f16'}}
  %0 = tile.dot %a, %b, %c : tensor<64x32xbf16>, tensor<32x16xbf16>, tensor<64x16xf16>
  return
}

// -----

func.func @dot_k(%a: tensor<64x32xf16>, %b: tensor<16x32xf16>, %c: tensor<64x32xf32>) {
  // expected-error @+1 {{'tile.dot' op a 'tensor<64x32xf16>' has K = 32 but b 'tensor<16x32xf16>' has K = 16}}
  %0 = tile.dot %a, %b, %c : tensor<64x32xf16>, tensor<16x32xf16>, tensor<64x32xf32>
  return
}

// -----

func.func @dot_quad16_not_fp8(%a: tensor<64x32xbf16>, %b: tensor<16x32xbf16>, %c: tensor<64x16xf32>) {
  // expected-error @+1 {{'tile.dot' op k_quad16 is the K order of an fp8 A operand in registers, but a is 'bf16'}}
  %0 = tile.dot %a, %b, %c {k_quad16, transpose_b} : tensor<64x32xbf16>, tensor<16x32xbf16>, tensor<64x16xf32>
  return
}

// -----

func.func @dot_quad16_transpose_a(%a: tensor<32x64xf8E4M3FN>, %b: tensor<16x32xf8E4M3FN>, %c: tensor<64x16xf32>) {
  // expected-error @+1 {{'tile.dot' op k_quad16 reads a in registers, K-major: transpose_a is not allowed}}
  %0 = tile.dot %a, %b, %c {k_quad16, transpose_a, transpose_b} : tensor<32x64xf8E4M3FN>, tensor<16x32xf8E4M3FN>, tensor<64x16xf32>
  return
}

// -----

func.func @dot_quad16_k(%a: tensor<64x16xf8E4M3FN>, %b: tensor<16x16xf8E4M3FN>, %c: tensor<64x16xf32>) {
  // expected-error @+1 {{'tile.dot' op k_quad16 needs K to be a multiple of 32 (one 8-bit wgmma's K), got 16}}
  %0 = tile.dot %a, %b, %c {k_quad16, transpose_b} : tensor<64x16xf8E4M3FN>, tensor<16x16xf8E4M3FN>, tensor<64x16xf32>
  return
}

// -----

#shared = #tile.nvmma_shared<swizzle = 32, transposed = false, element_bits = 8>
func.func @dot_quad16_shared_a(%a: tensor<64x32xf8E4M3FN, #shared>, %b: tensor<16x32xf8E4M3FN>, %c: tensor<64x16xf32>) {
  // expected-error @+1 {{'tile.dot' op k_quad16 needs a in registers (#tile.wgmma_acc), got #tile.nvmma_shared<swizzle = 32, transposed = false, element_bits = 8>}}
  %0 = tile.dot %a, %b, %c {k_quad16, transpose_b} : tensor<64x32xf8E4M3FN, #shared>, tensor<16x32xf8E4M3FN>, tensor<64x16xf32>
  return
}

// -----

#acc = #tile.wgmma_acc<instr_n = 32, warpgroups = 1>
#acc16 = #tile.wgmma_acc<instr_n = 16, warpgroups = 1>
func.func @dot_fp8_registers_without_quad16(%a: tensor<64x32xf8E4M3FN, #acc>, %b: tensor<16x32xf8E4M3FN>, %c: tensor<64x16xf32, #acc16>) {
  // expected-error @+1 {{'tile.dot' op an fp8 a in registers (#tile.wgmma_acc) is read in the quad16 K order only: k_quad16 must be set}}
  %0 = tile.dot %a, %b, %c {transpose_b} : tensor<64x32xf8E4M3FN, #acc>, tensor<16x32xf8E4M3FN>, tensor<64x16xf32, #acc16>
  return
}

// -----

func.func @dot_m(%a: tensor<64x32xf16>, %b: tensor<16x32xf16>, %c: tensor<32x16xf32>) {
  // expected-error @+1 {{'tile.dot' op a 'tensor<64x32xf16>' has M = 64 rows but the accumulator 'tensor<32x16xf32>' has 32}}
  %0 = tile.dot %a, %b, %c {transpose_b} : tensor<64x32xf16>, tensor<16x32xf16>, tensor<32x16xf32>
  return
}

// -----

func.func @dot_n(%a: tensor<32x64xf16>, %b: tensor<16x32xf16>, %c: tensor<64x32xf32>) {
  // expected-error @+1 {{'tile.dot' op b 'tensor<16x32xf16>' (transposed) has N = 16 columns but the accumulator 'tensor<64x32xf32>' has 32}}
  %0 = tile.dot %a, %b, %c {transpose_a, transpose_b} : tensor<32x64xf16>, tensor<16x32xf16>, tensor<64x32xf32>
  return
}

// -----

// With cta_pair, b holds half of the accumulator's N.
func.func @dot_pair_n(%a: tensor<128x64xf16>, %b: tensor<64x64xf16>, %c: tensor<128x64xf32>) {
  // expected-error @+1 {{'tile.dot' op b 'tensor<64x64xf16>' (transposed) has N = 64 columns (half of a CTA pair's) but the accumulator 'tensor<128x64xf32>' has 64}}
  %0 = tile.dot %a, %b, %c {cta_pair, transpose_b} : tensor<128x64xf16>, tensor<64x64xf16>, tensor<128x64xf32>
  return
}

// -----

func.func @dot_result_type(%a: tensor<64x32xf16>, %b: tensor<32x16xf16>, %c: tensor<64x16xf32>) {
  // expected-error @+2 {{'tile.dot' op failed to infer returned types}}
  // expected-error @+1 {{'tile.dot' op inferred type(s) 'tensor<64x16xf32>' are incompatible with return type(s) of operation 'tensor<64x16xf16>'}}
  %0 = "tile.dot"(%a, %b, %c) : (tensor<64x32xf16>, tensor<32x16xf16>, tensor<64x16xf32>) -> tensor<64x16xf16>
  return
}

// -----

#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
func.func @dot_b_layout(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16, #acc>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.dot' op b must be in shared memory (#tile.nvmma_shared) or have no encoding, got #tile.wgmma_acc<instr_n = 64, warpgroups = 1>}}
  %0 = tile.dot %a, %b, %c : tensor<64x64xbf16>, tensor<64x64xbf16, #acc>, tensor<64x64xf32>
  return
}

// -----

#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 32>
func.func @dot_acc_layout(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>, %c: tensor<64x64xf32, #smem>) {
  // expected-error @+1 {{'tile.dot' op the accumulator must be in wgmma registers (#tile.wgmma_acc) or tensor memory (#tile.tmem) or have no encoding, got #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 32>}}
  %0 = tile.dot %a, %b, %c : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32, #smem>
  return
}

// -----

#reg = #tile.tmem_32x32b<warpgroups = 1>
func.func @dot_a_layout(%a: tensor<128x64xbf16, #reg>, %b: tensor<64x64xbf16>, %c: tensor<128x64xf32>) {
  // expected-error @+1 {{'tile.dot' op a must be in shared memory (#tile.nvmma_shared), wgmma registers (#tile.wgmma_acc) or tensor memory (#tile.tmem) or have no encoding, got #tile.tmem_32x32b<warpgroups = 1>}}
  %0 = tile.dot %a, %b, %c : tensor<128x64xbf16, #reg>, tensor<64x64xbf16>, tensor<128x64xf32>
  return
}

// -----

#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
#tm = #tile.tmem<block = [128, 64], unpacked = true>
func.func @dot_a_registers_acc(%a: tensor<128x64xbf16, #acc>, %b: tensor<64x64xbf16>, %c: tensor<128x64xf32, #tm>) {
  // expected-error @+1 {{'tile.dot' op a in registers (#tile.wgmma_acc) needs a #tile.wgmma_acc accumulator (only wgmma reads A from registers), got 'tensor<128x64xf32, #tile.tmem<block = [128, 64], unpacked = true>>'}}
  %0 = tile.dot %a, %b, %c : tensor<128x64xbf16, #acc>, tensor<64x64xbf16>, tensor<128x64xf32, #tm>
  return
}

// -----

#acc1 = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
#acc2 = #tile.wgmma_acc<instr_n = 64, warpgroups = 2>
func.func @dot_a_registers_warpgroups(%a: tensor<128x64xbf16, #acc1>, %b: tensor<64x64xbf16>, %c: tensor<128x64xf32, #acc2>) {
  // expected-error @+1 {{'tile.dot' op a in registers is spread over 1 warpgroup(s) but the accumulator over 2}}
  %0 = tile.dot %a, %b, %c : tensor<128x64xbf16, #acc1>, tensor<64x64xbf16>, tensor<128x64xf32, #acc2>
  return
}

// -----

#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
func.func @dot_a_registers_transposed(%a: tensor<64x64xbf16, #acc>, %b: tensor<64x64xbf16>, %c: tensor<64x64xf32, #acc>) {
  // expected-error @+1 {{'tile.dot' op a in registers (#tile.wgmma_acc) must be K-major: transpose_a is not allowed}}
  %0 = tile.dot %a, %b, %c {transpose_a} : tensor<64x64xbf16, #acc>, tensor<64x64xbf16>, tensor<64x64xf32, #acc>
  return
}

// -----

#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
#tmp = #tile.tmem<block = [128, 64], unpacked = false>
func.func @dot_a_tmem_acc(%a: tensor<128x64xbf16, #tmp>, %b: tensor<64x64xbf16>, %c: tensor<128x64xf32, #acc>) {
  // expected-error @+1 {{'tile.dot' op a in tensor memory (#tile.tmem) needs a #tile.tmem accumulator (only tcgen05.mma reads A from tensor memory), got 'tensor<128x64xf32, #tile.wgmma_acc<instr_n = 64, warpgroups = 1>>'}}
  %0 = tile.dot %a, %b, %c : tensor<128x64xbf16, #tmp>, tensor<64x64xbf16>, tensor<128x64xf32, #acc>
  return
}

//===----------------------------------------------------------------------===//
// tile.reduce
//===----------------------------------------------------------------------===//

// -----

func.func @reduce_integer(%x: tensor<128x128xi32>) {
  // expected-error @+1 {{'tile.reduce' op operand #0 must be statically shaped tensor of floating-point values, but got 'tensor<128x128xi32>'}}
  %0 = "tile.reduce"(%x) {kind = 1 : i32, axis = 1 : i64} : (tensor<128x128xi32>) -> tensor<128xi32>
  return
}

// -----

func.func @reduce_negative_axis(%x: tensor<128x128xf32>) {
  // expected-error @+1 {{'tile.reduce' op attribute 'axis' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = "tile.reduce"(%x) {kind = 1 : i32, axis = -1 : i64} : (tensor<128x128xf32>) -> tensor<128xf32>
  return
}

// -----

func.func @reduce_axis(%x: tensor<128x128xf32>) {
  // expected-error @+1 {{'tile.reduce' op axis 2 is out of range for the 2-d input 'tensor<128x128xf32>'}}
  %0 = tile.reduce max %x axis 2 : tensor<128x128xf32> -> tensor<128xf32>
  return
}

// -----

func.func @reduce_shape(%x: tensor<128x64xf32>) {
  // expected-error @+1 {{'tile.reduce' op reducing 'tensor<128x64xf32>' along axis 1 gives 'tensor<128xf32>', but the result type is 'tensor<64xf32>'}}
  %0 = tile.reduce sum %x axis 1 : tensor<128x64xf32> -> tensor<64xf32>
  return
}

// -----

func.func @reduce_element_type(%x: tensor<128x64xf32>) {
  // expected-error @+1 {{'tile.reduce' op result element type 'f16' differs from the input's 'f32'}}
  %0 = tile.reduce sum %x axis 1 : tensor<128x64xf32> -> tensor<128xf16>
  return
}

// -----

#tm = #tile.tmem<block = [128, 128], unpacked = true>
func.func @reduce_input_layout(%x: tensor<128x128xf32, #tm>) {
  // expected-error @+1 {{'tile.reduce' op the input must be in a 2-d register layout (#tile.wgmma_acc or #tile.tmem_32x32b) or have no encoding, got #tile.tmem<block = [128, 128], unpacked = true>}}
  %0 = tile.reduce max %x axis 1 : tensor<128x128xf32, #tm> -> tensor<128xf32>
  return
}

// -----

#row = #tile.slice<dim = 1, parent = #tile.tmem_32x32b<warpgroups = 1>>
func.func @reduce_result_layout_without_input_layout(%x: tensor<128x128xf32>) {
  // expected-error @+1 {{'tile.reduce' op the result has encoding #tile.slice<dim = 1, parent = #tile.tmem_32x32b<warpgroups = 1>> but the input has none}}
  %0 = tile.reduce max %x axis 1 : tensor<128x128xf32> -> tensor<128xf32, #row>
  return
}

// -----

#reg = #tile.tmem_32x32b<warpgroups = 1>
#col = #tile.slice<dim = 0, parent = #reg>
func.func @reduce_result_layout(%x: tensor<128x128xf32, #reg>) {
  // expected-error @+1 {{'tile.reduce' op the result must be laid out by #tile.slice<dim = 1, parent = #tile.tmem_32x32b<warpgroups = 1>> (or have no encoding), got #tile.slice<dim = 0, parent = #tile.tmem_32x32b<warpgroups = 1>>}}
  %0 = tile.reduce max %x axis 1 : tensor<128x128xf32, #reg> -> tensor<128xf32, #col>
  return
}

//===----------------------------------------------------------------------===//
// tile.broadcast
//===----------------------------------------------------------------------===//

// -----

func.func @broadcast_axis(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.broadcast' op axis 2 is out of range for the 2-d result 'tensor<128x64xf32>'}}
  %0 = tile.broadcast %x axis 2 : tensor<128xf32> -> tensor<128x64xf32>
  return
}

// -----

func.func @broadcast_shape(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.broadcast' op broadcasting to 'tensor<128x64xf32>' along axis 0 takes an input of type 'tensor<64xf32>', got 'tensor<128xf32>'}}
  %0 = tile.broadcast %x axis 0 : tensor<128xf32> -> tensor<128x64xf32>
  return
}

// -----

func.func @broadcast_element_type(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.broadcast' op result element type 'f16' differs from the input's 'f32'}}
  %0 = tile.broadcast %x axis 1 : tensor<128xf32> -> tensor<128x64xf16>
  return
}

// -----

#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 32>
func.func @broadcast_result_layout(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.broadcast' op the result must be in a 2-d register layout (#tile.wgmma_acc or #tile.tmem_32x32b) or have no encoding, got #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 32>}}
  %0 = tile.broadcast %x axis 1 : tensor<128xf32> -> tensor<128x64xf32, #smem>
  return
}

// -----

#row = #tile.slice<dim = 1, parent = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>>
func.func @broadcast_input_layout_without_result_layout(%x: tensor<128xf32, #row>) {
  // expected-error @+1 {{'tile.broadcast' op the input has encoding #tile.slice<dim = 1, parent = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>> but the result has none}}
  %0 = tile.broadcast %x axis 1 : tensor<128xf32, #row> -> tensor<128x64xf32>
  return
}

// -----

#acc1 = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
#acc2 = #tile.wgmma_acc<instr_n = 64, warpgroups = 2>
#row = #tile.slice<dim = 1, parent = #acc1>
func.func @broadcast_input_layout(%x: tensor<128xf32, #row>) {
  // expected-error @+1 {{'tile.broadcast' op the input must be laid out by #tile.slice<dim = 1, parent = #tile.wgmma_acc<instr_n = 64, warpgroups = 2>> (or have no encoding), got #tile.slice<dim = 1, parent = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>>}}
  %0 = tile.broadcast %x axis 1 : tensor<128xf32, #row> -> tensor<128x64xf32, #acc2>
  return
}

//===----------------------------------------------------------------------===//
// tile.scale_rows
//===----------------------------------------------------------------------===//

// -----

func.func @scale_rows_rank(%x: tensor<4x64x128xf32>, %f: tensor<4xf32>) {
  // expected-error @+1 {{'tile.scale_rows' op scales the rows of a 2-d tensor, got 'tensor<4x64x128xf32>'}}
  %0 = tile.scale_rows %x, %f : tensor<4x64x128xf32>, tensor<4xf32>
  return
}

// -----

func.func @scale_rows_factors(%x: tensor<64x128xf32>, %f: tensor<128xf32>) {
  // expected-error @+1 {{'tile.scale_rows' op takes one factor per row of 'tensor<64x128xf32>', got 'tensor<128xf32>'}}
  %0 = tile.scale_rows %x, %f : tensor<64x128xf32>, tensor<128xf32>
  return
}

// -----

func.func @scale_rows_element_type(%x: tensor<64x128xf32>, %f: tensor<64xf16>) {
  // expected-error @+1 {{'tile.scale_rows' op factors element type 'f16' differs from the input's 'f32'}}
  %0 = tile.scale_rows %x, %f : tensor<64x128xf32>, tensor<64xf16>
  return
}

// -----

#acc1 = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
#acc2 = #tile.wgmma_acc<instr_n = 128, warpgroups = 2>
#row = #tile.slice<dim = 1, parent = #acc1>
func.func @scale_rows_layout(%x: tensor<128x128xf32, #acc2>, %f: tensor<128xf32, #row>) {
  // expected-error @+1 {{'tile.scale_rows' op the factors must be laid out by #tile.slice<dim = 1, parent = #tile.wgmma_acc<instr_n = 128, warpgroups = 2>> (or have no encoding), got #tile.slice<dim = 1, parent = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>>}}
  %0 = tile.scale_rows %x, %f : tensor<128x128xf32, #acc2>, tensor<128xf32, #row>
  return
}

// -----

#row = #tile.slice<dim = 1, parent = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>>
func.func @scale_rows_layout_without_input_layout(%x: tensor<64x128xf32>, %f: tensor<64xf32, #row>) {
  // expected-error @+1 {{'tile.scale_rows' op the factors has encoding #tile.slice<dim = 1, parent = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>> but the input has none}}
  %0 = tile.scale_rows %x, %f : tensor<64x128xf32>, tensor<64xf32, #row>
  return
}

// -----

func.func @scale_rows_result_type(%x: tensor<64x128xf32>, %f: tensor<64xf32>) {
  // expected-error @+1 {{'tile.scale_rows' op failed to verify that all of {input, result} have same type}}
  %0 = "tile.scale_rows"(%x, %f) : (tensor<64x128xf32>, tensor<64xf32>) -> tensor<64x128xf16>
  return
}

//===----------------------------------------------------------------------===//
// tile.iota
//===----------------------------------------------------------------------===//

// -----

func.func @iota_axis() {
  // expected-error @+1 {{'tile.iota' op axis 1 is out of range for the 1-d result 'tensor<128xi32>'}}
  %0 = tile.iota axis 1 : tensor<128xi32>
  return
}

// -----

func.func @iota_element_type() {
  // expected-error @+1 {{'tile.iota' op result #0 must be statically shaped tensor of 32-bit signless integer values, but got 'tensor<128xi64>'}}
  %0 = tile.iota axis 0 : tensor<128xi64>
  return
}

// -----

#tm = #tile.tmem<block = [128, 128], unpacked = true>
func.func @iota_layout() {
  // expected-error @+1 {{'tile.iota' op the result must be in a register layout (#tile.wgmma_acc, #tile.tmem_32x32b or #tile.slice) or have no encoding, got #tile.tmem<block = [128, 128], unpacked = true>}}
  %0 = tile.iota axis 0 : tensor<128x128xi32, #tm>
  return
}

//===----------------------------------------------------------------------===//
// tile.convert_layout
//===----------------------------------------------------------------------===//

// -----

#reg = #tile.tmem_32x32b<warpgroups = 1>
func.func @convert_layout_shape(%x: tensor<128x64xf32>) {
  // expected-error @+1 {{'tile.convert_layout' op changes the shape: 'tensor<128x64xf32>' -> 'tensor<128x128xf32, #tile.tmem_32x32b<warpgroups = 1>>' (only the encoding may change)}}
  %0 = tile.convert_layout %x : tensor<128x64xf32> -> tensor<128x128xf32, #reg>
  return
}

// -----

#reg = #tile.tmem_32x32b<warpgroups = 1>
func.func @convert_layout_element_type(%x: tensor<128x64xf32>) {
  // expected-error @+1 {{'tile.convert_layout' op changes the element type: 'tensor<128x64xf32>' -> 'tensor<128x64xf16, #tile.tmem_32x32b<warpgroups = 1>>' (only the encoding may change)}}
  %0 = tile.convert_layout %x : tensor<128x64xf32> -> tensor<128x64xf16, #reg>
  return
}

// -----

func.func @convert_layout_dynamic(%x: tensor<?x64xf32>) {
  // expected-error @+1 {{'tile.convert_layout' op operand #0 must be statically shaped tensor of any type values, but got 'tensor<?x64xf32>'}}
  %0 = tile.convert_layout %x : tensor<?x64xf32> -> tensor<?x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.load_direct
//===----------------------------------------------------------------------===//

func.func @load_direct_coords(%m: memref<?x?x?xf32>, %i: i32) {
  // expected-error @+1 {{'tile.load_direct' op needs one coordinate per dimension of the source: 3 for 'memref<?x?x?xf32>', got 2}}
  %v = tile.load_direct %m[%i, %i] : memref<?x?x?xf32> -> tensor<64x64xf32>
  return
}

// -----

func.func @load_direct_rank(%m: memref<?xf32>, %i: i32) {
  // expected-error @+1 {{'tile.load_direct' op loads a value of rank 2 from a source of rank 1}}
  %v = tile.load_direct %m[%i] : memref<?xf32> -> tensor<4x64xf32>
  return
}

// -----

func.func @load_direct_element_type(%m: memref<?x?xbf16>, %i: i32) {
  // expected-error @+1 {{'tile.load_direct' op loads 'f32' elements from a memref of 'bf16'}}
  %v = tile.load_direct %m[%i, %i] : memref<?x?xbf16> -> tensor<64x64xf32>
  return
}

// -----

func.func @load_direct_shared(%m: memref<64x64xf32, 3>, %i: i32) {
  // expected-error @+1 {{'tile.load_direct' op accesses global memory, but the source is in memory space 3 : i64}}
  %v = tile.load_direct %m[%i, %i] : memref<64x64xf32, 3> -> tensor<64x64xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.counter_arrive
//===----------------------------------------------------------------------===//

func.func @counter_arrive_shared(%m: memref<16xi32, 3>, %i: i32) {
  // expected-error @+1 {{'tile.counter_arrive' op accesses global memory, but the counters is in memory space 3 : i64}}
  %last = tile.counter_arrive %m[%i], %i : memref<16xi32, 3>
  return
}

//===----------------------------------------------------------------------===//
// tile.transpose
//===----------------------------------------------------------------------===//

// -----

func.func @transpose_shape(%x: tensor<64x8xf32>) {
  // expected-error @+1 {{'tile.transpose' op result shape must be the input's swapped: 'tensor<64x8xf32>' -> 'tensor<64x8xf32>'}}
  %0 = tile.transpose %x : tensor<64x8xf32> -> tensor<64x8xf32>
  return
}

// -----

func.func @transpose_rank(%x: tensor<64xf32>) {
  // expected-error @+1 {{'tile.transpose' op transposes 2-d tensors, got 'tensor<64xf32>' -> 'tensor<64xf32>'}}
  %0 = tile.transpose %x : tensor<64xf32> -> tensor<64xf32>
  return
}

// -----

func.func @transpose_element_type(%x: tensor<64x8xf32>) {
  // expected-error @+1 {{'tile.transpose' op changes the element type: 'tensor<64x8xf32>' -> 'tensor<8x64xf16>'}}
  %0 = tile.transpose %x : tensor<64x8xf32> -> tensor<8x64xf16>
  return
}

// -----

#acc = #tile.wgmma_acc<instr_n = 8, warpgroups = 1>
func.func @transpose_one_encoding(%x: tensor<64x8xf32, #acc>) {
  // expected-error @+1 {{'tile.transpose' op input and result must both be in register layouts or both have no encoding}}
  %0 = tile.transpose %x : tensor<64x8xf32, #acc> -> tensor<8x64xf32>
  return
}

// -----

#acc = #tile.wgmma_acc<instr_n = 8, warpgroups = 1>
#reg = #tile.tmem_32x32b<warpgroups = 1>
func.func @transpose_layout(%x: tensor<128x8xf32, #acc>) {
  // expected-error @+1 {{'tile.transpose' op result layout must be #tile.transposed<parent = #tile.wgmma_acc<instr_n = 8, warpgroups = 1>>, got #tile.transposed<parent = #tile.tmem_32x32b<warpgroups = 1>>}}
  %0 = tile.transpose %x : tensor<128x8xf32, #acc> -> tensor<8x128xf32, #tile.transposed<parent = #reg>>
  return
}

// -----

#v = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
func.func @transpose_shared_bytes(%x: tensor<64x64xbf16, #v>) {
  // expected-error @+1 {{'tile.transpose' op transposes one-byte elements in shared memory, got 'bf16'}}
  %0 = tile.transpose %x : tensor<64x64xbf16, #v> -> tensor<64x64xbf16, #v>
  return
}

// -----

func.func @transpose_shared_rows(%x: tensor<40x64xf8E4M3FN>) {
  // expected-error @+1 {{'tile.transpose' op transposes in shared memory a tile of rows in groups of 16 and columns in groups of 32, got 'tensor<40x64xf8E4M3FN>'}}
  %0 = tile.transpose %x {k_quad16} : tensor<40x64xf8E4M3FN> -> tensor<64x40xf8E4M3FN>
  return
}

// -----

#v = #tile.nvmma_shared<swizzle = 64, transposed = false, element_bits = 8>
func.func @transpose_shared_one_side(%x: tensor<64x64xf8E4M3FN, #v>) {
  // expected-error @+1 {{'tile.transpose' op transposes in shared memory with input and result both #tile.nvmma_shared}}
  %0 = tile.transpose %x : tensor<64x64xf8E4M3FN, #v> -> tensor<64x64xf8E4M3FN>
  return
}

// -----

func.func @transpose_quad16_bytes(%x: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.transpose' op transposes one-byte elements in shared memory, got 'f32'}}
  %0 = tile.transpose %x {k_quad16} : tensor<64x64xf32> -> tensor<64x64xf32>
  return
}

// -----

#v = #tile.nvmma_shared<swizzle = 64, transposed = false, element_bits = 8>
#vt = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 8>
func.func @transpose_shared_plain(%x: tensor<128x64xf8E4M3FN, #v>) {
  // expected-error @+1 {{'tile.transpose' op transposes in shared memory into the k_quad16 order only (the one fp8 attention's P V reads); the plain order is not built}}
  %0 = tile.transpose %x : tensor<128x64xf8E4M3FN, #v> -> tensor<64x128xf8E4M3FN, #vt>
  return
}
