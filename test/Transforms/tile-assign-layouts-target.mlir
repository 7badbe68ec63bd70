// RUN: fmha-opt %s -split-input-file -verify-diagnostics --tile-assign-layouts | FileCheck %s

// tile-assign-layouts (like ws-partition-roles) takes the target from the
// #nvvm.target chip of the kernel's gpu.module (fmha::TargetInfo), as the
// pipelines leave it after fmha-expand-kernels.

// An sm_100a module without the option: the accumulator goes to tensor
// memory.
// CHECK: #[[TMEM:[a-z0-9_]+]] = #tile.tmem<block = [128, 64], unpacked = true>
// CHECK-LABEL: gpu.module @blackwell
// CHECK: tile.dot {{.*}}, tensor<128x64xf32, #[[TMEM]]>
gpu.module @blackwell [#nvvm.target<chip = "sm_100a">] {
  gpu.func @gemm(%a: !tile.desc<tensor<128x64xbf16>>,
                 %b: !tile.desc<tensor<64x64xbf16>>,
                 %c: !tile.desc<tensor<128x64xbf16>>) kernel {
    %c0 = arith.constant 0 : i32
    %zero = arith.constant dense<0.0> : tensor<128x64xf32>
    %x = tile.load %a[%c0, %c0] : !tile.desc<tensor<128x64xbf16>>
    %y = tile.load %b[%c0, %c0] : !tile.desc<tensor<64x64xbf16>>
    %d = tile.dot %x, %y, %zero {transpose_b}
        : tensor<128x64xbf16>, tensor<64x64xbf16>, tensor<128x64xf32>
    %t = arith.truncf %d : tensor<128x64xf32> to tensor<128x64xbf16>
    tile.store %c[%c0, %c0], %t : !tile.desc<tensor<128x64xbf16>>
    gpu.return
  }
}

// -----

// An sm_90a module: wgmma accumulators, whose rows come in 64s.
gpu.module @hopper [#nvvm.target<chip = "sm_90a">] {
  gpu.func @acc_rows(%x: tensor<32x64xbf16>, %y: tensor<64x64xbf16>) kernel {
    %zero = arith.constant dense<0.0> : tensor<32x64xf32>
    // expected-error @+1 {{'tile.dot' op an sm90 accumulator tile is a multiple of 64 rows and 8 to 256 columns in steps of 8, got 32x64}}
    %d = tile.dot %x, %y, %zero {transpose_b} : tensor<32x64xbf16>, tensor<64x64xbf16>, tensor<32x64xf32>
    gpu.return
  }
}

// -----

// A kernel with tile ops and no target anywhere: the error says how to
// attach one. Functions without tile ops need none.
func.func @no_tile_ops() {
  return
}
// expected-error @+1 {{tile-assign-layouts: no target: put the kernel in a gpu.module with an #nvvm.target (gpu.module @kernels [#nvvm.target<chip = "sm_90a">], or chip = "sm_100a"; --nvvm-attach-target attaches one to every gpu.module)}}
func.func @untargeted(%x: tensor<64x64xbf16>, %y: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %x, %y, %zero {transpose_b} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

// A chip fmha does not compile for.
gpu.module @ampere [#nvvm.target<chip = "sm_80">] {
  // expected-error @+1 {{tile-assign-layouts: the gpu.module's target chip 'sm_80' is not one fmha compiles for (sm_90a, sm_100a)}}
  gpu.func @k(%x: tensor<64x64xbf16>, %y: tensor<64x64xbf16>) kernel {
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %d = tile.dot %x, %y, %zero {transpose_b} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    gpu.return
  }
}

// -----

// Kernels for two targets in one run: each gets the accumulator layout of
// its own target (fmha::TargetInfo::getAccumulatorLayout).
// CHECK-DAG: #[[WGMMA:[a-z0-9_]+]] = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
// CHECK-DAG: #[[TMEM2:[a-z0-9_]+]] = #tile.tmem<block = [128, 64], unpacked = true>
// CHECK-LABEL: gpu.module @one
// CHECK: tile.dot {{.*}}, tensor<64x64xf32, #[[WGMMA]]>
// CHECK-LABEL: gpu.module @two
// CHECK: tile.dot {{.*}}, tensor<128x64xf32, #[[TMEM2]]>
gpu.module @one [#nvvm.target<chip = "sm_90a">] {
  gpu.func @k(%a: !tile.desc<tensor<64x64xbf16>>) kernel {
    %c0 = arith.constant 0 : i32
    %zero = arith.constant dense<0.0> : tensor<64x64xf32>
    %x = tile.load %a[%c0, %c0] : !tile.desc<tensor<64x64xbf16>>
    %d = tile.dot %x, %x, %zero {transpose_b} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>
    gpu.return
  }
}
gpu.module @two [#nvvm.target<chip = "sm_100a">] {
  gpu.func @k(%a: !tile.desc<tensor<128x64xbf16>>,
              %b: !tile.desc<tensor<64x64xbf16>>) kernel {
    %c0 = arith.constant 0 : i32
    %zero = arith.constant dense<0.0> : tensor<128x64xf32>
    %x = tile.load %a[%c0, %c0] : !tile.desc<tensor<128x64xbf16>>
    %y = tile.load %b[%c0, %c0] : !tile.desc<tensor<64x64xbf16>>
    %d = tile.dot %x, %y, %zero {transpose_b} : tensor<128x64xbf16>, tensor<64x64xbf16>, tensor<128x64xf32>
    gpu.return
  }
}
