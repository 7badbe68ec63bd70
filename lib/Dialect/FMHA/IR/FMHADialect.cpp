//===- FMHADialect.cpp - The fmha dialect ---------------------------------===//
//
// Part of fmha. Registers the fmha dialect's attributes and ops.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/FMHA/IR/FMHADialect.h"
#include "fmha/Dialect/FMHA/IR/FMHAServingOps.h"
#include "fmha/Target/KernelAttrs.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseSet.h"
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

/// Checks `fmha.launches`: on a gpu.module, a non-empty array of symbols,
/// each a function (kernel) of the module, none twice.
static LogicalResult verifyLaunches(Operation *op, Attribute value) {
  auto module = dyn_cast<gpu::GPUModuleOp>(op);
  if (!module)
    return op->emitOpError("may not hold 'fmha.launches': it sits on a "
                           "gpu.module of several kernels");
  auto launches = dyn_cast<ArrayAttr>(value);
  if (!launches || launches.empty() ||
      !llvm::all_of(launches, llvm::IsaPred<FlatSymbolRefAttr>))
    return op->emitOpError("'fmha.launches' must be a non-empty array of "
                           "kernel symbols, got ")
           << value;
  llvm::SmallDenseSet<Attribute> seen;
  for (Attribute launch : launches) {
    auto name = cast<FlatSymbolRefAttr>(launch);
    // A gpu.func kernel, or the function it was lowered to.
    if (!isa_and_nonnull<FunctionOpInterface>(
            module.lookupSymbol(name.getAttr())))
      return op->emitOpError("'fmha.launches' names ")
             << name << ", which is not a function of the gpu.module";
    if (!seen.insert(launch).second)
      return op->emitOpError("'fmha.launches' names ") << name << " twice";
  }
  return success();
}

/// Checks a discardable attribute of the dialect (FMHADialect.td): a
/// known one, on a function, with a value in range (verifyKernelAttr) or of
/// the form of the launch contract (verifyLaunchAttr); `fmha.launches` on
/// a gpu.module (verifyLaunches).
LogicalResult FMHADialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == LaunchesAttrHelper::getNameStr())
    return verifyLaunches(op, attr.getValue());
  if (!llvm::is_contained(
          {StagesAttrHelper::getNameStr(), ItemSlotsAttrHelper::getNameStr(),
           ConsumerRegistersAttrHelper::getNameStr(),
           DescriptorsAtUseAttrHelper::getNameStr(),
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
