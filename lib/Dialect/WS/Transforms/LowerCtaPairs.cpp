//===- LowerCtaPairs.cpp - Barriers and marks of 2-CTA kernels -----------===//
//
// Part of fmha. Implements ws-lower-cta-pairs.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"
#include "fmha/Dialect/WS/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir {
namespace ws {
#define GEN_PASS_DEF_WSLOWERCTAPAIRS
#include "fmha/Dialect/WS/Transforms/Passes.h.inc"
} // namespace ws
} // namespace mlir

using namespace mlir;
using namespace mlir::ws;

/// Appends the ops that use the barrier array `barriers` to `users`, looking
/// through the arith.selects by which ws-lower-roles picks the barriers of
/// each replica of a merged role.
static void collectBarrierUsers(Value barriers,
                                SmallVectorImpl<Operation *> &users) {
  for (Operation *user : barriers.getUsers()) {
    auto select = dyn_cast<arith::SelectOp>(user);
    if (!select) {
      users.push_back(user);
      continue;
    }
    if (select.getCondition() != barriers)
      collectBarrierUsers(select.getResult(), users);
  }
}

/// Places the barriers of the CTA-pair kernel `func` and marks the ops whose
/// lowering changes (kCtaPairAttrName): barriers that threads and TMA copies
/// arrive on live in the pair's even CTA, whose MMA warp alone waits on
/// them, and expect the arrivals of both CTAs; tcgen05 commits reach the
/// barrier in both CTAs; tensor memory is allocated and freed by both.
static LogicalResult lowerCtaPair(FunctionOpInterface func) {
  auto mark = [](Operation *op) {
    op->setAttr(kCtaPairAttrName, UnitAttr::get(op->getContext()));
  };
  WalkResult walk = func->walk([&](MBarrierAllocOp alloc) {
    SmallVector<Operation *> users;
    collectBarrierUsers(alloc.getResult(), users);
    bool byThreads = false, byTCGen05 = false;
    for (Operation *user : users) {
      if (auto arrive = dyn_cast<MBarrierArriveOp>(user)) {
        (arrive.getTcgen05() ? byTCGen05 : byThreads) = true;
        mark(user);
      } else if (isa<TMALoadMBarrierOp>(user)) {
        byThreads = true;
        mark(user);
      }
    }
    if (byThreads && byTCGen05) {
      alloc.emitOpError("is arrived on both by threads and by tcgen05 "
                        "commits: 2-CTA mode cannot place it");
      return WalkResult::interrupt();
    }
    if (byThreads)
      alloc.setArrivals(2 * alloc.getArrivals());
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  func->walk([&](Operation *op) {
    if (isa<TMEMAllocOp, TMEMRelinquishOp, TMEMDeallocOp>(op))
      mark(op);
  });
  func->removeAttr(kCtaPairAttrName);
  return success();
}

/// Rejects, before anything changes, a CTA-pair kernel whose roles are not
/// lowered: ws-lower-roles reads the kernel's kCtaPairAttrName, which this
/// pass removes.
static LogicalResult checkRolesLowered(FunctionOpInterface func) {
  WalkResult walk = func->walk([](WarpSpecializeOp op) {
    op.emitOpError("is not lowered: run ws-lower-roles before "
                   "ws-lower-cta-pairs");
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

namespace {
/// Lowers the CTA pairs of the kernels of every gpu.module.
struct WSLowerCtaPairsPass
    : public ws::impl::WSLowerCtaPairsBase<WSLowerCtaPairsPass> {
  void runOnOperation() override {
    SmallVector<FunctionOpInterface> kernels;
    getOperation()->walk([&](gpu::GPUModuleOp module) {
      module.walk([&](FunctionOpInterface func) {
        if (func->hasAttr(kCtaPairAttrName))
          kernels.push_back(func);
      });
    });
    for (FunctionOpInterface func : kernels)
      if (failed(checkRolesLowered(func)))
        return signalPassFailure();
    for (FunctionOpInterface func : kernels)
      if (failed(lowerCtaPair(func)))
        return signalPassFailure();
  }
};
} // namespace
