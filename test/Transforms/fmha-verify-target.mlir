// RUN: fmha-opt %s -split-input-file -verify-diagnostics --fmha-verify-target

// What the pipeline's first pass rejects, one case per rule: each kernel is
// checked against its own target (its gpu.module's #nvvm.target), and what
// a target has is what fmha::TargetInfo says.

// fmha ops name their targets; ops for both targets pass in one module.
fmha.gemm @g90 (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b target sm_90a
fmha.gemm @g100 (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b target sm_100a

// -----

// A chip fmha does not compile for.
module attributes {gpu.container_module} {
  // expected-error @+1 {{'gpu.module' op targets chip sm_80, which fmha does not compile for (it compiles for sm_90a, sm_100a)}}
  gpu.module @k [#nvvm.target<chip = "sm_80">] {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}

// -----

// Two chips for one kernel.
module attributes {gpu.container_module} {
  // expected-error @+1 {{'gpu.module' op targets chips sm_90a and sm_100a: fmha compiles a kernel for one target}}
  gpu.module @k [#nvvm.target<chip = "sm_90a">, #nvvm.target<chip = "sm_100a">] {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}

// -----

// A ws kernel without a target.
module attributes {gpu.container_module} {
  // expected-error @+1 {{'gpu.module' op has no target: attach one with --nvvm-attach-target="module=k chip=sm_90a features=+ptx86" (fmha compiles for sm_90a, sm_100a) before the pipeline, or give it the attribute `targets = [#nvvm.target<chip = "sm_90a", features = "+ptx86">]`}}
  gpu.module @k {
    gpu.func @k() kernel {
      %ch = ws.channel : !ws.channel<[memref<128xf32, 3>], stages = 2>
      gpu.return
    }
  }
}

// -----

// A gpu.module without a target and without tile or ws ops is not fmha's.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}

// -----

// A tcgen05 op in a kernel for sm_90a.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
module attributes {gpu.container_module} {
  gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
    gpu.func @k(%abuf: memref<128x64xbf16, 3>, %bbuf: memref<256x64xbf16, 3>,
                %d: memref<128x256xf32, #ws.tmem>, %acc: i1) kernel {
      ws.warp_specialize {
        ws.role "mma" warps 1 {
          %a = ws.as_tensor %abuf : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #smem>
          %b = ws.as_tensor %bbuf : memref<256x64xbf16, 3> -> tensor<256x64xbf16, #smem>
          // expected-error @+1 {{'ws.tcgen05_mma' op is a tcgen05/tensor-memory operation, which sm_90a (the gpu.module's #nvvm.target) does not have: it needs sm_100a}}
          ws.tcgen05_mma %a, %b, %d, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<256x64xbf16, #smem>, memref<128x256xf32, #ws.tmem>
        }
      }
      gpu.return
    }
  }
}

// -----

// A wgmma accumulator in a kernel for sm_100a.
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @k [#nvvm.target<chip = "sm_100a", features = "+ptx86">] {
    gpu.func @k() kernel {
      // expected-error-re @+1 {{'arith.constant' op uses tensor<64x64xf32, #tile.wgmma_acc<{{.*}}>>, which sm_100a (the gpu.module's #nvvm.target) does not have: it needs sm_90a}}
      %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
      gpu.return
    }
  }
}

// -----

// A kernel of CTA pairs for sm_90a.
module attributes {gpu.container_module} {
  gpu.module @k [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
    // expected-error @+1 {{'gpu.func' op is a kernel of CTA pairs ('ws.cta_pair'), which sm_90a (the gpu.module's #nvvm.target) does not have: it needs sm_100a}}
    gpu.func @k() kernel attributes {ws.cta_pair} {
      gpu.return
    }
  }
}

// -----

// Kernels of CTA pairs on sm_100a, and multicast on both, pass.
module attributes {gpu.container_module} {
  gpu.module @pair [#nvvm.target<chip = "sm_100a", features = "+ptx86">] {
    gpu.func @k() kernel attributes {ws.cta_pair} {
      gpu.return
    }
  }
  gpu.module @multicast90 [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
    gpu.func @k() kernel attributes {ws.multicast} {
      gpu.return
    }
  }
}
