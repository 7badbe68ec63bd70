// Row sums of a [rows, 64 * num_tiles] bf16 matrix, 128 rows per CTA, written
// at the ws level: a producer warp streams 128x64 tiles by TMA through a
// 2-stage channel; a consumer warpgroup (one thread per row) adds them up.
// scripts/compile-examples.sh compiles it for sm_90a and sm_100a.
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
