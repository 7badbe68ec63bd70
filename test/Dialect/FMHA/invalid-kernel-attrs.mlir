// RUN: fmha-opt %s -split-input-file -verify-diagnostics

// The kernel attributes fmha-expand-kernels sets (KernelAttrs.h), verified
// by the fmha dialect wherever they appear: one case per rule.

// expected-error @+1 {{'fmha.stages' (pipeline stages) must be an integer from 1 to 8, got 0}}
func.func @stages_zero() attributes {fmha.stages = 0 : i64} {
  return
}

// -----

// expected-error @+1 {{'fmha.stages' (pipeline stages) must be an integer from 1 to 8, got "many"}}
func.func @stages_not_a_number() attributes {fmha.stages = "many"} {
  return
}

// -----

// expected-error @+1 {{'fmha.item_slots' (slots of the per-item ring) must be an integer from 1 to 2, got 3}}
func.func @item_slots() attributes {fmha.item_slots = 3 : i64} {
  return
}

// -----

// expected-error @+1 {{'fmha.manifest' must be a string (JSON), got 1 : i64}}
func.func @manifest() attributes {fmha.manifest = 1 : i64} {
  return
}

// -----

// In range.
func.func @valid() attributes {fmha.stages = 8 : i64, fmha.item_slots = 2 : i64, fmha.manifest = "{}"} {
  return
}
