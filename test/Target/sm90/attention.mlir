// Attention forward compiled from fmha.attention by the whole sm_90a
// pipeline, down to PTX, which ptxas must accept.
//
// RUN: fmha-opt %S/../../../examples/attention.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// CHECK: .target sm_90a
// CHECK-LABEL: .entry attn_fwd_d128(
// CHECK: .maxntid 384, 1, 1
// Producer: Q once (two 64-row tiles, each two 128-byte-wide boxes), then K
// and V per step.
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK-COUNT-4: cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK: mbarrier.try_wait.parity
// CHECK: cp.async.bulk.tensor.4d.shared::cta.global
// Consumer 0: S = Q K^T by wgmma from shared memory, the row max across the
// quad, exp2, then P V with P from registers.
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK: shfl.sync.bfly
// CHECK: ex2.approx
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, {%r
// CHECK: cp.async.bulk.tensor.4d.global.shared::cta
