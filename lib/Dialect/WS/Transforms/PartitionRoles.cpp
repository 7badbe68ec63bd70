//===- PartitionRoles.cpp - Tile programs to warp roles -------------------===//
//
// Part of fmha. Implements ws-partition-roles.
//
//===----------------------------------------------------------------------===//

#include "PartitionRolesSM100.h"
#include "PartitionUtils.h"
#include "StageInHeldSlots.h"

#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/Transforms/Passes.h"
#include "fmha/Target/TargetInfo.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <map>
#include <set>

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

/// Where a load sits relative to the main loop.
enum class Placement { Before, Loop, After };

/// One channel: loads of one or more descriptors placed alike, one slot per
/// placement (each group fills one slot, in program order).
struct ChannelLoads {
  SmallVector<SmallVector<tile::LoadOp>> groups;
  bool inLoop = false;

  /// Slots of the channel's ring: a channel filled in the main loop streams
  /// through `stages` slots; one filled once per work item of a loop around
  /// the main loop (a persistent kernel's Q tiles) through `itemSlots`, so
  /// that with two the next item's tiles load while this item's last steps
  /// and epilogue run; one filled once per kernel has one.
  unsigned depth(unsigned stages, unsigned itemSlots) const {
    if (inLoop)
      return stages;
    return groups.front().front()->getParentOfType<scf::ForOp>() ? itemSlots
                                                                 : 1;
  }
};

/// What the partitioning found in one tile program.
struct TileProgram {
  scf::ForOp loop;
  /// The channels, in program order of their first load. Loads of one
  /// descriptor share a channel; descriptors loaded in the same places
  /// (GEMM's A and B in the loop) share one too.
  SmallVector<ChannelLoads> channels;
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
  walkBackward(value, [&](Value v, SmallVectorImpl<Value> &next) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return;
    if (def == loop.getOperation()) {
      positions.insert(cast<OpResult>(v).getResultNumber());
      return;
    }
    if (def->getParentRegion() == loop->getParentRegion())
      llvm::append_range(next, def->getOperands());
  });
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

/// The dot that computes `value`, seen through the waits and the
/// elementwise ops (a rescale) applied to its result, or null.
static tile::DotOp producingDot(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto dot = dyn_cast<tile::DotOp>(def))
      return dot;
    if (auto wait = dyn_cast<tile::DotWaitOp>(def)) {
      value = wait.getValues()[cast<OpResult>(value).getResultNumber()];
      continue;
    }
    if (!def->hasTrait<OpTrait::Elementwise>())
      return {};
    auto same = llvm::find_if(def->getOperands(), [&](Value operand) {
      return operand.getType() == value.getType();
    });
    if (same == def->operand_end())
      return {};
    value = *same;
  }
  return {};
}

/// Groups `loads` (in program order, classified by `placements`) into
/// channels.
static FailureOr<SmallVector<ChannelLoads>>
groupChannels(ArrayRef<tile::LoadOp> loads, ArrayRef<Placement> placements) {
  // Per descriptor, its loads in each placement.
  llvm::MapVector<Value, std::map<Placement, SmallVector<tile::LoadOp>>> byDesc;
  for (auto [load, placement] : llvm::zip(loads, placements)) {
    tile::LoadOp op = load;
    byDesc[op.getDesc()][placement].push_back(op);
  }
  // Descriptors loaded in the same places merge.
  using Signature = std::set<Placement>;
  SmallVector<
      std::pair<Signature, std::map<Placement, SmallVector<tile::LoadOp>>>>
      merged;
  for (auto &[desc, groups] : byDesc) {
    Signature signature;
    for (auto &entry : groups)
      signature.insert(entry.first);
    auto it = llvm::find_if(
        merged, [&](auto &entry) { return entry.first == signature; });
    if (it == merged.end()) {
      merged.push_back({signature, groups});
      continue;
    }
    for (auto &[placement, group] : groups)
      llvm::append_range(it->second[placement], group);
  }
  SmallVector<ChannelLoads> channels;
  for (auto &[signature, groups] : merged) {
    ChannelLoads channel;
    for (auto &[placement, group] : groups) {
      llvm::sort(group, [](tile::LoadOp a, tile::LoadOp b) {
        return a->isBeforeInBlock(b);
      });
      // Every slot of a channel holds the same buffers.
      if (!channel.groups.empty()) {
        ArrayRef<tile::LoadOp> first = channel.groups.front();
        if (first.size() != group.size())
          return group.front().emitOpError("fills a slot of a channel with ")
                 << group.size() << " loads, where its other slots take "
                 << first.size();
        for (auto [a, b] : llvm::zip(channel.groups.front(), group))
          if (a.getType() != b.getType())
            return b.emitOpError("fills the slot of a channel whose other "
                                 "slots hold ")
                   << a.getType() << " at this position";
      }
      channel.inLoop |= placement == Placement::Loop;
      channel.groups.push_back(group);
    }
    channels.push_back(std::move(channel));
  }
  return channels;
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
  // The main loop is the innermost loop with loads: a persistent kernel's
  // tile loop holds the loads of each tile's prologue (attention's Q) around
  // it.
  for (tile::LoadOp load : all)
    if (auto loop = dyn_cast<scf::ForOp>(load->getParentOp()))
      if (!program.loop || program.loop->isProperAncestor(loop))
        program.loop = loop;
  SmallVector<Placement> placements;
  for (tile::LoadOp load : all) {
    if (program.loop && load->getParentOp() == program.loop) {
      placements.push_back(Placement::Loop);
      continue;
    }
    if (program.loop && load->getBlock() == program.loop->getBlock()) {
      placements.push_back(load->isBeforeInBlock(program.loop)
                               ? Placement::Before
                               : Placement::After);
      continue;
    }
    return load.emitOpError(
        "ws-partition-roles handles tile programs whose loads sit directly "
        "in one scf.for or before or after it in the same block");
  }
  FailureOr<SmallVector<ChannelLoads>> channels =
      groupChannels(all, placements);
  if (failed(channels))
    return failure();
  program.channels = std::move(*channels);
  // A chain is a loop-carried accumulator: a position whose yielded value is
  // a dot accumulating onto (a function of) the position's own value.
  for (unsigned i = 0; i < program.loop.getNumRegionIterArgs(); ++i) {
    tile::DotOp dot = producingDot(program.loop.getYieldedValues()[i]);
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

/// The channels' loads of one role's copy of the program: per channel, its
/// slot groups.
using RoleLoads = SmallVector<SmallVector<SmallVector<tile::LoadOp>>>;

/// The producer: every group of loads into one slot of its channel. It
/// computes nothing else.
static void buildProducer(OpBuilder &b, ArrayRef<Value> channels,
                          scf::ForOp loop, RoleLoads &loads,
                          MutableArrayRef<tile::StoreOp> stores,
                          MutableArrayRef<tile::StoreDirectOp> directStores) {
  for (tile::StoreOp store : stores)
    store.erase();
  for (tile::StoreDirectOp store : directStores)
    store.erase();
  // In a kernel marked ws.multicast (a cluster of two CTAs sharing B
  // tiles) the loads of the dots' B operands are TMA multicast copies: each
  // CTA loads half of the block into both.
  DenseSet<Operation *> shared;
  auto kernel = loop->getParentOfType<FunctionOpInterface>();
  if (kernel && kernel->hasAttr(kMulticastAttrName))
    loop.walk([&](tile::DotOp dot) {
      if (Operation *def = dot.getB().getDefiningOp())
        shared.insert(def);
    });
  dropCarried(loop);
  for (auto [channel, groups] : llvm::zip(channels, loads))
    for (SmallVector<tile::LoadOp> &group : groups)
      produceLoads(b, channel, group, [&](tile::LoadOp load) {
        return shared.contains(load.getOperation());
      });
}

/// The op of `block` that contains `op` (or `op` itself).
static Operation *ancestorIn(Block *block, Operation *op) {
  while (op && op->getBlock() != block)
    op = op->getParentOp();
  return op;
}

/// Whether `loop` has another scf.for inside.
static bool containsLoop(scf::ForOp loop) {
  return loop.getBody()
      ->walk([](scf::ForOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

/// Where the data a slot's reader `user` took from shared memory is no
/// longer needed, as an op of `block`: an asynchronous dot is done at the
/// tile.dot_wait that returns its result, anything else when it is.
static Operation *completionIn(Block *block, Operation *user) {
  if (auto dot = dyn_cast<tile::DotOp>(user); dot && dot.getAsync())
    for (Operation *wait : dot->getUsers())
      if (isa<tile::DotWaitOp>(wait))
        return ancestorIn(block, wait);
  return ancestorIn(block, user);
}

/// Releases each slot `role` waits for where its readers are done: right
/// after the last of them (by threads, which know the data was read), or,
/// for a slot read by synchronous dots in the loop body (a GEMM), at the end
/// of the body by wgmma, which ws-insert-mbarriers defers by one iteration.
static void placeReleases(OpBuilder &b, RoleOp role) {
  SmallVector<ConsumerWaitOp> waits;
  role.walk([&](ConsumerWaitOp wait) { waits.push_back(wait); });
  for (ConsumerWaitOp wait : waits) {
    Block *block = wait->getBlock();
    Operation *last = wait;
    // In the main loop, not in a persistent kernel's tile loop around it.
    auto parent = dyn_cast<scf::ForOp>(wait->getParentOp());
    bool asyncReader = false, inLoop = parent && !containsLoop(parent);
    for (Value buffer : wait.getBuffers())
      for (Operation *tensor : buffer.getUsers())
        for (Operation *user : tensor->getUsers()) {
          if (auto dot = dyn_cast<tile::DotOp>(user))
            asyncReader |= dot.getAsync();
          Operation *done = completionIn(block, user);
          if (done && last->isBeforeInBlock(done))
            last = done;
        }
    if (inLoop && !asyncReader) {
      b.setInsertionPoint(block->getTerminator());
      ConsumerReleaseOp::create(b, wait.getLoc(), wait.getChannel(),
                                wait.getToken(), AsyncUnit::WGMMA);
      continue;
    }
    b.setInsertionPointAfter(last);
    ConsumerReleaseOp::create(b, wait.getLoc(), wait.getChannel(),
                              wait.getToken(), AsyncUnit::Threads);
  }
}

/// A consumer of chain `chain`: its part of the program, with each load
/// group replaced by a wait for a slot of its channel read in place (the
/// releases come once dead code is gone, placeReleases); its results
/// stored through the staging buffers (TMA stores) or straight from
/// registers (its plain stores).
static void buildConsumer(OpBuilder &b, ArrayRef<Value> channels,
                          scf::ForOp loop, RoleLoads &loads,
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

  for (auto [channel, groups] : llvm::zip(channels, loads))
    for (SmallVector<tile::LoadOp> &group : groups)
      consumeLoads(b, channel, group);

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

/// The main loop of a consumer role: the innermost scf.for with dots in its
/// body (inside a persistent kernel's tile loop, if any).
static scf::ForOp mainLoopOf(RoleOp role) {
  scf::ForOp main;
  role.walk([&](scf::ForOp loop) {
    if (llvm::any_of(*loop.getBody(),
                     [](Operation &op) { return isa<tile::DotOp>(op); }) &&
        (!main || main->isProperAncestor(loop)))
      main = loop;
  });
  return main;
}

/// Ping-pong scheduling of consumer roles whose loop issues asynchronous
/// dots (attention): consumer i issues its dots of an iteration only after
/// consumer i-1 issued its own (named barrier `firstId + i`, waited by i,
/// arrived at by i-1), so one consumer's softmax runs while the tensor
/// cores work for the other. One turn token goes round the consumers: the
/// last consumer creates it at the role's start and consumer 0 takes it
/// back at the role's end. After the loop every consumer waits for its turn
/// once more and passes it on, so the token is back at consumer 0 when the
/// next tile begins, whatever the loop's trip count. A consumer therefore
/// never arrives twice at a barrier without waiting in between: with a
/// loop of no iterations (a single key tile), a consumer that only arrived
/// would run a tile ahead and complete a barrier generation with its own
/// two arrivals, leaving the other consumer waiting forever.
static void schedulePingPong(OpBuilder &b, ArrayRef<RoleOp> consumers,
                             unsigned firstId) {
  int64_t count = consumers.size();
  if (count < 2)
    return;
  SmallVector<scf::ForOp> loops;
  for (RoleOp role : consumers) {
    scf::ForOp loop = mainLoopOf(role);
    if (!loop)
      return;
    // The dots issued before the first wait of the iteration.
    SmallVector<tile::DotOp> issued;
    for (Operation &op : *loop.getBody()) {
      if (isa<tile::DotWaitOp>(op))
        break;
      if (auto dot = dyn_cast<tile::DotOp>(op)) {
        if (!dot.getAsync())
          return;
        issued.push_back(dot);
      }
    }
    if (issued.empty())
      return;
    loops.push_back(loop);
  }
  int64_t threads = 2 * kWarpsPerGroup * kThreadsPerWarp;
  for (auto [i, loop] : llvm::enumerate(loops)) {
    Location loc = loop.getLoc();
    unsigned mine = firstId + i, next = firstId + (i + 1) % count;
    tile::DotOp first, last;
    for (Operation &op : *loop.getBody()) {
      if (isa<tile::DotWaitOp>(op))
        break;
      if (auto dot = dyn_cast<tile::DotOp>(op)) {
        first = first ? first : dot;
        last = dot;
      }
    }
    b.setInsertionPoint(first);
    BarrierSyncOp::create(b, loc, mine, threads);
    b.setInsertionPointAfter(last);
    BarrierArriveOp::create(b, loc, next, threads);
    b.setInsertionPointAfter(loop);
    BarrierSyncOp::create(b, loc, mine, threads);
    BarrierArriveOp::create(b, loc, next, threads);
    Block &body = RoleOp(consumers[i]).getBody().front();
    if (static_cast<int64_t>(i) == count - 1) {
      b.setInsertionPointToStart(&body);
      BarrierArriveOp::create(b, loc, firstId, threads);
    }
    if (i == 0) {
      b.setInsertionPointToEnd(&body);
      BarrierSyncOp::create(b, loc, firstId, threads);
    }
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
    if (failed(verifyPartitionOptions(func, stages, producerRegs,
                                      consumerRegs)))
      return failure();
    if (!tile::containsTileOps(func))
      return success();
    FailureOr<fmha::TargetInfo> info =
        fmha::TargetInfo::lookup(func, getArgument());
    if (failed(info))
      return failure();
    if (info->hasTensorMemory())
      return partitionRolesSM100(func, {stages, producerRegs, consumerRegs});
    FailureOr<TileProgram> program = analyze(func);
    if (failed(program))
      return failure();
    if (program->channels.empty())
      return success();
    MLIRContext *ctx = func.getContext();
    RolePartition partition(func);
    OpBuilder &b = partition.getBuilder();
    Location loc = func.getLoc();
    unsigned numStages = stagesOf(func, stages);
    unsigned itemSlots = itemSlotsOf(func);
    // Channels filled in the loop stream through a ring; the others are
    // filled once.
    SmallVector<Value> channels;
    for (ChannelLoads &channel : program->channels)
      channels.push_back(ChannelOp::create(
          b, loc,
          ChannelType::get(ctx, sharedBuffersFor(channel.groups.front()),
                           channel.depth(numStages, itemSlots))));
    SmallVector<Value> staging;
    for (tile::StoreOp store : program->stores)
      staging.push_back(allocStaging(b, store));

    WarpSpecializeOp ws = partition.createKernel();
    auto addRole = [&](StringRef name, int64_t warps, int64_t regs) {
      RoleCopy copy = partition.addRole(name, warps, regs);
      auto lookup = [&](auto op) { return copy.lookup(op); };
      auto loop = lookup(program->loop);
      RoleLoads loads;
      for (ChannelLoads &channel : program->channels) {
        auto &groups = loads.emplace_back();
        for (ArrayRef<tile::LoadOp> group : channel.groups) {
          auto &copies = groups.emplace_back();
          for (tile::LoadOp load : group)
            copies.push_back(lookup(load));
        }
      }
      SmallVector<tile::StoreOp> stores;
      for (tile::StoreOp store : program->stores)
        stores.push_back(lookup(store));
      SmallVector<tile::StoreDirectOp> directStores;
      for (tile::StoreDirectOp store : program->directStores)
        directStores.push_back(lookup(store));
      return std::make_tuple(copy.role, loop, loads, stores, directStores);
    };

    {
      auto [role, loop, loads, stores, directStores] =
          addRole("producer", kProducerWarps, producerRegs);
      buildProducer(b, channels, loop, loads, stores, directStores);
      cleanUpRole(role);
    }
    SmallVector<RoleOp> consumers;
    for (auto [i, chain] : llvm::enumerate(program->chains)) {
      auto [role, loop, loads, stores, directStores] =
          addRole(("consumer" + Twine(i)).str(), kWarpsPerGroup, consumerRegs);
      buildConsumer(b, channels, loop, loads, stores, staging, directStores,
                    program->directOwners, chain, /*barrierId=*/1 + i,
                    kWarpsPerGroup * kThreadsPerWarp);
      if (!program->stores.empty()) {
        b.setInsertionPointToEnd(&role.getBody().front());
        TMAStoreWaitOp::create(b, loc);
      }
      cleanUpRole(role);
      placeReleases(b, role);
      consumers.push_back(role);
    }
    schedulePingPong(b, consumers, /*firstId=*/1 + program->chains.size());
    // Each consumer stages its results in the buffers of a slot filled once
    // before the loop (attention's O in its Q tile) when they are dead by
    // then.
    for (auto [channel, loads] : llvm::zip(channels, program->channels))
      if (!loads.inLoop && loads.groups.size() == 1 &&
          loads.groups.front().front()->isBeforeInBlock(program->loop))
        stageInHeldSlots(ws, channel);
    partition.eraseProgram(/*eraseUnusedConstants=*/false);
    return success();
  }
};
} // namespace
