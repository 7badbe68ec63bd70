//===- FMHADialect.cpp - The fmha dialect ---------------------------------===//
//
// Part of fmha. Registers the fmha dialect's attributes and ops.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/FMHA/IR/FMHADialect.h"
#include "fmha/Dialect/FMHA/IR/FMHAServingOps.h"
#include "fmha/Target/KernelAttrs.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
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
  addOperations<
#define GET_OP_LIST
#include "fmha/Dialect/FMHA/IR/FMHAServingOps.cpp.inc"
      >();
}

/// Checks a discardable attribute of the dialect (FMHADialect.td): a
/// known one, on a function, with a value in range (verifyKernelAttr) or of
/// the form of the launch contract (verifyLaunchAttr).
LogicalResult FMHADialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (!llvm::is_contained(
          {StagesAttrHelper::getNameStr(), ItemSlotsAttrHelper::getNameStr(),
           ConsumerRegistersAttrHelper::getNameStr(),
           TensorsAttrHelper::getNameStr(), ParamsAttrHelper::getNameStr(),
           GridAttrHelper::getNameStr(), SizesAttrHelper::getNameStr()},
          name))
    return op->emitOpError("has '")
           << name << "', which is not an attribute of the fmha dialect";
  if (!isa<FunctionOpInterface>(op))
    return op->emitOpError("may not hold '")
           << name << "': it sits on a kernel (a function)";
  auto emitError = [&] { return op->emitError(); };
  if (failed(verifyKernelAttr(attr, emitError)))
    return failure();
  return verifyLaunchAttr(attr, emitError);
}
