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
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/d128_causal.ptx -o %t/d128_causal.cubin 2>&1 | FileCheck %s --check-prefixes=PTXAS,NOSPILL %}
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/d128.ptx -o %t/d128.cubin 2>&1 | FileCheck %s --check-prefixes=PTXAS,NOSPILL %}
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/d64_causal.ptx -o %t/d64_causal.cubin 2>&1 | FileCheck %s --check-prefixes=PTXAS,NOSPILL %}
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/d64_lse.ptx -o %t/d64_lse.cubin 2>&1 | FileCheck %s --check-prefixes=PTXAS,NOSPILL %}
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

// ptxas accepts each kernel; with 512 threads it starts every one at 128
// registers. The softmax streams S 32 columns at a time, the barrier
// addresses are not live through the roles and the role dispatch is
// warp-uniform: no kernel spills.
// NOSPILL: {{ }}0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Used 128 registers

// Warpgroup 0: the load warp, the MMA warp and the epilogue warp; then the
// correction warpgroup and one softmax warpgroup per consumer: 512 threads.
// All 512 tensor-memory columns: two consumers x (S, P over it, O).
// CHECK: .target sm_100a
// CHECK: .maxntid 512, 1, 1
// CHECK: mov.b32 [[COLS:%r[0-9]+]], 512;
// CHECK: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [__fmha_smem], [[COLS]];
// CHECK: tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
// CHECK: fence.mbarrier_init.release.cluster;
// Load warp: Q, then K and V per step.
// CHECK: setmaxnreg.dec.sync.aligned.u32 72;
// CHECK: cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// MMA warp: S = Q K^T from shared memory, O += P V with P from tensor
// memory, commits.
// CHECK: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [%r{{[0-9]+}}], %rd{{[0-9]+}}, %rd{{[0-9]+}}
// CHECK: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// CHECK: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [%r{{[0-9]+}}], [%r{{[0-9]+}}], %rd{{[0-9]+}}
// Correction warpgroup, per step and consumer: the rescale factor from
// shared memory (a thread reads its row's), then O in tensor memory 32
// columns at a time: load, wait, multiply, store.
// CHECK: setmaxnreg.dec.sync.aligned.u32 88;
// CHECK: ld.shared.b32
// CHECK-NOT: tcgen05.mma
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK-NOT: tcgen05.ld
// CHECK: tcgen05.wait::ld.sync.aligned;
// CHECK-NOT: tcgen05.ld
// CHECK: mul.rn.f32
// CHECK-NOT: tcgen05.ld
// CHECK: tcgen05.st.sync.aligned.32x32b.x32.b32
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// Head dim 128: four chunks of O per consumer, 64: two.
// D128-COUNT-3: tcgen05.st.sync.aligned.32x32b.x32.b32
// D64: tcgen05.st.sync.aligned.32x32b.x32.b32
// After the loop: the reciprocal of the row sum (the softmax computes it,
// one rcp.approx.f32 per row), then O multiplied by it, rounded and staged
// 32 columns at a time (four 16-byte pieces of the row per chunk): no
// division here.
// CHECK-NOT: div.rn.f32
// CHECK: cvt.rn.bf16x2.f32
// CHECK-NOT: tcgen05.ld
// CHECK-COUNT-4: st.shared.v4.b32
// CHECK-NOT: div.rn.f32
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK-NOT: tcgen05.ld
// CHECK: mul.rn.f32
// CHECK-NOT: tcgen05.ld
// CHECK-COUNT-4: st.shared.v4.b32
// Softmax warpgroups: S streamed from tensor memory 32 columns at a time,
// a first pass for the row maximum (four loads), the rescale factor to
// shared memory (a thread writes its row's), then per chunk a load, exp2
// and P stored over S (32 bf16 values, 16 packed columns).
// CHECK: setmaxnreg.inc.sync.aligned.u32 176;
// CHECK-COUNT-4: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK-NOT: tcgen05.ld
// CHECK: ex2.approx.ftz.f32
// CHECK-NOT: tcgen05.ld
// CHECK: st.shared.b32
// CHECK: mbarrier.arrive
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK-NOT: tcgen05.ld
// CHECK: ex2.approx.ftz.f32
// CHECK-NOT: tcgen05.ld
// CHECK: tcgen05.st.sync.aligned.32x32b.x16.b32
// CHECK-NEXT: tcgen05.wait::st.sync.aligned;
// CHECK-COUNT-3: tcgen05.st.sync.aligned.32x32b.x16.b32
// After the loop, one reciprocal per row (of the row sum).
// CHECK: rcp.approx.f32
// LSE: st.global.b32
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32
// Epilogue warp (laid out last): per consumer, the staged O to global
// memory by TMA.
// CHECK: cp.async.bulk.tensor.4d.global.shared::cta.bulk_group
// CHECK: cp.async.bulk.wait_group.read {{.*}}0;
// CHECK: cp.async.bulk.tensor.4d.global.shared::cta.bulk_group
// CHECK: cp.async.bulk.wait_group.read {{.*}}0;

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
