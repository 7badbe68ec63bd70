// RUN: fmha-opt %s -split-input-file -verify-diagnostics --fmha-expand-kernels | FileCheck %s

// Two consumers, dynamic M and N: one gpu.module per kernel with its NVVM
// target; the CTA covers 2 x 128 rows of C, loads both A tiles and the shared
// B tile per K step, runs one dot chain per consumer, converts to bf16 and
// stores both tiles.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: gpu.module @gemm_bf16_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">]
// CHECK: gpu.func @gemm_bf16(%[[A:.*]]: !tile.desc<tensor<128x64xbf16>>, %[[B:.*]]: !tile.desc<tensor<128x64xbf16>>, %[[C:.*]]: !tile.desc<tensor<128x128xbf16>>, %{{.*}}: i32, %{{.*}}: i32, %[[K:.*]]: i32) kernel
// CHECK-SAME: fmha.grid = ["num_sms", 1, 1]
// CHECK-SAME: fmha.params = [{box = [128, 64], kind = "tensor_map", swizzle = 128 : i64, tensor = "a"}
// CHECK-SAME: {box = [128, 64], kind = "tensor_map", swizzle = 128 : i64, tensor = "c"}
// CHECK-SAME: {dtype = "i32", kind = "scalar", value = "K"}]
// CHECK-SAME: fmha.stages = 3 : i64
// CHECK-SAME: fmha.tensors = {a = {dtype = "bf16", role = "input", shape = ["M", "K"]}
// Persistent over the output tiles, in groups of 8 tile rows:
// CHECK: %[[TM:.*]] = arith.divui %{{.*}}, %c256_i32 : i32
// CHECK: %[[TN:.*]] = arith.divui %{{.*}}, %c128_i32 : i32
// CHECK: %[[TILES:.*]] = arith.muli %[[TM]], %[[TN]] : i32
// CHECK: %[[PID:.*]] = tile.program_id x : i32
// CHECK: %[[NPROG:.*]] = tile.num_programs x : i32
// CHECK: scf.for %[[T:.*]] = %[[PID]] to %[[TILES]] step %[[NPROG]] : i32 {
// CHECK: %[[GROUP:.*]] = arith.muli %[[TN]], %c8_i32 : i32
// CHECK: %[[IN:.*]] = arith.remui %[[T]], %[[GROUP]] : i32
// CHECK: %[[PX:.*]] = arith.addi
// CHECK: %[[PY:.*]] = arith.divui %[[IN]], %{{.*}} : i32
// CHECK: %[[M0:.*]] = arith.muli %[[PX]], %{{.*}} : i32
// CHECK: %[[M1:.*]] = arith.addi %[[M0]], %{{.*}} : i32
// CHECK: %[[N0:.*]] = arith.muli %[[PY]], %{{.*}} : i32
// CHECK: %[[KP:.*]] = arith.addi %[[K]], %{{.*}} : i32
// CHECK: %[[KT:.*]] = arith.divui %[[KP]], %{{.*}} : i32
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
// CHECK: %[[R:.*]]:2 = scf.for %[[IV:.*]] = %{{.*}} to %[[KT]] step %{{.*}} iter_args(%[[ACC0:.*]] = %[[ZERO]], %[[ACC1:.*]] = %[[ZERO]]) -> (tensor<128x128xf32>, tensor<128x128xf32>) : i32 {
// CHECK:   %[[KO:.*]] = arith.muli %[[IV]], %{{.*}} : i32
// CHECK:   %[[X0:.*]] = tile.load %[[A]][%[[M0]], %[[KO]]] : !tile.desc<tensor<128x64xbf16>>
// CHECK:   %[[X1:.*]] = tile.load %[[A]][%[[M1]], %[[KO]]] : !tile.desc<tensor<128x64xbf16>>
// CHECK:   %[[Y:.*]] = tile.load %[[B]][%[[N0]], %[[KO]]] : !tile.desc<tensor<128x64xbf16>>
// CHECK:   %[[D0:.*]] = tile.dot %[[X0]], %[[Y]], %[[ACC0]] {transpose_b} : tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x128xf32>
// CHECK:   %[[D1:.*]] = tile.dot %[[X1]], %[[Y]], %[[ACC1]] {transpose_b} : tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x128xf32>
// CHECK:   scf.yield %[[D0]], %[[D1]] : tensor<128x128xf32>, tensor<128x128xf32>
// CHECK: }
// CHECK: %[[T0:.*]] = arith.truncf %[[R]]#0 : tensor<128x128xf32> to tensor<128x128xbf16>
// CHECK: tile.store %[[C]][%[[M0]], %[[N0]]], %[[T0]] : !tile.desc<tensor<128x128xbf16>>
// CHECK: %[[T1:.*]] = arith.truncf %[[R]]#1 : tensor<128x128xf32> to tensor<128x128xbf16>
// CHECK: tile.store %[[C]][%[[M1]], %[[N0]]], %[[T1]] : !tile.desc<tensor<128x128xbf16>>
// CHECK: }
// CHECK: gpu.return
// CHECK-NOT: fmha.gemm
fmha.gemm @gemm_bf16 (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b tile [128, 128, 64] stages 3 consumers 2 target sm_90a

// -----

// Ping-pong: output tiles of 128 x 128 (one per consumer); CTA p walks its
// work items p, p + P, p + 2P, ... two at a time, each with a main loop
// and a store of its own: the first item's, then the second's (P tiles
// further), whose loop runs no step and whose store starts at row M
// (outside C) when the item is past the last tile.
// CHECK-LABEL: gpu.module @gemm_pingpong_module
// CHECK: gpu.func @gemm_pingpong(%[[A:.*]]: !tile.desc<tensor<128x64xbf16>>, %[[B:.*]]: !tile.desc<tensor<128x64xbf16>>, %[[C:.*]]: !tile.desc<tensor<128x128xbf16>>, %[[M:.*]]: i32, %{{.*}}: i32, %[[K:.*]]: i32) kernel
// CHECK-SAME: fmha.grid = ["num_sms", 1, 1]
// CHECK-SAME: fmha.stages = 4 : i64
// CHECK: %[[TM:.*]] = arith.divui %{{.*}}, %c128_i32 : i32
// CHECK: %[[TN:.*]] = arith.divui %{{.*}}, %c128_i32{{.*}} : i32
// CHECK: %[[TILES:.*]] = arith.muli %[[TM]], %[[TN]] : i32
// CHECK: %[[PID:.*]] = tile.program_id x : i32
// CHECK: %[[NPROG:.*]] = tile.num_programs x : i32
// CHECK: %[[KT:.*]] = arith.divui
// CHECK: %[[STEP:.*]] = arith.muli %[[NPROG]], %c2_i32 : i32
// CHECK: scf.for %[[T:.*]] = %[[PID]] to %[[TILES]] step %[[STEP]] : i32 {
// CHECK:   %[[M0:.*]] = arith.muli %{{.*}}, %c128_i32{{.*}} : i32
// CHECK:   %[[N0:.*]] = arith.muli %{{.*}}, %c128_i32{{.*}} : i32
// CHECK:   %[[R0:.*]] = scf.for %{{.*}} = %{{.*}} to %[[KT]] step %{{.*}} iter_args(%[[ACC0:.*]] = %{{.*}}) -> (tensor<128x128xf32>) : i32 {
// CHECK:     %[[X0:.*]] = tile.load %[[A]][%[[M0]], %{{.*}}]
// CHECK:     %[[Y0:.*]] = tile.load %[[B]][%[[N0]], %{{.*}}]
// CHECK:     tile.dot %[[X0]], %[[Y0]], %[[ACC0]] {transpose_b}
// CHECK:   }
// CHECK:   %[[S0:.*]] = arith.truncf %[[R0]]
// CHECK:   tile.store %[[C]][%[[M0]], %[[N0]]], %[[S0]]
// CHECK:   %[[T1:.*]] = arith.addi %[[T]], %[[NPROG]] : i32
// CHECK:   %[[VALID:.*]] = arith.cmpi ult, %[[T1]], %[[TILES]] : i32
// CHECK:   arith.select %[[VALID]], %[[T1]], %[[T]] : i32
// CHECK:   %[[M1:.*]] = arith.muli %{{.*}}, %c128_i32{{.*}} : i32
// CHECK:   %[[N1:.*]] = arith.muli %{{.*}}, %c128_i32{{.*}} : i32
// CHECK:   %[[KT1:.*]] = arith.select %[[VALID]], %[[KT]], %c0_i32{{.*}} : i32
// CHECK:   %[[R1:.*]] = scf.for %{{.*}} = %{{.*}} to %[[KT1]] step %{{.*}} iter_args(%[[ACC1:.*]] = %{{.*}}) -> (tensor<128x128xf32>) : i32 {
// CHECK:     %[[X1:.*]] = tile.load %[[A]][%[[M1]], %{{.*}}]
// CHECK:     %[[Y1:.*]] = tile.load %[[B]][%[[N1]], %{{.*}}]
// CHECK:     tile.dot %[[X1]], %[[Y1]], %[[ACC1]] {transpose_b}
// CHECK:   }
// CHECK:   %[[S1:.*]] = arith.truncf %[[R1]]
// CHECK:   %[[ROW1:.*]] = arith.select %[[VALID]], %[[M1]], %[[M]] : i32
// CHECK:   tile.store %[[C]][%[[ROW1]], %[[N1]]], %[[S1]]
// CHECK: }
// CHECK: gpu.return
fmha.gemm @gemm_pingpong (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b tile [128, 128, 64] consumers 2 schedule pingpong target sm_90a

// -----

// One consumer with an f32 result: the accumulator is stored as is (no
// truncf); a 64x256 tile with a 32-element K step and 4 stages.
// CHECK-LABEL: gpu.module @gemm_f32_module
// CHECK: gpu.func @gemm_f32(%[[A:.*]]: !tile.desc<tensor<64x32xf16>>, %[[B:.*]]: !tile.desc<tensor<256x32xf16>>, %[[C:.*]]: !tile.desc<tensor<64x256xf32>>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32) kernel
// CHECK-SAME: fmha.grid = ["num_sms", 1, 1]
// Rows of 32 f16 (64 bytes) are read with a 64-byte swizzle.
// CHECK-SAME: {box = [64, 32], kind = "tensor_map", swizzle = 64 : i64, tensor = "a"}
// CHECK-SAME: fmha.stages = 4 : i64
// CHECK-SAME: c = {dtype = "f32", role = "output"
// CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<64x256xf32>) : i32 {
// CHECK:   %[[X:.*]] = tile.load %[[A]]
// CHECK:   %[[Y:.*]] = tile.load %[[B]]
// CHECK:   %[[D:.*]] = tile.dot %[[X]], %[[Y]], %[[ACC]] {transpose_b} : tensor<64x32xf16>, tensor<256x32xf16>, tensor<64x256xf32>
// CHECK:   scf.yield %[[D]] : tensor<64x256xf32>
// CHECK-NOT: arith.truncf
// CHECK: tile.store %[[C]][%{{.*}}, %{{.*}}], %[[R]] : !tile.desc<tensor<64x256xf32>>
// CHECK-NOT: tile.dot
// CHECK: gpu.return
fmha.gemm @gemm_f32 (tensor<?x?xf16>, tensor<?x?xf16>) -> tensor<?x?xf32>
    transpose_b tile [64, 256, 32] stages 4 consumers 1 target sm_90a

// -----

// Swapped operands: the loop loads an 8-row A tile and a 64-row B tile, the
// dot takes B as its A operand and A as its transposed B (C^T = B A^T, a
// 64x8 accumulator), and the epilogue transposes the accumulator into C's
// 8x64 tile before rounding and storing it.
// CHECK-LABEL: gpu.module @gemm_swap_module
// CHECK: gpu.func @gemm_swap(%[[A:.*]]: !tile.desc<tensor<8x64xbf16>>, %[[B:.*]]: !tile.desc<tensor<64x64xbf16>>, %[[C:.*]]: !tile.desc<tensor<8x64xbf16>>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32) kernel
// CHECK-SAME: {box = [8, 64], kind = "tensor_map", swizzle = 128 : i64, tensor = "a"}
// CHECK-SAME: fmha.stages = 16 : i64
// CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<64x8xf32>) : i32 {
// CHECK:   %[[X:.*]] = tile.load %[[A]]
// CHECK:   %[[Y:.*]] = tile.load %[[B]]
// CHECK:   %[[D:.*]] = tile.dot %[[Y]], %[[X]], %[[ACC]] {transpose_b} : tensor<64x64xbf16>, tensor<8x64xbf16>, tensor<64x8xf32>
// CHECK:   scf.yield %[[D]] : tensor<64x8xf32>
// CHECK: %[[T:.*]] = tile.transpose %[[R]] : tensor<64x8xf32> -> tensor<8x64xf32>
// CHECK: %[[O:.*]] = arith.truncf %[[T]] : tensor<8x64xf32> to tensor<8x64xbf16>
// CHECK: tile.store %[[C]][%{{.*}}, %{{.*}}], %[[O]] : !tile.desc<tensor<8x64xbf16>>
// CHECK: gpu.return
fmha.gemm @gemm_swap (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b swap_ab tile [8, 64, 64] stages 16 target sm_90a

// -----

// fp8 with one scale per tensor (e4m3 x e5m2, the default block_k of 128):
// the scales are memrefs after K; the epilogue multiplies the accumulator
// by the product of the two scalars, splat, before rounding.
// CHECK-LABEL: gpu.module @gemm_fp8_module
// CHECK: gpu.func @gemm_fp8(%[[A:.*]]: !tile.desc<tensor<128x128xf8E4M3FN>>, %[[B:.*]]: !tile.desc<tensor<128x128xf8E5M2>>, %[[C:.*]]: !tile.desc<tensor<128x128xbf16>>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %[[SA:.*]]: memref<?xf32>, %[[SB:.*]]: memref<?xf32>) kernel
// CHECK-SAME: {box = [128, 128], kind = "tensor_map", swizzle = 128 : i64, tensor = "a"}
// CHECK-SAME: {dtype = "i32", kind = "scalar", value = "K"}, {kind = "memref", tensor = "scale_a"}, {kind = "memref", tensor = "scale_b"}]
// CHECK-SAME: b = {dtype = "f8e5m2", role = "input", shape = ["N", "K"]}
// CHECK-SAME: scale_a = {dtype = "f32", role = "input", shape = [1]}, scale_b = {dtype = "f32", role = "input", shape = [1]}
// CHECK: %[[R:.*]] = scf.for {{.*}} -> (tensor<128x128xf32>) : i32 {
// CHECK:   tile.dot %{{.*}}, %{{.*}}, %{{.*}} {transpose_b} : tensor<128x128xf8E4M3FN>, tensor<128x128xf8E5M2>, tensor<128x128xf32>
// CHECK: %[[SA0:.*]] = memref.load %[[SA]][%{{.*}}] : memref<?xf32>
// CHECK: %[[SB0:.*]] = memref.load %[[SB]][%{{.*}}] : memref<?xf32>
// CHECK: %[[S:.*]] = arith.mulf %[[SA0]], %[[SB0]] : f32
// CHECK: %[[SPLAT:.*]] = tensor.splat %[[S]] : tensor<128x128xf32>
// CHECK: %[[SCALED:.*]] = arith.mulf %[[R]], %[[SPLAT]] : tensor<128x128xf32>
// CHECK: %[[T:.*]] = arith.truncf %[[SCALED]] : tensor<128x128xf32> to tensor<128x128xbf16>
// CHECK: tile.store %[[C]][%{{.*}}, %{{.*}}], %[[T]]
fmha.gemm @gemm_fp8 (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E5M2>, tensor<1xf32>,
    tensor<1xf32>) -> tensor<?x?xbf16> transpose_b consumers 1 target sm_90a

// -----

// fp8 with accumulate promotion every 4 K steps: a loop over groups of 4
// K steps carries the f32 sum; each group's steps accumulate into a fresh
// tile of zeros (the last group takes the steps left), which is added into
// the sum; the epilogue scales the sum.
// CHECK-LABEL: gpu.module @gemm_fp8_promote_module
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64x128xf32>
// CHECK: %[[C4:.*]] = arith.constant 4 : i32
// CHECK: %[[SUM:.*]] = scf.for %[[G:.*]] = %{{.*}} to %[[STEPS:.*]] step %[[C4]] iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (tensor<64x128xf32>) : i32 {
// CHECK:   %[[NEXT:.*]] = arith.addi %[[G]], %{{.*}} : i32
// CHECK:   %[[END:.*]] = arith.minui %[[NEXT]], %[[STEPS]] : i32
// CHECK:   %[[PART:.*]] = scf.for %{{.*}} = %[[G]] to %[[END]] step %{{.*}} iter_args(%[[P:.*]] = %[[ZERO]]) -> (tensor<64x128xf32>) : i32 {
// CHECK:     %[[D:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[P]] {transpose_b}
// CHECK:     scf.yield %[[D]] : tensor<64x128xf32>
// CHECK:   }
// CHECK:   %[[ADDED:.*]] = arith.addf %[[ACC]], %[[PART]] : tensor<64x128xf32>
// CHECK:   scf.yield %[[ADDED]] : tensor<64x128xf32>
// CHECK: }
// CHECK: arith.mulf %[[SUM]], %{{.*}} : tensor<64x128xf32>
fmha.gemm @gemm_fp8_promote (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>,
    tensor<1xf32>, tensor<1xf32>) -> tensor<?x?xbf16> transpose_b
    tile [64, 128, 128] consumers 1 promote_every 4 target sm_90a

// -----

// fp8 with a scale per row of A and per column of B: the row vector of
// scale_a at the tile's rows broadcast along the rows, the column vector of
// scale_b at its columns broadcast along the columns.
// CHECK-LABEL: gpu.module @gemm_fp8_rowwise_module
// CHECK: gpu.func @gemm_fp8_rowwise(%{{.*}}: !tile.desc<tensor<64x128xf8E4M3FN>>, %{{.*}}: !tile.desc<tensor<256x128xf8E4M3FN>>, %[[C:.*]]: !tile.desc<tensor<64x256xf32>>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %[[SA:.*]]: memref<?xf32>, %[[SB:.*]]: memref<?xf32>) kernel
// CHECK-SAME: scale_a = {dtype = "f32", role = "input", shape = ["M"]}, scale_b = {dtype = "f32", role = "input", shape = ["N"]}
// CHECK: %[[R:.*]] = scf.for {{.*}} -> (tensor<64x256xf32>) : i32 {
// CHECK: %[[ROWS:.*]] = tile.load_direct %[[SA]][%[[M0:.*]]] : memref<?xf32> -> tensor<64xf32>
// CHECK: %[[RB:.*]] = tile.broadcast %[[ROWS]] axis 1 : tensor<64xf32> -> tensor<64x256xf32>
// CHECK: %[[X:.*]] = arith.mulf %[[R]], %[[RB]] : tensor<64x256xf32>
// CHECK: %[[COLS:.*]] = tile.load_direct %[[SB]][%[[N0:.*]]] : memref<?xf32> -> tensor<256xf32>
// CHECK: %[[CB:.*]] = tile.broadcast %[[COLS]] axis 0 : tensor<256xf32> -> tensor<64x256xf32>
// CHECK: %[[Y:.*]] = arith.mulf %[[X]], %[[CB]] : tensor<64x256xf32>
// CHECK-NOT: arith.truncf
// CHECK: tile.store %[[C]][%[[M0]], %[[N0]]], %[[Y]]
fmha.gemm @gemm_fp8_rowwise (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>,
    tensor<?xf32>, tensor<?xf32>) -> tensor<?x?xf32> transpose_b
    tile [64, 256, 128] consumers 1 target sm_90a

// -----

// Static sizes: the launch contract's shapes and scalar values hold numbers;
// the kernel still takes M, N and K as parameters.
// CHECK-LABEL: gpu.module @gemm_static_module
// CHECK: gpu.func @gemm_static(%{{.*}}: !tile.desc<tensor<128x64xbf16>>, %{{.*}}: !tile.desc<tensor<128x64xbf16>>, %{{.*}}: !tile.desc<tensor<128x128xbf16>>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32) kernel
// CHECK-SAME: fmha.grid = ["num_sms", 1, 1]
// CHECK-SAME: {dtype = "i32", kind = "scalar", value = 512 : i64}
// CHECK-SAME: {dtype = "i32", kind = "scalar", value = 256 : i64}
// CHECK-SAME: {dtype = "i32", kind = "scalar", value = 1024 : i64}
// CHECK-SAME: fmha.stages = 2 : i64
// CHECK-SAME: fmha.tensors = {a = {dtype = "bf16", role = "input", shape = [512, 1024]}, b = {dtype = "bf16", role = "input", shape = [256, 1024]}, c = {dtype = "bf16", role = "output", shape = [512, 256]}}
// CHECK: scf.for {{.*}} -> (tensor<128x128xf32>) : i32
// CHECK: arith.truncf
// CHECK: tile.store
fmha.gemm @gemm_static (tensor<512x1024xbf16>, tensor<256x1024xbf16>)
    -> tensor<512x256xbf16>
    transpose_b tile [128, 128, 64] stages 2 consumers 1 target sm_90a

// -----

// B given as [K, N] (no transpose_b): B is loaded as [block_k, block_n]
// blocks at (k, n0), the dot has no transpose_b, and the tensor map's box is
// one 128-byte swizzle span wide (the kernel issues one copy per span).
// CHECK-LABEL: gpu.module @gemm_kn_module
// CHECK: gpu.func @gemm_kn(%{{.*}}: !tile.desc<tensor<128x64xbf16>>, %[[B:.*]]: !tile.desc<tensor<64x128xbf16>>,
// CHECK-SAME: {box = [64, 64], kind = "tensor_map", swizzle = 128 : i64, tensor = "b"}
// CHECK-SAME: b = {dtype = "bf16", role = "input", shape = ["K", "N"]}
// CHECK: %[[Y:.*]] = tile.load %[[B]][%{{.*}}, %{{.*}}] : !tile.desc<tensor<64x128xbf16>>
// CHECK: tile.dot %{{.*}}, %[[Y]], %{{.*}} : tensor<128x64xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>
fmha.gemm @gemm_kn (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    target sm_90a

// -----

// Blackwell GEMMs expand to the same tile program, in a module for sm_100a:
// the layouts and roles that differ come later.
// CHECK-LABEL: gpu.module @gemm_sm100_module [#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx86">]
// CHECK: gpu.func @gemm_sm100(
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} {transpose_b} : tensor<128x32xbf16>, tensor<128x32xbf16>, tensor<128x128xf32>
fmha.gemm @gemm_sm100 (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xf32>
    transpose_b tile [128, 128, 32] stages 4 consumers 2 target sm_100a

// -----

// Attention, one CTA per query block (schedule per_block; the sm_90a
// default is persistent, below): the two consumers' Q tiles share one
// stream of K/V tiles (the
// range their masks leave visible, at least one tile), each with its own
// online softmax in base 2. GQA finds the KV head as head / (heads_q /
// heads_kv); causal ends the K/V range at the diagonal (bottom-right
// aligned) and runs the query blocks last to first. The loop is
// software-pipelined: the first tile's S and softmax come before it; each
// step issues the next S and the previous P V asynchronously, waits for S
// only (pending 1), masks it only when the tile crosses the sequence end or
// the diagonal (scf.if), computes its softmax (one fma per element before
// exp2), then waits for P V and rescales O; the last P V follows the loop.
// LSE is a memref (its rows of seq_q f32 need not be TMA-addressable)
// stored per row with plain stores, -inf where a row has no key.
// CHECK-LABEL: gpu.module @attn_module
// CHECK: gpu.func @attn(%[[Q:.*]]: !tile.desc<tensor<64x128xbf16>, rank = 4>, %[[K:.*]]: !tile.desc<tensor<128x128xbf16>, rank = 4>, %[[V:.*]]: !tile.desc<tensor<128x128xbf16>, rank = 4>, %[[O:.*]]: !tile.desc<tensor<64x128xbf16>, rank = 4>, %[[LSE:.*]]: memref<?x?x?xf32>, %{{.*}}: i32, %[[HQ:.*]]: i32, %[[HKV:.*]]: i32, %[[SQ:.*]]: i32, %[[SK:.*]]: i32) kernel
// CHECK-SAME: fmha.grid = [{ceildiv = ["SQ", 128]}, 32, "B"]
// CHECK-SAME: {kind = "memref", tensor = "lse"}
// CHECK: %[[HEAD:.*]] = tile.program_id y : i32
// CHECK: %[[BATCH:.*]] = tile.program_id z : i32
// CHECK: %[[BLOCK:.*]] = tile.program_id x : i32
// CHECK: %[[BLOCKS:.*]] = tile.num_programs x : i32
// CHECK: arith.subi %[[BLOCKS]], %[[BLOCK]] : i32
// CHECK: %[[GROUP:.*]] = arith.divui %[[HQ]], %[[HKV]] : i32
// CHECK: %[[KVH:.*]] = arith.divui %[[HEAD]], %[[GROUP]] : i32
// CHECK: tile.load %[[Q]][%[[BATCH]], %[[HEAD]], %{{.*}}, %{{.*}}]
// CHECK: tile.load %[[Q]][%[[BATCH]], %[[HEAD]], %{{.*}}, %{{.*}}]
// CHECK: arith.subi %[[SK]], %[[SQ]] : i32
// CHECK: arith.minsi %[[SK]], %{{.*}} : i32
// CHECK: tile.load %[[K]][%[[BATCH]], %[[KVH]], %{{.*}}, %{{.*}}]
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} {transpose_b} : tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x128xf32>
// CHECK: scf.if
// CHECK:   tile.iota axis 0
// CHECK:   tile.iota axis 1
// CHECK:   arith.select
// CHECK: tile.reduce max
// CHECK: math.fma
// CHECK: math.exp2
// CHECK: tile.reduce sum
// CHECK: arith.truncf %{{.*}} : tensor<64x128xf32> to tensor<64x128xbf16>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} {transpose_b}
// CHECK: scf.for {{.*}} -> (tensor<64x128xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64x128xbf16>, tensor<64x128xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64x128xbf16>)
// CHECK:   tile.load %[[K]][%[[BATCH]], %[[KVH]], %{{.*}}, %{{.*}}]
// CHECK:   %[[S0:.*]] = tile.dot %{{.*}}, %{{.*}}, %{{.*}} {async, transpose_b} : tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x128xf32>
// CHECK:   tile.dot %{{.*}}, %{{.*}}, %{{.*}} {async, transpose_b}
// CHECK:   tile.load %[[V]][%[[BATCH]], %[[KVH]], %{{.*}}, %{{.*}}]
// CHECK:   %[[PV0:.*]] = tile.dot %{{.*}}, %{{.*}}, %{{.*}} {async} : tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x128xf32>
// CHECK:   tile.dot %{{.*}}, %{{.*}}, %{{.*}} {async}
// CHECK:   tile.dot_wait %[[S0]] pending 1
// CHECK:   scf.if
// CHECK:   math.exp2
// CHECK:   tile.dot_wait %[[PV0]] pending 0
// Below head dim 256 O is rescaled by a plain row-broadcast multiply.
// CHECK-NOT: tile.scale_rows
// CHECK:   tile.broadcast
// CHECK:   arith.mulf
// CHECK: tile.load %[[V]][%[[BATCH]], %[[KVH]], %{{.*}}, %{{.*}}]
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x128xbf16>, tensor<128x128xbf16>, tensor<64x128xf32>
// CHECK: arith.divf
// CHECK: tile.store %[[O]][%[[BATCH]], %[[HEAD]], %{{.*}}, %{{.*}}]
// CHECK: math.log2
// CHECK: %[[LSEROW:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<64xi1>, tensor<64xf32>
// CHECK: tile.store_direct %[[LSE]][%[[BATCH]], %[[HEAD]], %{{.*}}], %[[LSEROW]] : memref<?x?x?xf32>, tensor<64xf32>
fmha.attention @attn (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                      tensor<?x8x?x128xbf16>)
    -> (tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>) causal
    tile [64, 128] stages 2 consumers 2 schedule per_block target sm_90a

// -----

// Persistent attention (the sm_90a default where two Q slots fit): at most
// one CTA per SM (the grid is min(num_sms, work items)); CTA p walks items
// p, p + #CTAs, ... With a causal mask an item pairs query block n - 1 - j
// with block j (the longer first), so every item costs about the same; the
// (batch, head) is item / ceil(n / 2). The Q tiles get two slots
// (fmha.item_slots), so the next item's load while this one ends.
// CHECK-LABEL: gpu.module @attn_persistent_module
// CHECK: gpu.func @attn_persistent(%{{.*}}: !tile.desc<tensor<64x64xbf16>, rank = 4>, %{{.*}}, %{{.*}}, %{{.*}}, %[[B:.*]]: i32, %[[HQ:.*]]: i32, %{{.*}}: i32, %[[SQ:.*]]: i32, %{{.*}}: i32) kernel
// CHECK-SAME: fmha.grid = [{min = ["num_sms", {mul = [{ceildiv = ["SQ", 256]}, {mul = ["H", "B"]}]}]}, 1, 1]
// CHECK-SAME: fmha.item_slots = 2 : i64
// CHECK: %[[PID:.*]] = tile.program_id x : i32
// CHECK: %[[NPROG:.*]] = tile.num_programs x : i32
// CHECK: %[[HEADS:.*]] = arith.muli %[[HQ]], %[[B]] : i32
// CHECK: %[[HALVES:.*]] = arith.divsi %{{.*}}, %{{.*}} : i32
// CHECK: %[[ITEMS:.*]] = arith.muli %[[HALVES]], %[[HEADS]] : i32
// CHECK: arith.subi %[[ITEMS]], %[[PID]] : i32
// CHECK: scf.for %[[U:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK:   %[[ITEM:.*]] = arith.addi %[[PID]], %{{.*}} : i32
// CHECK:   %[[J:.*]] = arith.remui %[[ITEM]], %[[HALVES]] : i32
// CHECK:   %[[LONGER:.*]] = arith.subi %{{.*}}, %[[J]] : i32
// CHECK:   %[[BLOCK:.*]] = arith.select %{{.*}}, %[[LONGER]], %[[J]] : i32
// CHECK:   %[[FLAT:.*]] = arith.divui %[[ITEM]], %[[HALVES]] : i32
// CHECK:   %[[HEAD:.*]] = arith.remui %[[FLAT]], %[[HQ]] : i32
// CHECK:   %[[BATCH:.*]] = arith.divui %[[FLAT]], %[[HQ]] : i32
// CHECK:   tile.load %{{.*}}[%[[BATCH]], %[[HEAD]], %{{.*}}, %{{.*}}]
// CHECK:   scf.for
// CHECK:   tile.store %{{.*}}[%[[BATCH]], %[[HEAD]], %{{.*}}, %{{.*}}]
// CHECK:   tile.store %{{.*}}[%[[BATCH]], %[[HEAD]], %{{.*}}, %{{.*}}]
// CHECK: }
// CHECK: gpu.return
fmha.attention @attn_persistent (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>,
                                 tensor<?x?x?x64xbf16>)
    -> tensor<?x?x?x64xbf16> causal schedule persistent target sm_90a

// -----

// Persistent by default (no schedule) on sm_90a. Without a mask a CTA takes
// query blocks t = p, p + #CTAs, ...
// (block t mod n of head t / n).
// CHECK-LABEL: gpu.module @attn_persistent_full_module
// CHECK: fmha.grid = [{min = ["num_sms", {mul = [{ceildiv = ["SQ", 128]}, {mul = ["H", "B"]}]}]}, 1, 1]
// CHECK: %[[PID:.*]] = tile.program_id x : i32
// CHECK: %[[NPROG:.*]] = tile.num_programs x : i32
// CHECK: %[[BLOCKS:.*]] = arith.divsi
// CHECK: scf.for %[[T:.*]] = %[[PID]] to %{{.*}} step %[[NPROG]] : i32 {
// CHECK:   arith.remui %[[T]], %[[BLOCKS]] : i32
// CHECK:   arith.divui %[[T]], %[[BLOCKS]] : i32
fmha.attention @attn_persistent_full (tensor<?x?x?x64xbf16>,
                                      tensor<?x?x?x64xbf16>,
                                      tensor<?x?x?x64xbf16>)
    -> tensor<?x?x?x64xbf16> target sm_90a

// -----

// Head dim 256: two Q slots (128 KB) do not fit beside the fewest K/V stages
// (2 x 64 KB), so an explicitly persistent kernel keeps one, and the
// default schedule is per_block (next case).
// CHECK-LABEL: gpu.module @attn_persistent_d256_module
// CHECK: gpu.func @attn_persistent_d256(
// CHECK-SAME: fmha.item_slots = 1 : i64
// CHECK-SAME: fmha.stages = 2 : i64
fmha.attention @attn_persistent_d256 (tensor<?x?x?x256xbf16>,
                                      tensor<?x?x?x256xbf16>,
                                      tensor<?x?x?x256xbf16>)
    -> tensor<?x?x?x256xbf16> schedule persistent target sm_90a

// -----

// Head dim 256 rescales conditionally: in the loop a row's reference max
// moves only when the max grew by more than 8 (base 2), and O is rescaled
// by tile.scale_rows (whose lowering skips factors of 1).
// CHECK-LABEL: gpu.module @attn_d256_default_module
// CHECK: gpu.func @attn_d256_default(
// CHECK-SAME: fmha.grid = [{ceildiv = ["SQ", 128]}, "H", "B"]
// CHECK-NOT: fmha.item_slots
// CHECK-SAME: fmha.params
// CHECK: scf.for
// CHECK:   %[[MAX:.*]] = arith.maximumf %[[OLD:[^,]*]], %{{.*}} : tensor<64xf32>
// CHECK:   %[[GROWTH:.*]] = arith.subf %[[MAX]], %[[OLD]] : tensor<64xf32>
// CHECK:   %[[MOVES:.*]] = arith.cmpf ogt, %[[GROWTH]], %{{.*}} : tensor<64xf32>
// CHECK:   arith.select %[[MOVES]], %[[MAX]], %[[OLD]] : tensor<64xi1>, tensor<64xf32>
// CHECK:   tile.dot_wait
// CHECK:   tile.scale_rows %{{.*}}, %{{.*}} : tensor<64x256xf32>, tensor<64xf32>
fmha.attention @attn_d256_default (tensor<?x?x?x256xbf16>,
                                   tensor<?x?x?x256xbf16>,
                                   tensor<?x?x?x256xbf16>)
    -> tensor<?x?x?x256xbf16> target sm_90a

// -----

// 2-CTA mode: clusters of two CTAs along x (an even grid; ws-lower-roles
// sets the cluster shape); CTA 2p + r is rank r of tile pair p. Each CTA loads its own 128
// rows of A (rank r: rows 256 t + 128 r) and its half of B's 256 columns
// (128 r on), and the dot is a CTA pair's with the whole 256-column
// accumulator.
// CHECK-LABEL: gpu.module @gemm_2cta_module
// CHECK: gpu.func @gemm_2cta(%[[A:.*]]: !tile.desc<tensor<128x64xbf16>>, %[[B:.*]]: !tile.desc<tensor<128x64xbf16>>, %[[C:.*]]: !tile.desc<tensor<128x256xbf16>>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32) kernel
// CHECK-SAME: fmha.grid = [{mul = [{ceildiv = ["num_sms", 2]}, 2]}, 1, 1]
// CHECK-SAME: {box = [128, 64], kind = "tensor_map", swizzle = 128 : i64, tensor = "b"}
// CHECK-SAME: ws.cta_pair
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: %[[NPROG:.*]] = tile.num_programs x
// CHECK: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK: %[[RANK:.*]] = arith.remui %[[PID]], %[[TWO]] : i32
// CHECK: %[[PAIR:.*]] = arith.divui %[[PID]], %{{.*}} : i32
// CHECK: %[[NPAIRS:.*]] = arith.divui %[[NPROG]], %{{.*}} : i32
// CHECK: scf.for %{{.*}} = %[[PAIR]] to %{{.*}} step %[[NPAIRS]]
// CHECK: %[[MOFF:.*]] = arith.muli %[[RANK]], %{{.*}} : i32
// CHECK: %[[M0:.*]] = arith.addi %{{.*}}, %[[MOFF]] : i32
// CHECK: %[[N0:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK: %[[NOFF:.*]] = arith.muli %[[RANK]], %{{.*}} : i32
// CHECK: %[[NB:.*]] = arith.addi %[[N0]], %[[NOFF]] : i32
// CHECK: scf.for
// CHECK: tile.load %[[A]][%[[M0]], %{{.*}}] : !tile.desc<tensor<128x64xbf16>>
// CHECK: tile.load %[[B]][%[[NB]], %{{.*}}] : !tile.desc<tensor<128x64xbf16>>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} {cta_pair, transpose_b} : tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x256xf32>
// CHECK: tile.store %[[C]][%[[M0]], %[[N0]]]
fmha.gemm @gemm_2cta (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b tile [128, 256, 64] stages 4 consumers 1 ctas 2 target sm_100a

// -----

// TMA multicast: clusters of two CTAs along x (an even grid;
// ws-lower-roles sets the cluster shape); CTA 2p + r is rank r of cluster p and computes the r-th 256
// rows (two consumers of 128) of the cluster's 512-row tile, on the same
// columns as its peer. B's block stays whole in the tile program (each CTA
// holds all of it); its tensor map's box is half of it (64 of 128 rows),
// what each CTA loads into both.
// CHECK-LABEL: gpu.module @gemm_multicast_module
// CHECK: gpu.func @gemm_multicast(%[[A:.*]]: !tile.desc<tensor<128x64xbf16>>, %[[B:.*]]: !tile.desc<tensor<128x64xbf16>>, %[[C:.*]]: !tile.desc<tensor<128x128xbf16>>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32) kernel
// CHECK-SAME: fmha.grid = [{mul = [{ceildiv = ["num_sms", 2]}, 2]}, 1, 1]
// CHECK-SAME: {box = [64, 64], kind = "tensor_map", swizzle = 128 : i64, tensor = "b"}
// CHECK-SAME: ws.multicast
// CHECK: %[[PID:.*]] = tile.program_id x
// CHECK: %[[NPROG:.*]] = tile.num_programs x
// CHECK: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK: %[[RANK:.*]] = arith.remui %[[PID]], %[[TWO]] : i32
// CHECK: %[[CLUSTER:.*]] = arith.divui %[[PID]], %{{.*}} : i32
// CHECK: %[[NCLUSTERS:.*]] = arith.divui %[[NPROG]], %{{.*}} : i32
// CHECK: scf.for %{{.*}} = %[[CLUSTER]] to %{{.*}} step %[[NCLUSTERS]]
// CHECK: %[[C512:.*]] = arith.constant 512 : i32
// CHECK: %[[TILEM:.*]] = arith.muli %{{.*}}, %[[C512]] : i32
// CHECK: %[[C256:.*]] = arith.constant 256 : i32
// CHECK: %[[MOFF:.*]] = arith.muli %[[RANK]], %[[C256]] : i32
// CHECK: %[[M0:.*]] = arith.addi %[[TILEM]], %[[MOFF]] : i32
// CHECK: %[[M1:.*]] = arith.addi %[[M0]], %{{.*}} : i32
// CHECK: %[[N0:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK: scf.for
// CHECK: tile.load %[[A]][%[[M0]], %{{.*}}] : !tile.desc<tensor<128x64xbf16>>
// CHECK: tile.load %[[A]][%[[M1]], %{{.*}}] : !tile.desc<tensor<128x64xbf16>>
// CHECK: tile.load %[[B]][%[[N0]], %{{.*}}] : !tile.desc<tensor<128x64xbf16>>
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} {transpose_b} : tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x128xf32>
// CHECK: tile.store %[[C]][%[[M0]], %[[N0]]]
// CHECK: tile.store %[[C]][%[[M1]], %[[N0]]]
fmha.gemm @gemm_multicast (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b tile [128, 128, 64] stages 3 consumers 2 multicast 2 target sm_100a

// -----

// TMA multicast with B as [K, N]: a row of 128 bf16 moves as two 64-element
// boxes, one per CTA, so the box stays [64, 64].
// CHECK-LABEL: gpu.module @gemm_multicast_nmajor_module
// CHECK: fmha.grid = [{mul = [{ceildiv = ["num_sms", 2]}, 2]}, 1, 1]
// CHECK-SAME: {box = [64, 64], kind = "tensor_map", swizzle = 128 : i64, tensor = "b"}
fmha.gemm @gemm_multicast_nmajor (tensor<?x?xf16>, tensor<?x?xf16>) -> tensor<?x?xf32>
    tile [128, 128, 64] consumers 1 multicast 2 target sm_100a

// -----

// Split-K (`splits 3`): the kernel also takes the workspace ([3, M, N4] f32,
// N4 = N rounded up to whole 16-byte vectors)
// and the counters (one per consumer tile), scratch tensors of the
// contract. Work item w is K range w mod 3 of CTA tile w / 3; range s runs
// steps [s * steps / 3, (s + 1) * steps / 3). Each consumer stores its
// partial sum with plain stores, arrives at counter 2t + i, and on the
// last arrival sums the three partials in split order and stores C.
// CHECK-LABEL: gpu.module @gemm_splitk_module
// CHECK: gpu.func @gemm_splitk(%[[A:.*]]: !tile.desc<tensor<64x64xbf16>>, %[[B:.*]]: !tile.desc<tensor<128x64xbf16>>, %[[C:.*]]: !tile.desc<tensor<64x128xbf16>>, %{{.*}}: i32, %{{.*}}: i32, %[[K:.*]]: i32, %[[WS:.*]]: memref<?x?x?xf32>, %[[CNT:.*]]: memref<?xi32>) kernel
// CHECK-SAME: {dtype = "i32", kind = "scalar", value = "K"}, {kind = "memref", tensor = "workspace"}, {kind = "memref", tensor = "counters"}]
// CHECK-SAME: counters = {dtype = "i32", role = "zeroed", shape = [{mul = [{mul = [{ceildiv = ["M", 128]}, 2]}, {ceildiv = ["N", 128]}]}]}
// CHECK-SAME: workspace = {dtype = "f32", role = "scratch", shape = [3, "M", {mul = [{ceildiv = ["N", 4]}, 4]}]}
// CHECK: %[[TILES:.*]] = arith.muli
// CHECK: %[[ITEMS:.*]] = arith.muli %[[TILES]], %c3_i32{{.*}} : i32
// CHECK: %[[PID:.*]] = tile.program_id x : i32
// CHECK: %[[NPROG:.*]] = tile.num_programs x : i32
// CHECK: %[[KT:.*]] = arith.divui
// CHECK: scf.for %[[W:.*]] = %[[PID]] to %[[ITEMS]] step %[[NPROG]] : i32 {
// CHECK:   %[[T:.*]] = arith.divui %[[W]], %c3_i32{{.*}} : i32
// CHECK:   %[[S:.*]] = arith.remui %[[W]], %c3_i32{{.*}} : i32
// CHECK:   %[[M0:.*]] = arith.muli %{{.*}}, %c128_i32{{.*}} : i32
// CHECK:   %[[M1:.*]] = arith.addi %[[M0]], %c64_i32{{.*}} : i32
// CHECK:   %[[N0:.*]] = arith.muli %{{.*}}, %c128_i32{{.*}} : i32
// CHECK:   %[[SK:.*]] = arith.muli %[[S]], %[[KT]] : i32
// CHECK:   %[[BEGIN:.*]] = arith.divui %[[SK]], %c3_i32{{.*}} : i32
// CHECK:   %[[S1:.*]] = arith.addi %[[S]], %c1_i32{{.*}} : i32
// CHECK:   %[[S1K:.*]] = arith.muli %[[S1]], %[[KT]] : i32
// CHECK:   %[[END:.*]] = arith.divui %[[S1K]], %c3_i32{{.*}} : i32
// CHECK:   %[[R:.*]]:2 = scf.for %{{.*}} = %[[BEGIN]] to %[[END]] step %c1_i32{{.*}}
// CHECK:     tile.load %[[A]][%[[M0]], %{{.*}}]
// CHECK:     tile.load %[[A]][%[[M1]], %{{.*}}]
// CHECK:     tile.load %[[B]][%[[N0]], %{{.*}}]
// CHECK:   tile.store_direct %[[WS]][%[[S]], %[[M0]], %[[N0]]], %[[R]]#0 : memref<?x?x?xf32>, tensor<64x128xf32>
// CHECK:   %[[T2:.*]] = arith.muli %[[T]], %c2_i32{{.*}} : i32
// CHECK:   %[[I0:.*]] = arith.addi %[[T2]], %c0_i32{{.*}} : i32
// CHECK:   %[[LAST0:.*]] = tile.counter_arrive %[[CNT]][%[[I0]]], %c3_i32{{.*}} : memref<?xi32>
// CHECK:   scf.if %[[LAST0]] {
// CHECK:     %[[SUM:.*]] = scf.for %[[J:.*]] = %c0_i32{{.*}} to %c3_i32{{.*}} step %c1_i32{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<64x128xf32>) : i32 {
// CHECK:       %[[P:.*]] = tile.load_direct %[[WS]][%[[J]], %[[M0]], %[[N0]]] : memref<?x?x?xf32> -> tensor<64x128xf32>
// CHECK:       %[[ADD:.*]] = arith.addf %[[ACC]], %[[P]] : tensor<64x128xf32>
// CHECK:       scf.yield %[[ADD]]
// CHECK:     %[[OUT:.*]] = arith.truncf %[[SUM]]
// CHECK:     tile.store %[[C]][%[[M0]], %[[N0]]], %[[OUT]]
// CHECK:   }
// CHECK:   tile.store_direct %[[WS]][%[[S]], %[[M1]], %[[N0]]], %[[R]]#1
// CHECK:   tile.counter_arrive %[[CNT]]
// CHECK:   scf.if
// CHECK:     tile.store %[[C]][%[[M1]], %[[N0]]]
// CHECK: gpu.return
fmha.gemm @gemm_splitk (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b tile [64, 128, 64] consumers 2 splits 3 target sm_90a

// -----

// Split-K with swapped operands: the partial sum stored into the workspace
// is C's 8x64 tile, the accumulator transposed; the last arrival sums C's
// tiles from zeros of C's shape.
// CHECK-LABEL: gpu.module @gemm_swap_splitk_module
// CHECK: %[[R:.*]] = scf.for {{.*}} -> (tensor<64x8xf32>) : i32 {
// CHECK: %[[T:.*]] = tile.transpose %[[R]] : tensor<64x8xf32> -> tensor<8x64xf32>
// CHECK: tile.store_direct %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], %[[T]] : memref<?x?x?xf32>, tensor<8x64xf32>
// CHECK: tile.counter_arrive
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<8x64xf32>) : i32 {
// CHECK:   tile.load_direct %{{.*}} : memref<?x?x?xf32> -> tensor<8x64xf32>
// CHECK: tile.store %{{.*}} : !tile.desc<tensor<8x64xbf16>>
fmha.gemm @gemm_swap_splitk (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16> transpose_b swap_ab tile [8, 64, 64] stages 16
    splits 2 target sm_90a
