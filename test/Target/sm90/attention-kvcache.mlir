// Attention against KV caches compiled by the whole sm_90a pipeline down
// to PTX, which ptxas must accept without spills: decode against a paged
// cache of 64-row pages (GQA, causal, with the log-sum-exp), a paged cache
// of 16-row pages (f16, head dim 64), and a dense cache (MQA, head dim 256).
// K and V come by 4-d TMA boxes inside one page (or one sequence's rows),
// at the page the block table names. Each kernel is its own input.
//
// RUN: rm -rf %t && split-file %s %t
//
// RUN: fmha-opt %t/paged.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/paged.ptx
// RUN: FileCheck %s --check-prefix=PAGED < %t/paged.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/paged.ptx -o %t/paged.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: fmha-opt %t/paged.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST
//
// RUN: fmha-opt %t/paged16.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/paged16.ptx
// RUN: FileCheck %s --check-prefix=PAGED16 < %t/paged16.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/paged16.ptx -o %t/paged16.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
//
// RUN: fmha-opt %t/dense.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/dense.ptx
// RUN: FileCheck %s --check-prefix=DENSE < %t/dense.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t/dense.ptx -o %t/dense.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// PAGED: .target sm_90a
// PAGED-LABEL: .entry attn_paged(
// Q, K, V and O tensor maps, the memref descriptors of lse, cache_seqlens
// and block_table, then batch, heads_q, heads_kv, seq_q and the page size.
// PAGED-COUNT-4: .param .align 64 .b8 attn_paged_param_{{[0-3]}}[128],
// PAGED-COUNT-5: .param .u32 attn_paged_param_{{[0-9]+}}
// The producer reads the cache length and the block table, then loads
// K and V pages with 4-d boxes.
// PAGED: setmaxnreg.dec.sync.aligned.u32 40;
// PAGED: ld.global.b32
// PAGED: ld.global.b32
// PAGED: cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// The consumers read the cache length for their masks; tiles of 64 keys;
// O leaves by a 4-d TMA store, lse by plain stores.
// PAGED: setmaxnreg.inc.sync.aligned.u32 232;
// PAGED: ld.global.b32
// PAGED: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// PAGED: cp.async.bulk.tensor.4d.global.shared::cta
// PAGED: lg2.approx.f32
// PAGED: st.global.b32

// Every tensor map is over a permuted view; the manifest names the cache
// lengths and the block table.
// MANIFEST: "dims": [
// MANIFEST-NEXT: 0,
// MANIFEST-NEXT: 2,
// MANIFEST-NEXT: 1,
// MANIFEST-NEXT: 3
// MANIFEST: "block_table": {
// MANIFEST-NEXT: "dtype": "i32",
// MANIFEST-NEXT: "role": "input",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: "B",
// MANIFEST-NEXT: "MP"

// PAGED16-LABEL: .entry attn_paged16(
// PAGED16: cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// PAGED16: wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16

// DENSE-LABEL: .entry attn_kvcache_dense(
// DENSE: cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// DENSE: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16

//--- paged.mlir
fmha.attention @attn_paged (tensor<?x?x32x128xbf16>, tensor<?x64x8x128xbf16>,
                            tensor<?x64x8x128xbf16>, tensor<?xi32>,
                            tensor<?x?xi32>)
    -> (tensor<?x?x32x128xbf16>, tensor<?x32x?xf32>) kvcache causal
    target sm_90a

//--- paged16.mlir
fmha.attention @attn_paged16 (tensor<?x?x32x64xf16>, tensor<?x16x8x64xf16>,
                              tensor<?x16x8x64xf16>, tensor<?xi32>,
                              tensor<?x?xi32>)
    -> (tensor<?x?x32x64xf16>, tensor<?x32x?xf32>) kvcache causal
    target sm_90a

//--- dense.mlir
fmha.attention @attn_kvcache_dense (tensor<?x?x16x256xbf16>,
                                    tensor<?x?x1x256xbf16>,
                                    tensor<?x?x1x256xbf16>, tensor<?xi32>)
    -> tensor<?x?x16x256xbf16> kvcache target sm_90a
