// The prep and post kernels of fmha.attention_backward compiled by the
// whole sm_90a pipeline (fmha-expand-kernels told to leave out the main
// kernel, which is not built yet) down to PTX that ptxas accepts without
// spills, at head dims 64 and 128 in bf16 and f16, and their manifest:
// one cubin with two entries, launched in turn. Each kernel is one role of
// one warpgroup (no setmaxnreg, no shared memory): O and dO by predicated
// 128-bit loads, D by a row sum across the lanes of a row, d_lse and dq
// by plain stores.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: fmha-opt %t/bf16-d128.mlir --fmha-expand-kernels=backward-kernels=prep,post \
// RUN: | fmha-opt --fmha-sm90-pipeline | fmha-translate --fmha-extract-object > %t/bf16-d128.ptx
// RUN: FileCheck %s < %t/bf16-d128.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/bf16-d128.ptx -o %t/bf16-d128.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/bf16-d128.mlir --fmha-expand-kernels=backward-kernels=prep,post \
// RUN: | fmha-opt --fmha-sm90-pipeline=binary=none | fmha-translate --fmha-manifest \
// RUN: | FileCheck %s --check-prefix=MANIFEST
//
// RUN: fmha-opt %t/bf16-d64.mlir --fmha-expand-kernels=backward-kernels=prep,post \
// RUN: | fmha-opt --fmha-sm90-pipeline | fmha-translate --fmha-extract-object > %t/bf16-d64.ptx
// RUN: FileCheck %s --check-prefix=D64 < %t/bf16-d64.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/bf16-d64.ptx -o %t/bf16-d64.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/f16-d128.mlir --fmha-expand-kernels=backward-kernels=prep,post \
// RUN: | fmha-opt --fmha-sm90-pipeline | fmha-translate --fmha-extract-object > %t/f16-d128.ptx
// RUN: FileCheck %s --check-prefix=F16 < %t/f16-d128.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/f16-d128.ptx -o %t/f16-d128.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/f16-d64.mlir --fmha-expand-kernels=backward-kernels=prep,post \
// RUN: | fmha-opt --fmha-sm90-pipeline | fmha-translate --fmha-extract-object > %t/f16-d64.ptx
// RUN: FileCheck %s --check-prefix=D64 < %t/f16-d64.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/f16-d64.ptx -o %t/f16-d64.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
//
// NOSPILL: {{ }}0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// NOSPILL: {{ }}0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// CHECK: .target sm_90a
// CHECK-LABEL: .entry bwd_prep(
// CHECK-NOT: setmaxnreg
// CHECK-NOT: .shared
// CHECK-NOT: mbarrier
// O and dO in 128-bit pieces, the row sum across the lanes of a row.
// CHECK: @p ld.global.v4.b32
// CHECK: shfl.sync.bfly.b32
// The lse rows; D and lse2 stored, dq_acc cleared.
// CHECK: @p ld.global.b32
// CHECK: st.global.b32
// CHECK: st.global.v4.b32
// CHECK-LABEL: .entry bwd_post(
// CHECK-NOT: setmaxnreg
// CHECK: @p ld.global.v4.b32
// CHECK: cvt.rn.bf16x2.f32
// CHECK: st.global.v{{2|4}}.b32

// The manifest: the tensors of both launches once (the scratch d_lse and
// dq_acc among them), then the launches in order, one cubin.
// MANIFEST: "cubin": "bwd.sm_90a.cubin",
// MANIFEST: "launches": [
// MANIFEST: "block": [
// MANIFEST-NEXT: 128,
// MANIFEST: "dynamic_smem": 0,
// MANIFEST-NEXT: "entry": "bwd_prep",
// MANIFEST: "dynamic_smem": 0,
// MANIFEST-NEXT: "entry": "bwd_post",
// MANIFEST: "name": "bwd",
// MANIFEST: "tensors": {
// MANIFEST-NEXT: "d_lse": {
// MANIFEST-NEXT: "dtype": "f32",
// MANIFEST-NEXT: "role": "scratch",
// MANIFEST: "dq": {
// MANIFEST-NEXT: "dtype": "bf16",
// MANIFEST-NEXT: "role": "output",
// MANIFEST: "dq_acc": {
// MANIFEST-NEXT: "dtype": "f32",
// MANIFEST-NEXT: "role": "scratch",

// D64-LABEL: .entry bwd_d64_prep(
// D64: @p ld.global.v4.b32
// D64: shfl.sync.bfly.b32
// D64-LABEL: .entry bwd_d64_post(
// D64: st.global

// F16-LABEL: .entry bwd_f16_prep(
// F16-LABEL: .entry bwd_f16_post(
// F16: cvt.rn.f16x2.f32

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
