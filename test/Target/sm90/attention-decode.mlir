// Decode kernels compiled by the whole sm_90a pipeline down to PTX, which
// ptxas must accept without spills: packed query heads with split-KV
// against a paged cache (GQA 32:8, causal, with the log-sum-exp), packed
// heads alone against a dense cache (head dim 64), and split-KV alone
// (f16, MQA, pages of 16 rows). Each kernel is its own input.
//
// RUN: rm -rf %t && split-file %s %t
//
// RUN: fmha-opt %t/packed_split.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/packed_split.ptx
// RUN: FileCheck %s --check-prefix=PS < %t/packed_split.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/packed_split.ptx -o %t/ps.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: fmha-opt %t/packed_split.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST
//
// RUN: fmha-opt %t/packed.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/packed.ptx
// RUN: FileCheck %s --check-prefix=PACKED < %t/packed.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/packed.ptx -o %t/packed.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
//
// RUN: fmha-opt %t/split.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/split.ptx
// RUN: FileCheck %s --check-prefix=SPLIT < %t/split.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/split.ptx -o %t/split.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// The producer loads Q by a 5-d box (positions x heads of a group) and
// K/V pages by 4-d boxes; the consumer stores its partial O and lse,
// counts itself with an atomic add at GPU scope (between fences), and the last one loads
// the partials back, 128 bits at a time, and writes O and lse with plain
// stores.
// PS: .target sm_90a
// PS-LABEL: .entry decode(
// PS: cp.async.bulk.tensor.5d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// PS: cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// PS: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// PS: st.global.v2.b32
// PS: atom.relaxed.gpu.global.add.u32
// PS: ld.global.v4.b32
// PS: ex2.approx
// PS: st.global.b32
// PS-NOT: cp.async.bulk.tensor.{{.*}}global.shared::cta

// The manifest: q and o as [B, SQ, 8, 4, 128] views, the number of splits
// a size the caller passes, the workspace and counters from the runtime.
// MANIFEST: "sizes": [
// MANIFEST-NEXT: "S"
// MANIFEST: "counters": {
// MANIFEST-NEXT: "dtype": "i32",
// MANIFEST-NEXT: "role": "zeroed",
// MANIFEST: "partial_o": {
// MANIFEST-NEXT: "dtype": "f32",
// MANIFEST-NEXT: "role": "scratch",
// MANIFEST: "q": {
// MANIFEST-NEXT: "dtype": "bf16",
// MANIFEST-NEXT: "role": "input",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: "B",
// MANIFEST-NEXT: "SQ",
// MANIFEST-NEXT: 8,
// MANIFEST-NEXT: 4,
// MANIFEST-NEXT: 128

// Packed heads without split: O leaves by a 5-d TMA store.
// PACKED-LABEL: .entry decode_packed(
// PACKED: cp.async.bulk.tensor.5d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// PACKED: cp.async.bulk.tensor.5d.global.shared::cta

// PTX of split-KV alone: tiles of 16 keys, an atomic count, plain stores.
// SPLIT-LABEL: .entry decode_split(
// SPLIT: wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16
// SPLIT: atom.relaxed.gpu.global.add.u32

//--- packed_split.mlir
fmha.attention @decode (tensor<?x?x32x128xbf16>, tensor<?x64x8x128xbf16>,
                        tensor<?x64x8x128xbf16>, tensor<?xi32>,
                        tensor<?x?xi32>)
    -> (tensor<?x?x32x128xbf16>, tensor<?x32x?xf32>) kvcache pack_gqa split_kv
    causal consumers 1 target sm_90a

//--- packed.mlir
fmha.attention @decode_packed (tensor<?x?x32x64xbf16>, tensor<?x?x8x64xbf16>,
                               tensor<?x?x8x64xbf16>, tensor<?xi32>)
    -> tensor<?x?x32x64xbf16> kvcache pack_gqa consumers 1 target sm_90a

//--- split.mlir
fmha.attention @decode_split (tensor<?x?x8x64xf16>, tensor<?x16x1x64xf16>,
                              tensor<?x16x1x64xf16>, tensor<?xi32>,
                              tensor<?x?xi32>)
    -> tensor<?x?x8x64xf16> kvcache split_kv target sm_90a
