//===- AssignRoles.cpp - Decide the warp roles of a tile program ----------===//
//
// Part of fmha. Implements ws-assign-roles: the policy that decides which
// warp role runs what, written on the tile program as attributes
// (docs/Roles.md) for ws-partition-roles to materialise.
//
// On sm_90a: one producer warp issues every load, through channels chosen
// per descriptor and place; one consumer warpgroup per accumulator chain of
// the main loop computes it and stores what is computed from it (with
// split-K, also the arrival that publishes its partial sum and the
// reduction done on the last arrival). A store in the main loop computed
// from several consumers' dots (the attention backward's dQ in column
// parts) goes to them in turn, and what it reads of another consumer's
// work is handed over through a channel (ws.result_channel). A program
// with several main loops side by side (a ping-pong GEMM's work items) gets
// a consumer per loop, the loops sharing one channel and taking turns.
// A program without TMA loads and MMAs runs in one role (AssignRolesPlain).
//
//===----------------------------------------------------------------------===//

#include "AssignRolesPlain.h"
#include "PartitionRolesSM100.h"
#include "PartitionUtils.h"
#include "PassUtils.h"

#include "fmha/Dialect/WS/IR/RoleAssignment.h"
#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/Transforms/Passes.h"
#include "fmha/Target/TargetInfo.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <map>
#include <set>

namespace mlir {
namespace ws {
#define GEN_PASS_DEF_WSASSIGNROLES
#include "fmha/Dialect/WS/Transforms/Passes.h.inc"
} // namespace ws
} // namespace mlir

using namespace mlir;
using namespace mlir::ws;

/// Warps of a producer role: one warp issues all TMA copies.
static constexpr int64_t kProducerWarps = 1;

/// Warps of the role that transposes tiles in shared memory (fp8 attention's
/// V^T): the rest of the producer's warpgroup, whose register budget it
/// shares.
static constexpr int64_t kTransposerWarps = 3;

/// Slots of a channel through which a consumer hands a value to another:
/// the consumers work in step, each waiting for the other's value.
static constexpr int32_t kHandedSlots = 1;

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
  /// Loop-carried positions that are dot accumulators.
  SmallVector<unsigned> chains;
  /// The consumer of each chain (0-based): chains computed from a common
  /// tile.dot (an attention backward's dK and dV, both from one P^T) share
  /// one; any other chain gets a consumer of its own.
  SmallVector<unsigned> consumers;
  unsigned numConsumers = 0;
  SmallVector<tile::StoreOp> stores;
  /// TMA stores in the main loop's body (the attention backward's dQ parts,
  /// added into a workspace each step), and the chain of the consumer that
  /// computes each: the one whose accumulator is computed from a dot the
  /// stored value is computed from; of several such consumers, the i-th
  /// store computed from several consumers' dots goes to the (i mod n)-th.
  SmallVector<std::pair<tile::StoreOp, unsigned>> bodyStores;
  /// Ops of the main loop's body whose result a consumer computes and
  /// another consumer's body store reads (the attention backward's dS, for
  /// the other consumers' column parts of dQ), and the chain of the
  /// consumer that computes each: handed over through a channel each.
  SmallVector<std::pair<Operation *, unsigned>> handed;
  /// Plain stores from registers (tile.store_direct): they stay where they
  /// are, in the consumer that computes their value, and the chain of that
  /// consumer, one per store.
  SmallVector<tile::StoreDirectOp> directStores;
  SmallVector<unsigned> directOwners;
  /// Arrivals at global counters (tile.counter_arrive), each after a plain
  /// store of a consumer, whose chain it runs in (split-K publishing a
  /// partial sum), and the scf.ifs on the last arrival, which run in the
  /// same consumer with everything inside them (the reduction and its
  /// store).
  SmallVector<std::pair<tile::CounterArriveOp, unsigned>> arrivals;
  SmallVector<std::pair<scf::IfOp, unsigned>> onLast;

  /// Whether `op` sits inside one of the scf.ifs on a last arrival.
  bool isOnLast(Operation *op) const {
    return llvm::any_of(
        onLast, [&](auto &entry) { return entry.first->isProperAncestor(op); });
  }
};

} // namespace

/// The loop-carried positions of `loop` that `value` depends on: loop
/// results reached through its defining ops (within the loop's parent),
/// and through the results of the loops around `loop` (an fp8 GEMM's
/// accumulate promotion: a loop over groups of K steps around the main
/// loop, whose sums add up the main loop's results), to what they yield.
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
    if (auto outer = dyn_cast<scf::ForOp>(def);
        outer && outer->isProperAncestor(loop)) {
      next.push_back(
          outer.getYieldedValues()[cast<OpResult>(v).getResultNumber()]);
      return;
    }
    if (def->getParentRegion()->isAncestor(loop->getParentRegion()))
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

/// The tile.dot ops of `loop`'s body that `value` is computed from, within
/// one iteration.
static DenseSet<Operation *> bodyDotsOf(Value value, scf::ForOp loop) {
  DenseSet<Operation *> dots;
  SmallVector<Value> worklist{value};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || !loop->isProperAncestor(def))
      continue;
    if (isa<tile::DotOp>(def))
      dots.insert(def);
    llvm::append_range(worklist, def->getOperands());
    def->walk([&](Operation *nested) {
      if (nested != def)
        llvm::append_range(worklist, nested->getOperands());
    });
  }
  return dots;
}

/// The tile.dot ops of `loop`'s body that the yielded value at `position`
/// is computed from, within one iteration.
static DenseSet<Operation *> bodyDotsOf(unsigned position, scf::ForOp loop) {
  return bodyDotsOf(loop.getYieldedValues()[position], loop);
}

/// Groups the chains of `program` into consumers: two chains whose values
/// are computed from a common tile.dot go to one consumer (transitively).
static void groupChains(TileProgram &program) {
  SmallVector<DenseSet<Operation *>> dots;
  for (unsigned chain : program.chains)
    dots.push_back(bodyDotsOf(chain, program.loop));
  program.consumers.assign(program.chains.size(), ~0u);
  program.numConsumers = 0;
  for (size_t i = 0; i < program.chains.size(); ++i) {
    if (program.consumers[i] != ~0u)
      continue;
    unsigned consumer = program.numConsumers++;
    program.consumers[i] = consumer;
    // Grow the group until no other chain shares a dot with it.
    SmallVector<size_t> members{i};
    for (size_t m = 0; m < members.size(); ++m)
      for (size_t j = 0; j < program.chains.size(); ++j)
        if (program.consumers[j] == ~0u &&
            llvm::any_of(dots[members[m]], [&](Operation *dot) {
              return dots[j].contains(dot);
            })) {
          program.consumers[j] = consumer;
          members.push_back(j);
        }
  }
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

/// The chain whose consumer computes the value of a plain store: the first
/// chain, of the one consumer whose chains the loop results the value reads
/// belong to. A result belongs to a chain when the chain's accumulator
/// reads it (the row max it is rescaled by) or it reads the accumulator (a
/// statistic of it); attention's log-sum-exp reads a chain's row max and
/// row sum, and the backward's dK and dV (one consumer's chains) are
/// waited for together.
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
  auto consumerOf = [&](unsigned chain) {
    return program
        .consumers[llvm::find(program.chains, chain) - program.chains.begin()];
  };
  for (unsigned other : llvm::drop_begin(owners))
    if (consumerOf(other) != consumerOf(owners.front()))
      return store.emitOpError("stores a value computed from the "
                               "accumulators of several consumers (loop "
                               "results ")
             << owners.front() << " and " << other
             << "): no one consumer role can store it";
  return owners.front();
}

/// The consumers that could compute the value of a TMA store in the main
/// loop's body, each with its first chain: those whose chains are computed
/// from a dot the value is computed from (dQ's part from the dS that dK
/// accumulates).
static FailureOr<llvm::SmallMapVector<unsigned, unsigned, 2>>
ownersOfBodyStore(tile::StoreOp store, const TileProgram &program) {
  DenseSet<Operation *> dots = bodyDotsOf(store.getValue(), program.loop);
  llvm::SmallMapVector<unsigned, unsigned, 2> owners;
  for (auto [chain, consumer] : llvm::zip(program.chains, program.consumers)) {
    DenseSet<Operation *> chainDots = bodyDotsOf(chain, program.loop);
    if (llvm::any_of(dots,
                     [&](Operation *dot) { return chainDots.contains(dot); }))
      owners.insert({consumer, chain});
  }
  if (owners.empty())
    return store.emitOpError("stores in the main loop a value computed from "
                             "no dot that an accumulator is computed from: "
                             "no consumer role computes it");
  return owners;
}

/// The ops of the main loop's body that each consumer computes for its
/// chains within one iteration (the backward slices of their yielded
/// values).
static SmallVector<DenseSet<Operation *>>
consumerSlices(const TileProgram &program) {
  scf::ForOp loop = program.loop;
  SmallVector<DenseSet<Operation *>> slices(program.numConsumers);
  for (auto [chain, consumer] : llvm::zip(program.chains, program.consumers)) {
    DenseSet<Operation *> &slice = slices[consumer];
    SmallVector<Value> worklist{loop.getYieldedValues()[chain]};
    while (!worklist.empty()) {
      Operation *def = worklist.pop_back_val().getDefiningOp();
      if (!def || !loop->isProperAncestor(def) || !slice.insert(def).second)
        continue;
      def->walk([&](Operation *nested) {
        llvm::append_range(worklist, nested->getOperands());
      });
    }
  }
  return slices;
}

/// Records in `program.handed` what consumer `owner` reads, for the body
/// store `store`, of what other consumers compute: the first ops, walking
/// back from the stored value, that another consumer computes for its
/// chains and `owner` does not, whose results come from a dot (values
/// computed from the loop's state alone are recomputed; loaded tiles come
/// through their channels).
static LogicalResult findHanded(tile::StoreOp store, unsigned owner,
                                ArrayRef<DenseSet<Operation *>> slices,
                                TileProgram &program) {
  scf::ForOp loop = program.loop;
  SmallVector<Value> worklist{store.getValue()};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    Operation *def = value.getDefiningOp();
    if (!seen.insert(value).second || !def || !loop->isProperAncestor(def) ||
        isa<tile::LoadOp>(def) || slices[owner].contains(def))
      continue;
    std::optional<unsigned> other;
    for (auto [consumer, slice] : llvm::enumerate(slices))
      if (!other && slice.contains(def))
        other = consumer;
    if (other && !bodyDotsOf(value, loop).empty()) {
      if (def->getNumResults() != 1)
        return def->emitOpError("ws-assign-roles: computes a value that "
                                "another consumer's store reads, but has ")
               << def->getNumResults()
               << " results: only an op's one result can be handed over";
      if (isa<tile::DotOp, tile::DotWaitOp>(def))
        return def->emitOpError("ws-assign-roles: its result, another "
                                "consumer's accumulator, "
                                "is read by a store of consumer ")
               << owner
               << ": hand over a value computed from it instead (a "
                  "wgmma accumulator lives in its consumer's registers)";
      unsigned chain = program.chains[llvm::find(program.consumers, *other) -
                                      program.consumers.begin()];
      if (llvm::none_of(program.handed,
                        [&](auto &entry) { return entry.first == def; }))
        program.handed.push_back({def, chain});
      continue;
    }
    def->walk([&](Operation *nested) {
      llvm::append_range(worklist, nested->getOperands());
    });
  }
  return success();
}

/// The dot that computes `value`, seen through the waits and the
/// elementwise ops or tile.scale_rows (a rescale) applied to its result, or
/// null.
static tile::DotOp producingDot(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto dot = dyn_cast<tile::DotOp>(def))
      return dot;
    if (auto wait = dyn_cast<tile::DotWaitOp>(def)) {
      value = wait.getValues()[cast<OpResult>(value).getResultNumber()];
      continue;
    }
    if (auto scale = dyn_cast<tile::ScaleRowsOp>(def)) {
      value = scale.getInput();
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

/// Whether `op` sits in an scf.if on the result of a tile.counter_arrive:
/// what is done on a last arrival, which runs in the consumer that arrives.
static bool isOnLastArrival(Operation *op) {
  for (auto ifOp = op->getParentOfType<scf::IfOp>(); ifOp;
       ifOp = ifOp->getParentOfType<scf::IfOp>())
    if (ifOp.getCondition().getDefiningOp<tile::CounterArriveOp>())
      return true;
  return false;
}

static FailureOr<TileProgram> analyze(FunctionOpInterface func) {
  TileProgram program;
  SmallVector<tile::LoadOp> all;
  func->walk([&](tile::LoadOp load) { all.push_back(load); });
  func->walk([&](tile::StoreOp store) { program.stores.push_back(store); });
  // Plain stores on a last arrival (split-KV's merged results) go with the
  // scf.if they sit in (`onLast`), not by the loop results they read.
  func->walk([&](tile::StoreDirectOp store) {
    if (!isOnLastArrival(store))
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
        "ws-assign-roles handles tile programs whose loads sit directly "
        "in one scf.for or before or after it in the same block, or "
        "directly in several scf.for side by side");
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
  groupChains(program);
  for (tile::StoreDirectOp store : program.directStores) {
    FailureOr<unsigned> owner = ownerOf(store, program);
    if (failed(owner))
      return failure();
    program.directOwners.push_back(*owner);
  }
  // An arrival publishes the plain store before it in its block: it runs in
  // that store's consumer, and so does what is done on the last arrival.
  WalkResult arrivals = func->walk([&](tile::CounterArriveOp arrive) {
    Operation *prev = arrive->getPrevNode();
    while (prev && !isa<tile::StoreDirectOp>(prev))
      prev = prev->getPrevNode();
    auto it = llvm::find_if(program.directStores, [&](tile::StoreDirectOp s) {
      return s.getOperation() == prev;
    });
    if (!prev || it == program.directStores.end()) {
      arrive.emitOpError("ws-assign-roles: arrives at a counter after no "
                         "plain store of a consumer in its block: no "
                         "consumer's writes for it to publish");
      return WalkResult::interrupt();
    }
    unsigned chain = program.directOwners[it - program.directStores.begin()];
    program.arrivals.push_back({arrive, chain});
    for (Operation *user : arrive->getUsers())
      if (auto ifOp = dyn_cast<scf::IfOp>(user);
          ifOp && ifOp.getCondition() == arrive.getResult())
        program.onLast.push_back({ifOp, chain});
    return WalkResult::advance();
  });
  if (arrivals.wasInterrupted())
    return failure();
  SmallVector<DenseSet<Operation *>> slices;
  unsigned shared = 0;
  for (tile::StoreOp store : program.stores) {
    if (program.isOnLast(store))
      continue;
    if (store->getParentOp() == program.loop) {
      auto owners = ownersOfBodyStore(store, program);
      if (failed(owners))
        return failure();
      if (owners->size() == 1) {
        program.bodyStores.push_back({store, owners->front().second});
        continue;
      }
      // Computed from several consumers' dots: theirs in turn.
      auto [consumer, chain] =
          *std::next(owners->begin(), shared++ % owners->size());
      if (slices.empty())
        slices = consumerSlices(program);
      if (failed(findHanded(store, consumer, slices, program)))
        return failure();
      program.bodyStores.push_back({store, chain});
      continue;
    }
    llvm::SmallSetVector<unsigned, 4> positions =
        positionsOf(store.getValue(), program.loop);
    if (llvm::none_of(program.chains, [&](unsigned chain) {
          return positions.contains(chain);
        }))
      return store.emitOpError("stores a value that does not come from an "
                               "accumulator of the main loop");
  }
  return program;
}

/// The loop-carried positions consumer `chain` computes: its accumulator,
/// what its stores read, and, in turn, what those read in the loop.
static llvm::SmallSetVector<unsigned, 8> computedPositions(TileProgram &program,
                                                           unsigned chain) {
  scf::ForOp loop = program.loop;
  llvm::SmallSetVector<unsigned, 8> keep;
  keep.insert(chain);
  for (auto [store, owner] :
       llvm::zip(program.directStores, program.directOwners)) {
    if (owner != chain)
      continue;
    llvm::SmallSetVector<unsigned, 4> positions =
        positionsOf(store.getValue(), loop);
    keep.insert(positions.begin(), positions.end());
  }
  for (tile::StoreOp store : program.stores) {
    llvm::SmallSetVector<unsigned, 4> positions =
        positionsOf(store.getValue(), loop);
    if (positions.contains(chain))
      keep.insert(positions.begin(), positions.end());
  }
  for (size_t i = 0; i < keep.size(); ++i) {
    llvm::SmallSetVector<unsigned, 4> reads = bodyPositionsOf(keep[i], loop);
    keep.insert(reads.begin(), reads.end());
  }
  return keep;
}

/// Appends `role` to `roles` unless it is there.
static void addRole(SmallVectorImpl<int32_t> &roles, int32_t role) {
  if (!llvm::is_contained(roles, role))
    roles.push_back(role);
}

/// Writes `ws.partition_outputs` on the loops around the main loop that
/// carry values (accumulate promotion's group loop, whose sums add up the
/// main loop's chains): each value is computed by the consumers of the
/// chains it reads (`consumerOf`), none by the producer.
static void setEnclosingOutputs(FunctionOpInterface func,
                                const TileProgram &program,
                                function_ref<int32_t(unsigned)> consumerOf) {
  Builder b(func.getContext());
  for (auto outer = program.loop->getParentOfType<scf::ForOp>(); outer;
       outer = outer->getParentOfType<scf::ForOp>()) {
    if (outer.getNumRegionIterArgs() == 0)
      continue;
    SmallVector<Attribute> outputs;
    for (Value yielded : outer.getYieldedValues()) {
      llvm::SmallSetVector<unsigned, 4> positions =
          positionsOf(yielded, program.loop);
      SmallVector<int32_t> roles;
      for (unsigned chain : program.chains)
        if (positions.contains(chain))
          addRole(roles, consumerOf(chain));
      outputs.push_back(b.getDenseI32ArrayAttr(roles));
    }
    outer->setAttr(kPartitionOutputsAttrName, b.getArrayAttr(outputs));
  }
}

/// The tile.transposes of `func` in shared memory: loaded tiles turned
/// K-major for a dot (fp8 attention's V^T).
static SmallVector<tile::TransposeOp>
sharedTransposes(FunctionOpInterface func) {
  SmallVector<tile::TransposeOp> transposes;
  func->walk([&](tile::TransposeOp transpose) {
    if (isa_and_nonnull<tile::NvmmaSharedAttr>(
            transpose.getType().getEncoding()))
      transposes.push_back(transpose);
  });
  return transposes;
}

/// Writes the sm_90a roles of `func`'s tile program: role 0 the producer,
/// role 1 + i consumer i, which computes the chains grouped into it, and,
/// when tiles are transposed in shared memory, a transposer last, in the
/// producer's warpgroup: it reads each loaded tile from its slot and hands
/// the transpose to the consumers through a channel of `stages` slots.
static void assignSM90(FunctionOpInterface func, TileProgram &program,
                       unsigned stages, unsigned producerRegs,
                       unsigned consumerRegs) {
  MLIRContext *ctx = func.getContext();
  Builder b(ctx);
  SmallVector<Attribute> roles{
      RoleSpecAttr::get(ctx, "producer", kProducerWarps, producerRegs)};
  for (unsigned i = 0; i < program.numConsumers; ++i)
    roles.push_back(RoleSpecAttr::get(ctx, ("consumer" + Twine(i)).str(),
                                      kWarpsPerGroup, consumerRegs));
  SmallVector<tile::TransposeOp> transposes = sharedTransposes(func);
  auto transposer = static_cast<int32_t>(roles.size());
  if (!transposes.empty())
    roles.push_back(
        RoleSpecAttr::get(ctx, "transposer", kTransposerWarps, producerRegs));
  func->setAttr(kRolesAttrName, b.getArrayAttr(roles));

  // The loads of the dots' B operands are multicast in a ws.multicast
  // kernel (a cluster of two CTAs sharing B tiles).
  DenseSet<Operation *> shared;
  if (func->hasAttr(kMulticastAttrName))
    program.loop.walk([&](tile::DotOp dot) {
      if (Operation *def = dot.getB().getDefiningOp())
        shared.insert(def);
    });
  unsigned itemSlots = itemSlotsOf(func);
  SmallVector<int32_t> depths;
  for (auto [index, channel] : llvm::enumerate(program.channels)) {
    depths.push_back(channel.depth(stages, itemSlots));
    for (ArrayRef<tile::LoadOp> group : channel.groups)
      for (tile::LoadOp load : group) {
        load->setAttr(kLoadChannelAttrName, b.getI32IntegerAttr(index));
        setPartition(load, {0});
        if (shared.contains(load.getOperation()))
          load->setAttr(kMulticastLoadAttrName, b.getUnitAttr());
      }
  }
  auto consumerOf = [&](unsigned chain) {
    return static_cast<int32_t>(
        1 + program.consumers[llvm::find(program.chains, chain) -
                              program.chains.begin()]);
  };
  // A channel of its own for each value handed between consumers.
  for (auto [op, chain] : program.handed) {
    op->setAttr(kResultChannelAttrName,
                b.getI32IntegerAttr(static_cast<int32_t>(depths.size())));
    depths.push_back(kHandedSlots);
    setPartition(op, {consumerOf(chain)});
  }
  if (!transposes.empty())
    depths.push_back(stages);
  for (tile::TransposeOp transpose : transposes) {
    transpose->setAttr(kResultChannelAttrName,
                       b.getI32IntegerAttr(int32_t(depths.size() - 1)));
    setPartition(transpose, {transposer});
  }
  func->setAttr(kChannelStagesAttrName, b.getDenseI32ArrayAttr(depths));

  for (auto [store, chain] : program.bodyStores)
    setPartition(store, {consumerOf(chain)});
  for (tile::StoreOp store : program.stores) {
    if (program.isOnLast(store) || store->getParentOp() == program.loop)
      continue;
    llvm::SmallSetVector<unsigned, 4> positions =
        positionsOf(store.getValue(), program.loop);
    SmallVector<int32_t> owners;
    for (unsigned chain : program.chains)
      if (positions.contains(chain))
        addRole(owners, consumerOf(chain));
    setPartition(store, owners);
  }
  for (auto [store, owner] :
       llvm::zip(program.directStores, program.directOwners))
    setPartition(store, {consumerOf(owner)});
  for (auto [arrive, chain] : program.arrivals)
    setPartition(arrive, {consumerOf(chain)});
  for (auto [ifOp, chain] : program.onLast) {
    setPartition(ifOp, {consumerOf(chain)});
    ifOp.walk([&](Operation *op) {
      if (isa<tile::StoreOp, tile::StoreDirectOp>(op))
        setPartition(op, {consumerOf(chain)});
    });
  }

  SmallVector<SmallVector<int32_t>> outputs(
      program.loop.getNumRegionIterArgs());
  for (unsigned chain : program.chains)
    for (unsigned position : computedPositions(program, chain))
      addRole(outputs[position], consumerOf(chain));
  SmallVector<Attribute> outputAttrs;
  for (ArrayRef<int32_t> roles : outputs)
    outputAttrs.push_back(b.getDenseI32ArrayAttr(roles));
  program.loop->setAttr(kPartitionOutputsAttrName, b.getArrayAttr(outputAttrs));
  setEnclosingOutputs(func, program, consumerOf);
}

/// The loops whose bodies hold the loads of `func`, in program order, when
/// they are several loops side by side in one block and hold every load:
/// the main loops of consumers that take turns (a ping-pong GEMM's work
/// items). Empty for any other program.
static SmallVector<scf::ForOp> turnLoops(FunctionOpInterface func) {
  llvm::SetVector<scf::ForOp> loops;
  bool outside = false;
  func->walk([&](tile::LoadOp load) {
    if (auto loop = dyn_cast<scf::ForOp>(load->getParentOp()))
      loops.insert(loop);
    else
      outside = true;
  });
  if (outside || loops.size() < 2 || llvm::any_of(loops, [&](scf::ForOp loop) {
        return loop->getBlock() != loops.front()->getBlock();
      }))
    return {};
  return loops.takeVector();
}

/// Writes the sm_90a roles of a program whose main loops take turns
/// (`loops`, from turnLoops): role 0 the producer, issuing every load into
/// one channel of `stages` slots, which the loops fill in program order;
/// role 1 + i the consumer of loop i, which computes every value the loop
/// carries and runs the stores of its results. The loops are marked
/// `ws.turn`, for ws-schedule-ping-pong to order them.
static LogicalResult assignTurnsSM90(FunctionOpInterface func,
                                     ArrayRef<scf::ForOp> loops,
                                     unsigned stages, unsigned producerRegs,
                                     unsigned consumerRegs) {
  MLIRContext *ctx = func.getContext();
  Builder b(ctx);
  if (func->hasAttr(kMulticastAttrName))
    return func->emitOpError("ws-assign-roles: a ws.multicast kernel's CTAs "
                             "compute their tiles in step; its main loops "
                             "cannot take turns");
  WalkResult direct = func->walk([&](tile::StoreDirectOp store) {
    store.emitOpError("ws-assign-roles: plain stores are not supported in a "
                      "program whose main loops take turns");
    return WalkResult::interrupt();
  });
  if (direct.wasInterrupted())
    return failure();
  for (scf::ForOp loop : loops) {
    bool accumulates = false;
    for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
      accumulates |= producingDot(loop.getYieldedValues()[i]) &&
                     bodyPositionsOf(i, loop).contains(i);
    if (!accumulates)
      return loop.emitOpError("carries no tile.dot accumulator: nothing for "
                              "its consumer role to do");
    // Each consumer computes its loop alone: nothing it starts from may
    // come from another consumer's loop.
    for (scf::ForOp other : loops)
      for (Value operand : loop->getOperands())
        if (other != loop && !positionsOf(operand, other).empty())
          return loop.emitOpError(
              "starts from a result of another main loop: the consumers of "
              "main loops that take turns compute them independently");
  }
  // Each store runs in the consumer of the one loop its value comes from.
  SmallVector<std::pair<tile::StoreOp, int32_t>> owners;
  WalkResult stores = func->walk([&](tile::StoreOp store) {
    SmallVector<int32_t> readers;
    for (auto [index, loop] : llvm::enumerate(loops))
      if (!positionsOf(store.getValue(), loop).empty())
        readers.push_back(1 + index);
    if (readers.size() != 1) {
      store.emitOpError(readers.empty()
                            ? "stores a value that does not come from an "
                              "accumulator of a main loop"
                            : "stores a value computed from several main "
                              "loops: no one consumer role can store it");
      return WalkResult::interrupt();
    }
    owners.push_back({store, readers.front()});
    return WalkResult::advance();
  });
  if (stores.wasInterrupted())
    return failure();

  SmallVector<Attribute> roles{
      RoleSpecAttr::get(ctx, "producer", kProducerWarps, producerRegs)};
  for (unsigned i = 0; i < loops.size(); ++i)
    roles.push_back(RoleSpecAttr::get(ctx, ("consumer" + Twine(i)).str(),
                                      kWarpsPerGroup, consumerRegs));
  func->setAttr(kRolesAttrName, b.getArrayAttr(roles));
  func->setAttr(kChannelStagesAttrName,
                b.getDenseI32ArrayAttr({static_cast<int32_t>(stages)}));
  for (auto [index, constLoop] : llvm::enumerate(loops)) {
    scf::ForOp loop = constLoop;
    loop.walk([&](tile::LoadOp load) {
      load->setAttr(kLoadChannelAttrName, b.getI32IntegerAttr(0));
      setPartition(load, {0});
    });
    int32_t consumer = 1 + index;
    SmallVector<Attribute> outputs(loop.getNumRegionIterArgs(),
                                   b.getDenseI32ArrayAttr({consumer}));
    loop->setAttr(kPartitionOutputsAttrName, b.getArrayAttr(outputs));
    WSDialect::getLoaded(ctx).getTurnAttrHelper().setAttr(loop,
                                                          b.getUnitAttr());
  }
  for (auto [store, owner] : owners)
    setPartition(store, {owner});
  return success();
}

namespace {
struct WSAssignRolesPass
    : PerFunctionPass<WSAssignRolesPass, ws::impl::WSAssignRolesBase> {
  using PerFunctionPass::PerFunctionPass;

  LogicalResult runOnFunction(FunctionOpInterface func) {
    if (func.isExternal())
      return success();
    if (failed(verifyPartitionOptions(func, getArgument(), stages, producerRegs,
                                      consumerRegs)))
      return failure();
    if (!tile::containsTileOps(func))
      return success();
    FailureOr<fmha::TargetInfo> info =
        fmha::TargetInfo::lookup(func, getArgument());
    if (failed(info))
      return failure();
    // A program without TMA loads and MMAs (plain loads, math, plain
    // stores) runs in one role, on every target.
    if (isPlainProgram(func))
      return assignPlainRoles(func);
    unsigned numStages = stagesOf(func, stages);
    // The register budgets (producer, consumer) are the target's for what
    // `consumers` register-computing warpgroups need
    // (fmha.consumer_registers) unless the options set them; more than two
    // share the register file at less.
    int64_t need = consumerRegistersOf(func);
    auto budgets = [&](int64_t consumers) -> std::pair<unsigned, unsigned> {
      return {producerRegs ? producerRegs
                           : info->getProducerRegisters(need, consumers),
              consumerRegs ? consumerRegs
                           : info->getConsumerRegisters(need, consumers)};
    };
    if (info->hasTensorMemory()) {
      auto [producer, consumer] = budgets(2);
      return assignRolesSM100(func, {numStages, producer, consumer});
    }
    SmallVector<scf::ForOp> turns = turnLoops(func);
    if (!turns.empty()) {
      auto [producer, consumer] = budgets(2);
      return assignTurnsSM90(func, turns, numStages, producer, consumer);
    }
    FailureOr<TileProgram> program = analyze(func);
    if (failed(program))
      return failure();
    if (!program->channels.empty()) {
      auto [producer, consumer] = budgets(program->numConsumers);
      assignSM90(func, *program, numStages, producer, consumer);
    }
    return success();
  }
};
} // namespace
