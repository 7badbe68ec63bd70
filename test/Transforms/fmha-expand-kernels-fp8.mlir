// RUN: fmha-opt %s -split-input-file --fmha-expand-kernels | FileCheck %s
// RUN: fmha-opt %s -split-input-file --fmha-expand-kernels | FileCheck %s --check-prefix=LOOP

// FP8 attention with one descale per tensor: the descales are 1-d memrefs
// after o, loaded once per work item at index 0; descale_q * descale_k
// joins the softmax's factor (scale * log2(e)), descale_v the reciprocal
// of the row sum. In the main loop, P is converted to fp8 after the wait
// for the previous P V product (whose wgmma reads the registers the
// conversion writes), and carried to the next iteration.
// LOOP-LABEL: gpu.func @attn_fp8(
// LOOP: scf.for {{.*}} -> (tensor<64x128xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64x128xf8E4M3FN>)
// LOOP: tile.dot_wait %{{.*}} pending 1
// LOOP: tile.dot_wait %{{.*}} pending 0
// LOOP-NEXT: %[[P:.*]] = arith.truncf %{{.*}} : tensor<64x128xf32> to tensor<64x128xf8E4M3FN>
// LOOP: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %[[P]] :
// CHECK-LABEL: gpu.func @attn_fp8(
// CHECK-SAME: %[[DQ:[^:]*]]: memref<?xf32>, %[[DK:[^:]*]]: memref<?xf32>, %[[DV:[^:]*]]: memref<?xf32>, %{{[^:]*}}: i32,
// CHECK-SAME: descale_k = {dtype = "f32", role = "input", shape = [1]}, descale_q = {dtype = "f32", role = "input", shape = [1]}, descale_v = {dtype = "f32", role = "input", shape = [1]}
// CHECK: scf.for
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[K:.*]] = memref.load %[[DK]][%[[C0]]] : memref<?xf32>
// CHECK-DAG: %[[Q:.*]] = memref.load %[[DQ]][%[[C0]]] : memref<?xf32>
// CHECK: %[[QK:.*]] = arith.mulf %[[Q]], %[[K]] : f32
// CHECK: arith.mulf %{{.*}}, %[[QK]] : f32
// CHECK: %[[V:.*]] = memref.load %[[DV]][%[[C0]]] : memref<?xf32>
// CHECK: %[[INV:.*]] = arith.divf
// CHECK: %[[SV:.*]] = tensor.splat %[[V]] : tensor<64xf32>
// CHECK: arith.mulf %[[INV]], %[[SV]] : tensor<64xf32>
fmha.attention @attn_fp8 (tensor<?x32x?x128xf8E4M3FN>,
                          tensor<?x8x?x128xf8E4M3FN>,
                          tensor<?x8x128x?xf8E4M3FN>, tensor<1xf32>,
                          tensor<1xf32>, tensor<1xf32>)
    -> tensor<?x32x?x128xbf16> consumers 1 target sm_90a

// -----

// Descales per sequence and KV head ([batch, heads_kv], FlashAttention-3's
// convention): 2-d memrefs, declared [B, HKV]; each work item loads those
// of its sequence and of its query head's KV head (head / (heads_q /
// heads_kv)), inside the loop over work items.
// CHECK-LABEL: gpu.func @attn_fp8_heads(
// CHECK-SAME: %[[DQ:[^:]*]]: memref<?x?xf32>, %[[DK:[^:]*]]: memref<?x?xf32>, %[[DV:[^:]*]]: memref<?x?xf32>, %{{[^:]*}}: i32, %[[HQ:[^:]*]]: i32, %[[HKV:[^:]*]]: i32,
// CHECK-SAME: descale_k = {dtype = "f32", role = "input", shape = ["B", "HKV"]}, descale_q = {dtype = "f32", role = "input", shape = ["B", "HKV"]}, descale_v = {dtype = "f32", role = "input", shape = ["B", "HKV"]}
// CHECK: scf.for
// CHECK: %[[HEAD:.*]] = arith.remui %{{.*}}, %[[HQ]] : i32
// CHECK: %[[SEQ:.*]] = arith.divui %{{.*}}, %[[HQ]] : i32
// CHECK: %[[GROUP:.*]] = arith.divui %[[HQ]], %[[HKV]] : i32
// CHECK: %[[KVHEAD:.*]] = arith.divui %[[HEAD]], %[[GROUP]] : i32
// CHECK: %[[B:.*]] = arith.index_cast %[[SEQ]] : i32 to index
// CHECK: %[[H:.*]] = arith.index_cast %[[KVHEAD]] : i32 to index
// CHECK-DAG: %[[K:.*]] = memref.load %[[DK]][%[[B]], %[[H]]] : memref<?x?xf32>
// CHECK-DAG: %[[Q:.*]] = memref.load %[[DQ]][%[[B]], %[[H]]] : memref<?x?xf32>
// CHECK: arith.mulf %[[Q]], %[[K]] : f32
// CHECK: memref.load %[[DV]][%[[B]], %[[H]]] : memref<?x?xf32>
fmha.attention @attn_fp8_heads (tensor<?x?x?x128xf8E4M3FN>,
                                tensor<?x?x?x128xf8E4M3FN>,
                                tensor<?x?x128x?xf8E4M3FN>, tensor<?x?xf32>,
                                tensor<?x?xf32>, tensor<?x?xf32>)
    -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) causal consumers 1
    target sm_90a

// -----

// block_n 96: V^T's rows of 96 bytes fill only 32-byte swizzle spans, so
// its tensor map loads boxes of 32 keys with a 32-byte swizzle, the layout
// tile-assign-layouts gives the tile (a 96-key box would not match it).
// CHECK-LABEL: gpu.func @attn_fp8_keys96(
// CHECK-SAME: fmha.params = [{box = [64, 128], kind = "tensor_map", swizzle = 128 : i64, tensor = "q"}, {box = [96, 128], kind = "tensor_map", swizzle = 128 : i64, tensor = "k"}, {box = [128, 32], kind = "tensor_map", swizzle = 32 : i64, tensor = "v"}
fmha.attention @attn_fp8_keys96 (tensor<?x?x?x128xf8E4M3FN>,
                                 tensor<?x?x?x128xf8E4M3FN>,
                                 tensor<?x?x128x?xf8E4M3FN>, tensor<1xf32>,
                                 tensor<1xf32>, tensor<1xf32>)
    -> tensor<?x?x?x128xbf16> tile [64, 96] target sm_90a
