// RUN: fmha-opt %s -split-input-file --fmha-expand-kernels | FileCheck %s

// fmha.transpose_values: a tile program without dots and TMA. The kernel
// takes v as a memref with the caller's strides (contiguous rows), vt
// dense; a CTA copies 128 keys (head dim 128) of one KV head of one
// sequence: grid (ceildiv(K, 128), H, B). The block's [128, head_dim] tile
// is loaded at its first key and stored with `row_dims 4` into a view of vt
// whose rows are the keys' coordinates [g, a, t, c] (key 16 g + 8 a + 2 t
// + c), at strides [16, 2, 4, 1] (the key's place 16 g + 4 t + 2 a + c in
// its row of vt) and whose columns (head_dim) are `keys` bytes apart.
// CHECK-LABEL: gpu.module @transpose_module
// CHECK: gpu.func @transpose(%[[V:.+]]: memref<?x?x?x128xf8E4M3FN, strided<[?, ?, ?, 1], offset: ?>>, %[[VT:.+]]: memref<?x?x128x?xf8E4M3FN>) kernel
// CHECK-SAME: fmha.grid = [{ceildiv = ["K", 128]}, "H", "B"]
// CHECK-SAME: fmha.params = [{kind = "memref", strided = true, tensor = "v"}, {kind = "memref", tensor = "vt"}]
// CHECK-SAME: fmha.tensors = {v = {dtype = "f8e4m3", role = "input", shape = ["B", "H", "S", 128]}, vt = {dtype = "f8e4m3", role = "output", shape = ["B", "H", 128, "K"]}}
// The view: vt's sizes and strides from its descriptor, keys by groups of
// 16, head_dim innermost at a stride of `keys`.
// CHECK: %[[HEADS:.+]] = memref.dim %[[VT]], %{{.+}} : memref<?x?x128x?xf8E4M3FN>
// CHECK: %[[KEYS:.+]] = memref.dim %[[VT]], %{{.+}} : memref<?x?x128x?xf8E4M3FN>
// CHECK: %[[HSTRIDE:.+]] = arith.muli %{{.+}}, %[[KEYS]] : index
// CHECK: %[[BSTRIDE:.+]] = arith.muli %[[HEADS]], %[[HSTRIDE]] : index
// CHECK: %[[GROUPS:.+]] = arith.divui %[[KEYS]], %{{.+}} : index
// CHECK: %[[BATCHES:.+]] = memref.dim %[[VT]], %{{.+}} : memref<?x?x128x?xf8E4M3FN>
// CHECK: %[[VIEW:.+]] = memref.reinterpret_cast %[[VT]] to offset: [0], sizes: [%[[BATCHES]], %[[HEADS]], %[[GROUPS]], 2, 4, 2, 128], strides: [%[[BSTRIDE]], %[[HSTRIDE]], 16, 2, 4, 1, %[[KEYS]]] : memref<?x?x128x?xf8E4M3FN> to memref<?x?x?x2x4x2x128xf8E4M3FN, strided<[?, ?, 16, 2, 4, 1, ?]>>
// The block: 128 keys from key 128 x, their group 8 x.
// CHECK: %[[PID:.+]] = tile.program_id x : i32
// CHECK: %[[HEAD:.+]] = tile.program_id y : i32
// CHECK: %[[BATCH:.+]] = tile.program_id z : i32
// CHECK: %[[FIRST:.+]] = arith.muli %[[PID]], %c128_i32 : i32
// CHECK: %[[GROUP:.+]] = arith.divui %[[FIRST]], %c16_i32 : i32
// CHECK: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK: %[[TILE:.+]] = tile.load_direct %[[V]][%[[BATCH]], %[[HEAD]], %[[FIRST]], %[[ZERO]]] : memref<?x?x?x128xf8E4M3FN, strided<[?, ?, ?, 1], offset: ?>> -> tensor<128x128xf8E4M3FN>
// CHECK: tile.store_direct %[[VIEW]][%[[BATCH]], %[[HEAD]], %[[GROUP]], %[[ZERO]], %[[ZERO]], %[[ZERO]], %[[ZERO]]], %[[TILE]] row_dims 4 : memref<?x?x?x2x4x2x128xf8E4M3FN, strided<[?, ?, 16, 2, 4, 1, ?]>>, tensor<128x128xf8E4M3FN>
// CHECK-NEXT: gpu.return
fmha.transpose_values @transpose (tensor<?x?x?x128xf8E4M3FN>)
    -> tensor<?x?x128x?xf8E4M3FN> target sm_90a

// -----

// Static sizes stay in the signature and the contract: 100 keys rounded up
// to 112 (a single CTA), 8 KV heads, a batch of 2; head dim 64.
// CHECK-LABEL: gpu.module @transpose_static_module
// CHECK: gpu.func @transpose_static(%[[V:.+]]: memref<2x8x100x64xf8E4M3FN, strided<[?, ?, ?, 1], offset: ?>>, %[[VT:.+]]: memref<2x8x64x112xf8E4M3FN>) kernel
// CHECK-SAME: fmha.grid = [{ceildiv = [112, 128]}, 8, 2]
// CHECK-SAME: fmha.tensors = {v = {dtype = "f8e4m3", role = "input", shape = [2, 8, 100, 64]}, vt = {dtype = "f8e4m3", role = "output", shape = [2, 8, 64, 112]}}
// CHECK: %[[VIEW:.+]] = memref.reinterpret_cast %[[VT]] to offset: [0], sizes: [%{{.+}}, %{{.+}}, %{{.+}}, 2, 4, 2, 64], strides: [%{{.+}}, %{{.+}}, 16, 2, 4, 1, %{{.+}}] : memref<2x8x64x112xf8E4M3FN> to memref<?x?x?x2x4x2x64xf8E4M3FN, strided<[?, ?, 16, 2, 4, 1, ?]>>
// CHECK: %[[TILE:.+]] = tile.load_direct %[[V]][%{{.+}}] : memref<2x8x100x64xf8E4M3FN, strided<[?, ?, ?, 1], offset: ?>> -> tensor<128x64xf8E4M3FN>
// CHECK: tile.store_direct %[[VIEW]][%{{.+}}], %[[TILE]] row_dims 4 : memref<?x?x?x2x4x2x64xf8E4M3FN, strided<[?, ?, 16, 2, 4, 1, ?]>>, tensor<128x64xf8E4M3FN>
fmha.transpose_values @transpose_static (tensor<2x8x100x64xf8E4M3FN>)
    -> tensor<2x8x64x112xf8E4M3FN> target sm_90a

// -----

// f8E5M2 at head dim 256 on sm_100a: the same program, the element type
// in the memrefs, the tile and the manifest's dtypes.
// CHECK-LABEL: gpu.module @transpose_e5m2_module
// CHECK-SAME: chip = "sm_100a"
// CHECK: gpu.func @transpose_e5m2(%[[V:.+]]: memref<?x?x?x256xf8E5M2, strided<[?, ?, ?, 1], offset: ?>>, %[[VT:.+]]: memref<?x?x256x?xf8E5M2>) kernel
// CHECK-SAME: fmha.grid = [{ceildiv = ["K", 128]}, "H", "B"]
// CHECK-SAME: fmha.tensors = {v = {dtype = "f8e5m2", role = "input", shape = ["B", "H", "S", 256]}, vt = {dtype = "f8e5m2", role = "output", shape = ["B", "H", 256, "K"]}}
// CHECK: %[[VIEW:.+]] = memref.reinterpret_cast %[[VT]] to offset: [0], sizes: [%{{.+}}, %{{.+}}, %{{.+}}, 2, 4, 2, 256], strides: [%{{.+}}, %{{.+}}, 16, 2, 4, 1, %{{.+}}]
// CHECK: %[[TILE:.+]] = tile.load_direct %[[V]][%{{.+}}] : memref<?x?x?x256xf8E5M2, strided<[?, ?, ?, 1], offset: ?>> -> tensor<128x256xf8E5M2>
// CHECK: tile.store_direct %[[VIEW]][%{{.+}}], %[[TILE]] row_dims 4 : memref<?x?x?x2x4x2x256xf8E5M2, strided<[?, ?, 16, 2, 4, 1, ?]>>, tensor<128x256xf8E5M2>
fmha.transpose_values @transpose_e5m2 (tensor<?x?x?x256xf8E5M2>)
    -> tensor<?x?x256x?xf8E5M2> target sm_100a
