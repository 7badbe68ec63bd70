// RUN: fmha-opt %s -split-input-file -verify-diagnostics --convert-ws-to-nvvm

// What convert-ws-to-nvvm checks before it lowers anything.

// Rings that ws-verify-phases has not checked are model-checked first: here
// the producer waits on its empty barrier for parity 0 in its first round,
// where the ring's protocol has producers wait for parity 1.
module attributes {gpu.container_module} {
  gpu.module @unchecked {
    gpu.func @k(%desc: !tile.desc<tensor<128x64xbf16>>, %row: i32, %col: i32) kernel
        attributes {ws.num_threads = 256 : i64, ws.smem_bytes = 32800 : i64} {
      %ring = ws.buffer_alloc offset 0 : memref<2x128x64xbf16, 3>
      %full = ws.mbarrier_alloc arrivals 1 offset 32768 : !ws.mbarrier<2>
      %empty = ws.mbarrier_alloc arrivals 128 offset 32784 : !ws.mbarrier<2>
      ws.warp_specialize {
        ws.role "producer" warps 1 regs 40 first_warp 0 {
          %c0 = arith.constant 0 : i32
          // expected-error-re @+1 {{role 'producer' passes this wait on empty[0] (the mbarrier array at {{[0-9]+:[0-9]+}}) too late: its 1st wait on this empty barrier needs 0 completed phases, but 1 has completed (it waits for parity 0)}}
          ws.mbarrier_wait %empty[%c0], %c0 : !ws.mbarrier<2>
          %buf = ws.slot %ring[%c0] : memref<2x128x64xbf16, 3> -> memref<128x64xbf16, 3>
          ws.tma_load_mbarrier %desc[%row, %col], %buf, %full[%c0] : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>, !ws.mbarrier<2>
          ws.mbarrier_arrive %full[%c0] leader tx_bytes 16384 : !ws.mbarrier<2>
        }
        ws.role "consumer" warps 4 regs 232 first_warp 4 {
          %c0 = arith.constant 0 : i32
          ws.mbarrier_arrive %empty[%c0] : !ws.mbarrier<2>
        }
      }
      gpu.return
    }
  }
}

// -----

// A second ws.warp_specialize in one kernel.
module attributes {gpu.container_module} {
  gpu.module @two {
    gpu.func @k() kernel attributes {ws.num_threads = 32 : i64} {
      // expected-note @+1 {{the first}}
      ws.warp_specialize {
        ws.role "a" warps 1 first_warp 0 {
        }
      }
      // expected-error @+1 {{'ws.warp_specialize' op is the second ws.warp_specialize of kernel @k: convert-ws-to-nvvm lowers one per kernel}}
      ws.warp_specialize {
        ws.role "b" warps 1 first_warp 0 {
        }
      }
      gpu.return
    }
  }
}

// -----

// A ws.warp_specialize in a loop.
module attributes {gpu.container_module} {
  gpu.module @in_loop {
    gpu.func @k(%n: i32) kernel attributes {ws.num_threads = 32 : i64} {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %i = %c0 to %n step %c1 : i32 {
        // expected-error @+1 {{'ws.warp_specialize' op must stand directly in the body of its kernel, not in 'scf.for': convert-ws-to-nvvm divides the kernel's warps into roles once, at its start}}
        ws.warp_specialize {
          ws.role "a" warps 1 first_warp 0 {
          }
        }
      }
      gpu.return
    }
  }
}

// -----

// ws ops outside a gpu.module are not lowered.
func.func @host() {
  // expected-error @+1 {{'ws.warp_specialize' op is outside a gpu.module: convert-ws-to-nvvm lowers the kernels of gpu.module ops only}}
  ws.warp_specialize {
    ws.role "a" warps 1 {
    }
  }
  return
}
