//===- WSOps.cpp - Ops of the ws dialect ------------------------------===//
//
// Part of fmha. Verifiers and helpers of the ws ops.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/WS/IR/WSDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::ws;

#define GET_OP_CLASSES
#include "fmha/Dialect/WS/IR/WSOps.cpp.inc"
