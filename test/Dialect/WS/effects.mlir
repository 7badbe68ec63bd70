// RUN: fmha-opt %s -split-input-file --cse --canonicalize | FileCheck %s

// The memory effects the ws ops declare (WSOps.td): what CSE and
// canonicalization may do with them.

// Ops that synchronise or start asynchronous work are never dropped or
// merged, even when their twins stand next to them.
// CHECK-LABEL: func.func @synchronising_ops_stay
// CHECK-COUNT-2: ws.mbarrier_wait
// CHECK-COUNT-2: ws.mbarrier_arrive
// CHECK-COUNT-2: ws.barrier_arrive 1 threads 256
// CHECK-COUNT-2: ws.fence_async_shared
// CHECK: ws.tma_store_wait
func.func @synchronising_ops_stay(%i: i32, %p: i32) {
  %b = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
  ws.mbarrier_wait %b[%i], %p : !ws.mbarrier<2>
  ws.mbarrier_wait %b[%i], %p : !ws.mbarrier<2>
  ws.mbarrier_arrive %b[%i] : !ws.mbarrier<2>
  ws.mbarrier_arrive %b[%i] : !ws.mbarrier<2>
  ws.barrier_arrive 1 threads 256
  ws.barrier_arrive 1 threads 256
  ws.fence_async_shared
  ws.fence_async_shared
  ws.tma_store_wait
  return
}

// -----

// Storage is allocated: two allocations of one type stay two, and an
// unused one stays too (its place in shared memory is the allocator's).
// CHECK-LABEL: func.func @allocations_stay
// CHECK-COUNT-2: ws.buffer_alloc
// CHECK-COUNT-2: ws.channel
// CHECK: ws.mbarrier_alloc
func.func @allocations_stay() -> (memref<128xf32, 3>, memref<128xf32, 3>) {
  %a = ws.buffer_alloc : memref<128xf32, 3>
  %b = ws.buffer_alloc : memref<128xf32, 3>
  %c = ws.channel : !ws.channel<[memref<128xf32, 3>], stages = 1>
  %d = ws.channel : !ws.channel<[memref<128xf32, 3>], stages = 1>
  %e = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<1>
  return %a, %b : memref<128xf32, 3>, memref<128xf32, 3>
}

// -----

// A shared-memory read with no user goes; a write stays.
#row = #tile.slice<dim = 1, parent = #tile.tmem_32x32b<warpgroups = 1>>
// CHECK-LABEL: func.func @reads_and_writes
// CHECK-NOT: ws.load_shared
// CHECK: ws.store_shared
func.func @reads_and_writes(%v: tensor<128xf32, #row>) {
  %buf = ws.buffer_alloc : memref<128xf32, 3>
  %unused = ws.load_shared %buf : memref<128xf32, 3> -> tensor<128xf32, #row>
  ws.store_shared %v, %buf : tensor<128xf32, #row>, memref<128xf32, 3>
  return
}
