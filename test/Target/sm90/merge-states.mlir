// fmha.merge_states compiled by the whole sm_90a pipeline down to PTX that
// ptxas accepts without spills, and its launch manifest: one role of one
// warpgroup without a register budget (no setmaxnreg), the states' lse rows
// by predicated scalar loads, their o tiles by predicated 128-bit loads,
// O by 16-byte stores and lse by scalar stores, no shared memory.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: fmha-opt %t/merge.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/merge.ptx
// RUN: FileCheck %s < %t/merge.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/merge.ptx -o %t/merge.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/merge.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST
//
// f16 at head dims 64 and 256, and 24 (three 16-byte pieces a row).
// RUN: fmha-opt %t/d64.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d64.ptx
// RUN: FileCheck %s --check-prefix=D64 < %t/d64.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/d64.ptx -o %t/d64.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/d256.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d256.ptx
// RUN: FileCheck %s --check-prefix=D256 < %t/d256.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/d256.ptx -o %t/d256.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/d24.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d24.ptx
// RUN: FileCheck %s --check-prefix=D24 < %t/d24.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/d24.ptx -o %t/d24.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
//
// NOSPILL: {{ }}0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// CHECK: .target sm_90a
// CHECK-LABEL: .entry merge(
// CHECK-NOT: .minnctapersm
// CHECK-NOT: setmaxnreg
// CHECK-NOT: .shared
// CHECK-NOT: mbarrier
// Pass 1: each state's lse rows.
// CHECK: @p ld.global.b32
// CHECK: ex2.approx
// CHECK: lg2.approx
// Pass 2: the weights, then the state's o tile in 128-bit pieces.
// CHECK: @p ld.global.v4.b32
// The results.
// CHECK: st.global.v4.b32
// CHECK: st.global.b32

// The kernel reads its four tensors through strided memrefs; a CTA per 32
// rows of one head of one sequence.
// MANIFEST: "block": [
// MANIFEST-NEXT: 128,
// MANIFEST: "dynamic_smem": 0,
// MANIFEST: "grid": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "ceildiv": [
// MANIFEST-NEXT: "T",
// MANIFEST-NEXT: 32
// MANIFEST: "H",
// MANIFEST-NEXT: "B"
// MANIFEST: "kind": "memref",
// MANIFEST-NEXT: "strided": true,
// MANIFEST-NEXT: "tensor": "o_states"
// MANIFEST: "kind": "memref",
// MANIFEST-NEXT: "strided": true,
// MANIFEST-NEXT: "tensor": "lse_states"
// MANIFEST: "kind": "memref",
// MANIFEST-NEXT: "strided": true,
// MANIFEST-NEXT: "tensor": "o"
// MANIFEST: "kind": "memref",
// MANIFEST-NEXT: "strided": true,
// MANIFEST-NEXT: "tensor": "lse"
// MANIFEST: "o_states": {
// MANIFEST-NEXT: "dtype": "bf16",
// MANIFEST-NEXT: "role": "input",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: "S",
// MANIFEST-NEXT: "B",
// MANIFEST-NEXT: "T",
// MANIFEST-NEXT: "H",
// MANIFEST-NEXT: 128

// D64-LABEL: .entry merge_d64(
// D64: @p ld.global.v4.b32
// D64: st.global.v4.b32
// D256-LABEL: .entry merge_d256(
// D256: @p ld.global.v4.b32
// D256: st.global.v4.b32
// D24-LABEL: .entry merge_d24(
// D24: @p ld.global.v4.b32
// D24: st.global.v4.b32

//--- merge.mlir
fmha.merge_states @merge (tensor<?x?x?x?x128xbf16>, tensor<?x?x?x?xf32>)
    -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) target sm_90a

//--- d64.mlir
fmha.merge_states @merge_d64 (tensor<?x?x?x?x64xf16>, tensor<?x?x?x?xf32>)
    -> (tensor<?x?x?x64xf16>, tensor<?x?x?xf32>) target sm_90a

//--- d256.mlir
fmha.merge_states @merge_d256 (tensor<?x?x?x?x256xf16>, tensor<?x?x?x?xf32>)
    -> (tensor<?x?x?x256xf16>, tensor<?x?x?xf32>) target sm_90a

//--- d24.mlir
fmha.merge_states @merge_d24 (tensor<?x?x?x?x24xf16>, tensor<?x?x?x?xf32>)
    -> (tensor<?x?x?x24xf16>, tensor<?x?x?xf32>) target sm_90a
