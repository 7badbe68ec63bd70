//===- WSTypes.cpp - The ws dialect's types -------------------------------===//
//
// Part of fmha. The ws dialect's types: channels and mbarrier arrays.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::ws;

#define GET_TYPEDEF_CLASSES
#include "fmha/Dialect/WS/IR/WSTypes.cpp.inc"

void WSDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "fmha/Dialect/WS/IR/WSTypes.cpp.inc"
      >();
}

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
