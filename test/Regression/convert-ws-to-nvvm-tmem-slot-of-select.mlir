// RUN: fmha-opt %s -verify-diagnostics --convert-ws-to-nvvm

// A ws.slot of a tensor-memory ring that no ws.tmem_buffer placed (here a
// select between two): the tensor-memory slot lowering needs the
// ws.tmem_buffer for the stage stride and declines, and the shared-memory
// one then read the ring as a memref descriptor and crashed. It now
// declines too, and the conversion reports the op.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%base: i32, %c: i1) kernel {
      %t0 = ws.tmem_buffer base %base column 0 : memref<1x128x128xf32, #ws.tmem>
      %t1 = ws.tmem_buffer base %base column 128 : memref<1x128x128xf32, #ws.tmem>
      %t = arith.select %c, %t0, %t1 : memref<1x128x128xf32, #ws.tmem>
      %c0 = arith.constant 0 : i32
      // expected-error @+1 {{failed to legalize operation 'ws.slot' that was explicitly marked illegal}}
      %acc = ws.slot %t[%c0] : memref<1x128x128xf32, #ws.tmem> -> memref<128x128xf32, #ws.tmem>
      gpu.return
    }
  }
}
