// RUN: fmha-opt %s | fmha-opt | FileCheck %s
// RUN: fmha-opt %s -mlir-print-op-generic | fmha-opt | FileCheck %s
// RUN: fmha-opt %s -emit-bytecode | fmha-opt | FileCheck %s
// RUN: fmha-opt %s -mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Round trips of fmha.attention_backward through the custom, generic and
// bytecode forms, with every configuration field and with none.

// GQA (32 query heads on 8 KV heads), a causal sliding window, an explicit
// scale and tile.
// CHECK: fmha.attention_backward @bwd_full (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x32x?x128xbf16>, tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>) -> (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>) causal window [256, 0] scale 8.838830e-02 tile [64, 128] target sm_90a
// GENERIC: "fmha.attention_backward"() <{causal, function_type = {{.+}}, scale = 8.838830e-02 : f64, sym_name = "bwd_full", target = #fmha<target sm_90a>, tile = array<i64: 64, 128>, window = array<i64: 256, 0>}> : () -> ()
fmha.attention_backward @bwd_full (tensor<?x32x?x128xbf16>,
    tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x32x?x128xbf16>,
    tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>)
    -> (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
        tensor<?x8x?x128xbf16>)
    causal window [256, 0] scale 0.0883883 tile [64, 128]
    target sm_90a

// The defaults, f16 at head dim 64 with static sizes.
// CHECK: fmha.attention_backward @bwd_default (tensor<2x4x300x64xf16>, tensor<2x1x17x64xf16>, tensor<2x1x17x64xf16>, tensor<2x4x300x64xf16>, tensor<2x4x300x64xf16>, tensor<2x4x300xf32>) -> (tensor<2x4x300x64xf16>, tensor<2x1x17x64xf16>, tensor<2x1x17x64xf16>) target sm_90a
// GENERIC: "fmha.attention_backward"() <{function_type = {{.+}}, sym_name = "bwd_default", target = #fmha<target sm_90a>}> : () -> ()
fmha.attention_backward @bwd_default (tensor<2x4x300x64xf16>,
    tensor<2x1x17x64xf16>, tensor<2x1x17x64xf16>, tensor<2x4x300x64xf16>,
    tensor<2x4x300x64xf16>, tensor<2x4x300xf32>)
    -> (tensor<2x4x300x64xf16>, tensor<2x1x17x64xf16>, tensor<2x1x17x64xf16>)
    target sm_90a

// Variable-length sequences (varlen): packed [total, heads, head_dim]
// tensors, lse [heads_q, total_q] and the cu_seqlens.
// CHECK: fmha.attention_backward @bwd_varlen (tensor<?x32x128xbf16>, tensor<?x8x128xbf16>, tensor<?x8x128xbf16>, tensor<?x32x128xbf16>, tensor<?x32x128xbf16>, tensor<32x?xf32>, tensor<?xi32>, tensor<?xi32>) -> (tensor<?x32x128xbf16>, tensor<?x8x128xbf16>, tensor<?x8x128xbf16>) varlen causal target sm_90a
// GENERIC: "fmha.attention_backward"() <{causal, function_type = {{.+}}, sym_name = "bwd_varlen", target = #fmha<target sm_90a>, varlen}> : () -> ()
fmha.attention_backward @bwd_varlen (tensor<?x32x128xbf16>,
    tensor<?x8x128xbf16>, tensor<?x8x128xbf16>, tensor<?x32x128xbf16>,
    tensor<?x32x128xbf16>, tensor<32x?xf32>, tensor<?xi32>, tensor<?xi32>)
    -> (tensor<?x32x128xbf16>, tensor<?x8x128xbf16>, tensor<?x8x128xbf16>)
    varlen causal target sm_90a
