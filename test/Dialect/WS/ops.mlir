// RUN: fmha-opt %s | fmha-opt | FileCheck %s
// RUN: fmha-opt %s -mlir-print-op-generic | fmha-opt | FileCheck %s

// CHECK-LABEL: func.func @roles_and_channels
func.func @roles_and_channels(%desc: !tile.desc<tensor<128x64xbf16>, rank = 4>, %i: i32) {
  // CHECK: %[[CH:.*]] = ws.channel : !ws.channel<[memref<128x64xbf16, 3>, memref<64x64xbf16, #gpu.address_space<workgroup>>], stages = 4>
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>, memref<64x64xbf16, #gpu.address_space<workgroup>>], stages = 4>
  // CHECK: %[[OUT:.*]] = ws.channel : !ws.channel<[memref<128xf32, 3>], stages = 1>
  %out = ws.channel : !ws.channel<[memref<128xf32, 3>], stages = 1>
  // CHECK: ws.warp_specialize {
  ws.warp_specialize {
    // CHECK: ws.role "producer" warps 1 regs 40 {
    ws.role "producer" warps 1 regs 40 {
      // CHECK: %[[TOK:.*]], %[[BUFS:.*]]:2 = ws.producer_acquire %[[CH]] : !ws.channel
      %tok, %a, %b = ws.producer_acquire %ch : !ws.channel<[memref<128x64xbf16, 3>, memref<64x64xbf16, #gpu.address_space<workgroup>>], stages = 4>
      // CHECK: ws.tma_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %[[BUFS]]#0, %[[TOK]] : !tile.desc<tensor<128x64xbf16>, rank = 4>, memref<128x64xbf16, 3>
      ws.tma_load %desc[%i, %i, %i, %i], %a, %tok : !tile.desc<tensor<128x64xbf16>, rank = 4>, memref<128x64xbf16, 3>
      // CHECK: ws.producer_commit %[[CH]], %[[TOK]] by tma tx_bytes 16384 : !ws.channel
      ws.producer_commit %ch, %tok by tma tx_bytes 16384 : !ws.channel<[memref<128x64xbf16, 3>, memref<64x64xbf16, #gpu.address_space<workgroup>>], stages = 4>
      // CHECK: %[[T2:.*]], %{{.*}} = ws.consumer_wait %[[OUT]]
      %t2, %r = ws.consumer_wait %out : !ws.channel<[memref<128xf32, 3>], stages = 1>
      // CHECK: ws.consumer_release %[[OUT]], %[[T2]] by threads
      ws.consumer_release %out, %t2 by threads : !ws.channel<[memref<128xf32, 3>], stages = 1>
    }
    // CHECK: ws.role "consumer" warps 4 regs 232 first_warp 4 {
    ws.role "consumer" warps 4 regs 232 first_warp 4 {
      // CHECK: ws.thread_id : i32
      %tid = ws.thread_id : i32
      %tok, %a, %b = ws.consumer_wait %ch : !ws.channel<[memref<128x64xbf16, 3>, memref<64x64xbf16, #gpu.address_space<workgroup>>], stages = 4>
      // CHECK: ws.consumer_release %[[CH]], %{{.*}} by wgmma
      ws.consumer_release %ch, %tok by wgmma : !ws.channel<[memref<128x64xbf16, 3>, memref<64x64xbf16, #gpu.address_space<workgroup>>], stages = 4>
      %t2, %r = ws.producer_acquire %out : !ws.channel<[memref<128xf32, 3>], stages = 1>
      // CHECK: ws.producer_commit %[[OUT]], %{{.*}} by threads :
      ws.producer_commit %out, %t2 by threads : !ws.channel<[memref<128xf32, 3>], stages = 1>
      // CHECK: ws.barrier_sync 1 threads 256
      ws.barrier_sync 1 threads 256
      // CHECK: ws.barrier_arrive 2 threads 128
      ws.barrier_arrive 2 threads 128
    }
  }
  return
}

// CHECK-LABEL: func.func @tmem_channel
func.func @tmem_channel() {
  // CHECK: ws.channel : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 2>
  %ch = ws.channel : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 2>
  ws.warp_specialize {
    ws.role "mma" warps 1 {
      %tok, %acc = ws.producer_acquire %ch : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 2>
      // CHECK: by tcgen05
      ws.producer_commit %ch, %tok by tcgen05 : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 2>
    }
    ws.role "epilogue" warps 4 {
      %tok, %acc = ws.consumer_wait %ch : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 2>
      ws.consumer_release %ch, %tok by threads : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 2>
    }
  }
  return
}

// CHECK-LABEL: func.func @explicit_rings
func.func @explicit_rings(%desc: !tile.desc<tensor<128x64xbf16>>, %i: i32) {
  // Leader operations (TMA copies, MMAs, leader arrivals) run in a role.
  ws.warp_specialize {
    ws.role "r" warps 4 {
      // CHECK: ws.buffer_alloc offset 0 : memref<2x128x64xbf16, 3>
      %ring = ws.buffer_alloc offset 0 : memref<2x128x64xbf16, 3>
      // CHECK: ws.buffer_alloc : memref<2x64xf32, 3>
      %ring2 = ws.buffer_alloc : memref<2x64xf32, 3>
      // CHECK: %[[FULL:.*]] = ws.mbarrier_alloc arrivals 1 offset 32768 : !ws.mbarrier<2>
      %full = ws.mbarrier_alloc arrivals 1 offset 32768 : !ws.mbarrier<2>
      // CHECK: ws.mbarrier_alloc arrivals 128 : !ws.mbarrier<2>
      %empty = ws.mbarrier_alloc arrivals 128 : !ws.mbarrier<2>
      // CHECK: ws.mbarrier_wait %[[FULL]][%{{.*}}], %{{.*}} : !ws.mbarrier<2>
      ws.mbarrier_wait %full[%i], %i : !ws.mbarrier<2>
      // CHECK: %[[BUF:.*]] = ws.slot %{{.*}}[%{{.*}}] : memref<2x128x64xbf16, 3> -> memref<128x64xbf16, 3>
      %buf = ws.slot %ring[%i] : memref<2x128x64xbf16, 3> -> memref<128x64xbf16, 3>
      // CHECK: ws.tma_load_mbarrier %{{.*}}[%{{.*}}, %{{.*}}], %[[BUF]], %[[FULL]][%{{.*}}] : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>, !ws.mbarrier<2>
      ws.tma_load_mbarrier %desc[%i, %i], %buf, %full[%i] : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>, !ws.mbarrier<2>
      // CHECK: ws.mbarrier_arrive %[[FULL]][%{{.*}}] leader tx_bytes 16384 : !ws.mbarrier<2>
      ws.mbarrier_arrive %full[%i] leader tx_bytes 16384 : !ws.mbarrier<2>
      // CHECK: ws.mbarrier_arrive %{{.*}}[%{{.*}}] : !ws.mbarrier<2>
      ws.mbarrier_arrive %empty[%i] : !ws.mbarrier<2>
      // CHECK: ws.fence_async_shared
      ws.fence_async_shared
    }
  }
  return
}

// TMA multicast in a kernel of two-CTA clusters: a copy of half of a block
// into both CTAs, and a commit to both CTAs' barriers.
// CHECK-LABEL: func.func @multicast
func.func @multicast(%desc: !tile.desc<tensor<128x64xbf16>>, %i: i32) attributes {ws.multicast} {
  // Leader operations (TMA copies, MMAs, leader arrivals) run in a role.
  ws.warp_specialize {
    ws.role "r" warps 4 {
      %ring = ws.buffer_alloc : memref<2x128x64xbf16, 3>
      %full = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
      %empty = ws.mbarrier_alloc arrivals 2 : !ws.mbarrier<2>
      %buf = ws.slot %ring[%i] : memref<2x128x64xbf16, 3> -> memref<128x64xbf16, 3>
      // CHECK: ws.tma_load_mbarrier %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}, %{{.*}}[%{{.*}}] multicast : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>, !ws.mbarrier<2>
      ws.tma_load_mbarrier %desc[%i, %i], %buf, %full[%i] multicast : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>, !ws.mbarrier<2>
      // CHECK: ws.mbarrier_arrive %{{.*}}[%{{.*}}] leader tcgen05 multicast : !ws.mbarrier<2>
      ws.mbarrier_arrive %empty[%i] leader tcgen05 multicast : !ws.mbarrier<2>
      // CHECK: ws.mbarrier_arrive %{{.*}}[%{{.*}}] multicast : !ws.mbarrier<2>
      ws.mbarrier_arrive %empty[%i] multicast : !ws.mbarrier<2>
    }
  }
  return
}

// CHECK-LABEL: func.func @tensor_memory
func.func @tensor_memory() {
  // CHECK: %[[T:.*]] = ws.tmem_alloc columns 256
  %t = ws.tmem_alloc columns 256
  // CHECK: ws.tmem_relinquish
  ws.tmem_relinquish
  // CHECK: ws.tmem_dealloc %[[T]] columns 256 : i32
  ws.tmem_dealloc %t columns 256 : i32
  // CHECK: %[[SLOT:.*]] = ws.buffer_alloc : memref<1xi32, 3>
  %slot = ws.buffer_alloc : memref<1xi32, 3>
  // CHECK: %[[T2:.*]] = ws.tmem_alloc columns 512 in %[[SLOT]] : memref<1xi32, 3>
  %t2 = ws.tmem_alloc columns 512 in %slot : memref<1xi32, 3>
  // CHECK: %[[S:.*]] = ws.tmem_buffer : memref<2x128x128xf32, #ws.tmem>
  %s = ws.tmem_buffer : memref<2x128x128xf32, #ws.tmem>
  // CHECK: ws.tmem_buffer aliases %[[S]] : memref<2x128x128xbf16, #ws.tmem> over memref<2x128x128xf32, #ws.tmem>
  %p = ws.tmem_buffer aliases %s : memref<2x128x128xbf16, #ws.tmem> over memref<2x128x128xf32, #ws.tmem>
  // CHECK: ws.tmem_buffer base %[[T2]] column 256 : memref<128x128xf32, #ws.tmem>
  %o = ws.tmem_buffer base %t2 column 256 : memref<128x128xf32, #ws.tmem>
  // CHECK: ws.tmem_buffer aliases %[[S]] base %[[T2]] column 0 : memref<2x128x64xf32, #ws.tmem> over memref<2x128x128xf32, #ws.tmem>
  %q = ws.tmem_buffer aliases %s base %t2 column 0 : memref<2x128x64xf32, #ws.tmem> over memref<2x128x128xf32, #ws.tmem>
  return
}

#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>

// CHECK-LABEL: func.func @tcgen05_mma
func.func @tcgen05_mma(%abuf: memref<128x64xbf16, 3>, %bbuf: memref<256x64xbf16, 3>, %d: memref<128x256xf32, #ws.tmem>, %acc: i1) {
  // Leader operations (TMA copies, MMAs, leader arrivals) run in a role.
  ws.warp_specialize {
    ws.role "r" warps 4 {
      %a = ws.as_tensor %abuf : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #smem>
      %b = ws.as_tensor %bbuf : memref<256x64xbf16, 3> -> tensor<256x64xbf16, #smem>
      // CHECK: ws.tcgen05_mma %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {transpose_b} : tensor<128x64xbf16, #{{.*}}>, tensor<256x64xbf16, #{{.*}}>, memref<128x256xf32, #ws.tmem>
      ws.tcgen05_mma %a, %b, %d, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<256x64xbf16, #smem>, memref<128x256xf32, #ws.tmem>
      // A CTA pair's MMA: B is this CTA's half of N = 256.
      // CHECK: ws.tcgen05_mma %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {cta_pair, transpose_b} : tensor<128x64xbf16, #{{.*}}>, tensor<128x64xbf16, #{{.*}}>, memref<128x256xf32, #ws.tmem>
      %bhalf = ws.as_tensor %abuf : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #smem>
      ws.tcgen05_mma %a, %bhalf, %d, %acc {cta_pair, transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, memref<128x256xf32, #ws.tmem>
      // CHECK: ws.as_tensor %{{.*}} : memref<128x256xf32, #ws.tmem> -> tensor<128x256xf32, #{{.*}}>
      %t = ws.as_tensor %d : memref<128x256xf32, #ws.tmem> -> tensor<128x256xf32, #tile.tmem<block = [128, 256], unpacked = true>>
    }
  }
  return
}

// CHECK-LABEL: func.func @channel_aliases
func.func @channel_aliases() {
  // CHECK: %[[S:.*]] = ws.channel : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 1>
  %s = ws.channel : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 1>
  // CHECK: ws.channel aliases %[[S]] : !ws.channel<[memref<128x128xbf16, #ws.tmem>], stages = 1> over !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 1>
  %p = ws.channel aliases %s : !ws.channel<[memref<128x128xbf16, #ws.tmem>], stages = 1> over !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 1>
  return
}

// CHECK-LABEL: func.func @store_tmem
func.func @store_tmem(%p: tensor<128x128xbf16, #tile.tmem_32x32b<warpgroups = 1>>, %buf: memref<128x128xbf16, #ws.tmem>) {
  // CHECK: ws.store_tmem %{{.*}}, %{{.*}} : tensor<128x128xbf16, #{{.*}}>, memref<128x128xbf16, #ws.tmem>
  ws.store_tmem %p, %buf : tensor<128x128xbf16, #tile.tmem_32x32b<warpgroups = 1>>, memref<128x128xbf16, #ws.tmem>
  return
}

// CHECK-LABEL: func.func @tcgen05_arrive
func.func @tcgen05_arrive(%i: i32) {
  // Leader operations (TMA copies, MMAs, leader arrivals) run in a role.
  ws.warp_specialize {
    ws.role "r" warps 4 {
      %full = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
      // CHECK: ws.mbarrier_arrive %{{.*}}[%{{.*}}] leader tcgen05 : !ws.mbarrier<2>
      ws.mbarrier_arrive %full[%i] leader tcgen05 : !ws.mbarrier<2>
    }
  }
  return
}

// CHECK-LABEL: func.func @load_shared
func.func @load_shared(%buf: memref<128xf32, 3>) {
  // CHECK: ws.load_shared %{{.*}} : memref<128xf32, 3> -> tensor<128xf32, #{{.*}}>
  %r = ws.load_shared %buf : memref<128xf32, 3> -> tensor<128xf32, #tile.slice<dim = 1, parent = #tile.tmem_32x32b<warpgroups = 1>>>
  return
}

// CHECK-LABEL: func.func @epilogue
func.func @epilogue(%desc: !tile.desc<tensor<128x64xbf16>>, %buf: memref<128x64xbf16, 3>, %t: tensor<128x64xbf16>, %i: i32) {
  // Leader operations (TMA copies, MMAs, leader arrivals) run in a role.
  ws.warp_specialize {
    ws.role "r" warps 4 {
      // CHECK: ws.as_tensor %{{.*}} : memref<128x64xbf16, 3> -> tensor<128x64xbf16>
      %v = ws.as_tensor %buf : memref<128x64xbf16, 3> -> tensor<128x64xbf16>
      // CHECK: ws.store_shared %{{.*}}, %{{.*}} : tensor<128x64xbf16>, memref<128x64xbf16, 3>
      ws.store_shared %t, %buf : tensor<128x64xbf16>, memref<128x64xbf16, 3>
      // CHECK: ws.store_shared %{{.*}}, %{{.*}} {layout = #{{.*}}} : tensor<128x64xbf16>, memref<128x64xbf16, 3>
      ws.store_shared %t, %buf {layout = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>} : tensor<128x64xbf16>, memref<128x64xbf16, 3>
      // An fp8 V tile transposed into a slot by the role's threads.
      // CHECK: ws.transpose_shared %{{.*}}, %{{.*}}, %{{.*}} warps 3 {k_quad16, layout = #{{.*}}} : tensor<128x64xf8E4M3FN, #{{.*}}>, memref<64x128xf8E4M3FN, 3>
      %vbuf = memref.alloca() : memref<128x64xf8E4M3FN, 3>
      %vtbuf = memref.alloca() : memref<64x128xf8E4M3FN, 3>
      %vtile = ws.as_tensor %vbuf : memref<128x64xf8E4M3FN, 3> -> tensor<128x64xf8E4M3FN, #tile.nvmma_shared<swizzle = 64, transposed = false, element_bits = 8>>
      %tid = ws.thread_id : i32
      ws.transpose_shared %vtile, %vtbuf, %tid warps 3 {k_quad16, layout = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 8>} : tensor<128x64xf8E4M3FN, #tile.nvmma_shared<swizzle = 64, transposed = false, element_bits = 8>>, memref<64x128xf8E4M3FN, 3>
      // CHECK: ws.tma_store %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
      ws.tma_store %desc[%i, %i], %buf : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
      // Issued only where the predicate holds (the role's leader).
      // CHECK: ws.tma_store %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} if %{{.*}} : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
      %leader = arith.cmpi eq, %i, %i : i32
      ws.tma_store %desc[%i, %i], %buf if %leader : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
      // Adding the buffer to what the block holds (TMA's reduce-add).
      // CHECK: ws.tma_store %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} reduce add if %{{.*}} : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
      ws.tma_store %desc[%i, %i], %buf reduce add if %leader : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
      // CHECK: ws.tma_store_wait
      ws.tma_store_wait
    }
  }
  return
}

// A role's arrival at a global counter (split-K), and the leader's form.
// CHECK-LABEL: func.func @counter_arrive
func.func @counter_arrive(%counters: memref<?xi32>, %i: i32, %n: i32) {
  ws.warp_specialize {
    ws.role "r" warps 4 {
      // CHECK: ws.counter_arrive %{{.*}}[%{{.*}}], %{{.*}} barrier 1 threads 128 : memref<?xi32>
      %last = ws.counter_arrive %counters[%i], %n barrier 1 threads 128 : memref<?xi32>
      %leader = arith.cmpi eq, %i, %i : i32
      // CHECK: ws.counter_arrive %{{.*}}[%{{.*}}], %{{.*}} barrier 1 threads 128 if %{{.*}} : memref<?xi32>
      %again = ws.counter_arrive %counters[%i], %n barrier 1 threads 128 if %leader : memref<?xi32>
    }
  }
  return
}
