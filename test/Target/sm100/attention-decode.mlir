// Split-KV decode compiled by the whole sm_100a pipeline down to PTX that
// ptxas accepts for sm_100a without spills: a paged cache of 64-row pages
// (GQA 32:8, causal, with the log-sum-exp), a dense cache (no lse), f16 MQA
// head dim 64 against pages of 16 rows, and split-KV with packed query
// heads (pack_gqa) against pages of 64 and 256 rows, and a dense cache at
// head dim 256. The correction warpgroup, which holds O after tcgen05.ld,
// stores the partial O (32 columns at a time) and the partial lse the
// softmax hands it, counts itself at the query tile's counter (an atomic
// add at GPU scope between fences) and, on the last arrival, merges the
// partials in split order with the code sm_90a and fmha.merge_states use
// (8 columns at a time, 2 partials per step) from the workspace and stores
// O and lse with plain stores. No Blackwell GPU runs them here.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: fmha-opt %t/paged.mlir --fmha-sm100-pipeline | fmha-translate --fmha-extract-object > %t/paged.ptx
// RUN: fmha-opt %t/dense.mlir --fmha-sm100-pipeline | fmha-translate --fmha-extract-object > %t/dense.ptx
// RUN: fmha-opt %t/mqa16.mlir --fmha-sm100-pipeline | fmha-translate --fmha-extract-object > %t/mqa16.ptx
// RUN: fmha-opt %t/packed.mlir --fmha-sm100-pipeline | fmha-translate --fmha-extract-object > %t/packed.ptx
// RUN: fmha-opt %t/packed256.mlir --fmha-sm100-pipeline | fmha-translate --fmha-extract-object > %t/packed256.ptx
// RUN: fmha-opt %t/dense256.mlir --fmha-sm100-pipeline | fmha-translate --fmha-extract-object > %t/dense256.ptx
// RUN: FileCheck %s < %t/paged.ptx
// RUN: FileCheck %s < %t/dense.ptx
// RUN: FileCheck %s < %t/mqa16.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,PACKED < %t/packed.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,PACKED < %t/packed256.ptx
// RUN: FileCheck %s < %t/dense256.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/paged.ptx -o %t/a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/dense.ptx -o %t/b.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/mqa16.ptx -o %t/c.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/packed.ptx -o %t/d.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/packed256.ptx -o %t/e.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/dense256.ptx -o %t/f.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// The manifest asks the runtime for the workspace and the counters:
// RUN: fmha-opt %t/paged.mlir --fmha-sm100-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST

// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// CHECK: .target sm_100a
// The load warp: K/V by 4-d boxes (Q packed by 5-d ones).
// CHECK: setmaxnreg.dec.sync.aligned.u32 72;
// PACKED: cp.async.bulk.tensor.5d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK: cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK: tcgen05.mma.cta_group::1.kind::f16
// The correction (88 registers): O from tensor memory, the partials out,
// the arrival, the merge's loads and the results' stores.
// CHECK: setmaxnreg.dec.sync.aligned.u32 88;
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK: st.global
// CHECK: fence.acq_rel.gpu
// CHECK: atom.relaxed.gpu.global.add.u32
// CHECK: ld.global.v4.b32
// CHECK: ex2.approx
// CHECK: st.global
// The softmax: two warpgroups of 176 registers (one of 232 at head dim
// 256).
// CHECK: setmaxnreg.inc.sync.aligned.u32 {{176|232}};
// CHECK-NOT: cp.async.bulk.tensor.{{.*}}.global.shared::cta

// MANIFEST: "sizes": [
// MANIFEST-NEXT: "S"
// MANIFEST: "counters": {
// MANIFEST-NEXT: "dtype": "i32",
// MANIFEST-NEXT: "role": "zeroed",
// MANIFEST: "partial_lse": {
// MANIFEST-NEXT: "dtype": "f32",
// MANIFEST-NEXT: "role": "scratch",
// MANIFEST: "partial_o": {
// MANIFEST-NEXT: "dtype": "f32",
// MANIFEST-NEXT: "role": "scratch",

//--- paged.mlir
fmha.attention @paged (tensor<?x?x32x128xbf16>, tensor<?x64x8x128xbf16>,
                       tensor<?x64x8x128xbf16>, tensor<?xi32>,
                       tensor<?x?xi32>)
    -> (tensor<?x?x32x128xbf16>, tensor<?x32x?xf32>) kvcache split_kv causal
    target sm_100a

//--- dense.mlir
fmha.attention @dense (tensor<?x?x32x128xbf16>, tensor<?x?x8x128xbf16>,
                       tensor<?x?x8x128xbf16>, tensor<?xi32>)
    -> tensor<?x?x32x128xbf16> kvcache split_kv target sm_100a

//--- mqa16.mlir
fmha.attention @mqa16 (tensor<?x?x8x64xf16>, tensor<?x16x1x64xf16>,
                       tensor<?x16x1x64xf16>, tensor<?xi32>, tensor<?x?xi32>)
    -> (tensor<?x?x8x64xf16>, tensor<?x8x?xf32>) kvcache split_kv
    target sm_100a

//--- packed.mlir
fmha.attention @packed (tensor<?x?x32x128xbf16>, tensor<?x64x8x128xbf16>,
                        tensor<?x64x8x128xbf16>, tensor<?xi32>,
                        tensor<?x?xi32>)
    -> (tensor<?x?x32x128xbf16>, tensor<?x32x?xf32>) kvcache pack_gqa
    split_kv causal target sm_100a

//--- packed256.mlir
fmha.attention @packed256 (tensor<?x?x32x128xbf16>, tensor<?x256x8x128xbf16>,
                           tensor<?x256x8x128xbf16>, tensor<?xi32>,
                           tensor<?x?xi32>)
    -> (tensor<?x?x32x128xbf16>, tensor<?x32x?xf32>) kvcache pack_gqa
    split_kv target sm_100a

//--- dense256.mlir
fmha.attention @dense256 (tensor<?x?x32x256xbf16>, tensor<?x?x8x256xbf16>,
                          tensor<?x?x8x256xbf16>, tensor<?xi32>)
    -> (tensor<?x?x32x256xbf16>, tensor<?x32x?xf32>) kvcache split_kv
    target sm_100a
