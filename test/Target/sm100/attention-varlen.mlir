// Varlen attention (packed sequences) compiled by the whole sm_100a
// pipeline down to PTX that ptxas accepts for sm_100a without spills: head
// dim 128 (GQA 32:8, causal, with the log-sum-exp; and not causal, without
// it), head dim 64 (causal, with the log-sum-exp) and head dim 64 f16 MQA
// (not causal, with the log-sum-exp). Q, K and V come by 3-d TMA boxes at
// the sequence's rows; the correction warpgroup stores O from tensor memory
// 32 columns at a time, and the LSE rows, by global stores bounded by the
// sequence's end: no TMA store, whose box would write the next sequence's
// rows. No Blackwell GPU runs them here.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: fmha-opt %t/d128_causal_lse.mlir --fmha-sm100-pipeline | fmha-translate --fmha-extract-object > %t/d128_causal_lse.ptx
// RUN: fmha-opt %t/d128.mlir --fmha-sm100-pipeline | fmha-translate --fmha-extract-object > %t/d128.ptx
// RUN: fmha-opt %t/d64_causal_lse.mlir --fmha-sm100-pipeline | fmha-translate --fmha-extract-object > %t/d64_causal_lse.ptx
// RUN: fmha-opt %t/d64_mqa_lse.mlir --fmha-sm100-pipeline | fmha-translate --fmha-extract-object > %t/d64_mqa_lse.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,LSE < %t/d128_causal_lse.ptx
// RUN: FileCheck %s < %t/d128.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,LSE < %t/d64_causal_lse.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,LSE < %t/d64_mqa_lse.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/d128_causal_lse.ptx -o %t/a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/d128.ptx -o %t/b.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/d64_causal_lse.ptx -o %t/c.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ %ptxas -v -arch=sm_100a %t/d64_mqa_lse.ptx -o %t/d.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// CHECK: .target sm_100a
// Q, K, V tensor maps, then the memref descriptors of o (, lse) and the
// two cu_seqlens.
// CHECK-COUNT-3: .param .align 64 .b8 {{.*}}_param_{{[0-2]}}[128],
// The load warp reads the sequence's bounds and loads by 3-d boxes.
// CHECK: setmaxnreg.dec.sync.aligned.u32 72;
// CHECK: ld.global.b32
// CHECK: cp.async.bulk.tensor.3d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK: tcgen05.mma.cta_group::1.kind::f16
// The correction (80 registers: it stages nothing) reads O from tensor
// memory and stores it with bounded 16-byte stores.
// CHECK: setmaxnreg.dec.sync.aligned.u32 80;
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK: st.global.v4.b32
// LSE: st.global.b32
// CHECK: setmaxnreg.inc.sync.aligned.u32 176;
// CHECK-NOT: cp.async.bulk.tensor.{{.*}}.global.shared::cta

//--- d128_causal_lse.mlir
fmha.attention @d128_causal_lse (tensor<?x32x128xbf16>, tensor<?x8x128xbf16>,
                                 tensor<?x8x128xbf16>, tensor<?xi32>,
                                 tensor<?xi32>)
    -> (tensor<?x32x128xbf16>, tensor<32x?xf32>) varlen causal target sm_100a

//--- d128.mlir
fmha.attention @d128 (tensor<?x32x128xbf16>, tensor<?x8x128xbf16>,
                      tensor<?x8x128xbf16>, tensor<?xi32>, tensor<?xi32>)
    -> tensor<?x32x128xbf16> varlen target sm_100a

//--- d64_causal_lse.mlir
fmha.attention @d64_causal_lse (tensor<?x32x64xbf16>, tensor<?x8x64xbf16>,
                                tensor<?x8x64xbf16>, tensor<?xi32>,
                                tensor<?xi32>)
    -> (tensor<?x32x64xbf16>, tensor<32x?xf32>) varlen causal target sm_100a

//--- d64_mqa_lse.mlir
fmha.attention @d64_mqa_lse (tensor<?x8x64xf16>, tensor<?x1x64xf16>,
                             tensor<?x1x64xf16>, tensor<?xi32>, tensor<?xi32>)
    -> (tensor<?x8x64xf16>, tensor<8x?xf32>) varlen target sm_100a
