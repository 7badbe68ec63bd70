// RUN: fmha-opt %s -split-input-file --fmha-expand-kernels | FileCheck %s

// Varlen attention, one CTA per query block: the kernel takes Q, K and V
// as rank-3 descriptors ([heads, total, head_dim] views, dims [1, 0, 2] in
// the manifest), O as a memref and a rank-3 descriptor, lse as a memref,
// the cu_seqlens, then batch,
// heads_q, heads_kv, max_seqlen_q, total_q and total_k. The grid is (query
// blocks of the longest sequence, heads_q, batch); batch and max_seqlen_q
// are the caller's sizes.
// CHECK-LABEL: gpu.func @attn_varlen_pb(
// CHECK-SAME: %[[Q:[^:]*]]: !tile.desc<tensor<64x128xf16>, rank = 3>, %[[K:[^:]*]]: !tile.desc<tensor<128x128xf16>, rank = 3>, %{{[^:]*}}: !tile.desc<tensor<128x128xf16>, rank = 3>,
// CHECK-SAME: %[[O:[^:]*]]: memref<?x?x128xf16>, %[[OMAP:[^:]*]]: !tile.desc<tensor<64x128xf16>, rank = 3>, %[[LSE:[^:]*]]: memref<?x?xf32>, %[[CUQ:[^:]*]]: memref<?xi32>, %[[CUK:[^:]*]]: memref<?xi32>,
// CHECK-SAME: %[[B:[^:]*]]: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %[[TQ:[^:]*]]: i32, %[[TK:[^:]*]]: i32) kernel
// CHECK-SAME: fmha.grid = [{ceildiv = ["MAXQ", 128]}, 8, "B"]
// CHECK-SAME: {box = [64, 64], dims = [1, 0, 2], kind = "tensor_map", swizzle = 128 : i64, tensor = "q"}
// CHECK-SAME: {kind = "memref", tensor = "o"}, {box = [64, 64], dims = [1, 0, 2], kind = "tensor_map", swizzle = 128 : i64, tensor = "o"}, {kind = "memref", tensor = "lse"}, {kind = "memref", tensor = "cu_seqlens_q"}, {kind = "memref", tensor = "cu_seqlens_k"}
// CHECK-SAME: {dtype = "i32", kind = "scalar", value = "MAXQ"}, {dtype = "i32", kind = "scalar", value = "TQ"}, {dtype = "i32", kind = "scalar", value = "TK"}]
// CHECK-SAME: fmha.sizes = ["B", "MAXQ"]
// CHECK-SAME: cu_seqlens_q = {dtype = "i32", role = "input", shape = ["B1"]}
// CHECK-SAME: lse = {dtype = "f32", role = "output", shape = [8, "TQ"]}
// CHECK-SAME: q = {dtype = "f16", role = "input", shape = ["TQ", 8, 128]}
// CHECK: %[[HEAD:.*]] = tile.program_id y : i32
// CHECK: %[[SEQ:.*]] = tile.program_id z : i32
// The sequences that exist: at most batch, and as many as both cu_seqlens
// have entries for.
// CHECK: %[[NQ:.*]] = memref.dim %[[CUQ]], %{{.*}} : memref<?xi32>
// CHECK: %[[NK:.*]] = memref.dim %[[CUK]], %{{.*}} : memref<?xi32>
// CHECK: %[[SEQS:.*]] = arith.minsi %[[B]], %{{.*}} : i32
// The query rows cu_seqlens_q[seq] to cu_seqlens_q[seq + 1], the index and
// the bounds clamped into the tensors.
// CHECK: %[[I0:.*]] = arith.minsi %[[SEQ]], %{{.*}} : i32
// CHECK: %[[C0:.*]] = memref.load %[[CUQ]][%{{.*}}] : memref<?xi32>
// CHECK: %[[S0:.*]] = arith.minsi %[[C0]], %[[TQ]] : i32
// CHECK: %[[START:.*]] = arith.maxsi %[[S0]], %c0_i32 : i32
// CHECK: %[[C1:.*]] = memref.load %[[CUQ]][%{{.*}}] : memref<?xi32>
// CHECK: %[[E0:.*]] = arith.minsi %[[C1]], %[[TQ]] : i32
// CHECK: %[[END:.*]] = arith.maxsi %[[E0]], %[[START]] : i32
// CHECK: %[[LEN:.*]] = arith.subi %[[END]], %[[START]] : i32
// CHECK: memref.load %[[CUK]]
// CHECK: arith.minsi %{{.*}}, %[[TK]] : i32
// CHECK: memref.load %[[CUK]]
// A block past its sequence's end, or of no sequence, does nothing.
// CHECK: %[[EXISTS:.*]] = arith.cmpi slt, %[[SEQ]], %[[SEQS]] : i32
// CHECK: %[[ROWS:.*]] = arith.cmpi slt, %{{.*}}, %[[LEN]] : i32
// CHECK: %[[ANY:.*]] = arith.andi %[[EXISTS]], %[[ROWS]] : i1
// CHECK: scf.if %[[ANY]] {
// Q at the sequence's first row.
// CHECK: %[[ROW:.*]] = arith.addi %[[START]], %{{.*}} : i32
// CHECK: tile.load %[[Q]][%[[HEAD]], %[[ROW]], %{{.*}}] : !tile.desc<tensor<64x128xf16>, rank = 3>
// CHECK: tile.load %[[K]][%{{.*}}, %{{.*}}, %{{.*}}] : !tile.desc<tensor<128x128xf16>, rank = 3>
// O by TMA when the block ends inside its sequence, else into a view that
// ends where the sequence ends; lse into such a view.
// CHECK: %[[BEND:.*]] = arith.addi %{{.*}}, %c64_i32_{{[0-9]+}} : i32
// CHECK: %[[INSIDE:.*]] = arith.cmpi sle, %[[BEND]], %[[LEN]] : i32
// CHECK: scf.if %[[INSIDE]] {
// CHECK: %[[OROW:.*]] = arith.addi %[[START]], %{{.*}} : i32
// CHECK: tile.store %[[OMAP]][%[[HEAD]], %[[OROW]], %{{.*}}], %{{.*}} : !tile.desc<tensor<64x128xf16>, rank = 3>{{$}}
// CHECK: } else {
// CHECK: %[[OV:.*]] = memref.reinterpret_cast %[[O]] to offset: [%{{.*}}], sizes: [%{{.*}}, %{{.*}}, 128], strides: [128, %{{.*}}, 1] : memref<?x?x128xf16> to memref<?x?x128xf16, strided<[128, ?, 1], offset: ?>>
// CHECK: tile.store_direct %[[OV]][%[[HEAD]], %{{.*}}, %{{.*}}], %{{.*}} : memref<?x?x128xf16, strided<[128, ?, 1], offset: ?>>, tensor<64x128xf16>
// CHECK: }
// CHECK: %[[LV:.*]] = memref.reinterpret_cast %[[LSE]] to offset: [%{{.*}}], sizes: [%{{.*}}, %{{.*}}], strides: [%{{.*}}, 1] : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
// CHECK: tile.store_direct %[[LV]][%[[HEAD]], %{{.*}}], %{{.*}} : memref<?x?xf32, strided<[?, 1], offset: ?>>, tensor<64xf32>
fmha.attention @attn_varlen_pb (tensor<?x8x128xf16>, tensor<?x2x128xf16>,
                                tensor<?x2x128xf16>, tensor<?xi32>,
                                tensor<?xi32>)
    -> (tensor<?x8x128xf16>, tensor<8x?xf32>) varlen schedule per_block
    target sm_90a

// -----

// Persistent and causal: work items walk (sequence, head, pair of query
// blocks), the blocks counted from max_seqlen_q.
// CHECK-LABEL: gpu.func @attn_varlen_persistent(
// CHECK-SAME: fmha.grid = [{min = ["num_sms", {mul = [{ceildiv = ["MAXQ", 256]}, {mul = [32, "B"]}]}]}, 1, 1]
// CHECK-SAME: fmha.item_slots = 2
// CHECK: scf.for
// CHECK: memref.load
// CHECK: scf.if
// CHECK: tile.store %
// CHECK: tile.store_direct
fmha.attention @attn_varlen_persistent (tensor<?x32x64xbf16>,
                                        tensor<?x8x64xbf16>,
                                        tensor<?x8x64xbf16>, tensor<?xi32>,
                                        tensor<?xi32>)
    -> tensor<?x32x64xbf16> varlen causal target sm_90a
