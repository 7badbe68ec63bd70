// RUN: fmha-opt %s -split-input-file -allow-unregistered-dialect -verify-diagnostics --ws-allocate-tmem | FileCheck %s

// Overlapping lifetimes: both buffers are used by the roles of one
// ws.warp_specialize, so they take different columns; the 16-bit one packs
// two elements a column (128x64xbf16: 32 columns) and starts on the next
// multiple of 32. 160 columns round up to an allocation of 256, made once
// at the start of the kernel, relinquished at once, and freed at its end.
// CHECK-LABEL: func.func @overlapping
// CHECK-NEXT: %[[SLOT:.*]] = ws.buffer_alloc : memref<1xi32, 3>
// CHECK-NEXT: %[[TMEM:.*]] = ws.tmem_alloc columns 256 in %[[SLOT]] : memref<1xi32, 3>
// CHECK-NEXT: ws.tmem_relinquish
// CHECK-NEXT: ws.tmem_buffer base %[[TMEM]] column 0 : memref<128x128xf32, #ws.tmem>
// CHECK-NEXT: ws.tmem_buffer base %[[TMEM]] column 128 : memref<128x64xbf16, #ws.tmem>
// CHECK: ws.tmem_dealloc %[[TMEM]] columns 256 : i32
// CHECK-NEXT: return
func.func @overlapping() {
  %a = ws.tmem_buffer : memref<128x128xf32, #ws.tmem>
  %b = ws.tmem_buffer : memref<128x64xbf16, #ws.tmem>
  ws.warp_specialize {
    ws.role "mma" warps 1 {
      "test.use"(%a) : (memref<128x128xf32, #ws.tmem>) -> ()
    }
    ws.role "softmax" warps 4 {
      "test.use"(%b) : (memref<128x64xbf16, #ws.tmem>) -> ()
    }
  }
  return
}

// -----

// Disjoint lifetimes: the first buffer is dead once the first
// ws.warp_specialize is over, so the second reuses its columns. The
// allocation is the larger of the two, rounded up to a power of two.
// CHECK-LABEL: func.func @disjoint
// CHECK: ws.tmem_alloc columns 256
// CHECK: ws.tmem_buffer base %{{.*}} column 0 : memref<2x128x96xf32, #ws.tmem>
// CHECK: ws.tmem_buffer base %{{.*}} column 0 : memref<128x256xf32, #ws.tmem>
// CHECK: ws.tmem_dealloc %{{.*}} columns 256 : i32
func.func @disjoint() {
  %a = ws.tmem_buffer : memref<2x128x96xf32, #ws.tmem>
  ws.warp_specialize {
    ws.role "first" warps 4 {
      "test.use"(%a) : (memref<2x128x96xf32, #ws.tmem>) -> ()
    }
  }
  %b = ws.tmem_buffer : memref<128x256xf32, #ws.tmem>
  ws.warp_specialize {
    ws.role "second" warps 4 {
      "test.use"(%b) : (memref<128x256xf32, #ws.tmem>) -> ()
    }
  }
  return
}

// -----

// Aliasing: P (bf16, 64 columns a stage) lies over S (f32, 128 columns a
// stage), stage by stage, and takes no columns of its own; O comes after
// the two stages of S. 384 columns: an allocation of 512.
// CHECK-LABEL: func.func @aliasing
// CHECK: ws.tmem_alloc columns 512
// CHECK: %[[S:.*]] = ws.tmem_buffer base %{{.*}} column 0 : memref<2x128x128xf32, #ws.tmem>
// CHECK: ws.tmem_buffer aliases %[[S]] base %{{.*}} column 0 : memref<2x128x128xbf16, #ws.tmem> over memref<2x128x128xf32, #ws.tmem>
// CHECK: ws.tmem_buffer base %{{.*}} column 256 : memref<128x128xf32, #ws.tmem>
func.func @aliasing() {
  %s = ws.tmem_buffer : memref<2x128x128xf32, #ws.tmem>
  %p = ws.tmem_buffer aliases %s : memref<2x128x128xbf16, #ws.tmem> over memref<2x128x128xf32, #ws.tmem>
  %o = ws.tmem_buffer : memref<128x128xf32, #ws.tmem>
  ws.warp_specialize {
    ws.role "mma" warps 1 {
      "test.use"(%s, %p, %o) : (memref<2x128x128xf32, #ws.tmem>, memref<2x128x128xbf16, #ws.tmem>, memref<128x128xf32, #ws.tmem>) -> ()
    }
  }
  return
}

// -----

// A lone small buffer still gets the smallest allocation, 32 columns.
// CHECK-LABEL: func.func @smallest
// CHECK: ws.tmem_alloc columns 32
// CHECK: ws.tmem_buffer base %{{.*}} column 0 : memref<128x16xf32, #ws.tmem>
func.func @smallest() {
  %a = ws.tmem_buffer : memref<128x16xf32, #ws.tmem>
  "test.use"(%a) : (memref<128x16xf32, #ws.tmem>) -> ()
  return
}

// -----

// More than 512 columns live at once: the error names the buffer that does
// not fit and the buffers live beside it.
func.func @overflow() {
  %a = ws.tmem_buffer : memref<2x128x128xf32, #ws.tmem>
  %b = ws.tmem_buffer : memref<128x256xf32, #ws.tmem>
  // expected-error @+1 {{tensor memory: this buffer needs 128 columns but only 0 of the 512 are free while it is live; live with it: buffer at}}
  %c = ws.tmem_buffer : memref<128x128xf32, #ws.tmem>
  ws.warp_specialize {
    ws.role "mma" warps 1 {
      "test.use"(%a, %b, %c) : (memref<2x128x128xf32, #ws.tmem>, memref<128x256xf32, #ws.tmem>, memref<128x128xf32, #ws.tmem>) -> ()
    }
  }
  return
}

// -----

// A kernel that allocates tensor memory by hand is left to itself.
func.func @already_allocated() {
  // expected-error @+1 {{ws-allocate-tmem: the kernel already allocates tensor memory (ws.tmem_alloc)}}
  %t = ws.tmem_alloc columns 32
  %a = ws.tmem_buffer : memref<128x16xf32, #ws.tmem>
  return
}
