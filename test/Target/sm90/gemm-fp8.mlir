// fp8 GEMMs compiled by the whole sm_90a pipeline, down to PTX that ptxas
// accepts without spills, and their launch manifests: the main loop runs
// wgmma m64nNk32 on e4m3 / e5m2 tiles of 128 bytes of K (block_k 128, one
// 128-byte swizzle span), both operands K-major from shared memory; the
// epilogue multiplies the f32 accumulator by the scales before rounding:
// one scalar (the product of the per-tensor scales), or the row vector of
// scale_a and the column vector of scale_b, each loaded once per tile.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: fmha-opt %t/tensor.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/tensor.ptx
// RUN: FileCheck %s < %t/tensor.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/tensor.ptx -o %t/tensor.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/tensor.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST
//
// RUN: fmha-opt %t/rowwise.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/rowwise.ptx
// RUN: FileCheck %s --check-prefix=ROWWISE < %t/rowwise.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/rowwise.ptx -o %t/rowwise.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/rowwise.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST-ROWWISE
//
// RUN: fmha-opt %t/promote.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/promote.ptx
// RUN: FileCheck %s --check-prefix=PROMOTE < %t/promote.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/promote.ptx -o %t/promote.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/promote-rowwise.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/promote-rowwise.ptx
// RUN: FileCheck %s --check-prefix=PROMOTE-ROWWISE < %t/promote-rowwise.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/promote-rowwise.ptx -o %t/promote-rowwise.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
//
// NOSPILL: {{ }}0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// One scale per tensor, e4m3 x e4m3, two consumers of 128 x 128. The
// consumer's epilogue: both scalars by plain loads, their product, 128
// accumulator values times it, bf16, the TMA store; its main loop: per K
// step of 128 bytes, 2 (M) x 4 (K) wgmma m64n128k32 on e4m3.
// CHECK: .target sm_90a
// CHECK-LABEL: .entry gemm_fp8(
// CHECK: .maxntid 384, 1, 1
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK-COUNT-2: ld.global.b32
// CHECK-COUNT-129: mul.rn.f32
// CHECK-COUNT-64: cvt.rn.bf16x2.f32
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{[{]}}{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1,  1;
// CHECK-NOT: wgmma.mma_async

// The manifest: a and b as UINT8-encoded fp8 tensor maps of 128 bytes of K
// (one 128-byte swizzle span), the scales as memrefs of one value.
// MANIFEST: "box": [
// MANIFEST-NEXT: 128,
// MANIFEST-NEXT: 128
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "kind": "tensor_map",
// MANIFEST-NEXT: "swizzle": 128,
// MANIFEST-NEXT: "tensor": "a"
// MANIFEST: "kind": "memref",
// MANIFEST-NEXT: "tensor": "scale_a"
// MANIFEST: "kind": "memref",
// MANIFEST-NEXT: "tensor": "scale_b"
// MANIFEST: "a": {
// MANIFEST-NEXT: "dtype": "f8e4m3",
// MANIFEST: "scale_a": {
// MANIFEST-NEXT: "dtype": "f32",
// MANIFEST-NEXT: "role": "input",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: 1
// MANIFEST-NEXT: ]

// A scale per row of A and per column of B, e4m3 x e5m2, two consumers of
// 64 x 256: the row vector (2 rows a thread) and the column vector (64
// columns a thread) by plain loads once per tile, 128 products each; the
// main loop 4 wgmma m64n256k32 e4m3 x e5m2 per K step.
// ROWWISE-LABEL: .entry gemm_fp8_rowwise(
// ROWWISE: setmaxnreg.inc.sync.aligned.u32 232;
// ROWWISE-COUNT-2: ld.global.b32
// ROWWISE-COUNT-128: mul.rn.f32
// ROWWISE-COUNT-64: ld.global.b32
// ROWWISE-COUNT-128: mul.rn.f32
// ROWWISE-COUNT-64: cvt.rn.bf16x2.f32
// ROWWISE: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// ROWWISE-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e5m2
// ROWWISE-NOT: wgmma.mma_async

// MANIFEST-ROWWISE: "b": {
// MANIFEST-ROWWISE-NEXT: "dtype": "f8e5m2",
// MANIFEST-ROWWISE: "scale_a": {
// MANIFEST-ROWWISE-NEXT: "dtype": "f32",
// MANIFEST-ROWWISE-NEXT: "role": "input",
// MANIFEST-ROWWISE-NEXT: "shape": [
// MANIFEST-ROWWISE-NEXT: "M"
// MANIFEST-ROWWISE: "scale_b": {
// MANIFEST-ROWWISE-NEXT: "dtype": "f32",
// MANIFEST-ROWWISE-NEXT: "role": "input",
// MANIFEST-ROWWISE-NEXT: "shape": [
// MANIFEST-ROWWISE-NEXT: "N"

// Accumulate promotion (promote_every): the wgmma chain's tile and the
// f32 sum cost the accumulator registers twice, so the tiles that fit the
// consumers' 232 registers without spills hold at most 96 f32 values a
// thread each: 64 x 128 (64 + 64), or 128 x 96 with row and column scales
// (96 + 96 and 24 column scales); 128 x 128 does not fit (the verifier
// says so). One scale per tensor, 64 x 128 tiles, a promotion every 4 K
// steps: after each group of steps (4 wgmma m64n128k32 a step, the
// previous step's wgmmas waited for in the loop) the consumer waits for
// all of them and adds the 64 values into the sum.
// PROMOTE-LABEL: .entry gemm_fp8_promote(
// PROMOTE: setmaxnreg.inc.sync.aligned.u32 232;
// PROMOTE-COUNT-2: ld.global.b32
// PROMOTE-COUNT-65: mul.rn.f32
// PROMOTE-COUNT-32: cvt.rn.bf16x2.f32
// PROMOTE-COUNT-64: add.rn.f32
// PROMOTE: wgmma.fence.sync.aligned
// PROMOTE-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// PROMOTE: wgmma.commit_group.sync.aligned
// PROMOTE: wgmma.wait_group.sync.aligned 1;
// PROMOTE: wgmma.wait_group.sync.aligned 0;
// PROMOTE-NOT: wgmma.mma_async

// Row and column scales, 128 x 96 tiles, a promotion every 2 K steps: 96
// sums a thread, 8 wgmma m64n96k32 a step.
// PROMOTE-ROWWISE-LABEL: .entry gemm_fp8_promote_rowwise(
// PROMOTE-ROWWISE: setmaxnreg.inc.sync.aligned.u32 232;
// PROMOTE-ROWWISE-COUNT-96: mul.rn.f32
// PROMOTE-ROWWISE-COUNT-96: mul.rn.f32
// PROMOTE-ROWWISE-COUNT-48: cvt.rn.bf16x2.f32
// PROMOTE-ROWWISE-COUNT-96: add.rn.f32
// PROMOTE-ROWWISE-COUNT-8: wgmma.mma_async.sync.aligned.m64n96k32.f32.e4m3.e4m3
// PROMOTE-ROWWISE-NOT: wgmma.mma_async

//--- tensor.mlir
fmha.gemm @gemm_fp8 (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>,
    tensor<1xf32>, tensor<1xf32>) -> tensor<?x?xbf16> transpose_b
    tile [128, 128, 128] consumers 2 target sm_90a

//--- rowwise.mlir
fmha.gemm @gemm_fp8_rowwise (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E5M2>,
    tensor<?xf32>, tensor<?xf32>) -> tensor<?x?xbf16> transpose_b
    tile [64, 256, 128] consumers 2 target sm_90a

//--- promote.mlir
fmha.gemm @gemm_fp8_promote (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>,
    tensor<1xf32>, tensor<1xf32>) -> tensor<?x?xbf16> transpose_b
    tile [64, 128, 128] consumers 2 promote_every 4 target sm_90a

//--- promote-rowwise.mlir
fmha.gemm @gemm_fp8_promote_rowwise (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>,
    tensor<?xf32>, tensor<?xf32>) -> tensor<?x?xbf16> transpose_b
    tile [128, 96, 128] consumers 2 promote_every 2 target sm_90a
