//===- PartitionAttentionSM100.cpp - Attention roles for Blackwell --------===//
//
// Part of fmha. ws-partition-roles{target=sm100} for attention tile programs
// (Q loaded before the main loop, S = Q K^T and O += P V per consumer):
//
// - a load warp: Q once (a one-slot channel), K and V per step (a ring);
// - an MMA warp: per consumer, S into its tensor-memory slot (a one-slot
//   channel, committed by tcgen05), and, once the softmax wrote P over S
//   (a channel aliasing S's), O += P V into the consumer's tensor-memory O,
//   releasing P by tcgen05 so that the softmax learns that O is up to date;
// - a softmax warpgroup per consumer: loads S (tcgen05.ld), runs the online
//   softmax in registers, rescales O in tensor memory (the correction: ld,
//   multiply, st) once the previous P V is done, stores P (tcgen05.st), and
//   after the loop waits for the last P V (one more P slot, handed over
//   empty), loads O, normalises and stores it by TMA (the epilogue).
//
// The order of the MMA warp's tcgen05 ops, which execute in issue order,
// keeps P over S safe: S of a step is written only after P V of the
// previous step was issued.
//
//===----------------------------------------------------------------------===//

#include "PartitionRolesSM100.h"
#include "PartitionUtils.h"

#include "fmha/Dialect/FMHA/IR/TargetLimits.h"
#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::ws;

/// What barriers, the TMEM address slot and alignment take of shared memory
/// besides the buffers.
static constexpr int64_t kSharedSlackBytes = 4096;

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
      return dot.emitOpError("needs a tensor-memory accumulator: run "
                             "tile-assign-layouts{target=sm100} first");
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

struct AttentionRoles {
  OpBuilder &b;
  Location loc;
  Value q, kv;
  SmallVector<Value> s, p, o;
  SmallVector<Value> staging;

  void buildLoad(Attention &a) {
    for (tile::StoreOp store : a.stores)
      store.erase();
    for (tile::StoreDirectOp store : a.directStores)
      store.erase();
    dropCarried(a.loop);
    produceLoads(b, q, a.prologue);
    produceLoads(b, kv, a.loads);
  }

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
      auto wait = ConsumerWaitOp::create(b, loc, p[i]);
      Value pTensor = AsTensorOp::create(b, loc, c.pv.getA().getType(),
                                         wait.getBuffers()[0]);
      TCGen05MMAOp::create(b, c.pv.getLoc(), pTensor, c.pv.getB(), o[i],
                           accumulate, c.pv.getTransposeAAttr(),
                           c.pv.getTransposeBAttr());
      ConsumerReleaseOp::create(b, loc, p[i], wait.getToken(),
                                AsyncUnit::TCGen05);
    }
    b.setInsertionPoint(body->getTerminator());
    ConsumerReleaseOp::create(b, loc, kv, kvToken, AsyncUnit::TCGen05);
    Operation *yield = body->getTerminator();
    for (auto [i, arg] : llvm::enumerate(a.loop.getRegionIterArgs()))
      yield->setOperand(i, arg);
    // The last P V is done when the softmax's extra P slot comes back.
    b.setInsertionPointAfter(a.loop);
    for (Value channel : p) {
      auto wait = ConsumerWaitOp::create(b, loc, channel);
      ConsumerReleaseOp::create(b, loc, channel, wait.getToken(),
                                AsyncUnit::TCGen05);
    }
    ConsumerReleaseOp::create(b, loc, q, qToken, AsyncUnit::TCGen05);
  }

  LogicalResult buildSoftmax(Attention &a, unsigned index) {
    Consumer &c = a.consumers[index];
    Block *body = a.loop.getBody();
    // The positions this consumer needs: O, and what its stores read.
    // O and the statistics its update reads (row max, row sum) are this
    // consumer's; so are the stores reading any of them (O, LSE).
    llvm::SmallSetVector<unsigned, 8> keep =
        positionsRead(a.loop.getYieldedValues()[c.oPosition], a.loop);
    keep.insert(c.oPosition);
    SmallVector<std::pair<tile::StoreOp, Value>> mine;
    for (auto [store, buffer] : llvm::zip(a.stores, staging)) {
      llvm::SmallSetVector<unsigned, 8> reads =
          positionsRead(store.getValue(), a.loop);
      if (llvm::any_of(reads, [&](unsigned i) { return keep.contains(i); })) {
        mine.push_back({store, buffer});
      } else {
        store.erase();
      }
    }
    for (auto [store, buffer] : mine) {
      llvm::SmallSetVector<unsigned, 8> reads =
          positionsRead(store.getValue(), a.loop);
      keep.insert(reads.begin(), reads.end());
    }
    // Plain row stores (the LSE) stay with the consumer whose statistics
    // they read.
    for (tile::StoreDirectOp store : a.directStores) {
      llvm::SmallSetVector<unsigned, 8> reads =
          positionsRead(store.getValue(), a.loop);
      if (llvm::any_of(reads, [&](unsigned i) { return keep.contains(i); }))
        keep.insert(reads.begin(), reads.end());
      else
        store.erase();
    }
    Operation *yield = body->getTerminator();
    for (auto [i, arg] : llvm::enumerate(a.loop.getRegionIterArgs()))
      if (!keep.contains(i))
        yield->setOperand(i, arg);

    // Each step: take a P slot first (the previous P V is then done, so O
    // may be rescaled), S in place, O and P into tensor memory.
    b.setInsertionPointToStart(body);
    auto pSlot = ProducerAcquireOp::create(b, loc, p[index]);
    Value oIter = a.loop.getRegionIterArgs()[c.oPosition];
    Value oNow = AsTensorOp::create(b, loc, oIter.getType(), o[index]);
    oIter.replaceUsesWithIf(oNow, [&](OpOperand &use) {
      return use.getOwner() != body->getTerminator();
    });
    b.setInsertionPoint(c.s);
    auto sWait = ConsumerWaitOp::create(b, loc, s[index]);
    Value sNow =
        AsTensorOp::create(b, loc, c.s.getType(), sWait.getBuffers()[0]);
    c.s.getResult().replaceAllUsesWith(sNow);
    Operation *lastRead = sWait;
    for (Operation *user : sNow.getUsers())
      if (user->getBlock() == body && lastRead->isBeforeInBlock(user))
        lastRead = user;
    b.setInsertionPointAfter(lastRead);
    ConsumerReleaseOp::create(b, loc, s[index], sWait.getToken(),
                              AsyncUnit::Threads);
    Operation *lastStore = c.pStore;
    if (c.oStore) {
      b.setInsertionPoint(c.oStore);
      // Rescaled 32 columns at a time where it can be.
      Operation *rescale =
          StoreTMEMOp::create(b, loc, c.oStore.getInput(), o[index]);
      if (Operation *last = storeRowsInChunks(b, rescale))
        rescale = last;
      if (lastStore->isBeforeInBlock(rescale))
        lastStore = rescale;
    }
    b.setInsertionPoint(c.pStore);
    StoreTMEMOp::create(b, loc, c.pStore.getInput(), pSlot.getBuffers()[0]);
    b.setInsertionPointAfter(lastStore);
    ProducerCommitOp::create(b, loc, p[index], pSlot.getToken(),
                             AsyncUnit::Threads, IntegerAttr());
    // P V itself is the MMA warp's.
    yield->setOperand(c.oPosition, oIter);
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

    // After the loop: one more P slot, handed back empty, says that the
    // last P V is done; then O is read in place.
    Value oResult = a.loop.getResult(c.oPosition);
    b.setInsertionPointAfter(a.loop);
    auto last = ProducerAcquireOp::create(b, loc, p[index]);
    ProducerCommitOp::create(b, loc, p[index], last.getToken(),
                             AsyncUnit::Threads, IntegerAttr());
    Value oFinal = AsTensorOp::create(b, loc, oResult.getType(), o[index]);
    oResult.replaceAllUsesWith(oFinal);

    int64_t threads = kWarpsPerGroup * kThreadsPerWarp;
    unsigned barrierId = 1 + index;
    for (auto [store, buffer] : mine) {
      Location storeLoc = store.getLoc();
      b.setInsertionPoint(store);
      TMAStoreWaitOp::create(b, storeLoc);
      BarrierSyncOp::create(b, storeLoc, barrierId, threads);
      Operation *staged =
          StoreSharedOp::create(b, storeLoc, store.getValue(), buffer);
      // Loaded, normalised and staged 32 columns at a time where it can be.
      if (Operation *last = storeRowsInChunks(b, staged))
        staged = last;
      b.setInsertionPointAfter(staged);
      FenceAsyncSharedOp::create(b, storeLoc);
      BarrierSyncOp::create(b, storeLoc, barrierId, threads);
      TMAStoreOp::create(b, storeLoc, store.getDesc(), store.getCoords(),
                         buffer);
      store.erase();
    }
    return success();
  }
};

LogicalResult ws::partitionAttentionSM100(FunctionOpInterface func,
                                          const SM100RoleOptions &options) {
  FailureOr<Attention> attention = analyze(func);
  if (failed(attention))
    return failure();
  MLIRContext *ctx = func.getContext();
  Block &body = func.getFunctionBody().front();
  Operation *terminator = body.getTerminator();
  SmallVector<Operation *> original = opsBeforeTerminator(body);

  OpBuilder b(ctx);
  b.setInsertionPointToStart(&body);
  Location loc = func.getLoc();
  auto tmem = TensorMemoryAttr::get(ctx);
  auto buffersOf = [&](ArrayRef<tile::LoadOp> loads) {
    SmallVector<MemRefType> buffers;
    for (tile::LoadOp load : loads)
      buffers.push_back(sharedBufferFor(load.getType()));
    return buffers;
  };
  auto tmemOf = [&](RankedTensorType type) {
    return MemRefType::get(type.getShape(), type.getElementType(),
                           MemRefLayoutAttrInterface(), tmem);
  };
  unsigned stages = options.stages;
  if (auto attr = func->getAttrOfType<IntegerAttr>("fmha.stages"))
    stages = attr.getInt();
  // Q, the K/V ring and the staging of the outputs must fit in shared
  // memory (the sm90 partition stages O in Q's slot, which the MMA warp
  // holds here): fewer K/V stages when they would not.
  int64_t fixedBytes = kSharedSlackBytes;
  for (MemRefType buffer : buffersOf(attention->prologue))
    fixedBytes += getMemRefBytes(buffer);
  for (tile::StoreOp store : attention->stores)
    fixedBytes += store.getValue().getType().getNumElements() *
                  store.getValue().getType().getElementTypeBitWidth() / 8;
  int64_t stageBytes = 0;
  for (MemRefType buffer : buffersOf(attention->loads))
    stageBytes += getMemRefBytes(buffer);
  while (stages > 1 &&
         fixedBytes + stages * stageBytes > fmha::limits::kMaxSharedMemoryBytes)
    --stages;
  AttentionRoles roles{b, loc, {}, {}, {}, {}, {}, {}};
  roles.q = ChannelOp::create(
      b, loc, ChannelType::get(ctx, buffersOf(attention->prologue), 1));
  roles.kv = ChannelOp::create(
      b, loc, ChannelType::get(ctx, buffersOf(attention->loads), stages));
  for (Consumer &c : attention->consumers) {
    auto sType = ChannelType::get(ctx, {tmemOf(c.s.getType())}, 1);
    Value sChannel = ChannelOp::create(b, loc, sType);
    auto pType = ChannelType::get(
        ctx, {tmemOf(cast<RankedTensorType>(c.pv.getA().getType()))}, 1);
    roles.s.push_back(sChannel);
    roles.p.push_back(ChannelOp::create(b, loc, pType, sChannel));
    roles.o.push_back(TMEMBufferOp::create(b, loc, tmemOf(c.pv.getType()),
                                           Value(), Value(), IntegerAttr()));
  }
  for (tile::StoreOp store : attention->stores)
    roles.staging.push_back(allocStaging(b, store));

  b.setInsertionPoint(terminator);
  auto ws = WarpSpecializeOp::create(b, loc);
  Block *wsBody = b.createBlock(&ws.getBody());
  auto addRole = [&](StringRef name, int64_t warps, unsigned regs) {
    IRMapping map;
    RoleOp role =
        createRoleCopy(b, wsBody, loc, name, warps, regs, original, map);
    auto lookup = [&](auto op) {
      return cast<decltype(op)>(map.lookup(op.getOperation()));
    };
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
    return std::make_pair(role, cloned);
  };
  {
    auto [role, a] = addRole("load", 1, options.loadRegs);
    roles.buildLoad(a);
    cleanUpRole(role);
  }
  {
    auto [role, a] = addRole("mma", 1, options.loadRegs);
    roles.buildMMA(a);
    cleanUpRole(role);
  }
  for (unsigned i = 0; i < attention->consumers.size(); ++i) {
    auto [role, a] = addRole(("softmax" + Twine(i)).str(), kWarpsPerGroup,
                             options.epilogueRegs);
    if (failed(roles.buildSoftmax(a, i)))
      return failure();
    cleanUpRole(role);
    eraseDeadLoads(role);
    cleanUpRole(role);
    b.setInsertionPointToEnd(&role.getBody().front());
    if (!attention->stores.empty())
      TMAStoreWaitOp::create(b, loc);
  }
  for (Operation *op : llvm::reverse(original))
    op->erase();
  for (Operation &op : llvm::make_early_inc_range(body))
    if (isa<arith::ConstantOp>(op) && op.use_empty())
      op.erase();
  return success();
}
