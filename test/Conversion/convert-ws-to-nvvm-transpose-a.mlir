// RUN: fmha-opt %s -split-input-file -verify-diagnostics --ws-lower-roles=verify-phases=false --ws-lower-cta-pairs \
// RUN:   --convert-scf-to-cf --convert-ws-to-nvvm | FileCheck %s

// tile.dot with A given as [K, M] (transpose_a) in swizzled shared memory:
// wgmma reads it MN-major (A's layout `col`), as the backward's dQ = dS K
// reads the dS^T it staged. A [64 x 128] is two column blocks of 64 M
// (one 128-byte swizzle span), each 64 K rows deep: 2 (M) x 4 (K) wgmmas
// of m64n128k16, each A descriptor at its block and K step. B given as
// [N, K] stays K-major (`col`); B given as [K, N] is MN-major too (`row`).
#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
// CHECK-LABEL: gpu.module @mn_major_a
// CHECK: nvvm.wgmma.fence.aligned
// The first product starts from zero (scale-d false in its first k-step).
// CHECK-COUNT-2: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <col>]
// CHECK-COUNT-6: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <col>]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-COUNT-8: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
module attributes {gpu.container_module} {
  gpu.module @mn_major_a {
    gpu.func @k() kernel
        attributes {ws.num_threads = 256 : i64, ws.smem_bytes = 65536 : i64} {
      %a = ws.buffer_alloc offset 0 : memref<64x128xbf16, 3>
      %b = ws.buffer_alloc offset 16384 : memref<128x64xbf16, 3>
      %c = ws.buffer_alloc offset 32768 : memref<64x128xbf16, 3>
      ws.warp_specialize {
        ws.role "producer" warps 1 regs 40 first_warp 0 {
        }
        ws.role "consumer" warps 4 regs 232 first_warp 4 {
          %x = ws.as_tensor %a : memref<64x128xbf16, 3> -> tensor<64x128xbf16, #smem>
          %y = ws.as_tensor %b : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #smem>
          %z = ws.as_tensor %c : memref<64x128xbf16, 3> -> tensor<64x128xbf16, #smem>
          %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc>
          %d = tile.dot %x, %y, %zero {transpose_a, transpose_b}
              : tensor<64x128xbf16, #smem>, tensor<128x64xbf16, #smem>, tensor<128x128xf32, #acc>
          %e = tile.dot %x, %z, %d {transpose_a}
              : tensor<64x128xbf16, #smem>, tensor<64x128xbf16, #smem>, tensor<128x128xf32, #acc>
        }
      }
      gpu.return
    }
  }
}

// -----

// fp8 wgmma reads A K-major only.
#smem8 = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 8>
#acc8 = #tile.wgmma_acc<instr_n = 128, warpgroups = 1>
module attributes {gpu.container_module} {
  gpu.module @fp8_mn_major_a {
    gpu.func @k() kernel
        attributes {ws.num_threads = 256 : i64, ws.smem_bytes = 65536 : i64} {
      %a = ws.buffer_alloc offset 0 : memref<128x128xf8E4M3FN, 3>
      %b = ws.buffer_alloc offset 16384 : memref<128x128xf8E4M3FN, 3>
      ws.warp_specialize {
        ws.role "producer" warps 1 regs 40 first_warp 0 {
        }
        ws.role "consumer" warps 4 regs 232 first_warp 4 {
          %x = ws.as_tensor %a : memref<128x128xf8E4M3FN, 3> -> tensor<128x128xf8E4M3FN, #smem8>
          %y = ws.as_tensor %b : memref<128x128xf8E4M3FN, 3> -> tensor<128x128xf8E4M3FN, #smem8>
          %zero = arith.constant dense<0.0> : tensor<128x128xf32, #acc8>
          // expected-error @+2 {{fp8 wgmma needs A in shared memory given as [M, K]: K-major}}
          // expected-error @+1 {{failed to legalize operation 'tile.dot'}}
          %d = tile.dot %x, %y, %zero {transpose_a, transpose_b}
              : tensor<128x128xf8E4M3FN, #smem8>, tensor<128x128xf8E4M3FN, #smem8>, tensor<128x128xf32, #acc8>
        }
      }
      gpu.return
    }
  }
}
