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
// NOSPILL: {{ }}0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

//--- sk.mlir
fmha.gemm @gemm_splitk (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b tile [64, 128, 64] stages 6 consumers 2 splits 2 target sm_90a

//--- sk1.mlir
fmha.gemm @gemm_splitk1 (tensor<?x?xf16>, tensor<?x?xf16>) -> tensor<?x?xf32>
    transpose_b tile [64, 64, 64] stages 8 consumers 1 splits 4 target sm_90a
