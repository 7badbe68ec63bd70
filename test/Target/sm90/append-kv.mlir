// fmha.append_kv compiled by the whole sm_90a pipeline down to PTX that
// ptxas accepts without spills, and its launch manifest: one role of one
// warpgroup without a register budget (no setmaxnreg), the cache length
// (and the page) by scalar loads, the new rows by predicated 128-bit loads
// and bounded 128-bit stores, no shared memory.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: fmha-opt %t/dense.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/dense.ptx
// RUN: FileCheck %s < %t/dense.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/dense.ptx -o %t/dense.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/dense.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST
//
// Paged caches, f16 at head dims 64 and 256.
// RUN: fmha-opt %t/paged.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/paged.ptx
// RUN: FileCheck %s --check-prefix=PAGED < %t/paged.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/paged.ptx -o %t/paged.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/paged.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=PMANIFEST
// RUN: fmha-opt %t/paged256.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/paged256.ptx
// RUN: FileCheck %s --check-prefix=PAGED256 < %t/paged256.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/paged256.ptx -o %t/paged256.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
//
// NOSPILL: {{ }}0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// CHECK: .target sm_90a
// CHECK-LABEL: .entry append(
// CHECK-NOT: .minnctapersm
// CHECK-NOT: setmaxnreg
// CHECK-NOT: .shared
// CHECK-NOT: mbarrier
// CHECK: ld.global.b32
// CHECK: @p ld.global.v4.b32
// CHECK: st.global.v4.b32

// A CTA per 8 new tokens of one KV head of one sequence (head dim 128).
// MANIFEST: "block": [
// MANIFEST-NEXT: 128,
// MANIFEST: "dynamic_smem": 0,
// MANIFEST: "grid": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "ceildiv": [
// MANIFEST-NEXT: "N",
// MANIFEST-NEXT: 8
// MANIFEST: 8,
// MANIFEST-NEXT: "B"
// MANIFEST: "kind": "memref",
// MANIFEST-NEXT: "strided": true,
// MANIFEST-NEXT: "tensor": "k_new"
// MANIFEST: "kind": "memref",
// MANIFEST-NEXT: "strided": true,
// MANIFEST-NEXT: "tensor": "v_new"
// MANIFEST: "kind": "memref",
// MANIFEST-NEXT: "tensor": "cache_seqlens"
// MANIFEST: "kind": "memref",
// MANIFEST-NEXT: "strided": true,
// MANIFEST-NEXT: "tensor": "k_cache"
// MANIFEST: "k_cache": {
// MANIFEST-NEXT: "dtype": "bf16",
// MANIFEST-NEXT: "role": "output",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: "B",
// MANIFEST-NEXT: "C",
// MANIFEST-NEXT: 8,
// MANIFEST-NEXT: 128

// PAGED-LABEL: .entry append_paged_d64(
// PAGED: @p ld.global.v4.b32
// PAGED: st.global.v4.b32
// The page of each group of positions, read from the block table.
// PAGED256-LABEL: .entry append_paged_d256(
// PAGED256: ld.global.b32
// PAGED256: @p ld.global.v4.b32
// PAGED256: st.global.v4.b32

// PMANIFEST: "tensor": "block_table"
// PMANIFEST: "k_cache": {
// PMANIFEST-NEXT: "dtype": "f16",
// PMANIFEST-NEXT: "role": "output",
// PMANIFEST-NEXT: "shape": [
// PMANIFEST-NEXT: "NP",
// PMANIFEST-NEXT: 64,

//--- dense.mlir
fmha.append_kv @append (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>,
                        tensor<?xi32>)
    -> (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>) target sm_90a

//--- paged.mlir
fmha.append_kv @append_paged_d64 (tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>,
                                  tensor<?xi32>, tensor<?x?xi32>)
    -> (tensor<?x64x?x64xf16>, tensor<?x64x?x64xf16>) target sm_90a

//--- paged256.mlir
fmha.append_kv @append_paged_d256 (tensor<?x?x?x256xf16>,
                                   tensor<?x?x?x256xf16>, tensor<?xi32>,
                                   tensor<?x?xi32>)
    -> (tensor<?x16x?x256xf16>, tensor<?x16x?x256xf16>) target sm_90a
