// RUN: fmha-opt %s --fmha-pipeline=binary=none | FileCheck %s

// One pipeline for every target: each kernel is compiled for the target its
// op names (the #nvvm.target fmha-expand-kernels attaches, which every pass
// reads through fmha::TargetInfo), so a module may hold kernels for both.
// CHECK-LABEL: gpu.module @hopper_module [#nvvm.target<O = 3, chip = "sm_90a"
// CHECK: wgmma.mma_async
// CHECK-NOT: tcgen05
// CHECK-LABEL: gpu.module @blackwell_module [#nvvm.target<O = 3, chip = "sm_100a"
// CHECK-NOT: wgmma
// CHECK: tcgen05.mma
fmha.gemm @hopper (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b target sm_90a
fmha.gemm @blackwell (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b target sm_100a
