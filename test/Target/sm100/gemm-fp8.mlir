// fp8 GEMMs compiled by the whole sm_100a pipeline, down to PTX that ptxas
// accepts for sm_100a without spills. No Blackwell GPU runs them here:
// FileCheck and ptxas are the proof. The MMA warp issues tcgen05.mma
// .kind::f8f6f4 on e4m3 / e5m2 tiles of 128 bytes of K (block_k 128, one
// 128-byte swizzle span), 32 bytes of K per instruction, both operands
// K-major from shared memory; the epilogue reads the f32 accumulator from
// tensor memory 32 columns at a time and multiplies it by the scales
// before rounding: the product of the per-tensor scales, or the row vector
// of scale_a and, per chunk, the chunk's 32 values of scale_b.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: fmha-opt %t/tensor.mlir --fmha-sm100-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/tensor.ptx
// RUN: FileCheck %s < %t/tensor.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/tensor.ptx -o %t/tensor.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/tensor.mlir --fmha-sm100-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST
//
// RUN: fmha-opt %t/rowwise.mlir --fmha-sm100-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/rowwise.ptx
// RUN: FileCheck %s --check-prefix=ROWWISE < %t/rowwise.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/rowwise.ptx -o %t/rowwise.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
//
// NOSPILL: {{ }}0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// One scale per tensor, e4m3 x e4m3, two epilogue warpgroups of 128 x 128.
// Per operand slot the MMA warp issues 4 K steps of 32 bytes per
// accumulator, the A and B descriptors K-major and 128-byte swizzled
// (0x4000404000010000, the start address 2 further (32 bytes) per step),
// the instruction descriptor that of e4m3 x e4m3 -> f32, M = 128, N = 128
// (0x08200010: atype and btype E4M3 = 0). The epilogue: both scalars by
// plain loads, their product, then per chunk of 32 columns a tcgen05.ld,
// 16 paired products, bf16, the staging stores.
// CHECK: .target sm_100a
// CHECK-LABEL: .entry gemm_fp8_sm100(
// CHECK: .maxntid 384, 1, 1
// CHECK: or.b64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 4611756662049538048;
// CHECK: mov.b32 [[IDESC:%r[0-9]+]], 136314896;
// CHECK: tcgen05.mma.cta_group::1.kind::f8f6f4.collector::a::discard [[[D0:%r[0-9]+]]], %rd{{[0-9]+}}, %rd{{[0-9]+}}, [[IDESC]], %p{{[0-9]+}};
// CHECK: or.b64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 4611756662049538050;
// CHECK-COUNT-3: tcgen05.mma.cta_group::1.kind::f8f6f4.collector::a::discard [[[D0]]], %rd{{[0-9]+}}, %rd{{[0-9]+}}, [[IDESC]], %p{{[0-9]+}};
// CHECK-COUNT-4: tcgen05.mma.cta_group::1.kind::f8f6f4.collector::a::discard [[[D1:%r[0-9]+]]], %rd{{[0-9]+}}, %rd{{[0-9]+}}, [[IDESC]], %p{{[0-9]+}};
// CHECK-NOT: tcgen05.mma
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK-COUNT-2: ld.global.b32
// CHECK: mul.rn.f32
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK-COUNT-16: mul.rn.f32x2
// CHECK: cvt.rn.bf16x2.f32
// CHECK: st.shared.v4.b32
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group

// The manifest: a and b as fp8 tensor maps of 128 bytes of K, the scales
// as memrefs of one value.
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
// MANIFEST: "target": "sm_100a",
// MANIFEST: "a": {
// MANIFEST-NEXT: "dtype": "f8e4m3",

// A scale per row of A and per column of B, e4m3 x e5m2, one epilogue
// warpgroup of 128 x 256: the instruction descriptor of e4m3 x e5m2 -> f32,
// M = 128, N = 256 (0x08400410: btype E5M2 = 1); the epilogue loads the
// row's scale once and, per chunk of 32 columns, the chunk's 32 column
// scales (predicated plain loads), so no thread holds 256 of them: 8
// chunks of a tcgen05.ld, 32 products by the row and column scales, bf16.
// ROWWISE-LABEL: .entry gemm_fp8_rowwise_sm100(
// ROWWISE: mov.b32 [[IDESC:%r[0-9]+]], 138413072;
// ROWWISE-COUNT-4: tcgen05.mma.cta_group::1.kind::f8f6f4.collector::a::discard [{{%r[0-9]+}}], %rd{{[0-9]+}}, %rd{{[0-9]+}}, [[IDESC]], %p{{[0-9]+}};
// ROWWISE-NOT: tcgen05.mma
// ROWWISE: ld.global.b32
// ROWWISE-COUNT-8: tcgen05.ld.sync.aligned.32x32b.x32.b32
// ROWWISE-NOT: tcgen05.ld
// ROWWISE: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group

//--- tensor.mlir
fmha.gemm @gemm_fp8_sm100 (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E4M3FN>,
    tensor<1xf32>, tensor<1xf32>) -> tensor<?x?xbf16> transpose_b
    tile [128, 128, 128] consumers 2 target sm_100a

//--- rowwise.mlir
fmha.gemm @gemm_fp8_rowwise_sm100 (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E5M2>,
    tensor<?xf32>, tensor<?xf32>) -> tensor<?x?xbf16> transpose_b
    tile [128, 256, 128] consumers 1 target sm_100a
