//===- InsertMBarriers.cpp - Channels to rings with mbarriers ------------===//
//
// Part of fmha. Implements ws-insert-mbarriers: every ws.channel becomes
// buffer rings plus full/empty mbarrier arrays, and every role carries the
// stage and phase of each channel side it uses as loop values.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/WS/Analysis/Checkers.h"
#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"
#include "fmha/Dialect/WS/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/MapVector.h"

namespace mlir {
namespace ws {
#define GEN_PASS_DEF_WSINSERTMBARRIERS
#include "fmha/Dialect/WS/Transforms/Passes.h.inc"
} // namespace ws
} // namespace mlir

using namespace mlir;
using namespace mlir::ws;

/// Marks the waits of a producer's drain at the end of its role (2-CTA
/// kernels): they take no slot, they only see every slot released.

namespace {

/// The explicit form of one channel.
struct Ring {
  SmallVector<Value> buffers;
  Value full, empty;
  unsigned stages;
  /// The channel's index among the channels of its kernel, in program order.
  unsigned index;
  /// TMA multicast fills its slots in both CTAs of a cluster: both CTAs'
  /// releases (multicast tcgen05 commits, or per-warp arrivals in both CTAs
  /// after wgmma) arrive on each empty barrier.
  bool multicast = false;
};

/// One side of one channel, as seen by a role. Sides are ordered by their
/// channel's place in the program (the stage and phase counters a loop
/// carries follow that order), never by address: the output must not depend
/// on where the IR happens to sit in memory.
struct SideKey {
  Value channel;
  bool producer;
  bool operator<(const SideKey &o) const {
    if (channel != o.channel)
      return isBefore(channel, o.channel);
    return producer < o.producer;
  }
  static bool isBefore(Value a, Value b) {
    Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
    if (x && y && x->getBlock() == y->getBlock())
      return x->isBeforeInBlock(y);
    return a.getAsOpaquePointer() < b.getAsOpaquePointer();
  }
  bool operator==(const SideKey &o) const {
    return channel == o.channel && producer == o.producer;
  }
};

/// Where a side stands: the slot it takes next and that slot's phase parity.
struct Position {
  Value stage, phase;
};

using State = std::map<SideKey, Position>;

/// The channel side an op takes slots from, if it is an acquire or a wait.
static std::optional<SideKey> getTakenSide(Operation *op) {
  if (auto acquire = dyn_cast<ProducerAcquireOp>(op))
    return SideKey{acquire.getChannel(), true};
  if (auto wait = dyn_cast<ConsumerWaitOp>(op))
    return SideKey{wait.getChannel(), false};
  return std::nullopt;
}

/// The channel sides whose slots are taken somewhere inside `op`.
static SmallVector<SideKey> getSidesTakenInside(Operation *op) {
  std::set<SideKey> sides;
  op->walk([&](Operation *nested) {
    if (nested != op)
      if (std::optional<SideKey> side = getTakenSide(nested))
        sides.insert(*side);
  });
  return SmallVector<SideKey>(sides.begin(), sides.end());
}

/// Rewrites the channels of one kernel.
class ChannelLowering {
public:
  ChannelLowering(Operation *root) : root(root), rewriter(root->getContext()) {}

  LogicalResult run();

private:
  LogicalResult createRing(ChannelOp channel, unsigned index);
  LogicalResult threadRole(RoleOp role);
  LogicalResult threadBlock(Block &block, State &state);
  LogicalResult threadFor(scf::ForOp loop, ArrayRef<SideKey> sides,
                          State &state);
  LogicalResult threadIf(scf::IfOp ifOp, ArrayRef<SideKey> sides, State &state);
  void takeSlot(Operation *op, SideKey side, State &state);
  void drain(RoleOp role, ArrayRef<SideKey> sides, const State &state);
  LogicalResult lowerSlotUsers();
  void deferRelease(Operation *op, scf::ForOp loop, Value barriers, Value stage,
                    bool multicast);

  Operation *root;
  IRRewriter rewriter;
  llvm::MapVector<Value, Ring> rings;
  /// The ring and stage of each token's slot.
  DenseMap<Value, std::pair<Ring *, Value>> tokenSlots;
};

} // namespace

/// Arrivals one role makes per phase when it signals by `unit`: one by a
/// single thread (TMA, tcgen05), one per warp where each warp's first lane
/// arrives for it (`perWarp`, the releases of a multicast ring by wgmma),
/// else one per thread.
static int64_t arrivalsOf(RoleOp role, AsyncUnit unit, bool perWarp) {
  if (unit == AsyncUnit::TMA || unit == AsyncUnit::TCGen05)
    return 1;
  return perWarp ? role.getWarps() : role.getNumThreads();
}

/// Adds up the arrivals of the roles that signal one barrier of a channel,
/// checking that each role signals it by a single unit.
template <typename SignalOp>
static FailureOr<int64_t> countArrivals(ChannelOp channel, StringRef what,
                                        bool perWarp = false) {
  // Program order, so that a conflict is reported at the later signal.
  SmallVector<SignalOp> signals;
  channel->getParentRegion()->walk([&](SignalOp signal) {
    if (signal.getChannel() == channel.getResult())
      signals.push_back(signal);
  });
  llvm::MapVector<Operation *, AsyncUnit> units;
  for (SignalOp signal : signals) {
    auto role = signal->template getParentOfType<RoleOp>();
    auto [it, inserted] = units.insert({role, signal.getUnit()});
    if (!inserted && it->second != signal.getUnit())
      return signal.emitOpError("role '")
             << role.getRoleName() << "' " << what
             << " this channel by two different units";
  }
  if (units.empty())
    return channel.emitOpError("has no ") << what << " in any role";
  int64_t arrivals = 0;
  for (auto [role, unit] : units)
    arrivals += arrivalsOf(cast<RoleOp>(role), unit, perWarp);
  return arrivals;
}

LogicalResult ChannelLowering::createRing(ChannelOp channel, unsigned index) {
  // A slot filled by TMA multicast holds data of both CTAs of the cluster:
  // it is free again once both have released it, so each CTA's empty
  // barrier also counts the peer's release: a tcgen05 commit multicast to
  // both CTAs, or, after wgmma, the first lane of each consumer warp
  // arriving in both.
  bool multicast = false;
  for (Operation *user : channel->getUsers())
    if (auto acquire = dyn_cast<ProducerAcquireOp>(user))
      for (Operation *tokenUser : acquire.getToken().getUsers())
        if (auto load = dyn_cast<TMALoadOp>(tokenUser))
          multicast |= load.getMulticast();
  if (multicast)
    for (Operation *user : channel->getUsers())
      if (auto release = dyn_cast<ConsumerReleaseOp>(user))
        if (release.getUnit() != AsyncUnit::TCGen05 &&
            release.getUnit() != AsyncUnit::WGMMA)
          return release.emitOpError(
                     "releases a slot filled by TMA multicast by ")
                 << stringifyAsyncUnit(release.getUnit())
                 << ": only tcgen05 commits and releases after wgmma reach "
                    "the peer CTA's barrier";
  FailureOr<int64_t> fullArrivals =
      countArrivals<ProducerCommitOp>(channel, "commits");
  FailureOr<int64_t> emptyArrivals = countArrivals<ConsumerReleaseOp>(
      channel, "releases", /*perWarp=*/multicast);
  if (failed(fullArrivals) || failed(emptyArrivals))
    return failure();
  ChannelType type = channel.getType();
  if (multicast)
    *emptyArrivals *= 2;

  rewriter.setInsertionPoint(channel);
  Location loc = channel.getLoc();
  Ring ring;
  ring.stages = type.getStages();
  ring.index = index;
  ring.multicast = multicast;
  // A channel over another one: its rings alias the other's (created
  // first, in program order).
  Ring *aliased = nullptr;
  if (Value other = channel.getAliases()) {
    auto it = rings.find(other);
    if (it == rings.end())
      return channel.emitOpError("aliases a channel defined after it");
    aliased = &it->second;
  }
  for (auto [i, buffer] : llvm::enumerate(type.getBuffers())) {
    SmallVector<int64_t> shape{int64_t(ring.stages)};
    llvm::append_range(shape, buffer.getShape());
    auto ringType = MemRefType::get(shape, buffer.getElementType(), nullptr,
                                    buffer.getMemorySpace());
    // Tensor-memory rings get their columns from ws-allocate-tmem (sm100).
    if (type.isTensorMemory())
      ring.buffers.push_back(TMEMBufferOp::create(
          rewriter, loc, ringType, aliased ? aliased->buffers[i] : Value(),
          Value(), IntegerAttr()));
    else
      ring.buffers.push_back(
          BufferAllocOp::create(rewriter, loc, ringType, IntegerAttr()));
  }
  auto barrierType = MBarrierType::get(rewriter.getContext(), ring.stages);
  ring.full = MBarrierAllocOp::create(rewriter, loc, barrierType,
                                      uint32_t(*fullArrivals), IntegerAttr());
  ring.empty = MBarrierAllocOp::create(rewriter, loc, barrierType,
                                       uint32_t(*emptyArrivals), IntegerAttr());
  rings[channel] = ring;
  return success();
}

/// Waits for the side's next slot, hands its buffers to the op's users, and
/// advances `state` to the slot after it.
void ChannelLowering::takeSlot(Operation *op, SideKey side, State &state) {
  Ring &ring = rings[side.channel];
  Position pos = state.at(side);
  Location loc = op->getLoc();
  rewriter.setInsertionPoint(op);
  Type i32 = rewriter.getI32Type();
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(rewriter, loc, i32, v);
  };
  Value one = constant(1);

  // A fresh barrier counts as having completed the phase before phase 0, so
  // producers wait with the inverted parity and pass the first round.
  MBarrierWaitOp wait;
  if (side.producer) {
    Value parity = arith::XOrIOp::create(rewriter, loc, pos.phase, one);
    wait = MBarrierWaitOp::create(rewriter, loc, ring.empty, pos.stage, parity);
  } else {
    wait =
        MBarrierWaitOp::create(rewriter, loc, ring.full, pos.stage, pos.phase);
  }
  // Which ring and channel the wait is on, for ws-verify-phases and for the
  // hang reports of convert-ws-to-nvvm{wait-timeout=N}.
  WSDialect &ws = WSDialect::getLoaded(wait->getContext());
  ws.getRingAttrHelper().setAttr(
      wait, rewriter.getStringAttr(side.producer ? "empty" : "full"));
  ws.getChannelAttrHelper().setAttr(wait,
                                    rewriter.getI32IntegerAttr(ring.index));
  for (auto [result, buffer] :
       llvm::zip(op->getResults().drop_front(), ring.buffers)) {
    Value slot =
        SlotOp::create(rewriter, loc, result.getType(), buffer, pos.stage);
    result.replaceAllUsesWith(slot);
  }
  tokenSlots[op->getResult(0)] = {&ring, pos.stage};

  Value flipped = arith::XOrIOp::create(rewriter, loc, pos.phase, one);
  // A one-slot ring stays on slot 0 and flips its phase at every take.
  if (ring.stages == 1) {
    state[side] = {pos.stage, flipped};
    return;
  }
  Value next = arith::AddIOp::create(rewriter, loc, pos.stage, one);
  Value wraps = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                      next, constant(ring.stages));
  state[side] = {
      arith::SelectOp::create(rewriter, loc, wraps, constant(0), next),
      arith::SelectOp::create(rewriter, loc, wraps, flipped, pos.phase)};
}

LogicalResult ChannelLowering::threadFor(scf::ForOp loop,
                                         ArrayRef<SideKey> sides,
                                         State &state) {
  SmallVector<Value> inits;
  for (SideKey side : sides) {
    inits.push_back(state.at(side).stage);
    inits.push_back(state.at(side).phase);
  }
  unsigned oldCount = loop.getNumResults();
  rewriter.setInsertionPoint(loop);
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
      [](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
        return SmallVector<Value>(args.begin(), args.end());
      });
  if (failed(replaced))
    return loop.emitOpError("could not carry channel stages through the loop");
  auto newLoop = cast<scf::ForOp>(replaced->getOperation());

  State inner = state;
  auto args = newLoop.getRegionIterArgs().drop_front(oldCount);
  for (auto [i, side] : llvm::enumerate(sides))
    inner[side] = {args[2 * i], args[2 * i + 1]};
  if (failed(threadBlock(*newLoop.getBody(), inner)))
    return failure();
  auto yield = cast<scf::YieldOp>(newLoop.getBody()->getTerminator());
  for (auto [i, side] : llvm::enumerate(sides)) {
    yield->setOperand(oldCount + 2 * i, inner.at(side).stage);
    yield->setOperand(oldCount + 2 * i + 1, inner.at(side).phase);
  }
  auto results = newLoop.getResults().drop_front(oldCount);
  for (auto [i, side] : llvm::enumerate(sides))
    state[side] = {results[2 * i], results[2 * i + 1]};
  return success();
}

LogicalResult ChannelLowering::threadIf(scf::IfOp ifOp, ArrayRef<SideKey> sides,
                                        State &state) {
  SmallVector<Type> types(ifOp.getResultTypes());
  unsigned oldCount = types.size();
  types.append(2 * sides.size(), rewriter.getI32Type());
  rewriter.setInsertionPoint(ifOp);
  auto newIf = scf::IfOp::create(rewriter, ifOp.getLoc(), types,
                                 ifOp.getCondition(), /*addThenBlock=*/false,
                                 /*addElseBlock=*/false);
  newIf.getThenRegion().takeBody(ifOp.getThenRegion());
  if (ifOp.getElseRegion().empty()) {
    Block *block = rewriter.createBlock(&newIf.getElseRegion());
    rewriter.setInsertionPointToEnd(block);
    scf::YieldOp::create(rewriter, ifOp.getLoc());
  } else {
    newIf.getElseRegion().takeBody(ifOp.getElseRegion());
  }
  for (Region *region : {&newIf.getThenRegion(), &newIf.getElseRegion()}) {
    State inner = state;
    if (failed(threadBlock(region->front(), inner)))
      return failure();
    Operation *yield = region->front().getTerminator();
    SmallVector<Value> operands(yield->getOperands());
    for (SideKey side : sides) {
      operands.push_back(inner.at(side).stage);
      operands.push_back(inner.at(side).phase);
    }
    yield->setOperands(operands);
  }
  rewriter.replaceOp(ifOp, newIf.getResults().take_front(oldCount));
  auto results = newIf.getResults().drop_front(oldCount);
  for (auto [i, side] : llvm::enumerate(sides))
    state[side] = {results[2 * i], results[2 * i + 1]};
  return success();
}

LogicalResult ChannelLowering::threadBlock(Block &block, State &state) {
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (std::optional<SideKey> side = getTakenSide(&op)) {
      takeSlot(&op, *side, state);
      continue;
    }
    if (op.getNumRegions() == 0)
      continue;
    SmallVector<SideKey> sides = getSidesTakenInside(&op);
    if (sides.empty())
      continue;
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      if (failed(threadFor(loop, sides, state)))
        return failure();
    } else if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      if (failed(threadIf(ifOp, sides, state)))
        return failure();
    } else {
      return op.emitOpError("takes channel slots inside; only scf.for and "
                            "scf.if can carry channel stages");
    }
  }
  return success();
}

LogicalResult ChannelLowering::threadRole(RoleOp role) {
  SmallVector<SideKey> sides = getSidesTakenInside(role);
  if (sides.empty())
    return success();
  Block &body = role.getBody().front();
  rewriter.setInsertionPointToStart(&body);
  Value zero = arith::ConstantIntOp::create(rewriter, role.getLoc(),
                                            rewriter.getI32Type(), 0);
  State state;
  for (SideKey side : sides)
    state[side] = {zero, zero};
  if (failed(threadBlock(body, state)))
    return failure();
  // In 2-CTA mode the even CTA's tcgen05 commits release slots in both CTAs
  // and its MMAs read the odd CTA's shared memory; with TMA multicast each
  // CTA's copies and commits land in the other: a producer waits for all
  // its slots to come back before its role ends, so that no CTA exits with
  // arrivals, writes or reads still aimed at it.
  auto kernel = role->getParentOfType<FunctionOpInterface>();
  WSDialect &ws = WSDialect::getLoaded(role->getContext());
  if (kernel && (ws.getCtaPairAttrHelper().isAttrPresent(kernel) ||
                 ws.getMulticastAttrHelper().isAttrPresent(kernel)))
    drain(role, sides, state);
  return success();
}

/// The producer tail: after a role's last acquire of each ring it fills,
/// one wait per stage on the ring's empty barrier, from the stage after the
/// last slot taken on with the phases an acquire there would use, so that
/// the role ends only once the consumers have released every slot. Nothing
/// is loaded: the waits take no slot.
void ChannelLowering::drain(RoleOp role, ArrayRef<SideKey> sides,
                            const State &state) {
  // Rings in program order, for a stable output.
  SmallVector<SideKey> producers;
  for (SideKey side : sides)
    if (side.producer)
      producers.push_back(side);
  llvm::sort(producers, [&](SideKey a, SideKey b) {
    return rings[a.channel].index < rings[b.channel].index;
  });
  Block &body = role.getBody().front();
  if (body.mightHaveTerminator())
    rewriter.setInsertionPoint(body.getTerminator());
  else
    rewriter.setInsertionPointToEnd(&body);
  Location loc = role.getLoc();
  Type i32 = rewriter.getI32Type();
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(rewriter, loc, i32, v);
  };
  for (SideKey side : producers) {
    Ring &ring = rings[side.channel];
    Position pos = state.at(side);
    Value one = constant(1);
    for (unsigned i = 0; i < ring.stages; ++i) {
      Value parity = arith::XOrIOp::create(rewriter, loc, pos.phase, one);
      auto wait =
          MBarrierWaitOp::create(rewriter, loc, ring.empty, pos.stage, parity);
      WSDialect &ws = WSDialect::getLoaded(wait->getContext());
      ws.getRingAttrHelper().setAttr(wait, rewriter.getStringAttr("empty"));
      ws.getChannelAttrHelper().setAttr(wait,
                                        rewriter.getI32IntegerAttr(ring.index));
      ws.getDrainAttrHelper().setAttr(wait, rewriter.getUnitAttr());
      if (i + 1 == ring.stages)
        break;
      Value next = arith::AddIOp::create(rewriter, loc, pos.stage, one);
      Value wraps = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, next, constant(ring.stages));
      Value flipped = arith::XOrIOp::create(rewriter, loc, pos.phase, one);
      pos = {arith::SelectOp::create(rewriter, loc, wraps, constant(0), next),
             arith::SelectOp::create(rewriter, loc, wraps, flipped, pos.phase)};
    }
  }
}

/// A release by wgmma in a loop: wait only for the wgmmas of earlier
/// iterations (`wgmma.wait_group 1`) and release the previous iteration's
/// slot, carrying its stage (-1 before the first) as a loop value; after the
/// loop, wait for all wgmmas and release the last slot. Dots whose result
/// only goes round the loop then need no wait of their own
/// (`ws.async_wgmma`), so one iteration's wgmmas overlap the next
/// iteration's wait for data. The releases of a `multicast` ring arrive in
/// both CTAs, one per warp.
void ChannelLowering::deferRelease(Operation *op, scf::ForOp loop,
                                   Value barriers, Value stage,
                                   bool multicast) {
  Location loc = op->getLoc();
  Type i32 = rewriter.getI32Type();
  rewriter.setInsertionPoint(loop);
  Value none = arith::ConstantIntOp::create(rewriter, loc, i32, -1);
  DenseMap<Value, unsigned> oldArgs;
  for (BlockArgument arg : loop.getBody()->getArguments())
    oldArgs[arg] = arg.getArgNumber();
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, none, /*replaceInitOperandUsesInLoop=*/false,
      [](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
        return SmallVector<Value>(args.begin(), args.end());
      });
  auto newLoop = cast<scf::ForOp>(replaced->getOperation());
  Value previous = newLoop.getRegionIterArgs().back();
  // The old body's arguments are gone: stages recorded as iteration
  // arguments now live in the new loop.
  auto remap = [&](Value value) -> Value {
    auto it = oldArgs.find(value);
    return it == oldArgs.end() ? value
                               : newLoop.getBody()->getArgument(it->second);
  };
  stage = remap(stage);
  for (auto &entry : tokenSlots)
    entry.second.second = remap(entry.second.second);

  auto releaseIfAny = [&](Value slot) {
    Value any = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::sge, slot,
        arith::ConstantIntOp::create(rewriter, loc, i32, 0));
    auto ifOp = scf::IfOp::create(rewriter, loc, any, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    MBarrierArriveOp::create(rewriter, loc, barriers, slot, /*leader=*/false,
                             IntegerAttr(), /*tcgen05=*/false, multicast);
  };
  rewriter.setInsertionPoint(op);
  NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, 1);
  releaseIfAny(previous);
  Operation *yield = newLoop.getBody()->getTerminator();
  yield->setOperand(yield->getNumOperands() - 1, stage);

  rewriter.setInsertionPointAfter(newLoop);
  NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, 0);
  releaseIfAny(newLoop.getResults().back());
  // Only dots whose result just goes round the loop (to the next
  // iteration's dot, or out of the loop after the final wait) may stay in
  // flight; a result read in the iteration (attention's S) is waited for.
  Operation *loopYield = newLoop.getBody()->getTerminator();
  newLoop.getBody()->walk([&](tile::DotOp dot) {
    if (llvm::all_of(dot->getUsers(),
                     [&](Operation *user) { return user == loopYield; }))
      WSDialect::getLoaded(dot.getContext())
          .getAsyncWgmmaAttrHelper()
          .setAttr(dot, rewriter.getUnitAttr());
  });
}

/// Replaces commits, releases and TMA loads, which name a token, by
/// operations on the token's barrier and stage; then drops the tokens.
LogicalResult ChannelLowering::lowerSlotUsers() {
  SmallVector<Operation *> users;
  root->walk([&](Operation *op) {
    if (isa<ProducerCommitOp, ConsumerReleaseOp, TMALoadOp>(op))
      users.push_back(op);
  });
  for (Operation *op : users) {
    Location loc = op->getLoc();
    rewriter.setInsertionPoint(op);
    auto slotOf = [&](Value token) { return tokenSlots.lookup(token); };
    if (auto load = dyn_cast<TMALoadOp>(op)) {
      auto [ring, stage] = slotOf(load.getToken());
      TMALoadMBarrierOp::create(rewriter, loc, load.getDesc(), load.getCoords(),
                                load.getBuffer(), ring->full, stage,
                                load.getMulticast());
      rewriter.eraseOp(op);
      continue;
    }
    bool commit = isa<ProducerCommitOp>(op);
    AsyncUnit unit = commit ? cast<ProducerCommitOp>(op).getUnit()
                            : cast<ConsumerReleaseOp>(op).getUnit();
    Value token = op->getOperand(1);
    auto [ring, stage] = slotOf(token);
    Value barriers = commit ? ring->full : ring->empty;
    switch (unit) {
    case AsyncUnit::TMA:
      MBarrierArriveOp::create(
          rewriter, loc, barriers, stage, /*leader=*/true,
          rewriter.getI64IntegerAttr(*cast<ProducerCommitOp>(op).getTxBytes()));
      break;
    case AsyncUnit::Threads:
      // Ordinary stores into the slot may be read next by TMA or the tensor
      // cores, which go through the async proxy.
      if (commit)
        FenceAsyncSharedOp::create(rewriter, loc);
      MBarrierArriveOp::create(rewriter, loc, barriers, stage,
                               /*leader=*/false, IntegerAttr());
      break;
    case AsyncUnit::WGMMA:
      if (auto loop = dyn_cast<scf::ForOp>(op->getParentOp());
          loop && !commit) {
        deferRelease(op, loop, barriers, stage, !commit && ring->multicast);
        break;
      }
      NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, 0);
      MBarrierArriveOp::create(rewriter, loc, barriers, stage,
                               /*leader=*/false, IntegerAttr(),
                               /*tcgen05=*/false, !commit && ring->multicast);
      break;
    case AsyncUnit::TCGen05:
      // tcgen05.commit by the thread that issued the MMAs: one arrival, when
      // they complete; a release of a multicast ring arrives in both CTAs.
      MBarrierArriveOp::create(rewriter, loc, barriers, stage,
                               /*leader=*/true, IntegerAttr(),
                               /*tcgen05=*/true,
                               /*multicast=*/!commit && ring->multicast);
      break;
    }
    rewriter.eraseOp(op);
  }
  // The tokens are now unused: drop the acquires and waits, then channels.
  SmallVector<Operation *> dead;
  root->walk([&](Operation *op) {
    if (isa<ProducerAcquireOp, ConsumerWaitOp>(op))
      dead.push_back(op);
  });
  for (Operation *op : dead)
    rewriter.eraseOp(op);
  // Later channels may alias earlier ones: erase them first.
  for (auto &entry : llvm::reverse(rings))
    rewriter.eraseOp(entry.first.getDefiningOp());
  return success();
}

LogicalResult ChannelLowering::run() {
  SmallVector<ChannelOp> channels;
  root->walk([&](ChannelOp op) { channels.push_back(op); });
  if (channels.empty())
    return success();
  // Channels are numbered in program order within their kernel.
  DenseMap<Operation *, unsigned> channelsPerKernel;
  for (ChannelOp channel : channels) {
    Operation *kernel = channel->getParentOfType<FunctionOpInterface>();
    unsigned index = channelsPerKernel[kernel]++;
    for (Operation *user : channel->getUsers())
      if (!isa<ProducerAcquireOp, ConsumerWaitOp, ProducerCommitOp,
               ConsumerReleaseOp, ChannelOp>(user))
        return user->emitOpError("uses a channel; only acquire, commit, wait "
                                 "and release may");
    if (failed(createRing(channel, index)))
      return failure();
  }
  SmallVector<RoleOp> roles;
  root->walk([&](RoleOp role) { roles.push_back(role); });
  for (RoleOp role : roles)
    if (failed(threadRole(role)))
      return failure();
  return lowerSlotUsers();
}

namespace {
struct WSInsertMBarriersPass
    : public ws::impl::WSInsertMBarriersBase<WSInsertMBarriersPass> {
  using Base::Base;

  void runOnOperation() override {
    // A protocol that ws-verify-protocol has not proved is proved here
    // first: the rings built below would make a broken one a hang or a
    // race.
    if ((verifyProtocol &&
         failed(
             verifyUnmarked(getOperation(),
                            WSDialect::ProtocolVerifiedAttrHelper::getNameStr(),
                            ws::verifyProtocol))) ||
        failed(ChannelLowering(getOperation()).run()))
      signalPassFailure();
  }
};
} // namespace
