// Attention forward with its log-sum-exp (f16, head dim 64, a two-sided
// sliding window, the default tile), compiled by the whole sm_90a pipeline
// down to PTX, which ptxas must accept. O leaves by a TMA store; lse, a
// memref (a pointer and its sizes and strides), by one global store per row
// from the first lane of the quad that holds it.
//
// RUN: fmha-opt %s --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// CHECK: .target sm_90a
// CHECK-LABEL: .entry attn_lse(
// Q, K, V, O tensor maps, then lse's descriptor: two pointers, the offset,
// 3 sizes and 3 strides; heads and lengths.
// CHECK-COUNT-4: .param .align 64 .b8 attn_lse_param_{{[0-3]}}[128],
// CHECK-NEXT: .param .u64 .ptr .align 1 attn_lse_param_4,
// CHECK-NEXT: .param .u64 .ptr .align 1 attn_lse_param_5,
// CHECK-COUNT-7: .param .u64 attn_lse_param_{{[0-9]+}},
// CHECK-COUNT-4: .param .u32 attn_lse_param_{{[0-9]+}}
// CHECK: ld.param.b64 [[LSE:%rd[0-9]+]], [attn_lse_param_5];
// CHECK: cvta.to.global.u64 {{%rd[0-9]+}}, [[LSE]];
// The consumers (one copy of code for both): the main loop, then O by TMA
// and the lse of its two rows per thread (log2 of the row sum, as
// lg2.approx).
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, {%r
// CHECK: cp.async.bulk.tensor.4d.global.shared::cta.bulk_group
// CHECK: lg2.approx.f32
// CHECK: st.global.b32
// CHECK: lg2.approx.f32
// CHECK: st.global.b32
// CHECK: cp.async.bulk.wait_group.read 0;
// CHECK-NOT: st.global
// CHECK-NOT: setmaxnreg
fmha.attention @attn_lse (tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>,
                          tensor<?x?x?x64xf16>)
    -> (tensor<?x?x?x64xf16>, tensor<?x?x?xf32>) window [256, 256] target sm_90a
