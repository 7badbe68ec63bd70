// Attention with three consumer warpgroups (`consumers 3`: a 192-row query
// block of three 64-row consumer tiles sharing each K/V tile) compiled by
// the whole sm_90a pipeline, down to PTX that ptxas accepts without
// spills: 512 threads, the producer warpgroup at 24 registers and each
// consumer at (65536 / 128 - 24) / 3 rounded down to 160 (the widest
// three-consumer split: the estimate asks for more), the three consumers
// one copy of code (replica roles: a single setmaxnreg.inc), their
// softmax turns passed round all three (ping-pong), the persistent
// schedule's grid over 192-row items. Then the varlen kernel and the
// causal one with lse.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: fmha-opt %t/d64.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/d64.ptx
// RUN: FileCheck %s < %t/d64.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/d64.ptx -o %t/d64.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/d64.mlir --fmha-sm90-pipeline=binary=none \
// RUN: | fmha-translate --fmha-manifest | FileCheck %s --check-prefix=MANIFEST
// RUN: fmha-opt %t/varlen.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/varlen.ptx
// RUN: FileCheck %s --check-prefix=THREE < %t/varlen.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/varlen.ptx -o %t/varlen.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
// RUN: fmha-opt %t/causal-lse.mlir --fmha-sm90-pipeline \
// RUN: | fmha-translate --fmha-extract-object > %t/causal.ptx
// RUN: FileCheck %s --check-prefix=THREE < %t/causal.ptx
// RUN: %if ptxas %{ %ptxas -v -arch=sm_90a %t/causal.ptx -o %t/causal.cubin 2>&1 | FileCheck %s --check-prefix=NOSPILL %}
//
// NOSPILL: {{ }}0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// The turn token: consumer 0 starts, each waits for its turn and hands it
// to the next (barrier ids computed from the consumer's index: one copy).
// CHECK-LABEL: .entry attention_c3(
// CHECK: .maxntid 512, 1, 1
// CHECK: setmaxnreg.dec.sync.aligned.u32 24;
// CHECK: setmaxnreg.inc.sync.aligned.u32 160;
// CHECK: bar.arrive 4, 256;
// CHECK: bar.sync {{%r[0-9]+}}, 256;
// CHECK: bar.arrive {{%r[0-9]+}}, 256;
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK: ex2.approx.ftz.f32
// CHECK-NOT: setmaxnreg.inc

// The persistent grid: at most one CTA per SM, items of 192 query rows.
// MANIFEST: "block": [
// MANIFEST-NEXT: 512,
// MANIFEST: "ceildiv": [
// MANIFEST-NEXT: "SQ",
// MANIFEST-NEXT: 192

// THREE: .maxntid 512, 1, 1
// THREE: setmaxnreg.dec.sync.aligned.u32 24;
// THREE: setmaxnreg.inc.sync.aligned.u32 160;
// THREE: bar.sync {{%r[0-9]+}}, 256;
// THREE-NOT: setmaxnreg.inc

//--- d64.mlir
fmha.attention @attention_c3 (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>,
                              tensor<?x?x?x64xbf16>)
    -> tensor<?x?x?x64xbf16> consumers 3 target sm_90a

//--- varlen.mlir
fmha.attention @attention_c3_varlen (tensor<?x?x64xbf16>, tensor<?x?x64xbf16>,
                                     tensor<?x?x64xbf16>, tensor<?xi32>,
                                     tensor<?xi32>)
    -> tensor<?x?x64xbf16> varlen causal consumers 3 target sm_90a

//--- causal-lse.mlir
fmha.attention @attention_c3_lse (tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>,
                                  tensor<?x?x?x64xf16>)
    -> (tensor<?x?x?x64xf16>, tensor<?x?x?xf32>) causal consumers 3
    target sm_90a
