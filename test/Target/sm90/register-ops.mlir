// The register-tensor ops of a FlashAttention-style consumer, compiled to PTX
// for sm_90a from a hand-written ws-level kernel. A producer warp streams Q
// (once) and 64-key K/V tiles by TMA through two channels; one consumer
// warpgroup computes, for its 128 query rows and head dim 64,
// S = Q K^T * scale (log2 domain), masks keys past kv_len and, if causal,
// keys after the query (iota, cmpi, select), keeps the online softmax's row
// max m and row sum l in the wgmma accumulator layout's row vectors
// (#tile.slice), rescales them and O by exp2(m_old - m_new), and accumulates
// O += P V with P = bf16(exp2(S - m)) read by wgmma from registers. It writes
// O / l and a statistics tile (column 0: m, the others: l), both f32.
// test/GPU/run-attention-tile.sh runs it on a GPU (attention_tile.py).
//
// RUN: fmha-opt %s --ws-verify-protocol --ws-insert-mbarriers \
// RUN:   --ws-verify-phases --ws-allocate-smem --ws-allocate-registers \
// RUN:   --ws-lower-roles --ws-lower-cta-pairs \
// RUN:   --convert-scf-to-cf --convert-ws-to-nvvm --convert-nvvm-to-llvm \
// RUN:   --reconcile-unrealized-casts \
// RUN:   --gpu-module-to-binary=format=isa \
// RUN: | fmha-translate --fmha-extract-object > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PTXAS %}

// CHECK: .target sm_90a
// No libdevice: exp2 is ex2.approx.ftz.f32.
// CHECK-NOT: __nv_
// CHECK-LABEL: .entry attention_tile(
// CHECK: .maxntid 256, 1, 1
// Producer: Q once, then K and V of each tile into one slot.
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK: mbarrier.arrive.expect_tx
// CHECK-COUNT-2: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK: mbarrier.arrive.expect_tx
// Consumer: S = Q K^T, 2 (M) x 4 (K) wgmmas with both operands in shared
// memory (descriptors; K given as [N, K], imm-trans-b 0).
// CHECK: setmaxnreg.dec.sync.aligned.u32 232;
// CHECK: mbarrier.try_wait.parity
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{[{]}}{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 0;
// Masked scores become -inf.
// CHECK: selp.f32 {{.*}}0fFF800000
// Row max: the thread's 16 values of a row, then its quad (4 rows a thread).
// CHECK: max.NaN.f32
// CHECK: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK-NEXT: max.NaN.f32
// CHECK-NEXT: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK-NEXT: max.NaN.f32
// CHECK-COUNT-3: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// exp2 of the 4 rescale factors and the 64 probabilities of a thread.
// CHECK-COUNT-68: ex2.approx.ftz.f32
// Row sum, across the quad.
// CHECK: add.rn.f32
// CHECK: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK-NEXT: add.rn.f32
// CHECK-NEXT: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK-NEXT: add.rn.f32
// P in bf16 pairs, O += P V with A from registers (V given as [K, N],
// imm-trans-b 1).
// CHECK: cvt.rn.bf16x2.f32
// CHECK: wgmma.fence.sync.aligned;
// CHECK-NOT: cvt.rn.bf16x2.f32
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{[{]}}{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 0;
// CHECK: mbarrier.arrive.shared.b64
// Epilogue: O / l and the statistics, staged, then TMA-stored.
// CHECK: div.rn.f32
// CHECK: st.shared.v2.b32
// CHECK: fence.proxy.async.shared::cta;
// CHECK: bar.sync {{.*}}1, 128;
// CHECK-COUNT-2: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK: cp.async.bulk.wait_group.read {{.*}}0;

// ptxas takes it without spills, and without serializing or fencing the
// wgmmas itself (C7510, C7515, C7519...: the registers they read are all
// written before the wgmma.fence).
// PTXAS-NOT: warning
// PTXAS-NOT: C75{{[0-9]+}}
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: warning

#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#acc = #tile.wgmma_acc<instr_n = 64, warpgroups = 1>
#row = #tile.slice<dim = 1, parent = #acc>
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
    gpu.func @attention_tile(%q: !tile.desc<tensor<128x64xbf16, #smem>>,
                             %k: !tile.desc<tensor<64x64xbf16, #smem>>,
                             %v: !tile.desc<tensor<64x64xbf16, #smem>>,
                             %o: !tile.desc<tensor<128x64xf32>>,
                             %stats: !tile.desc<tensor<128x64xf32>>,
                             %kv_len: i32, %scale_log2: f32, %causal: i32) kernel {
      %qch = ws.channel : !ws.channel<[memref<128x64xbf16, 3>], stages = 1>
      %kvch = ws.channel : !ws.channel<[memref<64x64xbf16, 3>, memref<64x64xbf16, 3>], stages = 2>
      %obuf = ws.buffer_alloc : memref<128x64xf32, 3>
      %sbuf = ws.buffer_alloc : memref<128x64xf32, 3>
      ws.warp_specialize {
        ws.role "producer" warps 1 regs 40 {
          %c0 = arith.constant 0 : i32
          %c1 = arith.constant 1 : i32
          %c64 = arith.constant 64 : i32
          %c128 = arith.constant 128 : i32
          %c63 = arith.constant 63 : i32
          %kv_end = arith.addi %kv_len, %c63 : i32
          %num_kv = arith.divui %kv_end, %c64 : i32
          %pid = tile.program_id x : i32
          %row0 = arith.muli %pid, %c128 : i32
          %qtok, %qbuf = ws.producer_acquire %qch : !ws.channel<[memref<128x64xbf16, 3>], stages = 1>
          ws.tma_load %q[%row0, %c0], %qbuf, %qtok : !tile.desc<tensor<128x64xbf16, #smem>>, memref<128x64xbf16, 3>
          ws.producer_commit %qch, %qtok by tma tx_bytes 16384 : !ws.channel<[memref<128x64xbf16, 3>], stages = 1>
          scf.for %t = %c0 to %num_kv step %c1 : i32 {
            %tok, %kbuf, %vbuf = ws.producer_acquire %kvch : !ws.channel<[memref<64x64xbf16, 3>, memref<64x64xbf16, 3>], stages = 2>
            %kv0 = arith.muli %t, %c64 : i32
            ws.tma_load %k[%kv0, %c0], %kbuf, %tok : !tile.desc<tensor<64x64xbf16, #smem>>, memref<64x64xbf16, 3>
            ws.tma_load %v[%kv0, %c0], %vbuf, %tok : !tile.desc<tensor<64x64xbf16, #smem>>, memref<64x64xbf16, 3>
            ws.producer_commit %kvch, %tok by tma tx_bytes 16384 : !ws.channel<[memref<64x64xbf16, 3>, memref<64x64xbf16, 3>], stages = 2>
          }
        }
        ws.role "consumer" warps 4 regs 232 {
          %c0 = arith.constant 0 : i32
          %c1 = arith.constant 1 : i32
          %c64 = arith.constant 64 : i32
          %c128 = arith.constant 128 : i32
          %zero = arith.constant dense<0.0> : tensor<128x64xf32, #acc>
          %neg_inf = arith.constant dense<0xFF800000> : tensor<128x64xf32, #acc>
          %m0 = arith.constant dense<0xFF800000> : tensor<128xf32, #row>
          %l0 = arith.constant dense<0.0> : tensor<128xf32, #row>
          %c63 = arith.constant 63 : i32
          %kv_end = arith.addi %kv_len, %c63 : i32
          %num_kv = arith.divui %kv_end, %c64 : i32
          %pid = tile.program_id x : i32
          %row0 = arith.muli %pid, %c128 : i32
          %kv_len_b = tensor.splat %kv_len : tensor<128x64xi32, #acc>
          %is_causal = arith.cmpi ne, %causal, %c0 : i32
          %causal_b = tensor.splat %is_causal : tensor<128x64xi1, #acc>
          %scale = tensor.splat %scale_log2 : tensor<128x64xf32, #acc>
          %rows = tile.iota axis 0 : tensor<128x64xi32, #acc>
          %row0_b = tensor.splat %row0 : tensor<128x64xi32, #acc>
          %q_row = arith.addi %rows, %row0_b : tensor<128x64xi32, #acc>
          %cols = tile.iota axis 1 : tensor<128x64xi32, #acc>
          %qtok, %qbuf = ws.consumer_wait %qch : !ws.channel<[memref<128x64xbf16, 3>], stages = 1>
          %qt = ws.as_tensor %qbuf : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #smem>
          %res:3 = scf.for %t = %c0 to %num_kv step %c1
              iter_args(%acc_o = %zero, %m = %m0, %l = %l0)
              -> (tensor<128x64xf32, #acc>, tensor<128xf32, #row>, tensor<128xf32, #row>) : i32 {
            %tok, %kbuf, %vbuf = ws.consumer_wait %kvch : !ws.channel<[memref<64x64xbf16, 3>, memref<64x64xbf16, 3>], stages = 2>
            %kt = ws.as_tensor %kbuf : memref<64x64xbf16, 3> -> tensor<64x64xbf16, #smem>
            %vt = ws.as_tensor %vbuf : memref<64x64xbf16, 3> -> tensor<64x64xbf16, #smem>
            // S = Q K^T, in the log2 domain.
            %s = tile.dot %qt, %kt, %zero {transpose_b}
                : tensor<128x64xbf16, #smem>, tensor<64x64xbf16, #smem>, tensor<128x64xf32, #acc>
            %s2 = arith.mulf %s, %scale : tensor<128x64xf32, #acc>
            // Masked: keys past kv_len and, if causal, keys after the query.
            %kv0 = arith.muli %t, %c64 : i32
            %kv0_b = tensor.splat %kv0 : tensor<128x64xi32, #acc>
            %key = arith.addi %cols, %kv0_b : tensor<128x64xi32, #acc>
            %future = arith.cmpi sgt, %key, %q_row : tensor<128x64xi32, #acc>
            %causal_mask = arith.andi %future, %causal_b : tensor<128x64xi1, #acc>
            %outside = arith.cmpi sge, %key, %kv_len_b : tensor<128x64xi32, #acc>
            %masked = arith.ori %causal_mask, %outside : tensor<128x64xi1, #acc>
            %s3 = arith.select %masked, %neg_inf, %s2 : tensor<128x64xi1, #acc>, tensor<128x64xf32, #acc>
            // Online softmax: new row max, rescale factor, probabilities.
            %m_tile = tile.reduce max %s3 axis 1 : tensor<128x64xf32, #acc> -> tensor<128xf32, #row>
            %m_new = arith.maximumf %m, %m_tile : tensor<128xf32, #row>
            %m_diff = arith.subf %m, %m_new : tensor<128xf32, #row>
            %alpha = math.exp2 %m_diff : tensor<128xf32, #row>
            %m_b = tile.broadcast %m_new axis 1 : tensor<128xf32, #row> -> tensor<128x64xf32, #acc>
            %s_shift = arith.subf %s3, %m_b : tensor<128x64xf32, #acc>
            %p = math.exp2 %s_shift : tensor<128x64xf32, #acc>
            %p_sum = tile.reduce sum %p axis 1 : tensor<128x64xf32, #acc> -> tensor<128xf32, #row>
            %l_scaled = arith.mulf %l, %alpha : tensor<128xf32, #row>
            %l_new = arith.addf %l_scaled, %p_sum : tensor<128xf32, #row>
            %alpha_b = tile.broadcast %alpha axis 1 : tensor<128xf32, #row> -> tensor<128x64xf32, #acc>
            %o_scaled = arith.mulf %acc_o, %alpha_b : tensor<128x64xf32, #acc>
            // O += P V with P in registers.
            %p16 = arith.truncf %p : tensor<128x64xf32, #acc> to tensor<128x64xbf16, #acc>
            %o_new = tile.dot %p16, %vt, %o_scaled
                : tensor<128x64xbf16, #acc>, tensor<64x64xbf16, #smem>, tensor<128x64xf32, #acc>
            // By threads, after the wgmmas have completed: a release by
            // wgmma in a loop would make ws-insert-mbarriers mark both dots
            // ws.async_wgmma (no wait), but S is read right away.
            ws.consumer_release %kvch, %tok by threads : !ws.channel<[memref<64x64xbf16, 3>, memref<64x64xbf16, 3>], stages = 2>
            scf.yield %o_new, %m_new, %l_new : tensor<128x64xf32, #acc>, tensor<128xf32, #row>, tensor<128xf32, #row>
          }
          ws.consumer_release %qch, %qtok by threads : !ws.channel<[memref<128x64xbf16, 3>], stages = 1>
          // O / l, and the statistics: column 0 the row max, the others the
          // row sum.
          %l_b = tile.broadcast %res#2 axis 1 : tensor<128xf32, #row> -> tensor<128x64xf32, #acc>
          %out = arith.divf %res#0, %l_b : tensor<128x64xf32, #acc>
          %m_out = tile.broadcast %res#1 axis 1 : tensor<128xf32, #row> -> tensor<128x64xf32, #acc>
          %zero_i = arith.constant dense<0> : tensor<128x64xi32, #acc>
          %first = arith.cmpi eq, %cols, %zero_i : tensor<128x64xi32, #acc>
          %st = arith.select %first, %m_out, %l_b : tensor<128x64xi1, #acc>, tensor<128x64xf32, #acc>
          ws.store_shared %out, %obuf : tensor<128x64xf32, #acc>, memref<128x64xf32, 3>
          ws.store_shared %st, %sbuf : tensor<128x64xf32, #acc>, memref<128x64xf32, 3>
          ws.fence_async_shared
          ws.barrier_sync 1 threads 128
          ws.tma_store %o[%row0, %c0], %obuf : !tile.desc<tensor<128x64xf32>>, memref<128x64xf32, 3>
          ws.tma_store %stats[%row0, %c0], %sbuf : !tile.desc<tensor<128x64xf32>>, memref<128x64xf32, 3>
          ws.tma_store_wait
        }
      }
      gpu.return
    }
  }
}
