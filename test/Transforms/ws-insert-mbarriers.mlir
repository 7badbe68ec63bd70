// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-insert-mbarriers=verify-protocol=false | FileCheck %s

// Units of this pass's rewriting and of its own errors, on IR that is not
// always a whole protocol: the protocol is not proved first
// (verify-protocol=false; the default check is tested in
// ws-insert-mbarriers-checks.mlir).

!ch = !ws.channel<[memref<128x64xbf16, 3>, memref<64x64xbf16, 3>], stages = 3>

// A TMA producer and a thread consumer in loops: rings, barrier counts, and
// stage/phase carried through the loops.
// CHECK-LABEL: func.func @tma_ring
// CHECK-DAG: %[[A:.*]] = ws.buffer_alloc : memref<3x128x64xbf16, 3>
// CHECK-DAG: %[[B:.*]] = ws.buffer_alloc : memref<3x64x64xbf16, 3>
// CHECK-DAG: %[[FULL:.*]] = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<3>
// CHECK-DAG: %[[EMPTY:.*]] = ws.mbarrier_alloc arrivals 128 : !ws.mbarrier<3>
// CHECK: ws.role "producer"
// CHECK: scf.for {{.*}} iter_args(%[[S:.*]] = %{{.*}}, %[[P:.*]] = %{{.*}}) -> (i32, i32)
// CHECK:   %[[NP:.*]] = arith.xori %[[P]], %c1
// CHECK:   ws.mbarrier_wait %[[EMPTY]][%[[S]]], %[[NP]] {ws.channel = 0 : i32, ws.ring = "empty"}
// CHECK:   %[[SA:.*]] = ws.slot %[[A]][%[[S]]]
// CHECK:   %[[SB:.*]] = ws.slot %[[B]][%[[S]]]
// CHECK:   arith.cmpi eq, %{{.*}}, %c3
// CHECK:   ws.tma_load_mbarrier %{{.*}}[%{{.*}}, %{{.*}}], %[[SA]], %[[FULL]][%[[S]]]
// CHECK:   ws.tma_load_mbarrier %{{.*}}[%{{.*}}, %{{.*}}], %[[SB]], %[[FULL]][%[[S]]]
// CHECK:   ws.mbarrier_arrive %[[FULL]][%[[S]]] leader tx_bytes 24576
// CHECK:   scf.yield
// CHECK: ws.role "consumer"
// CHECK: scf.for {{.*}} iter_args(%[[CS:.*]] = %{{.*}}, %[[CP:.*]] = %{{.*}}) -> (i32, i32)
// CHECK:   ws.mbarrier_wait %[[FULL]][%[[CS]]], %[[CP]] {ws.channel = 0 : i32, ws.ring = "full"}
// CHECK:   memref.load
// CHECK:   ws.mbarrier_arrive %[[EMPTY]][%[[CS]]] :
// CHECK-NOT: ws.channel
// CHECK-NOT: ws.producer_acquire
func.func @tma_ring(%a: !tile.desc<tensor<128x64xbf16>>, %b: !tile.desc<tensor<64x64xbf16>>, %n: i32) {
  %ch = ws.channel : !ch
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %k = %c0 to %n step %c1 : i32 {
        %tok, %sa, %sb = ws.producer_acquire %ch : !ch
        ws.tma_load %a[%c0, %k], %sa, %tok : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
        ws.tma_load %b[%k, %c0], %sb, %tok : !tile.desc<tensor<64x64xbf16>>, memref<64x64xbf16, 3>
        ws.producer_commit %ch, %tok by tma tx_bytes 24576 : !ch
      }
    }
    ws.role "consumer" warps 4 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %i0 = arith.constant 0 : index
      scf.for %k = %c0 to %n step %c1 : i32 {
        %tok, %sa, %sb = ws.consumer_wait %ch : !ch
        %v = memref.load %sa[%i0, %i0] : memref<128x64xbf16, 3>
        ws.consumer_release %ch, %tok by threads : !ch
      }
    }
  }
  return
}

// -----

!ch = !ws.channel<[memref<128xf32, 3>], stages = 1>

// Commits by threads fence first; two consumer roles both release, so the
// empty barrier expects both; a slot taken in an scf.if carries the stage out.
// CHECK-LABEL: func.func @threads_and_if
// CHECK-DAG: ws.mbarrier_alloc arrivals 32 : !ws.mbarrier<1>
// CHECK-DAG: ws.mbarrier_alloc arrivals 256 : !ws.mbarrier<1>
// CHECK: ws.role "producer"
// CHECK: %{{.*}}:2 = scf.if %{{.*}} -> (i32, i32)
// CHECK:   ws.mbarrier_wait
// CHECK:   ws.fence_async_shared
// CHECK-NEXT: ws.mbarrier_arrive
// CHECK:   scf.yield %{{.*}}, %{{.*}} : i32, i32
// CHECK: } else {
// CHECK:   scf.yield %{{.*}}, %{{.*}} : i32, i32
// CHECK: ws.role "c0"
// CHECK: ws.role "c1"
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: ws.mbarrier_arrive
func.func @threads_and_if(%cond: i1) {
  %ch = ws.channel : !ch
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      scf.if %cond {
        %tok, %s = ws.producer_acquire %ch : !ch
        ws.producer_commit %ch, %tok by threads : !ch
      }
    }
    ws.role "c0" warps 4 {
      %tok, %s = ws.consumer_wait %ch : !ch
      ws.consumer_release %ch, %tok by threads : !ch
    }
    ws.role "c1" warps 4 {
      %tok, %s = ws.consumer_wait %ch : !ch
      ws.consumer_release %ch, %tok by wgmma : !ch
    }
  }
  return
}

// -----

!ch = !ws.channel<[memref<128xf32, 3>], stages = 2>

func.func @no_consumer() {
  // expected-error @+1 {{'ws.channel' op has no releases in any role}}
  %ch = ws.channel : !ch
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %tok, %s = ws.producer_acquire %ch : !ch
      ws.producer_commit %ch, %tok by threads : !ch
    }
  }
  return
}

// -----

!ch = !ws.channel<[memref<128xf32, 3>], stages = 2>

func.func @two_units(%cond: i1) {
  %ch = ws.channel : !ch
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %tok, %s = ws.producer_acquire %ch : !ch
      ws.producer_commit %ch, %tok by threads : !ch
      %tok2, %s2 = ws.producer_acquire %ch : !ch
      // expected-error @+1 {{role 'producer' commits this channel by two different units}}
      ws.producer_commit %ch, %tok2 by wgmma : !ch
    }
    ws.role "consumer" warps 1 {
      %tok, %s = ws.consumer_wait %ch : !ch
      ws.consumer_release %ch, %tok by threads : !ch
    }
  }
  return
}

// -----

!ch = !ws.channel<[memref<128xf32, 3>], stages = 2>

func.func @while_loop(%cond: i1) {
  %ch = ws.channel : !ch
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      // expected-error @+1 {{'scf.while' op takes channel slots inside; only scf.for and scf.if can carry channel stages}}
      scf.while : () -> () {
        scf.condition(%cond)
      } do {
        %tok, %s = ws.producer_acquire %ch : !ch
        ws.producer_commit %ch, %tok by threads : !ch
        scf.yield
      }
    }
    ws.role "consumer" warps 1 {
      %tok, %s = ws.consumer_wait %ch : !ch
      ws.consumer_release %ch, %tok by threads : !ch
    }
  }
  return
}

// -----

!ch = !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 2>

// A tensor-memory channel (sm100): its ring is a ws.tmem_buffer, whose
// columns ws-allocate-tmem assigns; the barriers are the same as for shared
// memory. A commit by tcgen05 is one arrival of the MMA warp's leader,
// made by tcgen05.commit when its MMAs are done.
// CHECK-LABEL: func.func @tmem_channel
// CHECK: %[[RING:.*]] = ws.tmem_buffer : memref<2x128x128xf32, #ws.tmem>
// CHECK: %[[FULL:.*]] = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
// CHECK: %[[EMPTY:.*]] = ws.mbarrier_alloc arrivals 128 : !ws.mbarrier<2>
// CHECK: ws.role "mma" warps 1 {
// CHECK:   ws.mbarrier_wait %[[EMPTY]][%{{.*}}], %{{.*}} {ws.channel = 0 : i32, ws.ring = "empty"}
// CHECK:   ws.slot %[[RING]][%{{.*}}] : memref<2x128x128xf32, #ws.tmem> -> memref<128x128xf32, #ws.tmem>
// CHECK:   ws.mbarrier_arrive %[[FULL]][%{{.*}}] leader tcgen05 : !ws.mbarrier<2>
// CHECK: ws.role "epilogue" warps 4 {
// CHECK:   ws.mbarrier_wait %[[FULL]][%{{.*}}], %{{.*}} {ws.channel = 0 : i32, ws.ring = "full"}
// CHECK:   ws.mbarrier_arrive %[[EMPTY]][%{{.*}}] : !ws.mbarrier<2>
func.func @tmem_channel() {
  %ch = ws.channel : !ch
  ws.warp_specialize {
    ws.role "mma" warps 1 {
      %tok, %s = ws.producer_acquire %ch : !ch
      ws.producer_commit %ch, %tok by tcgen05 : !ch
    }
    ws.role "epilogue" warps 4 {
      %tok, %s = ws.consumer_wait %ch : !ch
      ws.consumer_release %ch, %tok by threads : !ch
    }
  }
  return
}

// -----

!s = !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 1>
!p = !ws.channel<[memref<128x128xbf16, #ws.tmem>], stages = 1>

// A channel over another (P over S): its ring aliases the other's.
// CHECK-LABEL: func.func @aliased_channel
// CHECK: %[[S:.*]] = ws.tmem_buffer : memref<1x128x128xf32, #ws.tmem>
// CHECK: ws.tmem_buffer aliases %[[S]] : memref<1x128x128xbf16, #ws.tmem> over memref<1x128x128xf32, #ws.tmem>
func.func @aliased_channel() {
  %s = ws.channel : !s
  %p = ws.channel aliases %s : !p over !s
  ws.warp_specialize {
    ws.role "mma" warps 1 {
      %tok, %b = ws.producer_acquire %s : !s
      ws.producer_commit %s, %tok by tcgen05 : !s
      %tok2, %b2 = ws.consumer_wait %p : !p
      ws.consumer_release %p, %tok2 by tcgen05 : !p
    }
    ws.role "softmax" warps 4 {
      %tok, %b = ws.consumer_wait %s : !s
      ws.consumer_release %s, %tok by threads : !s
      %tok2, %b2 = ws.producer_acquire %p : !p
      ws.producer_commit %p, %tok2 by threads : !p
    }
  }
  return
}

// -----

!ch = !ws.channel<[memref<128x64xbf16, 3>], stages = 2>

// In 2-CTA mode (`ws.cta_pair`) a producer drains its rings before its role
// ends: after the loop, one wait per stage on the empty barrier, from the
// stage the loop left off at, with the parity an acquire there would use
// (the phase flips where the stage wraps). Consumers do not drain.
// CHECK-LABEL: func.func @cta_pair_drain
// CHECK: ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
// CHECK-NEXT: %[[EMPTY:.*]] = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
// CHECK: ws.role "producer"
// CHECK: %[[END:.*]]:2 = scf.for
// CHECK: %[[P0:.*]] = arith.xori %[[END]]#1, %[[C1:.*]] : i32
// CHECK-NEXT: ws.mbarrier_wait %[[EMPTY]][%[[END]]#0], %[[P0]] {ws.channel = 0 : i32, ws.drain, ws.ring = "empty"}
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[END]]#0, %[[C1]] : i32
// CHECK: %[[WRAPS:.*]] = arith.cmpi eq, %[[NEXT]], %{{.*}} : i32
// CHECK-NEXT: %[[FLIP:.*]] = arith.xori %[[END]]#1, %[[C1]] : i32
// CHECK: %[[S1:.*]] = arith.select %[[WRAPS]], %{{.*}}, %[[NEXT]] : i32
// CHECK-NEXT: %[[PH1:.*]] = arith.select %[[WRAPS]], %[[FLIP]], %[[END]]#1 : i32
// CHECK-NEXT: %[[P1:.*]] = arith.xori %[[PH1]], %[[C1]] : i32
// CHECK-NEXT: ws.mbarrier_wait %[[EMPTY]][%[[S1]]], %[[P1]] {ws.channel = 0 : i32, ws.drain, ws.ring = "empty"}
// CHECK-NEXT: }
// CHECK: ws.role "consumer"
// CHECK-NOT: ws.drain
// CHECK: return
func.func @cta_pair_drain(%a: !tile.desc<tensor<128x64xbf16>>, %n: i32) attributes {ws.cta_pair} {
  %ch = ws.channel : !ch
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %k = %c0 to %n step %c1 : i32 {
        %tok, %sa = ws.producer_acquire %ch : !ch
        ws.tma_load %a[%c0, %k], %sa, %tok : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
        ws.producer_commit %ch, %tok by tma tx_bytes 16384 : !ch
      }
    }
    ws.role "consumer" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %k = %c0 to %n step %c1 : i32 {
        %tok, %sa = ws.consumer_wait %ch : !ch
        ws.consumer_release %ch, %tok by tcgen05 : !ch
      }
    }
  }
  return
}

// -----

!ch = !ws.channel<[memref<128x64xbf16, 3>], stages = 2>

// TMA multicast (`ws.multicast`): the copy keeps its multicast, the empty
// barriers count both CTAs' releases (2 arrivals: this CTA's tcgen05 commit
// and the peer's, both multicast to the two CTAs), the full barriers this
// CTA's producer alone (the peer's half of the block only adds bytes).
// Producers drain as in 2-CTA mode.
// CHECK-LABEL: func.func @multicast
// CHECK: %[[FULL:.*]] = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
// CHECK-NEXT: %[[EMPTY:.*]] = ws.mbarrier_alloc arrivals 2 : !ws.mbarrier<2>
// CHECK: ws.role "producer"
// CHECK: ws.tma_load_mbarrier %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}, %[[FULL]][%{{.*}}] multicast :
// CHECK: ws.mbarrier_arrive %[[FULL]][%{{.*}}] leader tx_bytes 16384
// CHECK: ws.mbarrier_wait %[[EMPTY]][%{{.*}}], %{{.*}} {ws.channel = 0 : i32, ws.drain, ws.ring = "empty"}
// CHECK: ws.role "consumer"
// CHECK: ws.mbarrier_arrive %[[EMPTY]][%{{.*}}] leader tcgen05 multicast :
// CHECK-NOT: ws.drain
// CHECK: return
func.func @multicast(%a: !tile.desc<tensor<128x64xbf16>>, %n: i32) attributes {ws.multicast} {
  %ch = ws.channel : !ch
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %k = %c0 to %n step %c1 : i32 {
        %tok, %sa = ws.producer_acquire %ch : !ch
        ws.tma_load %a[%c0, %k], %sa, %tok multicast : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
        ws.producer_commit %ch, %tok by tma tx_bytes 16384 : !ch
      }
    }
    ws.role "consumer" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %k = %c0 to %n step %c1 : i32 {
        %tok, %sa = ws.consumer_wait %ch : !ch
        ws.consumer_release %ch, %tok by tcgen05 : !ch
      }
    }
  }
  return
}

// -----

!ch = !ws.channel<[memref<128x64xbf16, 3>], stages = 2>

// A slot filled by multicast must be released by a tcgen05 commit or after
// wgmma: a release by threads has no point where every warp is known done.
func.func @multicast_threads(%a: !tile.desc<tensor<128x64xbf16>>, %n: i32) attributes {ws.multicast} {
  %ch = ws.channel : !ch
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0 = arith.constant 0 : i32
      %tok, %sa = ws.producer_acquire %ch : !ch
      ws.tma_load %a[%c0, %c0], %sa, %tok multicast : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
      ws.producer_commit %ch, %tok by tma tx_bytes 16384 : !ch
    }
    ws.role "consumer" warps 1 {
      %tok, %sa = ws.consumer_wait %ch : !ch
      // expected-error @+1 {{releases a slot filled by TMA multicast by threads: only tcgen05 commits and releases after wgmma reach the peer CTA's barrier}}
      ws.consumer_release %ch, %tok by threads : !ch
    }
  }
  return
}

// -----

!ch = !ws.channel<[memref<128x64xbf16, 3>], stages = 2>

// TMA multicast on sm_90a: slots released by wgmma in the loop. Each warp
// of the two consumer warpgroups arrives once in each CTA, so the empty
// barriers count 2 x (4 + 4) = 16 arrivals; the releases, deferred by one
// iteration, are multicast arrivals by threads.
// CHECK-LABEL: func.func @multicast_wgmma
// CHECK: %[[FULL:.*]] = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
// CHECK-NEXT: %[[EMPTY:.*]] = ws.mbarrier_alloc arrivals 16 : !ws.mbarrier<2>
// CHECK: ws.role "producer"
// CHECK: ws.tma_load_mbarrier %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}, %[[FULL]][%{{.*}}] multicast :
// CHECK: ws.mbarrier_wait %[[EMPTY]][%{{.*}}], %{{.*}} {ws.channel = 0 : i32, ws.drain, ws.ring = "empty"}
// CHECK: ws.role "consumer0"
// CHECK: scf.for
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: ws.mbarrier_arrive %[[EMPTY]][%{{.*}}] multicast :
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: ws.mbarrier_arrive %[[EMPTY]][%{{.*}}] multicast :
// CHECK: ws.role "consumer1"
func.func @multicast_wgmma(%a: !tile.desc<tensor<128x64xbf16>>, %n: i32) attributes {ws.multicast} {
  %ch = ws.channel : !ch
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %k = %c0 to %n step %c1 : i32 {
        %tok, %sa = ws.producer_acquire %ch : !ch
        ws.tma_load %a[%c0, %k], %sa, %tok multicast : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
        ws.producer_commit %ch, %tok by tma tx_bytes 16384 : !ch
      }
    }
    ws.role "consumer0" warps 4 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %k = %c0 to %n step %c1 : i32 {
        %tok, %sa = ws.consumer_wait %ch : !ch
        ws.consumer_release %ch, %tok by wgmma : !ch
      }
    }
    ws.role "consumer1" warps 4 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %k = %c0 to %n step %c1 : i32 {
        %tok, %sa = ws.consumer_wait %ch : !ch
        ws.consumer_release %ch, %tok by wgmma : !ch
      }
    }
  }
  return
}
