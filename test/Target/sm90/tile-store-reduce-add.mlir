// tile.store ... reduce add of an f32 tile, compiled by the whole sm_90a
// pipeline to PTX that ptxas accepts without spills: the consumer stages
// its accumulator in shared memory as for any TMA store, and its leader
// adds it to global memory with cp.reduce.async.bulk.tensor...add (the
// attention backward's dQ partials into dq_acc), committed as a bulk
// group and waited for before the buffer is reused.
//
// RUN: fmha-opt %s --fmha-pipeline | fmha-translate --fmha-extract-object > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
//
// NOSPILL: {{ }}0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// CHECK: .target sm_90a
// CHECK-LABEL: .entry red(
// CHECK: wgmma.mma_async
// CHECK: fence.proxy.async.shared::cta
// CHECK: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group
// CHECK-NOT: cp.async.bulk.tensor.2d.global.shared::cta
// CHECK: cp.async.bulk.commit_group
// CHECK: cp.async.bulk.wait_group.read 0
module attributes {gpu.container_module} {
  gpu.module @red_module [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    gpu.func @red(%a: !tile.desc<tensor<64x64xbf16>>, %b: !tile.desc<tensor<128x64xbf16>>, %out: !tile.desc<tensor<64x128xf32>>, %steps: i32) kernel {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c64 = arith.constant 64 : i32
      %pid = tile.program_id x : i32
      %m0 = arith.muli %pid, %c64 : i32
      %zero = arith.constant dense<0.0> : tensor<64x128xf32>
      %acc = scf.for %i = %c0 to %steps step %c1 iter_args(%sum = %zero) -> (tensor<64x128xf32>) : i32 {
        %k0 = arith.muli %i, %c64 : i32
        %x = tile.load %a[%m0, %k0] : !tile.desc<tensor<64x64xbf16>>
        %y = tile.load %b[%c0, %k0] : !tile.desc<tensor<128x64xbf16>>
        %d = tile.dot %x, %y, %sum {transpose_b} : tensor<64x64xbf16>, tensor<128x64xbf16>, tensor<64x128xf32>
        scf.yield %d : tensor<64x128xf32>
      }
      tile.store %out[%m0, %c0], %acc reduce add : !tile.desc<tensor<64x128xf32>>
      gpu.return
    }
  }
}
