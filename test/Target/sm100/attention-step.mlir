// One attention step written at the ws level for sm_100a, down to PTX that
// ptxas accepts: the pieces SM100 attention is built from, ahead of its role
// partitioning. S = Q K^T lands in tensor memory; a softmax warpgroup loads
// it (tcgen05.ld), takes row maxima and sums in its own registers (a thread
// holds a whole row) after a causal mask (iota rows against columns), and
// writes P as bf16 over S (tcgen05.st into the
// aliased buffer); the MMA warp reads P from tensor memory as the A operand
// of O = P V; the softmax warpgroup divides O by the row sums and stores it.
// ws-verify-phases checks the hand-written barriers; ws-allocate-tmem puts
// P on S's columns (S and P 0-127, O 128-191: 256 columns allocated).
//
// RUN: fmha-opt %s --ws-verify-phases --ws-allocate-tmem --ws-allocate-smem \
// RUN:   --ws-allocate-registers --ws-lower-roles --ws-lower-cta-pairs \
// RUN:   --convert-scf-to-cf --convert-ws-to-nvvm --convert-nvvm-to-llvm \
// RUN:   --reconcile-unrealized-casts --gpu-module-to-binary=format=isa \
// RUN: | fmha-translate --fmha-extract-object > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_100a %t.ptx -o %t.cubin %}
// RUN: fmha-opt %s --ws-allocate-tmem | FileCheck %s --check-prefix=TMEM

// TMEM: %[[T:.*]] = ws.tmem_alloc columns 256 in %{{.*}} : memref<1xi32, 3>
// TMEM: %[[S:.*]] = ws.tmem_buffer base %[[T]] column 0 : memref<128x128xf32, #ws.tmem>
// TMEM: ws.tmem_buffer aliases %[[S]] base %[[T]] column 0 : memref<128x128xbf16, #ws.tmem> over memref<128x128xf32, #ws.tmem>
// TMEM: ws.tmem_buffer base %[[T]] column 128 : memref<128x64xf32, #ws.tmem>

// CHECK: .target sm_100a
// CHECK-LABEL: .entry attention_step(
// CHECK: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32
// CHECK: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// The roles' blocks are placed in any order: the MMA warp's O = P V reads A
// from tensor memory (an address, not a descriptor); the softmax loads S,
// exponentiates, stores P (tcgen05.st, then waits for it), loads O and
// divides.
// CHECK-DAG: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [%r{{[0-9]+}}], %rd{{[0-9]+}}, %rd{{[0-9]+}}
// CHECK-DAG: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [%r{{[0-9]+}}], [%r{{[0-9]+}}], %rd{{[0-9]+}}
// CHECK-DAG: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK-DAG: ex2.approx.ftz.f32
// CHECK-DAG: tcgen05.st.sync.aligned.32x32b.x32.b32
// CHECK-DAG: tcgen05.wait::st.sync.aligned;
// CHECK-DAG: div.{{.*}}f32
// CHECK-DAG: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32
// Counts: 4 K steps of Q K^T and 8 of P V; two commits (S ready, O ready);
// S read in 4 loads of 32 columns, O in 2; P stored as 64 columns in 2.
// RUN: grep -c 'tcgen05.mma.cta_group' %t.ptx | FileCheck %s --check-prefix=MMAS
// MMAS: 12
// RUN: grep -c 'tcgen05.commit' %t.ptx | FileCheck %s --check-prefix=COMMITS
// COMMITS: 2
// RUN: grep -c 'tcgen05.ld.sync' %t.ptx | FileCheck %s --check-prefix=LOADS
// LOADS: 6
// RUN: grep -c 'tcgen05.st.sync' %t.ptx | FileCheck %s --check-prefix=STORES
// STORES: 2

#smem = #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>
#s = #tile.tmem<block = [128, 128], unpacked = true>
#p = #tile.tmem<block = [128, 128], unpacked = false>
#o = #tile.tmem<block = [128, 64], unpacked = true>
#regs = #tile.tmem_32x32b<warpgroups = 1>
#row = #tile.slice<dim = 1, parent = #regs>
module attributes {gpu.container_module} {
  gpu.module @attention_step [#nvvm.target<chip = "sm_100a", features = "+ptx86">] {
    gpu.func @attention_step(%q: !tile.desc<tensor<128x64xbf16, #smem>>,
                             %k: !tile.desc<tensor<128x64xbf16, #smem>>,
                             %v: !tile.desc<tensor<128x64xbf16, #smem>>,
                             %out: !tile.desc<tensor<128x64xf32>>) kernel {
      %c0 = arith.constant 0 : i32
      %false = arith.constant false
      %qb = ws.buffer_alloc : memref<128x64xbf16, 3>
      %kb = ws.buffer_alloc : memref<128x64xbf16, 3>
      %vb = ws.buffer_alloc : memref<128x64xbf16, 3>
      %ob = ws.buffer_alloc : memref<128x64xf32, 3>
      %loaded = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<1>
      %s_full = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<1>
      %p_full = ws.mbarrier_alloc arrivals 128 : !ws.mbarrier<1>
      %o_full = ws.mbarrier_alloc arrivals 1 : !ws.mbarrier<1>
      %s = ws.tmem_buffer : memref<128x128xf32, #ws.tmem>
      %p = ws.tmem_buffer aliases %s : memref<128x128xbf16, #ws.tmem> over memref<128x128xf32, #ws.tmem>
      %o = ws.tmem_buffer : memref<128x64xf32, #ws.tmem>
      ws.warp_specialize {
        ws.role "load" warps 1 {
          ws.tma_load_mbarrier %q[%c0, %c0], %qb, %loaded[%c0] : !tile.desc<tensor<128x64xbf16, #smem>>, memref<128x64xbf16, 3>, !ws.mbarrier<1>
          ws.tma_load_mbarrier %k[%c0, %c0], %kb, %loaded[%c0] : !tile.desc<tensor<128x64xbf16, #smem>>, memref<128x64xbf16, 3>, !ws.mbarrier<1>
          ws.tma_load_mbarrier %v[%c0, %c0], %vb, %loaded[%c0] : !tile.desc<tensor<128x64xbf16, #smem>>, memref<128x64xbf16, 3>, !ws.mbarrier<1>
          ws.mbarrier_arrive %loaded[%c0] leader tx_bytes 49152 : !ws.mbarrier<1>
        }
        ws.role "mma" warps 1 {
          ws.mbarrier_wait %loaded[%c0], %c0 : !ws.mbarrier<1>
          %qt = ws.as_tensor %qb : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #smem>
          %kt = ws.as_tensor %kb : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #smem>
          ws.tcgen05_mma %qt, %kt, %s, %false {transpose_b} : tensor<128x64xbf16, #smem>, tensor<128x64xbf16, #smem>, memref<128x128xf32, #ws.tmem>
          ws.mbarrier_arrive %s_full[%c0] leader tcgen05 : !ws.mbarrier<1>
          ws.mbarrier_wait %p_full[%c0], %c0 : !ws.mbarrier<1>
          %pt = ws.as_tensor %p : memref<128x128xbf16, #ws.tmem> -> tensor<128x128xbf16, #p>
          %vt = ws.as_tensor %vb : memref<128x64xbf16, 3> -> tensor<128x64xbf16, #smem>
          ws.tcgen05_mma %pt, %vt, %o, %false : tensor<128x128xbf16, #p>, tensor<128x64xbf16, #smem>, memref<128x64xf32, #ws.tmem>
          ws.mbarrier_arrive %o_full[%c0] leader tcgen05 : !ws.mbarrier<1>
        }
        ws.role "softmax" warps 4 {
          ws.mbarrier_wait %s_full[%c0], %c0 : !ws.mbarrier<1>
          %st = ws.as_tensor %s : memref<128x128xf32, #ws.tmem> -> tensor<128x128xf32, #s>
          %sr = tile.convert_layout %st : tensor<128x128xf32, #s> -> tensor<128x128xf32, #regs>
          %ci = tile.iota axis 1 : tensor<128x128xi32, #regs>
          %ri = tile.iota axis 0 : tensor<128x128xi32, #regs>
          %vis = arith.cmpi sge, %ri, %ci : tensor<128x128xi32, #regs>
          %ninf = arith.constant dense<0xFF800000> : tensor<128x128xf32, #regs>
          %sm = arith.select %vis, %sr, %ninf : tensor<128x128xi1, #regs>, tensor<128x128xf32, #regs>
          %m = tile.reduce max %sm axis 1 : tensor<128x128xf32, #regs> -> tensor<128xf32, #row>
          %mb = tile.broadcast %m axis 1 : tensor<128xf32, #row> -> tensor<128x128xf32, #regs>
          %d = arith.subf %sm, %mb : tensor<128x128xf32, #regs>
          %e = math.exp2 %d : tensor<128x128xf32, #regs>
          %l = tile.reduce sum %e axis 1 : tensor<128x128xf32, #regs> -> tensor<128xf32, #row>
          %pb = arith.truncf %e : tensor<128x128xf32, #regs> to tensor<128x128xbf16, #regs>
          ws.store_tmem %pb, %p : tensor<128x128xbf16, #regs>, memref<128x128xbf16, #ws.tmem>
          ws.mbarrier_arrive %p_full[%c0] : !ws.mbarrier<1>
          ws.mbarrier_wait %o_full[%c0], %c0 : !ws.mbarrier<1>
          %ot = ws.as_tensor %o : memref<128x64xf32, #ws.tmem> -> tensor<128x64xf32, #o>
          %or = tile.convert_layout %ot : tensor<128x64xf32, #o> -> tensor<128x64xf32, #regs>
          %lb = tile.broadcast %l axis 1 : tensor<128xf32, #row> -> tensor<128x64xf32, #regs>
          %res = arith.divf %or, %lb : tensor<128x64xf32, #regs>
          ws.store_shared %res, %ob : tensor<128x64xf32, #regs>, memref<128x64xf32, 3>
          ws.fence_async_shared
          ws.barrier_sync 1 threads 128
          ws.tma_store %out[%c0, %c0], %ob : !tile.desc<tensor<128x64xf32>>, memref<128x64xf32, 3>
          ws.tma_store_wait
        }
      }
      gpu.return
    }
  }
}
