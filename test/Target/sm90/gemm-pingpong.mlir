// GEMMs with the ping-pong schedule (`schedule pingpong`) compiled by the
// whole sm_90a pipeline, down to PTX that ptxas accepts without spills, and
// the launch manifest: each consumer warpgroup computes whole tiles, their
// work items taking turns in one ring, and the two take turns over their
// main loops (named barriers 3 and 4), one's epilogue overlapping the
// other's MMAs.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: fmha-opt %t/pp.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/pp.ptx
// RUN: FileCheck %s < %t/pp.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/pp.ptx -o %t/pp.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/pp.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST
//
// f16, B as [K, N], 64 x 256 tiles.
// RUN: fmha-opt %t/kn.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/kn.ptx
// RUN: FileCheck %s --check-prefix=KN < %t/kn.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/kn.ptx -o %t/kn.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
//
// NOSPILL: {{ }}0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// bf16, C = A @ B^T, 128 x 128 tiles, four stages (the default: the most
// up to 4 that fit beside the two C tiles).
//
// CHECK: .target sm_90a
// CHECK-LABEL: .entry gemm_pingpong(
// CHECK: .maxntid 384, 1, 1
// One ring of four slots: full barriers expect the producer's one arrival,
// empty ones both consumers' 2 x 128 threads (each walks every slot).
// CHECK-COUNT-4: mbarrier.init.shared.b64 [%r{{[0-9]+}}], 1;
// CHECK-COUNT-4: mbarrier.init.shared.b64 [%r{{[0-9]+}}], 256;
// Producer: the first item's A and B tiles, 32 KiB a slot, then the
// second item's, into the same ring.
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK-NEXT: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK: mbarrier.arrive.expect_tx.shared.b64
// CHECK: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK-NEXT: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK: mbarrier.arrive.expect_tx.shared.b64
// Consumer 0: waits for its turn (barrier 3), 2 (M) x 4 (K) wgmmas a step
// with one step in flight, hands the turn on (barrier 4) before its
// epilogue (its own barrier 1 around the staging), then walks the second
// item's slots; it takes the last turn back at its end.
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK: bar.sync 3, 256;
// CHECK: mbarrier.try_wait.parity
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 1;
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK: bar.arrive 4, 256;
// CHECK: bar.sync 1, 128;
// CHECK: cvt.rn.bf16x2.f32
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK: mbarrier.try_wait.parity
// CHECK-NOT: wgmma.mma_async
// CHECK: bar.sync 3, 256;
// Consumer 1 (a copy of its own: the walks of the other's slots sit at
// different places) opens the first turn, walks the first item's slots,
// then computes the second item between barriers 4 and 3 (LLVM lays the
// hand-back and the epilogue out before the loop).
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK: bar.arrive 3, 256;
// CHECK: bar.arrive 3, 256;
// CHECK: bar.sync 2, 128;
// CHECK: bar.sync 4, 256;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: ret;

// 384 threads, one CTA per SM; shared memory for four 32 KiB slots, two
// 32 KiB staging buffers and 8 mbarriers.
// MANIFEST: "block": [
// MANIFEST-NEXT: 384,
// MANIFEST: "dynamic_smem": 196672,
// MANIFEST: "grid": [
// MANIFEST-NEXT: "num_sms",

// B as [K, N]: a 64 x 256 block of B moves as four 64-column boxes.
// KN-LABEL: .entry gemm_pingpong_kn(
// KN: setmaxnreg.inc.sync.aligned.u32 232;
// KN: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// KN: bar.sync 3, 256;

//--- pp.mlir
fmha.gemm @gemm_pingpong (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b tile [128, 128, 64] consumers 2 schedule pingpong target sm_90a

//--- kn.mlir
fmha.gemm @gemm_pingpong_kn (tensor<?x?xf16>, tensor<?x?xf16>) -> tensor<?x?xf16>
    tile [64, 256, 64] consumers 2 schedule pingpong target sm_90a
