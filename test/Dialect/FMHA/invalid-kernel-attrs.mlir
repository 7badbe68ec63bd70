// RUN: fmha-opt %s -split-input-file -verify-diagnostics

// The kernel attributes fmha-expand-kernels sets (KernelAttrs.h), verified
// by the fmha dialect wherever they appear: one case per rule.

// expected-error @+1 {{'fmha.stages' (pipeline stages) must be an integer from 1 to 32, got 0}}
func.func @stages_zero() attributes {fmha.stages = 0 : i64} {
  return
}

// -----

// expected-error @+1 {{'fmha.stages' (pipeline stages) must be an integer from 1 to 32, got "many"}}
func.func @stages_not_a_number() attributes {fmha.stages = "many"} {
  return
}

// -----

// expected-error @+1 {{'fmha.item_slots' (slots of the per-item ring) must be an integer from 1 to 2, got 3}}
func.func @item_slots() attributes {fmha.item_slots = 3 : i64} {
  return
}

// -----

// expected-error @+1 {{'fmha.consumer_registers' (registers per consumer thread) must be an integer from 1 to 255, got 256}}
func.func @consumer_registers() attributes {fmha.consumer_registers = 256 : i64} {
  return
}

// -----

// expected-error @+1 {{'fmha.descriptors_at_use' (wgmma descriptors computed at their use) must be a unit attribute, got 1 : i64}}
func.func @descriptors_at_use() attributes {fmha.descriptors_at_use = 1 : i64} {
  return
}

// -----

// The launch contract (fmha.tensors, fmha.params, fmha.grid): each entry
// in the form of docs/Manifest.md.

// expected-error @+1 {{'fmha.tensors': the tensors must be a dictionary of tensors by name, got [1]}}
func.func @tensors_not_a_dictionary() attributes {fmha.tensors = [1]} {
  return
}

// -----

// expected-error @+1 {{'fmha.tensors': tensor 'a' must be {shape = [sizes or symbols], dtype, role}, got {dtype = "bf16", role = "input"}}}
func.func @tensor_without_shape() attributes {fmha.tensors = {a = {dtype = "bf16", role = "input"}}} {
  return
}

// -----

// expected-error @+1 {{'fmha.tensors': tensor 'a' dtype must be one of bf16, f16, f32, f8e4m3, f8e5m2, i32}}
func.func @tensor_dtype() attributes {fmha.tensors = {a = {shape = ["M"], dtype = "i8", role = "input"}}} {
  return
}

// -----

// expected-error @+1 {{'fmha.tensors': tensor 'a' role must be one of input, output, scratch, zeroed}}
func.func @tensor_role() attributes {fmha.tensors = {a = {shape = ["M"], dtype = "f32", role = "inout"}}} {
  return
}

// -----

// A scratch tensor's sizes are expressions; a caller's tensor's are not.
// expected-error @+1 {{'fmha.tensors': tensor 'a' must be {shape = [sizes or symbols], dtype, role}}}
func.func @tensor_expression_shape() attributes {fmha.tensors = {a = {shape = [{ceildiv = ["M", 2]}], dtype = "f32", role = "input"}}} {
  return
}

// -----

// expected-error @+1 {{'fmha.tensors': tensor 'w' shape must be an integer, a symbol or {ceildiv | mul | min = [x, y]}}}
func.func @scratch_shape() attributes {fmha.tensors = {w = {shape = [{max = ["M", 2]}], dtype = "f32", role = "scratch"}}} {
  return
}

// -----

// expected-error @+1 {{'fmha.params': the parameters must be an array, got {}}}
func.func @params_not_an_array() attributes {fmha.params = {}} {
  return
}

// -----

// expected-error @+1 {{'fmha.params': parameter #0 must be a dictionary, got 1 : i64}}
func.func @param_not_a_dictionary() attributes {fmha.params = [1]} {
  return
}

// -----

// expected-error @+1 {{'fmha.params': parameter #0 kind must be one of tensor_map, scalar, pointer, memref}}
func.func @param_kind() attributes {fmha.params = [{kind = "texture"}]} {
  return
}

// -----

// expected-error @+1 {{'fmha.params': parameter #0 dtype must be one of i32, i64, f32}}
func.func @scalar_dtype() attributes {fmha.params = [{kind = "scalar", dtype = "i8", value = 1}]} {
  return
}

// -----

// expected-error @+1 {{'fmha.params': parameter #0 must be a scalar with a value}}
func.func @scalar_without_value() attributes {fmha.params = [{kind = "scalar", dtype = "i32"}]} {
  return
}

// -----

// expected-error @+1 {{'fmha.params': parameter #0 must be a memref naming its tensor}}
func.func @memref_without_tensor() attributes {fmha.params = [{kind = "memref"}]} {
  return
}

// -----

// expected-error @+1 {{'fmha.params': parameter #0 must be a memref whose 'strided' is a boolean, got {kind = "memref", strided = 1 : i64, tensor = "a"}}}
func.func @memref_strided_not_a_bool() attributes {fmha.params = [{kind = "memref", tensor = "a", strided = 1}]} {
  return
}

// -----

// expected-error @+1 {{'fmha.params': parameter #0 must be a tensor_map with a box of integers and a swizzle of 0, 32, 64 or 128}}
func.func @tensor_map_swizzle() attributes {fmha.params = [{kind = "tensor_map", tensor = "a", box = [64, 64], swizzle = 16}]} {
  return
}

// -----

// A tensor map's dims: a permutation of the tensor's dimensions.
// expected-error @+1 {{'fmha.params': parameter #0 dims must be a permutation of the tensor's dimensions, got [1, 1, 2]}}
func.func @tensor_map_dims() attributes {fmha.params = [{kind = "tensor_map", tensor = "a", box = [64, 64], swizzle = 128, dims = [1, 1, 2]}]} {
  return
}

// -----

// expected-error @+1 {{'fmha.params': parameter #0 dims must be a permutation of the tensor's dimensions, got "all"}}
func.func @tensor_map_dims_not_an_array() attributes {fmha.params = [{kind = "tensor_map", tensor = "a", box = [64, 64], swizzle = 128, dims = "all"}]} {
  return
}

// -----

// The caller's sizes: an array of symbols.
// expected-error @+1 {{'fmha.sizes': the caller's sizes must be an array of symbols, got ["B", 4]}}
func.func @sizes_not_symbols() attributes {fmha.sizes = ["B", 4]} {
  return
}

// -----

// expected-error @+1 {{'fmha.grid': the grid must be an array of three expressions, got [1, 1]}}
func.func @grid_rank() attributes {fmha.grid = [1, 1]} {
  return
}

// -----

// expected-error @+1 {{'fmha.grid': a grid size must be an integer, a symbol or {ceildiv | mul | min = [x, y]}, got {max = [1, 2]}}}
func.func @grid_expression() attributes {fmha.grid = [{max = [1, 2]}, 1, 1]} {
  return
}

// -----

// In range and in form.
func.func @valid() attributes {fmha.stages = 8 : i64, fmha.item_slots = 2 : i64, fmha.tensors = {a = {shape = ["M", 64], dtype = "bf16", role = "input"}}, fmha.params = [{kind = "tensor_map", tensor = "a", box = [64, 64], swizzle = 128}, {kind = "scalar", dtype = "i32", value = {ceildiv = ["M", 64]}}, {kind = "memref", tensor = "a"}, {kind = "memref", tensor = "a", strided = true}], fmha.grid = [{min = ["num_sms", {mul = ["M", 2]}]}, 1, 1]} {
  return
}

// A varlen kernel's: i32 tensors, tensor maps over permuted dimensions and
// the caller's sizes.
func.func @valid_varlen() attributes {fmha.tensors = {q = {shape = ["TQ", 8, 128], dtype = "bf16", role = "input"}, cu = {shape = ["B1"], dtype = "i32", role = "input"}}, fmha.params = [{kind = "tensor_map", tensor = "q", box = [64, 64], swizzle = 128, dims = [1, 0, 2]}, {kind = "memref", tensor = "cu"}, {kind = "scalar", dtype = "i32", value = "MAXQ"}], fmha.sizes = ["B", "MAXQ"], fmha.grid = [{ceildiv = ["MAXQ", 128]}, 8, "B"]} {
  return
}

// -----

// expected-error @+1 {{'func.func' op may not hold 'fmha.launches': it sits on a gpu.module of several kernels}}
func.func @launches_on_a_function() attributes {fmha.launches = [@launches_on_a_function]} {
  return
}

// -----

// expected-error @+1 {{'fmha.launches' must be a non-empty array of kernel symbols, got []}}
gpu.module @no_launches attributes {fmha.launches = []} {
}

// -----

// expected-error @+1 {{'fmha.launches' names @missing, which is not a function of the gpu.module}}
gpu.module @missing_launch attributes {fmha.launches = [@missing]} {
}

// -----

// expected-error @+1 {{'fmha.launches' names @k twice}}
gpu.module @twice attributes {fmha.launches = [@k, @k]} {
  gpu.func @k() kernel {
    gpu.return
  }
}
