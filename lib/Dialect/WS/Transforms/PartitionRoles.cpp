//===- PartitionRoles.cpp - Tile programs to warp roles -------------------===//
//
// Part of fmha. Implements ws-partition-roles.
//
//===----------------------------------------------------------------------===//

#include "PartitionRolesSM100.h"
#include "StageInHeldSlots.h"

#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"

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
  /// Loads of the main loop's body: one slot of the stream channel each
  /// iteration.
  SmallVector<tile::LoadOp> loads;
  /// Loads before the main loop, in its block (attention's Q): one slot of
  /// a prologue channel.
  SmallVector<tile::LoadOp> prologue;
  /// Loop-carried positions that are dot accumulators, one per consumer.
  SmallVector<unsigned> chains;
  SmallVector<tile::StoreOp> stores;
  /// Plain stores from registers (tile.store_direct): they stay where they
  /// are, in the consumer that computes their value, and the chain of that
  /// consumer, one per store.
  SmallVector<tile::StoreDirectOp> directStores;
  SmallVector<unsigned> directOwners;
};

} // namespace

/// The loop-carried positions of `loop` that `value` depends on: loop
/// results reached through its defining ops (within the loop's parent).
static llvm::SmallSetVector<unsigned, 4> positionsOf(Value value,
                                                     scf::ForOp loop) {
  llvm::SmallSetVector<unsigned, 4> positions;
  SmallVector<Value> worklist{value};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    Operation *def = v.getDefiningOp();
    if (!def)
      continue;
    if (def == loop.getOperation()) {
      positions.insert(cast<OpResult>(v).getResultNumber());
      continue;
    }
    if (def->getParentRegion() != loop->getParentRegion())
      continue;
    llvm::append_range(worklist, def->getOperands());
  }
  return positions;
}

/// The loop-carried positions the yielded value at `position` reads: the
/// iteration arguments in its backward slice within the loop body.
static llvm::SmallSetVector<unsigned, 4> bodyPositionsOf(unsigned position,
                                                         scf::ForOp loop) {
  llvm::SmallSetVector<unsigned, 4> positions;
  Block *body = loop.getBody();
  SmallVector<Value> worklist{loop.getYieldedValues()[position]};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == body && arg.getArgNumber() >= 1)
        positions.insert(arg.getArgNumber() - 1);
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!def || !loop->isAncestor(def))
      continue;
    llvm::append_range(worklist, def->getOperands());
    // Values used inside nested regions count too.
    def->walk([&](Operation *nested) {
      if (nested != def)
        llvm::append_range(worklist, nested->getOperands());
    });
  }
  return positions;
}

/// The loop-carried positions that computing position `position` takes:
/// the position itself and, in turn, every position its yielded value reads.
static llvm::SmallSetVector<unsigned, 8> chainPositions(unsigned position,
                                                        scf::ForOp loop) {
  llvm::SmallSetVector<unsigned, 8> positions;
  positions.insert(position);
  for (size_t i = 0; i < positions.size(); ++i) {
    llvm::SmallSetVector<unsigned, 4> reads =
        bodyPositionsOf(positions[i], loop);
    positions.insert(reads.begin(), reads.end());
  }
  return positions;
}

/// The chain whose consumer computes the value of a plain store: the one
/// chain that the loop results the value reads belong to. A result belongs
/// to a chain when the chain's accumulator reads it (the row max it is
/// rescaled by) or it reads the accumulator (a statistic of it); attention's
/// log-sum-exp reads a chain's row max and row sum.
static FailureOr<unsigned> ownerOf(tile::StoreDirectOp store,
                                   const TileProgram &program) {
  scf::ForOp loop = program.loop;
  llvm::SmallSetVector<unsigned, 4> reads = positionsOf(store.getValue(), loop);
  SmallVector<unsigned> owners;
  for (unsigned chain : program.chains) {
    llvm::SmallSetVector<unsigned, 8> computes = chainPositions(chain, loop);
    if (llvm::any_of(reads, [&](unsigned p) {
          return computes.contains(p) ||
                 chainPositions(p, loop).contains(chain);
        }))
      owners.push_back(chain);
  }
  if (owners.empty())
    return store.emitOpError("stores a value that does not come from an "
                             "accumulator of the main loop");
  if (owners.size() > 1)
    return store.emitOpError("stores a value computed from several "
                             "accumulators (loop results ")
           << owners[0] << " and " << owners[1]
           << "): no one consumer role can store it";
  return owners.front();
}

static FailureOr<TileProgram> analyze(FunctionOpInterface func) {
  TileProgram program;
  SmallVector<tile::LoadOp> all;
  func->walk([&](tile::LoadOp load) { all.push_back(load); });
  func->walk([&](tile::StoreOp store) { program.stores.push_back(store); });
  func->walk([&](tile::StoreDirectOp store) {
    program.directStores.push_back(store);
  });
  if (all.empty())
    return program;
  for (tile::LoadOp load : all)
    if (auto loop = dyn_cast<scf::ForOp>(load->getParentOp())) {
      program.loop = loop;
      break;
    }
  for (tile::LoadOp load : all) {
    if (program.loop && load->getParentOp() == program.loop) {
      program.loads.push_back(load);
      continue;
    }
    if (program.loop && load->getBlock() == program.loop->getBlock() &&
        load->isBeforeInBlock(program.loop)) {
      program.prologue.push_back(load);
      continue;
    }
    return load.emitOpError(
        "ws-partition-roles handles tile programs whose loads sit directly "
        "in one scf.for or before it in the same block");
  }
  // A chain is a loop-carried accumulator: a position whose yielded value is
  // a dot accumulating onto (a function of) the position's own value.
  for (unsigned i = 0; i < program.loop.getNumRegionIterArgs(); ++i) {
    auto dot = program.loop.getYieldedValues()[i].getDefiningOp<tile::DotOp>();
    if (dot && dot->getParentOp() == program.loop &&
        bodyPositionsOf(i, program.loop).contains(i))
      program.chains.push_back(i);
  }
  if (program.chains.empty())
    return program.loop.emitOpError(
        "carries no tile.dot accumulator: nothing for consumer roles to do");
  for (tile::StoreOp store : program.stores) {
    llvm::SmallSetVector<unsigned, 4> positions =
        positionsOf(store.getValue(), program.loop);
    if (llvm::none_of(program.chains, [&](unsigned chain) {
          return positions.contains(chain);
        }))
      return store.emitOpError("stores a value that does not come from an "
                               "accumulator of the main loop");
  }
  for (tile::StoreDirectOp store : program.directStores) {
    FailureOr<unsigned> owner = ownerOf(store, program);
    if (failed(owner))
      return failure();
    program.directOwners.push_back(*owner);
  }
  return program;
}

/// Drops what a role does not need: dead ops and unused loop values.
static void cleanUp(RoleOp role) {
  RewritePatternSet patterns(role.getContext());
  scf::ForOp::getCanonicalizationPatterns(patterns, role.getContext());
  (void)applyPatternsGreedily(role, std::move(patterns));
}

/// Keeps only the loop-carried positions in `keep`: the others yield their
/// own iteration argument, so their computations die and canonicalization
/// drops them.
static void keepPositions(scf::ForOp loop,
                          const llvm::SmallSetVector<unsigned, 8> &keep) {
  Operation *yield = loop.getBody()->getTerminator();
  for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
    if (!keep.contains(i))
      yield->setOperand(i, loop.getRegionIterArgs()[i]);
}

/// Replaces `loads` by TMA copies into one slot of `channel`, acquired
/// before the first and committed after the last with their bytes.
static void produce(OpBuilder &b, Value channel,
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

/// Replaces `loads` by in-place reads of one slot of `channel`, waited for
/// before the first; returns the wait's token.
static Value consume(OpBuilder &b, Value channel,
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

/// The producer: the prologue loads into one slot of their channel, then
/// every iteration's loads into a slot of the stream channel. It computes
/// nothing else.
static void buildProducer(OpBuilder &b, Value stream, Value prologueChannel,
                          scf::ForOp loop, MutableArrayRef<tile::LoadOp> loads,
                          MutableArrayRef<tile::LoadOp> prologue,
                          MutableArrayRef<tile::StoreOp> stores,
                          MutableArrayRef<tile::StoreDirectOp> directStores) {
  for (tile::StoreOp store : stores)
    store.erase();
  for (tile::StoreDirectOp store : directStores)
    store.erase();
  keepPositions(loop, {});
  if (!prologue.empty())
    produce(b, prologueChannel, prologue);
  produce(b, stream, loads);
}

/// A consumer of chain `chain`: wait for its prologue operands, then for
/// each slot of the stream, read the operands in place, run its part of the
/// iteration, release the slot; store its results through the staging
/// buffers (TMA stores) or straight from registers (its plain stores).
static void buildConsumer(OpBuilder &b, Value stream, Value prologueChannel,
                          scf::ForOp loop, MutableArrayRef<tile::LoadOp> loads,
                          MutableArrayRef<tile::LoadOp> prologue,
                          MutableArrayRef<tile::StoreOp> stores,
                          ArrayRef<Value> staging,
                          MutableArrayRef<tile::StoreDirectOp> directStores,
                          ArrayRef<unsigned> directOwners, unsigned chain,
                          unsigned barrierId, int64_t threads) {
  // The positions this chain needs: its accumulator, what its stores read,
  // and what those read in the loop.
  llvm::SmallSetVector<unsigned, 8> keep;
  keep.insert(chain);
  // Plain stores stay in place, in their owner's role only.
  for (auto [store, owner] : llvm::zip(directStores, directOwners)) {
    if (owner != chain) {
      store.erase();
      continue;
    }
    llvm::SmallSetVector<unsigned, 4> positions =
        positionsOf(store.getValue(), loop);
    keep.insert(positions.begin(), positions.end());
  }
  SmallVector<tile::StoreOp> mine;
  for (tile::StoreOp store : stores) {
    llvm::SmallSetVector<unsigned, 4> positions =
        positionsOf(store.getValue(), loop);
    if (!positions.contains(chain))
      continue;
    mine.push_back(store);
    keep.insert(positions.begin(), positions.end());
  }
  for (size_t i = 0; i < keep.size(); ++i) {
    llvm::SmallSetVector<unsigned, 4> reads = bodyPositionsOf(keep[i], loop);
    keep.insert(reads.begin(), reads.end());
  }
  keepPositions(loop, keep);

  if (!prologue.empty()) {
    Value token = consume(b, prologueChannel, prologue);
    // Read by the loop's wgmmas, which are complete when it ends.
    b.setInsertionPointAfter(loop);
    ConsumerReleaseOp::create(b, loop.getLoc(), prologueChannel, token,
                              AsyncUnit::Threads);
  }
  Value token = consume(b, stream, loads);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  ConsumerReleaseOp::create(b, loop.getLoc(), stream, token, AsyncUnit::WGMMA);

  for (auto [store, buffer] : llvm::zip(stores, staging)) {
    if (!llvm::is_contained(mine, store)) {
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
    if (target == "sm100")
      return partitionRolesSM100(func, {stages, producerRegs, consumerRegs});
    if (target != "sm90")
      return func.emitError("ws-partition-roles: unknown target '")
             << target << "' (known: sm90, sm100)";
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
    auto buffersOf = [&](ArrayRef<tile::LoadOp> loads) {
      SmallVector<MemRefType> buffers;
      for (tile::LoadOp load : loads)
        buffers.push_back(MemRefType::get(load.getType().getShape(),
                                          load.getType().getElementType(),
                                          MemRefLayoutAttrInterface(), shared));
      return buffers;
    };
    unsigned numStages = stages;
    if (auto attr = func->getAttrOfType<IntegerAttr>("fmha.stages"))
      numStages = attr.getInt();
    Value channel = ChannelOp::create(
        b, loc, ChannelType::get(ctx, buffersOf(program->loads), numStages));
    Value prologueChannel;
    if (!program->prologue.empty())
      prologueChannel = ChannelOp::create(
          b, loc, ChannelType::get(ctx, buffersOf(program->prologue), 1));
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
      SmallVector<tile::LoadOp> loads, prologue;
      for (tile::LoadOp load : program->loads)
        loads.push_back(lookup(load));
      for (tile::LoadOp load : program->prologue)
        prologue.push_back(lookup(load));
      SmallVector<tile::StoreOp> stores;
      for (tile::StoreOp store : program->stores)
        stores.push_back(lookup(store));
      SmallVector<tile::StoreDirectOp> directStores;
      for (tile::StoreDirectOp store : program->directStores)
        directStores.push_back(lookup(store));
      return std::make_tuple(role, loop, loads, prologue, stores, directStores);
    };

    {
      auto [role, loop, loads, prologue, stores, directStores] =
          addRole("producer", kProducerWarps, producerRegs);
      buildProducer(b, channel, prologueChannel, loop, loads, prologue, stores,
                    directStores);
      cleanUp(role);
    }
    for (auto [i, chain] : llvm::enumerate(program->chains)) {
      auto [role, loop, loads, prologue, stores, directStores] =
          addRole(("consumer" + Twine(i)).str(), kWarpsPerGroup, consumerRegs);
      buildConsumer(b, channel, prologueChannel, loop, loads, prologue, stores,
                    staging, directStores, program->directOwners, chain,
                    /*barrierId=*/1 + i, kWarpsPerGroup * kThreadsPerWarp);
      if (!program->stores.empty()) {
        b.setInsertionPointToEnd(&role.getBody().front());
        TMAStoreWaitOp::create(b, loc);
      }
      cleanUp(role);
    }
    // Each consumer stages its results in its prologue buffers (attention's
    // O in its Q tile) when they are dead by then.
    if (prologueChannel)
      stageInHeldSlots(ws, prologueChannel);
    for (Operation *op : llvm::reverse(original))
      op->erase();
    return success();
  }
};
} // namespace
