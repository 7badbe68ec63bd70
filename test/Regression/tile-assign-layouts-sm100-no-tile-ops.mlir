// RUN: fmha-opt %s --tile-assign-layouts=target=sm100 | FileCheck %s

// Found by fuzz-smoke: tile-assign-layouts{target=sm100} builds the
// #tile.tmem_32x32b layout before it looks at the program; on input without
// tile ops the tile dialect was not loaded and creating the attribute
// crashed. The pass now depends on the tile dialect.

// CHECK-LABEL: func.func @role_regs_too_many
func.func @role_regs_too_many() {
  ws.warp_specialize {
    ws.role "producer" warps 1 regs 256 {
    }
  }
  return
}
