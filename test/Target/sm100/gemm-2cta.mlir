// A 2-CTA GEMM (`ctas 2`) compiled by the whole sm_100a pipeline, down to
// PTX that ptxas accepts for sm_100a, and its launch manifest. No Blackwell
// GPU runs it here: FileCheck and ptxas are the proof.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: fmha-opt %t/pair.mlir --fmha-sm100-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/pair.ptx
// RUN: FileCheck %s < %t/pair.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/pair.ptx -o %t/pair.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/pair.mlir --fmha-sm100-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST
//
// Two consumers (two M = 256 MMAs per K step, 512 arrivals on each
// accumulator-empty barrier), and f16 with an f32 result and an N-major B.
// RUN: fmha-opt %t/two.mlir --fmha-sm100-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/two.ptx
// RUN: FileCheck %s --check-prefix=TWO < %t/two.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/two.ptx -o %t/two.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/nmajor.mlir --fmha-sm100-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/nmajor.ptx
// RUN: FileCheck %s --check-prefix=NMAJOR < %t/nmajor.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/nmajor.ptx -o %t/nmajor.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
//
// The epilogue streams tensor memory 32 columns at a time: no role spills,
// not even with 256 f32 columns per row (nmajor).
// NOSPILL: {{ }}0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// bf16, C = A @ B^T, one consumer, tile [128, 256, 64]: a cluster of two
// CTAs computes 256 x 256 of C per tile pair with M = 256 MMAs.
//
// The kernel runs in clusters of two CTAs. Warp 0 of each CTA allocates the
// pair's 512 tensor-memory columns (two 256-column accumulator slots).
// CHECK: .target sm_100a
// CHECK-LABEL: .entry gemm_2cta_sm100(
// CHECK: .maxntid 256, 1, 1
// CHECK: .reqnctapercluster 2, 1, 1
// CHECK: mov.b32 [[COLS:%r[0-9]+]], 512;
// CHECK-NEXT: tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [__fmha_smem], [[COLS]];
// CHECK: tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;
// Barriers arrived on by each CTA's load warp (operand full) and epilogue
// (accumulator empty) expect both CTAs: 2 x 1 and 2 x 128 arrivals; those
// signalled by the even CTA's tcgen05.commit (operand empty, accumulator
// full) one. The barriers of both CTAs are initialised (a cluster barrier)
// before any role runs.
// CHECK-COUNT-4: mbarrier.init.shared.b64 [%r{{[0-9]+}}], 2;
// CHECK-COUNT-6: mbarrier.init.shared.b64 [%r{{[0-9]+}}], 1;
// CHECK-COUNT-2: mbarrier.init.shared.b64 [%r{{[0-9]+}}], 256;
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK-NEXT: bar.sync 0;
// CHECK-NEXT: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// CHECK: mov.u32 [[RANK:%r[0-9]+]], %cluster_ctarank;
// Load warp: each CTA loads its A rows and its half of B into its own
// shared memory (its buffers' shared::cluster addresses), completing on the
// even CTA's full barrier, on which it also arrives with its 32 KiB.
// CHECK: mbarrier.try_wait.parity
// CHECK: mapa.shared::cluster.u64 [[FULL:%rd[0-9]+]], %rd{{[0-9]+}}, 0;
// CHECK: mapa.shared::cluster.u64 [[DSTA:%rd[0-9]+]], %rd{{[0-9]+}}, [[RANK]];
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [[[DSTA]]], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [[[FULL]]];
// CHECK: mapa.shared::cluster.u64 [[DSTB:%rd[0-9]+]], %rd{{[0-9]+}}, [[RANK]];
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [[[DSTB]]], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [[[FULL]]];
// CHECK: mov.b32 [[BYTES:%r[0-9]+]], 32768;
// CHECK: mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [[[FULL]]], [[BYTES]];
// Load warp after its loop: the drain, one wait per operand stage (four)
// on its CTA's operand-empty barriers, which the even CTA's last commits
// signal; only then does the warp go on to the final cluster barrier.
// CHECK-COUNT-4: mbarrier.try_wait.parity.shared.b64 P1
// CHECK-NOT: mbarrier.try_wait
// MMA warp: the even CTA's only. Four K steps of 16 per operand slot with
// the instruction descriptor of bf16 x bf16 -> f32, M = 256 (16 << 24),
// N = 256 (32 << 17): 0x10400490; commits reach both CTAs' barriers.
// CHECK: setp.ne.b32 %p{{[0-9]+}}, [[RANK]], 0;
// CHECK: mov.b32 [[IDESC:%r[0-9]+]], 272630928;
// CHECK-COUNT-4: tcgen05.mma.cta_group::2.kind::f16.collector::a::discard [%r{{[0-9]+}}], %rd{{[0-9]+}}, %rd{{[0-9]+}}, [[IDESC]], %p{{[0-9]+}};
// CHECK: mov.b16 [[MASK:%rs[0-9]+]], 3;
// CHECK: tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%rd{{[0-9]+}}+{{[0-9]+}}], [[MASK]];
// CHECK: tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%rd{{[0-9]+}}], %rs{{[0-9]+}};
// The MMA warp drains the accumulator ring (two stages) it fills: both
// CTAs' epilogues have handed back every slot.
// CHECK-COUNT-2: mbarrier.try_wait.parity.shared.b64 P1
// CHECK-NOT: mbarrier.try_wait
// Epilogue warpgroup: reads its own 128 rows (256 columns, 32 at a time),
// then hands the slot back on the even CTA's accumulator-empty barrier.
// CHECK: setmaxnreg.dec.sync.aligned.u32 232;
// CHECK: mbarrier.try_wait.parity
// CHECK-COUNT-8: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK: mapa.shared::cluster.u64 [[EMPTY:%rd[0-9]+]], %rd{{[0-9]+}}, 0;
// CHECK: mbarrier.arrive.release.cluster.shared::cluster.b64 _, [[[EMPTY]]]
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// At the end both CTAs meet before warp 0 of each frees the columns.
// CHECK: tcgen05.fence::before_thread_sync;
// CHECK-NEXT: barrier.cluster.arrive.aligned;
// CHECK-NEXT: barrier.cluster.wait.aligned;
// CHECK-NEXT: tcgen05.fence::after_thread_sync;
// CHECK: tcgen05.dealloc.cta_group::2.sync.aligned.b32
// Each CTA holds half of B: 4 stages x (16 KiB of A + 16 KiB of B), 64 KiB
// of C staging, the TMEM slot and 12 barriers.
// MANIFEST: "cluster": [
// MANIFEST-NEXT: 2,
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 1
// MANIFEST: "dynamic_smem": 197728,
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
// MANIFEST-NEXT: 128,
// MANIFEST-NEXT: 64
// MANIFEST: "tensor": "b"

// TWO-LABEL: .entry gemm_2cta_two(
// TWO: .reqnctapercluster 2, 1, 1
// TWO-COUNT-2: mbarrier.init.shared.b64 [%r{{[0-9]+}}], 512;
// TWO-COUNT-8: tcgen05.mma.cta_group::2.kind::f16
// TWO: tcgen05.dealloc.cta_group::2

// Each CTA's B half is 128 N-major columns: two 64-column blocks 8192 bytes
// apart (LBO 0x200: 0x4000404002000000), and the instruction descriptor of
// f16 x f16 -> f32 with "transpose B", M = 256, N = 256 (0x10410010).
// NMAJOR-LABEL: .entry gemm_2cta_nmajor(
// NMAJOR: or.b64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 4611756662083026944;
// NMAJOR: mov.b32 [[IDESC:%r[0-9]+]], 272695312;
// NMAJOR: tcgen05.mma.cta_group::2.kind::f16.collector::a::discard [%r{{[0-9]+}}], %rd{{[0-9]+}}, %rd{{[0-9]+}}, [[IDESC]]

//--- pair.mlir
fmha.gemm @gemm_2cta_sm100 (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b tile [128, 256, 64] stages 4 consumers 1 ctas 2 target sm_100a

//--- two.mlir
fmha.gemm @gemm_2cta_two (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b tile [128, 128, 64] consumers 2 ctas 2 target sm_100a

//--- nmajor.mlir
fmha.gemm @gemm_2cta_nmajor (tensor<?x512xf16>, tensor<512x256xf16>) -> tensor<?x256xf32>
    tile [128, 256, 64] stages 3 consumers 1 ctas 2 target sm_100a
