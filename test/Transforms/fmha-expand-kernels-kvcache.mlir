// RUN: fmha-opt %s -split-input-file --fmha-expand-kernels | FileCheck %s

// A paged KV cache, one CTA per query block: Q, K, V and O are rank-4
// descriptors over the [blocks, heads, rows, head_dim] views of the
// [blocks, rows, heads, head_dim] tensors (dims [0, 2, 1, 3]), lse, the
// cache lengths and the block table memrefs, then batch, heads_q, heads_kv,
// seq_q and the page size. block_n is the page size (64) and the grid is
// the dense one.
// CHECK-LABEL: gpu.func @attn_paged_pb(
// CHECK-SAME: %[[Q:[^:]*]]: !tile.desc<tensor<64x128xbf16>, rank = 4>, %[[K:[^:]*]]: !tile.desc<tensor<64x128xbf16>, rank = 4>, %{{[^:]*}}: !tile.desc<tensor<64x128xbf16>, rank = 4>, %{{[^:]*}}: !tile.desc<tensor<64x128xbf16>, rank = 4>,
// CHECK-SAME: %{{[^:]*}}: memref<?x?x?xf32>, %[[LENS:[^:]*]]: memref<?xi32>, %[[TABLE:[^:]*]]: memref<?x?xi32>,
// CHECK-SAME: %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %[[SQ:[^:]*]]: i32, %[[PS:[^:]*]]: i32) kernel
// CHECK-SAME: fmha.grid = [{ceildiv = ["SQ", 128]}, 32, "B"]
// CHECK-SAME: {box = [64, 64], dims = [0, 2, 1, 3], kind = "tensor_map", swizzle = 128 : i64, tensor = "k"}
// CHECK-SAME: {box = [64, 64], dims = [0, 2, 1, 3], kind = "tensor_map", swizzle = 128 : i64, tensor = "o"}
// CHECK-SAME: {kind = "memref", tensor = "lse"}, {kind = "memref", tensor = "cache_seqlens"}, {kind = "memref", tensor = "block_table"}
// CHECK-SAME: {dtype = "i32", kind = "scalar", value = "SQ"}, {dtype = "i32", kind = "scalar", value = 64 : i64}]
// CHECK-SAME: block_table = {dtype = "i32", role = "input", shape = ["B", "MP"]}
// CHECK-SAME: k = {dtype = "bf16", role = "input", shape = ["NP", 64, 8, 128]}
// CHECK-SAME: lse = {dtype = "f32", role = "output", shape = ["B", 32, "SQ"]}
// CHECK-SAME: q = {dtype = "bf16", role = "input", shape = ["B", "SQ", 32, 128]}
// CHECK: %[[HEAD:.*]] = tile.program_id y : i32
// CHECK: %[[SEQ:.*]] = tile.program_id z : i32
// The cache length: cache_seqlens[seq] clamped to [0, max_pages * page_size].
// CHECK: %[[PAGES:.*]] = memref.dim %[[TABLE]], %{{.*}} : memref<?x?xi32>
// CHECK: %[[PAGESI:.*]] = arith.index_cast %[[PAGES]] : index to i32
// CHECK: %[[CAP:.*]] = arith.muli %[[PAGESI]], %[[PS]] : i32
// CHECK: %[[LEN:.*]] = memref.load %[[LENS]][%{{.*}}] : memref<?xi32>
// CHECK: %[[LENC:.*]] = arith.minsi %[[LEN]], %[[CAP]] : i32
// CHECK: %[[SEQK:.*]] = arith.maxsi %[[LENC]], %{{.*}} : i32
// Q by the dense coordinates of the view.
// CHECK: tile.load %[[Q]][%[[SEQ]], %[[HEAD]], %{{.*}}, %{{.*}}]
// The first K tile: row n0 % 64 of page block_table[seq][n0 / 64], both
// indices clamped to the table; a tile reaching past the length moves back
// to end at it, inside its page (rows before the page's first, a negative
// offset, read as zeros).
// CHECK: %[[PAST:.*]] = arith.cmpi sgt, %{{.*}}, %[[SEQK]] : i32
// CHECK: %[[BACK:.*]] = arith.subi %[[SEQK]], %c64_i32{{.*}} : i32
// CHECK: %[[START:.*]] = arith.select %[[PAST]], %[[BACK]], %[[N0:.*]] : i32
// CHECK: %[[MOVE:.*]] = arith.subi %[[START]], %[[N0]] : i32
// CHECK: %[[IN:.*]] = arith.remsi %[[N0]], %c64_i32{{.*}} : i32
// CHECK: %[[OFF:.*]] = arith.addi %[[IN]], %[[MOVE]] : i32
// CHECK: %[[SLOT:.*]] = arith.divsi %[[N0]], %c64_i32{{.*}} : i32
// CHECK: %[[ROWS:.*]] = memref.dim %[[TABLE]], %{{.*}} : memref<?x?xi32>
// CHECK: arith.minsi
// CHECK: %[[PAGE:.*]] = memref.load %[[TABLE]][%{{.*}}, %{{.*}}] : memref<?x?xi32>
// CHECK: tile.load %[[K]][%[[PAGE]], %{{.*}}, %[[OFF]], %{{.*}}]
// Masks align the queries to the end of the cache: seq_k - seq_q.
// CHECK: arith.subi %[[SEQK]], %[[SQ]] : i32
// A row that sees no key stores 0, whatever the cache holds past its end:
// its factor is 0, and the output is chosen by the broadcast factor.
// CHECK: %[[HAS:.*]] = arith.cmpf ogt, %{{.*}} : tensor<64xf32>
// CHECK: arith.divf
// CHECK: %[[INV:.*]] = arith.select %[[HAS]], %{{.*}} : tensor<64xi1>, tensor<64xf32>
// CHECK: %[[F:.*]] = tile.broadcast %[[INV]] axis 1 : tensor<64xf32> -> tensor<64x128xf32>
// CHECK: %[[SCALED:.*]] = arith.mulf %{{.*}}, %[[F]] : tensor<64x128xf32>
// CHECK: %[[NONE:.*]] = arith.cmpf oeq, %[[F]], %{{.*}} : tensor<64x128xf32>
// CHECK: %[[OUT:.*]] = arith.select %[[NONE]], %{{.*}}, %[[SCALED]] : tensor<64x128xi1>, tensor<64x128xf32>
// CHECK: %[[LOW:.*]] = arith.truncf %[[OUT]]
// CHECK: tile.store %{{.*}}, %[[LOW]]
fmha.attention @attn_paged_pb (tensor<?x?x32x128xbf16>,
                               tensor<?x64x8x128xbf16>,
                               tensor<?x64x8x128xbf16>, tensor<?xi32>,
                               tensor<?x?xi32>)
    -> (tensor<?x?x32x128xbf16>, tensor<?x32x?xf32>) kvcache causal
    schedule per_block target sm_90a

// -----

// A dense cache, persistent: K and V by the dense coordinates of the
// [batch, heads_kv, max_len, head_dim] view, the cache length clamped to
// max_len (the last scalar). block_n keeps its default (128). A tile that
// reaches past the length starts 128 rows before it instead (no row past
// a length, which may hold NaN, reaches P V; a negative start reads
// zeros), and its mask hides the keys before n0 that it repeats.
// CHECK-LABEL: gpu.func @attn_kvcache_dense(
// CHECK-SAME: %{{[^:]*}}: !tile.desc<tensor<64x64xf16>, rank = 4>, %[[K:[^:]*]]: !tile.desc<tensor<128x64xf16>, rank = 4>,
// CHECK-SAME: %[[LENS:[^:]*]]: memref<?xi32>,
// CHECK-SAME: %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %[[MAXLEN:[^:]*]]: i32) kernel
// CHECK-SAME: fmha.grid = [{min = ["num_sms", {mul = [{ceildiv = ["SQ", 128]}, {mul = [8, "B"]}]}]}, 1, 1]
// CHECK-SAME: k = {dtype = "f16", role = "input", shape = ["B", "SK", 1, 64]}
// CHECK-NOT: block_table
// CHECK: scf.for
// CHECK: %[[LEN:.*]] = memref.load %[[LENS]][%{{.*}}] : memref<?xi32>
// CHECK: %[[LENC:.*]] = arith.minsi %[[LEN]], %[[MAXLEN]] : i32
// CHECK: %[[SEQK:.*]] = arith.maxsi %[[LENC]], %{{.*}} : i32
// CHECK: %[[END:.*]] = arith.addi %[[N0:.*]], %c128_i32{{.*}} : i32
// CHECK: %[[PAST:.*]] = arith.cmpi sgt, %[[END]], %[[SEQK]] : i32
// CHECK: %[[BACK:.*]] = arith.subi %[[SEQK]], %c128_i32{{.*}} : i32
// CHECK: %[[START:.*]] = arith.select %[[PAST]], %[[BACK]], %[[N0]] : i32
// CHECK: tile.load %[[K]][%[[B:.*]], %{{.*}}, %[[START]], %{{.*}}]
// CHECK: scf.if
// CHECK: arith.cmpi slt
// CHECK: %[[REPEATS:.*]] = arith.cmpi sge, %{{.*}}, %{{.*}} : tensor<64x128xi32>
// CHECK: arith.andi %{{.*}}, %[[REPEATS]] : tensor<64x128xi1>
fmha.attention @attn_kvcache_dense (tensor<?x?x8x64xf16>, tensor<?x?x1x64xf16>,
                                    tensor<?x?x1x64xf16>, tensor<?xi32>)
    -> tensor<?x?x8x64xf16> kvcache target sm_90a

// -----

// Causal decode, persistent: no pairs of query blocks (the cache's keys,
// visible to every query, dominate; one query block would be computed
// twice): a work item is one query block of 128 rows.
// CHECK-LABEL: gpu.func @attn_decode_persistent(
// CHECK-SAME: fmha.grid = [{min = ["num_sms", {mul = [{ceildiv = ["SQ", 128]}, {mul = [32, "B"]}]}]}, 1, 1]
// CHECK: %[[PID:.*]] = tile.program_id x : i32
// CHECK: %[[N:.*]] = tile.num_programs x : i32
// CHECK: scf.for %{{.*}} = %[[PID]] to %{{.*}} step %[[N]]
fmha.attention @attn_decode_persistent (tensor<?x?x32x128xbf16>,
                                        tensor<?x64x8x128xbf16>,
                                        tensor<?x64x8x128xbf16>,
                                        tensor<?xi32>, tensor<?x?xi32>)
    -> tensor<?x?x32x128xbf16> kvcache causal target sm_90a
