// fmha.transpose_values compiled by the whole sm_100a pipeline down to PTX
// that ptxas accepts without spills, and its launch manifest: one role of
// one warpgroup without a register budget (no setmaxnreg), no shared
// memory; each thread loads one key's row of v by predicated 128-bit loads
// (head_dim / 16 of them) and stores it byte by byte (head_dim stores, no
// vectors) down its column of vt, `keys` bytes apart: the same code as on
// sm_90a (no Blackwell GPU runs it here).
//
// RUN: rm -rf %t && split-file %s %t
// RUN: fmha-opt %t/d128.mlir --fmha-sm100-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d128.ptx
// RUN: FileCheck %s < %t/d128.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/d128.ptx -o %t/d128.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/d128.mlir --fmha-sm100-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST
//
// Head dim 64 (8 KV heads), and head dim 256 in f8E5M2.
// RUN: fmha-opt %t/d64.mlir --fmha-sm100-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d64.ptx
// RUN: FileCheck %s --check-prefix=D64 < %t/d64.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/d64.ptx -o %t/d64.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/d256.mlir --fmha-sm100-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d256.ptx
// RUN: FileCheck %s --check-prefix=D256 < %t/d256.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/d256.ptx -o %t/d256.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/d256.mlir --fmha-sm100-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST256
//
// NOSPILL: {{ }}0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// CHECK: .target sm_100a
// CHECK-LABEL: .entry transpose_values(
// CHECK-NOT: .minnctapersm
// CHECK-NOT: setmaxnreg
// CHECK-NOT: .shared
// CHECK-NOT: mbarrier
// vt's keys (its innermost size): the stride of the view's columns.
// CHECK: ld.param.b64 [[KEYS:%rd[0-9]+]], [transpose_values_param_17];
// CHECK-COUNT-8: @p ld.global.v4.b32
// CHECK-NOT: st.global.v
// CHECK: st.global.b8 {{\[}}[[ADDR:%rd[0-9]+]]{{\]}}
// CHECK: add.s64 {{%rd[0-9]+}}, [[ADDR]], [[KEYS]];
// CHECK-COUNT-127: st.global.b8
// CHECK-NOT: st.global
// CHECK-NOT: mbarrier
// CHECK: ret;

// A CTA per 128 keys of one KV head of one sequence (head dim 128).
// MANIFEST: "block": [
// MANIFEST-NEXT: 128,
// MANIFEST: "dynamic_smem": 0,
// MANIFEST: "grid": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "ceildiv": [
// MANIFEST-NEXT: "K",
// MANIFEST-NEXT: 128
// MANIFEST: "H",
// MANIFEST-NEXT: "B"
// MANIFEST: "params": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "kind": "memref",
// MANIFEST-NEXT: "strided": true,
// MANIFEST-NEXT: "tensor": "v"
// MANIFEST-NEXT: },
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "kind": "memref",
// MANIFEST-NEXT: "tensor": "vt"
// MANIFEST: "target": "sm_100a",
// MANIFEST: "v": {
// MANIFEST-NEXT: "dtype": "f8e4m3",
// MANIFEST-NEXT: "role": "input",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: "B",
// MANIFEST-NEXT: "H",
// MANIFEST-NEXT: "S",
// MANIFEST-NEXT: 128
// MANIFEST: "vt": {
// MANIFEST-NEXT: "dtype": "f8e4m3",
// MANIFEST-NEXT: "role": "output",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: "B",
// MANIFEST-NEXT: "H",
// MANIFEST-NEXT: 128,
// MANIFEST-NEXT: "K"

// D64-LABEL: .entry transpose_values_d64(
// D64-NOT: .shared
// D64-COUNT-4: @p ld.global.v4.b32
// D64-NOT: st.global.v
// D64-COUNT-64: st.global.b8
// D64-NOT: st.global
// D64: ret;

// D256-LABEL: .entry transpose_values_d256(
// D256-NOT: .shared
// D256-COUNT-16: @p ld.global.v4.b32
// D256-NOT: st.global.v
// D256-COUNT-256: st.global.b8
// D256-NOT: st.global
// D256: ret;

// MANIFEST256: "block": [
// MANIFEST256-NEXT: 128,
// MANIFEST256: "dynamic_smem": 0,
// MANIFEST256: "vt": {
// MANIFEST256-NEXT: "dtype": "f8e5m2",
// MANIFEST256-NEXT: "role": "output",
// MANIFEST256-NEXT: "shape": [
// MANIFEST256-NEXT: "B",
// MANIFEST256-NEXT: "H",
// MANIFEST256-NEXT: 256,
// MANIFEST256-NEXT: "K"

//--- d128.mlir
fmha.transpose_values @transpose_values (tensor<?x?x?x128xf8E4M3FN>)
    -> tensor<?x?x128x?xf8E4M3FN> target sm_100a

//--- d64.mlir
fmha.transpose_values @transpose_values_d64 (tensor<?x8x?x64xf8E4M3FN>)
    -> tensor<?x8x64x?xf8E4M3FN> target sm_100a

//--- d256.mlir
fmha.transpose_values @transpose_values_d256 (tensor<?x?x?x256xf8E5M2>)
    -> tensor<?x?x256x?xf8E5M2> target sm_100a
