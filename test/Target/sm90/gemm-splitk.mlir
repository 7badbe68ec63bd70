// Split-K GEMMs (`splits n`) compiled by the whole sm_90a pipeline, down to
// PTX that ptxas accepts without spills, and their launch manifests: each
// consumer stores its f32 partial tile into the workspace with plain
// stores, arrives at its tile's counter (fence, named barrier, one atomic
// add, a barrier reduction handing the answer to the warpgroup), and the
// last arrival sums the partials in split order and stores C by TMA.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: fmha-opt %t/sk.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/sk.ptx
// RUN: FileCheck %s < %t/sk.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/sk.ptx -o %t/sk.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/sk.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST
//
// One consumer of 64 x 64, four K ranges, f16 with an f32 result.
// RUN: fmha-opt %t/sk1.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/sk1.ptx
// RUN: FileCheck %s --check-prefix=ONE < %t/sk1.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/sk1.ptx -o %t/sk1.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
//
//
// Swapped operands (8 x 64 tiles, C^T = B A^T), two K ranges.
// RUN: fmha-opt %t/swap.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/swap.ptx
// RUN: FileCheck %s --check-prefix=SWAP < %t/swap.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/swap.ptx -o %t/swap.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
//
// NOSPILL: {{ }}0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// bf16, two consumers of 64 x 128, two K ranges. Consumer 0 (consumer 1
// is a second copy of the code with barrier 2): wgmma main loop, the f32
// partial tile by 8-byte plain stores, the arrival on named barrier 1 (the
// counter's reset to 0 by the last arrival included), then on the last
// arrival the partials by 8-byte plain loads and C by TMA.
// CHECK: .target sm_90a
// CHECK-LABEL: .entry gemm_splitk(
// CHECK: .maxntid 384, 1, 1
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: st.global.v2.b32
// CHECK: fence.acq_rel.gpu;
// CHECK: bar.sync 1, 128;
// CHECK: @l atom.relaxed.gpu.global.add.u32 old, [%rd{{[0-9]+}}], 1;
// CHECK-NEXT: setp.eq.and.b32 z, old, %r{{[0-9]+}}, l;
// CHECK-NEXT: @z st.relaxed.gpu.global.b32 [%rd{{[0-9]+}}], 0;
// CHECK-NEXT: bar.red.or.pred z, 1, 128, z;
// CHECK: fence.acq_rel.gpu;
// CHECK: ld.global.v2.b32
// CHECK: cvt.rn.bf16x2.f32
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK: bar.red.or.pred z, 2, 128, z;

// The manifest: the workspace and the counters are the runtime's scratch
// tensors, the last two parameters.
// MANIFEST: "kind": "memref",
// MANIFEST-NEXT: "tensor": "workspace"
// MANIFEST: "kind": "memref",
// MANIFEST-NEXT: "tensor": "counters"
// MANIFEST: "counters": {
// MANIFEST-NEXT: "dtype": "i32",
// MANIFEST-NEXT: "role": "zeroed",
// MANIFEST: "workspace": {
// MANIFEST-NEXT: "dtype": "f32",
// MANIFEST-NEXT: "role": "scratch",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: 2,
// MANIFEST-NEXT: "M",
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "mul": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "ceildiv": [
// MANIFEST-NEXT: "N",
// MANIFEST-NEXT: 4

// One consumer, f32 C: the sum is stored as is.
// ONE-LABEL: .entry gemm_splitk1(
// ONE: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// ONE: @l atom.relaxed.gpu.global.add.u32
// ONE: bar.red.or.pred z, 1, 128, z;
// ONE: ld.global.v2.b32
// ONE-NOT: cvt.rn
// ONE: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group

// Swapped operands: m64n8k16 wgmmas; the transposed 8 x 64 partial tile
// goes to the workspace one f32 at a time (4 per thread), the last arrival
// reads C's tiles back 16 bytes at a time (its own layout).
// SWAP-LABEL: .entry gemm_swap_splitk(
// SWAP: wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16
// SWAP-COUNT-4: st.global.b32
// SWAP: @l atom.relaxed.gpu.global.add.u32
// SWAP: ld.global.v4.b32
// SWAP: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group

//--- swap.mlir
fmha.gemm @gemm_swap_splitk (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16> transpose_b swap_ab tile [8, 64, 64] stages 16
    splits 2 target sm_90a

//--- sk.mlir
fmha.gemm @gemm_splitk (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b tile [64, 128, 64] stages 6 consumers 2 splits 2 target sm_90a

//--- sk1.mlir
fmha.gemm @gemm_splitk1 (tensor<?x?xf16>, tensor<?x?xf16>) -> tensor<?x?xf32>
    transpose_b tile [64, 64, 64] stages 8 consumers 1 splits 4 target sm_90a
