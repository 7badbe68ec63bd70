// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-allocate-smem | FileCheck %s

// Buffers first, each on a 1024-byte boundary, then the 8-byte mbarriers;
// the total is recorded on the function.
// CHECK-LABEL: func.func @offsets
// CHECK-SAME: ws.smem_bytes = 50216 : i64
// CHECK: ws.buffer_alloc offset 0 : memref<2x128x64xbf16, 3>
// CHECK: ws.buffer_alloc offset 32768 : memref<3x1000xf32, 3>
// CHECK: ws.mbarrier_alloc arrivals 1 offset 50176 : !ws.mbarrier<2>
// CHECK: ws.buffer_alloc offset 45056 : memref<5x512xbf16, 3>
// CHECK: ws.mbarrier_alloc arrivals 128 offset 50192 : !ws.mbarrier<3>
func.func @offsets() {
  %a = ws.buffer_alloc : memref<2x128x64xbf16, 3>
  %b = ws.buffer_alloc : memref<3x1000xf32, 3>
  %f = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
  %c = ws.buffer_alloc : memref<5x512xbf16, 3>
  %e = ws.mbarrier_alloc arrivals 128 : !ws.mbarrier<3>
  return
}

// -----

// Offsets given by hand stay; the rest go after them.
// CHECK-LABEL: func.func @fixed
// CHECK: ws.buffer_alloc offset 4096 : memref<2x64xf32, 3>
// CHECK: ws.buffer_alloc offset 5120 : memref<2x64xf32, 3>
// CHECK: ws.mbarrier_alloc arrivals 1 offset 5632 : !ws.mbarrier<1>
func.func @fixed() {
  %a = ws.buffer_alloc offset 4096 : memref<2x64xf32, 3>
  %b = ws.buffer_alloc : memref<2x64xf32, 3>
  %f = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<1>
  return
}

// -----

// expected-error @+1 {{kernel needs 262152 bytes of shared memory (262144 in buffers), but a CTA can have at most 232448}}
func.func @too_big() {
  %a = ws.buffer_alloc : memref<4x256x128xbf16, 3>
  %f = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<1>
  return
}
