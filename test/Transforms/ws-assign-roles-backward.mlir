// RUN: fmha-opt %s -split-input-file --fmha-expand-kernels --tile-assign-layouts --ws-assign-roles | FileCheck %s

// ws-assign-roles on the fused attention backward's dK/dV kernel: a TMA
// store inside the main loop (each consumer's part of dQ, added into
// dq_acc) goes to the consumer whose accumulators (dK, dV) come from the
// dots its value comes from (the dS of its own 64 keys): consumer 1
// stores the first part, consumer 2 the second.
// CHECK-LABEL: gpu.func @bwd_fdq_dkdv(
// CHECK: scf.for
// CHECK: tile.store %{{.+}}, %{{.+}}#2 reduce add {ws.partition = array<i32: 1>}
// CHECK: tile.store %{{.+}}, %{{.+}}#2 reduce add {ws.partition = array<i32: 2>}
// CHECK: ws.partition_outputs
fmha.attention_backward @bwd_fdq (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>,
    tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>,
    tensor<?x?x?xf32>)
    -> (tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>, tensor<?x?x?x64xbf16>)
    causal fused_dq target sm_90a

// -----

// The varlen dK/dV kernel stores dK and dV by plain stores: each value
// reads both of its consumer's accumulators (dK and dV are waited for
// together), which are one consumer's chains, so the consumer stores it:
// consumer 1 its keys' dK and dV, consumer 2 the others'.
// CHECK-LABEL: gpu.func @bwd_varlen_dkdv(
// CHECK: ws.partition_outputs = [array<i32: 1>, array<i32: 1>, array<i32: 2>, array<i32: 2>]
// CHECK: tile.store_direct {{.+}} {ws.partition = array<i32: 1>}
// CHECK: tile.store_direct {{.+}} {ws.partition = array<i32: 1>}
// CHECK: tile.store_direct {{.+}} {ws.partition = array<i32: 2>}
// CHECK: tile.store_direct {{.+}} {ws.partition = array<i32: 2>}
fmha.attention_backward @bwd_varlen (tensor<?x?x64xbf16>, tensor<?x?x64xbf16>,
    tensor<?x?x64xbf16>, tensor<?x?x64xbf16>, tensor<?x?x64xbf16>,
    tensor<?x?xf32>, tensor<?xi32>, tensor<?xi32>)
    -> (tensor<?x?x64xbf16>, tensor<?x?x64xbf16>, tensor<?x?x64xbf16>)
    varlen target sm_90a

// -----

// At head dim 128 (FlashAttention-3's split) each in-loop store of dQ's
// column part reads both consumers' dS: the stores go to the consumers in
// turn, and each consumer hands its dS to the other through a channel of
// one slot (after the loads' two channels; the first store's comes
// first).
// CHECK-LABEL: gpu.func @bwd_fdq128_dkdv(
// CHECK-SAME: ws.channel_stages = array<i32: 1, 2, 1, 1>
// CHECK: scf.for
// CHECK: arith.truncf {{.+}} {ws.partition = array<i32: 1>, ws.result_channel = 3 : i32}
// CHECK: arith.truncf {{.+}} {ws.partition = array<i32: 2>, ws.result_channel = 2 : i32}
// CHECK: tile.store {{.+}} reduce add {ws.partition = array<i32: 1>}
// CHECK: tile.store {{.+}} reduce add {ws.partition = array<i32: 2>}
fmha.attention_backward @bwd_fdq128 (tensor<?x?x?x128xbf16>,
    tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>,
    tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>)
    -> (tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>)
    fused_dq target sm_90a
