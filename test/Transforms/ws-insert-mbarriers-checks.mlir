// RUN: fmha-opt %s -split-input-file -verify-diagnostics \
// RUN:   --nvvm-attach-target="chip=sm_90a features=+ptx86" \
// RUN:   --ws-insert-mbarriers --ws-allocate-smem --ws-allocate-registers \
// RUN:   --ws-lower-roles --ws-lower-cta-pairs \
// RUN:   --convert-scf-to-cf --convert-ws-to-nvvm

// A hand-written ws chain that leaves out ws-verify-protocol still gets its
// checks: ws-insert-mbarriers proves the protocol of every ws.warp_specialize
// that ws-verify-protocol has not marked (ws.protocol_verified) before it
// lowers the channels. Six broken variants of examples/ws-row-sum.mlir that
// used to compile quietly along this chain; each now fails where the
// protocol breaks.

// The commit expects 8192 bytes; the TMA load delivers 16384.
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
            // expected-error-re @+1 {{channel %0: role 'producer' commits 8192 bytes but its TMA loads deliver 16384}}
            ws.producer_commit %ch, %tok by tma tx_bytes 8192 : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
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

// The producer commits its slot twice.
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
            // expected-error-re @+1 {{channel %0: token of ws.producer_acquire in role 'producer' is committed twice}}
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

// The consumer waits for two slots per tile, the producer fills one.
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
            // expected-error-re @+1 {{channel %0: role 'producer' takes 1 slot per iteration of the loop at {{[0-9]+:[0-9]+}}, role 'consumer' takes 2}}
            %tok, %buf = ws.consumer_wait %ch : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
            %tok2, %buf2 = ws.consumer_wait %ch : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
            ws.consumer_release %ch, %tok2 by threads : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
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

// The consumer's loop runs to %rows, the producer's to %num_tiles.
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
          // expected-error-re @+1 {{channel %0: trip counts differ: role 'producer' runs the loop at {{[0-9]+:[0-9]+}} from 0 to %arg3 step 1, role 'consumer' runs the loop at {{[0-9]+:[0-9]+}} from 0 to %arg2 step 1}}
          %sum = scf.for %t = %c0 to %rows step %c1 iter_args(%acc = %zero) -> (f32) : i32 {
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

// The consumer releases its slot on one branch of an scf.if only.
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
            %odd = arith.cmpi eq, %t, %c0 : i32
            scf.if %odd {
              // expected-error-re @+1 {{channel %0: token of ws.consumer_wait in role 'consumer' is released on only one branch of scf.if}}
              ws.consumer_release %ch, %tok by threads : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
            }
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

// The producer fills slots under an scf.if the consumer does not have.
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
          %some = arith.cmpi sgt, %num_tiles, %c0 : i32
          scf.if %some {
          scf.for %t = %c0 to %num_tiles step %c1 : i32 {
            %tok, %buf = ws.producer_acquire %ch : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
            %col = arith.muli %t, %c64 : i32
            ws.tma_load %a[%row0, %col], %buf, %tok : !tile.desc<tensor<128x64xbf16>>, memref<128x64xbf16, 3>
            ws.producer_commit %ch, %tok by tma tx_bytes 16384 : !ws.channel<[memref<128x64xbf16, 3>], stages = 2>
          }
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
          // expected-error-re @+1 {{channel %0: cannot prove that roles take the same number of slots: role 'producer' takes slots under the scf.if at {{[0-9]+:[0-9]+}} where role 'consumer' enters the loop at {{[0-9]+:[0-9]+}}}}
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
