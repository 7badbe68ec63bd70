// RUN: not fmha-opt %s --fmha-sm100-pipeline=binary=none 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not fmha-opt %s "--fmha-sm90-pipeline=binary=bin toolkit=/nonexistent" -o %t 2>&1 | FileCheck %s --check-prefix=TOOLKIT
// RUN: not fmha-opt %S/../../../examples/ws-row-sum.mlir --fmha-sm90-pipeline 2>&1 | FileCheck %s --check-prefix=NOTARGET

// Every error of a pipeline makes fmha-opt exit non-zero (`not`), and the
// first pass says which pipeline a module needs.

// An sm_90a op through the sm_100a pipeline is named as such, not found
// deep in the lowering ("'nvvm.wgmma...' op is not supported on sm_100a").
// MISMATCH: error: 'fmha.gemm' op targets sm_90a, but this is the sm_100a pipeline: compile it with --fmha-sm90-pipeline
// MISMATCH-NOT: nvvm

// A toolkit that does not exist: upstream gpu-module-to-binary reports it
// but succeeded, and fmha-opt exited 0 with an object.
// TOOLKIT: error: CUDA path: /nonexistent does not exist

// A ws kernel without a target: the error says how to attach one.
// NOTARGET: error: 'gpu.module' op has no target: attach one with --nvvm-attach-target="module=kernels chip=sm_90a features=+ptx86"
fmha.gemm @g (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b target sm_90a
