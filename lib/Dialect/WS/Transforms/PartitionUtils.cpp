//===- PartitionUtils.cpp - Building blocks of role partitioning ----------===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#include "PartitionUtils.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::ws;

void ws::produceLoads(OpBuilder &b, Value channel,
                      MutableArrayRef<tile::LoadOp> loads) {
  b.setInsertionPoint(loads.front());
  auto acquire = ProducerAcquireOp::create(b, loads.front().getLoc(), channel);
  int64_t bytes = 0;
  for (auto [load, buffer] : llvm::zip(loads, acquire.getBuffers())) {
    b.setInsertionPoint(load);
    TMALoadOp::create(b, load.getLoc(), load.getDesc(), load.getCoords(),
                      buffer, acquire.getToken());
    bytes += load.getDesc().getType().getBlockBytes();
  }
  b.setInsertionPointAfter(loads.back());
  ProducerCommitOp::create(b, loads.back().getLoc(), channel,
                           acquire.getToken(), AsyncUnit::TMA,
                           b.getI64IntegerAttr(bytes));
}

Value ws::consumeLoads(OpBuilder &b, Value channel,
                       MutableArrayRef<tile::LoadOp> loads) {
  b.setInsertionPoint(loads.front());
  auto wait = ConsumerWaitOp::create(b, loads.front().getLoc(), channel);
  for (auto [load, buffer] : llvm::zip(loads, wait.getBuffers())) {
    b.setInsertionPoint(load);
    Value tensor = AsTensorOp::create(b, load.getLoc(), load.getType(), buffer);
    load.getResult().replaceAllUsesWith(tensor);
  }
  for (tile::LoadOp load : loads)
    load.erase();
  return wait.getToken();
}

void ws::dropCarried(scf::ForOp loop) {
  Operation *yield = loop.getBody()->getTerminator();
  for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs()))
    yield->setOperand(i, arg);
}

void ws::cleanUpRole(RoleOp role) {
  RewritePatternSet patterns(role.getContext());
  scf::ForOp::getCanonicalizationPatterns(patterns, role.getContext());
  (void)applyPatternsGreedily(role, std::move(patterns));
}
