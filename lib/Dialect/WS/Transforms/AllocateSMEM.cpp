//===- AllocateSMEM.cpp - Static shared-memory offsets -------------------===//
//
// Part of fmha. Implements ws-allocate-smem.
//
//===----------------------------------------------------------------------===//

#include "PassUtils.h"

#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"
#include "fmha/Dialect/WS/Transforms/Passes.h"
#include "fmha/Target/KernelResources.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir {
namespace ws {
#define GEN_PASS_DEF_WSALLOCATESMEM
#include "fmha/Dialect/WS/Transforms/Passes.h.inc"
} // namespace ws
} // namespace mlir

using namespace mlir;
using namespace mlir::ws;

namespace {
struct WSAllocateSMEMPass
    : PerFunctionPass<WSAllocateSMEMPass, ws::impl::WSAllocateSMEMBase> {
  using PerFunctionPass::PerFunctionPass;

  LogicalResult runOnFunction(FunctionOpInterface func) {
    SmallVector<BufferAllocOp> buffers;
    SmallVector<MBarrierAllocOp> barriers;
    func->walk([&](Operation *op) {
      if (auto buffer = dyn_cast<BufferAllocOp>(op))
        buffers.push_back(buffer);
      else if (auto barrier = dyn_cast<MBarrierAllocOp>(op))
        barriers.push_back(barrier);
    });
    if (buffers.empty() && barriers.empty())
      return success();

    // Offsets written by hand stay; the rest go after them, laid out as the
    // fmha ops' verifiers estimate it (fmha::SharedMemoryAllocator).
    int64_t start = 0;
    for (BufferAllocOp buffer : buffers)
      if (std::optional<int64_t> offset = buffer.getOffset())
        start = std::max(start, *offset + getMemRefBytes(buffer.getType()));
    for (MBarrierAllocOp barrier : barriers)
      if (std::optional<int64_t> offset = barrier.getOffset())
        start = std::max(start, *offset + fmha::limits::kMBarrierBytes *
                                              barrier.getType().getCount());

    Builder b(func->getContext());
    fmha::SharedMemoryAllocator allocator(start);
    int64_t bufferBytes = 0;
    for (BufferAllocOp buffer : buffers) {
      if (buffer.getOffset())
        continue;
      int64_t bytes = getMemRefBytes(buffer.getType());
      buffer.setOffsetAttr(
          b.getI64IntegerAttr(allocator.allocateBuffer(bytes)));
      bufferBytes += bytes;
    }
    for (MBarrierAllocOp barrier : barriers) {
      if (barrier.getOffset())
        continue;
      barrier.setOffsetAttr(b.getI64IntegerAttr(
          allocator.allocateMBarriers(barrier.getType().getCount())));
    }
    int64_t end = allocator.getEnd();
    if (end > maxBytes)
      return func->emitError("kernel needs ")
             << end << " bytes of shared memory (" << bufferBytes
             << " in buffers), but a CTA can have at most "
             << int64_t(maxBytes);
    WSDialect::getLoaded(func->getContext())
        .getSmemBytesAttrHelper()
        .setAttr(func, b.getI64IntegerAttr(end));
    return success();
  }
};
} // namespace
