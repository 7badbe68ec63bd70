// Attention configurations compiled from fmha.attention ops by the whole
// sm_90a pipeline, down to PTX that ptxas accepts without spilling: head dims
// 64, 128 and 256, causal and not, grouped-query attention with dynamic
// heads, a two-sided sliding window, bf16 and f16, one and two consumers.
// Each kernel is its own input (one gpu.binary and one manifest per module).
//
// RUN: rm -rf %t && split-file %s %t
//
// RUN: fmha-opt %t/d64.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d64.ptx
// RUN: FileCheck %s < %t/d64.ptx
// RUN: FileCheck %s --check-prefix=D64 < %t/d64.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/d64.ptx -o %t/d64.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
//
// RUN: fmha-opt %t/d128-causal-gqa.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d128.ptx
// RUN: FileCheck %s < %t/d128.ptx
// RUN: FileCheck %s --check-prefix=D128 < %t/d128.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/d128.ptx -o %t/d128.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: fmha-opt %t/d128-causal-gqa.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST-D128
//
// RUN: fmha-opt %t/d256.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d256.ptx
// RUN: FileCheck %s < %t/d256.ptx
// RUN: FileCheck %s --check-prefix=D256 < %t/d256.ptx
// RUN: FileCheck %s --check-prefix=RESCALE < %t/d256.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/d256.ptx -o %t/d256.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: fmha-opt %t/d256.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST-D256
//
// RUN: fmha-opt %t/d256-causal-gqa.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d256c.ptx
// RUN: FileCheck %s < %t/d256c.ptx
// RUN: FileCheck %s --check-prefix=D256C < %t/d256c.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/d256c.ptx -o %t/d256c.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
//
// RUN: fmha-opt %t/window.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/window.ptx
// RUN: FileCheck %s --check-prefix=WINDOW < %t/window.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/window.ptx -o %t/window.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
//
// RUN: fmha-opt %t/persistent.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/persistent.ptx
// RUN: FileCheck %s --check-prefix=PERSISTENT < %t/persistent.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/persistent.ptx -o %t/persistent.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: fmha-opt %t/persistent.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST-PERSISTENT
//
// RUN: fmha-opt %t/wide-d128.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/wide-d128.ptx
// RUN: FileCheck %s --check-prefix=WIDE-D128 < %t/wide-d128.ptx
// RUN: FileCheck %s --check-prefix=NO-RESCALE < %t/wide-d128.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/wide-d128.ptx -o %t/wide-d128.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
//
// RUN: fmha-opt %t/wide-d64.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/wide-d64.ptx
// RUN: FileCheck %s --check-prefix=WIDE-D64 < %t/wide-d64.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/wide-d64.ptx -o %t/wide-d64.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// ptxas keeps every configuration in registers.
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// Two consumers: one producer warpgroup (of which one warp issues TMA) and
// two consumer warpgroups, 384 threads. Thread 0 initialises the barriers:
// full barriers take the producer's one arrival (and the TMA bytes), empty
// barriers the 256 threads of the two consumers; then the whole CTA syncs.
// CHECK: .target sm_90a
// CHECK: .extern .shared .align 1024 .b8 __fmha_smem[];
// CHECK: .maxntid 384, 1, 1
// CHECK: .minnctapersm 1
// CHECK: mbarrier.init.shared.b64 [%r{{[0-9]+}}], 1;
// CHECK: mbarrier.init.shared.b64 [%r{{[0-9]+}}], 256;
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: bar.sync 0;
// The producer gives registers up, loads Q once and the first K tile, then
// per step the next K tile and the previous V tile, each after waiting for
// an empty slot of its own ring, and the last V tile after the loop; the
// consumers take registers.
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK: mbarrier.arrive.expect_tx.shared.b64
// CHECK: mbarrier.try_wait.parity.shared.b64
// CHECK: cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK: mbarrier.arrive.expect_tx.shared.b64
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// The two consumer roles run one copy of the code (replica roles). One
// turn token goes round them: consumer 1 creates it at its start, opening
// consumer 0's first turn (named barrier 3, 2 x 128 threads). Each waits
// for its Q tile and the first K slot, computes the first S = Q K^T by
// wgmma and its softmax with exp2 and releases the slot. In the loop, on
// its turn (barrier 3 for consumer 0, 4 for consumer 1: an id selected by
// the replica index), it issues the next S and P V (P from registers) back
// to back, hands the turn over (barrier 4 or 3), waits for S only
// (wait_group 1) while P V runs, releases the K slot, and the V slot once
// P V is done. After the loop it waits for its turn once more and hands it
// over, then the last P V; O goes out by TMA through shared memory,
// ordered by a named barrier of the consumer's 128 threads (1 or 2). At
// its end consumer 0 takes the token back.
// CHECK-NOT: setmaxnreg
// CHECK: bar.arrive 3, 256;
// CHECK: mbarrier.try_wait.parity.shared.b64
// CHECK: wgmma.fence.sync.aligned;
// CHECK: wgmma.mma_async.sync.aligned
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: mbarrier.arrive.shared.b64
// CHECK: ex2.approx.ftz.f32
// CHECK: bar.sync [[TURN:%r[0-9]+]], 256;
// CHECK: wgmma.mma_async.sync.aligned.{{.*}}}, %rd
// CHECK: wgmma.mma_async.sync.aligned.{{.*}}, {%r
// CHECK: bar.arrive [[HANDOVER:%r[0-9]+]], 256;
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: mbarrier.arrive.shared.b64
// CHECK: bar.sync [[TURN]], 256;
// CHECK-NEXT: // begin inline asm
// CHECK-NEXT: bar.arrive [[HANDOVER]], 256;
// CHECK: cp.async.bulk.wait_group.read 0;
// CHECK: bar.sync [[STAGE:%r[0-9]+]], 128;
// CHECK: st.shared
// CHECK: fence.proxy.async.shared::cta;
// CHECK: bar.sync [[STAGE]], 128;
// CHECK: cp.async.bulk.tensor.4d.global.shared::cta.bulk_group
// CHECK: cp.async.bulk.commit_group;
// CHECK: bar.sync 3, 256;
// CHECK-NOT: setmaxnreg

//--- d64.mlir
// Head dim 64, not causal, static batch and heads, a CTA per query block,
// the default tile [64, 128] and 3 stages. Q is two 64x64 boxes (one per consumer); S = Q K^T
// takes 4 wgmmas of K 16 (N 128), P V 8 (N 64, A from registers).
// D64-LABEL: .entry attn_d64(
// D64-COUNT-2: cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// D64-NOT: cp.async.bulk.tensor
// D64: mbarrier.try_wait.parity
// D64-COUNT-1: cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// D64-NOT: cp.async.bulk.tensor
// D64: mbarrier.try_wait.parity
// D64-COUNT-1: cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// D64: setmaxnreg.inc
// D64-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}},
// D64-NOT: wgmma.mma_async
// D64: ex2.approx.ftz.f32
// D64: bar.sync %r{{[0-9]+}}, 256;
// D64-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}},
// D64-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, {%r
fmha.attention @attn_d64 (tensor<2x8x?x64xbf16>, tensor<2x8x?x64xbf16>,
                          tensor<2x8x?x64xbf16>)
    -> tensor<2x8x?x64xbf16> schedule per_block target sm_90a

//--- d128-causal-gqa.mlir
// Head dim 128, causal, grouped-query attention with dynamic heads (the KV
// head is the query head divided by heads_q / heads_kv, at run time), the
// example's tile [64, 64] and 3 stages. Each 64-row tile of Q or K/V is two
// 128-byte-wide TMA boxes.
// D128-LABEL: .entry attn_d128_causal_gqa(
// D128-COUNT-4: cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// D128-NOT: cp.async.bulk.tensor
// D128: div.u32
// D128: mbarrier.try_wait.parity
// D128-COUNT-2: cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// D128-NOT: cp.async.bulk.tensor
// D128: mbarrier.try_wait.parity
// D128-COUNT-2: cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// D128: setmaxnreg.inc
// D128-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}},
// D128-NOT: wgmma.mma_async
// D128: ex2.approx.ftz.f32
// D128: bar.sync %r{{[0-9]+}}, 256;
// D128-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}},
// D128-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, {%r
//
// The launch: heads and lengths as scalars, one CTA per 128 query rows
// (two consumers of 64), per query head and batch; 32768 bytes of Q, three
// stages of 2 x 16384 bytes of K/V, 8 barriers.
// MANIFEST-D128: "block": [
// MANIFEST-D128-NEXT: 384,
// MANIFEST-D128: "dynamic_smem": 131184,
// MANIFEST-D128: "grid": [
// MANIFEST-D128-NEXT: {
// MANIFEST-D128-NEXT: "ceildiv": [
// MANIFEST-D128-NEXT: "SQ",
// MANIFEST-D128-NEXT: 128
// MANIFEST-D128: "H",
// MANIFEST-D128-NEXT: "B"
// MANIFEST-D128: "value": "HKV"
fmha.attention @attn_d128_causal_gqa (tensor<?x?x?x128xbf16>,
                                      tensor<?x?x?x128xbf16>,
                                      tensor<?x?x?x128xbf16>)
    -> tensor<?x?x?x128xbf16> causal tile [64, 64] stages 3 schedule per_block
    target sm_90a

//--- d256.mlir
// Head dim 256, not causal, the defaults: tile [64, 64], 2 stages. Each
// 64-row tile is four 128-byte-wide boxes: Q 8 boxes (two consumers), K and
// V 4 each. S = Q K^T takes 16 wgmmas of K 16, P V 4 of N 256. O is staged
// in the consumer's Q buffer (offsets 0 and 32768, before the K and V
// rings), and the Q slot is released (its empty barrier at 196616, after
// the buffers and the Q ring's full barrier) once the TMA store has read
// it.
// Conditional rescaling (head dim 256): after the P V wait a thread
// multiplies O by its rows' factors only if one of the two differs from 1
// (tile.scale_rows).
// RESCALE: setp.eq.f32 [[ROW0:%p[0-9]+]], %r{{[0-9]+}}, 0f3F800000;
// RESCALE-NEXT: setp.eq.f32 [[ROW1:%p[0-9]+]], %r{{[0-9]+}}, 0f3F800000;
// RESCALE-NEXT: and.pred [[BOTH:%p[0-9]+]], [[ROW0]], [[ROW1]];
// RESCALE-NEXT: @[[BOTH]] bra
// RESCALE-NEXT: mul.rn.f32
// D256-LABEL: .entry attn_d256(
// D256-COUNT-8: cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes [__fmha_smem{{(\+[0-9]+)?}}]
// D256-NOT: cp.async.bulk.tensor
// D256: mbarrier.try_wait.parity
// D256-COUNT-4: cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// D256-NOT: cp.async.bulk.tensor
// D256: mbarrier.try_wait.parity
// D256-COUNT-4: cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// D256: setmaxnreg.inc
// The replica index picks the consumer's Q buffer (offset 0 or 32768);
// LLVM folds the choice into the branch around consumer 1's creation of
// the turn token.
// D256: setp.ne.b32 [[FIRST:%p[0-9]+]], %r{{[0-9]+}}, 1;
// D256-NEXT: mov.b64 [[Q:%rd[0-9]+]], %rd{{[0-9]+}};
// D256-NEXT: @[[FIRST]] bra
// D256: bar.arrive 3, 256;
// D256: add.s64 [[Q]], %rd{{[0-9]+}}, 32768;
// D256-COUNT-16: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}},
// D256-NOT: wgmma.mma_async
// D256: ex2.approx.ftz.f32
// D256: bar.sync %r{{[0-9]+}}, 256;
// D256-COUNT-16: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}},
// D256-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {{.*}}, {%r
// The one copy of the epilogue stages O in the buffer the replica index
// picked, stores it, and releases the Q slot once the store has read it.
// D256-NOT: mbarrier.arrive.shared.b64 {{.*}}, [__fmha_smem+196616];
// D256: st.shared.b32
// D256-NOT: mbarrier.arrive.shared.b64 {{.*}}, [__fmha_smem+196616];
// D256: cvt.u32.u64 [[QS:%r[0-9]+]], [[Q]];
// D256: @%p{{[0-9]+}} cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%rd{{[0-9]+}}, {{.*}}], [[[QS]]];
// D256: cp.async.bulk.commit_group;
// D256-NEXT: cp.async.bulk.wait_group.read 0;
// D256-NEXT: mbarrier.arrive.shared.b64 {{.*}}, [__fmha_smem+196616];
// D256-NOT: cp.async.bulk.tensor.4d.global.shared::cta.bulk_group
//
// 2 x 2 x 32768 bytes of K/V, 2 x 32768 of Q (and O), 6 barriers: what the
// fmha.attention verifier estimates.
// MANIFEST-D256: "dynamic_smem": 196688,
fmha.attention @attn_d256 (tensor<?x?x?x256xbf16>, tensor<?x?x?x256xbf16>,
                           tensor<?x?x?x256xbf16>)
    -> tensor<?x?x?x256xbf16> target sm_90a

//--- d256-causal-gqa.mlir
// Head dim 256, causal, f16, 8 query heads on 2 KV heads, tile [64, 64] and
// 2 stages (a 64x80 S with the 64x256 O does not fit in the consumer's
// registers next to the previous step's P).
// D256C-LABEL: .entry attn_d256_causal_gqa(
// D256C: setmaxnreg.inc
// D256C-COUNT-16: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}},
// D256C-NOT: wgmma.mma_async
// D256C: ex2.approx.ftz.f32
// D256C: bar.sync %r{{[0-9]+}}, 256;
// D256C-COUNT-16: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}},
// D256C-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {{.*}}, {%r
fmha.attention @attn_d256_causal_gqa (tensor<?x8x?x256xf16>,
                                      tensor<?x2x?x256xf16>,
                                      tensor<?x2x?x256xf16>)
    -> tensor<?x8x?x256xf16> causal tile [64, 64] target sm_90a

//--- window.mlir
// Head dim 64, f16, a two-sided sliding window (100 keys before the
// diagonal, 28 after), tile [64, 64], 4 stages, one consumer, a CTA per
// query block: a producer and a consumer warpgroup, 256 threads; the empty
// barriers count 128 arrivals.
// WINDOW-LABEL: .entry attn_window(
// WINDOW: .maxntid 256, 1, 1
// WINDOW: mbarrier.init.shared.b64 [%r{{[0-9]+}}], 128;
// WINDOW: bar.sync 0;
// WINDOW: setmaxnreg.dec.sync.aligned.u32 40;
// WINDOW: cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// WINDOW: mbarrier.try_wait.parity.shared.b64
// With 256 threads a thread starts with more than 232 registers: the
// consumer also gives some up.
// WINDOW: setmaxnreg.dec.sync.aligned.u32 232;
// WINDOW: mbarrier.try_wait.parity.shared.b64
// WINDOW-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}},
// WINDOW: ex2.approx.ftz.f32
// WINDOW-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, {%r
// WINDOW: bar.sync 1, 128;
// WINDOW: fence.proxy.async.shared::cta;
// WINDOW: bar.sync 1, 128;
// WINDOW: cp.async.bulk.tensor.4d.global.shared::cta.bulk_group
// WINDOW-NOT: bar.sync 2
fmha.attention @attn_window (tensor<?x4x?x64xf16>, tensor<?x4x?x64xf16>,
                             tensor<?x4x?x64xf16>)
    -> tensor<?x4x?x64xf16> window [100, 28] tile [64, 64] stages 4 consumers 1
    schedule per_block target sm_90a

//--- persistent.mlir
// Persistent (the default here), causal, head dim 128: the grid is
// min(num_sms, work items) with a pair of query blocks per item; every role
// loops over the items. A Q slot (of two) is taken once per item and
// released after the O store has read it (O is staged in it, swizzled: two
// boxes of 64 columns, the second 8 KiB on); the TMA stores are predicated
// instructions, so the consumers' loops hold no branch on the thread index.
// PERSISTENT-LABEL: .entry attn_persistent(
// PERSISTENT: mov.u32 {{.*}}, %nctaid.x;
// PERSISTENT: setmaxnreg.dec.sync.aligned.u32 40;
// PERSISTENT: setmaxnreg.inc.sync.aligned.u32 232;
// PERSISTENT: @%p{{[0-9]+}} cp.async.bulk.tensor.4d.global.shared::cta.bulk_group
// PERSISTENT: add.s32 {{.*}}, 8192;
// PERSISTENT: mov.b32 {{.*}}, 64;
// PERSISTENT: @%p{{[0-9]+}} cp.async.bulk.tensor.4d.global.shared::cta.bulk_group
// PERSISTENT-NEXT: // end inline asm
// PERSISTENT-NEXT: cp.async.bulk.commit_group;
// PERSISTENT-NEXT: cp.async.bulk.wait_group.read 0;
// PERSISTENT-NEXT: mbarrier.arrive.shared.b64
// PERSISTENT-NOT: setmaxnreg
// PERSISTENT: ret;
// MANIFEST-PERSISTENT: "grid": [
// MANIFEST-PERSISTENT-NEXT: {
// MANIFEST-PERSISTENT-NEXT: "min": [
// MANIFEST-PERSISTENT-NEXT: "num_sms",
fmha.attention @attn_persistent (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>,
                                 tensor<?x?x?x128xbf16>)
    -> tensor<?x?x?x128xbf16> causal target sm_90a

//--- wide-d128.mlir
// The longest K/V step the register model admits at head dim 128 with
// 64-row tiles (236 registers by its tight estimate), with a two-sided
// window and 2 stages: the consumers get the widest split (the producer at
// 24, each consumer at 240) and ptxas keeps it in registers. S = Q K^T is
// one m64n160k16 wgmma per K step of 16; P V^T takes ten K steps.
// Below head dim 256 O is rescaled unconditionally: no compare with 1.
// NO-RESCALE-NOT: setp.eq.f32 {{.*}}, 0f3F800000;
// WIDE-D128-LABEL: .entry attn_wide_d128(
// WIDE-D128: setmaxnreg.dec.sync.aligned.u32 24;
// WIDE-D128: setmaxnreg.inc.sync.aligned.u32 240;
// WIDE-D128-COUNT-8: wgmma.mma_async.sync.aligned.m64n160k16.f32.bf16.bf16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}},
// WIDE-D128-COUNT-10: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, {%r
fmha.attention @attn_wide_d128 (tensor<?x32x?x128xbf16>,
                                tensor<?x8x?x128xbf16>,
                                tensor<?x8x?x128xbf16>)
    -> tensor<?x32x?x128xbf16>
    window [37, 5] tile [64, 160] stages 2 target sm_90a

//--- wide-d64.mlir
// The longest K/V step the register model admits at head dim 64 (232 by
// its tight estimate, 256 by the one that sizes the split: the widest
// split), causal.
// WIDE-D64-LABEL: .entry attn_wide_d64(
// WIDE-D64: setmaxnreg.dec.sync.aligned.u32 24;
// WIDE-D64: setmaxnreg.inc.sync.aligned.u32 240;
// WIDE-D64-COUNT-4: wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}},
// WIDE-D64-COUNT-12: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, {%r
fmha.attention @attn_wide_d64 (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>,
                               tensor<?x?x?x64xbf16>)
    -> tensor<?x?x?x64xbf16> causal tile [64, 192] target sm_90a
