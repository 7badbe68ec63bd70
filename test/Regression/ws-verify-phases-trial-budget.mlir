// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-insert-mbarriers --ws-verify-phases | FileCheck %s

// Found by fmha-fuzz (timeouts): ws-verify-phases runs one trial per trip
// count T = 1 .. 2 * S + 3 for loops of unknown trip count, S the stages;
// an inner loop to the outer induction variable runs T^2 / 2 iterations,
// so the trials together grow with S^3 (2.2 million ops here, seconds
// under ASan). All trials of one ws.warp_specialize now share a budget of
// 2^20 ops; the warning names the trip count checked up to.

!ch = !ws.channel<[memref<128xf32, 3>], stages = 30>

// CHECK-LABEL: func.func @two_way
func.func @two_way(%n: i32, %cond: i1) {
  %x = ws.channel : !ch
  %y = ws.channel : !ch
  // expected-warning @+1 {{ws-verify-phases: checked only with loops of unknown trip count running up to 48 iterations: the trials interpret more than 1048576 operations in all}}
  ws.warp_specialize {
    ws.role "a" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %i = %c0 to %n step %c1 : i32 {
        %tok, %s = ws.producer_acquire %x : !ch
        scf.if %cond {
          ws.producer_commit %x, %tok by threads : !ch
        } else {
          ws.producer_commit %x, %tok by threads : !ch
        }
        %t2, %s2 = ws.consumer_wait %y : !ch
        ws.consumer_release %y, %t2 by threads : !ch
        scf.for %j = %c0 to %i step %c1 : i32 {
          %t3, %s3 = ws.producer_acquire %x : !ch
          ws.producer_commit %x, %t3 by threads : !ch
        }
      }
      scf.if %cond {
        %t4, %s4 = ws.producer_acquire %x : !ch
        ws.producer_commit %x, %t4 by threads : !ch
      }
    }
    ws.role "b" warps 31 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %i = %c0 to %n step %c1 : i32 {
        %t2, %s2 = ws.producer_acquire %y : !ch
        ws.producer_commit %y, %t2 by threads : !ch
        scf.if %cond {
          %tok, %s = ws.consumer_wait %x : !ch
          ws.consumer_release %x, %tok by threads : !ch
        } else {
          %tok, %s = ws.consumer_wait %x : !ch
          ws.consumer_release %x, %tok by threads : !ch
        }
        scf.for %j = %c0 to %i step %c1 : i32 {
          %t3, %s3 = ws.consumer_wait %x : !ch
          ws.consumer_release %x, %t3 by threads : !ch
        }
      }
      scf.if %cond {
        %t4, %s4 = ws.consumer_wait %x : !ch
        ws.consumer_release %x, %t4 by threads : !ch
      }
    }
  }
  return
}

// -----

// The same with one more level of nesting: without the shared budget the
// trials grow with S^4 (12 s in a release build); each level multiplies.

!ch = !ws.channel<[memref<128xf32, 3>], stages = 32>

// CHECK-LABEL: func.func @nested3
func.func @nested3(%n: i32, %cond: i1) {
  %x = ws.channel : !ch
  %y = ws.channel : !ch
  // expected-warning @+1 {{ws-verify-phases: checked only with loops of unknown trip count running up to 27 iterations: the trials interpret more than 1048576 operations in all}}
  ws.warp_specialize {
    ws.role "a" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %i = %c0 to %n step %c1 : i32 {
        %tok, %s = ws.producer_acquire %x : !ch
        scf.if %cond {
          ws.producer_commit %x, %tok by threads : !ch
        } else {
          ws.producer_commit %x, %tok by threads : !ch
        }
        %t2, %s2 = ws.consumer_wait %y : !ch
        ws.consumer_release %y, %t2 by threads : !ch
        scf.for %j = %c0 to %i step %c1 : i32 {
          scf.for %k = %c0 to %j step %c1 : i32 {
          %t3, %s3 = ws.producer_acquire %x : !ch
          ws.producer_commit %x, %t3 by threads : !ch
          }
        }
      }
      scf.if %cond {
        %t4, %s4 = ws.producer_acquire %x : !ch
        ws.producer_commit %x, %t4 by threads : !ch
      }
    }
    ws.role "b" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %i = %c0 to %n step %c1 : i32 {
        %t2, %s2 = ws.producer_acquire %y : !ch
        ws.producer_commit %y, %t2 by threads : !ch
        scf.if %cond {
          %tok, %s = ws.consumer_wait %x : !ch
          ws.consumer_release %x, %tok by threads : !ch
        } else {
          %tok, %s = ws.consumer_wait %x : !ch
          ws.consumer_release %x, %tok by threads : !ch
        }
        scf.for %j = %c0 to %i step %c1 : i32 {
          scf.for %k = %c0 to %j step %c1 : i32 {
          %t3, %s3 = ws.consumer_wait %x : !ch
          ws.consumer_release %x, %t3 by threads : !ch
          }
        }
      }
      scf.if %cond {
        %t4, %s4 = ws.consumer_wait %x : !ch
        ws.consumer_release %x, %t4 by threads : !ch
      }
    }
  }
  return
}
