// Attention forward compiled from fmha.attention by the whole sm_90a
// pipeline, down to PTX, which ptxas must accept.
//
// RUN: fmha-opt %S/../../../examples/attention.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// CHECK: .target sm_90a
// CHECK-LABEL: .entry attn_fwd_d128(
// CHECK: .maxntid 384, 1, 1
// Producer, per work item: Q (two 64-row tiles, each two 128-byte-wide
// boxes), the first K tile, then per step the next K tile ahead of the
// previous V tile, the last V tile after the loop.
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK-COUNT-4: cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK: mbarrier.try_wait.parity
// CHECK: cp.async.bulk.tensor.4d.shared::cta.global
// The consumers: partitioning makes a role per consumer tile, and the
// lowering runs both on one copy of the code (replica roles), one
// setmaxnreg for both warpgroups. Where the copies differed, the replica
// index selects: the ping-pong turns (consumer 0 waits at named barrier 3
// and hands over at 4, consumer 1 the other way round) and the staging
// barrier (1 or 2, of 128 threads).
// One turn token goes round the consumers: consumer 1 alone creates it at
// its start, opening consumer 0's first turn (named barrier 3).
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK-NOT: setmaxnreg
// CHECK: bar.arrive 3, 256;
// CHECK: selp.b32 [[TURN:%r[0-9]+]], 4, 3, [[SECOND:%p[0-9]+]];
// CHECK: selp.b32 [[HANDOVER:%r[0-9]+]], 3, 4, [[SECOND]];
// A persistent kernel (the sm_90a default): every role loops over work
// items, and LLVM lays the end of an item out first: the last P V waited
// for, O normalised by one reciprocal per row and multiplies (no IEEE
// division: each is a dozen instructions and a called slow path), staged
// in the Q slot and stored by one predicated TMA store, then the Q slot
// released.
// After its loop every consumer waits for its turn once more and hands it
// over, so no consumer arrives twice at a barrier without waiting between
// (with a single key tile the loop runs no iteration).
// CHECK: bar.sync [[TURN]], 256;
// CHECK: bar.arrive [[HANDOVER]], 256;
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-NOT: div.rn.f32
// CHECK: rcp.approx.f32
// CHECK-NOT: div.rn.f32
// CHECK: bar.sync [[STAGE:%r[0-9]+]], 128;
// CHECK: st.shared
// CHECK: fence.proxy.async.shared::cta;
// CHECK: bar.sync [[STAGE]], 128;
// CHECK: @%p{{[0-9]+}} cp.async.bulk.tensor.4d.global.shared::cta
// CHECK: mbarrier.arrive.shared.b64
// An item: the first S = Q K^T by wgmma from shared memory and its softmax
// (row max across the quad, exp2) before the loop.
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK: shfl.sync.bfly
// CHECK: ex2.approx.ftz.f32
// In the loop, its turn: the next S and P V with P from registers issued
// back to back, the turn handed over, then a wait for S only while P V
// runs.
// CHECK: bar.sync [[TURN]], 256;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}}, %rd
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{.*}}, {%r
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: bar.arrive [[HANDOVER]], 256;
// CHECK: wgmma.wait_group.sync.aligned 1;
// At its end consumer 0 alone takes the token back, so each barrier sees as
// many arrivals as waits.
// CHECK: bar.sync 3, 256;
// CHECK: ret;
