// RUN: fmha-opt %s -split-input-file --fmha-expand-kernels | FileCheck %s

// fmha.merge_states: a tile program without dots and TMA. The kernel takes
// its four tensors as memrefs with the caller's strides (o_states and o
// with contiguous rows) and records them as strided memrefs; a CTA merges
// 32 rows (4096 / head_dim) of one head of one sequence: grid (ceildiv(T,
// 32), H, B). o_states and o are read as [.., heads, seq, head_dim]
// transposes, so a block's rows are one head's.
// CHECK-LABEL: gpu.module @merge_module
// CHECK: gpu.func @merge(%[[STATES:.+]]: memref<?x?x?x?x128xbf16, strided<[?, ?, ?, ?, 1]>>, %[[LSES:.+]]: memref<?x?x?x?xf32, strided<[?, ?, ?, ?]>>, %[[O:.+]]: memref<?x?x?x128xbf16, strided<[?, ?, ?, 1]>>, %[[LSE:.+]]: memref<?x?x?xf32, strided<[?, ?, ?]>>) kernel
// CHECK-SAME: fmha.grid = [{ceildiv = ["T", 32]}, "H", "B"]
// CHECK-SAME: fmha.params = [{kind = "memref", strided = true, tensor = "o_states"}, {kind = "memref", strided = true, tensor = "lse_states"}, {kind = "memref", strided = true, tensor = "o"}, {kind = "memref", strided = true, tensor = "lse"}]
// CHECK-SAME: o_states = {dtype = "bf16", role = "input", shape = ["S", "B", "T", "H", 128]}
// CHECK: %[[PID:.+]] = tile.program_id x : i32
// CHECK: %[[ROW0:.+]] = arith.muli %[[PID]], %{{.+}} : i32
// CHECK: %[[HEAD:.+]] = tile.program_id y : i32
// CHECK: %[[BATCH:.+]] = tile.program_id z : i32
// CHECK: %[[VIEW:.+]] = memref.transpose %[[STATES]] (d0, d1, d2, d3, d4) -> (d0, d1, d3, d2, d4)
// CHECK: %[[OVIEW:.+]] = memref.transpose %[[O]] (d0, d1, d2, d3) -> (d0, d2, d1, d3)
// CHECK: %[[SDIM:.+]] = memref.dim %[[LSES]], %{{.+}}
// CHECK: %[[S:.+]] = arith.index_cast %[[SDIM]] : index to i32
// Pass 1: the online log-sum-exp of the states' lse rows, in base 2, four
// states a step, their rows loaded first (-inf past the last state).
// CHECK: %[[STAT:.+]]:2 = scf.for %[[I:.+]] = %{{.+}} to %[[S]] step %c4_i32{{.*}} iter_args(%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) -> (tensor<32xf32>, tensor<32xf32>)
// CHECK-COUNT-4: tile.load_direct %[[LSES]][%{{.+}}, %[[BATCH]], %[[HEAD]], %[[ROW0]]] : memref<?x?x?x?xf32, strided<[?, ?, ?, ?]>> -> tensor<32xf32>
// CHECK: arith.maximumf
// CHECK: math.exp2
// CHECK: scf.yield
// CHECK: math.log2
// Pass 2: four states a step, every load first; each state's weight once
// per row, its o tile weighted (zero weight adds zero, whatever the tile
// holds).
// CHECK: %[[ACC:.+]] = scf.for %[[J:.+]] = %{{.+}} to %[[S]] step %c4_i32{{.*}} iter_args(%[[SUM:.+]] = %{{.+}}) -> (tensor<32x128xf32>)
// CHECK: tile.load_direct %[[LSES]][%{{.+}}, %[[BATCH]], %[[HEAD]], %[[ROW0]]]
// CHECK: tile.load_direct %[[VIEW]][%{{.+}}, %[[BATCH]], %[[HEAD]], %[[ROW0]], %{{.+}}] : memref<?x?x?x?x128xbf16, strided<[?, ?, ?, ?, 1]>> -> tensor<32x128xbf16>
// CHECK-COUNT-3: tile.load_direct %[[VIEW]]
// CHECK: %[[D:.+]] = arith.subf
// CHECK: %[[W:.+]] = math.exp2 %[[D]]
// CHECK: %[[WB:.+]] = tile.broadcast %[[W]] axis 1 : tensor<32xf32> -> tensor<32x128xf32>
// CHECK: %[[F:.+]] = arith.extf
// CHECK: %[[POS:.+]] = arith.cmpf ogt, %[[WB]]
// CHECK: %[[P:.+]] = arith.mulf %[[F]], %[[WB]]
// CHECK: %[[KEEP:.+]] = arith.select %[[POS]], %[[P]]
// CHECK: arith.addf %[[SUM]], %[[KEEP]]
// The results, by stores bounded by the sequence.
// CHECK: %[[OUT:.+]] = arith.truncf %[[ACC]] : tensor<32x128xf32> to tensor<32x128xbf16>
// CHECK: tile.store_direct %[[OVIEW]][%[[BATCH]], %[[HEAD]], %[[ROW0]], %{{.+}}], %[[OUT]]
// CHECK: tile.store_direct %[[LSE]][%[[BATCH]], %[[HEAD]], %[[ROW0]]], %{{.+}} : memref<?x?x?xf32, strided<[?, ?, ?]>>, tensor<32xf32>
fmha.merge_states @merge (tensor<?x?x?x?x128xbf16>, tensor<?x?x?x?xf32>)
    -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) target sm_90a

// -----

// Head dim 64: 64 rows a CTA; static sizes stay in the signature and the
// contract (two states, 8 heads); sm_100a gets the same program.
// CHECK-LABEL: gpu.module @merge64_module
// CHECK: gpu.func @merge64(%{{.+}}: memref<2x?x?x8x64xf16, strided<[?, ?, ?, ?, 1]>>, %{{.+}}: memref<2x?x8x?xf32, strided<[?, ?, ?, ?]>>, %{{.+}}: memref<?x?x8x64xf16, strided<[?, ?, ?, 1]>>, %{{.+}}: memref<?x8x?xf32, strided<[?, ?, ?]>>) kernel
// CHECK-SAME: fmha.grid = [{ceildiv = ["T", 64]}, 8, "B"]
// CHECK-SAME: o_states = {dtype = "f16", role = "input", shape = [2, "B", "T", 8, 64]}
// CHECK: tile.load_direct {{.+}} -> tensor<64x64xf16>
fmha.merge_states @merge64 (tensor<2x?x?x8x64xf16>, tensor<2x?x8x?xf32>)
    -> (tensor<?x?x8x64xf16>, tensor<?x8x?xf32>) target sm_100a
