//===- WSDialect.cpp - The ws dialect ---------------------------------===//
//
// Part of fmha. Registers the ws dialect's attributes, types and ops.
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

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

LogicalResult ChannelType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ArrayRef<MemRefType> buffers,
                                  unsigned stages) {
  if (stages < 1 || stages > 32)
    return emitError() << "a channel needs 1 to 32 stages, got " << stages;
  if (buffers.empty())
    return emitError() << "a channel slot needs at least one buffer";
  bool tmem = ws::isTensorMemory(buffers.front());
  for (MemRefType buffer : buffers) {
    if (!buffer || !buffer.hasStaticShape() || !buffer.getLayout().isIdentity())
      return emitError()
             << "channel buffers must be statically shaped with the identity "
                "layout, got "
             << buffer;
    if (!buffer.getElementType().isIntOrFloat())
      return emitError() << "channel buffers hold integers or floats, got "
                         << buffer;
    // Far more than any shared or tensor memory; keeps byte counts exact.
    if (buffer.getNumElements() > (int64_t(1) << 31))
      return emitError() << "channel buffer " << buffer
                         << " is larger than any on-chip memory";
    if (!isSharedMemory(buffer) && !ws::isTensorMemory(buffer))
      return emitError() << "channel buffers live in shared memory (memory "
                            "space 3) or tensor memory (#ws.tmem), got "
                         << buffer;
    if (ws::isTensorMemory(buffer) != tmem)
      return emitError() << "all buffers of a channel live in the same memory";
  }
  return success();
}

bool ChannelType::isTensorMemory() const {
  return ws::isTensorMemory(getBuffers().front());
}

int64_t ChannelType::getSlotBytes() const {
  int64_t bytes = 0;
  for (MemRefType buffer : getBuffers())
    bytes += getMemRefBytes(buffer);
  return bytes;
}

LogicalResult MBarrierType::verify(function_ref<InFlightDiagnostic()> emitError,
                                   unsigned count) {
  if (count < 1)
    return emitError() << "an mbarrier array holds at least one barrier";
  return success();
}
