//===- WSDialect.cpp - The ws dialect ---------------------------------===//
//
// Part of fmha. Registers the ws dialect's attributes, types (WSTypes.cpp)
// and ops.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::ws;

#include "fmha/Dialect/WS/IR/WSDialect.cpp.inc"
#include "fmha/Dialect/WS/IR/WSEnums.cpp.inc"
#include "fmha/Dialect/WS/IR/WSInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "fmha/Dialect/WS/IR/WSAttrs.cpp.inc"

void WSDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fmha/Dialect/WS/IR/WSAttrs.cpp.inc"
      >();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "fmha/Dialect/WS/IR/WSOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

bool ws::isSharedMemory(MemRefType type) {
  Attribute space = type.getMemorySpace();
  if (auto integer = dyn_cast_or_null<IntegerAttr>(space))
    return integer.getInt() == kSharedAddressSpace;
  return gpu::GPUDialect::isWorkgroupMemoryAddressSpace(space);
}

bool ws::isTensorMemory(MemRefType type) {
  return isa_and_nonnull<TensorMemoryAttr>(type.getMemorySpace());
}

int64_t ws::getMemRefBytes(MemRefType type) {
  if (!type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return 0;
  return type.getNumElements() *
         llvm::divideCeil(type.getElementType().getIntOrFloatBitWidth(), 8);
}

ws::TMABoxes ws::getTMABoxes(RankedTensorType block) {
  int64_t elementBytes = block.getElementTypeBitWidth() / 8;
  int64_t rowBytes = block.getShape().back() * elementBytes;
  int64_t span = rowBytes;
  if (auto layout =
          dyn_cast_or_null<tile::NvmmaSharedAttr>(block.getEncoding()))
    if (layout.getSwizzle() > 0 && rowBytes > int64_t(layout.getSwizzle()))
      span = layout.getSwizzle();
  return {span, rowBytes / span,
          block.getNumElements() / block.getShape().back() * span};
}
