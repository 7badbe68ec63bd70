// Attention forward compiled by the whole sm_100a pipeline down to PTX that
// ptxas accepts for sm_100a: head dims 128 and 64, causal and not, GQA (the
// KV head is head / (heads_q / heads_kv): index arithmetic in every kernel),
// with and without the LSE output (plain stores, a row per thread). No
// Blackwell GPU runs them here.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: fmha-opt %t/d128_causal.mlir --fmha-sm100-pipeline | fmha-translate --fmha-extract-object > %t/d128_causal.ptx
// RUN: fmha-opt %t/d128.mlir --fmha-sm100-pipeline | fmha-translate --fmha-extract-object > %t/d128.ptx
// RUN: fmha-opt %t/d64_causal.mlir --fmha-sm100-pipeline | fmha-translate --fmha-extract-object > %t/d64_causal.ptx
// RUN: fmha-opt %t/d64_lse.mlir --fmha-sm100-pipeline | fmha-translate --fmha-extract-object > %t/d64_lse.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,D128 < %t/d128_causal.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,D128 < %t/d128.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,D64 < %t/d64_causal.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,D64,LSE < %t/d64_lse.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_100a %t/d128_causal.ptx -o %t/d128_causal.cubin %}
// RUN: %if ptxas %{ %ptxas -arch=sm_100a %t/d128.ptx -o %t/d128.cubin %}
// RUN: %if ptxas %{ %ptxas -arch=sm_100a %t/d64_causal.ptx -o %t/d64_causal.cubin %}
// RUN: %if ptxas %{ %ptxas -arch=sm_100a %t/d64_lse.ptx -o %t/d64_lse.cubin %}
//
// Per K/V step and consumer: S = Q K^T (head dim / 16 K steps from shared
// memory) and O += P V (block_n / 16 = 8 K steps, P read from tensor
// memory), two consumers: 2 x (8 + 8) tcgen05.mma for head dim 128,
// 2 x (4 + 8) for 64.
// RUN: grep -c 'tcgen05.mma.cta_group::1.kind::f16' %t/d128_causal.ptx | FileCheck %s --check-prefix=MMAS128
// MMAS128: 32
// RUN: grep -c 'tcgen05.mma.cta_group::1.kind::f16' %t/d64_causal.ptx | FileCheck %s --check-prefix=MMAS64
// MMAS64: 24
// P V reads its A operand from tensor memory: an address, not a descriptor.
// RUN: grep -c 'tcgen05.mma.cta_group::1.kind::f16.collector::a::discard \[%r[0-9]*\], \[%r' %t/d64_causal.ptx | FileCheck %s --check-prefix=TMEMA
// TMEMA: 16

// A load warp and an MMA warp in warpgroup 0, a softmax warpgroup per
// consumer (O in tensor memory, rescaled there); all 512 columns: two
// consumers x (S, P over it, O).
// CHECK: .target sm_100a
// CHECK: .maxntid 384, 1, 1
// D128: mov.b32 [[COLS:%r[0-9]+]], 512;
// D64: mov.b32 [[COLS:%r[0-9]+]], 512;
// CHECK: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [__fmha_smem], [[COLS]];
// CHECK: tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// D128: cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// D64: cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [%r{{[0-9]+}}], %rd{{[0-9]+}}, %rd{{[0-9]+}}
// CHECK-DAG: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [%r{{[0-9]+}}], [%r{{[0-9]+}}], %rd{{[0-9]+}}
// CHECK-DAG: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK-DAG: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK-DAG: ex2.approx.f32
// CHECK-DAG: tcgen05.st.sync.aligned.32x32b.x32.b32
// CHECK-DAG: tcgen05.wait::st.sync.aligned;
// CHECK-DAG: cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group
// LSE-DAG: st.global.b32
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32

//--- d128_causal.mlir
// The default configuration: at head dim 128 the partition keeps one K/V
// stage (128-row Q tiles, K/V and the staging of O fill shared memory).
fmha.attention @attn_d128_causal (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>,
                                  tensor<?x?x?x128xbf16>) -> tensor<?x?x?x128xbf16>
    causal target sm_100a

//--- d128.mlir
fmha.attention @attn_d128 (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>,
                           tensor<?x?x?x128xbf16>) -> tensor<?x?x?x128xbf16>
    stages 1 target sm_100a

//--- d64_causal.mlir
fmha.attention @attn_d64_causal (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>,
                                 tensor<?x?x?x64xbf16>) -> tensor<?x?x?x64xbf16>
    causal target sm_100a

//--- d64_lse.mlir
fmha.attention @attn_d64_lse (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>,
                              tensor<?x?x?x64xbf16>)
    -> (tensor<?x?x?x64xbf16>, tensor<?x?x?xf32>) target sm_100a
