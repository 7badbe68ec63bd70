// The kernels of fmha.attention_backward compiled by the whole sm_90a
// pipeline down to PTX that ptxas accepts without spills, at head dims 64
// and 128 in bf16 and f16, and their manifest: one cubin with three
// entries, launched in turn. The prep kernel is one role of plain loads
// and stores; the dK/dV and dQ kernels are warp-specialized (a producer
// warp, two consumer warpgroups) with wgmma.
// RUN: rm -rf %t && split-file %s %t
// RUN: fmha-opt %t/bf16-d128.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/bf16-d128.ptx
// RUN: FileCheck %s < %t/bf16-d128.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/bf16-d128.ptx -o %t/bf16-d128.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/bf16-d128.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fmha-opt %t/bf16-d64.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/bf16-d64.ptx
// RUN: FileCheck %s --check-prefix=D64 < %t/bf16-d64.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/bf16-d64.ptx -o %t/bf16-d64.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/f16-d128.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/f16-d128.ptx
// RUN: FileCheck %s --check-prefix=F16 < %t/f16-d128.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/f16-d128.ptx -o %t/f16-d128.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/f16-d64.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/f16-d64.ptx
// RUN: FileCheck %s --check-prefix=D64 < %t/f16-d64.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/f16-d64.ptx -o %t/f16-d64.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/bf16-d64-fused.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/bf16-d64-fused.ptx
// RUN: FileCheck %s --check-prefix=FUSED < %t/bf16-d64-fused.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/bf16-d64-fused.ptx -o %t/bf16-d64-fused.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/bf16-d64-fused.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=FUSED-MANIFEST
// RUN: fmha-opt %t/bf16-d128-fused.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/bf16-d128-fused.ptx
// RUN: FileCheck %s --check-prefix=FUSED128 < %t/bf16-d128-fused.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/bf16-d128-fused.ptx -o %t/bf16-d128-fused.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/varlen-d128.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/varlen-d128.ptx
// RUN: FileCheck %s --check-prefix=VARLEN < %t/varlen-d128.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/varlen-d128.ptx -o %t/varlen-d128.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/varlen-d128.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=VARLEN-MANIFEST
// RUN: fmha-opt %t/varlen-f16-d64.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/varlen-f16-d64.ptx
// RUN: FileCheck %s --check-prefix=VARLEN-D64 < %t/varlen-f16-d64.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/varlen-f16-d64.ptx -o %t/varlen-f16-d64.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
//
// NOSPILL-COUNT-3: {{ }}0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// CHECK: .target sm_90a
// CHECK-LABEL: .entry bwd_prep(
// CHECK-NOT: setmaxnreg
// CHECK-NOT: .shared
// CHECK-NOT: mbarrier
// O and dO in 128-bit pieces, the row sum across the lanes of a row.
// CHECK: @p ld.global.v4.b32
// CHECK: shfl.sync.bfly.b32
// The lse rows; D and lse2 stored.
// CHECK: @p ld.global.b32
// CHECK: st.global.b32
// The dK/dV kernel at head dim 128, query-major: S and dP (64 queries x
// 64 keys, A and B from shared memory) issued back to back, S waited for
// with dP still running; P and dS staged in shared memory (stores, a proxy
// fence, the consumer's named barrier) for dV and dK (64 keys x 128, A =
// P^T and dS^T read from shared memory MN-major); dK and dV out by TMA.
// CHECK-LABEL: .entry bwd_dkdv(
// CHECK: setmaxnreg.dec.sync.aligned.u32
// CHECK: setmaxnreg.inc.sync.aligned.u32 {{.*}}240
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{[{].*[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}
// CHECK-DAG: wgmma.wait_group.sync.aligned {{.*}}1
// CHECK-DAG: ex2.approx
// CHECK-DAG: st.shared.b32
// CHECK-DAG: fence.proxy.async.shared::cta
// CHECK-DAG: bar.sync {{.*}}, 128
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{[{].*[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}
// CHECK-DAG: cp.async.bulk.tensor.4d.global.shared::cta.bulk_group
// The dQ kernel: S and dP (64 queries x 64 keys), dQ (64 x 128, A = dS
// from registers, B = K read MN-major), dQ out by TMA.
// CHECK-LABEL: .entry bwd_dq(
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{[{].*[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}
// CHECK-DAG: ex2.approx
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{[{].*[}]}}, {{[{]}}%r{{.*[}]}}, %rd{{[0-9]+}}
// S then dP issued back to back; S waited for with dP still running.
// CHECK-DAG: wgmma.wait_group.sync.aligned {{.*}}1
// CHECK: cp.async.bulk.tensor.4d.global.shared::cta.bulk_group

// The manifest: the tensors of all launches once (the scratch d_lse among
// them), then the launches in order, one cubin.
// MANIFEST: "cubin": "bwd.sm_90a.cubin",
// MANIFEST: "launches": [
// MANIFEST: "block": [
// MANIFEST-NEXT: 128,
// MANIFEST: "dynamic_smem": 0,
// MANIFEST-NEXT: "entry": "bwd_prep",
// MANIFEST: "block": [
// MANIFEST-NEXT: 384,
// MANIFEST: "entry": "bwd_dkdv",
// MANIFEST: "ceildiv": [
// MANIFEST-NEXT: "SK",
// MANIFEST-NEXT: 128
// MANIFEST: "HKV",
// MANIFEST: "entry": "bwd_dq",
// MANIFEST: "ceildiv": [
// MANIFEST-NEXT: "SQ",
// MANIFEST-NEXT: 128
// MANIFEST: "name": "bwd",
// MANIFEST: "tensors": {
// MANIFEST-NEXT: "d_lse": {
// MANIFEST-NEXT: "dtype": "f32",
// MANIFEST-NEXT: "role": "scratch",
// MANIFEST: "dq": {
// MANIFEST-NEXT: "dtype": "bf16",
// MANIFEST-NEXT: "role": "output",
// MANIFEST-NOT: dq_acc

// D64-LABEL: .entry bwd_d64_prep(
// D64: @p ld.global.v4.b32
// D64: shfl.sync.bfly.b32
// At head dim 64 too the two-kernel form's dK/dV products are query-major:
// S and dP issued back to back, P and dS staged for dV and dK.
// D64-LABEL: .entry bwd_d64_dkdv(
// D64-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.{{b?f16}}.{{b?f16}}
// D64-DAG: wgmma.wait_group.sync.aligned {{.*}}1
// D64-DAG: fence.proxy.async.shared::cta
// D64-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.{{b?f16}}.{{b?f16}} {{[{].*[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 1, 1;
// D64-LABEL: .entry bwd_d64_dq(
// D64: wgmma.mma_async.sync.aligned.m64n64k16.f32.{{b?f16}}.{{b?f16}}

// F16-LABEL: .entry bwd_f16_prep(
// F16-LABEL: .entry bwd_f16_dkdv(
// F16: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// F16-LABEL: .entry bwd_f16_dq(
// F16: cvt.rn.f16x2.f32

// fused_dq (head dim 64): the dK/dV kernel stages each consumer's P and
// dS into shared memory in the swizzled layout wgmma reads (stores, a
// proxy fence and the consumer's named barrier) for dV and dK, computes
// dQ's part with dS as a register A operand, stages that in f32 and adds
// it into dq_acc by TMA, box by box (two boxes of 32 f32 columns); _post
// rounds dq_acc into dq.
// FUSED-LABEL: .entry bwd_fdq_prep(
// FUSED: st.global
// FUSED-LABEL: .entry bwd_fdq_dkdv(
// FUSED: setmaxnreg.inc.sync.aligned.u32
// FUSED: st.shared.b32
// FUSED: fence.proxy.async.shared::cta;
// FUSED-NEXT: bar.sync
// dQ's part: A (dS) from registers, B (K) from shared memory, MN-major.
// FUSED-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{[{].*[}]}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// FUSED: cp.async.bulk.wait_group.read 0;
// FUSED: st.shared.v2.b32
// FUSED: fence.proxy.async.shared::cta;
// FUSED-NEXT: bar.sync
// FUSED: cp.reduce.async.bulk.tensor.4d.global.shared::cta.add.tile.bulk_group [%rd{{[0-9]+}}, {%r{{[0-9]+}},
// FUSED-NEXT: mov.b32 %r{{[0-9]+}}, 32;
// FUSED-NEXT: cp.reduce.async.bulk.tensor.4d.global.shared::cta.add.tile.bulk_group
// FUSED-LABEL: .entry bwd_fdq_post(
// FUSED: cvt.rn.bf16x2.f32
// FUSED-NOT: .entry bwd_fdq_dq(

// The manifest: three launches ending in _post, and dq_acc a scratch
// tensor beside d_lse.
// FUSED-MANIFEST: "entry": "bwd_fdq_prep",
// FUSED-MANIFEST: "entry": "bwd_fdq_dkdv",
// FUSED-MANIFEST: "entry": "bwd_fdq_post",
// FUSED-MANIFEST: "dq_acc": {
// FUSED-MANIFEST-NEXT: "dtype": "f32",
// FUSED-MANIFEST-NEXT: "role": "scratch",


// fused_dq at head dim 128: dQ's 64 x 128 part lives once S and dP are
// gone, which ptxas keeps apart only with the wgmma descriptors computed
// at their use (fmha.descriptors_at_use, set by the op): each address goes
// through an opaque move in the loop (and the three kernels compile
// without spills, NOSPILL).
// FUSED128-LABEL: .entry bwd_fdq128_dkdv(
// FUSED128: setmaxnreg.inc.sync.aligned.u32
// FUSED128: mov.b64 %rd{{[0-9]+}}, %rd{{[0-9]+}};
// FUSED128: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// FUSED128: cp.reduce.async.bulk.tensor.4d.global.shared::cta.add.tile.bulk_group
// FUSED128-LABEL: .entry bwd_fdq128_post(

// varlen (head dim 128, causal, block_m 48): every kernel reads its
// sequence's bounds from the cu_seqlens; Q, dO, K and V come by 3-d TMA
// boxes of the packed tensors, and dK, dV and dQ leave by plain stores
// bounded by the sequence (no TMA store).
// VARLEN-LABEL: .entry bwd_varlen_prep(
// VARLEN: ld.global.b32
// VARLEN: @p ld.global.v4.b32
// VARLEN-LABEL: .entry bwd_varlen_dkdv(
// VARLEN: cp.async.bulk.tensor.3d.shared::cta.global
// VARLEN: setmaxnreg.inc.sync.aligned.u32
// VARLEN-DAG: wgmma.mma_async.sync.aligned.m64n48k16.f32.bf16.bf16
// VARLEN-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// VARLEN-NOT: cp.async.bulk.tensor.{{.*}}.global.shared::cta
// VARLEN: st.global
// VARLEN-LABEL: .entry bwd_varlen_dq(
// VARLEN: cp.async.bulk.tensor.3d.shared::cta.global
// VARLEN-NOT: cp.async.bulk.tensor.{{.*}}.global.shared::cta
// VARLEN: st.global
// VARLEN-MANIFEST: "launches": [
// VARLEN-MANIFEST: "entry": "bwd_varlen_prep",
// VARLEN-MANIFEST: "entry": "bwd_varlen_dkdv",
// VARLEN-MANIFEST: "MAXK",
// VARLEN-MANIFEST: "entry": "bwd_varlen_dq",
// VARLEN-MANIFEST: "MAXQ",
// VARLEN-MANIFEST: "sizes": [
// VARLEN-MANIFEST-NEXT: "B",
// VARLEN-MANIFEST-NEXT: "MAXQ",
// VARLEN-MANIFEST-NEXT: "MAXK"
// VARLEN-MANIFEST: "cu_seqlens_q": {
// VARLEN-MANIFEST: "d_lse": {
// VARLEN-MANIFEST-NEXT: "dtype": "f32",
// VARLEN-MANIFEST-NEXT: "role": "scratch",
// VARLEN-D64-LABEL: .entry bwd_varlen_f16_dkdv(
// VARLEN-D64-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// VARLEN-D64-DAG: wgmma.wait_group.sync.aligned {{.*}}1
// VARLEN-D64-DAG: fence.proxy.async.shared::cta
// VARLEN-D64-LABEL: .entry bwd_varlen_f16_dq(
//--- bf16-d128.mlir
fmha.attention_backward @bwd (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>,
    tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>,
    tensor<?x?x?xf32>)
    -> (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>)
    causal target sm_90a

//--- bf16-d64.mlir
fmha.attention_backward @bwd_d64 (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>,
    tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>,
    tensor<?x?x?xf32>)
    -> (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>)
    target sm_90a

//--- f16-d128.mlir
fmha.attention_backward @bwd_f16 (tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>,
    tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>,
    tensor<?x?x?xf32>)
    -> (tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>, tensor<?x?x?x128xf16>)
    target sm_90a

//--- f16-d64.mlir
fmha.attention_backward @bwd_d64 (tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>,
    tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>,
    tensor<?x?x?xf32>)
    -> (tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>)
    target sm_90a

//--- bf16-d64-fused.mlir
fmha.attention_backward @bwd_fdq (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>,
    tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>,
    tensor<?x?x?xf32>)
    -> (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>)
    causal fused_dq target sm_90a

//--- bf16-d128-fused.mlir
fmha.attention_backward @bwd_fdq128 (tensor<?x?x?x128xbf16>,
    tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>,
    tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>)
    -> (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>)
    causal fused_dq target sm_90a

//--- varlen-d128.mlir
fmha.attention_backward @bwd_varlen (tensor<?x32x128xbf16>,
    tensor<?x8x128xbf16>, tensor<?x8x128xbf16>, tensor<?x32x128xbf16>,
    tensor<?x32x128xbf16>, tensor<32x?xf32>, tensor<?xi32>, tensor<?xi32>)
    -> (tensor<?x32x128xbf16>, tensor<?x8x128xbf16>, tensor<?x8x128xbf16>)
    varlen causal target sm_90a

//--- varlen-f16-d64.mlir
fmha.attention_backward @bwd_varlen_f16 (tensor<?x?x64xf16>,
    tensor<?x?x64xf16>, tensor<?x?x64xf16>, tensor<?x?x64xf16>,
    tensor<?x?x64xf16>, tensor<?x?xf32>, tensor<?xi32>, tensor<?xi32>)
    -> (tensor<?x?x64xf16>, tensor<?x?x64xf16>, tensor<?x?x64xf16>)
    varlen window [128, 0] target sm_90a
