//===- WSDialect.cpp - The ws dialect ---------------------------------===//
//
// Part of fmha. Registers the ws dialect's attributes, types and ops.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/WS/IR/WSDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::ws;

#include "fmha/Dialect/WS/IR/WSDialect.cpp.inc"
#include "fmha/Dialect/WS/IR/WSEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "fmha/Dialect/WS/IR/WSAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "fmha/Dialect/WS/IR/WSTypes.cpp.inc"

void WSDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fmha/Dialect/WS/IR/WSAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "fmha/Dialect/WS/IR/WSTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "fmha/Dialect/WS/IR/WSOps.cpp.inc"
      >();
}
