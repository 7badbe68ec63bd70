// RUN: fmha-opt %s -split-input-file --fmha-expand-kernels | FileCheck %s

// Decode with packed query heads and split-KV (`kvcache pack_gqa
// split_kv`), GQA 32:8 so 4 heads per KV head, one consumer, persistent.
// Q is a rank-5 descriptor over the [batch, heads_kv, seq_q, group,
// head_dim] view of q declared [B, SQ, 8, 4, 128] (a box of 16 positions
// of the 4 heads); O is a rank-5 memref (plain stores), then lse, the
// cache lengths, the block table, the five sizes, the partial results, the
// counters and the number of splits. The grid counts (seq_q * 4 packed
// rows / 64) x kv heads x batch x splits work items.
// CHECK-LABEL: gpu.func @decode(
// CHECK-SAME: %[[Q:[^:]*]]: !tile.desc<tensor<64x128xbf16>, rank = 5>, %{{[^:]*}}: !tile.desc<tensor<64x128xbf16>, rank = 4>, %{{[^:]*}}: !tile.desc<tensor<64x128xbf16>, rank = 4>,
// CHECK-SAME: %[[O:[^:]*]]: memref<?x?x?x4x128xbf16>, %[[LSE:[^:]*]]: memref<?x?x?xf32>, %{{[^:]*}}: memref<?xi32>, %{{[^:]*}}: memref<?x?xi32>,
// CHECK-SAME: %{{[^:]*}}: i32, %{{[^:]*}}: i32, %[[HKV:[^:]*]]: i32, %[[SQ:[^:]*]]: i32, %{{[^:]*}}: i32,
// CHECK-SAME: %[[PO:[^:]*]]: memref<?x?x?x?x128xf32>, %[[PL:[^:]*]]: memref<?x?x?x?xf32>, %[[CNT:[^:]*]]: memref<?xi32>, %[[S:[^:]*]]: i32) kernel
// CHECK-SAME: fmha.grid = [{min = ["num_sms", {mul = [{mul = [{ceildiv = [{mul = ["SQ", 4]}, 64]}, {mul = [8, "B"]}]}, "S"]}]}, 1, 1]
// CHECK-SAME: {box = [16, 4, 64], dims = [0, 2, 1, 3, 4], kind = "tensor_map", swizzle = 128 : i64, tensor = "q"}
// CHECK-SAME: {kind = "memref", tensor = "o"}
// CHECK-SAME: {kind = "memref", tensor = "partial_o"}, {kind = "memref", tensor = "partial_lse"}, {kind = "memref", tensor = "counters"}, {dtype = "i32", kind = "scalar", value = "S"}]
// CHECK-SAME: fmha.sizes = ["S"]
// CHECK-SAME: counters = {dtype = "i32", role = "zeroed", shape = [{mul = [{mul = ["B", 8]}, {mul = [{ceildiv = [{mul = ["SQ", 4]}, 64]}, 1]}]}]}
// CHECK-SAME: o = {dtype = "bf16", role = "output", shape = ["B", "SQ", 8, 4, 128]}
// CHECK-SAME: partial_lse = {dtype = "f32", role = "scratch", shape = ["S", "B", 8, {mul = ["SQ", 4]}]}
// CHECK-SAME: partial_o = {dtype = "f32", role = "scratch", shape = ["S", "B", 8, {mul = ["SQ", 4]}, 128]}
// CHECK-SAME: q = {dtype = "bf16", role = "input", shape = ["B", "SQ", 8, 4, 128]}
// Work item: (query block, split) of a (batch, kv head).
// CHECK: scf.for %[[ITEM:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i32 {
// CHECK: %[[HEAD:.*]] = arith.remui %{{.*}}, %[[HKV]] : i32
// CHECK: %[[SEQ:.*]] = arith.divui %{{.*}}, %[[HKV]] : i32
// CHECK: %[[SPLIT:.*]] = arith.remui %{{.*}}, %[[S]] : i32
// CHECK: %[[BLOCK:.*]] = arith.divui %{{.*}}, %[[S]] : i32
// CHECK: %[[M0:.*]] = arith.muli %[[BLOCK]], %c64_i32{{.*}} : i32
// Q at position m0 / 4 of the kv head's group.
// CHECK: %[[POS:.*]] = arith.divui %[[M0]], %c4_i32{{.*}} : i32
// CHECK: tile.load %[[Q]][%[[SEQ]], %[[HEAD]], %[[POS]], %{{.*}}, %{{.*}}] : !tile.desc<tensor<64x128xbf16>, rank = 5>
// The split's share of the key tiles: [s * tiles / S, (s + 1) * tiles / S),
// and the keys it may see end with it.
// CHECK: %[[FIRST:.*]] = arith.divsi %{{.*}}, %[[S]] : i32
// CHECK: %[[NEXT:.*]] = arith.addi %[[SPLIT]], %c1_i32{{.*}} : i32
// CHECK: %[[LAST:.*]] = arith.divsi %{{.*}}, %[[S]] : i32
// CHECK: %[[LIMIT:.*]] = arith.minsi %{{.*}}, %{{.*}} : i32
// The masks use query positions: packed row / 4.
// CHECK: tile.iota axis 0 : tensor<64x64xi32>
// CHECK: arith.divui %{{.*}}, %{{.*}} : tensor<64x64xi32>
// The partials, then the tile's counter; the last arrival merges.
// CHECK: tile.store_direct %[[PO]][%[[SPLIT]], %[[SEQ]], %[[HEAD]], %[[M0]], %{{.*}}], %{{.*}} : memref<?x?x?x?x128xf32>, tensor<64x128xf32>
// CHECK: tile.store_direct %[[PL]][%[[SPLIT]], %[[SEQ]], %[[HEAD]], %[[M0]]], %{{.*}} : memref<?x?x?x?xf32>, tensor<64xf32>
// CHECK: %[[ISLAST:.*]] = tile.counter_arrive %[[CNT]][%{{.*}}], %[[S]] : memref<?xi32>
// CHECK: scf.if %[[ISLAST]] {
// The tile's live rows (at most 64), 16 at a time: the lse rows of 4
// partials per step, then their O rows, all loaded before they merge.
// CHECK: %[[LIVE:.*]] = arith.minsi %c64_i32{{.*}}, %{{.*}} : i32
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %[[LIVE]] step %c16_i32{{.*}} : i32 {
// CHECK: %[[R0:.*]] = arith.addi %[[M0]], %[[C]] : i32
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[S]] step %c4_i32{{.*}} iter_args(
// CHECK-COUNT-4: tile.load_direct %[[PL]][%{{.*}}, %[[SEQ]], %[[HEAD]], %[[R0]]] : memref<?x?x?x?xf32> -> tensor<16xf32>
// CHECK: scf.yield
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[S]] step %c4_i32{{.*}} iter_args(
// CHECK-COUNT-4: tile.load_direct %[[PO]][%{{.*}}, %[[SEQ]], %[[HEAD]], %[[R0]], %{{.*}}] : memref<?x?x?x?x128xf32> -> tensor<16x128xf32>
// CHECK: math.exp2
// O and lse through views whose rows run over [seq_q, group]: row_dims 2.
// CHECK: %[[OV:.*]] = memref.reinterpret_cast %[[O]] to offset: [0], sizes: [%{{.*}}, %{{.*}}, %{{.*}}, 4, 128], strides: [%{{.*}}, 512, %{{.*}}, 128, 1]
// CHECK: tile.store_direct %[[OV]][%[[SEQ]], %[[HEAD]], %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} row_dims 2 : memref<?x?x?x4x128xbf16, strided<[?, 512, ?, 128, 1]>>, tensor<16x128xbf16>
// CHECK: %[[LV:.*]] = memref.reinterpret_cast %[[LSE]] to offset: [0], sizes: [%{{.*}}, %{{.*}}, %{{.*}}, 4], strides: [%{{.*}}, %{{.*}}, 1, %{{.*}}]
// CHECK: tile.store_direct %[[LV]][%[[SEQ]], %[[HEAD]], %{{.*}}, %{{.*}}], %{{.*}} row_dims 2 : memref<?x?x?x4xf32, strided<[?, ?, 1, ?]>>, tensor<16xf32>
fmha.attention @decode (tensor<?x?x32x128xbf16>, tensor<?x64x8x128xbf16>,
                        tensor<?x64x8x128xbf16>, tensor<?xi32>,
                        tensor<?x?xi32>)
    -> (tensor<?x?x32x128xbf16>, tensor<?x32x?xf32>) kvcache pack_gqa split_kv
    causal consumers 1 target sm_90a

// -----

// Split-KV without packing, one CTA per work item: the grid's x counts
// query blocks times splits, O leaves by plain stores into the [batch,
// heads, seq_q, head_dim] view of o [batch, seq_q, heads, head_dim].
// CHECK-LABEL: gpu.func @split_pb(
// CHECK-SAME: %[[O:[^:]*]]: memref<?x?x?x64xf16>,
// CHECK-SAME: fmha.grid = [{mul = [{ceildiv = ["SQ", 128]}, "S"]}, "H", "B"]
// CHECK: %[[X:.*]] = tile.program_id x : i32
// CHECK: arith.remui %[[X]], %{{.*}} : i32
// CHECK: arith.divui %[[X]], %{{.*}} : i32
// CHECK: tile.counter_arrive
// CHECK: %[[OV:.*]] = memref.reinterpret_cast %[[O]]
// CHECK: tile.store_direct %[[OV]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} : memref<?x?x?x64xf16, strided<[?, 64, ?, 1]>>, tensor<16x64xf16>
fmha.attention @split_pb (tensor<?x?x?x64xf16>, tensor<?x16x?x64xf16>,
                          tensor<?x16x?x64xf16>, tensor<?xi32>,
                          tensor<?x?xi32>)
    -> tensor<?x?x?x64xf16> kvcache split_kv schedule per_block
    target sm_90a

// -----

// sm_100a: the last arrival merges the tile's 128 rows (the correction
// warpgroup holds a row per thread) with the same code as sm_90a
// (mergePartials): the lse rows of 2 partials per step, then O 8 columns
// at a time, 2 partials per step, each chunk stored once summed; the lse
// rows last.
// CHECK-LABEL: gpu.func @split_sm100(
// CHECK-SAME: %[[O:[^:]*]]: memref<?x?x?x4x128xbf16>, %[[LSE:[^:]*]]: memref<?x?x?xf32>,
// CHECK-SAME: %[[PO:[^:]*]]: memref<?x?x?x?x128xf32>, %[[PL:[^:]*]]: memref<?x?x?x?xf32>, %[[CNT:[^:]*]]: memref<?xi32>, %[[S:[^:]*]]: i32) kernel
// CHECK: %[[ISLAST:.*]] = tile.counter_arrive %[[CNT]][%{{.*}}], %[[S]] : memref<?xi32>
// CHECK: scf.if %[[ISLAST]] {
// CHECK: %[[LIVE:.*]] = arith.minsi %c128_i32{{.*}}, %{{.*}} : i32
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %[[LIVE]] step %c128_i32{{.*}} : i32 {
// CHECK: %[[R0:.*]] = arith.addi %{{.*}}, %[[C]] : i32
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[S]] step %c2_i32{{.*}} iter_args(
// CHECK-COUNT-2: tile.load_direct %[[PL]][%{{.*}}, %{{.*}}, %{{.*}}, %[[R0]]] : memref<?x?x?x?xf32> -> tensor<128xf32>
// CHECK: scf.yield
// CHECK: scf.for %[[COL:.*]] = %{{.*}} to %c128_i32{{.*}} step %c8_i32 : i32 {
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %{{.*}} to %[[S]] step %c2_i32{{.*}} iter_args(
// CHECK-COUNT-2: tile.load_direct %[[PO]][%{{.*}}, %{{.*}}, %{{.*}}, %[[R0]], %[[COL]]] : memref<?x?x?x?x128xf32> -> tensor<128x8xf32>
// CHECK: math.exp2
// CHECK: %[[OUT:.*]] = arith.truncf %[[SUM]] : tensor<128x8xf32> to tensor<128x8xbf16>
// CHECK: %[[OV:.*]] = memref.reinterpret_cast %[[O]]
// CHECK: tile.store_direct %[[OV]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[COL]]], %[[OUT]] row_dims 2 : memref<?x?x?x4x128xbf16, strided<[?, 512, ?, 128, 1]>>, tensor<128x8xbf16>
// CHECK: }
// CHECK: %[[LV:.*]] = memref.reinterpret_cast %[[LSE]]
// CHECK: tile.store_direct %[[LV]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} row_dims 2 : memref<?x?x?x4xf32, strided<[?, ?, 1, ?]>>, tensor<128xf32>
fmha.attention @split_sm100 (tensor<?x?x32x128xbf16>, tensor<?x64x8x128xbf16>,
                             tensor<?x64x8x128xbf16>, tensor<?xi32>,
                             tensor<?x?xi32>)
    -> (tensor<?x?x32x128xbf16>, tensor<?x32x?xf32>) kvcache pack_gqa split_kv
    consumers 1 target sm_100a
