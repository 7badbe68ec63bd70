// RUN: fmha-opt %s --tile-assign-layouts | FileCheck %s

// Found by fuzz-smoke: tile-assign-layouts (then with target=sm100) built the
// #tile.tmem_32x32b layout before it looks at the program; on input without
// tile ops the tile dialect was not loaded and creating the attribute
// crashed. The pass now depends on the tile dialect.

// CHECK-LABEL: func.func @role_regs_too_many
gpu.module @kernels [#nvvm.target<chip = "sm_100a">] {
func.func @role_regs_too_many() {
  ws.warp_specialize {
    ws.role "producer" warps 1 regs 256 {
    }
  }
  return
}
}
