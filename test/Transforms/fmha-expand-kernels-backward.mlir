// RUN: fmha-opt %s -split-input-file --fmha-expand-kernels=backward-kernels=prep,post | FileCheck %s
// RUN: not fmha-opt %s -split-input-file --fmha-expand-kernels 2>&1 | FileCheck %s --check-prefix=NO-MAIN
// RUN: not fmha-opt %s -split-input-file --fmha-expand-kernels=backward-kernels=prep,side 2>&1 | FileCheck %s --check-prefix=BAD-NAME

// fmha.attention_backward: one gpu.module with a kernel per launch, in
// launch order (fmha.launches). The main kernel is not built yet: the
// expansion says so unless backward-kernels leaves it out.
// NO-MAIN: error: 'fmha.attention_backward' op expands into prep, main and post kernels, but the main kernel is not built yet (docs/Backward.md); fmha-expand-kernels{backward-kernels=prep,post} builds the other two alone
// BAD-NAME: error: fmha-expand-kernels: backward-kernels takes prep, main and post, got 'side'

// The prep kernel: a CTA per 64 query rows of one head; O and dO by plain
// loads, D = rowsum(dO * O) in f32 and lse2 = lse * log2(e) (+inf where lse
// is -inf) into the two rows of d_lse, zeros into dq_acc. Its grid covers
// d_lse's rows, seq_q rounded up to block_m (64).
// CHECK-LABEL: gpu.module @bwd_module
// CHECK-SAME: attributes {fmha.launches = [@bwd_prep, @bwd_post]}
// CHECK: gpu.func @bwd_prep(%[[O:.+]]: memref<?x?x?x128xbf16>, %[[DO:.+]]: memref<?x?x?x128xbf16>, %[[LSE:.+]]: memref<?x?x?xf32>, %[[DLSE:.+]]: memref<?x?x2x?xf32>, %[[ACC:.+]]: memref<?x?x?x128xf32>) kernel
// CHECK-SAME: fmha.grid = [{ceildiv = ["SQ", 64]}, "H", "B"]
// CHECK-SAME: fmha.params = [{kind = "memref", tensor = "o"}, {kind = "memref", tensor = "do"}, {kind = "memref", tensor = "lse"}, {kind = "memref", tensor = "d_lse"}, {kind = "memref", tensor = "dq_acc"}]
// CHECK-SAME: d_lse = {dtype = "f32", role = "scratch", shape = ["B", "H", 2, {mul = [{ceildiv = ["SQ", 64]}, 64]}]}
// CHECK-SAME: dq_acc = {dtype = "f32", role = "scratch", shape = ["B", "H", "SQ", 128]}
// CHECK: %[[PID:.+]] = tile.program_id x : i32
// CHECK: %[[ROW0:.+]] = arith.muli %[[PID]], %c64_i32
// CHECK: %[[HEAD:.+]] = tile.program_id y : i32
// CHECK: %[[BATCH:.+]] = tile.program_id z : i32
// CHECK: %[[OT:.+]] = tile.load_direct %[[O]][%[[BATCH]], %[[HEAD]], %[[ROW0]], %{{.+}}] : memref<?x?x?x128xbf16> -> tensor<64x128xbf16>
// CHECK: %[[OF:.+]] = arith.extf %[[OT]]
// CHECK: %[[DOT:.+]] = tile.load_direct %[[DO]][%[[BATCH]], %[[HEAD]], %[[ROW0]], %{{.+}}]
// CHECK: %[[DOF:.+]] = arith.extf %[[DOT]]
// CHECK: %[[PROD:.+]] = arith.mulf %[[DOF]], %[[OF]] : tensor<64x128xf32>
// CHECK: %[[D:.+]] = tile.reduce sum %[[PROD]] axis 1 : tensor<64x128xf32> -> tensor<64xf32>
// CHECK: %[[L:.+]] = tile.load_direct %[[LSE]][%[[BATCH]], %[[HEAD]], %[[ROW0]]] : memref<?x?x?xf32> -> tensor<64xf32>
// CHECK: %[[NOKEYS:.+]] = arith.cmpf oeq, %[[L]], %{{.+}} : tensor<64xf32>
// CHECK: %[[L2:.+]] = arith.mulf %[[L]], %{{.+}} : tensor<64xf32>
// CHECK: %[[SEL:.+]] = arith.select %[[NOKEYS]], %{{.+}}, %[[L2]]
// CHECK: tile.store_direct %[[DLSE]][%[[BATCH]], %[[HEAD]], %c0_i32, %[[ROW0]]], %[[D]]
// CHECK: tile.store_direct %[[DLSE]][%[[BATCH]], %[[HEAD]], %c1_i32, %[[ROW0]]], %[[SEL]]
// CHECK: %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : tensor<64x128xf32>
// CHECK: tile.store_direct %[[ACC]][%[[BATCH]], %[[HEAD]], %[[ROW0]], %c0_i32], %[[ZERO]]
// The post kernel: dq = scale * dq_acc (the default scale 1/sqrt(128)),
// rounded, by plain stores bounded by seq_q.
// CHECK: gpu.func @bwd_post(%[[PACC:.+]]: memref<?x?x?x128xf32>, %[[DQ:.+]]: memref<?x?x?x128xbf16>) kernel
// CHECK-SAME: fmha.grid = [{ceildiv = ["SQ", 64]}, "H", "B"]
// CHECK-SAME: fmha.params = [{kind = "memref", tensor = "dq_acc"}, {kind = "memref", tensor = "dq"}]
// CHECK-SAME: fmha.tensors = {dq = {dtype = "bf16", role = "output", shape = ["B", "H", "SQ", 128]}, dq_acc = {dtype = "f32", role = "scratch", shape = ["B", "H", "SQ", 128]}}
// CHECK: %[[A:.+]] = tile.load_direct %[[PACC]]
// CHECK: %[[C:.+]] = arith.constant 0.0883883461 : f32
// CHECK: %[[CS:.+]] = tensor.splat %[[C]] : tensor<64x128xf32>
// CHECK: %[[S:.+]] = arith.mulf %[[A]], %[[CS]]
// CHECK: %[[R:.+]] = arith.truncf %[[S]] : tensor<64x128xf32> to tensor<64x128xbf16>
// CHECK: tile.store_direct %[[DQ]][%{{.+}}], %[[R]]
fmha.attention_backward @bwd (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>,
    tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>,
    tensor<?x?x?xf32>)
    -> (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>)
    causal target sm_90a

// -----

// Static sizes stay in the signature and the contract; with block_m 32 and
// seq_q 300, d_lse has 320 rows, which five prep CTAs of 64 rows cover.
// f16 and an explicit scale.
// CHECK-LABEL: gpu.module @bwd_static_module
// CHECK: gpu.func @bwd_static_prep(%{{.+}}: memref<2x4x300x64xf16>, %{{.+}}: memref<2x4x300x64xf16>, %{{.+}}: memref<2x4x300xf32>, %{{.+}}: memref<2x4x2x320xf32>, %{{.+}}: memref<2x4x300x64xf32>) kernel
// CHECK-SAME: fmha.grid = [{ceildiv = [320, 64]}, 4, 2]
// CHECK-SAME: d_lse = {dtype = "f32", role = "scratch", shape = [2, 4, 2, 320]}
// CHECK: tile.load_direct {{.+}} -> tensor<64x64xf16>
// CHECK: gpu.func @bwd_static_post
// CHECK-SAME: fmha.grid = [{ceildiv = [300, 64]}, 4, 2]
// CHECK: arith.constant 1.250000e-01 : f32
// CHECK: arith.truncf {{.+}} : tensor<64x64xf32> to tensor<64x64xf16>
fmha.attention_backward @bwd_static (tensor<2x4x300x64xf16>,
    tensor<2x1x17x64xf16>, tensor<2x1x17x64xf16>, tensor<2x4x300x64xf16>,
    tensor<2x4x300x64xf16>, tensor<2x4x300xf32>)
    -> (tensor<2x4x300x64xf16>, tensor<2x1x17x64xf16>, tensor<2x1x17x64xf16>)
    scale 0.125 tile [32, 128] target sm_90a
