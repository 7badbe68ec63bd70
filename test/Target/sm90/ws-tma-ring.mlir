// A hand-written warp-specialized kernel at the ws level, compiled to PTX for
// sm_90a: a producer warp streams 128x64 bf16 tiles by TMA through a 2-stage
// channel; a consumer warpgroup (one thread per row) adds the tiles up and
// writes one float per row.
//
// RUN: fmha-opt %s --ws-insert-mbarriers --ws-allocate-smem \
// RUN:   --ws-allocate-registers --ws-lower-roles --ws-lower-cta-pairs \
// RUN:   --convert-scf-to-cf --convert-ws-to-nvvm --convert-nvvm-to-llvm \
// RUN:   --reconcile-unrealized-casts \
// RUN:   --gpu-module-to-binary=format=isa \
// RUN: | fmha-translate --fmha-extract-object > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// CHECK: .target sm_90a
// CHECK: .extern .shared .align 1024 .b8 __fmha_smem[];
// CHECK-LABEL: .entry row_sum(
// CHECK-NEXT: .param .align 64 .b8 row_sum_param_0[128]
// CHECK: .maxntid 256, 1, 1
// CHECK-NEXT: .minnctapersm 1
// CHECK: @%p{{[0-9]+}} mbarrier.init.shared.b64 [%r{{[0-9]+}}], 1;
// CHECK: @%p{{[0-9]+}} mbarrier.init.shared.b64 [%r{{[0-9]+}}], 128;
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK-NEXT: bar.sync 0;
// Producer: its warpgroup drops to 40 registers, then waits for an empty
// slot, TMAs into it, and arrives with its bytes.
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: mbarrier.try_wait.parity
// CHECK: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK: mbarrier.arrive.expect_tx
// Consumer: at 232 registers, waits for a full slot, reads it, releases it.
// CHECK: setmaxnreg.dec.sync.aligned.u32 232;
// CHECK: mbarrier.try_wait.parity
// CHECK: ld.shared.{{.*}}b16
// CHECK: mbarrier.arrive

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
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
