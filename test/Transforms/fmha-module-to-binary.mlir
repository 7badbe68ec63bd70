// RUN: fmha-opt %s --fmha-module-to-binary=format=isa | FileCheck %s
// RUN: not fmha-opt %s "--fmha-module-to-binary=format=bin toolkit=/nonexistent" -o %t 2>&1 | FileCheck %s --check-prefix=TOOLKIT

// PTX (format=isa) needs no toolkit: the gpu.module becomes a gpu.binary
// holding the kernel's PTX.
// CHECK: gpu.binary @m
// CHECK-SAME: .entry k
// CHECK-NOT: gpu.module

// A cubin through a toolkit that does not exist: upstream
// gpu-module-to-binary reports the error but succeeds; this pass fails, so
// fmha-opt exits non-zero (`not`).
// TOOLKIT: error: CUDA path: /nonexistent does not exist

module attributes {gpu.container_module} {
  gpu.module @m [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    llvm.func @k() attributes {nvvm.kernel} {
      llvm.return
    }
  }
}
