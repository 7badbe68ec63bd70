// RUN: split-file %s %t
// RUN: fmha-translate --fmha-manifest %t/launches.mlir | FileCheck %s
// RUN: not fmha-translate --fmha-manifest %t/clash.mlir 2>&1 | FileCheck %s --check-prefix=CLASH
// RUN: not fmha-translate --fmha-manifest %t/unlisted.mlir 2>&1 | FileCheck %s --check-prefix=UNLISTED
// RUN: not fmha-translate --fmha-manifest %t/outside.mlir 2>&1 | FileCheck %s --check-prefix=OUTSIDE

// A gpu.module whose kernels one call launches in turn (fmha.launches):
// one manifest with their tensors once (the union; a caller size once),
// then a launch each, in the listed order, and one cubin named after the
// module.
// CHECK: "cubin": "pair.sm_90a.cubin",
// CHECK-NEXT: "format": "fmha-manifest/1",
// CHECK-NEXT: "launches": [
// CHECK-NEXT: {
// CHECK-NEXT: "block": [
// CHECK-NEXT: 128,
// CHECK: "dynamic_smem": 0,
// CHECK-NEXT: "entry": "second",
// CHECK-NEXT: "grid": [
// CHECK-NEXT: "N",
// CHECK: "params": [
// CHECK-NEXT: {
// CHECK-NEXT: "kind": "memref",
// CHECK-NEXT: "tensor": "tmp"
// CHECK: "block": [
// CHECK-NEXT: 256,
// CHECK: "dynamic_smem": 1024,
// CHECK-NEXT: "entry": "first",
// CHECK: "name": "pair",
// CHECK-NEXT: "sizes": [
// CHECK-NEXT: "S"
// CHECK-NEXT: ],
// CHECK-NEXT: "target": "sm_90a",
// CHECK-NEXT: "tensors": {
// CHECK-NEXT: "out": {
// CHECK: "tmp": {
// CHECK-NEXT: "dtype": "f32",
// CHECK-NEXT: "role": "scratch",
// CHECK: "x": {
// CHECK-NOT: "entry"

//--- launches.mlir
gpu.module @pair_module [#nvvm.target<chip = "sm_90a">] attributes {fmha.launches = [@second, @first]} {
  llvm.func @first() attributes {fmha.grid = [1, 1, 1], fmha.params = [{kind = "memref", tensor = "x"}, {kind = "memref", tensor = "tmp"}], fmha.sizes = ["S"], fmha.tensors = {tmp = {dtype = "f32", role = "scratch", shape = ["N"]}, x = {dtype = "bf16", role = "input", shape = ["N"]}}, ws.num_threads = 256 : i64, ws.smem_bytes = 1024 : i64} {
    llvm.return
  }
  llvm.func @second() attributes {fmha.grid = ["N", 1, 1], fmha.params = [{kind = "memref", tensor = "tmp"}, {kind = "memref", tensor = "out"}], fmha.sizes = ["S"], fmha.tensors = {out = {dtype = "bf16", role = "output", shape = ["N"]}, tmp = {dtype = "f32", role = "scratch", shape = ["N"]}}, ws.num_threads = 128 : i64} {
    llvm.return
  }
}

//--- clash.mlir
// CLASH: error: tensor 'tmp' is declared as {dtype = "f32", role = "scratch", shape = [4]} here and as {dtype = "f32", role = "scratch", shape = ["N"]} by an earlier launch: the launches of one manifest share their tensors
gpu.module @pair_module [#nvvm.target<chip = "sm_90a">] attributes {fmha.launches = [@first, @second]} {
  llvm.func @first() attributes {fmha.grid = [1, 1, 1], fmha.params = [], fmha.tensors = {tmp = {dtype = "f32", role = "scratch", shape = ["N"]}}, ws.num_threads = 128 : i64} {
    llvm.return
  }
  llvm.func @second() attributes {fmha.grid = [1, 1, 1], fmha.params = [], fmha.tensors = {tmp = {dtype = "f32", role = "scratch", shape = [4]}}, ws.num_threads = 128 : i64} {
    llvm.return
  }
}

//--- unlisted.mlir
// UNLISTED: error: kernel has a launch contract but is not among its gpu.module's fmha.launches
gpu.module @pair_module [#nvvm.target<chip = "sm_90a">] attributes {fmha.launches = [@first]} {
  llvm.func @first() attributes {fmha.grid = [1, 1, 1], fmha.params = [], fmha.tensors = {}, ws.num_threads = 128 : i64} {
    llvm.return
  }
  llvm.func @second() attributes {fmha.grid = [1, 1, 1], fmha.params = [], fmha.tensors = {}, ws.num_threads = 128 : i64} {
    llvm.return
  }
}

//--- outside.mlir
// OUTSIDE: error: kernel with a launch contract outside the gpu.module of fmha.launches: a manifest describes one module's launches
module {
  gpu.module @pair_module [#nvvm.target<chip = "sm_90a">] attributes {fmha.launches = [@first]} {
    llvm.func @first() attributes {fmha.grid = [1, 1, 1], fmha.params = [], fmha.tensors = {}, ws.num_threads = 128 : i64} {
      llvm.return
    }
  }
  gpu.module @other_module [#nvvm.target<chip = "sm_90a">] {
    llvm.func @other() attributes {fmha.grid = [1, 1, 1], fmha.params = [], fmha.tensors = {}, ws.num_threads = 128 : i64} {
      llvm.return
    }
  }
}
