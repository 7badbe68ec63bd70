// FP8 attention with `transpose_v`: v is [batch, heads_kv, seq_k, head_dim]
// as k is, TMA brings each V tile as it lies, and a transposer role of
// three warps beside the producer's (the producer's warpgroup and register
// budget) turns it into the permuted V^T tile the P V wgmma reads K-major:
// ldmatrix.trans, prmt and stmatrix, a commit by threads (fenced for the
// async proxy) into a ring of its own to the consumers. Compiled by the whole sm_90a pipeline to PTX
// that ptxas accepts without spills: head dims 64, 128 (the default tile
// and 64 x 192, where the producer's warpgroup runs at 24 registers) and
// 256 (64 x 64: the V^T ring leaves room for no more), causal and not.
//
// RUN: rm -rf %t && split-file %s %t
//
// RUN: fmha-opt %t/d128.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d128.ptx
// RUN: FileCheck %s < %t/d128.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/d128.ptx -o %t/d128.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: fmha-opt %t/d128.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST
//
// RUN: fmha-opt %t/d128-wide-causal.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d128w.ptx
// RUN: FileCheck %s < %t/d128w.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/d128w.ptx -o %t/d128w.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
//
// RUN: fmha-opt %t/d64-causal.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d64.ptx
// RUN: FileCheck %s < %t/d64.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/d64.ptx -o %t/d64.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
//
// RUN: fmha-opt %t/d256.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d256.ptx
// RUN: FileCheck %s < %t/d256.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/d256.ptx -o %t/d256.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
//
// The roles: the transposer packed into warps 1 to 3 (384 threads).
// RUN: fmha-opt %t/d128.mlir --fmha-verify-target --fmha-expand-kernels \
// RUN:   --tile-assign-layouts --ws-assign-roles --ws-partition-roles \
// RUN:   --ws-allocate-registers | FileCheck %s --check-prefix=ROLES

// PTXAS-NOT: bytes spill
// PTXAS: {{ }}0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// CHECK: .target sm_90a
// CHECK: .maxntid 384, 1, 1
// CHECK-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK-DAG: prmt.b32
// CHECK-DAG: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-DAG: fence.proxy.async.shared::cta
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n{{[0-9]+}}k32.f32.e4m3.e4m3 {{[{]}}{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1;

// ROLES: ws.role "producer" warps 1 regs 40 first_warp 0
// ROLES: ws.role "consumer0" warps 4 regs 232 first_warp 4
// ROLES: ws.role "consumer1" warps 4 regs 232 first_warp 8
// ROLES: ws.role "transposer" warps 3 regs 40 first_warp 1
// ROLES: ws.consumer_wait
// ROLES: ws.as_tensor %{{.*}} : memref<128x128xf8E4M3FN, 3> -> tensor<128x128xf8E4M3FN, #[[NVMMA:[a-z0-9_]+]]>
// ROLES: ws.producer_acquire
// ROLES: ws.transpose_shared %{{.*}}, %{{.*}}, %{{.*}} warps 3 {k_quad16, layout = #[[NVMMA]]}
// ROLES: ws.consumer_release
// ROLES: ws.producer_commit {{.*}} by  threads

// The manifest: v as k ([B, HKV, SK, 128]) in boxes of 128 keys of
// 128-byte rows.
// MANIFEST: "box": [
// MANIFEST: "box": [
// MANIFEST: "box": [
// MANIFEST-NEXT: 128,
// MANIFEST-NEXT: 128
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "kind": "tensor_map",
// MANIFEST-NEXT: "swizzle": 128,
// MANIFEST-NEXT: "tensor": "v"
// MANIFEST: "v": {
// MANIFEST-NEXT: "dtype": "f8e4m3",
// MANIFEST-NEXT: "role": "input",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: "B",
// MANIFEST-NEXT: "HKV",
// MANIFEST-NEXT: "SK",
// MANIFEST-NEXT: 128

//--- d128.mlir
fmha.attention @attn_fp8_tv (tensor<?x?x?x128xf8E4M3FN>,
                             tensor<?x?x?x128xf8E4M3FN>,
                             tensor<?x?x?x128xf8E4M3FN>, tensor<1xf32>,
                             tensor<1xf32>, tensor<1xf32>)
    -> tensor<?x?x?x128xbf16> transpose_v target sm_90a

//--- d128-wide-causal.mlir
fmha.attention @attn_fp8_tv (tensor<?x?x?x128xf8E4M3FN>,
                             tensor<?x?x?x128xf8E4M3FN>,
                             tensor<?x?x?x128xf8E4M3FN>, tensor<1xf32>,
                             tensor<1xf32>, tensor<1xf32>)
    -> tensor<?x?x?x128xbf16> transpose_v causal tile [64, 192]
    target sm_90a

//--- d64-causal.mlir
fmha.attention @attn_fp8_tv (tensor<?x?x?x64xf8E4M3FN>,
                             tensor<?x?x?x64xf8E4M3FN>,
                             tensor<?x?x?x64xf8E4M3FN>, tensor<1xf32>,
                             tensor<1xf32>, tensor<1xf32>)
    -> tensor<?x?x?x64xbf16> transpose_v causal tile [64, 160]
    target sm_90a

//--- d256.mlir
fmha.attention @attn_fp8_tv (tensor<?x?x?x256xf8E4M3FN>,
                             tensor<?x?x?x256xf8E4M3FN>,
                             tensor<?x?x?x256xf8E4M3FN>, tensor<1xf32>,
                             tensor<1xf32>, tensor<1xf32>)
    -> tensor<?x?x?x256xbf16> transpose_v target sm_90a
