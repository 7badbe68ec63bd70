//===- FMHADialect.cpp - The fmha dialect ---------------------------------===//
//
// Part of fmha. Registers the fmha dialect's attributes and ops.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/FMHA/IR/FMHADialect.h"
#include "fmha/Target/KernelAttrs.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fmha;

#include "fmha/Dialect/FMHA/IR/FMHADialect.cpp.inc"
#include "fmha/Dialect/FMHA/IR/FMHAEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "fmha/Dialect/FMHA/IR/FMHAAttrs.cpp.inc"

void FMHADialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fmha/Dialect/FMHA/IR/FMHAAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "fmha/Dialect/FMHA/IR/FMHAOps.cpp.inc"
      >();
}

LogicalResult FMHADialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  return verifyKernelAttr(attr, [&] { return op->emitError(); });
}
