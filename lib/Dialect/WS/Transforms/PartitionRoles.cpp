//===- PartitionRoles.cpp - Materialise the warp roles of a kernel --------===//
//
// Part of fmha. Implements ws-partition-roles: the role assignment written
// on a tile program (docs/Roles.md; ws-assign-roles or by hand) becomes a
// ws.warp_specialize op with one ws.role per assigned role, each a copy of
// the program pruned to what the role runs, and a channel per assigned
// channel between the role that loads (or computes a tensor-memory
// accumulator) and the roles that read.
//
//===----------------------------------------------------------------------===//

#include "PartitionRolesSM100.h"
#include "PartitionUtils.h"
#include "PassUtils.h"
#include "ValueChannels.h"

#include "fmha/Dialect/WS/IR/RoleAssignment.h"
#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/Transforms/Passes.h"
#include "fmha/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace mlir {
namespace ws {
#define GEN_PASS_DEF_WSPARTITIONROLES
#include "fmha/Dialect/WS/Transforms/Passes.h.inc"
} // namespace ws
} // namespace mlir

using namespace mlir;
using namespace mlir::ws;

/// The loads of each channel of `func`, in program order, grouped by block:
/// the loads of a channel in one block fill one slot together (in a loop
/// body, one slot per iteration). Every slot of a channel holds the same
/// buffers.
static FailureOr<SmallVector<SmallVector<SmallVector<tile::LoadOp>>>>
collectChannels(FunctionOpInterface func, size_t numChannels) {
  SmallVector<llvm::MapVector<Block *, SmallVector<tile::LoadOp>>> byBlock(
      numChannels);
  func->walk([&](tile::LoadOp load) {
    int64_t channel =
        load->getAttrOfType<IntegerAttr>(kLoadChannelAttrName).getInt();
    byBlock[channel][load->getBlock()].push_back(load);
  });
  SmallVector<SmallVector<SmallVector<tile::LoadOp>>> channels;
  for (auto &blocks : byBlock) {
    auto &groups = channels.emplace_back();
    for (auto &entry : blocks) {
      SmallVector<tile::LoadOp> &group = entry.second;
      if (!groups.empty()) {
        SmallVector<tile::LoadOp> &first = groups.front();
        if (first.size() != group.size())
          return group.front().emitOpError("fills a slot of a channel with ")
                 << group.size() << " loads, where its other slots take "
                 << first.size();
        for (auto [a, b] : llvm::zip(first, group))
          if (a.getType() != b.getType())
            return b.emitOpError("fills the slot of a channel whose other "
                                 "slots hold ")
                   << a.getType() << " at this position";
      }
      groups.push_back(group);
    }
    // One role fills the channel.
    for (ArrayRef<tile::LoadOp> group : groups)
      for (tile::LoadOp load : group)
        if (getPartition(load) != getPartition(groups.front().front()))
          return load.emitOpError("ws-partition-roles: the loads of a "
                                  "channel must all be assigned to one role "
                                  "(ws.partition)");
  }
  return channels;
}

namespace {
/// A loop-carried value held in a channel slot (`ws.output_channels`).
struct HeldOutput {
  scf::ForOp loop;
  unsigned position;
};
} // namespace

/// The loop-carried values each channel of `func` holds (`ws.output_channels`),
/// in loop-carried order. Such a value is a tensor-memory accumulator: one
/// `tile.dot` in the loop body accumulating onto it from zero, computed by
/// one role (the channel's producer, the same for all values of the
/// channel), in one loop per channel; `loads` (the channels' loads) fill
/// none of these channels.
static FailureOr<SmallVector<SmallVector<HeldOutput>>>
collectOutputs(FunctionOpInterface func, size_t numChannels,
               ArrayRef<SmallVector<SmallVector<tile::LoadOp>>> loads,
               size_t numRoles) {
  SmallVector<SmallVector<HeldOutput>> outputs(numChannels);
  WalkResult walk = func->walk([&](scf::ForOp loop) -> WalkResult {
    for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i) {
      int32_t channel = getOutputChannel(loop, i);
      if (channel < 0)
        continue;
      auto fail = [&](Operation *op) {
        return op->emitOpError("ws-partition-roles: loop-carried value #")
               << i << " (held in channel " << channel << ", "
               << kOutputChannelsAttrName << ") ";
      };
      if (!loads[channel].empty())
        return fail(loop) << "shares its channel with tile.loads";
      auto type = cast<RankedTensorType>(loop.getResultTypes()[i]);
      if (!isa_and_nonnull<tile::TmemAttr>(type.getEncoding()))
        return fail(loop) << "must be a tensor-memory accumulator "
                             "(#tile.tmem layout)";
      SmallVector<int32_t> producers;
      for (int32_t role = 0; role < static_cast<int32_t>(numRoles); ++role)
        if (computesOutput(loop, i, role))
          producers.push_back(role);
      if (producers.size() != 1)
        return fail(loop) << "must be computed by one role "
                             "(ws.partition_outputs)";
      // Onto the loop-carried value, or onto a value of the channel (a
      // handed accumulator, which another role rescales).
      auto dot = loop.getYieldedValues()[i].getDefiningOp<tile::DotOp>();
      Operation *acc = dot ? dot.getAcc().getDefiningOp() : nullptr;
      bool handed = acc && getResultChannel(acc) == channel;
      if (!dot || dot->getParentOp() != loop ||
          (dot.getAcc() != loop.getRegionIterArgs()[i] && !handed) ||
          !dot->hasOneUse() || dot.getAsync())
        return fail(loop) << "must be one synchronous tile.dot accumulating "
                             "onto it, yielded and read by nothing else";
      if (!isZeroConstant(loop.getInitArgs()[i]))
        return fail(loop) << "must start from zeros: the first MMA of each "
                             "slot overwrites it";
      SmallVector<HeldOutput> &held = outputs[channel];
      if (!held.empty()) {
        HeldOutput first = held.front();
        if (first.loop != loop)
          return fail(loop) << "shares its channel with another loop's";
        if (!computesOutput(loop, first.position, producers.front()))
          return fail(loop) << "is computed by another role than the "
                               "channel's other values";
      }
      held.push_back({loop, i});
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return outputs;
}

/// Makes each loop-carried value of the loops in `role` that the role does
/// not compute (`ws.partition_outputs`) yield its own iteration argument:
/// its computation dies and canonicalization drops it.
static void dropOtherOutputs(RoleOp role, int32_t index) {
  role.walk([&](scf::ForOp loop) {
    Operation *yield = loop.getBody()->getTerminator();
    for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
      if (!computesOutput(loop, i, index))
        yield->setOperand(i, loop.getRegionIterArgs()[i]);
  });
}

/// Whether a role needs the tiles `loads` (its copies) read: whether one of
/// them reaches, through its users, an op with side effects or a yield. A
/// role that needs no tile of a channel (the producer of another channel,
/// say) does not take part in it; one that needs some waits for and
/// releases every slot, so that its place in the ring stays in step (a
/// ping-pong consumer walks the slots of the other's work items).
static bool needsTiles(ArrayRef<tile::LoadOp> loads) {
  SmallVector<Operation *> worklist;
  DenseSet<Operation *> seen;
  for (tile::LoadOp load : loads)
    llvm::append_range(worklist, load->getUsers());
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!seen.insert(op).second)
      continue;
    if (op->hasTrait<OpTrait::IsTerminator>() || !isMemoryEffectFree(op))
      return true;
    for (Value result : op->getResults())
      llvm::append_range(worklist, result.getUsers());
  }
  return false;
}

/// Writes `value` into the shared-memory `buffer` (in `layout` if given) for
/// the async proxy (TMA, wgmma) to read: named barrier `barrierId` of the
/// role's `threads` (every thread past the buffer's previous reads), the
/// stores, a proxy fence, the barrier again.
static void publishToAsyncProxy(OpBuilder &b, Location loc, Value value,
                                Value buffer, tile::NvmmaSharedAttr layout,
                                unsigned barrierId, int64_t threads) {
  BarrierSyncOp::create(b, loc, barrierId, threads);
  StoreSharedOp::create(b, loc, value, buffer, layout);
  FenceAsyncSharedOp::create(b, loc);
  BarrierSyncOp::create(b, loc, barrierId, threads);
}

/// Replaces `store`, a TMA store of the role, by its staged form: once the
/// previous TMA store has read the staging buffer (`ws.tma_store_wait`, then
/// named barrier `barrierId` of the role's `threads`), the value goes into
/// `buffer` (in the descriptor's swizzled layout if it has one), a proxy
/// fence, the barrier again, then `ws.tma_store`. The role
/// waits for its last store at its end, so the store of one tile overlaps
/// the next tile's main loop.
static void stageStore(OpBuilder &b, tile::StoreOp store, Value buffer,
                       unsigned barrierId, int64_t threads) {
  Location loc = store.getLoc();
  b.setInsertionPoint(store);
  TMAStoreWaitOp::create(b, loc);
  // A swizzled block (a reduce-add's) is staged in its layout.
  publishToAsyncProxy(b, loc, store.getValue(), buffer,
                      dyn_cast_or_null<tile::NvmmaSharedAttr>(
                          store.getDesc().getType().getBlock().getEncoding()),
                      barrierId, threads);
  TMAStoreOp::create(b, loc, store.getDesc(), store.getCoords(), buffer,
                     bool(store.getReduce()));
  store.erase();
}

/// Whether every dot that reads `staged` is done before the end of the
/// block of `staged`'s definition: synchronous, or waited for
/// (tile.dot_wait) in that block. The next write of the buffer (the next
/// iteration of a loop) then comes after the reads.
static bool readsEndInBlock(Value staged) {
  Block *block = staged.getDefiningOp()->getBlock();
  for (Operation *user : staged.getUsers()) {
    auto dot = dyn_cast<tile::DotOp>(user);
    if (!dot || dot->getBlock() != block)
      return false;
    if (dot.getAsync() && llvm::none_of(dot->getUsers(), [&](Operation *wait) {
          return isa<tile::DotWaitOp>(wait) && wait->getBlock() == block;
        }))
      return false;
  }
  return true;
}

/// Replaces each tile.convert_layout of `role` from registers into shared
/// memory (a dot operand tile-assign-layouts staged) by its staged form:
/// once every thread of the role is past the reads of the buffer's previous
/// contents (the role's named barrier, from `getBarrier`), the value goes
/// into a buffer of its own (`ws.store_shared` in the NVMMA layout), a
/// proxy fence, the barrier again; the dots read the buffer in place
/// (`ws.as_tensor`).
static LogicalResult stageOperands(OpBuilder &b, RoleOp role,
                                   llvm::function_ref<unsigned()> getBarrier,
                                   int64_t threads) {
  SmallVector<tile::ConvertLayoutOp> conversions;
  role.walk([&](tile::ConvertLayoutOp convert) {
    if (isa_and_nonnull<tile::NvmmaSharedAttr>(
            convert.getResult().getType().getEncoding()))
      conversions.push_back(convert);
  });
  for (tile::ConvertLayoutOp convert : conversions) {
    if (!readsEndInBlock(convert.getResult()))
      return convert.emitOpError(
          "ws-partition-roles: a register tile staged into shared memory "
          "must be read by dots done (waited for) in its block");
    RankedTensorType type = convert.getResult().getType();
    b.setInsertionPoint(role->getParentOp());
    Value buffer =
        BufferAllocOp::create(b, convert.getLoc(),
                              sharedBufferFor(RankedTensorType::get(
                                  type.getShape(), type.getElementType())),
                              IntegerAttr());
    Location loc = convert.getLoc();
    b.setInsertionPoint(convert);
    publishToAsyncProxy(b, loc, convert.getInput(), buffer,
                        cast<tile::NvmmaSharedAttr>(type.getEncoding()),
                        getBarrier(), threads);
    convert.replaceAllUsesWith(
        AsTensorOp::create(b, loc, type, buffer).getResult());
    convert.erase();
  }
  return success();
}

/// Erases from `role` (index `index`) the arrivals at counters
/// (tile.counter_arrive) assigned to other roles and the scf.ifs on them
/// (split-K's reduction), which run in the role that arrives.
static void eraseOthersArrivals(RoleOp role, int32_t index) {
  SmallVector<Operation *> others;
  role.walk([&](Operation *op) {
    ArrayRef<int32_t> roles = getPartition(op);
    if (isa<tile::CounterArriveOp, scf::IfOp>(op) && !roles.empty() &&
        !llvm::is_contained(roles, index))
      others.push_back(op);
  });
  // The ifs come after the arrivals they test.
  for (Operation *op : llvm::reverse(others))
    if (op->use_empty())
      op->erase();
}

/// Replaces each tile.counter_arrive of `role` by a ws.counter_arrive
/// synchronising the role's `threads` at named barrier `barrierId` (the
/// role's store barrier: the role runs one at a time).
static void arriveAtCounters(OpBuilder &b, RoleOp role, unsigned barrierId,
                             int64_t threads) {
  SmallVector<tile::CounterArriveOp> arrivals;
  role.walk([&](tile::CounterArriveOp arrive) { arrivals.push_back(arrive); });
  for (tile::CounterArriveOp arrive : arrivals) {
    b.setInsertionPoint(arrive);
    Value last = CounterArriveOp::create(
        b, arrive.getLoc(), b.getI1Type(), arrive.getCounters(),
        arrive.getIndex(), arrive.getCount(), barrierId, threads, Value());
    arrive.replaceAllUsesWith(last);
    arrive.erase();
  }
}

/// Checks that nothing `role` (index `index`) kept is assigned to other
/// roles only: the role would need a value it has no way to get.
static LogicalResult checkPruned(RoleOp role, int32_t index) {
  WalkResult walk = role.walk([&](Operation *op) {
    ArrayRef<int32_t> roles = getPartition(op);
    if (roles.empty() || llvm::is_contained(roles, index))
      return WalkResult::advance();
    op->emitOpError("ws-partition-roles: is assigned to other roles than '")
        << role.getRoleName()
        << "', which needs its results: assign it to that "
        << "role too, or pass its value through a channel";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

/// The values role `role` needs: those its stores and the loop-carried
/// values it computes are computed from. Checks that it computes every
/// loop-carried value it needs: a role that needed one it does not compute
/// would read the value's initial value instead, a silently wrong kernel.
/// A loop result held in a channel slot (`ws.output_channels`) it does not
/// compute it takes from the channel.
static FailureOr<DenseSet<Value>> neededValues(FunctionOpInterface func,
                                               int32_t role, StringRef name) {
  SmallVector<Value> roots;
  func->walk<WalkOrder::PreOrder>([&](Operation *op) {
    // What sits inside an op of other roles only (split-KV's merge on the
    // last arrival) is not in this role.
    ArrayRef<int32_t> roles = getPartition(op);
    if (op->getNumRegions() && !roles.empty() &&
        !llvm::is_contained(roles, role))
      return WalkResult::skip();
    if ((isa<tile::StoreOp, tile::StoreDirectOp>(op) ||
         getResultChannel(op) >= 0) &&
        llvm::is_contained(roles, role))
      llvm::append_range(roots, op->getOperands());
    if (auto loop = dyn_cast<scf::ForOp>(op))
      for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
        if (computesOutput(loop, i, role))
          roots.push_back(loop.getYieldedValues()[i]);
    return WalkResult::advance();
  });
  bool failed = false;
  DenseSet<Value> needed;
  walkBackward(roots, [&](Value v, SmallVectorImpl<Value> &next) {
    needed.insert(v);
    scf::ForOp loop;
    unsigned position = 0;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (!loop)
        return;
      if (arg.getArgNumber() == 0) {
        next.append(
            {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()});
        return;
      }
      position = arg.getArgNumber() - 1;
      // Held in a slot the role takes (a handed accumulator's producer).
      if (getOutputChannel(loop, position) >= 0 &&
          !computesOutput(loop, position, role))
        return;
    } else if ((loop = v.getDefiningOp<scf::ForOp>())) {
      position = cast<OpResult>(v).getResultNumber();
      if (getOutputChannel(loop, position) >= 0 &&
          !computesOutput(loop, position, role))
        return;
    } else {
      Operation *def = v.getDefiningOp();
      // Handed over by another role (ws.result_channel): read from a slot.
      if (getResultChannel(def) >= 0 && getPartition(def).front() != role)
        return;
      def->walk([&](Operation *nested) {
        llvm::append_range(next, nested->getOperands());
      });
      return;
    }
    next.push_back(loop.getInitArgs()[position]);
    next.push_back(loop.getYieldedValues()[position]);
    if (computesOutput(loop, position, role) || failed)
      return;
    failed = true;
    loop.emitOpError("ws-partition-roles: role '")
        << name << "' needs loop-carried value #" << position
        << ", which ws.partition_outputs does not give it";
  });
  if (failed)
    return failure();
  return needed;
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
/// tile.dot_wait that returns its result, or that of the asynchronous dots
/// accumulating onto it, anything else when it is.
static Operation *completionIn(Block *block, Operation *user) {
  auto dot = dyn_cast<tile::DotOp>(user);
  while (dot && dot.getAsync()) {
    tile::DotOp next;
    for (Operation *use : dot->getUsers()) {
      if (isa<tile::DotWaitOp>(use))
        return ancestorIn(block, use);
      // Accumulated onto by a later asynchronous dot: done with it.
      if (auto later = dyn_cast<tile::DotOp>(use);
          later && later.getAcc() == dot.getResult())
        next = later;
    }
    dot = next;
  }
  return ancestorIn(block, user);
}

/// Releases each slot `role` waits for where its readers are done: right
/// after the last of them (by threads, which know the data was read; a
/// tensor-memory slot read by tcgen05.ld), or, for a slot read by
/// synchronous dots in the loop body (a GEMM), or not read at all, at the
/// end of the body by wgmma, which ws-insert-mbarriers defers by one
/// iteration. A slot read by tcgen05 MMAs is released by tcgen05 (a commit that
/// arrives when they are done), at the end of the loop body in a loop.
static void placeReleases(OpBuilder &b, RoleOp role) {
  SmallVector<ConsumerWaitOp> waits;
  role.walk([&](ConsumerWaitOp wait) { waits.push_back(wait); });
  for (ConsumerWaitOp wait : waits) {
    // Value channels release their slots themselves (ValueRole).
    if (llvm::any_of(wait.getToken().getUsers(),
                     llvm::IsaPred<ConsumerReleaseOp>))
      continue;
    Block *block = wait->getBlock();
    Operation *last = wait;
    // In the main loop, not in a persistent kernel's tile loop around it.
    auto parent = dyn_cast<scf::ForOp>(wait->getParentOp());
    bool asyncReader = false, dotReader = false, tcgen05Reader = false,
         anyReader = false, inLoop = parent && !containsLoop(parent);
    for (Value buffer : wait.getBuffers())
      for (Operation *tensor : buffer.getUsers())
        for (Operation *user : tensor->getUsers()) {
          anyReader = true;
          if (auto dot = dyn_cast<tile::DotOp>(user)) {
            asyncReader |= dot.getAsync();
            dotReader = true;
          }
          tcgen05Reader |= isa<TCGen05MMAOp>(user);
          Operation *done = completionIn(block, user);
          if (done && last->isBeforeInBlock(done))
            last = done;
        }
    if (tcgen05Reader) {
      if (inLoop)
        b.setInsertionPoint(block->getTerminator());
      else
        b.setInsertionPointAfter(last);
      ConsumerReleaseOp::create(b, wait.getLoc(), wait.getChannel(),
                                wait.getToken(), AsyncUnit::TCGen05);
      continue;
    }
    // A slot the role waits for but does not read (another consumer's
    // work item in a ping-pong GEMM) goes back with the role's wgmmas too.
    if (inLoop && !asyncReader && (dotReader || !anyReader)) {
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

/// The producer of the values `held` of `channel` (copies of the role):
/// a slot taken before their loop, each value's dot a tcgen05 MMA into its
/// buffer of the slot (the first iteration overwrites it), the loop no
/// longer carrying the values, the slot handed over by tcgen05 after the
/// loop.
static void produceOutputs(OpBuilder &b, Value channel,
                           ArrayRef<HeldOutput> held) {
  scf::ForOp loop = held.front().loop;
  Location loc = loop.getLoc();
  b.setInsertionPoint(loop);
  auto acquire = ProducerAcquireOp::create(b, loc, channel);
  SmallVector<tile::DotOp> dots;
  for (HeldOutput output : held)
    dots.push_back(
        loop.getYieldedValues()[output.position].getDefiningOp<tile::DotOp>());
  tile::DotOp first = *llvm::min_element(
      dots, [](tile::DotOp x, tile::DotOp y) { return x->isBeforeInBlock(y); });
  b.setInsertionPoint(first);
  Value accumulate =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                            loop.getInductionVar(), loop.getLowerBound());
  Operation *yield = loop.getBody()->getTerminator();
  for (auto [output, dot, buffer] :
       llvm::zip(held, dots, acquire.getBuffers())) {
    b.setInsertionPoint(dot);
    TCGen05MMAOp::create(b, dot.getLoc(), dot.getA(), dot.getB(), buffer,
                         accumulate, dot.getTransposeAAttr(),
                         dot.getTransposeBAttr(), dot.getCtaPairAttr());
    yield->setOperand(output.position,
                      loop.getRegionIterArgs()[output.position]);
    dot.erase();
  }
  b.setInsertionPointAfter(loop);
  ProducerCommitOp::create(b, loc, channel, acquire.getToken(),
                           AsyncUnit::TCGen05, IntegerAttr());
}

/// A reader of the values `held` of `channel` (copies of the role) whose
/// results `read` says it needs: waits for a slot before their loop and
/// reads them in place.
static void consumeOutputs(OpBuilder &b, Value channel,
                           ArrayRef<HeldOutput> held,
                           function_ref<bool(HeldOutput)> read) {
  scf::ForOp loop = held.front().loop;
  Location loc = loop.getLoc();
  b.setInsertionPoint(loop);
  auto wait = ConsumerWaitOp::create(b, loc, channel);
  for (auto [output, buffer] : llvm::zip(held, wait.getBuffers())) {
    if (!read(output))
      continue;
    Value result = loop.getResult(output.position);
    result.replaceAllUsesWith(
        AsTensorOp::create(b, loc, result.getType(), buffer));
  }
}

/// Materialises the role assignment of `func`: channels and staging
/// buffers at the start of the body, then a ws.warp_specialize with one
/// pruned copy of the program per role.
static LogicalResult materialise(FunctionOpInterface func) {
  SmallVector<RoleSpecAttr> specs = getRoles(func);
  ArrayRef<int32_t> depths =
      func->getAttrOfType<DenseI32ArrayAttr>(kChannelStagesAttrName)
          .asArrayRef();
  auto loads = collectChannels(func, depths.size());
  if (failed(loads))
    return failure();
  auto outputs = collectOutputs(func, depths.size(), *loads, specs.size());
  if (failed(outputs))
    return failure();
  auto values = collectValueChannels(
      func, depths.size(),
      [&](size_t channel) { return !(*loads)[channel].empty(); },
      [&](size_t channel) -> std::optional<std::pair<scf::ForOp, unsigned>> {
        ArrayRef<HeldOutput> held = (*outputs)[channel];
        if (held.empty())
          return std::nullopt;
        return std::make_pair(held.front().loop, held.front().position);
      });
  if (failed(values))
    return failure();
  bool holdsOutputs =
      llvm::any_of(*outputs,
                   [](ArrayRef<HeldOutput> held) { return !held.empty(); }) ||
      llvm::any_of(*values,
                   [](const ValueChannel &vc) { return !vc.values.empty(); });
  // Stores of values handed through shared memory are TMA stores from the
  // slot (ValueRole); the others are staged.
  SmallVector<tile::StoreOp> stores, handedStores;
  func->walk([&](tile::StoreOp store) {
    (storesHandedValue(store) ? handedStores : stores).push_back(store);
  });
  SmallVector<tile::StoreDirectOp> directStores;
  func->walk([&](tile::StoreDirectOp store) { directStores.push_back(store); });

  SmallVector<DenseSet<Value>> needed;
  for (auto [index, spec] : llvm::enumerate(specs)) {
    FailureOr<DenseSet<Value>> values =
        neededValues(func, index, spec.getName());
    if (failed(values))
      return failure();
    needed.push_back(std::move(*values));
  }

  MLIRContext *ctx = func.getContext();
  RolePartition partition(func);
  OpBuilder &b = partition.getBuilder();
  Location loc = func.getLoc();
  SmallVector<Value> channels;
  for (auto [index, groups, held, depth, vc] :
       llvm::enumerate(*loads, *outputs, depths, *values)) {
    if (!vc.values.empty() && held.empty()) {
      auto type = ChannelType::get(
          ctx, {valueBuffer(vc.values.front()->getResult(0))}, depth);
      int32_t alias = getChannelAlias(func, index);
      channels.push_back(alias >= 0
                             ? ChannelOp::create(b, loc, type, channels[alias])
                             : ChannelOp::create(b, loc, type));
      continue;
    }
    if (!held.empty()) {
      // A tensor-memory buffer per value.
      SmallVector<MemRefType> buffers;
      for (HeldOutput output : held) {
        auto type = cast<RankedTensorType>(
            output.loop.getResultTypes()[output.position]);
        buffers.push_back(MemRefType::get(
            type.getShape(), type.getElementType(), MemRefLayoutAttrInterface(),
            TensorMemoryAttr::get(ctx)));
      }
      channels.push_back(
          ChannelOp::create(b, loc, ChannelType::get(ctx, buffers, depth)));
      continue;
    }
    if (groups.empty())
      return func->emitError("ws-partition-roles: no tile.load, "
                             "loop-carried value (ws.output_channels) or "
                             "result (ws.result_channel) fills channel ")
             << channels.size();
    channels.push_back(ChannelOp::create(
        b, loc,
        ChannelType::get(ctx, sharedBuffersFor(groups.front()), depth)));
  }
  SmallVector<Value> staging;
  for (tile::StoreOp store : stores)
    staging.push_back(allocStaging(b, store));

  partition.createKernel();
  // Named barrier 0 is the CTA's: roles that stage TMA stores get 1, 2, ...
  unsigned storeBarriers = 0;
  for (auto [index, spec] : llvm::enumerate(specs)) {
    int32_t role = index;
    RoleCopy copy =
        partition.addRole(spec.getName(), spec.getWarps(), spec.getRegs());
    dropOtherOutputs(copy.role, role);
    bool reads = false;
    for (auto [channel, groups] : llvm::zip(channels, *loads)) {
      if (groups.empty()) // A channel of loop-carried values (below).
        continue;
      SmallVector<SmallVector<tile::LoadOp>> mine;
      for (ArrayRef<tile::LoadOp> group : groups)
        mine.push_back(llvm::map_to_vector(
            group, [&](tile::LoadOp load) { return copy.lookup(load); }));
      bool produces = getPartition(groups.front().front()).front() == role;
      // A role needs a slot's tiles when the values it keeps are computed
      // from them (the loads go with what read them; checkPruned reports
      // those that stay) and its copies of them reach an op it keeps
      // (needsTiles: not the main loop of another consumer's work item).
      auto needsGroup = [&](size_t i) {
        return llvm::any_of(groups[i],
                            [&](tile::LoadOp load) {
                              return needed[index].contains(load.getResult());
                            }) &&
               needsTiles(mine[i]);
      };
      if (!produces &&
          llvm::none_of(llvm::seq<size_t>(0, groups.size()), needsGroup))
        continue;
      for (MutableArrayRef<tile::LoadOp> group : mine) {
        if (produces) {
          produceLoads(b, channel, group, [](tile::LoadOp load) {
            return load->hasAttr(kMulticastLoadAttrName);
          });
          continue;
        }
        consumeLoads(b, channel, group);
        reads = true;
      }
    }
    for (auto [channel, held, vc] : llvm::zip(channels, *outputs, *values)) {
      // A handed accumulator goes with its values (ValueRole).
      if (held.empty() || !vc.values.empty())
        continue;
      SmallVector<HeldOutput> mine;
      for (HeldOutput output : held)
        mine.push_back({copy.lookup(output.loop), output.position});
      if (computesOutput(held.front().loop, held.front().position, role)) {
        produceOutputs(b, channel, mine);
        continue;
      }
      auto readsOutput = [&](HeldOutput output) {
        return needed[index].contains(output.loop.getResult(output.position));
      };
      if (llvm::none_of(held, readsOutput))
        continue;
      consumeOutputs(b, channel, mine, [&](HeldOutput output) {
        return readsOutput({held.front().loop, output.position});
      });
      reads = true;
    }
    ValueRole valueRole(b, role, copy.map, needed[index], channels, *values);
    if (failed(valueRole.hand()))
      return failure();
    for (tile::StoreOp store : handedStores)
      if (!llvm::is_contained(getPartition(store), role))
        copy.lookup(store).erase();
    // The role's named barrier, taken when it first needs one.
    unsigned roleBarrier = 0;
    auto getRoleBarrier = [&] {
      if (!roleBarrier)
        roleBarrier = ++storeBarriers;
      return roleBarrier;
    };
    int64_t threads = spec.getWarps() * kThreadsPerWarp;
    bool staged = false;
    for (auto [store, buffer] : llvm::zip(stores, staging)) {
      tile::StoreOp clone = copy.lookup(store);
      if (!llvm::is_contained(getPartition(store), role)) {
        clone.erase();
        continue;
      }
      staged = true;
      stageStore(b, clone, buffer, getRoleBarrier(), threads);
    }
    for (tile::StoreDirectOp store : directStores)
      if (!llvm::is_contained(getPartition(store), role))
        copy.lookup(store).erase();
    eraseOthersArrivals(copy.role, role);
    bool arrives = false;
    copy.role.walk([&](tile::CounterArriveOp) { arrives = true; });
    if (arrives)
      arriveAtCounters(b, copy.role, getRoleBarrier(), threads);
    if (staged) {
      b.setInsertionPointToEnd(&copy.role.getBody().front());
      TMAStoreWaitOp::create(b, loc);
    }
    cleanUpRole(copy.role);
    // After the clean-up: a role stages only the operands it still uses.
    if (failed(stageOperands(b, copy.role, getRoleBarrier, threads)))
      return failure();
    valueRole.place();
    if (reads || valueRole.readsSlots())
      placeReleases(b, copy.role);
    valueRole.handBack();
    if (failed(checkPruned(copy.role, role)))
      return failure();
    clearRoleAssignment(copy.role);
  }
  // The zeros tensor-memory accumulators started from (replaced by not
  // accumulating on the first step) have no lowering.
  partition.eraseProgram(/*eraseUnusedConstants=*/holdsOutputs);
  clearRoleAssignment(func);
  return success();
}

namespace {
struct WSPartitionRolesPass
    : PerFunctionPass<WSPartitionRolesPass, ws::impl::WSPartitionRolesBase> {
  using PerFunctionPass::PerFunctionPass;

  LogicalResult runOnFunction(FunctionOpInterface func) {
    if (func.isExternal() || !tile::containsTileOps(func))
      return success();
    // A tile program that loads nothing has no roles to split into.
    if (!func->hasAttr(kRolesAttrName) &&
        !func->walk([](tile::LoadOp) { return WalkResult::interrupt(); })
             .wasInterrupted())
      return success();
    FailureOr<fmha::TargetInfo> info =
        fmha::TargetInfo::lookup(func, getArgument());
    if (failed(info))
      return failure();
    if (failed(verifyRoleAssignment(func, getArgument(), /*opLevel=*/true)))
      return failure();
    return materialise(func);
  }
};
} // namespace
