// RUN: fmha-opt %s -canonicalize | FileCheck %s

#reg = #tile.tmem_32x32b<warpgroups = 1>
#tm = #tile.tmem<block = [128, 128], unpacked = true>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>

// A conversion to the same type folds away.
// CHECK-LABEL: func.func @convert_layout_same_type
// CHECK-SAME: (%[[X:.+]]: tensor<128x128xf32, #{{.+}}>)
// CHECK-NEXT: return %[[X]]
func.func @convert_layout_same_type(%x: tensor<128x128xf32, #reg>) -> tensor<128x128xf32, #reg> {
  %0 = tile.convert_layout %x : tensor<128x128xf32, #reg> -> tensor<128x128xf32, #reg>
  return %0 : tensor<128x128xf32, #reg>
}

// A round trip through another layout folds away.
// CHECK-LABEL: func.func @convert_layout_round_trip
// CHECK-SAME: (%[[X:.+]]: tensor<128x128xf32, #{{.+}}>)
// CHECK-NEXT: return %[[X]]
func.func @convert_layout_round_trip(%x: tensor<128x128xf32, #tm>) -> tensor<128x128xf32, #tm> {
  %0 = tile.convert_layout %x : tensor<128x128xf32, #tm> -> tensor<128x128xf32, #reg>
  %1 = tile.convert_layout %0 : tensor<128x128xf32, #reg> -> tensor<128x128xf32, #tm>
  return %1 : tensor<128x128xf32, #tm>
}

// Two conversions in a row become one.
// CHECK-LABEL: func.func @convert_layout_chain
// CHECK-SAME: (%[[X:.+]]: tensor<128x128xf32, #[[TM:.+]]>)
// CHECK-NEXT: %[[Y:.+]] = tile.convert_layout %[[X]] : tensor<128x128xf32, #[[TM]]> -> tensor<128x128xf32, #[[ACC:.+]]>
// CHECK-NEXT: return %[[Y]]
func.func @convert_layout_chain(%x: tensor<128x128xf32, #tm>) -> tensor<128x128xf32, #acc> {
  %0 = tile.convert_layout %x : tensor<128x128xf32, #tm> -> tensor<128x128xf32, #reg>
  %1 = tile.convert_layout %0 : tensor<128x128xf32, #reg> -> tensor<128x128xf32, #acc>
  return %1 : tensor<128x128xf32, #acc>
}

// Unused pure ops and unused loads (which only read memory) go away; stores
// stay.
// CHECK-LABEL: func.func @dead_code
// CHECK-NEXT: %[[I:.+]] = tile.program_id x : i32
// CHECK-NEXT: tile.store %{{.+}}[%[[I]], %[[I]]]
// CHECK-NEXT: return
func.func @dead_code(%d: !tile.desc<tensor<64x64xf16>>, %a: tensor<64x64xf16>, %c: tensor<64x64xf32>) {
  %i = tile.program_id x : i32
  %0 = tile.dot %a, %a, %c : tensor<64x64xf16>, tensor<64x64xf16>, tensor<64x64xf32>
  %1 = tile.iota axis 0 : tensor<64x64xi32>
  %2 = tile.load %d[%i, %i] : !tile.desc<tensor<64x64xf16>>
  tile.store %d[%i, %i], %a : !tile.desc<tensor<64x64xf16>>
  return
}
