// RUN: fmha-opt %s --pass-pipeline='builtin.module(ws-insert-hang-reports{wait-timeout=10}, ws-allocate-smem, ws-allocate-registers, ws-lower-roles)' | FileCheck %s

// The ws passes read and write ws attributes through the dialect's
// helpers, so they load the ws dialect themselves: a module without any ws
// op (as the fuzzer writes) goes through them.
// CHECK: gpu.module @m attributes {ws.hang_reports}
// CHECK: gpu.func @k() kernel
gpu.module @m {
  gpu.func @k() kernel {
    gpu.return
  }
}
