// RUN: fmha-opt %s -split-input-file --ws-lower-roles=verify-phases=false \
// RUN:   --convert-scf-to-cf --convert-ws-to-nvvm | FileCheck %s

// ws.store_shared of a wgmma accumulator into a 128-byte swizzled layout:
// each thread stores its runs at their swizzled offsets.

// f32 (8-byte runs): shared memory serves 8-byte stores a half-warp at a
// time, four rows of four lanes, and the swizzle puts rows 2k and 2k + 1
// into the same 32 bytes of banks. The odd quads of lanes ((thread / 4) &
// 1) store the run 16 columns (half a 128-byte span) away in the same
// instruction: each store selects its base (the other key's) and its
// values, so the half-warp's four rows land in four distinct groups of
// banks. A 64 x 64 f32 accumulator: 16 runs of 8 bytes, 16 stores.
#f32 = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 32>
#acc64 = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
// CHECK-LABEL: gpu.module @f32_runs
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: %[[QUAD:.+]] = llvm.lshr %{{.+}}, %{{.+}} : i32
// CHECK: %[[PARITY:.+]] = llvm.and %[[QUAD]], %{{.+}} : i32
// CHECK: %[[ODD:.+]] = llvm.icmp "ne" %[[PARITY]], %{{.+}} : i32
// CHECK: %[[BASE:.+]] = llvm.select %[[ODD]], %{{.+}}, %{{.+}} : i1, !llvm.ptr<3>
// CHECK: %[[VALUES:.+]] = llvm.select %[[ODD]], %{{.+}}, %{{.+}} : i1, vector<2xf32>
// CHECK: %[[AT:.+]] = llvm.getelementptr %[[BASE]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK: llvm.store %[[VALUES]], %[[AT]] {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-COUNT-15: llvm.store %{{.+}}, %{{.+}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
module attributes {gpu.container_module} {
  gpu.module @f32_runs {
    gpu.func @k() kernel attributes {ws.num_threads = 128 : i64, ws.smem_bytes = 16384 : i64} {
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 0 {
          %t = arith.constant dense<1.0> : tensor<64x64xf32, #acc64>
          %s = ws.buffer_alloc offset 0 : memref<64x64xf32, 3>
          ws.store_shared %t, %s {layout = #f32} : tensor<64x64xf32, #acc64>, memref<64x64xf32, 3>
        }
      }
      gpu.return
    }
  }
}

// -----

// bf16 (4-byte runs): a warp's stores are served at once and the swizzle
// already spreads its eight rows over all banks; nothing is swapped.
#bf16 = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc64 = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
// CHECK-LABEL: gpu.module @bf16_runs
// CHECK-NOT: llvm.select
// CHECK-COUNT-16: llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
module attributes {gpu.container_module} {
  gpu.module @bf16_runs {
    gpu.func @k() kernel attributes {ws.num_threads = 128 : i64, ws.smem_bytes = 8192 : i64} {
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 0 {
          %t = arith.constant dense<1.0> : tensor<64x64xbf16, #acc64>
          %s = ws.buffer_alloc offset 0 : memref<64x64xbf16, 3>
          ws.store_shared %t, %s {layout = #bf16} : tensor<64x64xbf16, #acc64>, memref<64x64xbf16, 3>
        }
      }
      gpu.return
    }
  }
}

// -----

// The same store: the thread's origin column (2 (l % 4), below 16 bytes)
// leaves the chunk bits of its offset clear, so the swizzled offsets of its
// columns 8, 16, ..., 56 are that of column 0 with the chunk bits flipped:
// one xor each, not the whole swizzle again.
#bf16 = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc64 = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
// CHECK-LABEL: gpu.module @bf16_column_keys
// CHECK: %[[SWIZZLED:.+]] = llvm.xor %{{.+}}, %{{.+}} : i32
// CHECK: llvm.getelementptr %{{.+}}[%[[SWIZZLED]]]
// CHECK: %[[C16:.+]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT: %[[COL8:.+]] = llvm.xor %[[SWIZZLED]], %[[C16]] : i32
// CHECK-NEXT: llvm.getelementptr %{{.+}}[%[[COL8]]]
// CHECK: %[[C112:.+]] = llvm.mlir.constant(112 : i32) : i32
// CHECK-NEXT: %[[COL56:.+]] = llvm.xor %[[SWIZZLED]], %[[C112]] : i32
module attributes {gpu.container_module} {
  gpu.module @bf16_column_keys {
    gpu.func @k() kernel attributes {ws.num_threads = 128 : i64, ws.smem_bytes = 8192 : i64} {
      ws.warp_specialize {
        ws.role "consumer" warps 4 first_warp 0 {
          %t = arith.constant dense<1.0> : tensor<64x64xbf16, #acc64>
          %s = ws.buffer_alloc offset 0 : memref<64x64xbf16, 3>
          ws.store_shared %t, %s {layout = #bf16} : tensor<64x64xbf16, #acc64>, memref<64x64xbf16, 3>
        }
      }
      gpu.return
    }
  }
}
