//===- AssignRolesAttentionSM100.cpp - Attention roles for Blackwell ------===//
//
// Part of fmha. ws-assign-roles on sm_100a for attention tile programs (Q
// loaded before the main loop, S = Q K^T and O += P V per consumer): the
// whole decision, written as role attributes (docs/Roles.md) that
// ws-partition-roles materialises like any other.
//
// - a load warp: Q once (a one-slot channel), K and V per step (a ring);
// - an MMA warp: per consumer, S into its tensor-memory slot (S's dot hands
//   its result over, ws.result_channel), and, once the softmax wrote P over
//   S (a channel aliasing S's, ws.channel_aliases) and the correction
//   handed O over, O += P V (O is loop-carried in its own one-slot
//   tensor-memory channel, ws.output_channels, which the correction's
//   rescale stores into: a handed accumulator);
// - an epilogue warp: per output, the TMA store from the slot the
//   correction stages O in (the stored value's ws.result_channel);
// - a correction warpgroup: per step and consumer, the rescale of O by the
//   factor from the softmax (a two-slot shared-memory ring of row vectors);
//   after the loop O normalised by the row sum (the same ring) and staged,
//   or, when O leaves by plain stores (tile.store_direct: varlen's, bounded
//   by each sequence's end), stored from its registers, and then the LSE
//   rows the softmax hands it through the same ring;
// - a softmax warpgroup per consumer: S read in place, the online softmax
//   (its row statistics are its loop-carried values), P over S, the rescale
//   factor and the row sum handed to the correction, the LSE row stored
//   (or, with plain stores of O, handed to the correction too).
//
// ws-chunk-row-stores, after the partition, streams S, O and the staged
// output 32 columns at a time.
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
/// descriptors), the correction 88, the softmax 176. A correction that
/// stores O itself (tile.store_direct, 32 columns at a time) and the LSE
/// rows, staging nothing, gets 80: ptxas -v on the varlen kernels of
/// test/Target/sm100/attention-varlen.mlir: no spills with 72 / 80 / 176,
/// 4 to 12 bytes with 88 (head dim 64 without the LSE spills 8 bytes with
/// either). One that also merges split-KV's partial
/// results on the last arrival (the workspace's descriptors live through
/// the merge's loops) needs the 88 again: 28 to 40 bytes of spills with 80,
/// none with 88.
static constexpr unsigned kWarpRegisters = 72;
static constexpr unsigned kCorrectionRegisters = 88;
static constexpr unsigned kStoringCorrectionRegisters = 80;
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
  /// Plain stores of row vectors (the LSE) and of O.
  SmallVector<tile::StoreDirectOp> directStores;
  /// Split-KV: the arrivals at the query tiles' counters, after the partial
  /// results' stores, and the scf.ifs on their results (the merge on the
  /// last arrival), whose stores are not among the above.
  SmallVector<tile::CounterArriveOp> arrivals;
  SmallVector<scf::IfOp> onLast;
};

} // namespace

static bool isTmem(Value v) {
  return isa_and_nonnull<tile::TmemAttr>(
      cast<RankedTensorType>(v.getType()).getEncoding());
}

/// Whether `store` stores a 2-d tile (an O), not a row vector (an LSE).
static bool isTile(tile::StoreDirectOp store) {
  return store.getValue().getType().getRank() == 2;
}

static FailureOr<Attention> analyze(FunctionOpInterface func) {
  Attention a;
  SmallVector<tile::LoadOp> all;
  func->walk([&](tile::LoadOp load) { all.push_back(load); });
  func->walk([&](tile::CounterArriveOp arrive) {
    a.arrivals.push_back(arrive);
    for (Operation *user : arrive->getUsers())
      if (auto ifOp = dyn_cast<scf::IfOp>(user);
          ifOp && ifOp.getCondition() == arrive.getResult())
        a.onLast.push_back(ifOp);
  });
  auto onLast = [&](Operation *op) {
    return llvm::any_of(a.onLast,
                        [&](scf::IfOp ifOp) { return ifOp->isAncestor(op); });
  };
  func->walk([&](tile::StoreOp store) {
    if (!onLast(store))
      a.stores.push_back(store);
  });
  func->walk([&](tile::StoreDirectOp store) {
    if (!onLast(store))
      a.directStores.push_back(store);
  });
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
  for (tile::CounterArriveOp arrive : a.arrivals)
    if (arrive->getBlock() != a.loop->getBlock() || !a.stores.empty())
      return arrive.emitOpError(
          "attention on sm100: arrives at a counter in the block of the main "
          "loop, after plain stores of the partial results only");
  return a;
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

/// The roles of sm100 attention with `consumers` softmax warpgroups, in
/// order: warpgroup 0's load, MMA and epilogue warps, the correction
/// warpgroup, the softmax warpgroups.
static SmallVector<std::string> roleNames(unsigned consumers) {
  SmallVector<std::string> names{"load", "mma", "epilogue", "correction"};
  for (unsigned i = 0; i < consumers; ++i)
    names.push_back(("softmax" + Twine(i)).str());
  return names;
}

/// The roles, in the order of roleNames.
static constexpr int32_t kLoadRole = 0, kMMARole = 1, kEpilogueRole = 2,
                         kCorrectionRole = 3, kFirstSoftmax = 4;

/// Sets `op`'s role and the channel its result goes through.
static void handOver(Operation *op, int32_t role, int32_t channel) {
  setPartition(op, {role});
  op->setAttr(kResultChannelAttrName,
              Builder(op->getContext()).getI32IntegerAttr(channel));
}

/// The op computing the row vector a row computation is multiplied by
/// (`factor`'s input), handed from softmax `role` through `channel`.
static LogicalResult handRow(tile::BroadcastOp factor, int32_t role,
                             int32_t channel) {
  Operation *def = factor.getInput().getDefiningOp();
  if (!def)
    return factor.emitOpError("attention on sm100: the row vector is "
                              "computed by the softmax");
  handOver(def, role, channel);
  return success();
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
  // Whether O leaves by plain stores only (varlen's, bounded by each
  // sequence's end; split-KV's): the correction then stores the outputs,
  // the LSE rows included.
  bool storesDirect = attention->stores.empty();
  unsigned correctionRegs = storesDirect && attention->arrivals.empty()
                                ? kStoringCorrectionRegisters
                                : kCorrectionRegisters;
  unsigned softmaxRegs = std::min<unsigned>(
      options.epilogueRegs,
      (kRegistersPerSM / kWarpgroupThreads - kWarpRegisters - correctionRegs) /
          consumers / 8 * 8);
  MLIRContext *ctx = func.getContext();
  SmallVector<std::string> names = roleNames(consumers);
  SmallVector<Attribute> roles;
  for (auto [i, name] : llvm::enumerate(names)) {
    bool warp = i < 3;
    unsigned regs = warp     ? kWarpRegisters
                    : i == 3 ? correctionRegs
                             : softmaxRegs;
    roles.push_back(
        RoleSpecAttr::get(ctx, name, warp ? 1 : kWarpsPerGroup, regs));
  }

  // The channels: Q, the K/V ring, per consumer S, P over S, O and the row
  // vectors, then one per output.
  SmallVector<int32_t> depths{1, int32_t(stages)}, aliases{-1, -1};
  auto addChannel = [&](int32_t depth, int32_t alias) {
    depths.push_back(depth);
    aliases.push_back(alias);
    return int32_t(depths.size() - 1);
  };
  Builder b(ctx);
  for (auto [channel, loads] :
       llvm::enumerate(ArrayRef<SmallVector<tile::LoadOp>>{attention->prologue,
                                                           attention->loads}))
    for (tile::LoadOp load : loads) {
      load->setAttr(kLoadChannelAttrName, b.getI32IntegerAttr(channel));
      setPartition(load, {kLoadRole});
    }

  scf::ForOp loop = attention->loop;
  Block *body = loop.getBody();
  unsigned positions = loop.getNumRegionIterArgs();
  SmallVector<SmallVector<int32_t>> computedBy(positions);
  SmallVector<int32_t> outputChannels(positions, -1);
  SmallVector<int32_t> rowChannels;
  // Per consumer, the loop-carried values its softmax computes: the
  // statistics its O update reads.
  SmallVector<llvm::SmallSetVector<unsigned, 8>> statistics;
  for (auto [i, c] : llvm::enumerate(attention->consumers)) {
    int32_t softmax = kFirstSoftmax + i;
    int32_t s = addChannel(1, -1);
    int32_t p = addChannel(1, s);
    int32_t o = addChannel(1, -1);
    int32_t rows = addChannel(kRowStages, -1);
    rowChannels.push_back(rows);
    handOver(c.s, kMMARole, s);
    handOver(c.pStore, softmax, p);
    if (!c.oStore)
      return c.pv.emitOpError("attention on sm100: O += P V accumulates onto "
                              "O rescaled by the correction (a "
                              "tile.convert_layout into tensor memory)");
    handOver(c.oStore, kCorrectionRole, o);
    if (tile::BroadcastOp factor = rowFactor(c.oStore.getInput(), body))
      if (failed(handRow(factor, softmax, rows)))
        return failure();
    computedBy[c.oPosition].push_back(kMMARole);
    outputChannels[c.oPosition] = o;
    llvm::SmallSetVector<unsigned, 8> keep =
        positionsRead(loop.getYieldedValues()[c.oPosition], loop);
    keep.remove(c.oPosition);
    statistics.push_back(std::move(keep));
  }
  // The LSE rows: stored by the softmax whose statistics they read; when O
  // leaves by plain stores, computed there but handed to the correction
  // (the ring of row vectors) and stored with O, so that the softmax keeps
  // no registers for the stores' views through the main loop.
  for (tile::StoreDirectOp store : attention->directStores) {
    if (isTile(store))
      continue;
    llvm::SmallSetVector<unsigned, 8> reads =
        positionsRead(store.getValue(), loop);
    SmallVector<unsigned> owners;
    for (auto [i, keep] : llvm::enumerate(statistics))
      if (llvm::any_of(reads, [&](unsigned p) { return keep.contains(p); })) {
        owners.push_back(i);
        keep.insert(reads.begin(), reads.end());
      }
    if (owners.empty())
      return store.emitOpError("attention on sm100: stores a row computed "
                               "from the statistics of a consumer");
    if (!storesDirect) {
      SmallVector<int32_t> roles;
      for (unsigned i : owners)
        roles.push_back(kFirstSoftmax + i);
      setPartition(store, roles);
      continue;
    }
    Operation *row = store.getValue().getDefiningOp();
    if (owners.size() != 1 || !row || row == loop.getOperation() ||
        row->getBlock() != store->getBlock())
      return store.emitOpError("attention on sm100: stores a row computed "
                               "after the main loop from the statistics of "
                               "one consumer");
    handOver(row, kFirstSoftmax + owners[0], rowChannels[owners[0]]);
    setPartition(store, {kCorrectionRole});
  }
  // Each output: O of one consumer, normalised by the correction, which
  // stages it for the epilogue warp's TMA store, or stores it itself from
  // registers (tile.store_direct: bounded by the view's sizes, as varlen's
  // O at its sequence's end).
  SmallVector<Operation *> results(attention->stores.begin(),
                                   attention->stores.end());
  for (tile::StoreDirectOp store : attention->directStores)
    if (isTile(store))
      results.push_back(store);
  llvm::sort(results,
             [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
  for (Operation *store : results) {
    auto tmaStore = dyn_cast<tile::StoreOp>(store);
    Value stored = tmaStore ? tmaStore.getValue()
                            : cast<tile::StoreDirectOp>(store).getValue();
    llvm::SmallSetVector<unsigned, 8> reads = positionsRead(stored, loop);
    auto mine = llvm::find_if(attention->consumers, [&](Consumer &c) {
      return reads.contains(c.oPosition);
    });
    Operation *value = stored.getDefiningOp();
    if (mine == attention->consumers.end() || !value)
      return store->emitOpError("attention on sm100: stores the O of a "
                                "consumer");
    unsigned index = std::distance(attention->consumers.begin(), mine);
    if (tmaStore) {
      setPartition(store, {kEpilogueRole});
      handOver(value, kCorrectionRole, addChannel(1, -1));
    } else {
      setPartition(store, {kCorrectionRole});
    }
    if (tile::BroadcastOp sum = rowFactor(stored, store->getBlock())) {
      if (failed(handRow(sum, kFirstSoftmax + index, rowChannels[index])))
        return failure();
      llvm::SmallSetVector<unsigned, 8> sumReads =
          positionsRead(sum.getInput(), loop);
      statistics[index].insert(sumReads.begin(), sumReads.end());
    }
  }
  // Split-KV: the correction stores the partial results, so it arrives at
  // the counter (after its stores, which the arrival publishes) and, on the
  // last arrival, merges them and stores the results.
  for (tile::CounterArriveOp arrive : attention->arrivals)
    setPartition(arrive, {kCorrectionRole});
  for (scf::IfOp ifOp : attention->onLast) {
    setPartition(ifOp, {kCorrectionRole});
    ifOp->walk([&](Operation *op) {
      if (isa<tile::StoreOp, tile::StoreDirectOp>(op))
        setPartition(op, {kCorrectionRole});
    });
  }
  for (auto [i, keep] : llvm::enumerate(statistics))
    for (unsigned position : keep)
      computedBy[position].push_back(kFirstSoftmax + i);

  func->setAttr(kRolesAttrName, b.getArrayAttr(roles));
  func->setAttr(kChannelStagesAttrName, b.getDenseI32ArrayAttr(depths));
  func->setAttr(kChannelAliasesAttrName, b.getDenseI32ArrayAttr(aliases));
  SmallVector<Attribute> outputs;
  for (ArrayRef<int32_t> computers : computedBy)
    outputs.push_back(b.getDenseI32ArrayAttr(computers));
  loop->setAttr(kPartitionOutputsAttrName, b.getArrayAttr(outputs));
  loop->setAttr(kOutputChannelsAttrName,
                b.getDenseI32ArrayAttr(outputChannels));
  return success();
}
