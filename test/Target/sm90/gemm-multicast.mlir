// GEMMs with TMA multicast (`multicast 2`) compiled by the whole sm_90a
// pipeline, down to PTX that ptxas accepts, and the launch manifest: a
// cluster of two CTAs along M shares each B tile (each CTA loads half of it
// into both), and the consumers release a slot in both CTAs after wgmma.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: fmha-opt %t/mc.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/mc.ptx
// RUN: FileCheck %s < %t/mc.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/mc.ptx -o %t/mc.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/mc.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST
//
// f16 with an f32 result and B as [K, N] (rows of 128 elements: two TMA
// boxes of 64, one per CTA).
// RUN: fmha-opt %t/nmajor.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/nmajor.ptx
// RUN: FileCheck %s --check-prefix=NMAJOR < %t/nmajor.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/nmajor.ptx -o %t/nmajor.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
//
// bf16 with B as [K, N] and tiles 64 x 192: rows of 384 bytes move as three
// TMA boxes of 128; rank r copies boxes 2r and 2r + 1, the latter only on
// rank 0 (box 3 does not exist).
// RUN: fmha-opt %t/odd.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/odd.ptx
// RUN: FileCheck %s --check-prefix=ODD < %t/odd.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/odd.ptx -o %t/odd.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
//
// NOSPILL: {{ }}0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// ODD-LABEL: .entry gemm_multicast_odd(
// ODD: .reqnctapercluster 2, 1, 1
// ODD: mov.u32 [[RANK:%r[0-9]+]], %cluster_ctarank;
// ODD: mul.wide.u32 %rd{{[0-9]+}}, [[RANK]], 16384;
// ODD: setp.ne.b32 [[NOTFIRST:%p[0-9]+]], [[RANK]], 0;
// ODD: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// ODD-NEXT: @[[NOTFIRST]] bra
// ODD: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// ODD-NOT: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// ODD: mbarrier.arrive.shared::cluster.b64

// bf16, C = A @ B^T, two consumers of 64 x 256: a cluster computes 256 x
// 256 of C per tile, each CTA 128 rows, both on the whole B tile.
//
// CHECK: .target sm_90a
// CHECK-LABEL: .entry gemm_multicast_sm90(
// CHECK: .maxntid 384, 1, 1
// CHECK: .reqnctapercluster 2, 1, 1
// Three stages: the full barriers expect this CTA's producer (1), the
// empty ones one arrival per consumer warp from each CTA (2 x 8). Both
// CTAs initialise theirs before either runs a role.
// CHECK-COUNT-3: mbarrier.init.shared.b64 [%r{{[0-9]+}}], 1;
// CHECK-COUNT-3: mbarrier.init.shared.b64 [%r{{[0-9]+}}], 16;
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK-NEXT: bar.sync 0;
// CHECK-NEXT: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// Producer: both A tiles into this CTA only, then this CTA's 128 rows of
// the B tile into both CTAs (mask 3), all completing on this CTA's full
// barrier, which expects 2 x 8 KiB of A and all 32 KiB of B.
// CHECK: mov.u32 [[RANK:%r[0-9]+]], %cluster_ctarank;
// CHECK: mbarrier.try_wait.parity
// CHECK: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [[[FULL:%rd[0-9]+\+[0-9]+]]];
// CHECK-NEXT: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}+{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [[[FULL]]];
// CHECK: mapa.shared::cluster.u64 [[DST:%rd[0-9]+]], %rd{{[0-9]+}}, [[RANK]];
// CHECK-NEXT: mov.b16 [[MASK:%rs[0-9]+]], 3;
// CHECK-NEXT: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [[[DST]]], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [[[FULL]]], [[MASK]];
// CHECK-NEXT: mov.b32 [[BYTES:%r[0-9]+]], 49152;
// CHECK-NEXT: mbarrier.arrive.expect_tx.shared.b64 %rd{{[0-9]+}}, [[[FULL]]], [[BYTES]];
// The producer drains its three stages before it ends.
// CHECK-COUNT-3: mbarrier.try_wait.parity.shared.b64 P1
// Consumers (one copy of code): after wgmma.wait_group, each warp's first
// lane releases the previous slot on this CTA's empty barrier and on the
// peer's (cluster rank xor 1), then the last slot after the loop.
// CHECK: xor.b32 [[PEER:%r[0-9]+]], %r{{[0-9]+}}, 1;
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: mapa.shared::cluster.u64 [[REMOTE:%rd[0-9]+]], [[EMPTY:%rd[0-9]+]], [[PEER]];
// CHECK-NEXT: mbarrier.arrive.shared.b64 %rd{{[0-9]+}}, [[[EMPTY]]];
// CHECK-NEXT: mov.b32 [[ONE:%r[0-9]+]], 1;
// CHECK-NEXT: mbarrier.arrive.shared::cluster.b64 _, [[[REMOTE]]], [[ONE]];
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK: mbarrier.arrive.shared::cluster.b64
// Both CTAs meet again before either exits.
// CHECK: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// CHECK-NEXT: ret;

// Clusters of two CTAs: the grid is an even number of CTAs (num_sms is
// what whole clusters occupy, docs/Manifest.md); B's box is half of its
// block (128 of 256 rows).
// MANIFEST: "cluster": [
// MANIFEST-NEXT: 2,
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 1
// MANIFEST: "grid": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "mul": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "ceildiv": [
// MANIFEST-NEXT: "num_sms",
// MANIFEST-NEXT: 2
// MANIFEST: "box": [
// MANIFEST-NEXT: 64,
// MANIFEST-NEXT: 64
// MANIFEST: "box": [
// MANIFEST-NEXT: 128,
// MANIFEST-NEXT: 64
// MANIFEST: "tensor": "b"

// B as [K, N]: rank r loads box r (64 columns, 8 KiB in) into both CTAs;
// four stages, each empty barrier 2 x 8 arrivals.
// NMAJOR-LABEL: .entry gemm_multicast_nmajor(
// NMAJOR: .reqnctapercluster 2, 1, 1
// NMAJOR-COUNT-4: mbarrier.init.shared.b64 [%r{{[0-9]+}}], 1;
// NMAJOR-COUNT-4: mbarrier.init.shared.b64 [%r{{[0-9]+}}], 16;
// NMAJOR: mov.u32 [[RANK:%r[0-9]+]], %cluster_ctarank;
// NMAJOR-NEXT: shl.b32 %r{{[0-9]+}}, [[RANK]], 6;
// NMAJOR-NEXT: mul.wide.u32 %rd{{[0-9]+}}, [[RANK]], 8192;
// NMAJOR: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// NMAJOR-NOT: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// NMAJOR: mbarrier.arrive.shared::cluster.b64

//--- mc.mlir
fmha.gemm @gemm_multicast_sm90 (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b tile [64, 256, 64] consumers 2 multicast 2 target sm_90a

//--- nmajor.mlir
fmha.gemm @gemm_multicast_nmajor (tensor<?x?xf16>, tensor<?x?xf16>) -> tensor<?x?xf32>
    tile [64, 128, 64] consumers 2 multicast 2 target sm_90a

//--- odd.mlir
fmha.gemm @gemm_multicast_odd (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    tile [64, 192, 64] consumers 2 multicast 2 target sm_90a
