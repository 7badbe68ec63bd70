// RUN: fmha-opt %s -split-input-file -verify-diagnostics --fmha-verify-target=target=sm100

// The sm_100a pipeline's first pass, the other way round.

// expected-error @+1 {{'fmha.gemm' op targets sm_90a, but this is the sm_100a pipeline: compile it with --fmha-sm90-pipeline}}
fmha.gemm @g (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b target sm_90a

// -----

module attributes {gpu.container_module} {
  // expected-error @+1 {{'gpu.module' op targets chip sm_90a, but this is the sm_100a pipeline: compile it with --fmha-sm90-pipeline}}
  gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}

// -----

// A wgmma accumulator (sm_90a) in a kernel for sm_100a.
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @k [#nvvm.target<chip = "sm_100a", features = "+ptx86">] {
    gpu.func @k() kernel {
      // expected-error-re @+1 {{'arith.constant' op uses tensor<64x64xf32, #tile.wgmma_acc<{{.*}}>>, which only sm_90a has, but this is the sm_100a pipeline: compile it with --fmha-sm90-pipeline (and chip sm_90a)}}
      %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
      gpu.return
    }
  }
}

// -----

// Kernels in clusters are sm_100a's.
module attributes {gpu.container_module} {
  gpu.module @k [#nvvm.target<chip = "sm_100a", features = "+ptx86">] {
    gpu.func @k() kernel attributes {ws.cta_pair} {
      gpu.return
    }
  }
}
