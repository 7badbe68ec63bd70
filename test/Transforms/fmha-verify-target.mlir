// RUN: fmha-opt %s -split-input-file -verify-diagnostics --fmha-verify-target=target=sm90

// What the sm_90a pipeline's first pass rejects, one case per rule; each
// error names the pipeline to use or how to attach a target.

// An op for the other target.
// expected-error @+1 {{'fmha.gemm' op targets sm_100a, but this is the sm_90a pipeline: compile it with --fmha-sm100-pipeline}}
fmha.gemm @g (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b target sm_100a

// -----

// expected-error @+1 {{'fmha.attention' op targets sm_100a, but this is the sm_90a pipeline: compile it with --fmha-sm100-pipeline}}
fmha.attention @a (tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>,
                   tensor<?x8x?x128xbf16>) -> tensor<?x8x?x128xbf16>
    target sm_100a

// -----

// A gpu.module for the other chip.
module attributes {gpu.container_module} {
  // expected-error @+1 {{'gpu.module' op targets chip sm_100a, but this is the sm_90a pipeline: compile it with --fmha-sm100-pipeline}}
  gpu.module @k [#nvvm.target<chip = "sm_100a", features = "+ptx86">] {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}

// -----

// A chip fmha does not compile for.
module attributes {gpu.container_module} {
  // expected-error @+1 {{'gpu.module' op targets chip sm_80, but this is the sm_90a pipeline: fmha compiles for sm_90a (--fmha-sm90-pipeline) and sm_100a (--fmha-sm100-pipeline)}}
  gpu.module @k [#nvvm.target<chip = "sm_80">] {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}

// -----

// A ws kernel without a target.
module attributes {gpu.container_module} {
  // expected-error @+1 {{'gpu.module' op has no target: attach one with --nvvm-attach-target="module=k chip=sm_90a features=+ptx86" before the pipeline, or give it the attribute `targets = [#nvvm.target<chip = "sm_90a", features = "+ptx86">]`}}
  gpu.module @k {
    gpu.func @k() kernel {
      %ch = ws.channel : !ws.channel<[memref<128xf32, 3>], stages = 2>
      gpu.return
    }
  }
}

// -----

// An sm_100a op in a kernel for sm_90a.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
module attributes {gpu.container_module} {
  gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
    gpu.func @k(%abuf: memref<128x64xbf16, 3>, %bbuf: memref<256x64xbf16, 3>,
                %d: memref<128x256xf32, #ws.tmem>, %acc: i1) kernel {
      ws.warp_specialize {
        ws.role "mma" warps 1 {
          %a = ws.as_tensor %abuf : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #smem>
          %b = ws.as_tensor %bbuf : memref<256x64xbf16, 3> -> tensor<256x64xbf16, #smem>
          // expected-error @+1 {{'ws.tcgen05_mma' op is a tcgen05/tensor-memory operation, which only sm_100a has, but this is the sm_90a pipeline: compile it with --fmha-sm100-pipeline (and chip sm_100a)}}
          ws.tcgen05_mma %a, %b, %d, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<256x64xbf16, #smem>, memref<128x256xf32, #ws.tmem>
        }
      }
      gpu.return
    }
  }
}

// -----

// Ops for sm_90a pass.
fmha.gemm @g (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b target sm_90a
