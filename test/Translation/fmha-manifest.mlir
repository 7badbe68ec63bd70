// RUN: split-file %s %t
// RUN: fmha-translate --fmha-manifest %t/kernel.mlir | FileCheck %s
// RUN: not fmha-translate --fmha-manifest %t/no-threads.mlir 2>&1 | FileCheck %s --check-prefix=NO-THREADS
// RUN: not fmha-translate --fmha-manifest %t/bad-grid.mlir 2>&1 | FileCheck %s --check-prefix=BAD-GRID
// RUN: not fmha-translate --fmha-manifest %t/two-kernels.mlir 2>&1 | FileCheck %s --check-prefix=TWO

// fmha::writeManifest: the JSON manifest of a final kernel, from the launch
// contract fmha-expand-kernels recorded (fmha.tensors, fmha.params,
// fmha.grid) and what the lowering recorded (ws.num_threads, ws.smem_bytes,
// nvvm.cluster_dim, the gpu.module's target).

// CHECK: "block": [
// CHECK-NEXT: 128,
// CHECK: "cluster": [
// CHECK-NEXT: 2,
// CHECK: "cubin": "k.sm_100a.cubin",
// CHECK-NEXT: "dynamic_smem": 2048,
// CHECK-NEXT: "entry": "k",
// CHECK-NEXT: "format": "fmha-manifest/1",
// CHECK-NEXT: "grid": [
// CHECK-NEXT: {
// CHECK-NEXT: "ceildiv": [
// CHECK-NEXT: "M",
// CHECK-NEXT: 64
// CHECK: "name": "k",
// CHECK-NEXT: "params": [
// CHECK-NEXT: {
// CHECK-NEXT: "box": [
// CHECK: "kind": "tensor_map",
// CHECK-NEXT: "swizzle": 128,
// CHECK-NEXT: "tensor": "a"
// CHECK: "kind": "scalar",
// CHECK-NEXT: "value": "M"
// CHECK: "target": "sm_100a",
// CHECK-NEXT: "tensors": {
// CHECK-NEXT: "a": {
// CHECK-NEXT: "dtype": "bf16",
// CHECK-NEXT: "role": "input",
// CHECK-NEXT: "shape": [
// CHECK-NEXT: "M",
// CHECK-NEXT: 64

//--- kernel.mlir
gpu.module @k_module [#nvvm.target<chip = "sm_100a">] {
  llvm.func @k() attributes {fmha.tensors = {a = {shape = ["M", 64], dtype = "bf16", role = "input"}}, fmha.params = [{kind = "tensor_map", tensor = "a", box = [64, 64], swizzle = 128}, {kind = "scalar", dtype = "i32", value = "M"}], fmha.grid = [{ceildiv = ["M", 64]}, 1, 1], ws.num_threads = 128 : i64, ws.smem_bytes = 2048 : i64, nvvm.cluster_dim = array<i32: 2, 1, 1>} {
    llvm.return
  }
}

//--- no-threads.mlir
// NO-THREADS: error: kernel has no ws.num_threads: run the whole pipeline before writing its manifest
gpu.module @k_module [#nvvm.target<chip = "sm_90a">] {
  llvm.func @k() attributes {fmha.tensors = {}, fmha.params = [], fmha.grid = [1, 1, 1]} {
    llvm.return
  }
}

//--- bad-grid.mlir
// BAD-GRID: error: 'fmha.grid': the grid must be an array of three expressions, got [1]
gpu.module @k_module [#nvvm.target<chip = "sm_90a">] {
  llvm.func @k() attributes {fmha.tensors = {}, fmha.params = [], fmha.grid = [1], ws.num_threads = 128 : i64} {
    llvm.return
  }
}

//--- two-kernels.mlir
// TWO: error: expected exactly one kernel with a launch contract (fmha.tensors), found 2
gpu.module @k_module [#nvvm.target<chip = "sm_90a">] {
  llvm.func @k() attributes {fmha.tensors = {}} {
    llvm.return
  }
  llvm.func @l() attributes {fmha.tensors = {}} {
    llvm.return
  }
}
