// A GEMM with TMA multicast (`multicast 2`) compiled by the whole sm_100a
// pipeline, down to PTX that ptxas accepts for sm_100a, and its launch
// manifest. No Blackwell GPU runs it here: FileCheck and ptxas are the
// proof.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: fmha-opt %t/mc.mlir --fmha-sm100-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/mc.ptx
// RUN: FileCheck %s < %t/mc.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/mc.ptx -o %t/mc.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/mc.mlir --fmha-sm100-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST
//
// f16 with an f32 result and an N-major B (rows of 128 elements: two TMA
// boxes of 64, one per CTA).
// RUN: fmha-opt %t/nmajor.mlir --fmha-sm100-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/nmajor.ptx
// RUN: FileCheck %s --check-prefix=NMAJOR < %t/nmajor.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/nmajor.ptx -o %t/nmajor.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
//
// B as [K, N] with block_n 192: three TMA boxes per row, rank 0 copies two
// of them, rank 1 one.
// RUN: fmha-opt %t/odd.mlir --fmha-sm100-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/odd.ptx
// RUN: FileCheck %s --check-prefix=ODD < %t/odd.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/odd.ptx -o %t/odd.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// ODD-LABEL: .entry gemm_multicast_odd(
// ODD: mov.u32 [[RANK:%r[0-9]+]], %cluster_ctarank;
// ODD: setp.ne.b32 [[NOTFIRST:%p[0-9]+]], [[RANK]], 0;
// ODD: multicast::cluster
// ODD-NEXT: @[[NOTFIRST]] bra
// ODD: multicast::cluster
//
// NOSPILL: {{ }}0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// bf16, C = A @ B^T, two consumers, tile [128, 128, 64]: a cluster of two
// CTAs computes 512 x 128 of C per tile, each CTA 256 rows with its own
// cta_group::1 MMAs on the shared B tile.
//
// CHECK: .target sm_100a
// CHECK-LABEL: .entry gemm_multicast_sm100(
// CHECK: .maxntid 384, 1, 1
// CHECK: .reqnctapercluster 2, 1, 1
// CHECK: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32
// CHECK: tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
// Three operand stages: the full barriers expect this CTA's load warp (1),
// the empty ones both CTAs' MMA commits (2); the accumulator ring's are
// local (1 commit, 256 epilogue threads). The barriers of both CTAs are
// initialised (a cluster barrier) before any role runs.
// CHECK-COUNT-3: mbarrier.init.shared.b64 [%r{{[0-9]+}}], 1;
// CHECK-COUNT-3: mbarrier.init.shared.b64 [%r{{[0-9]+}}], 2;
// CHECK-COUNT-2: mbarrier.init.shared.b64 [%r{{[0-9]+}}], 1;
// CHECK-COUNT-2: mbarrier.init.shared.b64 [%r{{[0-9]+}}], 256;
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK-NEXT: bar.sync 0;
// CHECK-NEXT: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// CHECK: mov.u32 [[RANK:%r[0-9]+]], %cluster_ctarank;
// Load warp: both A tiles into this CTA only, then this CTA's 64 rows of
// the B tile into both CTAs (CTA mask 3), all completing on this CTA's
// full barrier, which expects 2 x 16 KiB of A and all 16 KiB of B.
// CHECK: mbarrier.try_wait.parity
// CHECK: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}+{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [[[FULL:%rd[0-9]+\+[0-9]+]]];
// CHECK-NEXT: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}+{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [[[FULL]]];
// CHECK: mapa.shared::cluster.u64 [[DST:%rd[0-9]+]], %rd{{[0-9]+}}, [[RANK]];
// CHECK-NEXT: mov.b16 [[MASK:%rs[0-9]+]], 3;
// CHECK-NEXT: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [[[DST]]], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [[[FULL]]], [[MASK]];
// CHECK-NEXT: mov.b32 [[BYTES:%r[0-9]+]], 49152;
// CHECK-NEXT: mbarrier.arrive.expect_tx.shared.b64 %rd{{[0-9]+}}, [[[FULL]]], [[BYTES]];
// Load warp after its loop: the drain, one wait per operand stage (three)
// on its CTA's operand-empty barriers, which complete only when both CTAs'
// last commits have landed; only then does the warp go on.
// CHECK-COUNT-3: mbarrier.try_wait.parity.shared.b64 P1
// Both CTAs meet again before either frees its tensor memory and exits.
// CHECK: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32
// MMA warp (in both CTAs): cta_group::1 MMAs; the operand slot is released
// by a commit multicast to both CTAs' empty barriers, the accumulators
// handed to this CTA's epilogues by a local commit.
// CHECK-COUNT-4: tcgen05.mma.cta_group::1.kind::f16
// CHECK: mov.b16 [[BOTH:%rs[0-9]+]], 3;
// CHECK-NEXT: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%rd{{[0-9]+}}+{{[0-9]+}}], [[BOTH]];
// CHECK: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%rd{{[0-9]+}}];
// The MMA warp drains the accumulator ring (two stages) it fills.
// CHECK-COUNT-2: mbarrier.try_wait.parity.shared.b64 P1
// CHECK-NOT: tcgen05.mma.cta_group::2

// Clusters of two CTAs, an even grid; B's box is half of its block (64 of
// 128 rows); each CTA holds the whole B tile: 3 stages x (32 KiB of A + 16
// KiB of B) and 64 KiB of C staging.
// MANIFEST: "cluster": [
// MANIFEST-NEXT: 2,
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 1
// MANIFEST: "dynamic_smem": 214096,
// MANIFEST: "grid": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "mul": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "ceildiv": [
// MANIFEST-NEXT: "num_sms",
// MANIFEST-NEXT: 2
// MANIFEST: "box": [
// MANIFEST-NEXT: 128,
// MANIFEST-NEXT: 64
// MANIFEST: "box": [
// MANIFEST-NEXT: 64,
// MANIFEST-NEXT: 64
// MANIFEST: "tensor": "b"

// N-major B: rank r loads box r (64 columns, 8 KiB in).
// NMAJOR-LABEL: .entry gemm_multicast_nmajor(
// NMAJOR: .reqnctapercluster 2, 1, 1
// NMAJOR: mov.u32 [[RANK:%r[0-9]+]], %cluster_ctarank;
// NMAJOR: shl.b32 %r{{[0-9]+}}, [[RANK]], 6;
// NMAJOR: mul.wide.u32 %rd{{[0-9]+}}, [[RANK]], 8192;
// NMAJOR: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// NMAJOR-NOT: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// NMAJOR: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64

//--- mc.mlir
fmha.gemm @gemm_multicast_sm100 (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b tile [128, 128, 64] consumers 2 multicast 2 target sm_100a

//--- nmajor.mlir
fmha.gemm @gemm_multicast_nmajor (tensor<?x512xf16>, tensor<512x256xf16>) -> tensor<?x256xf32>
    tile [128, 128, 64] consumers 1 multicast 2 target sm_100a

//--- odd.mlir
fmha.gemm @gemm_multicast_odd (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    tile [128, 192, 64] consumers 1 multicast 2 target sm_100a
