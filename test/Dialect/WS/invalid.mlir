// RUN: fmha-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the ws dialect.

//===----------------------------------------------------------------------===//
// ws.warp_specialize
//===----------------------------------------------------------------------===//

func.func @ws_non_role_op() {
  ws.warp_specialize {
    // expected-error @+1 {{'arith.constant' op cannot stand directly in ws.warp_specialize: its body holds only ws.role ops}}
    %c0 = arith.constant 0 : i32
    ws.role "producer" warps 1 {
    }
  }
  return
}

// -----

func.func @ws_nested() {
  // expected-note @+1 {{the enclosing ws.warp_specialize}}
  ws.warp_specialize {
    ws.role "outer" warps 4 {
      // expected-error @+1 {{'ws.warp_specialize' op cannot be nested in another ws.warp_specialize: roles divide the warps of the CTA once}}
      ws.warp_specialize {
        ws.role "inner" warps 1 {
        }
      }
    }
  }
  return
}

// -----

func.func @ws_no_roles() {
  // expected-error @+1 {{'ws.warp_specialize' op needs at least one ws.role}}
  ws.warp_specialize {
  }
  return
}

// -----

func.func @ws_duplicate_role_name() {
  ws.warp_specialize {
    ws.role "producer" warps 1 {
    }
    // expected-error @+1 {{'ws.role' op role name 'producer' is used twice}}
    ws.role "producer" warps 4 {
    }
  }
  return
}

// -----

func.func @ws_too_many_warps() {
  // expected-error @+1 {{'ws.warp_specialize' op roles need 36 warps; a CTA has at most 32}}
  ws.warp_specialize {
    ws.role "producer" warps 4 {
    }
    ws.role "consumer" warps 32 {
    }
  }
  return
}

// -----

func.func @ws_register_budget() {
  // expected-error @+1 {{'ws.warp_specialize' op register budgets need 98304 registers per CTA; an SM has 65536}}
  ws.warp_specialize {
    ws.role "a" warps 4 regs 256 {
    }
    ws.role "b" warps 4 regs 256 {
    }
    ws.role "c" warps 4 regs 256 {
    }
  }
  return
}

// -----

func.func @ws_overlapping_warps() {
  ws.warp_specialize {
    ws.role "consumer" warps 4 first_warp 4 {
    }
    // expected-error @+1 {{'ws.role' op warps of role 'producer' overlap those of role 'consumer'}}
    ws.role "producer" warps 2 first_warp 6 {
    }
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// ws.role
//===----------------------------------------------------------------------===//

func.func @role_regs_not_multiple_of_8() {
  ws.warp_specialize {
    // expected-error @+1 {{'ws.role' op register budget must be a multiple of 8 in [24, 256] (setmaxnreg), got 44}}
    ws.role "producer" warps 1 regs 44 {
    }
  }
  return
}

// -----

func.func @role_regs_too_few() {
  ws.warp_specialize {
    // expected-error @+1 {{'ws.role' op register budget must be a multiple of 8 in [24, 256] (setmaxnreg), got 16}}
    ws.role "producer" warps 1 regs 16 {
    }
  }
  return
}

// -----

func.func @role_regs_too_many() {
  ws.warp_specialize {
    // expected-error @+1 {{'ws.role' op register budget must be a multiple of 8 in [24, 256] (setmaxnreg), got 264}}
    ws.role "producer" warps 1 regs 264 {
    }
  }
  return
}

// -----

func.func @role_zero_warps() {
  ws.warp_specialize {
    // expected-error @+1 {{'ws.role' op attribute 'warps' failed to satisfy constraint: 32-bit signless integer attribute whose value is positive}}
    ws.role "producer" warps 0 {
    }
  }
  return
}

// -----

func.func @role_warpgroup_boundary() {
  ws.warp_specialize {
    // expected-error @+1 {{'ws.role' op a role of whole warpgroups must start on a warpgroup boundary, but first_warp is 2}}
    ws.role "consumer" warps 8 first_warp 2 {
    }
  }
  return
}

// -----

func.func @role_past_last_warp() {
  ws.warp_specialize {
    // expected-error @+1 {{'ws.role' op warps 31..32 exceed the 32 warps of a CTA}}
    ws.role "producer" warps 2 first_warp 31 {
    }
  }
  return
}

// -----

func.func @role_outside_warp_specialize() {
  // expected-error @+1 {{'ws.role' op expects parent op 'ws.warp_specialize'}}
  ws.role "producer" warps 1 {
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// !ws.channel and !ws.mbarrier
//===----------------------------------------------------------------------===//

func.func @channel_zero_stages() {
  // expected-error @+1 {{a channel needs 1 to 32 stages, got 0}}
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 0>
  return
}

// -----

func.func @channel_too_many_stages() {
  // expected-error @+1 {{a channel needs 1 to 32 stages, got 33}}
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 33>
  return
}

// -----

// The parser rejects an empty buffer list before the type verifier ("a
// channel slot needs at least one buffer") can see it.
func.func @channel_no_buffers() {
  // expected-error @+2 {{expected non-function type}}
  // expected-error @+1 {{failed to parse WS_ChannelType parameter 'buffers'}}
  %ch = ws.channel : !ws.channel<[], stages = 2>
  return
}

// -----

func.func @channel_dynamic_buffer() {
  // expected-error @+1 {{channel buffers must be statically shaped with the identity layout, got 'memref<?x64xbf16, 3>'}}
  %ch = ws.channel : !ws.channel<[memref<?x64xbf16, 3>], stages = 2>
  return
}

// -----

func.func @channel_strided_buffer() {
  // expected-error @+1 {{channel buffers must be statically shaped with the identity layout}}
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, strided<[128, 1]>, 3>], stages = 2>
  return
}

// -----

func.func @channel_index_elements() {
  // expected-error @+1 {{channel buffers hold integers or floats, got 'memref<128xindex, 3>'}}
  %ch = ws.channel : !ws.channel<[memref<128xindex, 3>], stages = 2>
  return
}

// -----

func.func @channel_global_memory() {
  // expected-error @+1 {{channel buffers live in shared memory (memory space 3) or tensor memory (#ws.tmem), got 'memref<128x64xbf16, 1>'}}
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 1>], stages = 2>
  return
}

// -----

func.func @channel_default_memory() {
  // expected-error @+1 {{channel buffers live in shared memory (memory space 3) or tensor memory (#ws.tmem)}}
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16>], stages = 2>
  return
}

// -----

func.func @channel_mixed_memories() {
  // expected-error @+1 {{all buffers of a channel live in the same memory}}
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>, memref<128x128xf32, #ws.tmem>], stages = 2>
  return
}

// -----

func.func @mbarrier_zero_count() {
  // expected-error @+1 {{an mbarrier array holds at least one barrier}}
  %full = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<0>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Channel ops outside a role
//===----------------------------------------------------------------------===//

func.func @thread_id_outside_role() {
  // expected-error @+1 {{'ws.thread_id' op must be inside a ws.role}}
  %tid = ws.thread_id : i32
  return
}

// -----

func.func @acquire_outside_role() {
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  // expected-error @+1 {{'ws.producer_acquire' op must be inside a ws.role}}
  %tok, %buf = ws.producer_acquire %ch : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  return
}

// -----

func.func @wait_outside_role() {
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  // expected-error @+1 {{'ws.consumer_wait' op must be inside a ws.role}}
  %tok, %buf = ws.consumer_wait %ch : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  return
}

// -----

func.func @commit_outside_role(%tok: !ws.token) {
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  // expected-error @+1 {{'ws.producer_commit' op must be inside a ws.role}}
  ws.producer_commit %ch, %tok by threads : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  return
}

// -----

func.func @release_outside_role(%tok: !ws.token) {
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  // expected-error @+1 {{'ws.consumer_release' op must be inside a ws.role}}
  ws.consumer_release %ch, %tok by threads : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  return
}

// -----

func.func @tma_load_outside_role(%d: !tile.desc<tensor<128x64xbf16>>, %i: i32,
                                 %buf: memref<128x64xbf16, 3>, %tok: !ws.token) {
  // expected-error @+1 {{'ws.tma_load' op must be inside a ws.role}}
  ws.tma_load %d[%i, %i], %buf, %tok : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
  return
}

// -----

//===----------------------------------------------------------------------===//
// ws.producer_commit
//===----------------------------------------------------------------------===//

func.func @commit_token_argument(%tok: !ws.token) {
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      // expected-error @+1 {{'ws.producer_commit' op token must come from ws.producer_acquire}}
      ws.producer_commit %ch, %tok by threads : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
    }
  }
  return
}

// -----

func.func @commit_token_from_wait() {
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %tok, %buf = ws.consumer_wait %ch : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
      // expected-error @+1 {{'ws.producer_commit' op token must come from ws.producer_acquire}}
      ws.producer_commit %ch, %tok by threads : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
    }
  }
  return
}

// -----

func.func @commit_token_other_channel() {
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  %other = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %tok, %buf = ws.producer_acquire %other : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
      // expected-error @+1 {{'ws.producer_commit' op token comes from ws.producer_acquire of another channel}}
      ws.producer_commit %ch, %tok by threads : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
    }
  }
  return
}

// -----

func.func @commit_tma_without_tx_bytes() {
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %tok, %buf = ws.producer_acquire %ch : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
      // expected-error @+1 {{'ws.producer_commit' op a commit by tma needs a positive tx_bytes count}}
      ws.producer_commit %ch, %tok by tma : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
    }
  }
  return
}

// -----

func.func @commit_tma_zero_tx_bytes() {
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %tok, %buf = ws.producer_acquire %ch : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
      // expected-error @+1 {{'ws.producer_commit' op a commit by tma needs a positive tx_bytes count}}
      ws.producer_commit %ch, %tok by tma tx_bytes 0 : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
    }
  }
  return
}

// -----

func.func @commit_tx_bytes_by_threads() {
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %tok, %buf = ws.producer_acquire %ch : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
      // expected-error @+1 {{'ws.producer_commit' op tx_bytes is only meaningful for a commit by tma}}
      ws.producer_commit %ch, %tok by threads tx_bytes 16384 : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
    }
  }
  return
}

// -----

func.func @commit_tx_bytes_exceed_slot() {
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>, memref<64x64xbf16, 3>], stages = 2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %tok, %a, %b = ws.producer_acquire %ch : !ws.channel<[memref<128x64xbf16, 3>, memref<64x64xbf16, 3>], stages = 2>
      // expected-error @+1 {{'ws.producer_commit' op commits 32768 bytes but a slot holds only 24576}}
      ws.producer_commit %ch, %tok by tma tx_bytes 32768 : !ws.channel<[memref<128x64xbf16, 3>, memref<64x64xbf16, 3>], stages = 2>
    }
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// ws.consumer_release
//===----------------------------------------------------------------------===//

func.func @release_token_argument(%tok: !ws.token) {
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  ws.warp_specialize {
    ws.role "consumer" warps 4 {
      // expected-error @+1 {{'ws.consumer_release' op token must come from ws.consumer_wait}}
      ws.consumer_release %ch, %tok by threads : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
    }
  }
  return
}

// -----

func.func @release_token_from_acquire() {
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  ws.warp_specialize {
    ws.role "consumer" warps 4 {
      %tok, %buf = ws.producer_acquire %ch : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
      // expected-error @+1 {{'ws.consumer_release' op token must come from ws.consumer_wait}}
      ws.consumer_release %ch, %tok by threads : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
    }
  }
  return
}

// -----

func.func @release_token_other_channel() {
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  %other = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  ws.warp_specialize {
    ws.role "consumer" warps 4 {
      %tok, %buf = ws.consumer_wait %other : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
      // expected-error @+1 {{'ws.consumer_release' op token comes from ws.consumer_wait of another channel}}
      ws.consumer_release %ch, %tok by wgmma : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
    }
  }
  return
}

// -----

func.func @release_by_tma() {
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  ws.warp_specialize {
    ws.role "consumer" warps 4 {
      %tok, %buf = ws.consumer_wait %ch : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
      // expected-error @+1 {{'ws.consumer_release' op a slot cannot be released by tma; release it by threads, wgmma or tcgen05}}
      ws.consumer_release %ch, %tok by tma : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
    }
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// ws.tma_load
//===----------------------------------------------------------------------===//

func.func @tma_load_coordinate_count(%d: !tile.desc<tensor<128x64xbf16>, rank = 4>, %i: i32) {
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %tok, %buf = ws.producer_acquire %ch : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
      // expected-error @+1 {{'ws.tma_load' op needs one coordinate per global dimension (4), got 2}}
      ws.tma_load %d[%i, %i], %buf, %tok : !tile.desc<tensor<128x64xbf16>, rank = 4>, memref<128x64xbf16, 3>
    }
  }
  return
}

// -----

func.func @tma_load_shape_mismatch(%d: !tile.desc<tensor<128x64xbf16>>, %i: i32) {
  %ch = ws.channel : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %tok, %buf = ws.producer_acquire %ch : !ws.channel<[memref<64x64xbf16, 3>], stages = 2>
      // expected-error @+1 {{'ws.tma_load' op buffer 'memref<64x64xbf16, 3>' does not hold one block 'tensor<128x64xbf16>'}}
      ws.tma_load %d[%i, %i], %buf, %tok : !tile.desc<tensor<128x64xbf16>>, memref<64x64xbf16, 3>
    }
  }
  return
}

// -----

func.func @tma_load_element_type_mismatch(%d: !tile.desc<tensor<128x64xbf16>>, %i: i32) {
  %ch = ws.channel : !ws.channel<[memref<128x64xf16, 3>], stages = 2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %tok, %buf = ws.producer_acquire %ch : !ws.channel<[memref<128x64xf16, 3>], stages = 2>
      // expected-error @+1 {{'ws.tma_load' op buffer 'memref<128x64xf16, 3>' does not hold one block 'tensor<128x64xbf16>'}}
      ws.tma_load %d[%i, %i], %buf, %tok : !tile.desc<tensor<128x64xbf16>>, memref<128x64xf16, 3>
    }
  }
  return
}

// -----

func.func @tma_load_not_shared(%d: !tile.desc<tensor<128x64xbf16>>, %i: i32,
                               %buf: memref<128x64xbf16, 1>) {
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %tok, %slot = ws.producer_acquire %ch : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
      // expected-error @+1 {{'ws.tma_load' op TMA copies between global and shared memory, but the buffer is 'memref<128x64xbf16, 1>'}}
      ws.tma_load %d[%i, %i], %buf, %tok : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 1>
    }
  }
  return
}

// -----

func.func @tma_load_tmem_slot(%d: !tile.desc<tensor<128x64xbf16>>, %i: i32) {
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, #ws.tmem>], stages = 2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %tok, %buf = ws.producer_acquire %ch : !ws.channel<[memref<128x64xbf16, #ws.tmem>], stages = 2>
      // expected-error @+1 {{'ws.tma_load' op TMA copies between global and shared memory, but the buffer is 'memref<128x64xbf16, #ws.tmem>'}}
      ws.tma_load %d[%i, %i], %buf, %tok : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, #ws.tmem>
    }
  }
  return
}

// -----

func.func @tma_load_token_from_wait(%d: !tile.desc<tensor<128x64xbf16>>, %i: i32) {
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %tok, %buf = ws.consumer_wait %ch : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
      // expected-error @+1 {{'ws.tma_load' op token must come from ws.producer_acquire}}
      ws.tma_load %d[%i, %i], %buf, %tok : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
    }
  }
  return
}

// -----

func.func @tma_load_buffer_not_in_slot(%d: !tile.desc<tensor<128x64xbf16>>, %i: i32,
                                       %buf: memref<128x64xbf16, 3>) {
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %tok, %slot = ws.producer_acquire %ch : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
      // expected-error @+1 {{'ws.tma_load' op buffer is not one of the buffers of the token's slot}}
      ws.tma_load %d[%i, %i], %buf, %tok : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
    }
  }
  return
}

// -----

func.func @tma_load_buffer_of_other_slot(%d: !tile.desc<tensor<128x64xbf16>>, %i: i32) {
  %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  %other = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %tok, %buf = ws.producer_acquire %ch : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
      %tok2, %buf2 = ws.producer_acquire %other : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
      // expected-error @+1 {{'ws.tma_load' op buffer is not one of the buffers of the token's slot}}
      ws.tma_load %d[%i, %i], %buf2, %tok : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
    }
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// Named barriers
//===----------------------------------------------------------------------===//

func.func @barrier_sync_threads_not_multiple_of_32() {
  // expected-error @+1 {{'ws.barrier_sync' op thread count must be a multiple of 32 in [32, 1024], got 48}}
  ws.barrier_sync 1 threads 48
  return
}

// -----

func.func @barrier_sync_zero_threads() {
  // expected-error @+1 {{'ws.barrier_sync' op thread count must be a multiple of 32 in [32, 1024], got 0}}
  ws.barrier_sync 1 threads 0
  return
}

// -----

func.func @counter_arrive_threads(%counters: memref<?xi32>, %i: i32) {
  // expected-error @+1 {{'ws.counter_arrive' op thread count must be a multiple of 32 in [32, 1024], got 100}}
  %last = ws.counter_arrive %counters[%i], %i barrier 1 threads 100 : memref<?xi32>
  return
}

// -----

func.func @barrier_arrive_too_many_threads() {
  // expected-error @+1 {{'ws.barrier_arrive' op thread count must be a multiple of 32 in [32, 1024], got 1056}}
  ws.barrier_arrive 2 threads 1056
  return
}

// -----

func.func @barrier_sync_id_zero() {
  // expected-error @+1 {{'ws.barrier_sync' op attribute 'id' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 1 whose maximum value is 15}}
  ws.barrier_sync 0 threads 256
  return
}

// -----

func.func @barrier_arrive_id_16() {
  // expected-error @+1 {{'ws.barrier_arrive' op attribute 'id' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 1 whose maximum value is 15}}
  ws.barrier_arrive 16 threads 256
  return
}

// -----

//===----------------------------------------------------------------------===//
// Explicit rings
//===----------------------------------------------------------------------===//

func.func @mbarrier_alloc_zero_arrivals() {
  // expected-error @+1 {{'ws.mbarrier_alloc' op attribute 'arrivals' failed to satisfy constraint: 32-bit signless integer attribute whose value is positive}}
  %full = ws.mbarrier_alloc arrivals 0 : !ws.mbarrier<2>
  return
}

// -----

func.func @mbarrier_alloc_misaligned() {
  // expected-error @+1 {{'ws.mbarrier_alloc' op mbarriers are 8-byte aligned, but offset is 12}}
  %full = ws.mbarrier_alloc arrivals 1 offset 12 : !ws.mbarrier<2>
  return
}

// -----

func.func @mbarrier_alloc_negative_offset() {
  // expected-error @+1 {{'ws.mbarrier_alloc' op mbarriers are 8-byte aligned, but offset is -8}}
  %full = ws.mbarrier_alloc arrivals 1 offset -8 : !ws.mbarrier<2>
  return
}

// -----

func.func @buffer_alloc_not_shared() {
  // expected-error @+1 {{'ws.buffer_alloc' op allocates a statically shaped shared-memory buffer of integers or floats, got 'memref<2x128x64xbf16, 1>'}}
  %ring = ws.buffer_alloc : memref<2x128x64xbf16, 1>
  return
}

// -----

func.func @buffer_alloc_tmem() {
  // expected-error @+1 {{'ws.buffer_alloc' op allocates a statically shaped shared-memory buffer of integers or floats, got 'memref<2x128x128xf32, #ws.tmem>'}}
  %ring = ws.buffer_alloc : memref<2x128x128xf32, #ws.tmem>
  return
}

// -----

func.func @buffer_alloc_dynamic() {
  // expected-error @+1 {{'ws.buffer_alloc' op allocates a statically shaped shared-memory buffer of integers or floats, got 'memref<?x128x64xbf16, 3>'}}
  %ring = ws.buffer_alloc : memref<?x128x64xbf16, 3>
  return
}

// -----

func.func @buffer_alloc_strided() {
  // expected-error @+1 {{'ws.buffer_alloc' op allocates a statically shaped shared-memory buffer of integers or floats}}
  %ring = ws.buffer_alloc : memref<2x64xbf16, strided<[128, 1]>, 3>
  return
}

// -----

func.func @buffer_alloc_index_elements() {
  // expected-error @+1 {{'ws.buffer_alloc' op allocates a statically shaped shared-memory buffer of integers or floats, got 'memref<2x64xindex, 3>'}}
  %ring = ws.buffer_alloc : memref<2x64xindex, 3>
  return
}

// -----

func.func @buffer_alloc_empty() {
  // expected-error @+1 {{'ws.buffer_alloc' op allocates a statically shaped shared-memory buffer of integers or floats, got 'memref<2x0xf32, 3>'}}
  %ring = ws.buffer_alloc : memref<2x0xf32, 3>
  return
}

// -----

func.func @buffer_alloc_misaligned() {
  // expected-error @+1 {{'ws.buffer_alloc' op buffers are 16-byte aligned, but offset is 8}}
  %ring = ws.buffer_alloc offset 8 : memref<2x128x64xbf16, 3>
  return
}

// -----

func.func @buffer_alloc_negative_offset() {
  // expected-error @+1 {{'ws.buffer_alloc' op buffers are 16-byte aligned, but offset is -16}}
  %ring = ws.buffer_alloc offset -16 : memref<2x128x64xbf16, 3>
  return
}

// -----

func.func @slot_rank_mismatch(%ring: memref<128x64xbf16, 3>, %s: i32) {
  // expected-error @+1 {{'ws.slot' op the ring must be the slot type with a leading stage dimension, got 'memref<128x64xbf16, 3>' and 'memref<128x64xbf16, 3>'}}
  %buf = ws.slot %ring[%s] : memref<128x64xbf16, 3> -> memref<128x64xbf16, 3>
  return
}

// -----

func.func @slot_shape_mismatch(%ring: memref<2x128x64xbf16, 3>, %s: i32) {
  // expected-error @+1 {{'ws.slot' op the ring must be the slot type with a leading stage dimension, got 'memref<2x128x64xbf16, 3>' and 'memref<64x64xbf16, 3>'}}
  %buf = ws.slot %ring[%s] : memref<2x128x64xbf16, 3> -> memref<64x64xbf16, 3>
  return
}

// -----

func.func @slot_element_type_mismatch(%ring: memref<2x128x64xbf16, 3>, %s: i32) {
  // expected-error @+1 {{'ws.slot' op the ring must be the slot type with a leading stage dimension, got 'memref<2x128x64xbf16, 3>' and 'memref<128x64xf16, 3>'}}
  %buf = ws.slot %ring[%s] : memref<2x128x64xbf16, 3> -> memref<128x64xf16, 3>
  return
}

// -----

func.func @slot_memory_space_mismatch(%ring: memref<2x128x64xbf16, 3>, %s: i32) {
  // expected-error @+1 {{'ws.slot' op the ring must be the slot type with a leading stage dimension, got 'memref<2x128x64xbf16, 3>' and 'memref<128x64xbf16, #gpu.address_space<workgroup>>'}}
  %buf = ws.slot %ring[%s] : memref<2x128x64xbf16, 3> -> memref<128x64xbf16, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @mbarrier_arrive_tx_bytes_without_leader(%bars: !ws.mbarrier<2>, %s: i32) {
  // expected-error @+1 {{'ws.mbarrier_arrive' op tx_bytes must be set by one thread: add 'leader'}}
  ws.mbarrier_arrive %bars[%s] tx_bytes 16384 : !ws.mbarrier<2>
  return
}

// -----

func.func @mbarrier_arrive_zero_tx_bytes(%bars: !ws.mbarrier<2>, %s: i32) {
  // expected-error @+1 {{'ws.mbarrier_arrive' op tx_bytes must be positive, got 0}}
  ws.mbarrier_arrive %bars[%s] leader tx_bytes 0 : !ws.mbarrier<2>
  return
}

// -----

func.func @mbarrier_arrive_negative_tx_bytes(%bars: !ws.mbarrier<2>, %s: i32) {
  // expected-error @+1 {{'ws.mbarrier_arrive' op tx_bytes must be positive, got -128}}
  ws.mbarrier_arrive %bars[%s] leader tx_bytes -128 : !ws.mbarrier<2>
  return
}

// -----

func.func @mbarrier_arrive_multicast_leader_without_tcgen05(%bars: !ws.mbarrier<2>, %s: i32) attributes {ws.multicast} {
  // expected-error @+1 {{'ws.mbarrier_arrive' op a multicast arrival by threads is one per warp in each CTA: it takes no 'leader' or tx_bytes (a single thread's multicast arrival is a tcgen05 commit: add 'tcgen05')}}
  ws.mbarrier_arrive %bars[%s] leader multicast : !ws.mbarrier<2>
  return
}

// -----

func.func @mbarrier_arrive_multicast_outside_cluster(%bars: !ws.mbarrier<2>, %s: i32) {
  // expected-error @+1 {{'ws.mbarrier_arrive' op multicast needs a kernel in clusters of two CTAs (the 'ws.multicast' attribute on its function)}}
  ws.mbarrier_arrive %bars[%s] leader tcgen05 multicast : !ws.mbarrier<2>
  return
}

// -----

func.func @tma_load_mbarrier_multicast_outside_cluster(%d: !tile.desc<tensor<128x64xbf16>>, %i: i32,
                                                       %buf: memref<128x64xbf16, 3>, %bars: !ws.mbarrier<2>) {
  // expected-error @+1 {{'ws.tma_load_mbarrier' op multicast needs a kernel in clusters of two CTAs (the 'ws.multicast' attribute on its function)}}
  ws.tma_load_mbarrier %d[%i, %i], %buf, %bars[%i] multicast : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>, !ws.mbarrier<2>
  return
}

// -----

func.func @tma_load_mbarrier_multicast_rank(%d: !tile.desc<tensor<2x64x64xbf16>>, %i: i32,
                                            %buf: memref<2x64x64xbf16, 3>, %bars: !ws.mbarrier<2>) attributes {ws.multicast} {
  // expected-error @+1 {{'ws.tma_load_mbarrier' op multicast splits a 2-d block, got 'tensor<2x64x64xbf16>'}}
  ws.tma_load_mbarrier %d[%i, %i, %i], %buf, %bars[%i] multicast : !tile.desc<tensor<2x64x64xbf16>>, memref<2x64x64xbf16, 3>, !ws.mbarrier<2>
  return
}

// -----

// Halves of 12 rows would split a swizzle pattern.
func.func @tma_load_mbarrier_multicast_rows(%d: !tile.desc<tensor<24x64xbf16>>, %i: i32,
                                            %buf: memref<24x64xbf16, 3>, %bars: !ws.mbarrier<2>) attributes {ws.multicast} {
  // expected-error @+1 {{'ws.tma_load_mbarrier' op multicast splits the 24 rows of block 'tensor<24x64xbf16>' between two CTAs: expected a multiple of 16 (halves of whole swizzle patterns)}}
  ws.tma_load_mbarrier %d[%i, %i], %buf, %bars[%i] multicast : !tile.desc<tensor<24x64xbf16>>, memref<24x64xbf16, 3>, !ws.mbarrier<2>
  return
}


// -----

func.func @tma_load_mbarrier_coordinate_count(%d: !tile.desc<tensor<128x64xbf16>>, %i: i32,
                                              %buf: memref<128x64xbf16, 3>, %bars: !ws.mbarrier<2>) {
  // expected-error @+1 {{'ws.tma_load_mbarrier' op needs one coordinate per global dimension (2), got 3}}
  ws.tma_load_mbarrier %d[%i, %i, %i], %buf, %bars[%i] : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>, !ws.mbarrier<2>
  return
}

// -----

func.func @tma_load_mbarrier_shape_mismatch(%d: !tile.desc<tensor<128x64xbf16>>, %i: i32,
                                            %buf: memref<64x128xbf16, 3>, %bars: !ws.mbarrier<2>) {
  // expected-error @+1 {{'ws.tma_load_mbarrier' op buffer 'memref<64x128xbf16, 3>' does not hold one block 'tensor<128x64xbf16>'}}
  ws.tma_load_mbarrier %d[%i, %i], %buf, %bars[%i] : !tile.desc<tensor<128x64xbf16>>, memref<64x128xbf16, 3>, !ws.mbarrier<2>
  return
}

// -----

func.func @tma_load_mbarrier_not_shared(%d: !tile.desc<tensor<128x64xbf16>>, %i: i32,
                                        %buf: memref<128x64xbf16>, %bars: !ws.mbarrier<2>) {
  // expected-error @+1 {{'ws.tma_load_mbarrier' op TMA copies between global and shared memory, but the buffer is 'memref<128x64xbf16>'}}
  ws.tma_load_mbarrier %d[%i, %i], %buf, %bars[%i] : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16>, !ws.mbarrier<2>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Tensor memory
//===----------------------------------------------------------------------===//

func.func @tmem_alloc_not_power_of_two() {
  // expected-error @+1 {{'ws.tmem_alloc' op allocates a power of two of 32 to 512 tensor memory columns, got 96}}
  %tmem = ws.tmem_alloc columns 96
  return
}

// -----

func.func @tmem_alloc_too_few_columns() {
  // expected-error @+1 {{'ws.tmem_alloc' op allocates a power of two of 32 to 512 tensor memory columns, got 16}}
  %tmem = ws.tmem_alloc columns 16
  return
}

// -----

func.func @tmem_alloc_too_many_columns() {
  // expected-error @+1 {{'ws.tmem_alloc' op allocates a power of two of 32 to 512 tensor memory columns, got 1024}}
  %tmem = ws.tmem_alloc columns 1024
  return
}

// -----

func.func @tmem_dealloc_not_power_of_two(%tmem: i32) {
  // expected-error @+1 {{'ws.tmem_dealloc' op allocates a power of two of 32 to 512 tensor memory columns, got 200}}
  ws.tmem_dealloc %tmem columns 200 : i32
  return
}

// -----

func.func @tmem_dealloc_too_many_columns(%tmem: i32) {
  // expected-error @+1 {{'ws.tmem_dealloc' op allocates a power of two of 32 to 512 tensor memory columns, got 1024}}
  ws.tmem_dealloc %tmem columns 1024 : i32
  return
}

// -----

func.func @as_tensor_shape(%buf: memref<128x64xbf16, 3>) {
  // expected-error @+1 {{'ws.as_tensor' op tensor 'tensor<64x64xbf16>' does not match buffer 'memref<128x64xbf16, 3>'}}
  %t = ws.as_tensor %buf : memref<128x64xbf16, 3> -> tensor<64x64xbf16>
  return
}

// -----

func.func @as_tensor_global(%buf: memref<128x64xbf16>) {
  // expected-error @+1 {{'ws.as_tensor' op reads shared or tensor memory, but the buffer is 'memref<128x64xbf16>'}}
  %t = ws.as_tensor %buf : memref<128x64xbf16> -> tensor<128x64xbf16>
  return
}

// -----

func.func @store_shared_type(%t: tensor<128x64xf32>, %buf: memref<128x64xbf16, 3>) {
  // expected-error @+1 {{'ws.store_shared' op tensor 'tensor<128x64xf32>' does not match buffer 'memref<128x64xbf16, 3>'}}
  ws.store_shared %t, %buf : tensor<128x64xf32>, memref<128x64xbf16, 3>
  return
}

// -----

func.func @store_shared_global(%t: tensor<128x64xbf16>, %buf: memref<128x64xbf16>) {
  // expected-error @+1 {{'ws.store_shared' op writes shared memory, but the buffer is 'memref<128x64xbf16>'}}
  ws.store_shared %t, %buf : tensor<128x64xbf16>, memref<128x64xbf16>
  return
}

// -----

#v = #tile.nvmma_shared<swizzle = 64, transposed = false, element_bits = 8>
#vt = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 8>
func.func @transpose_shared_shape(%t: tensor<128x64xf8E4M3FN, #v>, %buf: memref<128x64xf8E4M3FN, 3>, %tid: i32) {
  // expected-error @+1 {{'ws.transpose_shared' op writes the transpose of a 2-d tile of one-byte elements: expected a buffer of 'memref<64x128xf8E4M3FN, 3>', got 'memref<128x64xf8E4M3FN, 3>'}}
  ws.transpose_shared %t, %buf, %tid warps 3 {layout = #vt} : tensor<128x64xf8E4M3FN, #v>, memref<128x64xf8E4M3FN, 3>
  return
}

// -----

#vt = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 8>
func.func @transpose_shared_registers(%t: tensor<128x64xf8E4M3FN>, %buf: memref<64x128xf8E4M3FN, 3>, %tid: i32) {
  // expected-error @+1 {{'ws.transpose_shared' op reads a row-major swizzled #tile.nvmma_shared tensor, got 'tensor<128x64xf8E4M3FN>'}}
  ws.transpose_shared %t, %buf, %tid warps 3 {layout = #vt} : tensor<128x64xf8E4M3FN>, memref<64x128xf8E4M3FN, 3>
  return
}

// -----

#v = #tile.nvmma_shared<swizzle = 64, transposed = false, element_bits = 8>
#vt = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 8>
func.func @transpose_shared_global(%t: tensor<128x64xf8E4M3FN, #v>, %buf: memref<64x128xf8E4M3FN>, %tid: i32) {
  // expected-error @+1 {{'ws.transpose_shared' op writes shared memory, got 'memref<64x128xf8E4M3FN>'}}
  ws.transpose_shared %t, %buf, %tid warps 3 {layout = #vt} : tensor<128x64xf8E4M3FN, #v>, memref<64x128xf8E4M3FN>
  return
}

// -----

#v = #tile.nvmma_shared<swizzle = 32, transposed = false, element_bits = 8>
#vt = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 8>
func.func @transpose_shared_runs(%t: tensor<48x32xf8E4M3FN, #v>, %buf: memref<32x48xf8E4M3FN, 3>, %tid: i32) {
  // expected-error @+1 {{'ws.transpose_shared' op writes a row-major swizzled layout whose span the rows fill}}
  ws.transpose_shared %t, %buf, %tid warps 3 {layout = #vt} : tensor<48x32xf8E4M3FN, #v>, memref<32x48xf8E4M3FN, 3>
  return
}

// -----

#v = #tile.nvmma_shared<swizzle = 32, transposed = false, element_bits = 8>
#vt = #tile.nvmma_shared<swizzle = 32, transposed = false, element_bits = 8>
func.func @transpose_shared_groups(%t: tensor<40x32xf8E4M3FN, #v>, %buf: memref<32x40xf8E4M3FN, 3>, %tid: i32) {
  // expected-error @+1 {{'ws.transpose_shared' op moves rows in groups of 16 and columns in runs of 32}}
  ws.transpose_shared %t, %buf, %tid warps 3 {layout = #vt} : tensor<40x32xf8E4M3FN, #v>, memref<32x40xf8E4M3FN, 3>
  return
}

// -----

#v = #tile.nvmma_shared<swizzle = 64, transposed = false, element_bits = 8>
#vt = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 8>
func.func @transpose_shared_warps(%t: tensor<128x64xf8E4M3FN, #v>, %buf: memref<64x128xf8E4M3FN, 3>, %tid: i32) {
  // expected-error @+1 {{'ws.transpose_shared' op runs on at least one warp, got 0}}
  ws.transpose_shared %t, %buf, %tid warps 0 {k_quad16, layout = #vt} : tensor<128x64xf8E4M3FN, #v>, memref<64x128xf8E4M3FN, 3>
  return
}

// -----

#v = #tile.nvmma_shared<swizzle = 64, transposed = false, element_bits = 8>
#vt = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 8>
func.func @transpose_shared_plain(%t: tensor<128x64xf8E4M3FN, #v>, %buf: memref<64x128xf8E4M3FN, 3>, %tid: i32) {
  // expected-error @+1 {{'ws.transpose_shared' op writes the k_quad16 order (the one fp8 attention's P V reads); the plain order is not built}}
  ws.transpose_shared %t, %buf, %tid warps 3 {layout = #vt} : tensor<128x64xf8E4M3FN, #v>, memref<64x128xf8E4M3FN, 3>
  return
}

// -----

// A swizzled store's rows must fill the swizzle span: 32 bf16 are 64
// bytes, half of a 128-byte span.
func.func @store_shared_swizzle_span(%t: tensor<64x32xbf16>, %buf: memref<64x32xbf16, 3>) {
  // expected-error @+1 {{'ws.store_shared' op stores a 2-d tensor of whole swizzle patterns (rows a multiple of 8) into a row-major swizzled layout whose span its rows fill, with the element type's width}}
  ws.store_shared %t, %buf {layout = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>} : tensor<64x32xbf16>, memref<64x32xbf16, 3>
  return
}

// -----

// A swizzled store is row-major: a transposed layout is refused.
func.func @store_shared_swizzle_transposed(%t: tensor<64x64xbf16>, %buf: memref<64x64xbf16, 3>) {
  // expected-error @+1 {{'ws.store_shared' op stores a 2-d tensor of whole swizzle patterns}}
  ws.store_shared %t, %buf {layout = #tile.nvmma_shared<swizzle = 128, transposed = true, element_bits = 16>} : tensor<64x64xbf16>, memref<64x64xbf16, 3>
  return
}

// -----

func.func @load_shared_type(%buf: memref<128xf16, 3>) {
  // expected-error @+1 {{'ws.load_shared' op tensor 'tensor<128xf32>' does not match buffer 'memref<128xf16, 3>'}}
  %r = ws.load_shared %buf : memref<128xf16, 3> -> tensor<128xf32>
  return
}

// -----

func.func @load_shared_global(%buf: memref<128xf32>) {
  // expected-error @+1 {{'ws.load_shared' op reads shared memory, but the buffer is 'memref<128xf32>'}}
  %r = ws.load_shared %buf : memref<128xf32> -> tensor<128xf32>
  return
}

// -----

func.func @tma_store_coords(%d: !tile.desc<tensor<128x64xbf16>>, %buf: memref<128x64xbf16, 3>, %i: i32) {
  // expected-error @+1 {{'ws.tma_store' op needs one coordinate per global dimension (2), got 1}}
  ws.tma_store %d[%i], %buf : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
  return
}

// -----

func.func @tmem_alloc_slot_type(%slot: memref<2xi32, 3>) {
  // expected-error @+1 {{'ws.tmem_alloc' op writes the address to a shared-memory memref<1xi32, 3>, got 'memref<2xi32, 3>'}}
  %t = ws.tmem_alloc columns 32 in %slot : memref<2xi32, 3>
  return
}

// -----

func.func @tmem_buffer_shared() {
  // expected-error @+1 {{'ws.tmem_buffer' op allocates a statically shaped 2-d (or staged 3-d) tensor-memory buffer (#ws.tmem) of 8-, 16- or 32-bit elements, got 'memref<128x128xf32, 3>'}}
  %b = ws.tmem_buffer : memref<128x128xf32, 3>
  return
}

// -----

func.func @tmem_buffer_rank() {
  // expected-error @+1 {{'ws.tmem_buffer' op allocates a statically shaped 2-d (or staged 3-d) tensor-memory buffer (#ws.tmem) of 8-, 16- or 32-bit elements, got 'memref<128xf32, #ws.tmem>'}}
  %b = ws.tmem_buffer : memref<128xf32, #ws.tmem>
  return
}

// -----

func.func @tmem_buffer_rows() {
  // expected-error @+1 {{'ws.tmem_buffer' op buffer rows are TMEM lanes: 64 or a multiple of 128, got 96}}
  %b = ws.tmem_buffer : memref<96x128xf32, #ws.tmem>
  return
}

// -----

func.func @tmem_buffer_base_without_column(%t: i32) {
  // expected-error @+1 {{'ws.tmem_buffer' op has a base allocation but no column}}
  %b = ws.tmem_buffer base %t : memref<128x128xf32, #ws.tmem>
  return
}

// -----

func.func @tmem_buffer_alias_not_tmem(%m: memref<128x128xf32, #ws.tmem>) {
  // expected-error @+1 {{'ws.tmem_buffer' op aliases another ws.tmem_buffer only}}
  %b = ws.tmem_buffer aliases %m : memref<128x128xbf16, #ws.tmem> over memref<128x128xf32, #ws.tmem>
  return
}

// -----

func.func @tmem_buffer_alias_stages() {
  %s = ws.tmem_buffer : memref<2x128x128xf32, #ws.tmem>
  // expected-error @+1 {{'ws.tmem_buffer' op has 1 stage(s) but the buffer it aliases has 2}}
  %p = ws.tmem_buffer aliases %s : memref<128x128xbf16, #ws.tmem> over memref<2x128x128xf32, #ws.tmem>
  return
}

// -----

func.func @tmem_buffer_alias_too_wide() {
  %s = ws.tmem_buffer : memref<128x64xf32, #ws.tmem>
  // expected-error @+1 {{'ws.tmem_buffer' op takes 128 columns per stage, more than the buffer it aliases (64)}}
  %p = ws.tmem_buffer aliases %s : memref<128x128xf32, #ws.tmem> over memref<128x64xf32, #ws.tmem>
  return
}

// -----

func.func @tcgen05_arrive_not_leader(%i: i32) {
  %full = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
  // expected-error @+1 {{'ws.mbarrier_arrive' op a tcgen05 arrival is one commit by the thread that issued the MMAs: it needs 'leader' and no tx_bytes}}
  ws.mbarrier_arrive %full[%i] tcgen05 : !ws.mbarrier<2>
  return
}

// -----

func.func @as_tensor_tmem_encoding(%buf: memref<128x128xf32, #ws.tmem>) {
  // expected-error @+1 {{'ws.as_tensor' op reads tensor memory as a #tile.tmem tensor, got 'tensor<128x128xf32>'}}
  %t = ws.as_tensor %buf : memref<128x128xf32, #ws.tmem> -> tensor<128x128xf32>
  return
}

// -----

#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>

func.func @tcgen05_mma_d(%a: tensor<128x64xbf16, #smem>, %b: tensor<128x64xbf16, #smem>, %d: memref<128x128xf32, 3>, %acc: i1) {
  // expected-error @+1 {{'ws.tcgen05_mma' op accumulates into a 2-d f32 tensor-memory buffer, got 'memref<128x128xf32, 3>'}}
  ws.tcgen05_mma %a, %b, %d, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, memref<128x128xf32, 3>
  return
}

// -----

#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>

func.func @tcgen05_mma_rank(%a: tensor<2x128x64xbf16, #smem>, %b: tensor<128x64xbf16, #smem>, %d: memref<128x128xf32, #ws.tmem>, %acc: i1) {
  // expected-error @+1 {{'ws.tcgen05_mma' op multiplies 2-d tensors}}
  ws.tcgen05_mma %a, %b, %d, %acc {transpose_b} : tensor<2x128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, memref<128x128xf32, #ws.tmem>
  return
}

// -----

#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>

func.func @tcgen05_mma_b_registers(%a: tensor<128x64xbf16, #smem>, %b: tensor<128x64xbf16>, %d: memref<128x128xf32, #ws.tmem>, %acc: i1) {
  // expected-error @+1 {{'ws.tcgen05_mma' op reads A from shared (#tile.nvmma_shared) or tensor memory (#tile.tmem) and B from shared memory}}
  ws.tcgen05_mma %a, %b, %d, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16>, memref<128x128xf32, #ws.tmem>
  return
}

// -----

#smem8 = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 8>

func.func @tcgen05_mma_type(%a: tensor<128x128xf8E4M3FN, #smem8>, %b: tensor<128x128xi8, #smem8>, %d: memref<128x128xf32, #ws.tmem>, %acc: i1) {
  // expected-error @+1 {{'ws.tcgen05_mma' op multiplies bf16 or f16 operands of one type, or f8E4M3FN / f8E5M2 operands, got 'f8E4M3FN' and 'i8'}}
  ws.tcgen05_mma %a, %b, %d, %acc {transpose_b} : tensor<128x128xf8E4M3FN, #smem8>, tensor<128x128xi8, #smem8>, memref<128x128xf32, #ws.tmem>
  return
}

// -----

#tmem8 = #tile.tmem<block = [128, 128], unpacked = false>
#smem8 = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 8>

func.func @tcgen05_mma_fp8_tmem_a(%a: tensor<128x128xf8E4M3FN, #tmem8>, %b: tensor<128x128xf8E4M3FN, #smem8>, %d: memref<128x128xf32, #ws.tmem>, %acc: i1) {
  // expected-error @+1 {{'ws.tcgen05_mma' op reads fp8 A from shared memory only, not tensor memory}}
  ws.tcgen05_mma %a, %b, %d, %acc {transpose_b} : tensor<128x128xf8E4M3FN, #tmem8>, tensor<128x128xf8E4M3FN, #smem8>, memref<128x128xf32, #ws.tmem>
  return
}

// -----

#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>

func.func @tcgen05_mma_shapes(%a: tensor<128x64xbf16, #smem>, %b: tensor<128x64xbf16, #smem>, %d: memref<128x256xf32, #ws.tmem>, %acc: i1) {
  // expected-error @+1 {{'ws.tcgen05_mma' op shapes do not multiply: A is 128x64, B 64x128, D 'memref<128x256xf32, #ws.tmem>'}}
  ws.tcgen05_mma %a, %b, %d, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, memref<128x256xf32, #ws.tmem>
  return
}

// -----

#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>

// A CTA pair's B is half of D's N: 128 columns of B do not make 128 of D.
func.func @tcgen05_mma_pair_shapes(%a: tensor<128x64xbf16, #smem>, %b: tensor<128x64xbf16, #smem>, %d: memref<128x128xf32, #ws.tmem>, %acc: i1) {
  // expected-error @+1 {{'ws.tcgen05_mma' op shapes do not multiply: A is 128x64, B 64x128 (half of the pair's), D 'memref<128x128xf32, #ws.tmem>'}}
  ws.tcgen05_mma %a, %b, %d, %acc {cta_pair, transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, memref<128x128xf32, #ws.tmem>
  return
}

// -----

func.func @store_tmem_shape(%t: tensor<128x64xf32, #tile.tmem_32x32b<warpgroups = 1>>, %buf: memref<128x128xf32, #ws.tmem>) {
  // expected-error @+1 {{'ws.store_tmem' op tensor 'tensor<128x64xf32, #tile.tmem_32x32b<warpgroups = 1>>' does not match buffer 'memref<128x128xf32, #ws.tmem>'}}
  ws.store_tmem %t, %buf : tensor<128x64xf32, #tile.tmem_32x32b<warpgroups = 1>>, memref<128x128xf32, #ws.tmem>
  return
}

// -----

func.func @store_tmem_shared(%t: tensor<128x64xf32, #tile.tmem_32x32b<warpgroups = 1>>, %buf: memref<128x64xf32, 3>) {
  // expected-error @+1 {{'ws.store_tmem' op writes tensor memory (#ws.tmem), but the buffer is 'memref<128x64xf32, 3>'}}
  ws.store_tmem %t, %buf : tensor<128x64xf32, #tile.tmem_32x32b<warpgroups = 1>>, memref<128x64xf32, 3>
  return
}

// -----

func.func @store_tmem_layout(%t: tensor<128x64xf32>, %buf: memref<128x64xf32, #ws.tmem>) {
  // expected-error @+1 {{'ws.store_tmem' op stores a tensor in the #tile.tmem_32x32b register layout, got 'tensor<128x64xf32>'}}
  ws.store_tmem %t, %buf : tensor<128x64xf32>, memref<128x64xf32, #ws.tmem>
  return
}

// -----

func.func @channel_alias_shared() {
  %s = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 1>
  // expected-error @+1 {{'ws.channel' op aliases tensor-memory channels only}}
  %p = ws.channel aliases %s : !ws.channel<[memref<128x64xbf16, 3>], stages = 1> over !ws.channel<[memref<128x64xbf16, 3>], stages = 1>
  return
}

// -----

func.func @channel_alias_stages() {
  %s = ws.channel : !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 2>
  // expected-error @+1 {{'ws.channel' op must have the stages and buffer count of the channel it aliases}}
  %p = ws.channel aliases %s : !ws.channel<[memref<128x128xbf16, #ws.tmem>], stages = 1> over !ws.channel<[memref<128x128xf32, #ws.tmem>], stages = 2>
  return
}

// -----

func.func @channel_alias_too_wide() {
  %s = ws.channel : !ws.channel<[memref<128x64xf32, #ws.tmem>], stages = 1>
  // expected-error @+1 {{'ws.channel' op buffer 'memref<128x256xbf16, #ws.tmem>' does not fit in the columns of 'memref<128x64xf32, #ws.tmem>'}}
  %p = ws.channel aliases %s : !ws.channel<[memref<128x256xbf16, #ws.tmem>], stages = 1> over !ws.channel<[memref<128x64xf32, #ws.tmem>], stages = 1>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Leader operations outside a role
//===----------------------------------------------------------------------===//

func.func @tma_load_outside_role(%desc: !tile.desc<tensor<128x64xbf16>>, %i: i32) {
  %ring = ws.buffer_alloc : memref<2x128x64xbf16, 3>
  %full = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
  %buf = ws.slot %ring[%i] : memref<2x128x64xbf16, 3> -> memref<128x64xbf16, 3>
  // expected-error @+1 {{'ws.tma_load_mbarrier' op must be inside a ws.role: the first thread of its role issues it, and outside a role every thread would}}
  ws.tma_load_mbarrier %desc[%i, %i], %buf, %full[%i] : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>, !ws.mbarrier<2>
  return
}

// -----

func.func @leader_arrive_outside_role(%i: i32) {
  %full = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<2>
  // expected-error @+1 {{'ws.mbarrier_arrive' op must be inside a ws.role: the first thread of its role issues it}}
  ws.mbarrier_arrive %full[%i] leader tx_bytes 16384 : !ws.mbarrier<2>
  return
}

// -----

#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
func.func @mma_outside_role(%abuf: memref<128x64xbf16, 3>, %bbuf: memref<256x64xbf16, 3>, %d: memref<128x256xf32, #ws.tmem>, %acc: i1) {
  %a = ws.as_tensor %abuf : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #smem>
  %b = ws.as_tensor %bbuf : memref<256x64xbf16, 3> -> tensor<256x64xbf16, #smem>
  // expected-error @+1 {{'ws.tcgen05_mma' op must be inside a ws.role: the first thread of its role issues it}}
  ws.tcgen05_mma %a, %b, %d, %acc {transpose_b} : tensor<128x64xbf16, #smem>, tensor<256x64xbf16, #smem>, memref<128x256xf32, #ws.tmem>
  return
}

// -----

func.func @tma_store_outside_role(%desc: !tile.desc<tensor<128x64xbf16>>, %buf: memref<128x64xbf16, 3>, %i: i32) {
  // expected-error @+1 {{'ws.tma_store' op must be inside a ws.role: the first thread of its role issues it}}
  ws.tma_store %desc[%i, %i], %buf : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
  return
}
