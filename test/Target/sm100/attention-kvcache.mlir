// Attention against KV caches compiled by the whole sm_100a pipeline down to
// PTX that ptxas accepts for sm_100a without spills: a paged cache of
// 64-row pages (GQA 32:8, causal, with the log-sum-exp), a dense cache, and
// the same paged decode with the query heads of each KV head packed into
// one Q tile (pack_gqa: a 5-d Q box of 32 positions x 4 heads, masks on
// row / 4). K and V come by 4-d TMA boxes at the page the block table
// names. No Blackwell GPU runs them here.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: fmha-opt %t/paged.mlir --fmha-sm100-pipeline | fmha-translate --fmha-extract-object > %t/paged.ptx
// RUN: fmha-opt %t/dense.mlir --fmha-sm100-pipeline | fmha-translate --fmha-extract-object > %t/dense.ptx
// RUN: fmha-opt %t/packed.mlir --fmha-sm100-pipeline | fmha-translate --fmha-extract-object > %t/packed.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,PAGED < %t/paged.ptx
// RUN: FileCheck %s < %t/dense.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,PACKED < %t/packed.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/paged.ptx -o %t/paged.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/dense.ptx -o %t/dense.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/packed.ptx -o %t/packed.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// CHECK: .target sm_100a
// The cache length (and the page) read from global memory; K and V by 4-d
// boxes; the MMAs on tensor memory.
// CHECK: ld.global.b32
// PAGED: cp.async.bulk.tensor.4d
// PACKED: cp.async.bulk.tensor.5d
// CHECK: tcgen05.mma.cta_group::1.kind::f16

//--- paged.mlir
fmha.attention @paged (tensor<?x?x32x128xbf16>, tensor<?x64x8x128xbf16>,
                       tensor<?x64x8x128xbf16>, tensor<?xi32>,
                       tensor<?x?xi32>)
    -> (tensor<?x?x32x128xbf16>, tensor<?x32x?xf32>) kvcache causal
    target sm_100a

//--- dense.mlir
fmha.attention @dense (tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>,
                       tensor<?x?x?x64xf16>, tensor<?xi32>)
    -> tensor<?x?x?x64xf16> kvcache target sm_100a

//--- packed.mlir
fmha.attention @packed (tensor<?x?x32x128xbf16>, tensor<?x64x8x128xbf16>,
                        tensor<?x64x8x128xbf16>, tensor<?xi32>,
                        tensor<?x?xi32>)
    -> tensor<?x?x32x128xbf16> kvcache pack_gqa causal target sm_100a
