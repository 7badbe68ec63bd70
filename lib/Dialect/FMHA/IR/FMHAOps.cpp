//===- FMHAOps.cpp - Ops of the fmha dialect ------------------------------===//
//
// Part of fmha. Verifiers and helpers of the fmha ops.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/FMHA/IR/FMHADialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::fmha;

#define GET_OP_CLASSES
#include "fmha/Dialect/FMHA/IR/FMHAOps.cpp.inc"
