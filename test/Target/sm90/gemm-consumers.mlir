// GEMMs with three consumer warpgroups (`consumers 3`: a 192-row CTA tile
// of three 64-row consumer tiles) compiled by the whole sm_90a pipeline,
// down to PTX that ptxas accepts without spills, and the launch manifest:
// 512 threads, the producer warpgroup at 40 registers and each consumer at
// (65536 / 128 - 40) / 3 rounded down to 152 (ws-assign-roles' split for
// three consumers).
//
// RUN: rm -rf %t && split-file %s %t
// RUN: fmha-opt %t/c3.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/c3.ptx
// RUN: FileCheck %s < %t/c3.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/c3.ptx -o %t/c3.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/c3.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST
//
// With TMA multicast (clusters of two CTAs along M) and B as [K, N].
// RUN: fmha-opt %t/c3-mc.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/c3mc.ptx
// RUN: FileCheck %s --check-prefix=MC < %t/c3mc.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/c3mc.ptx -o %t/c3mc.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
//
// NOSPILL: {{ }}0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// CHECK-LABEL: .entry gemm_c3(
// CHECK: .maxntid 512, 1, 1
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: setmaxnreg.inc.sync.aligned.u32 152;
// CHECK: wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16

// MANIFEST: "block": [
// MANIFEST-NEXT: 512,

// MC-LABEL: .entry gemm_c3_mc(
// MC: .maxntid 512, 1, 1
// MC: .reqnctapercluster 2, 1, 1
// MC: setmaxnreg.inc.sync.aligned.u32 152;
// MC: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16

//--- c3.mlir
fmha.gemm @gemm_c3 (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b tile [64, 192, 64] consumers 3 target sm_90a

//--- c3-mc.mlir
fmha.gemm @gemm_c3_mc (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16> tile [64, 128, 64] consumers 3 multicast 2
    target sm_90a
