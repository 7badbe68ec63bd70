// The compiler's output does not depend on where the IR sits in memory:
// compiling the sm_100a attention example in one run, and compiling it from
// its partitioned IR printed and parsed back, give the same LLVM IR. (The
// loop-carried ring counters of ws-insert-mbarriers were once ordered by
// the channels' addresses, and the two differed.)
// RUN: fmha-opt %S/../../examples/attention-sm100.mlir --fmha-sm100-pipeline=binary=none -o %t.one
// RUN: fmha-opt %S/../../examples/attention-sm100.mlir --fmha-verify-target --fmha-expand-kernels --tile-assign-layouts --ws-assign-roles --ws-partition-roles --ws-chunk-row-stores --ws-schedule-ping-pong --ws-stage-in-held-slots -o %t.half
// RUN: fmha-opt %t.half --pass-pipeline="builtin.module(ws-verify-protocol,ws-insert-mbarriers{verify-protocol=true},ws-verify-phases,ws-allocate-tmem,ws-allocate-smem{max-bytes=232448},ws-allocate-registers,ws-lower-roles{replica-roles=true},ws-lower-cta-pairs,gpu.module(convert-scf-to-cf),convert-ws-to-nvvm,convert-nvvm-to-llvm,reconcile-unrealized-casts)" -o %t.two
// RUN: diff %t.one %t.two
