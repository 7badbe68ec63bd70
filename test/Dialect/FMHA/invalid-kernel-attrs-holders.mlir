// RUN: fmha-opt %s -split-input-file -verify-diagnostics

// The fmha dialect's discardable attributes (FMHADialect.td) are its own
// and sit on kernels (functions); their values: invalid-kernel-attrs.mlir.

// expected-error @+1 {{'func.func' op has 'fmha.stage', which is not an attribute of the fmha dialect}}
func.func @unknown() attributes {fmha.stage = 2 : i64} {
  return
}

// -----

func.func @stages_on_op() {
  // expected-error @+1 {{'arith.constant' op may not hold 'fmha.stages': it sits on a kernel (a function)}}
  %c0 = arith.constant {fmha.stages = 2 : i64} 0 : i32
  return
}
