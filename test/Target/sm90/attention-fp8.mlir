// FP8 attention (q, k, v in e4m3, per-tensor descales, bf16 or f16 o)
// compiled by the whole sm_90a pipeline, down to PTX that ptxas accepts
// without spills: head dims 64, 128 and 256, causal and not, with and
// without lse; and at each head dim with descales per sequence and KV head
// ([batch, heads_kv], loaded per work item: the manifest declares them
// [B, HKV]). Q K^T is wgmma m64nNk32 on e4m3 from shared memory; P is
// converted with cvt.rn.satfinite.e4m3x2.f32 and read by P V^T's wgmma
// from registers (k_quad16), V^T from shared memory K-major.
//
// RUN: rm -rf %t && split-file %s %t
//
// RUN: fmha-opt %t/d64-causal.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d64.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,D64 < %t/d64.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/d64.ptx -o %t/d64.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: fmha-opt %t/d64-causal.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST
//
// RUN: fmha-opt %t/d64.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d64n.ptx
// RUN: FileCheck %s < %t/d64n.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/d64n.ptx -o %t/d64n.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
//
// RUN: fmha-opt %t/d128.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d128.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,D128 < %t/d128.ptx
// P stays packed four bytes to a register from its conversion to the P V
// wgmma, across the main loop: each word is two cvt results as its two
// halves, and no byte is moved on its own (no zero-extension of a 16-bit
// value, no byte permutation). It is converted after the previous P V is
// waited for, so ptxas does not serialize the wgmmas (PTXAS-NOT: C7513).
// RUN: FileCheck %s --check-prefix=PACKED --implicit-check-not=cvt.u32.u16 \
// RUN:   --implicit-check-not=prmt < %t/d128.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/d128.ptx -o %t/d128.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
//
// RUN: fmha-opt %t/d128-causal.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d128c.ptx
// RUN: FileCheck %s < %t/d128c.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/d128c.ptx -o %t/d128c.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
//
// Wide key blocks the register model gives fp8 (P counted at a byte per
// value, no softmax temporaries): 64 x 192 at head dim 128 (with a
// two-sided window), 64 x 224 at 64 (causal) and 64 x 128 at 256, causal
// and not (the widest there).
// RUN: fmha-opt %t/d128-wide.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d128w.ptx
// RUN: FileCheck %s < %t/d128w.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/d128w.ptx -o %t/d128w.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: fmha-opt %t/d64-wide.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d64w.ptx
// RUN: FileCheck %s < %t/d64w.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/d64w.ptx -o %t/d64w.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: fmha-opt %t/d256-wide.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d256w.ptx
// RUN: FileCheck %s < %t/d256w.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/d256w.ptx -o %t/d256w.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: fmha-opt %t/d256-wide-causal.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d256wc.ptx
// RUN: FileCheck %s < %t/d256wc.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/d256wc.ptx -o %t/d256wc.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
//
// RUN: fmha-opt %t/d256.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d256.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,D256 < %t/d256.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/d256.ptx -o %t/d256.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
//
// RUN: fmha-opt %t/d256-causal.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d256c.ptx
// RUN: FileCheck %s < %t/d256c.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/d256c.ptx -o %t/d256c.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
//
// RUN: fmha-opt %t/d64-heads.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d64h.ptx
// RUN: FileCheck %s < %t/d64h.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/d64h.ptx -o %t/d64h.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
//
// RUN: fmha-opt %t/d128-heads.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d128h.ptx
// RUN: FileCheck %s < %t/d128h.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/d128h.ptx -o %t/d128h.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
//
// RUN: fmha-opt %t/d256-heads.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d256h.ptx
// RUN: FileCheck %s < %t/d256h.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/d256h.ptx -o %t/d256h.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: fmha-opt %t/d128-heads.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=HEADS
//
// PACKED: cvt.rn.satfinite.e4m3x2.f32 [[LO:%rs[0-9]+]],
// PACKED: cvt.rn.satfinite.e4m3x2.f32 [[HI:%rs[0-9]+]],
// PACKED: mov.b32 %r{{[0-9]+}}, {[[LO]], [[HI]]};

// PTXAS-NOT: C7513
// PTXAS-NOT: bytes spill
// PTXAS: {{ }}0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// CHECK: .target sm_90a
// CHECK: .entry attn_fp8
// CHECK-DAG: cvt.rn.satfinite.e4m3x2.f32
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n{{[0-9]+}}k32.f32.e4m3.e4m3 {{[{]}}{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1;
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n{{[0-9]+}}k32.f32.e4m3.e4m3 {{[{]}}{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1;

// Per head dim, the shapes of the two products: Q K^T from shared memory
// (N = block_n: 128, or 64 at head dim 256) and P V^T with P from
// registers (N = head_dim).
// D64-DAG: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{[{]}}{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1;
// D64-DAG: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {{[{]}}{{.*}}}, {%r{{.*}}}, %rd{{[0-9]+}}, p, 1, 1;
// D128-DAG: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{[{]}}{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1;
// D128-DAG: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{[{]}}{{.*}}}, {%r{{.*}}}, %rd{{[0-9]+}}, p, 1, 1;
// D256-DAG: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {{[{]}}{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1;
// D256-DAG: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 {{[{]}}{{.*}}}, {%r{{.*}}}, %rd{{[0-9]+}}, p, 1, 1;

// The manifest: v transposed ([B, HKV, 64, SKV]) with a box of 64 rows of
// 128 keys (one 128-byte swizzle span), q and k in boxes of 64-byte rows
// (64-byte swizzle), the descales as one-value memrefs, o in f16.
// MANIFEST: "dynamic_smem":
// MANIFEST: "box": [
// MANIFEST-NEXT: 64,
// MANIFEST-NEXT: 64
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "kind": "tensor_map",
// MANIFEST-NEXT: "swizzle": 64,
// MANIFEST-NEXT: "tensor": "q"
// MANIFEST: "tensor": "k"
// MANIFEST: "box": [
// MANIFEST-NEXT: 64,
// MANIFEST-NEXT: 128
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "kind": "tensor_map",
// MANIFEST-NEXT: "swizzle": 128,
// MANIFEST-NEXT: "tensor": "v"
// MANIFEST: "tensor": "lse"
// MANIFEST: "kind": "memref",
// MANIFEST-NEXT: "tensor": "descale_q"
// MANIFEST: "kind": "memref",
// MANIFEST-NEXT: "tensor": "descale_k"
// MANIFEST: "kind": "memref",
// MANIFEST-NEXT: "tensor": "descale_v"
// MANIFEST: "descale_v": {
// MANIFEST-NEXT: "dtype": "f32",
// MANIFEST: "o": {
// MANIFEST-NEXT: "dtype": "f16",
// MANIFEST: "v": {
// MANIFEST-NEXT: "dtype": "f8e4m3",
// MANIFEST: "HKV",
// MANIFEST-NEXT: 64,
// MANIFEST-NEXT: "SKV"

// Per-head descales: three [B, HKV] f32 tensors.
// HEADS: "descale_q": {
// HEADS-NEXT: "dtype": "f32",
// HEADS-NEXT: "role": "input",
// HEADS-NEXT: "shape": [
// HEADS-NEXT: "B",
// HEADS-NEXT: "HKV"
// HEADS-NEXT: ]

//--- d64-causal.mlir
fmha.attention @attn_fp8_d64_causal (tensor<?x?x?x64xf8E4M3FN>,
                                     tensor<?x?x?x64xf8E4M3FN>,
                                     tensor<?x?x64x?xf8E4M3FN>, tensor<1xf32>,
                                     tensor<1xf32>, tensor<1xf32>)
    -> (tensor<?x?x?x64xf16>, tensor<?x?x?xf32>) causal target sm_90a

//--- d64.mlir
fmha.attention @attn_fp8_d64 (tensor<?x?x?x64xf8E4M3FN>,
                              tensor<?x?x?x64xf8E4M3FN>,
                              tensor<?x?x64x?xf8E4M3FN>, tensor<1xf32>,
                              tensor<1xf32>, tensor<1xf32>)
    -> tensor<?x?x?x64xbf16> target sm_90a

//--- d128.mlir
fmha.attention @attn_fp8_d128 (tensor<?x?x?x128xf8E4M3FN>,
                               tensor<?x?x?x128xf8E4M3FN>,
                               tensor<?x?x128x?xf8E4M3FN>, tensor<1xf32>,
                               tensor<1xf32>, tensor<1xf32>)
    -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) target sm_90a

//--- d128-wide.mlir
fmha.attention @attn_fp8_d128_wide (tensor<?x?x?x128xf8E4M3FN>,
                                    tensor<?x?x?x128xf8E4M3FN>,
                                    tensor<?x?x128x?xf8E4M3FN>, tensor<1xf32>,
                                    tensor<1xf32>, tensor<1xf32>)
    -> tensor<?x?x?x128xbf16> window [37, 5] tile [64, 192] target sm_90a

//--- d64-wide.mlir
fmha.attention @attn_fp8_d64_wide (tensor<?x?x?x64xf8E4M3FN>,
                                   tensor<?x?x?x64xf8E4M3FN>,
                                   tensor<?x?x64x?xf8E4M3FN>, tensor<1xf32>,
                                   tensor<1xf32>, tensor<1xf32>)
    -> tensor<?x?x?x64xbf16> causal tile [64, 224] target sm_90a

//--- d256-wide.mlir
fmha.attention @attn_fp8_d256_wide (tensor<?x?x?x256xf8E4M3FN>,
                                    tensor<?x?x?x256xf8E4M3FN>,
                                    tensor<?x?x256x?xf8E4M3FN>, tensor<1xf32>,
                                    tensor<1xf32>, tensor<1xf32>)
    -> tensor<?x?x?x256xbf16> tile [64, 128] target sm_90a

//--- d256-wide-causal.mlir
fmha.attention @attn_fp8_d256_wide_causal (tensor<?x?x?x256xf8E4M3FN>,
                                           tensor<?x?x?x256xf8E4M3FN>,
                                           tensor<?x?x256x?xf8E4M3FN>,
                                           tensor<1xf32>, tensor<1xf32>,
                                           tensor<1xf32>)
    -> tensor<?x?x?x256xbf16> causal tile [64, 128] target sm_90a

//--- d128-causal.mlir
fmha.attention @attn_fp8_d128_causal (tensor<?x?x?x128xf8E4M3FN>,
                                      tensor<?x?x?x128xf8E4M3FN>,
                                      tensor<?x?x128x?xf8E4M3FN>, tensor<1xf32>,
                                      tensor<1xf32>, tensor<1xf32>)
    -> tensor<?x?x?x128xbf16> causal window [256, 0] target sm_90a

//--- d256.mlir
fmha.attention @attn_fp8_d256 (tensor<?x?x?x256xf8E4M3FN>,
                               tensor<?x?x?x256xf8E4M3FN>,
                               tensor<?x?x256x?xf8E4M3FN>, tensor<1xf32>,
                               tensor<1xf32>, tensor<1xf32>)
    -> tensor<?x?x?x256xbf16> target sm_90a

//--- d256-causal.mlir
fmha.attention @attn_fp8_d256_causal (tensor<?x?x?x256xf8E4M3FN>,
                                      tensor<?x?x?x256xf8E4M3FN>,
                                      tensor<?x?x256x?xf8E4M3FN>, tensor<1xf32>,
                                      tensor<1xf32>, tensor<1xf32>)
    -> (tensor<?x?x?x256xbf16>, tensor<?x?x?xf32>) causal target sm_90a

//--- d64-heads.mlir
fmha.attention @attn_fp8_d64_heads (tensor<?x32x?x64xf8E4M3FN>,
                                    tensor<?x8x?x64xf8E4M3FN>,
                                    tensor<?x8x64x?xf8E4M3FN>, tensor<?x8xf32>,
                                    tensor<?x8xf32>, tensor<?x8xf32>)
    -> tensor<?x32x?x64xbf16> target sm_90a

//--- d128-heads.mlir
fmha.attention @attn_fp8_d128_heads (tensor<?x?x?x128xf8E4M3FN>,
                                     tensor<?x?x?x128xf8E4M3FN>,
                                     tensor<?x?x128x?xf8E4M3FN>,
                                     tensor<?x?xf32>, tensor<?x?xf32>,
                                     tensor<?x?xf32>)
    -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) causal target sm_90a

//--- d256-heads.mlir
fmha.attention @attn_fp8_d256_heads (tensor<?x?x?x256xf8E4M3FN>,
                                     tensor<?x?x?x256xf8E4M3FN>,
                                     tensor<?x?x256x?xf8E4M3FN>,
                                     tensor<?x?xf32>, tensor<?x?xf32>,
                                     tensor<?x?xf32>)
    -> (tensor<?x?x?x256xf16>, tensor<?x?x?xf32>) target sm_90a
