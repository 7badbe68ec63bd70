// GEMM kernels compiled from fmha.gemm by the whole sm_90a pipeline, down to
// PTX that ptxas accepts, and their launch manifests. Each kernel is its own
// input (one gpu.binary and one manifest per module).
//
// RUN: rm -rf %t && split-file %s %t
//
// bf16, C = A @ B^T with two consumer warpgroups.
// RUN: fmha-opt %t/bf16.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/bf16.ptx
// RUN: FileCheck %s < %t/bf16.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t/bf16.ptx -o %t/bf16.cubin %}
// RUN: fmha-opt %t/bf16.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST
//
// f16 operands with an f32 result, one consumer, static sizes.
// RUN: fmha-opt %t/f16.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/f16.ptx
// RUN: FileCheck %s --check-prefix=F16 < %t/f16.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t/f16.ptx -o %t/f16.cubin %}
// RUN: fmha-opt %t/f16.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST-F16
//
// A thin-M configuration: 64 x 32 tiles, one consumer, 16 stages (the
// most a ring has), without spills.
// RUN: fmha-opt %t/thin.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/thin.ptx
// RUN: FileCheck %s --check-prefix=THIN < %t/thin.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/thin.ptx -o %t/thin.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/thin.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST-THIN
//
// Swapped operands (C^T = B A^T): 8 rows of A as the MMA's N, 16 stages.
// RUN: fmha-opt %t/swap.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/swap.ptx
// RUN: FileCheck %s --check-prefix=SWAP < %t/swap.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/swap.ptx -o %t/swap.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/swap.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST-SWAP
//
// Swapped, with block_k 128: two 128-byte spans of K per step, two TMA
// boxes per operand.
// RUN: fmha-opt %t/swap-k128.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/swap-k128.ptx
// RUN: FileCheck %s --check-prefix=SWAPK128 < %t/swap-k128.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/swap-k128.ptx -o %t/swap-k128.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/swap-k128.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST-SWAPK128
//
// The same with B as [K, N]: B's tile is the MMA's A operand read MN-major.
// RUN: fmha-opt %t/swap-kn.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/swap-kn.ptx
// RUN: FileCheck %s --check-prefix=SWAPKN < %t/swap-kn.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/swap-kn.ptx -o %t/swap-kn.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}

// One producer warpgroup (of which one warp issues TMA) and two consumer
// warpgroups: 384 threads; the producer gives registers up, the consumers
// take them (40 x 128 + 2 x 232 x 128 <= 64K).
// CHECK: .target sm_90a
// CHECK: .extern .shared .align 1024 .b8 __fmha_smem[];
// CHECK-LABEL: .entry gemm_bf16(
// CHECK: .maxntid 384, 1, 1
// CHECK: fence.mbarrier_init.release.cluster;
// Producer: drop to 40 registers, wait for a free slot, three TMA loads into
// it, arrive with bytes.
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: mbarrier.try_wait.parity
// CHECK-COUNT-3: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK: mbarrier.arrive.expect_tx
// The consumers, one copy of code for both warpgroups (replica roles): wait
// for a full slot, 2 (M) x 4 (K) wgmmas, round to bf16, stage, sync the
// warpgroup (named barrier 1 or 2, picked by the replica index),
// TMA-store rows 0-63 or 64-127 of the tile (the row picked likewise): the
// store is a predicated instruction (its leader's), not a branch, and LLVM
// lays the persistent loop out with the previous tile's store first. The
// tile is staged in the 128-byte swizzle (rows 8 apart 1024 bytes apart,
// the 8 rows of a store in 8 different banks) and goes as two boxes of 64
// columns.
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK-NOT: setmaxnreg
// CHECK: st.shared.b32 [%rd[[B:[0-9]+]]], %r{{[0-9]+}};
// CHECK-NEXT: cvt.rn.bf16{{(x2)?}}.f32
// CHECK-NEXT: st.shared.b32 [%rd[[B]]+1024], %r{{[0-9]+}};
// CHECK: fence.proxy.async.shared::cta;
// CHECK: bar.sync %r{{[0-9]+}}, 128;
// CHECK: selp.b32 [[ROW:%r[0-9]+]], %r{{[0-9]+}}, %r{{[0-9]+}}, %p{{[0-9]+}};
// CHECK: @%p{{[0-9]+}} cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd{{[0-9]+}}, {%r{{[0-9]+}}, [[ROW]]} ]
// CHECK: @%p{{[0-9]+}} cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd{{[0-9]+}}, {%r{{[0-9]+}}, [[ROW]]} ]
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: cp.async.bulk.commit_group;
// CHECK: mbarrier.try_wait.parity
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK-NOT: wgmma.mma_async
// CHECK: cp.async.bulk.wait_group.read {{.*}}0;
// CHECK-NOT: setmaxnreg

// The manifest: 384 threads, shared memory for 3 stages of 3 x 16 KiB tiles,
// two 32 KiB staging buffers and 6 mbarriers (3 x 49152 + 2 x 32768 + 48),
// the three tensor maps with their boxes and swizzles, M, N, K, and a grid
// of 256 x 128 tiles.
// MANIFEST:      "block": [
// MANIFEST-NEXT:   384,
// MANIFEST-NEXT:   1,
// MANIFEST-NEXT:   1
// MANIFEST-NEXT: ],
// MANIFEST:      "dynamic_smem": 213040,
// MANIFEST-NEXT: "entry": "gemm_bf16",
// MANIFEST-NEXT: "format": "fmha-manifest/1",
// MANIFEST-NEXT: "grid": [
// MANIFEST-NEXT:   "num_sms",
// MANIFEST-NEXT:   1,
// MANIFEST-NEXT:   1
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "name": "gemm_bf16",
// MANIFEST-NEXT: "params": [
// MANIFEST-NEXT:   {
// MANIFEST-NEXT:     "box": [
// MANIFEST-NEXT:       128,
// MANIFEST-NEXT:       64
// MANIFEST-NEXT:     ],
// MANIFEST-NEXT:     "kind": "tensor_map",
// MANIFEST-NEXT:     "swizzle": 128,
// MANIFEST-NEXT:     "tensor": "a"
// MANIFEST-NEXT:   },
// MANIFEST-NEXT:   {
// MANIFEST-NEXT:     "box": [
// MANIFEST-NEXT:       128,
// MANIFEST-NEXT:       64
// MANIFEST-NEXT:     ],
// MANIFEST-NEXT:     "kind": "tensor_map",
// MANIFEST-NEXT:     "swizzle": 128,
// MANIFEST-NEXT:     "tensor": "b"
// MANIFEST-NEXT:   },
// MANIFEST-NEXT:   {
// MANIFEST-NEXT:     "box": [
// MANIFEST-NEXT:       128,
// MANIFEST-NEXT:       64
// MANIFEST-NEXT:     ],
// MANIFEST-NEXT:     "kind": "tensor_map",
// MANIFEST-NEXT:     "swizzle": 128,
// MANIFEST-NEXT:     "tensor": "c"
// MANIFEST-NEXT:   },
// MANIFEST-NEXT:   {
// MANIFEST-NEXT:     "dtype": "i32",
// MANIFEST-NEXT:     "kind": "scalar",
// MANIFEST-NEXT:     "value": "M"
// MANIFEST-NEXT:   },
// MANIFEST:          "value": "N"
// MANIFEST:          "value": "K"
// MANIFEST:      "target": "sm_90a",
// MANIFEST-NEXT: "tensors": {
// MANIFEST-NEXT:   "a": {
// MANIFEST-NEXT:     "dtype": "bf16",
// MANIFEST-NEXT:     "role": "input",
// MANIFEST-NEXT:     "shape": [
// MANIFEST-NEXT:       "M",
// MANIFEST-NEXT:       "K"
// MANIFEST-NEXT:     ]
// MANIFEST:        "c": {
// MANIFEST-NEXT:     "dtype": "bf16",
// MANIFEST-NEXT:     "role": "output",

// One consumer: 256 threads, both warpgroups lower their budget (256 is the
// default per-thread share at 256 threads); the f32 result needs no
// conversion before staging.
// F16: .target sm_90a
// F16-LABEL: .entry gemm_f32(
// F16: .maxntid 256, 1, 1
// F16: setmaxnreg.dec.sync.aligned.u32 40;
// F16: mbarrier.try_wait.parity
// F16-COUNT-2: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// F16: setmaxnreg.dec.sync.aligned.u32 232;
// F16-NOT: cvt.rn
// F16: st.shared.v2.b32
// F16: fence.proxy.async.shared::cta;
// F16: bar.sync {{.*}}1, 128;
// F16: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// F16: mbarrier.try_wait.parity
// F16: wgmma.fence.sync.aligned;
// F16-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// F16: wgmma.commit_group.sync.aligned;
// F16: cp.async.bulk.wait_group.read {{.*}}0;

// 2 stages of 2 x 16 KiB tiles, a 64 KiB f32 staging buffer, 4 mbarriers;
// static sizes appear as numbers.
// MANIFEST-F16:      "block": [
// MANIFEST-F16-NEXT:   256,
// MANIFEST-F16-NEXT:   1,
// MANIFEST-F16-NEXT:   1
// MANIFEST-F16-NEXT: ],
// MANIFEST-F16:      "dynamic_smem": 131104,
// MANIFEST-F16-NEXT: "entry": "gemm_f32",
// MANIFEST-F16-NEXT: "format": "fmha-manifest/1",
// MANIFEST-F16-NEXT: "grid": [
// MANIFEST-F16-NEXT:   "num_sms",
// MANIFEST-F16:        "tensor": "c"
// MANIFEST-F16:        "value": 512
// MANIFEST-F16:        "value": 256
// MANIFEST-F16:        "value": 1024
// MANIFEST-F16:      "a": {
// MANIFEST-F16-NEXT:   "dtype": "f16",
// MANIFEST-F16:      "c": {
// MANIFEST-F16-NEXT:   "dtype": "f32",
// MANIFEST-F16-NEXT:   "role": "output",
// MANIFEST-F16-NEXT:   "shape": [
// MANIFEST-F16-NEXT:     512,
// MANIFEST-F16-NEXT:     256
// MANIFEST-F16-NEXT:   ]

// 16 slots of a 64 x 64 A tile and a 32 x 64 B tile (12 KiB a slot), 32
// mbarriers, and a 4 KiB staging buffer for C.
// THIN-LABEL: .entry gemm_thin(
// THIN: wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16
// NOSPILL: 0 bytes spill stores, 0 bytes spill loads
// MANIFEST-THIN: "block": [
// MANIFEST-THIN-NEXT: 256,
// MANIFEST-THIN: "dynamic_smem": 200960,

// 16 slots of an 8 x 64 A tile and a 64 x 64 B tile (9 KiB a slot) and a
// 1 KiB staging buffer for C. The consumer's wgmmas are m64n8k16 (B's rows
// as M); its 64 x 8 accumulator, transposed in registers, goes to C's 8 x
// 64 staging tile one bf16 at a time (4 per thread).
// SWAP-LABEL: .entry gemm_swap(
// SWAP: .maxntid 256, 1, 1
// SWAP-COUNT-4: st.shared.b16
// SWAP: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// SWAP: wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16
// MANIFEST-SWAP: "dynamic_smem": 148736,
// MANIFEST-SWAP: "box": [
// MANIFEST-SWAP-NEXT: 8,
// MANIFEST-SWAP-NEXT: 64

// B as [K, N]: imm-trans-a 1 (B's tile is K x N, the MMA's A given K x M),
// imm-trans-b 0 (A's rows are the MMA's B read K-major).
// SWAPKN-LABEL: .entry gemm_swap_kn(
// SWAPKN: wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {{.+}}, p, 1, 1, 1, 0;

// Four boxes per K step (A's two, B's two) for one expect_tx of 18 KiB;
// 8 m64n8k16 wgmmas per step.
// SWAPK128-LABEL: .entry gemm_swap_k128(
// SWAPK128: mov.b32 [[BYTES:%r[0-9]+]], 18432;
// SWAPK128: mbarrier.arrive.expect_tx.shared.b64 %rd{{[0-9]+}}, [%rd{{[0-9]+}}+{{[0-9]+}}], [[BYTES]];
// SWAPK128-COUNT-8: wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16
// MANIFEST-SWAPK128: "dynamic_smem": 222400,
// MANIFEST-SWAPK128: "box": [
// MANIFEST-SWAPK128-NEXT: 8,
// MANIFEST-SWAPK128-NEXT: 64
// MANIFEST-SWAPK128: "box": [
// MANIFEST-SWAPK128-NEXT: 64,
// MANIFEST-SWAPK128-NEXT: 64

//--- swap-k128.mlir
fmha.gemm @gemm_swap_k128 (tensor<?x?xbf16>, tensor<?x?xbf16>)
    -> tensor<?x?xbf16> transpose_b swap_ab tile [8, 64, 128] stages 12
    target sm_90a

//--- swap-kn.mlir
fmha.gemm @gemm_swap_kn (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    swap_ab tile [8, 64, 64] stages 16 target sm_90a

//--- swap.mlir
fmha.gemm @gemm_swap (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b swap_ab tile [8, 64, 64] stages 16 target sm_90a

//--- thin.mlir
fmha.gemm @gemm_thin (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b tile [64, 32, 64] stages 16 consumers 1 target sm_90a

//--- bf16.mlir
fmha.gemm @gemm_bf16 (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
    transpose_b tile [128, 128, 64] stages 3 consumers 2 target sm_90a

//--- f16.mlir
fmha.gemm @gemm_f32 (tensor<512x1024xf16>, tensor<256x1024xf16>)
    -> tensor<512x256xf32>
    transpose_b tile [128, 128, 64] stages 2 consumers 1 target sm_90a
