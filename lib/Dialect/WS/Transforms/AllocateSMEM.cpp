//===- AllocateSMEM.cpp - Static shared-memory offsets -------------------===//
//
// Part of fmha. Implements ws-allocate-smem.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"
#include "fmha/Dialect/WS/Transforms/Passes.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace ws {
#define GEN_PASS_DEF_WSALLOCATESMEM
#include "fmha/Dialect/WS/Transforms/Passes.h.inc"
} // namespace ws
} // namespace mlir

using namespace mlir;
using namespace mlir::ws;

/// Buffers start on 1024-byte boundaries: 128-byte swizzling repeats every
/// 1024 bytes and TMA and wgmma address it from such a boundary.
static constexpr int64_t kBufferAlignment = 1024;
static constexpr int64_t kMBarrierBytes = 8;

namespace {
struct WSAllocateSMEMPass
    : public ws::impl::WSAllocateSMEMBase<WSAllocateSMEMPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([&](FunctionOpInterface func) {
      if (failed(allocate(func)))
        signalPassFailure();
    });
  }

  LogicalResult allocate(FunctionOpInterface func) {
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

    // Offsets written by hand stay; the rest go after them.
    int64_t end = 0;
    for (BufferAllocOp buffer : buffers)
      if (std::optional<int64_t> offset = buffer.getOffset())
        end = std::max(end, *offset + getMemRefBytes(buffer.getType()));
    for (MBarrierAllocOp barrier : barriers)
      if (std::optional<int64_t> offset = barrier.getOffset())
        end = std::max(end,
                       *offset + kMBarrierBytes * barrier.getType().getCount());

    Builder b(func->getContext());
    int64_t bufferBytes = 0;
    for (BufferAllocOp buffer : buffers) {
      if (buffer.getOffset())
        continue;
      end = llvm::alignTo(end, kBufferAlignment);
      buffer.setOffsetAttr(b.getI64IntegerAttr(end));
      bufferBytes += getMemRefBytes(buffer.getType());
      end += getMemRefBytes(buffer.getType());
    }
    for (MBarrierAllocOp barrier : barriers) {
      if (barrier.getOffset())
        continue;
      end = llvm::alignTo(end, kMBarrierBytes);
      barrier.setOffsetAttr(b.getI64IntegerAttr(end));
      end += kMBarrierBytes * barrier.getType().getCount();
    }
    if (end > maxBytes)
      return func->emitError("kernel needs ")
             << end << " bytes of shared memory (" << bufferBytes
             << " in buffers), but a CTA can have at most "
             << int64_t(maxBytes);
    func->setAttr("ws.smem_bytes", b.getI64IntegerAttr(end));
    return success();
  }
};
} // namespace
