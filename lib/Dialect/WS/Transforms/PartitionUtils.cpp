//===- PartitionUtils.cpp - Building blocks of role partitioning ----------===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#include "PartitionUtils.h"

#include "fmha/Dialect/WS/IR/WSUtils.h"
#include "fmha/Target/KernelAttrs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::ws;

void ws::produceLoads(OpBuilder &b, Value channel,
                      MutableArrayRef<tile::LoadOp> loads,
                      function_ref<bool(tile::LoadOp)> multicast) {
  b.setInsertionPoint(loads.front());
  auto acquire = ProducerAcquireOp::create(b, loads.front().getLoc(), channel);
  int64_t bytes = 0;
  for (auto [load, buffer] : llvm::zip(loads, acquire.getBuffers())) {
    b.setInsertionPoint(load);
    TMALoadOp::create(b, load.getLoc(), load.getDesc(), load.getCoords(),
                      buffer, acquire.getToken(), multicast && multicast(load));
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

bool ws::isZeroConstant(Value value) {
  auto constant = value.getDefiningOp<arith::ConstantOp>();
  auto dense = constant ? dyn_cast<DenseElementsAttr>(constant.getValue())
                        : DenseElementsAttr();
  return dense && dense.isSplat() &&
         matchPattern(constant.getResult(), m_AnyZeroFloat());
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

MemRefType ws::sharedBufferFor(RankedTensorType type) {
  return MemRefType::get(
      type.getShape(), type.getElementType(), MemRefLayoutAttrInterface(),
      IntegerAttr::get(IntegerType::get(type.getContext(), 64),
                       kSharedAddressSpace));
}

SmallVector<MemRefType> ws::sharedBuffersFor(ArrayRef<tile::LoadOp> loads) {
  SmallVector<MemRefType> buffers;
  for (tile::LoadOp load : loads)
    buffers.push_back(sharedBufferFor(load.getType()));
  return buffers;
}

LogicalResult ws::verifyPartitionOptions(FunctionOpInterface func,
                                         StringRef pass, unsigned optionStages,
                                         unsigned producerRegs,
                                         unsigned consumerRegs) {
  for (auto [name, regs] : {std::pair<StringRef, unsigned>{"producer-regs",
                                                           producerRegs},
                            {"consumer-regs", consumerRegs}})
    if (regs != 0 && !isValidRegisterBudget(regs))
      return func->emitError()
             << pass << ": option '" << name << "' must be a multiple of "
             << kRegisterBudgetStep << " from " << kMinRegisterBudget << " to "
             << kMaxRegisterBudget << " (setmaxnreg), got " << regs;
  for (StringRef name : {fmha::kStagesAttrName, fmha::kItemSlotsAttrName,
                         fmha::kConsumerRegistersAttrName})
    if (Attribute value = func->getAttr(name))
      if (failed(fmha::verifyKernelAttr(
              NamedAttribute(StringAttr::get(func->getContext(), name), value),
              [&] { return func->emitError(); })))
        return failure();
  if (!func->hasAttr(fmha::kStagesAttrName) &&
      (optionStages < 1 || optionStages > fmha::limits::kMaxStages))
    return func->emitError()
           << pass << ": option 'stages' must be from 1 to "
           << fmha::limits::kMaxStages << ", got " << optionStages;
  return success();
}

int64_t ws::consumerRegistersOf(FunctionOpInterface func) {
  if (auto attr =
          func->getAttrOfType<IntegerAttr>(fmha::kConsumerRegistersAttrName))
    return attr.getInt();
  return 0;
}

unsigned ws::stagesOf(FunctionOpInterface func, unsigned fallback) {
  if (auto attr = func->getAttrOfType<IntegerAttr>(fmha::kStagesAttrName))
    return attr.getInt();
  return fallback;
}

void ws::walkBackward(
    ArrayRef<Value> roots,
    function_ref<void(Value, SmallVectorImpl<Value> &)> visit) {
  SmallVector<Value> worklist(roots.begin(), roots.end());
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (seen.insert(v).second)
      visit(v, worklist);
  }
}

unsigned ws::itemSlotsOf(FunctionOpInterface func) {
  if (auto attr = func->getAttrOfType<IntegerAttr>(fmha::kItemSlotsAttrName))
    return attr.getInt();
  return 1;
}

Value ws::allocStaging(OpBuilder &b, tile::StoreOp store) {
  return BufferAllocOp::create(b, store.getLoc(),
                               sharedBufferFor(store.getValue().getType()),
                               IntegerAttr());
}

RolePartition::RolePartition(FunctionOpInterface func)
    : body(func.getFunctionBody().front()), builder(func.getContext()),
      loc(func.getLoc()) {
  for (Operation &op : body.without_terminator())
    program.push_back(&op);
  builder.setInsertionPointToStart(&body);
}

WarpSpecializeOp RolePartition::createKernel() {
  builder.setInsertionPoint(body.getTerminator());
  auto kernel = WarpSpecializeOp::create(builder, loc);
  kernelBody = builder.createBlock(&kernel.getBody());
  return kernel;
}

RoleCopy RolePartition::addRole(StringRef name, int64_t warps, int64_t regs) {
  assert(kernelBody && "createKernel comes first");
  RoleCopy copy;
  builder.setInsertionPointToEnd(kernelBody);
  copy.role = RoleOp::create(
      builder, loc, builder.getStringAttr(name),
      builder.getI32IntegerAttr(warps),
      regs ? builder.getI32IntegerAttr(regs) : IntegerAttr(), IntegerAttr());
  builder.setInsertionPointToStart(builder.createBlock(&copy.role.getBody()));
  for (Operation *op : program)
    builder.clone(*op, copy.map);
  return copy;
}

void RolePartition::eraseProgram(bool eraseUnusedConstants) {
  for (Operation *op : llvm::reverse(program))
    op->erase();
  if (!eraseUnusedConstants)
    return;
  for (Operation &op : llvm::make_early_inc_range(body))
    if (isa<arith::ConstantOp>(op) && op.use_empty())
      op.erase();
}

Operation *ws::lastTensorMemoryRead(Value buffer, Block *block) {
  Operation *last = nullptr;
  SmallVector<Value> worklist{buffer};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isa<memref::SubViewOp, AsTensorOp>(user)) {
        worklist.push_back(user->getResult(0));
        continue;
      }
      if (!isa<tile::ConvertLayoutOp>(user))
        continue;
      Operation *op = block->findAncestorOpInBlock(*user);
      if (op && (!last || last->isBeforeInBlock(op)))
        last = op;
    }
  }
  return last;
}
