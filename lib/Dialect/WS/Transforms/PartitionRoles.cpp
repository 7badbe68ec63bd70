//===- PartitionRoles.cpp - Tile programs to warp roles -------------------===//
//
// Part of fmha. Implements ws-partition-roles.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace ws {
#define GEN_PASS_DEF_WSPARTITIONROLES
#include "fmha/Dialect/WS/Transforms/Passes.h.inc"
} // namespace ws
} // namespace mlir

using namespace mlir;
using namespace mlir::ws;

/// Warps of a producer role: one warp issues all TMA copies.
static constexpr int64_t kProducerWarps = 1;

namespace {

/// What the partitioning found in one tile program.
struct TileProgram {
  scf::ForOp loop;
  SmallVector<tile::LoadOp> loads;
  /// Loop-carried positions that are dot accumulators, one per consumer.
  SmallVector<unsigned> chains;
  SmallVector<tile::StoreOp> stores;
};

} // namespace

/// The loop-carried position a value comes from: a loop iteration argument,
/// or a loop result seen through elementwise ops.
static std::optional<unsigned> chainOf(Value value, scf::ForOp loop) {
  while (true) {
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner() == loop.getBody() && arg.getArgNumber() >= 1)
        return arg.getArgNumber() - 1;
      return std::nullopt;
    }
    Operation *def = value.getDefiningOp();
    if (def == loop.getOperation())
      return cast<OpResult>(value).getResultNumber();
    if (!def || !def->hasTrait<OpTrait::Elementwise>() ||
        def->getNumOperands() != 1)
      return std::nullopt;
    value = def->getOperand(0);
  }
}

static FailureOr<TileProgram> analyze(FunctionOpInterface func) {
  TileProgram program;
  func->walk([&](tile::LoadOp load) { program.loads.push_back(load); });
  func->walk([&](tile::StoreOp store) { program.stores.push_back(store); });
  if (program.loads.empty())
    return program;
  program.loop = dyn_cast<scf::ForOp>(program.loads.front()->getParentOp());
  for (tile::LoadOp load : program.loads)
    if (!program.loop || load->getParentOp() != program.loop)
      return load.emitOpError(
          "ws-partition-roles handles tile programs whose loads all sit "
          "directly in one scf.for");
  for (BlockArgument arg : program.loop.getRegionIterArgs())
    if (llvm::any_of(arg.getUsers(), [&](Operation *user) {
          auto dot = dyn_cast<tile::DotOp>(user);
          return dot && dot.getAcc() == arg;
        }))
      program.chains.push_back(arg.getArgNumber() - 1);
  if (program.chains.empty())
    return program.loop.emitOpError(
        "carries no tile.dot accumulator: nothing for consumer roles to do");
  for (tile::StoreOp store : program.stores)
    if (!chainOf(store.getValue(), program.loop))
      return store.emitOpError("stores a value that does not come from an "
                               "accumulator of the main loop");
  return program;
}

/// Drops what a role does not need: dead ops and unused loop values.
static void cleanUp(RoleOp role) {
  RewritePatternSet patterns(role.getContext());
  scf::ForOp::getCanonicalizationPatterns(patterns, role.getContext());
  (void)applyPatternsGreedily(role, std::move(patterns));
}

/// Replaces the dots of other chains by their accumulators, so they die.
static void dropDots(scf::ForOp loop, std::optional<unsigned> keep) {
  SmallVector<tile::DotOp> dots(loop.getBody()->getOps<tile::DotOp>());
  for (tile::DotOp dot : dots) {
    if (keep && chainOf(dot.getAcc(), loop) == keep)
      continue;
    dot.getResult().replaceAllUsesWith(dot.getAcc());
    dot.erase();
  }
}

/// The producer: acquire a slot, TMA every load of the iteration into it,
/// commit it with the bytes delivered.
static void buildProducer(OpBuilder &b, Value channel, scf::ForOp loop,
                          MutableArrayRef<tile::LoadOp> loads,
                          MutableArrayRef<tile::StoreOp> stores) {
  for (tile::StoreOp store : stores)
    store.erase();
  dropDots(loop, std::nullopt);
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

/// A consumer of chain `chain`: wait for each slot, read the operands in
/// place, run its dots, release the slot; store its result through the
/// staging buffer.
static void buildConsumer(OpBuilder &b, Value channel, scf::ForOp loop,
                          MutableArrayRef<tile::LoadOp> loads,
                          MutableArrayRef<tile::StoreOp> stores,
                          ArrayRef<Value> staging, unsigned chain,
                          unsigned barrierId, int64_t threads) {
  b.setInsertionPoint(loads.front());
  auto wait = ConsumerWaitOp::create(b, loads.front().getLoc(), channel);
  for (auto [load, buffer] : llvm::zip(loads, wait.getBuffers())) {
    b.setInsertionPoint(load);
    Value tensor = AsTensorOp::create(b, load.getLoc(), load.getType(), buffer);
    load.getResult().replaceAllUsesWith(tensor);
  }
  for (tile::LoadOp load : loads)
    load.erase();
  dropDots(loop, chain);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  ConsumerReleaseOp::create(b, loop.getLoc(), channel, wait.getToken(),
                            AsyncUnit::WGMMA);

  for (auto [store, buffer] : llvm::zip(stores, staging)) {
    if (chainOf(store.getValue(), loop) != chain) {
      store.erase();
      continue;
    }
    // The previous tile's TMA store must have read the staging buffer
    // before it is written again; the role waits for its last store at its
    // end, so the store of one tile overlaps the next tile's main loop.
    Location loc = store.getLoc();
    b.setInsertionPoint(store);
    TMAStoreWaitOp::create(b, loc);
    BarrierSyncOp::create(b, loc, barrierId, threads);
    StoreSharedOp::create(b, loc, store.getValue(), buffer);
    FenceAsyncSharedOp::create(b, loc);
    BarrierSyncOp::create(b, loc, barrierId, threads);
    TMAStoreOp::create(b, loc, store.getDesc(), store.getCoords(), buffer);
    store.erase();
  }
}

namespace {
struct WSPartitionRolesPass
    : public ws::impl::WSPartitionRolesBase<WSPartitionRolesPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([&](FunctionOpInterface func) {
      if (failed(partition(func)))
        signalPassFailure();
    });
  }

  LogicalResult partition(FunctionOpInterface func) {
    if (func.isExternal())
      return success();
    FailureOr<TileProgram> program = analyze(func);
    if (failed(program))
      return failure();
    if (program->loads.empty())
      return success();
    MLIRContext *ctx = func.getContext();
    Block &body = func.getFunctionBody().front();
    Operation *terminator = body.getTerminator();
    SmallVector<Operation *> original;
    for (Operation &op : body.without_terminator())
      original.push_back(&op);

    OpBuilder b(ctx);
    b.setInsertionPointToStart(&body);
    Location loc = func.getLoc();
    Attribute shared = b.getI64IntegerAttr(kSharedAddressSpace);
    SmallVector<MemRefType> buffers;
    for (tile::LoadOp load : program->loads)
      buffers.push_back(MemRefType::get(load.getType().getShape(),
                                        load.getType().getElementType(),
                                        MemRefLayoutAttrInterface(), shared));
    unsigned numStages = stages;
    if (auto attr = func->getAttrOfType<IntegerAttr>("fmha.stages"))
      numStages = attr.getInt();
    Value channel =
        ChannelOp::create(b, loc, ChannelType::get(ctx, buffers, numStages));
    SmallVector<Value> staging;
    for (tile::StoreOp store : program->stores) {
      RankedTensorType value = store.getValue().getType();
      staging.push_back(BufferAllocOp::create(
          b, store.getLoc(),
          MemRefType::get(value.getShape(), value.getElementType(),
                          MemRefLayoutAttrInterface(), shared),
          IntegerAttr()));
    }

    b.setInsertionPoint(terminator);
    auto ws = WarpSpecializeOp::create(b, loc);
    Block *wsBody = b.createBlock(&ws.getBody());
    auto addRole = [&](StringRef name, int64_t warps, int64_t regs) {
      b.setInsertionPointToEnd(wsBody);
      auto role = RoleOp::create(b, loc, b.getStringAttr(name),
                                 b.getI32IntegerAttr(warps),
                                 b.getI32IntegerAttr(regs), IntegerAttr());
      Block *block = b.createBlock(&role.getBody());
      b.setInsertionPointToStart(block);
      IRMapping map;
      for (Operation *op : original)
        b.clone(*op, map);
      auto lookup = [&](auto op) {
        return cast<decltype(op)>(map.lookup(op.getOperation()));
      };
      auto loop = lookup(program->loop);
      SmallVector<tile::LoadOp> loads;
      for (tile::LoadOp load : program->loads)
        loads.push_back(lookup(load));
      SmallVector<tile::StoreOp> stores;
      for (tile::StoreOp store : program->stores)
        stores.push_back(lookup(store));
      return std::make_tuple(role, loop, loads, stores);
    };

    {
      auto [role, loop, loads, stores] =
          addRole("producer", kProducerWarps, producerRegs);
      buildProducer(b, channel, loop, loads, stores);
      cleanUp(role);
    }
    for (auto [i, chain] : llvm::enumerate(program->chains)) {
      auto [role, loop, loads, stores] =
          addRole(("consumer" + Twine(i)).str(), kWarpsPerGroup, consumerRegs);
      buildConsumer(b, channel, loop, loads, stores, staging, chain,
                    /*barrierId=*/1 + i, kWarpsPerGroup * kThreadsPerWarp);
      if (!program->stores.empty()) {
        b.setInsertionPointToEnd(&role.getBody().front());
        TMAStoreWaitOp::create(b, loc);
      }
      cleanUp(role);
    }
    for (Operation *op : llvm::reverse(original))
      op->erase();
    return success();
  }
};
} // namespace
