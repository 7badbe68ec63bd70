// RUN: fmha-opt %s | fmha-opt | FileCheck %s
// RUN: fmha-opt %s -mlir-print-op-generic | fmha-opt | FileCheck %s
// RUN: fmha-opt %s -emit-bytecode | fmha-opt | FileCheck %s
// RUN: fmha-opt %s -mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Round trips of fmha.attention and fmha.gemm through the custom, generic and
// bytecode forms, covering every signature shape and configuration field.

//===----------------------------------------------------------------------===//
// fmha.attention
//===----------------------------------------------------------------------===//

// Every configuration field: GQA (32 query heads on 8 KV heads), causal
// sliding window, explicit scale, tile, stages and consumers, with the LSE.
// CHECK: fmha.attention @attn_full (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>) -> (tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>) causal window [256, 0] scale 8.838830e-02 tile [64, 128] stages 2 consumers 2 target sm_90a
// GENERIC: "fmha.attention"() <{causal, consumers = 2 : i64, function_type = (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>) -> (tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>), scale = 8.838830e-02 : f64, stages = 2 : i64, sym_name = "attn_full", target = #fmha<target sm_90a>, tile = array<i64: 64, 128>, window = array<i64: 256, 0>}> : () -> ()
fmha.attention @attn_full (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                           tensor<?x8x?x128xbf16>)
    -> (tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>)
    causal window [256, 0] scale 0.0883883 tile [64, 128] stages 2
    consumers 2 target sm_90a

// Variable-length sequences, packed: GQA, causal, with the LSE
// ([heads_q, total_q]).
// CHECK: fmha.attention @attn_varlen (tensor<?x32x128xbf16>, tensor<?x8x128xbf16>, tensor<?x8x128xbf16>, tensor<?xi32>, tensor<?xi32>) -> (tensor<?x32x128xbf16>, tensor<32x?xf32>) varlen causal target sm_90a
// GENERIC: "fmha.attention"() <{causal, function_type = (tensor<?x32x128xbf16>, tensor<?x8x128xbf16>, tensor<?x8x128xbf16>, tensor<?xi32>, tensor<?xi32>) -> (tensor<?x32x128xbf16>, tensor<32x?xf32>), sym_name = "attn_varlen", target = #fmha<target sm_90a>, varlen}> : () -> ()
fmha.attention @attn_varlen (tensor<?x32x128xbf16>, tensor<?x8x128xbf16>,
                             tensor<?x8x128xbf16>, tensor<?xi32>,
                             tensor<?xi32>)
    -> (tensor<?x32x128xbf16>, tensor<32x?xf32>) varlen causal target sm_90a

// Varlen with static sizes (4 sequences, 1000 tokens), MQA, a window, f16,
// one CTA per query block.
// CHECK: fmha.attention @attn_varlen_static (tensor<1000x16x64xf16>, tensor<1200x1x64xf16>, tensor<1200x1x64xf16>, tensor<5xi32>, tensor<5xi32>) -> tensor<1000x16x64xf16> varlen window [128, 0] schedule per_block target sm_90a
fmha.attention @attn_varlen_static (tensor<1000x16x64xf16>,
                                    tensor<1200x1x64xf16>,
                                    tensor<1200x1x64xf16>, tensor<5xi32>,
                                    tensor<5xi32>)
    -> tensor<1000x16x64xf16> varlen window [128, 0] schedule per_block
    target sm_90a

// A paged KV cache (pages of 64 rows, the block table) with the
// log-sum-exp: decode against it, causal.
// CHECK: fmha.attention @attn_paged (tensor<?x1x32x128xbf16>, tensor<?x64x8x128xbf16>, tensor<?x64x8x128xbf16>, tensor<?xi32>, tensor<?x?xi32>) -> (tensor<?x1x32x128xbf16>, tensor<?x32x1xf32>) kvcache causal target sm_90a
// GENERIC: "fmha.attention"() <{causal, function_type = (tensor<?x1x32x128xbf16>, tensor<?x64x8x128xbf16>, tensor<?x64x8x128xbf16>, tensor<?xi32>, tensor<?x?xi32>) -> (tensor<?x1x32x128xbf16>, tensor<?x32x1xf32>), kvcache, sym_name = "attn_paged", target = #fmha<target sm_90a>}> : () -> ()
fmha.attention @attn_paged (tensor<?x1x32x128xbf16>, tensor<?x64x8x128xbf16>,
                            tensor<?x64x8x128xbf16>, tensor<?xi32>,
                            tensor<?x?xi32>)
    -> (tensor<?x1x32x128xbf16>, tensor<?x32x1xf32>) kvcache causal
    target sm_90a

// A dense KV cache ([batch, max_len, heads_kv, head_dim]), MQA, f16.
// CHECK: fmha.attention @attn_kvcache_dense (tensor<4x16x8x64xf16>, tensor<4x4096x1x64xf16>, tensor<4x4096x1x64xf16>, tensor<4xi32>) -> tensor<4x16x8x64xf16> kvcache target sm_90a
fmha.attention @attn_kvcache_dense (tensor<4x16x8x64xf16>,
                                    tensor<4x4096x1x64xf16>,
                                    tensor<4x4096x1x64xf16>, tensor<4xi32>)
    -> tensor<4x16x8x64xf16> kvcache target sm_90a

// Explicit schedules: persistent, and one CTA per query block.
// CHECK: fmha.attention @attn_persistent (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>) -> tensor<?x?x?x64xbf16> causal schedule persistent target sm_90a
// GENERIC: "fmha.attention"() <{causal, function_type = (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>) -> tensor<?x?x?x64xbf16>, schedule = #fmha<schedule persistent>, sym_name = "attn_persistent", target = #fmha<target sm_90a>}> : () -> ()
fmha.attention @attn_persistent (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>,
                                 tensor<?x?x?x64xbf16>)
    -> tensor<?x?x?x64xbf16> causal schedule persistent target sm_90a

// CHECK: fmha.attention @attn_per_block ({{.*}}) -> tensor<?x?x?x64xbf16> schedule per_block target sm_90a
// GENERIC: schedule = #fmha<schedule per_block>, sym_name = "attn_per_block"
fmha.attention @attn_per_block (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>,
                                tensor<?x?x?x64xbf16>)
    -> tensor<?x?x?x64xbf16> schedule per_block target sm_90a

// All defaults omitted, on Blackwell.
// CHECK: fmha.attention @attn_defaults (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>) -> tensor<?x32x?x128xbf16> target sm_100a
// GENERIC: "fmha.attention"() <{function_type = (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>) -> tensor<?x32x?x128xbf16>, sym_name = "attn_defaults", target = #fmha<target sm_100a>}> : () -> ()
fmha.attention @attn_defaults (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                               tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16> target sm_100a

// Multi-query attention (one KV head), static sizes, f16, head dim 64, a
// two-sided sliding window without causal, one consumer with 128-row tiles.
// CHECK: fmha.attention @attn_mqa (tensor<4x16x1024x64xf16>, tensor<4x1x1024x64xf16>, tensor<4x1x1024x64xf16>) -> tensor<4x16x1024x64xf16> window [128, 128] tile [128, 48] stages 3 consumers 1 target sm_90a
fmha.attention @attn_mqa (tensor<4x16x1024x64xf16>, tensor<4x1x1024x64xf16>,
                          tensor<4x1x1024x64xf16>) -> tensor<4x16x1024x64xf16>
    window [128, 128] tile [128, 48] stages 3 consumers 1 target sm_90a

// Multi-head attention (heads_q = heads_kv), cross-attention (seq_q != seq_k),
// dynamic heads, head dim 256, causal only, with the LSE.
// CHECK: fmha.attention @attn_hd256 (tensor<2x?x512x256xbf16>, tensor<2x?x2048x256xbf16>, tensor<2x?x2048x256xbf16>) -> (tensor<2x?x512x256xbf16>, tensor<2x?x512xf32>) causal target sm_90a
fmha.attention @attn_hd256 (tensor<2x?x512x256xbf16>, tensor<2x?x2048x256xbf16>,
                            tensor<2x?x2048x256xbf16>)
    -> (tensor<2x?x512x256xbf16>, tensor<2x?x512xf32>) causal target sm_90a

// Head dim 256 on Blackwell with the defaults (one consumer), and sizes that
// are static in one tensor and dynamic in another.
// CHECK: fmha.attention @attn_hd256_sm100 (tensor<?x8x?x256xf16>, tensor<8x8x?x256xf16>, tensor<?x8x?x256xf16>) -> tensor<?x8x?x256xf16> target sm_100a
fmha.attention @attn_hd256_sm100 (tensor<?x8x?x256xf16>, tensor<8x8x?x256xf16>,
                                  tensor<?x8x?x256xf16>)
    -> tensor<?x8x?x256xf16> target sm_100a

// Exactly at the limits on Blackwell: 512 tensor memory columns
// (2 x (128 + 128)); a scale and tile without a mask.
// CHECK: fmha.attention @attn_tmem_full (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>) -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) scale 1.250000e-01 tile [128, 128] consumers 2 target sm_100a
fmha.attention @attn_tmem_full (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>,
                                tensor<?x?x?x128xbf16>)
    -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>)
    scale 0.125 tile [128, 128] consumers 2 target sm_100a

// A window alone (left only) and a private symbol.
// CHECK: fmha.attention @attn_private (tensor<?x32x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>) -> tensor<?x32x?x64xbf16> window [1024, 0] target sm_90a {sym_visibility = "private"}
fmha.attention @attn_private (tensor<?x32x?x64xbf16>, tensor<?x4x?x64xbf16>,
                              tensor<?x4x?x64xbf16>) -> tensor<?x32x?x64xbf16>
    window [1024, 0] target sm_90a {sym_visibility = "private"}

// FP8: e4m3 q, k, v (v transposed) with descales per tensor, and per
// sequence and KV head.
// CHECK: fmha.attention @attn_fp8 (tensor<?x32x?x128xf8E4M3FN>, tensor<?x8x?x128xf8E4M3FN>, tensor<?x8x128x?xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x32x?x128xbf16> causal target sm_90a
fmha.attention @attn_fp8 (tensor<?x32x?x128xf8E4M3FN>,
                          tensor<?x8x?x128xf8E4M3FN>,
                          tensor<?x8x128x?xf8E4M3FN>, tensor<1xf32>,
                          tensor<1xf32>, tensor<1xf32>)
    -> tensor<?x32x?x128xbf16> causal target sm_90a
// CHECK: fmha.attention @attn_fp8_heads (tensor<?x32x?x128xf8E4M3FN>, tensor<?x8x?x128xf8E4M3FN>, tensor<?x8x128x?xf8E4M3FN>, tensor<?x8xf32>, tensor<?x8xf32>, tensor<?x8xf32>) -> (tensor<?x32x?x128xf16>, tensor<?x32x?xf32>) target sm_90a
fmha.attention @attn_fp8_heads (tensor<?x32x?x128xf8E4M3FN>,
                                tensor<?x8x?x128xf8E4M3FN>,
                                tensor<?x8x128x?xf8E4M3FN>, tensor<?x8xf32>,
                                tensor<?x8xf32>, tensor<?x8xf32>)
    -> (tensor<?x32x?x128xf16>, tensor<?x32x?xf32>) target sm_90a

//===----------------------------------------------------------------------===//
// fmha.gemm
//===----------------------------------------------------------------------===//

// Every configuration field, with B given as [N, K].
// CHECK: fmha.gemm @gemm_full (tensor<?x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<?x4096xbf16> transpose_b tile [128, 128, 64] stages 3 consumers 2 target sm_90a
// GENERIC: "fmha.gemm"() <{consumers = 2 : i64, function_type = (tensor<?x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<?x4096xbf16>, stages = 3 : i64, sym_name = "gemm_full", target = #fmha<target sm_90a>, tile = array<i64: 128, 128, 64>, transpose_b}> : () -> ()
fmha.gemm @gemm_full (tensor<?x4096xbf16>, tensor<4096x4096xbf16>)
    -> tensor<?x4096xbf16> transpose_b tile [128, 128, 64] stages 3
    consumers 2 target sm_90a

// Swapped operands (C^T = B A^T) for a few rows of A.
// CHECK: fmha.gemm @gemm_swap (tensor<?x4096xbf16>, tensor<?x4096xbf16>) -> tensor<?x?xbf16> transpose_b swap_ab tile [8, 64, 64] stages 16 consumers 1 target sm_90a
// GENERIC: "fmha.gemm"() <{consumers = 1 : i64, function_type = (tensor<?x4096xbf16>, tensor<?x4096xbf16>) -> tensor<?x?xbf16>, stages = 16 : i64, swap_ab, sym_name = "gemm_swap", target = #fmha<target sm_90a>, tile = array<i64: 8, 64, 64>, transpose_b}> : () -> ()
fmha.gemm @gemm_swap (tensor<?x4096xbf16>, tensor<?x4096xbf16>)
    -> tensor<?x?xbf16> transpose_b swap_ab tile [8, 64, 64] stages 16
    consumers 1 target sm_90a

// fp8 with scales: e4m3 x e5m2, one scale per tensor for A, one per column
// for B.
// CHECK: fmha.gemm @gemm_fp8 (tensor<?x4096xf8E4M3FN>, tensor<?x4096xf8E5M2>, tensor<1xf32>, tensor<?xf32>) -> tensor<?x?xf16> transpose_b tile [128, 128, 128] target sm_90a
fmha.gemm @gemm_fp8 (tensor<?x4096xf8E4M3FN>, tensor<?x4096xf8E5M2>,
    tensor<1xf32>, tensor<?xf32>) -> tensor<?x?xf16> transpose_b
    tile [128, 128, 128] target sm_90a

// fp8 with accumulate promotion every 4 K steps.
// CHECK: fmha.gemm @gemm_fp8_promote (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x?xbf16> transpose_b tile [64, 128, 128] promote_every 4 target sm_90a
// GENERIC: "fmha.gemm"() <{function_type = (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x?xbf16>, promote_every = 4 : i64, sym_name = "gemm_fp8_promote", target = #fmha<target sm_90a>, tile = array<i64: 64, 128, 128>, transpose_b}> : () -> ()
fmha.gemm @gemm_fp8_promote (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>,
    tensor<1xf32>, tensor<1xf32>) -> tensor<?x?xbf16> transpose_b
    tile [64, 128, 128] promote_every 4 target sm_90a

// The ping-pong schedule, and the cooperative one spelled out.
// CHECK: fmha.gemm @gemm_pingpong (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16> transpose_b tile [128, 128, 64] stages 2 consumers 2 schedule pingpong target sm_90a
// GENERIC: "fmha.gemm"() <{consumers = 2 : i64, function_type = (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>, schedule = #fmha<gemm_schedule pingpong>, stages = 2 : i64, sym_name = "gemm_pingpong", target = #fmha<target sm_90a>, tile = array<i64: 128, 128, 64>, transpose_b}> : () -> ()
fmha.gemm @gemm_pingpong (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16> transpose_b tile [128, 128, 64] stages 2 consumers 2
    schedule pingpong target sm_90a
// Split-K: each CTA tile in two K ranges.
// CHECK: fmha.gemm @gemm_splitk (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16> transpose_b tile [64, 128, 64] stages 6 splits 2 target sm_90a
// GENERIC: "fmha.gemm"() <{function_type = (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>, splits = 2 : i64, stages = 6 : i64, sym_name = "gemm_splitk", target = #fmha<target sm_90a>, tile = array<i64: 64, 128, 64>, transpose_b}> : () -> ()
fmha.gemm @gemm_splitk (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16> transpose_b tile [64, 128, 64] stages 6 splits 2
    target sm_90a
// CHECK: fmha.gemm @gemm_cooperative (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16> schedule cooperative target sm_90a
fmha.gemm @gemm_cooperative (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16> schedule cooperative target sm_90a

// All defaults omitted, fully dynamic.
// CHECK: fmha.gemm @gemm_defaults (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16> target sm_90a
fmha.gemm @gemm_defaults (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    target sm_90a

// f16 inputs with an f32 result, B as [K, N], static sizes, on Blackwell.
// CHECK: fmha.gemm @gemm_f32 (tensor<512x1024xf16>, tensor<1024x256xf16>) -> tensor<512x256xf32> target sm_100a
fmha.gemm @gemm_f32 (tensor<512x1024xf16>, tensor<1024x256xf16>)
    -> tensor<512x256xf32> target sm_100a

// One consumer with a wide 64x256 tile and 4 stages; an odd M is fine (only
// row lengths matter to TMA).
// CHECK: fmha.gemm @gemm_wide (tensor<1001x?xbf16>, tensor<?x8192xbf16>) -> tensor<1001x8192xbf16> tile [64, 256, 64] stages 4 consumers 1 target sm_90a
fmha.gemm @gemm_wide (tensor<1001x?xbf16>, tensor<?x8192xbf16>)
    -> tensor<1001x8192xbf16> tile [64, 256, 64] stages 4 consumers 1
    target sm_90a

// Exactly 224 accumulator registers (128x224), a 32-byte K step, and f16
// output from an [N, K] B.
// CHECK: fmha.gemm @gemm_regs_full (tensor<?x?xf16>, tensor<?x?xf16>) -> tensor<?x?xf16> transpose_b tile [128, 224, 16] stages 8 consumers 1 target sm_90a
fmha.gemm @gemm_regs_full (tensor<?x?xf16>, tensor<?x?xf16>) -> tensor<?x?xf16>
    transpose_b tile [128, 224, 16] stages 8 consumers 1 target sm_90a

// Blackwell with 512 tensor memory columns (2 x 2 x 128) and a 64-byte K
// step.
// CHECK: fmha.gemm @gemm_sm100 (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xf32> transpose_b tile [128, 128, 32] stages 4 consumers 2 target sm_100a
fmha.gemm @gemm_sm100 (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xf32>
    transpose_b tile [128, 128, 32] stages 4 consumers 2 target sm_100a

// The register limit is sm_90a's: on Blackwell a 128x256 accumulator lives in
// tensor memory (1 x 2 x 256 = 512 columns).
// CHECK: fmha.gemm @gemm_sm100_wide (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16> tile [128, 256, 64] consumers 1 target sm_100a
fmha.gemm @gemm_sm100_wide (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16> tile [128, 256, 64] consumers 1 target sm_100a

// 2-CTA mode: a cluster of two CTAs issues M = 256 MMAs; each CTA holds
// half of B's 256 rows, so four stages fit.
// CHECK: fmha.gemm @gemm_sm100_2cta (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16> transpose_b tile [128, 256, 64] stages 4 consumers 1 ctas 2 target sm_100a
fmha.gemm @gemm_sm100_2cta (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16> transpose_b tile [128, 256, 64] stages 4 consumers 1
    ctas 2 target sm_100a

// TMA multicast: a cluster of two CTAs shares each B tile.
// CHECK: fmha.gemm @gemm_sm100_multicast (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16> transpose_b tile [128, 128, 64] stages 3 consumers 2 multicast 2 target sm_100a
fmha.gemm @gemm_sm100_multicast (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16> transpose_b tile [128, 128, 64] stages 3 consumers 2
    multicast 2 target sm_100a

//===----------------------------------------------------------------------===//
// fmha.merge_states
//===----------------------------------------------------------------------===//

// Stacked states of bf16 attention with head dim 128, every size dynamic.
// CHECK: fmha.merge_states @merge (tensor<?x?x?x?x128xbf16>, tensor<?x?x?x?xf32>) -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) target sm_90a
// GENERIC: "fmha.merge_states"() <{function_type = (tensor<?x?x?x?x128xbf16>, tensor<?x?x?x?xf32>) -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>), sym_name = "merge", target = #fmha<target sm_90a>}> : () -> ()
fmha.merge_states @merge (tensor<?x?x?x?x128xbf16>, tensor<?x?x?x?xf32>)
    -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) target sm_90a

// Static sizes (two states, 8 heads), f16 with head dim 24, on sm_100a.
// CHECK: fmha.merge_states @merge_static (tensor<2x?x?x8x24xf16>, tensor<2x?x8x?xf32>) -> (tensor<?x?x8x24xf16>, tensor<?x8x?xf32>) target sm_100a
fmha.merge_states @merge_static (tensor<2x?x?x8x24xf16>, tensor<2x?x8x?xf32>)
    -> (tensor<?x?x8x24xf16>, tensor<?x8x?xf32>) target sm_100a

//===----------------------------------------------------------------------===//
// fmha.append_kv
//===----------------------------------------------------------------------===//

// A dense bf16 cache, head dim 128, 8 KV heads.
// CHECK: fmha.append_kv @append (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?xi32>) -> (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>) target sm_90a
// GENERIC: "fmha.append_kv"() <{function_type = (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>, tensor<?xi32>) -> (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>), sym_name = "append", target = #fmha<target sm_90a>}> : () -> ()
fmha.append_kv @append (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>,
                        tensor<?xi32>)
    -> (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>) target sm_90a

// A paged f16 cache (pages of 64 rows), head dim 64, on sm_100a.
// CHECK: fmha.append_kv @append_paged (tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?xi32>, tensor<?x?xi32>) -> (tensor<?x64x?x64xf16>, tensor<?x64x?x64xf16>) target sm_100a
fmha.append_kv @append_paged (tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>,
                              tensor<?xi32>, tensor<?x?xi32>)
    -> (tensor<?x64x?x64xf16>, tensor<?x64x?x64xf16>) target sm_100a

//===----------------------------------------------------------------------===//
// fmha.transpose_values
//===----------------------------------------------------------------------===//

// fp8 V of head dim 128 with 8 KV heads, seq_k and keys dynamic.
// CHECK: fmha.transpose_values @transpose (tensor<?x8x?x128xf8E4M3FN>) -> tensor<?x8x128x?xf8E4M3FN> target sm_90a
// GENERIC: "fmha.transpose_values"() <{function_type = (tensor<?x8x?x128xf8E4M3FN>) -> tensor<?x8x128x?xf8E4M3FN>, sym_name = "transpose", target = #fmha<target sm_90a>}> : () -> ()
fmha.transpose_values @transpose (tensor<?x8x?x128xf8E4M3FN>)
    -> tensor<?x8x128x?xf8E4M3FN> target sm_90a

// Static sizes (100 keys padded to 112), f8E5M2 with head dim 48, on
// sm_100a; the result in parentheses parses too.
// CHECK: fmha.transpose_values @transpose_static (tensor<2x4x100x48xf8E5M2>) -> tensor<2x4x48x112xf8E5M2> target sm_100a
fmha.transpose_values @transpose_static (tensor<2x4x100x48xf8E5M2>)
    -> (tensor<2x4x48x112xf8E5M2>) target sm_100a
