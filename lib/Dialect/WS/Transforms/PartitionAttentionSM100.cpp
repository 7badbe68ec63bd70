//===- PartitionAttentionSM100.cpp - Attention roles for Blackwell --------===//
//
// Part of fmha. ws-partition-roles on sm_100a for attention tile programs
// (Q loaded before the main loop, S = Q K^T and O += P V per consumer):
//
// - a load warp: Q once (a one-slot channel), K and V per step (a ring);
// - an MMA warp: per consumer, S into its tensor-memory slot (a one-slot
//   channel, committed by tcgen05), and, once the softmax wrote P over S
//   (a channel aliasing S's) and the correction handed O over (O's own
//   one-slot tensor-memory channel), O += P V, releasing both by tcgen05;
// - an epilogue warp: per consumer, the staged O to global memory by TMA
//   (a one-slot shared-memory channel from the correction);
// - a correction warpgroup: per step and consumer, the rescale factor from
//   the softmax (a two-slot shared-memory ring of row vectors), a slot of O
//   (so the previous P V is done), O rescaled in tensor memory 32 columns
//   at a time, O committed; after the loop the last O, the row sum (the
//   same ring), O normalised and staged 32 columns at a time;
// - a softmax warpgroup per consumer: a P slot, S read in place
//   (tcgen05.ld) 32 columns at a time in two passes (the row maximum, then
//   P = exp2(S - max) with its row sum, each chunk of P stored over the
//   columns of S already read) and released after its last chunk, the
//   rescale factor sent, P committed; after the loop the reciprocal of the
//   row sum sent and the LSE row stored.
//
// The roles store whole rows; ws-chunk-row-stores, after this pass, makes
// the 32-column chunks described above and moves S's release after its
// last chunk.
//
// The order of the MMA warp's tcgen05 ops, which execute in issue order,
// keeps P over S safe: S of a step is written only after P V of the
// previous step was issued.
//
//===----------------------------------------------------------------------===//

#include "PartitionRolesSM100.h"
#include "PartitionUtils.h"

#include "fmha/Dialect/WS/IR/RoleAssignment.h"
#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"
#include "fmha/Target/TargetLimits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::ws;

/// What barriers, the TMEM address slot and alignment take of shared memory
/// besides the buffers.
static constexpr int64_t kSharedSlackBytes = 4096;
/// Rows of a tile: the lanes of tensor memory, one per thread of a
/// warpgroup.
static constexpr int64_t kTMEMRows = 128;
/// Slots of the ring of row vectors from a softmax warpgroup to the
/// correction: the softmax may run one step ahead.
static constexpr unsigned kRowStages = 2;
/// Register budgets: the load, MMA and epilogue warps (one warpgroup), and
/// the correction warpgroup, which holds 32 columns of O at a time. The
/// softmax warpgroups, streaming S, get the rest: 176 each for two
/// consumers. ptxas -v on every head-dim-64 configuration: no spills with
/// 72 / 88 / 176; the MMA warp needs 80 at head dim 128 (its hoisted
/// descriptors), the correction 88, the softmax 176.
static constexpr unsigned kWarpRegisters = 72;
static constexpr unsigned kCorrectionRegisters = 88;
static constexpr unsigned kWarpgroupThreads = kWarpsPerGroup * kThreadsPerWarp;

namespace {

/// One consumer's two dots and the conversions into tensor memory that feed
/// P V.
struct Consumer {
  tile::DotOp s, pv;
  unsigned oPosition;
  /// P (registers -> packed TMEM) and the rescaled O (registers -> TMEM).
  tile::ConvertLayoutOp pStore, oStore;
};

struct Attention {
  scf::ForOp loop;
  SmallVector<tile::LoadOp> prologue, loads;
  SmallVector<Consumer> consumers;
  SmallVector<tile::StoreOp> stores;
  /// Plain stores of row vectors (the LSE).
  SmallVector<tile::StoreDirectOp> directStores;
};

} // namespace

static bool isTmem(Value v) {
  return isa_and_nonnull<tile::TmemAttr>(
      cast<RankedTensorType>(v.getType()).getEncoding());
}

static FailureOr<Attention> analyze(FunctionOpInterface func) {
  Attention a;
  SmallVector<tile::LoadOp> all;
  func->walk([&](tile::LoadOp load) { all.push_back(load); });
  func->walk([&](tile::StoreOp store) { a.stores.push_back(store); });
  func->walk(
      [&](tile::StoreDirectOp store) { a.directStores.push_back(store); });
  for (tile::LoadOp load : all)
    if (auto loop = dyn_cast<scf::ForOp>(load->getParentOp())) {
      a.loop = loop;
      break;
    }
  if (!a.loop)
    return func.emitError("attention on sm100: no tile.load in a main loop");
  for (tile::LoadOp load : all) {
    if (load->getParentOp() == a.loop)
      a.loads.push_back(load);
    else if (load->getBlock() == a.loop->getBlock() &&
             load->isBeforeInBlock(a.loop))
      a.prologue.push_back(load);
    else
      return load.emitOpError("attention on sm100: loads sit in the main "
                              "loop or before it, in its block");
  }
  SmallVector<tile::DotOp> sDots, pvDots;
  for (Operation &op : a.loop.getBody()->without_terminator()) {
    auto dot = dyn_cast<tile::DotOp>(op);
    if (!dot)
      continue;
    if (!isTmem(dot.getAcc()))
      return dot.emitOpError(
          "needs a tensor-memory accumulator: run "
          "tile-assign-layouts on an sm_100a gpu.module first");
    auto qLoad = dot.getA().getDefiningOp<tile::LoadOp>();
    if (qLoad && llvm::is_contained(a.prologue, qLoad) &&
        dot.getAcc().getDefiningOp<arith::ConstantOp>())
      sDots.push_back(dot);
    else if (dot.getA().getDefiningOp<tile::ConvertLayoutOp>() &&
             isTmem(dot.getA()))
      pvDots.push_back(dot);
    else
      return dot.emitOpError("attention on sm100: a dot is S = Q K^T (Q "
                             "loaded before the loop, a zero accumulator) "
                             "or O += P V (P stored into tensor memory)");
    if (!dot.getB().getDefiningOp<tile::LoadOp>())
      return dot.emitOpError("attention on sm100: B comes straight from a "
                             "tile.load in the loop");
  }
  if (sDots.empty() || sDots.size() != pvDots.size())
    return a.loop.emitOpError("attention on sm100: expects one S = Q K^T and "
                              "one O += P V per consumer");
  Operation *yield = a.loop.getBody()->getTerminator();
  for (auto [s, pv] : llvm::zip(sDots, pvDots)) {
    Consumer c{s, pv, 0, {}, {}};
    auto position = llvm::find(yield->getOperands(), pv.getResult());
    if (position == yield->operand_end())
      return pv.emitOpError("attention on sm100: O += P V must be carried by "
                            "the loop");
    c.oPosition = std::distance(yield->operand_begin(), position);
    if (pv.getAcc() != a.loop.getRegionIterArgs()[c.oPosition]) {
      c.oStore = pv.getAcc().getDefiningOp<tile::ConvertLayoutOp>();
      if (!c.oStore)
        return pv.emitOpError("attention on sm100: O's accumulator is the "
                              "loop's O or a rescaled copy stored back");
    }
    c.pStore = pv.getA().getDefiningOp<tile::ConvertLayoutOp>();
    a.consumers.push_back(c);
  }
  for (tile::StoreOp store : a.stores)
    if (store->getBlock() != a.loop->getBlock())
      return store.emitOpError("must be in the block of the main loop");
  for (tile::StoreDirectOp store : a.directStores)
    if (store->getBlock() != a.loop->getBlock())
      return store.emitOpError("must be in the block of the main loop");
  return a;
}

/// Loads (not pure, so canonicalization keeps them) that nothing reads.
static void eraseDeadLoads(RoleOp role) {
  SmallVector<tile::LoadOp> dead;
  role.walk([&](tile::LoadOp load) {
    if (load->use_empty())
      dead.push_back(load);
  });
  for (tile::LoadOp load : dead)
    load.erase();
}

/// The loop-carried positions the value `v` (in the loop's block, after
/// it) reads, and, transitively, those they read in the loop.
static llvm::SmallSetVector<unsigned, 8> positionsRead(Value v,
                                                       scf::ForOp loop) {
  llvm::SmallSetVector<unsigned, 8> positions;
  SmallVector<Value> worklist{v};
  DenseSet<Value> seen;
  Block *body = loop.getBody();
  while (!worklist.empty()) {
    Value x = worklist.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(x)) {
      if (arg.getOwner() == body && arg.getArgNumber() >= 1 &&
          positions.insert(arg.getArgNumber() - 1))
        worklist.push_back(loop.getYieldedValues()[arg.getArgNumber() - 1]);
      continue;
    }
    Operation *def = x.getDefiningOp();
    if (!def)
      continue;
    if (def == loop.getOperation()) {
      unsigned i = cast<OpResult>(x).getResultNumber();
      if (positions.insert(i))
        worklist.push_back(loop.getYieldedValues()[i]);
      continue;
    }
    llvm::append_range(worklist, def->getOperands());
  }
  return positions;
}

/// The row vector `value` (computed from a loop result or in the loop)
/// broadcast over the columns of a row computation: the only
/// `tile.broadcast` among the ops in `block` that `value` is computed by.
/// The correction takes it from the softmax; null when there is none.
static tile::BroadcastOp rowFactor(Value value, Block *block) {
  tile::BroadcastOp found;
  bool several = false;
  walkBackward(value, [&](Value v, SmallVectorImpl<Value> &next) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != block)
      return;
    if (auto broadcast = dyn_cast<tile::BroadcastOp>(def)) {
      several |= found && found != broadcast;
      found = broadcast;
      return;
    }
    llvm::append_range(next, def->getOperands());
  });
  return several ? tile::BroadcastOp() : found;
}

/// The ops of `block` that `value` is computed by, in block order, up to
/// (not including) `o`, the row vector of `factor`, block arguments and
/// values from outside.
static SmallVector<Operation *> rowChain(Value value, Block *block,
                                         tile::BroadcastOp factor, Value o) {
  llvm::SetVector<Operation *> chain;
  SmallVector<Value> worklist{value};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (v == o)
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != block || !chain.insert(def))
      continue;
    if (factor && def == factor.getOperation())
      continue;
    llvm::append_range(worklist, def->getOperands());
  }
  SmallVector<Operation *> ordered = chain.takeVector();
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// Erases the ops of `block` (but its terminator) that neither hold ws
/// ops nor compute what they read, last first.
static void keepWSWork(Block *block) {
  llvm::SmallPtrSet<Operation *, 32> needed;
  SmallVector<Operation *> worklist;
  for (Operation &op : block->without_terminator()) {
    bool ws = false;
    op.walk([&](Operation *nested) {
      ws |= isa_and_nonnull<WSDialect>(nested->getDialect());
    });
    if (ws)
      worklist.push_back(&op);
  }
  worklist.push_back(block->getTerminator());
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!needed.insert(op).second)
      continue;
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (Operation *def = operand.getDefiningOp())
          if (Operation *inBlock = block->findAncestorOpInBlock(*def))
            worklist.push_back(inBlock);
    });
  }
  SmallVector<Operation *> unneeded;
  for (Operation &op : block->without_terminator())
    if (!needed.contains(&op))
      unneeded.push_back(&op);
  for (Operation *op : llvm::reverse(unneeded)) {
    op->dropAllUses();
    op->erase();
  }
}

struct AttentionRoles {
  OpBuilder &b;
  Location loc;
  Value q, kv;
  /// Per consumer: S, P over S, O (tensor memory; the correction produces
  /// O rescaled, the MMA warp consumes it by accumulating P V into it), and
  /// the row vectors the softmax hands to the correction (the rescale
  /// factor per step, the row sum after the loop).
  SmallVector<Value> s, p, o, rows;
  /// Per tile.store: the staged output, from the correction to the
  /// epilogue warp.
  SmallVector<Value> out;
  /// Per tile.store: the consumer whose O it stores.
  SmallVector<unsigned> storeConsumer;

  void buildLoad(Attention &a) {
    for (tile::StoreOp store : a.stores)
      store.erase();
    for (tile::StoreDirectOp store : a.directStores)
      store.erase();
    dropCarried(a.loop);
    produceLoads(b, q, a.prologue);
    produceLoads(b, kv, a.loads);
  }

  /// Per step and consumer: S into its slot; once P and the rescaled O are
  /// in, O += P V (the first step overwrites O), which hands both back when
  /// done (tcgen05 commits). After the loop, O once more: the correction
  /// has read the last one.
  void buildMMA(Attention &a) {
    for (tile::StoreOp store : a.stores)
      store.erase();
    for (tile::StoreDirectOp store : a.directStores)
      store.erase();
    Value qToken = consumeLoads(b, q, a.prologue);
    Value kvToken = consumeLoads(b, kv, a.loads);
    Block *body = a.loop.getBody();
    b.setInsertionPointToStart(body);
    Value accumulate =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                              a.loop.getInductionVar(), a.loop.getLowerBound());
    for (auto [i, c] : llvm::enumerate(a.consumers)) {
      b.setInsertionPoint(c.s);
      auto acquire = ProducerAcquireOp::create(b, loc, s[i]);
      Value none = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
      TCGen05MMAOp::create(b, c.s.getLoc(), c.s.getA(), c.s.getB(),
                           acquire.getBuffers()[0], none,
                           c.s.getTransposeAAttr(), c.s.getTransposeBAttr());
      ProducerCommitOp::create(b, loc, s[i], acquire.getToken(),
                               AsyncUnit::TCGen05, IntegerAttr());
      b.setInsertionPoint(c.pv);
      auto pWait = ConsumerWaitOp::create(b, loc, p[i]);
      auto oWait = ConsumerWaitOp::create(b, loc, o[i]);
      Value pTensor = AsTensorOp::create(b, loc, c.pv.getA().getType(),
                                         pWait.getBuffers()[0]);
      TCGen05MMAOp::create(b, c.pv.getLoc(), pTensor, c.pv.getB(),
                           oWait.getBuffers()[0], accumulate,
                           c.pv.getTransposeAAttr(), c.pv.getTransposeBAttr());
      ConsumerReleaseOp::create(b, loc, p[i], pWait.getToken(),
                                AsyncUnit::TCGen05);
      ConsumerReleaseOp::create(b, loc, o[i], oWait.getToken(),
                                AsyncUnit::TCGen05);
    }
    b.setInsertionPoint(body->getTerminator());
    ConsumerReleaseOp::create(b, loc, kv, kvToken, AsyncUnit::TCGen05);
    dropCarried(a.loop);
    b.setInsertionPointAfter(a.loop);
    for (Value channel : o) {
      auto wait = ConsumerWaitOp::create(b, loc, channel);
      ConsumerReleaseOp::create(b, loc, channel, wait.getToken(),
                                AsyncUnit::TCGen05);
    }
    ConsumerReleaseOp::create(b, loc, q, qToken, AsyncUnit::TCGen05);
  }

  /// Hands the row vector `value` to the correction through a slot of
  /// `channel`, right after it is computed.
  void sendRow(Value channel, Value value) {
    b.setInsertionPointAfterValue(value);
    auto slot = ProducerAcquireOp::create(b, loc, channel);
    StoreSharedOp::create(b, loc, value, slot.getBuffers()[0]);
    ProducerCommitOp::create(b, loc, channel, slot.getToken(),
                             AsyncUnit::Threads, IntegerAttr());
  }

  /// The softmax of consumer `index`: per step a P slot (the previous P V
  /// is then done), S read in place and released, the online softmax in
  /// registers, the rescale factor to the correction, P over S. After the
  /// loop, the row sum to the correction and the LSE row to global memory.
  LogicalResult buildSoftmax(Attention &a, unsigned index) {
    Consumer &c = a.consumers[index];
    Block *body = a.loop.getBody();
    // The statistics this consumer's O update reads (row max, row sum)
    // are its own; so are the LSE stores reading them. O itself is the
    // correction's and the MMA warp's.
    llvm::SmallSetVector<unsigned, 8> keep =
        positionsRead(a.loop.getYieldedValues()[c.oPosition], a.loop);
    keep.remove(c.oPosition);
    for (tile::StoreDirectOp store : a.directStores) {
      llvm::SmallSetVector<unsigned, 8> reads =
          positionsRead(store.getValue(), a.loop);
      if (llvm::any_of(reads, [&](unsigned i) { return keep.contains(i); }))
        keep.insert(reads.begin(), reads.end());
      else
        store.erase();
    }
    // The row sum O is divided by, for each of this consumer's stores.
    SmallVector<Value> sums;
    for (auto [store, consumer] : llvm::zip(a.stores, storeConsumer)) {
      if (consumer == index)
        if (tile::BroadcastOp sum =
                rowFactor(store.getValue(), store->getBlock())) {
          sums.push_back(sum.getInput());
          llvm::SmallSetVector<unsigned, 8> reads =
              positionsRead(sum.getInput(), a.loop);
          keep.insert(reads.begin(), reads.end());
        }
    }
    Operation *yield = body->getTerminator();
    for (auto [i, arg] : llvm::enumerate(a.loop.getRegionIterArgs()))
      if (!keep.contains(i))
        yield->setOperand(i, arg);

    b.setInsertionPointToStart(body);
    auto pSlot = ProducerAcquireOp::create(b, loc, p[index]);
    b.setInsertionPoint(c.s);
    auto sWait = ConsumerWaitOp::create(b, loc, s[index]);
    Value sNow =
        AsTensorOp::create(b, loc, c.s.getType(), sWait.getBuffers()[0]);
    c.s.getResult().replaceAllUsesWith(sNow);
    Value alpha;
    if (c.oStore)
      if (tile::BroadcastOp factor = rowFactor(c.oStore.getInput(), body))
        alpha = factor.getInput();
    b.setInsertionPoint(c.pStore);
    StoreTMEMOp::create(b, loc, c.pStore.getInput(), pSlot.getBuffers()[0]);
    ProducerCommitOp::create(b, loc, p[index], pSlot.getToken(),
                             AsyncUnit::Threads, IntegerAttr());
    // P V and the rescale of O are the other roles'.
    for (Consumer &other : a.consumers) {
      other.pv.getResult().replaceAllUsesWith(other.pv.getAcc());
      other.pv.erase();
    }
    for (Consumer &other : a.consumers) {
      if (other.oStore && other.oStore->use_empty())
        other.oStore.erase();
      if (other.pStore->use_empty())
        other.pStore.erase();
    }
    c.s.erase();
    // S goes back once read; the MMA warp writes the next S only after the
    // P V that reads this P (tcgen05 ops run in order). ws-chunk-row-stores
    // streams S 32 columns at a time (a pass for the row maximum, then one
    // that computes P, its row sum and stores it over S chunk by chunk) and
    // moves the release after the last chunk.
    Operation *lastRead = lastTensorMemoryRead(sWait.getBuffers()[0], body);
    b.setInsertionPointAfter(lastRead ? lastRead : sWait.getOperation());
    ConsumerReleaseOp::create(b, loc, s[index], sWait.getToken(),
                              AsyncUnit::Threads);
    if (alpha)
      sendRow(rows[index], alpha);
    // After the loop, the row vector the correction multiplies O by: the
    // program's reciprocal of the row sum (one rcp per row).
    for (Value sum : sums) {
      b.setInsertionPointAfterValue(sum);
      sendRow(rows[index], sum);
    }
    for (tile::StoreOp store : a.stores)
      store.erase();
    return success();
  }

  /// The row vector of `factor` from the softmax, through a slot of
  /// `channel` (null when there is no factor).
  Value receiveRow(Value channel, tile::BroadcastOp factor) {
    if (!factor)
      return Value();
    auto wait = ConsumerWaitOp::create(b, loc, channel);
    Value row = LoadSharedOp::create(b, loc, factor.getInput().getType(),
                                     wait.getBuffers()[0]);
    ConsumerReleaseOp::create(b, loc, channel, wait.getToken(),
                              AsyncUnit::Threads);
    return row;
  }

  /// A copy of the row computation `value` of `block` at the insertion
  /// point, reading `o` for `oOld` and `row` for the factor's row vector,
  /// and its store of `value` into `buffer` (ws-chunk-row-stores streams it
  /// 32 columns at a time). Returns the store.
  Operation *copyRowStore(Value value, Block *block, Value oOld, Value o,
                          tile::BroadcastOp factor, Value row, Value buffer,
                          bool toTensorMemory) {
    IRMapping map;
    map.map(oOld, o);
    if (factor)
      map.map(factor.getInput(), row);
    for (Operation *op : rowChain(value, block, factor, oOld))
      b.clone(*op, map);
    Value copy = map.lookupOrDefault(value);
    if (toTensorMemory)
      return StoreTMEMOp::create(b, loc, copy, buffer);
    return StoreSharedOp::create(b, loc, copy, buffer);
  }

  /// Consumer `index`'s part of the correction in the loop: the rescale
  /// factor from the softmax, a slot of O (the previous P V is done), O
  /// rescaled in place 32 columns at a time, O handed to the MMA warp.
  void correctStep(Attention &a, unsigned index) {
    Consumer &c = a.consumers[index];
    Block *body = a.loop.getBody();
    tile::BroadcastOp factor = rowFactor(c.oStore.getInput(), body);
    b.setInsertionPoint(c.oStore);
    Value row = receiveRow(rows[index], factor);
    auto slot = ProducerAcquireOp::create(b, loc, o[index]);
    Value oIter = a.loop.getRegionIterArgs()[c.oPosition];
    Value oNow =
        AsTensorOp::create(b, loc, oIter.getType(), slot.getBuffers()[0]);
    Operation *last =
        copyRowStore(c.oStore.getInput(), body, oIter, oNow, factor, row,
                     slot.getBuffers()[0], /*toTensorMemory=*/true);
    b.setInsertionPointAfter(last);
    ProducerCommitOp::create(b, loc, o[index], slot.getToken(),
                             AsyncUnit::Threads, IntegerAttr());
  }

  /// Consumer `index`'s part after the loop, for its store `k`: the last
  /// O (its slot comes back after the last P V), the row sum from the
  /// softmax, O normalised and staged 32 columns at a time into the output
  /// slot, which goes to the epilogue warp.
  void correctEnd(Attention &a, unsigned index, unsigned k) {
    Consumer &c = a.consumers[index];
    tile::StoreOp store = a.stores[k];
    Block *block = store->getBlock();
    tile::BroadcastOp factor = rowFactor(store.getValue(), block);
    b.setInsertionPoint(store);
    auto slot = ProducerAcquireOp::create(b, loc, o[index]);
    Value oResult = a.loop.getResult(c.oPosition);
    Value oNow =
        AsTensorOp::create(b, loc, oResult.getType(), slot.getBuffers()[0]);
    Value row = receiveRow(rows[index], factor);
    auto staged = ProducerAcquireOp::create(b, loc, out[k]);
    Operation *last =
        copyRowStore(store.getValue(), block, oResult, oNow, factor, row,
                     staged.getBuffers()[0], /*toTensorMemory=*/false);
    b.setInsertionPointAfter(last);
    ProducerCommitOp::create(b, loc, out[k], staged.getToken(),
                             AsyncUnit::Threads, IntegerAttr());
    ProducerCommitOp::create(b, loc, o[index], slot.getToken(),
                             AsyncUnit::Threads, IntegerAttr());
    store.erase();
  }

  /// The correction warpgroup: each consumer's O in tensor memory, rescaled
  /// per step and normalised and staged at the end.
  void buildCorrection(Attention &a) {
    for (tile::StoreDirectOp store : a.directStores)
      store.erase();
    for (auto [i, c] : llvm::enumerate(a.consumers))
      if (c.oStore)
        correctStep(a, i);
    dropCarried(a.loop);
    for (Consumer &c : a.consumers)
      c.s.getResult().replaceAllUsesWith(c.s.getAcc());
    keepWSWork(a.loop.getBody());
    for (auto [k, consumer] : llvm::enumerate(storeConsumer))
      correctEnd(a, consumer, k);
    keepWSWork(a.loop->getBlock());
  }

  /// The epilogue warp: each staged output to global memory by TMA; the
  /// slot goes back once the copy has read it.
  void buildEpilogue(Attention &a) {
    for (tile::StoreDirectOp store : a.directStores)
      store.erase();
    for (auto [k, store] : llvm::enumerate(a.stores)) {
      b.setInsertionPoint(store);
      auto wait = ConsumerWaitOp::create(b, loc, out[k]);
      TMAStoreOp::create(b, store.getLoc(), store.getDesc(), store.getCoords(),
                         wait.getBuffers()[0]);
      TMAStoreWaitOp::create(b, loc);
      ConsumerReleaseOp::create(b, loc, out[k], wait.getToken(),
                                AsyncUnit::Threads);
      store.erase();
    }
    keepWSWork(a.loop->getBlock());
  }
};

/// The roles of sm100 attention with `consumers` softmax warpgroups, in
/// order: warpgroup 0's load, MMA and epilogue warps, the correction
/// warpgroup, the softmax warpgroups.
static SmallVector<std::string> roleNames(unsigned consumers) {
  SmallVector<std::string> names{"load", "mma", "epilogue", "correction"};
  for (unsigned i = 0; i < consumers; ++i)
    names.push_back(("softmax" + Twine(i)).str());
  return names;
}

LogicalResult ws::assignAttentionRolesSM100(FunctionOpInterface func,
                                            const SM100RoleOptions &options) {
  FailureOr<Attention> attention = analyze(func);
  if (failed(attention))
    return failure();
  // Q, the K/V ring, the row vectors from the softmax to the correction and
  // the staging of the outputs must fit in shared memory (the sm90
  // partition stages O in Q's slot, which the MMA warp holds here): fewer
  // K/V stages when they would not.
  unsigned stages = options.stages;
  int64_t fixedBytes = kSharedSlackBytes;
  for (MemRefType buffer : sharedBuffersFor(attention->prologue))
    fixedBytes += getMemRefBytes(buffer);
  for (tile::StoreOp store : attention->stores)
    fixedBytes += store.getValue().getType().getNumElements() *
                  store.getValue().getType().getElementTypeBitWidth() / 8;
  fixedBytes += attention->consumers.size() * kRowStages * kTMEMRows * 4;
  int64_t stageBytes = 0;
  for (MemRefType buffer : sharedBuffersFor(attention->loads))
    stageBytes += getMemRefBytes(buffer);
  while (stages > 1 &&
         fixedBytes + stages * stageBytes > fmha::limits::kMaxSharedMemoryBytes)
    --stages;
  // The load, MMA and epilogue warps share the first warpgroup, the
  // correction has one; the softmax warpgroups share the rest of the
  // register file.
  unsigned consumers = attention->consumers.size();
  unsigned softmaxRegs = std::min<unsigned>(
      options.epilogueRegs, (kRegistersPerSM / kWarpgroupThreads -
                             kWarpRegisters - kCorrectionRegisters) /
                                consumers / 8 * 8);
  MLIRContext *ctx = func.getContext();
  SmallVector<std::string> names = roleNames(consumers);
  SmallVector<Attribute> roles;
  for (auto [i, name] : llvm::enumerate(names)) {
    bool warp = i < 3;
    unsigned regs = warp     ? kWarpRegisters
                    : i == 3 ? kCorrectionRegisters
                             : softmaxRegs;
    roles.push_back(
        RoleSpecAttr::get(ctx, name, warp ? 1 : kWarpsPerGroup, regs));
  }
  Builder b(ctx);
  func->setAttr(kRolesAttrName, b.getArrayAttr(roles));
  func->setAttr(kChannelStagesAttrName,
                b.getDenseI32ArrayAttr({int32_t(stages)}));
  return success();
}

LogicalResult ws::partitionAttentionSM100(FunctionOpInterface func) {
  FailureOr<Attention> attention = analyze(func);
  if (failed(attention))
    return failure();
  unsigned consumers = attention->consumers.size();
  FailureOr<SmallVector<RoleSpecAttr>> specs =
      rolesNamed(func, roleNames(consumers));
  if (failed(specs))
    return failure();
  MLIRContext *ctx = func.getContext();
  RolePartition partition(func);
  OpBuilder &b = partition.getBuilder();
  Location loc = func.getLoc();
  auto tmem = TensorMemoryAttr::get(ctx);
  auto tmemOf = [&](RankedTensorType type) {
    return MemRefType::get(type.getShape(), type.getElementType(),
                           MemRefLayoutAttrInterface(), tmem);
  };
  unsigned stages =
      func->getAttrOfType<DenseI32ArrayAttr>(kChannelStagesAttrName)[0];
  // The row vectors from the softmax to the correction: two slots, so the
  // softmax may run a step ahead.
  auto rowsType = ChannelType::get(
      ctx,
      {MemRefType::get({kTMEMRows}, b.getF32Type(), MemRefLayoutAttrInterface(),
                       IntegerAttr::get(b.getI64Type(), kSharedAddressSpace))},
      kRowStages);
  AttentionRoles roles{b, loc, {}, {}, {}, {}, {}, {}, {}, {}};
  roles.q = ChannelOp::create(
      b, loc, ChannelType::get(ctx, sharedBuffersFor(attention->prologue), 1));
  roles.kv = ChannelOp::create(
      b, loc,
      ChannelType::get(ctx, sharedBuffersFor(attention->loads), stages));
  for (Consumer &c : attention->consumers) {
    auto sType = ChannelType::get(ctx, {tmemOf(c.s.getType())}, 1);
    Value sChannel = ChannelOp::create(b, loc, sType);
    auto pType = ChannelType::get(
        ctx, {tmemOf(cast<RankedTensorType>(c.pv.getA().getType()))}, 1);
    roles.s.push_back(sChannel);
    roles.p.push_back(ChannelOp::create(b, loc, pType, sChannel));
    roles.o.push_back(ChannelOp::create(
        b, loc, ChannelType::get(ctx, {tmemOf(c.pv.getType())}, 1)));
    roles.rows.push_back(ChannelOp::create(b, loc, rowsType));
  }
  for (tile::StoreOp store : attention->stores) {
    roles.out.push_back(ChannelOp::create(
        b, loc,
        ChannelType::get(ctx, {sharedBufferFor(store.getValue().getType())},
                         1)));
    // The consumer whose O the store writes.
    llvm::SmallSetVector<unsigned, 8> reads =
        positionsRead(store.getValue(), attention->loop);
    auto mine = llvm::find_if(attention->consumers, [&](Consumer &c) {
      return reads.contains(c.oPosition);
    });
    if (mine == attention->consumers.end())
      return store.emitOpError("attention on sm100: stores the O of a "
                               "consumer");
    roles.storeConsumer.push_back(
        std::distance(attention->consumers.begin(), mine));
  }

  partition.createKernel();
  auto addRole = [&](RoleSpecAttr spec) {
    RoleCopy copy =
        partition.addRole(spec.getName(), spec.getWarps(), spec.getRegs());
    auto lookup = [&](auto op) { return copy.lookup(op); };
    Attention cloned;
    cloned.loop = lookup(attention->loop);
    for (tile::LoadOp load : attention->prologue)
      cloned.prologue.push_back(lookup(load));
    for (tile::LoadOp load : attention->loads)
      cloned.loads.push_back(lookup(load));
    for (Consumer &c : attention->consumers)
      cloned.consumers.push_back(
          {lookup(c.s), lookup(c.pv), c.oPosition, lookup(c.pStore),
           c.oStore ? lookup(c.oStore) : tile::ConvertLayoutOp()});
    for (tile::StoreOp store : attention->stores)
      cloned.stores.push_back(lookup(store));
    for (tile::StoreDirectOp store : attention->directStores)
      cloned.directStores.push_back(lookup(store));
    return std::make_pair(copy.role, cloned);
  };
  // The roles before the softmax warpgroups, in the order of roleNames.
  using Builder = void (AttentionRoles::*)(Attention &);
  const Builder builders[] = {
      &AttentionRoles::buildLoad, &AttentionRoles::buildMMA,
      &AttentionRoles::buildEpilogue, &AttentionRoles::buildCorrection};
  for (auto [spec, build] : llvm::zip(*specs, builders)) {
    auto [role, a] = addRole(spec);
    (roles.*build)(a);
    cleanUpRole(role);
  }
  for (unsigned i = 0; i < consumers; ++i) {
    auto [role, a] = addRole((*specs)[4 + i]);
    if (failed(roles.buildSoftmax(a, i)))
      return failure();
    cleanUpRole(role);
    eraseDeadLoads(role);
    cleanUpRole(role);
  }
  partition.eraseProgram(/*eraseUnusedConstants=*/true);
  clearRoleAssignment(func);
  return success();
}
