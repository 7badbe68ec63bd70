// A tile program whose dot takes A given as [K, M] (transpose_a), compiled
// by the whole sm_90a pipeline to PTX that ptxas accepts without spills:
// dQ = dS K of the attention backward's main kernel, over key blocks, with
// dS^T [keys, queries] and K [keys, head_dim] both loaded by TMA as they
// are stored, so that wgmma reads both MN-major (the instruction's
// imm-trans-a and imm-trans-b are 1).
//
// RUN: fmha-opt %s --fmha-pipeline | fmha-translate --fmha-extract-object > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
//
// NOSPILL: {{ }}0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// CHECK: .target sm_90a
// CHECK-LABEL: .entry dq(
// CHECK: cp.async.bulk.tensor.2d.shared::cta.global
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.+}}, p, 1, 1, 1, 1;
module attributes {gpu.container_module} {
  gpu.module @dq_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @dq(%ds: !tile.desc<tensor<64x128xbf16>>, %k: !tile.desc<tensor<64x128xbf16>>, %out: !tile.desc<tensor<128x128xf32>>, %steps: i32) kernel {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c64 = arith.constant 64 : i32
      %c128 = arith.constant 128 : i32
      %pid = tile.program_id x : i32
      %m0 = arith.muli %pid, %c128 : i32
      %zero = arith.constant dense<0.0> : tensor<128x128xf32>
      %acc = scf.for %i = %c0 to %steps step %c1 iter_args(%sum = %zero) -> (tensor<128x128xf32>) : i32 {
        %k0 = arith.muli %i, %c64 : i32
        %a = tile.load %ds[%k0, %m0] : !tile.desc<tensor<64x128xbf16>>
        %b = tile.load %k[%k0, %c0] : !tile.desc<tensor<64x128xbf16>>
        %d = tile.dot %a, %b, %sum {transpose_a} : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<128x128xf32>
        scf.yield %d : tensor<128x128xf32>
      }
      tile.store %out[%m0, %c0], %acc : !tile.desc<tensor<128x128xf32>>
      gpu.return
    }
  }
}
