// GEMM kernels compiled from fmha.gemm by the whole sm_100a pipeline, down
// to PTX that ptxas accepts for sm_100a, and their launch manifests. No
// Blackwell GPU runs them here: FileCheck and ptxas are the proof.
//
// RUN: rm -rf %t && split-file %s %t
//
// bf16, C = A @ B^T, two epilogue warpgroups.
// RUN: fmha-opt %t/bf16.mlir --fmha-sm100-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/bf16.ptx
// RUN: FileCheck %s < %t/bf16.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/bf16.ptx -o %t/bf16.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/bf16.mlir --fmha-sm100-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST
//
// f16 operands with an f32 result, B given as [K, N] (N-major), one
// epilogue warpgroup, static N and K.
// RUN: fmha-opt %t/f16.mlir --fmha-sm100-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/f16.ptx
// RUN: FileCheck %s --check-prefix=F16 < %t/f16.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/f16.ptx -o %t/f16.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
//
// The epilogues stream tensor memory 32 columns at a time: no role spills.
// NOSPILL: {{ }}0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// A load warp and an MMA warp share warpgroup 0, two epilogue warpgroups
// follow: 384 threads. Warp 0 allocates all 512 TMEM columns (two
// accumulators of 128 columns, double-buffered) into shared memory, every
// thread reads the address after a fenced barrier, and the permit to
// allocate more is given up.
// CHECK: .target sm_100a
// CHECK: .extern .shared .align 1024 .b8 __fmha_smem[];
// CHECK-LABEL: .entry gemm_bf16_sm100(
// CHECK: .maxntid 384, 1, 1
// CHECK: mov.b32 [[COLS:%r[0-9]+]], 512;
// CHECK-NEXT: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [__fmha_smem], [[COLS]];
// CHECK: tcgen05.fence::before_thread_sync;
// CHECK-NEXT: bar.sync 0;
// CHECK-NEXT: tcgen05.fence::after_thread_sync;
// CHECK-NEXT: ld.shared.b32 %{{.*}}, [__fmha_smem];
// CHECK: tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
// Operand ring: full barriers of one (TMA) arrival, empty barriers of one
// (tcgen05.commit) arrival; accumulator ring: full of one (commit), empty of
// 256 (both epilogue warpgroups' threads).
// CHECK-COUNT-8: mbarrier.init.shared.b64 [%r{{[0-9]+}}], 1;
// CHECK-COUNT-2: mbarrier.init.shared.b64 [%r{{[0-9]+}}], 256;
// CHECK: fence.mbarrier_init.release.cluster;
// Load warp: three TMA loads into a slot, arrive with their bytes.
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: mbarrier.try_wait.parity
// CHECK-COUNT-3: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK: mbarrier.arrive.expect_tx
// MMA warp: wait for a free accumulator slot, then per operand slot one
// thread issues 4 K steps per accumulator (the first of a tile does not
// accumulate), with K-major 128-byte-swizzled descriptors (version bit 46,
// swizzle 2 in bits 61-63, SBO 1024, LBO 16: 0x4000404000010000) and the
// instruction descriptor of bf16 x bf16 -> f32, M = 128, N = 128
// (0x08200490); a commit releases the operand slot, another hands the
// accumulators over.
// CHECK: mbarrier.try_wait.parity
// CHECK: mbarrier.try_wait.parity
// CHECK: tcgen05.fence::after_thread_sync;
// CHECK: or.b64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 4611756662049538048;
// CHECK: mov.b32 [[IDESC:%r[0-9]+]], 136316048;
// CHECK: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [[[D0:%r[0-9]+]]], %rd{{[0-9]+}}, %rd{{[0-9]+}}, [[IDESC]], %p{{[0-9]+}};
// CHECK-COUNT-3: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [[[D0]]], %rd{{[0-9]+}}, %rd{{[0-9]+}}, [[IDESC]], %p{{[0-9]+}};
// CHECK-COUNT-4: tcgen05.mma.cta_group::1.kind::f16.collector::a::discard [[[D1:%r[0-9]+]]], %rd{{[0-9]+}}, %rd{{[0-9]+}}, [[IDESC]], %p{{[0-9]+}};
// CHECK: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// CHECK: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// The two epilogue warpgroups run one copy of code (replica roles), each on
// its own accumulator and staging buffer and named barrier (1 or 2, picked
// by the replica index): wait for the accumulators and for the staging
// buffer (the previous TMA store has read it), then its 128 columns 32 at
// a time (a warp reaches its own 32 lanes): tcgen05.ld of 32 columns,
// wait, round to bf16, stage in shared memory (four 16-byte pieces of the
// row), next chunk. The slot goes back after the last load; then one TMA
// store.
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK-NOT: setmaxnreg
// CHECK: mbarrier.try_wait.parity
// CHECK: cp.async.bulk.wait_group.read {{.*}}0;
// CHECK: bar.sync [[STAGE:%r[0-9]+]], 128;
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK-NOT: tcgen05.ld
// CHECK: tcgen05.wait::ld.sync.aligned;
// CHECK-NOT: tcgen05.ld
// CHECK: cvt.rn.bf16x2.f32
// CHECK-NOT: tcgen05.ld
// CHECK-COUNT-4: st.shared.v4.b32
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK-NOT: tcgen05.ld
// CHECK: tcgen05.wait::ld.sync.aligned;
// CHECK-NOT: tcgen05.ld
// CHECK: cvt.rn.bf16x2.f32
// CHECK-NOT: tcgen05.ld
// CHECK-COUNT-4: st.shared.v4.b32
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK-NOT: tcgen05.ld
// CHECK: tcgen05.wait::ld.sync.aligned;
// CHECK-NOT: tcgen05.ld
// CHECK: cvt.rn.bf16x2.f32
// CHECK-NOT: tcgen05.ld
// CHECK-COUNT-4: st.shared.v4.b32
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK-NOT: tcgen05.ld
// CHECK: tcgen05.wait::ld.sync.aligned;
// CHECK-NEXT: tcgen05.fence::before_thread_sync;
// CHECK-NEXT: mbarrier.arrive.shared.b64
// CHECK-NOT: tcgen05.ld
// CHECK-COUNT-4: st.shared.v4.b32
// CHECK-NEXT: fence.proxy.async.shared::cta;
// CHECK: bar.sync [[STAGE]], 128;
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK: cp.async.bulk.wait_group.read {{.*}}0;
// CHECK-NOT: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// At the end every thread meets, and warp 0 frees the columns.
// CHECK: tcgen05.fence::before_thread_sync;
// CHECK-NEXT: bar.sync 0;
// CHECK-NEXT: tcgen05.fence::after_thread_sync;
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32 %{{.*}}, [[COLS2:%r[0-9]+]];

// The manifest: 384 threads; 3 stages of 3 x 16 KiB operand tiles, two
// 32 KiB staging buffers, the TMEM address slot and 10 mbarriers.
// MANIFEST:      "block": [
// MANIFEST-NEXT:   384,
// MANIFEST:      "dynamic_smem": 214096,
// MANIFEST:      "grid": [
// MANIFEST-NEXT:   "num_sms",
// MANIFEST:      "target": "sm_100a",

// f16 x f16 -> f32 with N-major B: its descriptor steps 8192 bytes (64
// rows of 128 bytes) between 64-column blocks (LBO 0x200 in bits 16-29:
// 0x4000404002000000) and the instruction descriptor sets "transpose B"
// (bit 16) for M = 128, N = 128, f16 inputs (0x08210010).
// F16: .target sm_100a
// F16-LABEL: .entry gemm_f16_sm100(
// F16: .maxntid 256, 1, 1
// F16: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32
// F16-DAG: or.b64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 4611756662083026944;
// F16-DAG: mov.b32 [[IDESC:%r[0-9]+]], 136380432;
// F16-DAG: tcgen05.ld.sync.aligned.32x32b.x32.b32
// F16-DAG: st.shared.v2.b64
// F16: tcgen05.dealloc.cta_group::1.sync.aligned.b32
// Four K steps of 16 (K = 64 per slot) for the one accumulator.
// RUN: grep -c 'tcgen05.mma.cta_group::1.kind::f16' %t/f16.ptx | FileCheck %s --check-prefix=F16-MMAS
// F16-MMAS: 4

//--- bf16.mlir
fmha.gemm @gemm_bf16_sm100 (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b tile [128, 128, 64] consumers 2 target sm_100a

//--- f16.mlir
fmha.gemm @gemm_f16_sm100 (tensor<?x512xf16>, tensor<512x128xf16>) -> tensor<?x128xf32>
    tile [128, 128, 64] consumers 1 target sm_100a
