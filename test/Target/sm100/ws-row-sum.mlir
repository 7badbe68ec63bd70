// The ws-level example kernel compiled for sm_100a: the same TMA ring and
// role structure; ptxas for sm_100a must accept it.
//
// RUN: fmha-opt %S/../../../examples/ws-row-sum.mlir \
// RUN:   --nvvm-attach-target="chip=sm_100a features=+ptx86" \
// RUN:   --ws-insert-mbarriers --ws-allocate-smem --ws-allocate-registers \
// RUN:   --ws-lower-roles --ws-lower-cta-pairs \
// RUN:   --convert-scf-to-cf --convert-ws-to-nvvm --convert-nvvm-to-llvm --reconcile-unrealized-casts \
// RUN:   --gpu-module-to-binary=format=isa \
// RUN: | fmha-translate --fmha-extract-object > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_100a %t.ptx -o %t.cubin %}

// CHECK: .target sm_100a
// CHECK-LABEL: .entry row_sum(
// CHECK-NEXT: .param .align 64 .b8 row_sum_param_0[128]
// CHECK: .maxntid 256, 1, 1
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK: mbarrier.arrive.expect_tx
