// Varlen attention (packed sequences, GQA, causal, with the log-sum-exp)
// compiled by the whole sm_90a pipeline down to PTX, which ptxas must
// accept. Q, K and V come by 3-d TMA boxes at the sequence's rows; O leaves
// by a 3-d TMA box where the block ends inside its sequence and by global
// stores bounded by the sequence's end elsewhere, lse by such stores.
//
// RUN: fmha-opt %s --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// CHECK: .target sm_90a
// CHECK-LABEL: .entry attn_varlen(
// Q, K, V tensor maps, o's memref descriptor and tensor map, the memref
// descriptors of lse and the two cu_seqlens, then batch, heads_q, heads_kv,
// max_seqlen_q, total_q, total_k.
// CHECK-COUNT-3: .param .align 64 .b8 attn_varlen_param_{{[0-2]}}[128],
// CHECK: .param .align 64 .b8 attn_varlen_param_{{[0-9]+}}[128],
// CHECK-COUNT-6: .param .u32 attn_varlen_param_{{[0-9]+}}
// The producer reads the sequence's bounds from the cu_seqlens and loads
// Q and K with 3-d boxes.
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: ld.global.b32
// CHECK: cp.async.bulk.tensor.3d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// The consumers (one copy of code for both): the main loop, then O by a
// TMA store or by bounded stores of bf16 pairs, and the lse rows.
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK-NOT: setmaxnreg.inc
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: cp.async.bulk.tensor.3d.global.shared::cta.bulk_group
// CHECK: setp.ge.u64
// CHECK: st.global.b32
// CHECK: lg2.approx.f32
fmha.attention @attn_varlen (tensor<?x32x128xbf16>, tensor<?x8x128xbf16>,
                             tensor<?x8x128xbf16>, tensor<?xi32>,
                             tensor<?xi32>)
    -> (tensor<?x32x128xbf16>, tensor<32x?xf32>) varlen causal target sm_90a
