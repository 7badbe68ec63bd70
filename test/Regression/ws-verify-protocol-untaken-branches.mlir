// RUN: fmha-opt %s -verify-diagnostics --ws-verify-protocol | FileCheck %s

// Found while triaging fmha-fuzz timeouts: the deadlock simulation of
// ws-verify-protocol unrolls every loop of unknown trip count to 2 * S + 2
// iterations (66 here). With every scf.if condition true, nested loops
// whose events all sit in else branches add no events, so the bound on
// events never stopped the unrolling: 66^6 visits, hours. Loop iterations
// now count towards a bound of their own, and a kernel too large to
// simulate gets a warning.

!ch = !ws.channel<[memref<128xf32, 3>], stages = 32>
// CHECK-LABEL: func.func @deep
func.func @deep(%n: i32, %cond: i1) {
  %x = ws.channel : !ch
  // expected-warning @+1 {{ws-verify-protocol: deadlocks not checked: the roles unroll to over 1048576 events per role or over 4194304 events and loop iterations (simulating up to 66 iterations per loop, every scf.if condition true)}}
  ws.warp_specialize {
    ws.role "a" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %i0 = %c0 to %n step %c1 : i32 {
        scf.for %i1 = %c0 to %n step %c1 : i32 {
          scf.for %i2 = %c0 to %n step %c1 : i32 {
            scf.for %i3 = %c0 to %n step %c1 : i32 {
              scf.for %i4 = %c0 to %n step %c1 : i32 {
                scf.for %i5 = %c0 to %n step %c1 : i32 {
                  scf.if %cond {
                  } else {
                    %t, %s = ws.producer_acquire %x : !ch
                    ws.producer_commit %x, %t by threads : !ch
                  }
                }
              }
            }
          }
        }
      }
    }
    ws.role "b" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %i0 = %c0 to %n step %c1 : i32 {
        scf.for %i1 = %c0 to %n step %c1 : i32 {
          scf.for %i2 = %c0 to %n step %c1 : i32 {
            scf.for %i3 = %c0 to %n step %c1 : i32 {
              scf.for %i4 = %c0 to %n step %c1 : i32 {
                scf.for %i5 = %c0 to %n step %c1 : i32 {
                  scf.if %cond {
                  } else {
                    %t, %s = ws.consumer_wait %x : !ch
                    ws.consumer_release %x, %t by threads : !ch
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  return
}
