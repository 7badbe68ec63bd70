// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-schedule-ping-pong | FileCheck %s
// The schedule passes the protocol check (each consumer alternates a wait
// and an arrival on every barrier it shares):
// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-schedule-ping-pong --ws-verify-protocol -o /dev/null

// Two consumers that issue asynchronous dots at the start of their loop
// body take turns: consumer i waits on barrier 3 + i before its dots and
// arrives on the other's after them (barriers 1 and 2 are the consumers'
// own, around their stores). Consumer 1 opens the first turn at its
// start; after its loop each waits for its turn once more and hands it
// on; consumer 0 takes the last arrival at its end.
// CHECK-LABEL: func.func @two_consumers(
// CHECK: ws.role "producer"
// CHECK-NOT: ws.barrier
// CHECK: ws.role "consumer0"
// CHECK:   scf.for
// CHECK:     ws.barrier_sync 3 threads 256
// CHECK-NEXT: tile.dot {{.*}} {async
// CHECK-NEXT: ws.barrier_arrive 4 threads 256
// CHECK:   }
// CHECK-NEXT: ws.barrier_sync 3 threads 256
// CHECK-NEXT: ws.barrier_arrive 4 threads 256
// CHECK:   ws.barrier_sync 1 threads 128
// CHECK:   ws.barrier_sync 3 threads 256
// CHECK-NEXT: }
// CHECK: ws.role "consumer1"
// CHECK-NEXT: ws.barrier_arrive 3 threads 256
// CHECK:   scf.for
// CHECK:     ws.barrier_sync 4 threads 256
// CHECK-NEXT: tile.dot {{.*}} {async
// CHECK-NEXT: ws.barrier_arrive 3 threads 256
// CHECK:   }
// CHECK-NEXT: ws.barrier_sync 4 threads 256
// CHECK-NEXT: ws.barrier_arrive 3 threads 256
// CHECK:   ws.barrier_sync 2 threads 128
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
func.func @two_consumers(%k: !tile.desc<tensor<64x64xbf16, #smem>>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  %ch = ws.channel : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
  ws.warp_specialize {
    ws.role "producer" warps 1 regs 40 {
      scf.for %i = %c0 to %n step %c1 : i32 {
        %t, %b = ws.producer_acquire %ch : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
        ws.tma_load %k[%i, %c0], %b, %t : !tile.desc<tensor<64x64xbf16, #smem>>, memref<64x64xbf16, 3>
        ws.producer_commit %ch, %t by tma tx_bytes 8192 : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
      }
    }
    ws.role "consumer0" warps 4 regs 232 {
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #acc>) : i32 {
        %t, %b = ws.consumer_wait %ch : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
        %x = ws.as_tensor %b : memref<64x64xbf16, 3> -> tensor<64x64xbf16, #smem>
        %d = tile.dot %x, %x, %acc {async, transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        %w = tile.dot_wait %d pending 0 : tensor<64x64xf32, #acc>
        ws.consumer_release %ch, %t by threads : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
        scf.yield %w : tensor<64x64xf32, #acc>
      }
      ws.barrier_sync 1 threads 128
    }
    ws.role "consumer1" warps 4 regs 232 {
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #acc>) : i32 {
        %t, %b = ws.consumer_wait %ch : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
        %x = ws.as_tensor %b : memref<64x64xbf16, 3> -> tensor<64x64xbf16, #smem>
        %d = tile.dot %x, %x, %acc {async, transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        %w = tile.dot_wait %d pending 0 : tensor<64x64xf32, #acc>
        ws.consumer_release %ch, %t by threads : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
        scf.yield %w : tensor<64x64xf32, #acc>
      }
      ws.barrier_sync 2 threads 128
    }
  }
  return
}

// -----

// Consumers whose loop issues synchronous dots (a GEMM) are left alone.
// CHECK-LABEL: func.func @synchronous(
// CHECK-NOT: ws.barrier_
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
func.func @synchronous(%k: !tile.desc<tensor<64x64xbf16, #smem>>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  %ch = ws.channel : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
  ws.warp_specialize {
    ws.role "producer" warps 1 regs 40 {
      scf.for %i = %c0 to %n step %c1 : i32 {
        %t, %b = ws.producer_acquire %ch : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
        ws.tma_load %k[%i, %c0], %b, %t : !tile.desc<tensor<64x64xbf16, #smem>>, memref<64x64xbf16, 3>
        ws.producer_commit %ch, %t by tma tx_bytes 8192 : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
      }
    }
    ws.role "consumer0" warps 4 regs 232 {
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #acc>) : i32 {
        %t, %b = ws.consumer_wait %ch : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
        %x = ws.as_tensor %b : memref<64x64xbf16, 3> -> tensor<64x64xbf16, #smem>
        %d = tile.dot %x, %x, %acc {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        ws.consumer_release %ch, %t by wgmma : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
        scf.yield %d : tensor<64x64xf32, #acc>
      }
    }
    ws.role "consumer1" warps 4 regs 232 {
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #acc>) : i32 {
        %t, %b = ws.consumer_wait %ch : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
        %x = ws.as_tensor %b : memref<64x64xbf16, 3> -> tensor<64x64xbf16, #smem>
        %d = tile.dot %x, %x, %acc {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        ws.consumer_release %ch, %t by wgmma : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
        scf.yield %d : tensor<64x64xf32, #acc>
      }
    }
  }
  return
}

// -----

// Consumers that own separate work items (main loops marked ws.turn, a
// ping-pong GEMM) take turns over whole loops: consumer i waits on barrier
// 3 + i before its loop and arrives on the other's right after it, where
// its epilogue begins. Consumer 1 opens the first turn at its start,
// consumer 0 takes the last arrival at its end; the marks are gone.
// CHECK-LABEL: func.func @turns(
// CHECK: ws.role "producer"
// CHECK-NOT: ws.barrier
// CHECK-NOT: ws.turn
// CHECK: ws.role "consumer0"
// CHECK:   scf.for
// CHECK:     ws.barrier_sync 3 threads 256
// CHECK-NEXT: scf.for
// CHECK:       tile.dot
// CHECK:       scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: ws.barrier_arrive 4 threads 256
// CHECK-NEXT: ws.barrier_sync 1 threads 128
// CHECK:   }
// CHECK-NEXT: ws.barrier_sync 3 threads 256
// CHECK-NEXT: }
// CHECK: ws.role "consumer1"
// CHECK-NEXT: ws.barrier_arrive 3 threads 256
// CHECK:   scf.for
// CHECK:     ws.barrier_sync 4 threads 256
// CHECK-NEXT: scf.for
// CHECK:       tile.dot
// CHECK:       scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: ws.barrier_arrive 3 threads 256
// CHECK-NEXT: ws.barrier_sync 2 threads 128
// CHECK-NOT: ws.turn
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
func.func @turns(%k: !tile.desc<tensor<64x64xbf16, #smem>>, %items: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  %ch0 = ws.channel : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
  %ch1 = ws.channel : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
  ws.warp_specialize {
    ws.role "producer" warps 1 regs 40 {
      scf.for %j = %c0 to %items step %c1 : i32 {
        scf.for %i = %c0 to %n step %c1 : i32 {
          %t, %b = ws.producer_acquire %ch0 : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
          ws.tma_load %k[%i, %c0], %b, %t : !tile.desc<tensor<64x64xbf16, #smem>>, memref<64x64xbf16, 3>
          ws.producer_commit %ch0, %t by tma tx_bytes 8192 : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
        } {ws.turn}
        scf.for %i = %c0 to %n step %c1 : i32 {
          %t, %b = ws.producer_acquire %ch1 : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
          ws.tma_load %k[%i, %c1], %b, %t : !tile.desc<tensor<64x64xbf16, #smem>>, memref<64x64xbf16, 3>
          ws.producer_commit %ch1, %t by tma tx_bytes 8192 : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
        } {ws.turn}
      }
    }
    ws.role "consumer0" warps 4 regs 232 {
      scf.for %j = %c0 to %items step %c1 : i32 {
        %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #acc>) : i32 {
          %t, %b = ws.consumer_wait %ch0 : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
          %x = ws.as_tensor %b : memref<64x64xbf16, 3> -> tensor<64x64xbf16, #smem>
          %d = tile.dot %x, %x, %acc {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
          ws.consumer_release %ch0, %t by wgmma : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
          scf.yield %d : tensor<64x64xf32, #acc>
        } {ws.turn}
        ws.barrier_sync 1 threads 128
      }
    }
    ws.role "consumer1" warps 4 regs 232 {
      scf.for %j = %c0 to %items step %c1 : i32 {
        %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #acc>) : i32 {
          %t, %b = ws.consumer_wait %ch1 : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
          %x = ws.as_tensor %b : memref<64x64xbf16, 3> -> tensor<64x64xbf16, #smem>
          %d = tile.dot %x, %x, %acc {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
          ws.consumer_release %ch1, %t by wgmma : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
          scf.yield %d : tensor<64x64xf32, #acc>
        } {ws.turn}
        ws.barrier_sync 2 threads 128
      }
    }
  }
  return
}

// -----

// Only one of the two consumers has a loop marked ws.turn: no turns can be
// taken.
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
func.func @one_turn(%k: !tile.desc<tensor<64x64xbf16, #smem>>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  %ch = ws.channel : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
  // expected-error @+1 {{'ws.warp_specialize' op ws-schedule-ping-pong: 1 of its 2 consumer roles run a main loop marked ws.turn: turns are taken by two consumer roles, each with one marked loop}}
  ws.warp_specialize {
    ws.role "producer" warps 1 regs 40 {
      scf.for %i = %c0 to %n step %c1 : i32 {
        %t, %b = ws.producer_acquire %ch : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
        ws.tma_load %k[%i, %c0], %b, %t : !tile.desc<tensor<64x64xbf16, #smem>>, memref<64x64xbf16, 3>
        ws.producer_commit %ch, %t by tma tx_bytes 8192 : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
      }
    }
    ws.role "consumer0" warps 4 regs 232 {
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #acc>) : i32 {
        %t, %b = ws.consumer_wait %ch : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
        %x = ws.as_tensor %b : memref<64x64xbf16, 3> -> tensor<64x64xbf16, #smem>
        %d = tile.dot %x, %x, %acc {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        ws.consumer_release %ch, %t by wgmma : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
        scf.yield %d : tensor<64x64xf32, #acc>
      } {ws.turn}
    }
    ws.role "consumer1" warps 4 regs 232 {
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #acc>) : i32 {
        %t, %b = ws.consumer_wait %ch : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
        %x = ws.as_tensor %b : memref<64x64xbf16, 3> -> tensor<64x64xbf16, #smem>
        %d = tile.dot %x, %x, %acc {transpose_b} : tensor<64x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<64x64xf32, #acc>
        ws.consumer_release %ch, %t by wgmma : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
        scf.yield %d : tensor<64x64xf32, #acc>
      }
    }
  }
  return
}
