// RUN: rm -rf %t && split-file %s %t
// RUN: not fmha-opt %t/tcgen05.mlir --fmha-pipeline=binary=none 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not fmha-opt %t/gemm.mlir "--fmha-pipeline=binary=bin toolkit=/nonexistent" -o %t/gemm.o 2>&1 | FileCheck %s --check-prefix=TOOLKIT
// RUN: not fmha-opt %S/../../../examples/ws-row-sum.mlir --fmha-pipeline 2>&1 | FileCheck %s --check-prefix=NOTARGET

// Every error of the pipeline makes fmha-opt exit non-zero (`not`), and the
// first pass says what a kernel's target lacks or how to attach one.

// A tcgen05 op in a kernel for sm_90a is named as such, not found deep in
// the lowering.
// MISMATCH: error: 'ws.tcgen05_mma' op is a tcgen05/tensor-memory operation, which sm_90a (the gpu.module's #nvvm.target) does not have: it needs sm_100a
// MISMATCH-NOT: nvvm

// A toolkit that does not exist: upstream gpu-module-to-binary reports it
// but succeeded, and fmha-opt exited 0 with an object.
// TOOLKIT: error: CUDA path: /nonexistent does not exist

// A ws kernel without a target: the error says how to attach one.
// NOTARGET: error: 'gpu.module' op has no target: attach one with --nvvm-attach-target="module=kernels chip=sm_90a features=+ptx86"

//--- gemm.mlir
fmha.gemm @g (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b target sm_90a

//--- tcgen05.mlir
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
module attributes {gpu.container_module} {
  gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
    gpu.func @k(%abuf: memref<128x64xbf16, 3>, %bbuf: memref<256x64xbf16, 3>,
                %d: memref<128x256xf32, #ws.tmem>, %acc: i1) kernel {
      ws.warp_specialize {
        ws.role "mma" warps 1 {
          %a = ws.as_tensor %abuf : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #smem>
          %b = ws.as_tensor %bbuf : memref<256x64xbf16, 3> -> tensor<256x64xbf16, #smem>
          ws.tcgen05_mma %a, %b, %d, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<256x64xbf16, #smem>, memref<128x256xf32, #ws.tmem>
        }
      }
      gpu.return
    }
  }
}
