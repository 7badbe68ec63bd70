// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-verify-protocol | FileCheck %s

// The protocol of examples/ws-row-sum.mlir: a TMA producer and a thread
// consumer take one slot per tile; the bounds are the same kernel argument
// and equal constants defined in each role. The pass changes nothing.
// CHECK-LABEL: gpu.func @row_sum
// CHECK: ws.channel
// CHECK: ws.producer_acquire
// CHECK: ws.tma_load
// CHECK: ws.producer_commit %{{.*}}, %{{.*}} by tma tx_bytes 16384
// CHECK: ws.consumer_wait
// CHECK: ws.consumer_release %{{.*}}, %{{.*}} by threads
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @row_sum(%a: !tile.desc<tensor<128x64xbf16>>, %out: memref<?xf32>,
                      %rows: i32, %num_tiles: i32) kernel {
      %ch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
      ws.warp_specialize {
        ws.role "producer" warps 1 regs 40 {
          %c0 = arith.constant 0 : i32
          %c1 = arith.constant 1 : i32
          %c64 = arith.constant 64 : i32
          %c128 = arith.constant 128 : i32
          %bid = gpu.block_id x
          %bid32 = arith.index_cast %bid : index to i32
          %row0 = arith.muli %bid32, %c128 : i32
          scf.for %t = %c0 to %num_tiles step %c1 : i32 {
            %tok, %buf = ws.producer_acquire %ch : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
            %col = arith.muli %t, %c64 : i32
            ws.tma_load %a[%row0, %col], %buf, %tok : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
            ws.producer_commit %ch, %tok by tma tx_bytes 16384 : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
          }
        }
        ws.role "consumer" warps 4 regs 232 {
          %c0 = arith.constant 0 : i32
          %c1 = arith.constant 1 : i32
          %c128 = arith.constant 128 : i32
          %i0 = arith.constant 0 : index
          %i1 = arith.constant 1 : index
          %i64 = arith.constant 64 : index
          %zero = arith.constant 0.0 : f32
          %tid = ws.thread_id : i32
          %row = arith.index_cast %tid : i32 to index
          %sum = scf.for %t = %c0 to %num_tiles step %c1 iter_args(%acc = %zero) -> (f32) : i32 {
            %tok, %buf = ws.consumer_wait %ch : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
            %tile_sum = scf.for %j = %i0 to %i64 step %i1 iter_args(%s = %acc) -> (f32) {
              %v = memref.load %buf[%row, %j] : memref<128x64xbf16, 3>
              %f = arith.extf %v : bf16 to f32
              %s2 = arith.addf %s, %f : f32
              scf.yield %s2 : f32
            }
            ws.consumer_release %ch, %tok by threads : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
            scf.yield %tile_sum : f32
          }
          %bid = gpu.block_id x
          %bid32 = arith.index_cast %bid : index to i32
          %base = arith.muli %bid32, %c128 : i32
          %grow = arith.addi %base, %tid : i32
          %inside = arith.cmpi slt, %grow, %rows : i32
          scf.if %inside {
            %idx = arith.index_cast %grow : i32 to index
            memref.store %sum, %out[%idx] : memref<?xf32>
          }
        }
      }
      gpu.return
    }
  }
}

// -----

!ab = !ws.channel<[memref<128x64xbf16, 3>, memref<256x64xbf16, 3>], stages = 4>

// A persistent GEMM-like protocol: one TMA producer fills A and B tiles of a
// 4-stage channel shared by two consumer warpgroups, which both release every
// slot by wgmma and meet at a named barrier after each output tile. The tile
// loop runs from the block id in grid steps and the k loop to a bound each
// role computes from %k; both are proven equal across roles.
// CHECK-LABEL: func.func @gemm_two_consumers
// CHECK: ws.producer_commit %{{.*}}, %{{.*}} by tma tx_bytes 49152
// CHECK: ws.role "consumer0"
// CHECK: ws.barrier_sync 1 threads 256
// CHECK: ws.role "consumer1"
func.func @gemm_two_consumers(%a: !tile.desc<tensor<128x64xbf16>>,
                              %b: !tile.desc<tensor<256x64xbf16>>,
                              %tiles: index, %k: i32) {
  %ch = ws.channel : !ab
  ws.warp_specialize {
    ws.role "producer" warps 1 regs 40 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c64 = arith.constant 64 : i32
      %bid = gpu.block_id x
      %grid = gpu.grid_dim x
      %kt = arith.ceildivsi %k, %c64 : i32
      scf.for %t = %bid to %tiles step %grid {
        %t32 = arith.index_cast %t : index to i32
        scf.for %kk = %c0 to %kt step %c1 : i32 {
          %tok, %sa, %sb = ws.producer_acquire %ch : !ab
          ws.tma_load %a[%t32, %kk], %sa, %tok : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
          ws.tma_load %b[%t32, %kk], %sb, %tok : !tile.desc<tensor<256x64xbf16>>, memref<256x64xbf16, 3>
          ws.producer_commit %ch, %tok by tma tx_bytes 49152 : !ab
        }
      }
    }
    ws.role "consumer0" warps 4 regs 232 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c64 = arith.constant 64 : i32
      %bid = gpu.block_id x
      %grid = gpu.grid_dim x
      %kt = arith.ceildivsi %k, %c64 : i32
      scf.for %t = %bid to %tiles step %grid {
        scf.for %kk = %c0 to %kt step %c1 : i32 {
          %tok, %sa, %sb = ws.consumer_wait %ch : !ab
          ws.consumer_release %ch, %tok by wgmma : !ab
        }
        ws.barrier_sync 1 threads 256
      }
    }
    ws.role "consumer1" warps 4 regs 232 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c64 = arith.constant 64 : i32
      %bid = gpu.block_id x
      %grid = gpu.grid_dim x
      %kt = arith.ceildivsi %k, %c64 : i32
      scf.for %t = %bid to %tiles step %grid {
        scf.for %kk = %c0 to %kt step %c1 : i32 {
          %tok, %sa, %sb = ws.consumer_wait %ch : !ab
          ws.consumer_release %ch, %tok by wgmma : !ab
        }
        ws.barrier_sync 1 threads 256
      }
    }
  }
  return
}

// -----

!ch = !ws.channel<[memref<128xf32, 3>], stages = 1>

// Two channels in opposite directions, each role filling one before waiting
// on the other: no deadlock. Takes under scf.if on the same condition in both
// roles, or in both branches of an scf.if, are accepted; so are commits in
// both branches, and an inner loop whose bound is the outer induction
// variable in both roles.
// CHECK-LABEL: func.func @two_way
func.func @two_way(%n: i32, %cond: i1) {
  %x = ws.channel : !ch
  %y = ws.channel : !ch
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

!ch = !ws.channel<[memref<128xf32, 3>], stages = 2>

func.func @missing_release(%n: i32) {
  %ch = ws.channel : !ch
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %tok, %s = ws.producer_acquire %ch : !ch
      ws.producer_commit %ch, %tok by threads : !ch
    }
    ws.role "consumer" warps 4 {
      // expected-error @+1 {{channel %0: token of ws.consumer_wait in role 'consumer' is never released}}
      %tok, %s = ws.consumer_wait %ch : !ch
    }
  }
  return
}

// -----

!ch = !ws.channel<[memref<128xf32, 3>], stages = 2>

func.func @double_commit() {
  %ch = ws.channel : !ch
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %tok, %s = ws.producer_acquire %ch : !ch
      ws.producer_commit %ch, %tok by threads : !ch
      // expected-error @+1 {{channel %0: token of ws.producer_acquire in role 'producer' is committed twice}}
      ws.producer_commit %ch, %tok by threads : !ch
    }
    ws.role "consumer" warps 4 {
      %tok, %s = ws.consumer_wait %ch : !ch
      ws.consumer_release %ch, %tok by threads : !ch
    }
  }
  return
}

// -----

!ch = !ws.channel<[memref<128xf32, 3>], stages = 2>

func.func @commit_on_one_branch(%cond: i1) {
  %ch = ws.channel : !ch
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %tok, %s = ws.producer_acquire %ch : !ch
      scf.if %cond {
        // expected-error @+1 {{channel %0: token of ws.producer_acquire in role 'producer' is committed on only one branch of scf.if}}
        ws.producer_commit %ch, %tok by threads : !ch
      }
    }
    ws.role "consumer" warps 4 {
      %tok, %s = ws.consumer_wait %ch : !ch
      ws.consumer_release %ch, %tok by threads : !ch
    }
  }
  return
}

// -----

!ch = !ws.channel<[memref<128xf32, 3>], stages = 2>

func.func @trip_counts_differ(%n: i32, %m: i32) {
  %ch = ws.channel : !ch
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %i = %c0 to %n step %c1 : i32 {
        %tok, %s = ws.producer_acquire %ch : !ch
        ws.producer_commit %ch, %tok by threads : !ch
      }
    }
    ws.role "consumer" warps 4 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      // expected-error-re @+1 {{channel %0: trip counts differ: role 'producer' runs the loop at {{[0-9]+:[0-9]+}} from 0 to %arg0 step 1, role 'consumer' runs the loop at {{[0-9]+:[0-9]+}} from 0 to %arg1 step 1}}
      scf.for %i = %c0 to %m step %c1 : i32 {
        %tok, %s = ws.consumer_wait %ch : !ch
        ws.consumer_release %ch, %tok by threads : !ch
      }
    }
  }
  return
}

// -----

!ch = !ws.channel<[memref<128xf32, 3>], stages = 2>

func.func @constant_trip_counts_differ() {
  %ch = ws.channel : !ch
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      scf.for %i = %c0 to %c8 step %c1 {
        %tok, %s = ws.producer_acquire %ch : !ch
        ws.producer_commit %ch, %tok by threads : !ch
      }
    }
    ws.role "consumer" warps 4 {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c8 = arith.constant 8 : index
      // expected-error-re @+1 {{trip counts differ: role 'producer' runs the loop at {{[0-9]+:[0-9]+}} from 0 to 8 step 1, role 'consumer' runs the loop at {{[0-9]+:[0-9]+}} from 0 to 8 step 2}}
      scf.for %i = %c0 to %c8 step %c2 {
        %tok, %s = ws.consumer_wait %ch : !ch
        ws.consumer_release %ch, %tok by threads : !ch
      }
    }
  }
  return
}

// -----

!ch = !ws.channel<[memref<128xf32, 3>], stages = 2>

func.func @takes_per_iteration(%n: i32) {
  %ch = ws.channel : !ch
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %i = %c0 to %n step %c1 : i32 {
        %tok, %s = ws.producer_acquire %ch : !ch
        ws.producer_commit %ch, %tok by threads : !ch
        %tok2, %s2 = ws.producer_acquire %ch : !ch
        ws.producer_commit %ch, %tok2 by threads : !ch
      }
    }
    ws.role "consumer" warps 4 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %i = %c0 to %n step %c1 : i32 {
        // expected-error-re @+1 {{channel %0: role 'producer' takes 2 slots per iteration of the loop at {{[0-9]+:[0-9]+}}, role 'consumer' takes 1}}
        %tok, %s = ws.consumer_wait %ch : !ch
        ws.consumer_release %ch, %tok by threads : !ch
      }
    }
  }
  return
}

// -----

!ch = !ws.channel<[memref<128xf32, 3>], stages = 2>

func.func @extra_take_after_loop(%n: i32) {
  %ch = ws.channel : !ch
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %i = %c0 to %n step %c1 : i32 {
        %tok, %s = ws.producer_acquire %ch : !ch
        ws.producer_commit %ch, %tok by threads : !ch
      }
      // expected-error-re @+1 {{channel %0: roles take its slots in different patterns: role 'producer' takes 1 slot at {{[0-9]+:[0-9]+}} where role 'consumer' takes no more slots}}
      %tok, %s = ws.producer_acquire %ch : !ch
      ws.producer_commit %ch, %tok by threads : !ch
    }
    ws.role "consumer" warps 4 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %i = %c0 to %n step %c1 : i32 {
        %tok, %s = ws.consumer_wait %ch : !ch
        ws.consumer_release %ch, %tok by threads : !ch
      }
    }
  }
  return
}

// -----

!ch = !ws.channel<[memref<128xf32, 3>], stages = 2>

func.func @different_conditions(%c: i1, %d: i1) {
  %ch = ws.channel : !ch
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      scf.if %c {
        %tok, %s = ws.producer_acquire %ch : !ch
        ws.producer_commit %ch, %tok by threads : !ch
      }
    }
    ws.role "consumer" warps 4 {
      // expected-error-re @+1 {{channel %0: cannot prove that roles take the same number of slots: role 'producer' takes slots under the scf.if at {{[0-9]+:[0-9]+}} and role 'consumer' under the scf.if at {{[0-9]+:[0-9]+}}, whose conditions are not known to be equal}}
      scf.if %d {
        %tok, %s = ws.consumer_wait %ch : !ch
        ws.consumer_release %ch, %tok by threads : !ch
      }
    }
  }
  return
}

// -----

// Each role reads a kernel argument that nothing writes (varlen attention's
// cu_seqlens) and compares what it read: the same value in every role, so
// the conditions are equal.
!ch = !ws.channel<[memref<128xf32, 3>], stages = 2>

// CHECK-LABEL: func.func @condition_from_read_only_argument
func.func @condition_from_read_only_argument(%cu: memref<?xi32>, %i: index,
                                              %n: i32) {
  %ch = ws.channel : !ch
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0 = arith.constant 0 : index
      %size = memref.dim %cu, %c0 : memref<?xi32>
      %last = arith.subi %size, %i : index
      %x = memref.load %cu[%last] : memref<?xi32>
      %c = arith.cmpi slt, %x, %n : i32
      scf.if %c {
        %tok, %s = ws.producer_acquire %ch : !ch
        ws.producer_commit %ch, %tok by threads : !ch
      }
    }
    ws.role "consumer" warps 4 {
      %c0 = arith.constant 0 : index
      %size = memref.dim %cu, %c0 : memref<?xi32>
      %last = arith.subi %size, %i : index
      %x = memref.load %cu[%last] : memref<?xi32>
      %c = arith.cmpi slt, %x, %n : i32
      scf.if %c {
        %tok, %s = ws.consumer_wait %ch : !ch
        ws.consumer_release %ch, %tok by threads : !ch
      }
    }
  }
  return
}

// -----

// The same with an argument the kernel also writes: a role may read it
// before or after the store, so the conditions may differ.
!ch = !ws.channel<[memref<128xf32, 3>], stages = 2>

func.func @condition_from_written_argument(%cu: memref<?xi32>, %i: index,
                                           %n: i32) {
  %ch = ws.channel : !ch
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %x = memref.load %cu[%i] : memref<?xi32>
      %c = arith.cmpi slt, %x, %n : i32
      scf.if %c {
        %tok, %s = ws.producer_acquire %ch : !ch
        ws.producer_commit %ch, %tok by threads : !ch
      }
      memref.store %n, %cu[%i] : memref<?xi32>
    }
    ws.role "consumer" warps 4 {
      %x = memref.load %cu[%i] : memref<?xi32>
      %c = arith.cmpi slt, %x, %n : i32
      // expected-error-re @+1 {{channel %0: cannot prove that roles take the same number of slots: role 'producer' takes slots under the scf.if at {{[0-9]+:[0-9]+}} and role 'consumer' under the scf.if at {{[0-9]+:[0-9]+}}, whose conditions are not known to be equal}}
      scf.if %c {
        %tok, %s = ws.consumer_wait %ch : !ch
        ws.consumer_release %ch, %tok by threads : !ch
      }
    }
  }
  return
}

// -----

!ch = !ws.channel<[memref<128xf32, 3>], stages = 2>

func.func @condition_per_thread() {
  %ch = ws.channel : !ch
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %tid = ws.thread_id : i32
      %c0 = arith.constant 0 : i32
      %first = arith.cmpi eq, %tid, %c0 : i32
      scf.if %first {
        %tok, %s = ws.producer_acquire %ch : !ch
        ws.producer_commit %ch, %tok by threads : !ch
      }
    }
    ws.role "consumer" warps 4 {
      %tid = ws.thread_id : i32
      %c0 = arith.constant 0 : i32
      %first = arith.cmpi eq, %tid, %c0 : i32
      // expected-error @+1 {{cannot prove that roles take the same number of slots}}
      scf.if %first {
        %tok, %s = ws.consumer_wait %ch : !ch
        ws.consumer_release %ch, %tok by threads : !ch
      }
    }
  }
  return
}

// -----

!ch = !ws.channel<[memref<128xf32, 3>], stages = 1>

// Each role waits for the other's channel before filling its own.
func.func @cyclic_wait(%n: i32) {
  %x = ws.channel : !ch
  %y = ws.channel : !ch
  ws.warp_specialize {
    ws.role "a" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %i = %c0 to %n step %c1 : i32 {
        // expected-error-re @+1 {{deadlock: role 'a' waits at ws.consumer_wait of channel %0 ({{[0-9]+:[0-9]+}}) for role 'b' to commit slot #1; role 'b' waits at ws.consumer_wait of channel %1 ({{[0-9]+:[0-9]+}}) for role 'a' to commit slot #1 (simulating up to 4 iterations per loop)}}
        %tok, %s = ws.consumer_wait %x : !ch
        ws.consumer_release %x, %tok by threads : !ch
        %t2, %s2 = ws.producer_acquire %y : !ch
        ws.producer_commit %y, %t2 by threads : !ch
      }
    }
    ws.role "b" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %i = %c0 to %n step %c1 : i32 {
        %tok, %s = ws.consumer_wait %y : !ch
        ws.consumer_release %y, %tok by threads : !ch
        %t2, %s2 = ws.producer_acquire %x : !ch
        ws.producer_commit %x, %t2 by threads : !ch
      }
    }
  }
  return
}

// -----

!ch = !ws.channel<[memref<128xf32, 3>], stages = 1>

// Each role fills its channel for the whole loop before draining the other:
// with one stage both block at their second acquire.
func.func @full_rings(%n: i32) {
  %x = ws.channel : !ch
  %y = ws.channel : !ch
  ws.warp_specialize {
    ws.role "a" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %i = %c0 to %n step %c1 : i32 {
        // expected-error-re @+1 {{deadlock: role 'a' waits at ws.producer_acquire of channel %0 ({{[0-9]+:[0-9]+}}) for role 'b' to release slot #1; role 'b' waits at ws.producer_acquire of channel %1 ({{[0-9]+:[0-9]+}}) for role 'a' to release slot #1}}
        %tok, %s = ws.producer_acquire %x : !ch
        ws.producer_commit %x, %tok by threads : !ch
      }
      scf.for %i = %c0 to %n step %c1 : i32 {
        %tok, %s = ws.consumer_wait %y : !ch
        ws.consumer_release %y, %tok by threads : !ch
      }
    }
    ws.role "b" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %i = %c0 to %n step %c1 : i32 {
        %tok, %s = ws.producer_acquire %y : !ch
        ws.producer_commit %y, %tok by threads : !ch
      }
      scf.for %i = %c0 to %n step %c1 : i32 {
        %tok, %s = ws.consumer_wait %x : !ch
        ws.consumer_release %x, %tok by threads : !ch
      }
    }
  }
  return
}

// -----

!ab = !ws.channel<[memref<128x64xbf16, 3>, memref<128x64xbf16, 3>], stages = 2>

func.func @wrong_tx_bytes(%a: !tile.desc<tensor<128x64xbf16>>) {
  %ch = ws.channel : !ab
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0 = arith.constant 0 : i32
      %tok, %sa, %sb = ws.producer_acquire %ch : !ab
      ws.tma_load %a[%c0, %c0], %sa, %tok : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
      ws.tma_load %a[%c0, %c0], %sb, %tok : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
      // expected-error @+1 {{channel %0: role 'producer' commits 16384 bytes but its TMA loads deliver 32768}}
      ws.producer_commit %ch, %tok by tma tx_bytes 16384 : !ab
    }
    ws.role "consumer" warps 4 {
      %tok, %sa, %sb = ws.consumer_wait %ch : !ab
      ws.consumer_release %ch, %tok by threads : !ab
    }
  }
  return
}

// -----

!ab = !ws.channel<[memref<128x64xbf16, 3>], stages = 2>

func.func @tma_bytes_on_one_path(%a: !tile.desc<tensor<128x64xbf16>>, %cond: i1) {
  %ch = ws.channel : !ab
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0 = arith.constant 0 : i32
      %tok, %sa = ws.producer_acquire %ch : !ab
      scf.if %cond {
        ws.tma_load %a[%c0, %c0], %sa, %tok : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
      }
      // expected-error @+1 {{channel %0: role 'producer' commits 16384 bytes but its TMA loads deliver 0}}
      ws.producer_commit %ch, %tok by tma tx_bytes 16384 : !ab
    }
    ws.role "consumer" warps 4 {
      %tok, %sa = ws.consumer_wait %ch : !ab
      ws.consumer_release %ch, %tok by threads : !ab
    }
  }
  return
}

// -----

!ab = !ws.channel<[memref<128x64xbf16, 3>], stages = 2>

func.func @tma_load_committed_by_threads(%a: !tile.desc<tensor<128x64xbf16>>) {
  %ch = ws.channel : !ab
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0 = arith.constant 0 : i32
      %tok, %sa = ws.producer_acquire %ch : !ab
      ws.tma_load %a[%c0, %c0], %sa, %tok : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
      // expected-error @+1 {{channel %0: role 'producer' commits by threads a slot that ws.tma_load fills; commit it by tma tx_bytes 16384}}
      ws.producer_commit %ch, %tok by threads : !ab
    }
    ws.role "consumer" warps 4 {
      %tok, %sa = ws.consumer_wait %ch : !ab
      ws.consumer_release %ch, %tok by threads : !ab
    }
  }
  return
}

// -----

!ch = !ws.channel<[memref<128xf32, 3>], stages = 2>

func.func @no_consumer() {
  // expected-error @+1 {{channel %0: has no consumer role: role 'producer' commits slots that no role releases}}
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

func.func @no_producer(%ch: !ch) {
  // expected-error @+1 {{channel %arg0: has no producer role: role 'consumer' waits for slots that no role commits}}
  ws.warp_specialize {
    ws.role "consumer" warps 4 {
      %tok, %s = ws.consumer_wait %ch : !ch
      ws.consumer_release %ch, %tok by threads : !ch
    }
  }
  return
}

// -----

!ch = !ws.channel<[memref<128xf32, 3>], stages = 2>

func.func @producer_and_consumer() {
  %ch = ws.channel : !ch
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %tok, %s = ws.producer_acquire %ch : !ch
      ws.producer_commit %ch, %tok by threads : !ch
      // expected-error @+1 {{channel %0: role 'producer' both produces and consumes it}}
      %tok2, %s2 = ws.consumer_wait %ch : !ch
      ws.consumer_release %ch, %tok2 by threads : !ch
    }
    ws.role "consumer" warps 4 {
      %tok, %s = ws.consumer_wait %ch : !ch
      ws.consumer_release %ch, %tok by threads : !ch
    }
  }
  return
}

// -----

!ch = !ws.channel<[memref<128xf32, 3>], stages = 2>

func.func @two_release_units() {
  %ch = ws.channel : !ch
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %tok, %s = ws.producer_acquire %ch : !ch
      ws.producer_commit %ch, %tok by threads : !ch
      %tok2, %s2 = ws.producer_acquire %ch : !ch
      ws.producer_commit %ch, %tok2 by threads : !ch
    }
    ws.role "consumer" warps 4 {
      %tok, %s = ws.consumer_wait %ch : !ch
      ws.consumer_release %ch, %tok by threads : !ch
      %tok2, %s2 = ws.consumer_wait %ch : !ch
      // expected-error @+1 {{channel %0: role 'consumer' releases it by two different units (threads and wgmma), so its barrier has no single arrival count}}
      ws.consumer_release %ch, %tok2 by wgmma : !ch
    }
  }
  return
}

// -----

func.func @barrier_too_few_threads() {
  ws.warp_specialize {
    ws.role "producer" warps 1 {
    }
    ws.role "consumer0" warps 4 {
      // expected-error @+1 {{named barrier 1 expects 256 threads but roles 'consumer0' (128) use it}}
      ws.barrier_sync 1 threads 256
    }
  }
  return
}

// -----

func.func @barrier_thread_counts_conflict() {
  ws.warp_specialize {
    ws.role "consumer0" warps 4 {
      ws.barrier_sync 1 threads 256
    }
    ws.role "consumer1" warps 4 {
      // expected-error-re @+1 {{named barrier 1 is used with 128 threads here but with 256 threads at {{[0-9]+:[0-9]+}}}}
      ws.barrier_arrive 1 threads 128
    }
  }
  return
}

// -----

// Each consumer syncs on the barrier the other only arrives at after its own
// sync: neither phase completes.
func.func @barrier_deadlock() {
  ws.warp_specialize {
    ws.role "consumer0" warps 4 {
      // expected-error-re @+1 {{deadlock: role 'consumer0' waits at ws.barrier_sync 1 ({{[0-9]+:[0-9]+}}) for 256 threads; role 'consumer1' waits at ws.barrier_sync 2 ({{[0-9]+:[0-9]+}}) for 256 threads}}
      ws.barrier_sync 1 threads 256
      ws.barrier_arrive 2 threads 256
    }
    ws.role "consumer1" warps 4 {
      ws.barrier_sync 2 threads 256
      ws.barrier_arrive 1 threads 256
    }
  }
  return
}

// -----

// The ping-pong of two consumers over an outer loop of tiles, whose inner
// loop may run no iteration (a single key tile): consumer1 then arrives at
// barrier 3 once per tile and never waits, so it can run a tile ahead and
// complete a generation of barrier 3 with its own two arrivals, and
// consumer0's wait there never returns. Consumer1's own 128-thread barrier
// (a staging sync) does not hold it back. The simulation, which runs each
// loop a fixed number of times, would not see it.
func.func @barrier_arrives_twice(%tiles: i32, %keys: i32) {
  ws.warp_specialize {
    ws.role "consumer0" warps 4 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %t = %c0 to %tiles step %c1 : i32 {
        scf.for %j = %c1 to %keys step %c1 : i32 {
          ws.barrier_sync 3 threads 256
          ws.barrier_arrive 4 threads 256
        }
        ws.barrier_sync 3 threads 256
      }
    }
    ws.role "consumer1" warps 4 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %t = %c0 to %tiles step %c1 : i32 {
        // expected-error-re @+2 {{named barrier 3: the role may arrive here again without waiting at a named barrier shared with another role since its arrival at {{[0-9]+:[0-9]+}}; two arrivals of one role can complete a generation alone and leave the roles that wait there blocked}}
        // expected-note @+1 {{the earlier arrival}}
        ws.barrier_arrive 3 threads 256
        scf.for %j = %c1 to %keys step %c1 : i32 {
          ws.barrier_sync 4 threads 256
          ws.barrier_arrive 3 threads 256
        }
        ws.barrier_sync 2 threads 128
      }
    }
  }
  return
}

// -----

// The same with the token kept going round (what ws-partition-roles
// builds): after its inner loop each consumer waits for its turn and hands
// it on; consumer1 creates the token once, consumer0 takes it back at its
// end. Every arrival is followed by a wait shared with the other role.
// CHECK-LABEL: func.func @barrier_token_round
func.func @barrier_token_round(%tiles: i32, %keys: i32) {
  ws.warp_specialize {
    ws.role "consumer0" warps 4 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %t = %c0 to %tiles step %c1 : i32 {
        scf.for %j = %c1 to %keys step %c1 : i32 {
          ws.barrier_sync 3 threads 256
          ws.barrier_arrive 4 threads 256
        }
        ws.barrier_sync 3 threads 256
        ws.barrier_arrive 4 threads 256
      }
      ws.barrier_sync 3 threads 256
    }
    ws.role "consumer1" warps 4 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      ws.barrier_arrive 3 threads 256
      scf.for %t = %c0 to %tiles step %c1 : i32 {
        scf.for %j = %c1 to %keys step %c1 : i32 {
          ws.barrier_sync 4 threads 256
          ws.barrier_arrive 3 threads 256
        }
        ws.barrier_sync 4 threads 256
        ws.barrier_arrive 3 threads 256
      }
    }
  }
  return
}

// -----

!ch = !ws.channel<[memref<128xf32, 3>], stages = 2>

func.func @token_escapes_loop(%n: i32) {
  %ch = ws.channel : !ch
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %none = builtin.unrealized_conversion_cast to !ws.token
      %last = scf.for %i = %c0 to %n step %c1 iter_args(%t = %none) -> (!ws.token) : i32 {
        %tok, %s = ws.producer_acquire %ch : !ch
        // expected-error @+1 {{channel %0: token of ws.producer_acquire in role 'producer' escapes through 'scf.yield'; only its ws.producer_commit and ws.tma_load may use it}}
        scf.yield %tok : !ws.token
      }
    }
    ws.role "consumer" warps 4 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %i = %c0 to %n step %c1 : i32 {
        %tok, %s = ws.consumer_wait %ch : !ch
        ws.consumer_release %ch, %tok by threads : !ch
      }
    }
  }
  return
}

// -----

!ch = !ws.channel<[memref<128xf32, 3>], stages = 2>

func.func @commit_in_inner_loop(%n: i32) {
  %ch = ws.channel : !ch
  ws.warp_specialize {
    ws.role "producer" warps 1 {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %tok, %s = ws.producer_acquire %ch : !ch
      scf.for %i = %c0 to %n step %c1 : i32 {
        // expected-error @+1 {{channel %0: token of ws.producer_acquire in role 'producer' is committed inside a loop that it was not taken in, once per iteration}}
        ws.producer_commit %ch, %tok by threads : !ch
      }
    }
    ws.role "consumer" warps 4 {
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
      // expected-error @+1 {{'scf.while' op holds channel operations of role 'producer'; only scf.for and scf.if may enclose them}}
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

// TMA multicast (`ws.multicast`): each CTA copies half of the block but
// both halves land in its slot, so the slot is committed with the whole
// block's bytes, as for any TMA load; that the peer's release also frees
// the slot is a matter of the barriers (ws-insert-mbarriers doubles the
// empty side's arrivals, ws-verify-phases simulates both CTAs). The pass
// changes nothing.
// CHECK-LABEL: func.func @multicast_channel
// CHECK: ws.tma_load %{{.*}} multicast
!ch = !ws.channel<[memref<128x64xbf16, 3>], stages = 2>

func.func @multicast_channel(%a: !tile.desc<tensor<128x64xbf16>>, %n: i32) attributes {ws.multicast} {
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

