// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-lower-roles | FileCheck %s
// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-lower-roles=replica-roles=false \
// RUN: | FileCheck %s --check-prefix=APART

// The roles become branches on the warp index (%tid.x / 32, broadcast from
// lane 0): each warpgroup first moves to its role's register budget from the
// cap of 256 threads (255 registers), then each role's warps run its body.
// The kernel allocates mbarriers, so the fence and a CTA barrier precede the
// roles. The producer's TMA copy and leader arrival run under a test of its
// first thread (and are marked ws.leader_guarded, which lets them stand out
// of their role); ws.thread_id is the thread's index in its role.
// CHECK-LABEL: gpu.module @roles
// CHECK: gpu.func @k(
// CHECK-SAME: nvvm.maxntid = array<i32: 256, 1, 1>, nvvm.minctasm = 1 : i32
// CHECK: %[[TIDX:.*]] = gpu.thread_id x
// CHECK: %[[TID:.*]] = arith.index_cast %[[TIDX]] : index to i32
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.barrier
// CHECK: %[[DIV:.*]] = arith.divui %[[TID]], %{{.*}} : i32
// CHECK: %[[WARP:.*]] = nvvm.shfl.sync idx %{{.*}}, %[[DIV]]
// CHECK: %[[GROUP:.*]] = arith.divui %[[WARP]], %{{.*}} : i32
// CHECK: scf.if
// CHECK-NEXT: nvvm.setmaxregister decrease 40
// CHECK: scf.if
// CHECK: %[[LEADER:.*]] = arith.cmpi eq, %[[TID]], %{{.*}} : i32
// CHECK: ws.mbarrier_wait
// CHECK: scf.if %[[LEADER]] {
// CHECK-NEXT: ws.tma_load_mbarrier {{.*}} {ws.leader_guarded}
// CHECK: scf.if %[[LEADER]] {
// CHECK-NEXT: ws.mbarrier_arrive %{{.*}} leader tx_bytes 16384 {ws.leader_guarded}
// CHECK: nvvm.setmaxregister decrease 232
// CHECK: %[[C128:.*]] = arith.constant 128 : i32
// CHECK: arith.subi %[[TID]], %[[C128]] : i32
// CHECK-NOT: ws.warp_specialize
// CHECK: gpu.return
// APART-LABEL: gpu.module @roles
module attributes {gpu.container_module} {
  gpu.module @roles {
    gpu.func @k(%desc: !tile.desc<tensor<128x64xbf16>>, %row: i32, %col: i32) kernel
        attributes {ws.num_threads = 256 : i64, ws.smem_bytes = 32800 : i64} {
      %ring = ws.buffer_alloc offset 0 : memref<2x128x64xbf16, 3>
      %full = ws.mbarrier_alloc arrivals 1 offset 32768 : !ws.mbarrier<2>
      %empty = ws.mbarrier_alloc arrivals 128 offset 32784 : !ws.mbarrier<2>
      ws.warp_specialize {
        ws.role "producer" warps 1 regs 40 first_warp 0 {
          %c0 = arith.constant 0 : i32
          %c1 = arith.constant 1 : i32
          ws.mbarrier_wait %empty[%c0], %c1 : !ws.mbarrier<2>
          %buf = ws.slot %ring[%c0] : memref<2x128x64xbf16, 3> -> memref<128x64xbf16, 3>
          ws.tma_load_mbarrier %desc[%row, %col], %buf, %full[%c0] : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>, !ws.mbarrier<2>
          ws.mbarrier_arrive %full[%c0] leader tx_bytes 16384 : !ws.mbarrier<2>
        }
        ws.role "consumer" warps 4 regs 232 first_warp 4 {
          %c0 = arith.constant 0 : i32
          ws.mbarrier_wait %full[%c0], %c0 : !ws.mbarrier<2>
          %t = ws.thread_id : i32
          ws.mbarrier_arrive %empty[%c0] : !ws.mbarrier<2>
        }
      }
      gpu.return
    }
  }
}

// -----

// Replica roles: two consumer warpgroups that differ only in a value run
// one copy of the code, entered by warps 4 to 11 after one setmaxnreg; the
// differing value is a select on the replica index (warp - 4) / 4. With
// replica-roles=false each keeps its own branch.
// CHECK-LABEL: gpu.module @replicas
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: nvvm.setmaxregister increase 232
// CHECK-NOT: nvvm.setmaxregister
// CHECK: %[[WARP4:.*]] = arith.subi %{{.*}}, %{{.*}} : i32
// CHECK: %[[INDEX:.*]] = arith.divui %[[WARP4]], %{{.*}} : i32
// CHECK: %[[SECOND:.*]] = arith.cmpi eq, %[[INDEX]], %{{.*}} : i32
// CHECK: %[[VALUE:.*]] = arith.select %[[SECOND]], %c9_i32, %c7_i32 : i32
// CHECK: memref.store %[[VALUE]]
// CHECK-NOT: memref.store
// CHECK: gpu.return
// APART-LABEL: gpu.module @replicas
// APART: nvvm.setmaxregister decrease 40
// APART: nvvm.setmaxregister increase 232
// APART: nvvm.setmaxregister increase 232
// APART: gpu.return
module attributes {gpu.container_module} {
  gpu.module @replicas {
    gpu.func @k(%out: memref<2xi32, 1>) kernel attributes {ws.num_threads = 384 : i64} {
      ws.warp_specialize {
        ws.role "producer" warps 4 regs 40 first_warp 0 {
        }
        ws.role "consumer0" warps 4 regs 232 first_warp 4 {
          %c0 = arith.constant 0 : index
          %v = arith.constant 7 : i32
          memref.store %v, %out[%c0] : memref<2xi32, 1>
        }
        ws.role "consumer1" warps 4 regs 232 first_warp 8 {
          %c0 = arith.constant 0 : index
          %v = arith.constant 9 : i32
          memref.store %v, %out[%c0] : memref<2xi32, 1>
        }
      }
      gpu.return
    }
  }
}

// -----

// TMA multicast: clusters of two CTAs. The cluster meets after the barrier
// initialisation, before any role runs, and again after the roles, so no CTA
// signals the other's barriers before they exist or after it exited.
// CHECK-LABEL: gpu.module @multicast
// CHECK: gpu.func @k()
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.barrier
// CHECK-NEXT: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK: nvvm.setmaxregister
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK-NEXT: gpu.return
// APART-LABEL: gpu.module @multicast
module attributes {gpu.container_module} {
  gpu.module @multicast {
    gpu.func @k() kernel attributes {ws.multicast, ws.num_threads = 128 : i64} {
      %bar = ws.mbarrier_alloc arrivals 1 offset 0 : !ws.mbarrier<1>
      ws.warp_specialize {
        ws.role "r" warps 4 regs 232 first_warp 0 {
        }
      }
      gpu.return
    }
  }
}

// -----

// A CTA pair: clusters of two CTAs, which meet after the barrier
// initialisation.
// CHECK-LABEL: gpu.module @cta_pair
// CHECK: gpu.func @k()
// CHECK-SAME: nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: nvvm.barrier
// CHECK-NEXT: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK-NOT: nvvm.cluster.arrive
// CHECK: gpu.return
// APART-LABEL: gpu.module @cta_pair
module attributes {gpu.container_module} {
  gpu.module @cta_pair {
    gpu.func @k() kernel attributes {ws.cta_pair, ws.num_threads = 128 : i64} {
      %bar = ws.mbarrier_alloc arrivals 1 offset 0 : !ws.mbarrier<1>
      ws.warp_specialize {
        ws.role "r" warps 4 regs 232 first_warp 0 {
        }
      }
      gpu.return
    }
  }
}

// -----

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
      // expected-error @+1 {{'ws.warp_specialize' op is the second ws.warp_specialize of kernel @k: ws-lower-roles lowers one per kernel}}
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
        // expected-error @+1 {{'ws.warp_specialize' op must stand directly in the body of its kernel, not in 'scf.for': ws-lower-roles divides the kernel's warps into roles once, at its start}}
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

// A kernel is a CTA pair or shares blocks by multicast, not both.
module attributes {gpu.container_module} {
  gpu.module @both {
    // expected-error @+1 {{a kernel is either a CTA pair ('ws.cta_pair') or shares blocks by TMA multicast ('ws.multicast'), not both}}
    gpu.func @k() kernel
        attributes {ws.cta_pair, ws.multicast, ws.num_threads = 128 : i64} {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @no_threads {
    // expected-error @+1 {{kernel has no ws.num_threads: run ws-allocate-registers before ws-lower-roles}}
    gpu.func @k() kernel {
      ws.warp_specialize {
        ws.role "producer" warps 1 first_warp 0 {
        }
      }
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @no_range {
    gpu.func @k() kernel attributes {ws.num_threads = 32 : i64} {
      ws.warp_specialize {
        // expected-error @+1 {{'ws.role' op has no warp range: run ws-allocate-registers before ws-lower-roles}}
        ws.role "producer" warps 1 {
        }
      }
      gpu.return
    }
  }
}

// -----

// A role's arrival at a global counter (split-K): every thread of the role
// takes part (the barriers), the role's first thread adds: the op gets the
// leader's predicate rather than a branch around it.
// CHECK-LABEL: gpu.module @counter
// CHECK: %[[TID:.*]] = arith.index_cast %thread_id_x : index to i32
// CHECK: %[[LEADER:.*]] = arith.cmpi eq, %[[TID]], %{{.*}} : i32
// CHECK: ws.counter_arrive %{{.*}}[%{{.*}}], %{{.*}} barrier 1 threads 128 if %[[LEADER]] : memref<?xi32>
module attributes {gpu.container_module} {
  gpu.module @counter {
    gpu.func @k(%counters: memref<?xi32>, %t: i32, %n: i32) kernel
        attributes {ws.num_threads = 128 : i64} {
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 0 {
          %last = ws.counter_arrive %counters[%t], %n barrier 1 threads 128 : memref<?xi32>
        }
      }
      gpu.return
    }
  }
}
