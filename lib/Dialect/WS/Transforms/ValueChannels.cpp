//===- ValueChannels.cpp - Results handed between roles -------------------===//
//
// Part of fmha. Materialises `ws.result_channel` in ws-partition-roles
// (docs/Roles.md): the role that runs an op hands its result over through a
// slot of a channel, the roles that need the result read it from the slot.
//
// - a tile.dot: the producer issues it as a tcgen05 MMA into the slot's
//   tensor memory (acquire before, commit by tcgen05 after);
// - a tile.convert_layout into tensor memory: the producer stores its
//   input into the slot (tcgen05.st) and commits by threads; in a handed
//   accumulator (the channel also holds a loop-carried value,
//   `ws.output_channels`) the producer reads the loop-carried value from
//   the same slot, and after the loop takes the slot once more to read the
//   loop's result;
// - a 2-d register value that tile.dots read (the attention backward's dS,
//   which a consumer hands to the other for its column part of dQ): the
//   producer stores it into shared memory in the NVMMA layout and commits
//   by threads (a commit that ws-insert-mbarriers fences for the async
//   proxy);
// - a tile.transpose in shared memory (fp8 attention's V^T): the producer
//   writes the transpose of the tile it reads in place into the slot
//   (ws.transpose_shared) and commits the same way;
// - any other value: the producer stores it into shared memory.
//
// A reader waits for each slot where it first reads the value and reads in
// place (`ws.as_tensor` of tensor memory, or of shared memory as a wgmma
// operand, `ws.load_shared`, or a TMA store straight from the slot) and
// releases the slot after its last read (by tcgen05 after the MMAs that
// read it; by threads after the wgmmas that read it are waited for).
//
//===----------------------------------------------------------------------===//

#include "ValueChannels.h"
#include "PartitionUtils.h"

#include "fmha/Dialect/WS/IR/RoleAssignment.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::ws;

static bool isTmemTensor(Type type) {
  return isa_and_nonnull<tile::TmemAttr>(
      cast<RankedTensorType>(type).getEncoding());
}

MemRefType ws::valueBuffer(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!isTmemTensor(type))
    return sharedBufferFor(type);
  return MemRefType::get(type.getShape(), type.getElementType(),
                         MemRefLayoutAttrInterface(),
                         TensorMemoryAttr::get(type.getContext()));
}

FailureOr<SmallVector<ValueChannel>> ws::collectValueChannels(
    FunctionOpInterface func, size_t numChannels,
    function_ref<bool(size_t)> loadsFill,
    function_ref<std::optional<std::pair<scf::ForOp, unsigned>>(size_t)> held) {
  SmallVector<ValueChannel> channels(numChannels);
  WalkResult walk = func->walk([&](Operation *op) -> WalkResult {
    int32_t channel = getResultChannel(op);
    if (channel < 0)
      return WalkResult::advance();
    auto fail = [&]() {
      return op->emitOpError("ws-partition-roles: hands its result over "
                             "through channel ")
             << channel << " (" << kResultChannelAttrName << ") ";
    };
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type)
      return fail() << "but it is not a tensor";
    if (loadsFill(channel))
      return fail() << "which tile.loads fill";
    ValueChannel &vc = channels[channel];
    int32_t producer = getPartition(op).front();
    if (!vc.values.empty()) {
      if (vc.producer != producer)
        return fail() << "from another role than the channel's other values";
      MemRefType first = valueBuffer(vc.values.front()->getResult(0));
      if (first != valueBuffer(op->getResult(0)))
        return fail() << "whose slots hold " << first;
    }
    bool tmem = isTmemTensor(type);
    if (auto dot = dyn_cast<tile::DotOp>(op)) {
      if (!tmem || dot.getAsync() || !isZeroConstant(dot.getAcc()))
        return fail() << "but a tile.dot handed over is synchronous, with a "
                         "tensor-memory accumulator of zeros: its MMA writes "
                         "the slot";
    } else if (tmem && !isa<tile::ConvertLayoutOp>(op)) {
      return fail() << "but a tensor-memory value is the result of a tile.dot "
                       "or a tile.convert_layout";
    }
    if (auto holds = held(channel)) {
      auto [loop, position] = *holds;
      if (!tmem || !isa<tile::ConvertLayoutOp>(op) || op->getParentOp() != loop)
        return fail() << "which holds loop-carried value #" << position
                      << ": the values stored into it are "
                         "tile.convert_layouts into tensor memory in the "
                         "loop's body";
      if (computesOutput(loop, position, producer))
        return fail() << "which holds loop-carried value #" << position
                      << ", computed by the same role";
      vc.loop = loop;
      vc.position = position;
    }
    // Read by dots: in the NVMMA layout they read in place.
    if (!tmem && type.getRank() == 2 &&
        llvm::any_of(op->getUsers(), llvm::IsaPred<tile::DotOp>)) {
      vc.layout = tile::NvmmaSharedAttr::getRowMajor(type);
      if (!vc.layout)
        return fail() << "to tile.dots, but its rows fill no swizzle span";
    }
    vc.values.push_back(op);
    vc.producer = producer;
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (size_t channel = 0; channel < numChannels; ++channel) {
    int32_t alias = getChannelAlias(func, channel);
    if (alias < 0)
      continue;
    ArrayRef<Operation *> values = channels[channel].values;
    if (values.empty() ||
        !isTensorMemory(valueBuffer(values.front()->getResult(0))))
      return func->emitError("ws-partition-roles: channel ")
             << channel << " overlays channel " << alias << " ("
             << kChannelAliasesAttrName
             << "), but only a channel of tensor-memory values "
                "(ws.result_channel) may";
  }
  return channels;
}

bool ws::storesHandedValue(tile::StoreOp store) {
  Operation *def = store.getValue().getDefiningOp();
  return def && getResultChannel(def) >= 0 &&
         !isTensorMemory(valueBuffer(store.getValue()));
}

/// The earliest op of `block` that uses `value` (or an op inside it), or
/// null.
static Operation *firstUserIn(Block *block, Value value) {
  Operation *first = nullptr;
  for (Operation *user : value.getUsers())
    if (Operation *op = block->findAncestorOpInBlock(*user))
      if (!first || op->isBeforeInBlock(first))
        first = op;
  return first;
}

/// The op that fills the slot `acquire` takes (a store of the value into
/// it, or the transpose written into it).
static Operation *slotWrite(ProducerAcquireOp acquire) {
  Operation *write = nullptr;
  for (Operation *user : acquire.getBuffers()[0].getUsers())
    if (isa<StoreTMEMOp, StoreSharedOp, TransposeSharedOp>(user))
      write = user;
  return write;
}

/// `value`'s producer: takes a slot of `channel` and fills it.
void ValueRole::produce(Value channel, Operation *value,
                        const ValueChannel &vc) {
  Location loc = value->getLoc();
  if (auto dot = dyn_cast<tile::DotOp>(value)) {
    b.setInsertionPoint(dot);
    auto acquire = ProducerAcquireOp::create(b, loc, channel);
    Value none = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0);
    TCGen05MMAOp::create(b, dot.getLoc(), dot.getA(), dot.getB(),
                         acquire.getBuffers()[0], none, dot.getTransposeAAttr(),
                         dot.getTransposeBAttr(), dot.getCtaPairAttr());
    ProducerCommitOp::create(b, loc, channel, acquire.getToken(),
                             AsyncUnit::TCGen05, IntegerAttr());
    dot.getResult().replaceAllUsesWith(dot.getAcc());
    dot.erase();
    return;
  }
  Value result = value->getResult(0);
  if (isTmemTensor(result.getType())) {
    // A handed accumulator: the slot holds the loop-carried value the role
    // reads (and rescales) before storing it back.
    Operation *at = value;
    BlockArgument carried;
    if (vc.loop) {
      auto loop = cast<scf::ForOp>(copyOf(vc.loop));
      carried = loop.getRegionIterArgs()[vc.position];
      if (Operation *first = firstUserIn(loop.getBody(), carried))
        if (first->isBeforeInBlock(at))
          at = first;
    }
    b.setInsertionPoint(at);
    auto acquire = ProducerAcquireOp::create(b, loc, channel);
    if (carried) {
      Value now = AsTensorOp::create(b, loc, carried.getType(),
                                     acquire.getBuffers()[0]);
      Operation *yield = carried.getOwner()->getTerminator();
      carried.replaceUsesWithIf(
          now, [&](OpOperand &use) { return use.getOwner() != yield; });
    }
    b.setInsertionPoint(value);
    StoreTMEMOp::create(b, loc, cast<tile::ConvertLayoutOp>(value).getInput(),
                        acquire.getBuffers()[0]);
    ProducerCommitOp::create(b, loc, channel, acquire.getToken(),
                             AsyncUnit::Threads, IntegerAttr());
    fills.push_back(acquire);
    return;
  }
  b.setInsertionPointAfter(value);
  auto acquire = ProducerAcquireOp::create(b, loc, channel);
  if (auto transpose = dyn_cast<tile::TransposeOp>(value)) {
    // A tile transposed in shared memory: the role's threads write the
    // transpose of the tile they read in place into the slot.
    Value thread = ThreadIdOp::create(b, loc, b.getI32Type());
    auto warps =
        static_cast<int32_t>(transpose->getParentOfType<RoleOp>().getWarps());
    TransposeSharedOp::create(
        b, loc, transpose.getInput(), acquire.getBuffers()[0], thread,
        b.getI32IntegerAttr(warps), vc.layout, transpose.getKQuad16Attr());
  } else {
    StoreSharedOp::create(b, loc, result, acquire.getBuffers()[0], vc.layout);
  }
  // The readers' wgmmas read the slot through the async proxy: the commit
  // by threads fences the role's stores for it (ws-insert-mbarriers).
  ProducerCommitOp::create(b, loc, channel, acquire.getToken(),
                           AsyncUnit::Threads, IntegerAttr());
  if (cast<RankedTensorType>(result.getType()).getRank() == 2)
    fills.push_back(acquire);
}

/// A reader of `value`'s slot of `channel`: waits for it and, when `read`,
/// reads the value from it.
LogicalResult ValueRole::consume(Value channel, Operation *value, bool read,
                                 const ValueChannel &vc) {
  Location loc = value->getLoc();
  Value result = value->getResult(0);
  b.setInsertionPoint(value);
  if (read && vc.layout) {
    // The dots read the slot in place as their K-major operand (released
    // once they are waited for, placeReleases). Any other reader keeps the op,
    // which pruning then keeps too: checkPruned reports it.
    auto wait = ConsumerWaitOp::create(b, loc, channel);
    auto type = cast<RankedTensorType>(result.getType());
    Value slot = AsTensorOp::create(b, loc,
                                    RankedTensorType::get(type.getShape(),
                                                          type.getElementType(),
                                                          vc.layout),
                                    wait.getBuffers()[0]);
    // The slot is row-major: the operands read K-major (A as it is, B
    // transposed) read it in place.
    result.replaceUsesWithIf(slot, [](OpOperand &use) {
      auto dot = dyn_cast<tile::DotOp>(use.getOwner());
      if (!dot)
        return false;
      return use.getOperandNumber() == 0
                 ? !dot.getTransposeA()
                 : use.getOperandNumber() == 1 && dot.getTransposeB();
    });
    reads.push_back(wait);
    return success();
  }
  if (!read) {
    // The role keeps its place in the ring.
    auto wait = ConsumerWaitOp::create(b, loc, channel);
    ConsumerReleaseOp::create(b, loc, channel, wait.getToken(),
                              AsyncUnit::Threads);
    return success();
  }
  if (isTensorMemory(valueBuffer(result))) {
    auto wait = ConsumerWaitOp::create(b, loc, channel);
    result.replaceAllUsesWith(
        AsTensorOp::create(b, loc, result.getType(), wait.getBuffers()[0]));
    value->erase();
    reads.push_back(wait);
    waits.push_back(wait);
    return success();
  }
  // A value in shared memory that the role stores to global memory: a TMA
  // store straight from the slot.
  for (Operation *user : result.getUsers()) {
    auto store = dyn_cast<tile::StoreOp>(user);
    if (!store || !llvm::is_contained(getPartition(store), role))
      continue;
    b.setInsertionPoint(store);
    auto wait = ConsumerWaitOp::create(b, loc, channel);
    TMAStoreOp::create(b, store.getLoc(), store.getDesc(), store.getCoords(),
                       wait.getBuffers()[0], bool(store.getReduce()));
    TMAStoreWaitOp::create(b, loc);
    ConsumerReleaseOp::create(b, loc, channel, wait.getToken(),
                              AsyncUnit::Threads);
    store.erase();
    return success();
  }
  auto wait = ConsumerWaitOp::create(b, loc, channel);
  Value row =
      LoadSharedOp::create(b, loc, result.getType(), wait.getBuffers()[0]);
  ConsumerReleaseOp::create(b, loc, channel, wait.getToken(),
                            AsyncUnit::Threads);
  result.replaceAllUsesWith(row);
  value->erase();
  reads.push_back(wait);
  return success();
}

/// The producer of a handed accumulator after its loop: takes the slot
/// the last MMA gave back and reads the loop's result from it.
void ValueRole::readResult(Value channel, const ValueChannel &vc) {
  auto loop = cast<scf::ForOp>(copyOf(vc.loop));
  Value result = loop.getResult(vc.position);
  Operation *first = firstUserIn(loop->getBlock(), result);
  if (first)
    b.setInsertionPoint(first);
  else
    b.setInsertionPointAfter(loop);
  Location loc = loop.getLoc();
  auto acquire = ProducerAcquireOp::create(b, loc, channel);
  result.replaceAllUsesWith(
      AsTensorOp::create(b, loc, result.getType(), acquire.getBuffers()[0]));
  reads.push_back(acquire);
  resultReads.push_back(acquire);
}

/// The role computing a handed accumulator: its tile.dot, accumulating onto
/// the value read from the slot, becomes a tcgen05 MMA into the slot (not
/// accumulating on the first iteration), and the loop no longer carries
/// the value.
LogicalResult ValueRole::accumulate(Value channel, const ValueChannel &vc) {
  auto loop = cast<scf::ForOp>(copyOf(vc.loop));
  Operation *yield = loop.getBody()->getTerminator();
  auto dot = yield->getOperand(vc.position).getDefiningOp<tile::DotOp>();
  auto read = dot ? dot.getAcc().getDefiningOp<AsTensorOp>() : AsTensorOp();
  if (!read)
    return loop.emitOpError("ws-partition-roles: loop-carried value #")
           << vc.position << " (held in a channel that "
           << kResultChannelAttrName
           << " values are stored into) must be a tile.dot accumulating onto "
              "such a value";
  Value &accumulate = firstSteps[loop];
  if (!accumulate) {
    b.setInsertionPointToStart(loop.getBody());
    accumulate =
        arith::CmpIOp::create(b, loop.getLoc(), arith::CmpIPredicate::ne,
                              loop.getInductionVar(), loop.getLowerBound());
  }
  b.setInsertionPoint(dot);
  auto mma = TCGen05MMAOp::create(
      b, dot.getLoc(), dot.getA(), dot.getB(), read.getBuffer(), accumulate,
      dot.getTransposeAAttr(), dot.getTransposeBAttr(), dot.getCtaPairAttr());
  yield->setOperand(vc.position, loop.getRegionIterArgs()[vc.position]);
  dot.erase();
  computed.push_back({mma, channel});
  return success();
}

LogicalResult ValueRole::hand() {
  SmallVector<std::pair<Value, const ValueChannel *>> accumulated;
  for (auto [index, vc] : llvm::enumerate(valueChannels)) {
    if (vc.values.empty())
      continue;
    Value channel = channels[index];
    if (vc.producer == role) {
      for (Operation *value : vc.values) {
        if (isa<tile::DotOp>(value) && needed.contains(value->getResult(0)))
          return value->emitOpError(
                     "ws-partition-roles: its role hands its result over (")
                 << kResultChannelAttrName << ") and may not read it";
        produce(channel, copyOf(value), vc);
      }
      if (vc.loop)
        readResult(channel, vc);
      continue;
    }
    auto isNeeded = [&](Operation *value) {
      return needed.contains(value->getResult(0));
    };
    if (llvm::none_of(vc.values, isNeeded))
      continue;
    for (Operation *value : vc.values)
      if (failed(consume(channel, copyOf(value), isNeeded(value), vc)))
        return failure();
    if (vc.loop && computesOutput(vc.loop, vc.position, role))
      accumulated.push_back({channel, &vc});
  }
  for (auto [channel, vc] : accumulated)
    if (failed(accumulate(channel, *vc)))
      return failure();
  return success();
}

/// Moves the ops that compute the value each slot the role fills is filled
/// with (those of its block that nothing else needs before the store, but
/// for dots and their waits) right before the store: ws-chunk-row-stores
/// then streams the computation.
void ValueRole::sinkChains() {
  for (ProducerAcquireOp acquire : fills) {
    Operation *store = slotWrite(acquire);
    Block *block = store->getBlock();
    llvm::SetVector<Operation *> slice;
    SmallVector<Value> worklist{store->getOperand(0)};
    while (!worklist.empty()) {
      Operation *def = worklist.pop_back_val().getDefiningOp();
      // Dots and their waits stay in order: a wait counts the dots
      // issued before it.
      if (!def || def->getBlock() != block ||
          isa<WSDialect>(def->getDialect()) || !isMemoryEffectFree(def) ||
          isa<tile::DotOp, tile::DotWaitOp>(def) || def->getNumRegions() != 0 ||
          !slice.insert(def))
        continue;
      llvm::append_range(worklist, def->getOperands());
    }
    SmallVector<Operation *> ordered = slice.takeVector();
    llvm::sort(ordered, [](Operation *a, Operation *b) {
      return b->isBeforeInBlock(a);
    });
    llvm::SmallPtrSet<Operation *, 16> chain;
    for (Operation *op : ordered) {
      bool sinkable = llvm::all_of(op->getUsers(), [&](Operation *user) {
        Operation *at = block->findAncestorOpInBlock(*user);
        return at && (at == store || chain.contains(at) ||
                      store->isBeforeInBlock(at));
      });
      if (sinkable)
        chain.insert(op);
    }
    Operation *head = store;
    for (Operation *op : llvm::reverse(ordered)) {
      if (!chain.contains(op))
        continue;
      op->moveBefore(store);
      if (head == store)
        head = op;
      chainHeads[op] = head;
    }
    chainHeads[store] = head;
  }
}

Operation *ValueRole::chainStart(Operation *op) const {
  return chainHeads.lookup(op) ? chainHeads.lookup(op) : op;
}

/// Moves `take` (a slot's wait or acquire) and its in-place reads before
/// `at`; before a tcgen05 MMA, also before the in-place reads of its other
/// operands' slots right before it (the MMA's waits come first).
static void moveTakeBefore(Operation *take, Operation *at) {
  if (take == at)
    return;
  bool beforeMMA = isa<TCGen05MMAOp>(at);
  while (Operation *previous = beforeMMA ? at->getPrevNode() : nullptr) {
    auto read = dyn_cast<AsTensorOp>(previous);
    if (!read || read.getBuffer().getDefiningOp() == take)
      break;
    at = previous;
  }
  SmallVector<Operation *> group{take};
  for (Value buffer : take->getResults().drop_front())
    for (Operation *user : buffer.getUsers())
      if (isa<AsTensorOp, LoadSharedOp>(user) &&
          user->getBlock() == take->getBlock())
        group.push_back(user);
  for (Operation *user : take->getResult(0).getUsers())
    if (isa<ConsumerReleaseOp>(user) && group.size() > 1 &&
        isa<LoadSharedOp>(group.back()))
      group.push_back(user);
  llvm::sort(group,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  // Only where every read stays after the slot is taken.
  Block *block = take->getBlock();
  for (Operation *op : group)
    for (Operation *user : op->getUsers())
      if (Operation *reader = block->findAncestorOpInBlock(*user))
        if (!llvm::is_contained(group, reader) && reader != at &&
            reader->isBeforeInBlock(at))
          return;
  for (Operation *op : group)
    if (op != at)
      op->moveBefore(at);
}

/// The earliest op of `take`'s block that reads `take`'s slot (through
/// its in-place reads, or directly).
static Operation *firstRead(Operation *take) {
  Block *block = take->getBlock();
  Operation *first = nullptr;
  auto consider = [&](Value value) {
    if (Operation *op = firstUserIn(block, value))
      if (!first || op->isBeforeInBlock(first))
        first = op;
  };
  for (Value buffer : take->getResults().drop_front())
    for (Operation *user : buffer.getUsers()) {
      if (isa<AsTensorOp, LoadSharedOp>(user))
        consider(user->getResult(0));
      else if (Operation *op = block->findAncestorOpInBlock(*user))
        if (!first || op->isBeforeInBlock(first))
          first = op;
    }
  return first;
}

/// Releases each tensor-memory slot the role read: by tcgen05 after the
/// last MMA that reads it, or by threads after its last tcgen05.ld.
void ValueRole::releaseReads() {
  DenseMap<Operation *, Operation *> lastAfter;
  for (ConsumerWaitOp wait : waits) {
    Block *block = wait->getBlock();
    Value buffer = wait.getBuffers()[0];
    Operation *lastMMA = nullptr;
    SmallVector<Value> values{buffer};
    for (Operation *user : buffer.getUsers())
      if (isa<AsTensorOp>(user))
        values.push_back(user->getResult(0));
    for (Value value : values)
      for (Operation *user : value.getUsers())
        if (isa<TCGen05MMAOp>(user))
          if (Operation *op = block->findAncestorOpInBlock(*user))
            if (!lastMMA || lastMMA->isBeforeInBlock(op))
              lastMMA = op;
    if (lastMMA) {
      Operation *&after = lastAfter[lastMMA];
      b.setInsertionPointAfter(after ? after : lastMMA);
      after = ConsumerReleaseOp::create(b, wait.getLoc(), wait.getChannel(),
                                        wait.getToken(), AsyncUnit::TCGen05);
      continue;
    }
    Operation *last = lastTensorMemoryRead(buffer, block);
    b.setInsertionPointAfter(last ? last : wait.getOperation());
    ConsumerReleaseOp::create(b, wait.getLoc(), wait.getChannel(),
                              wait.getToken(), AsyncUnit::Threads);
  }
}

/// Gives each slot taken to read a handed accumulator's result back after
/// the last op its reads feed (and the commits right after it).
void ValueRole::commitResultReads() {
  for (ProducerAcquireOp acquire : resultReads) {
    Block *block = acquire->getBlock();
    Operation *last = acquire;
    SmallVector<Value> worklist(acquire.getBuffers().begin(),
                                acquire.getBuffers().end());
    DenseSet<Value> seen;
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      if (!seen.insert(value).second)
        continue;
      for (Operation *user : value.getUsers()) {
        Operation *op = block->findAncestorOpInBlock(*user);
        if (!op)
          continue;
        if (last->isBeforeInBlock(op))
          last = op;
        llvm::append_range(worklist, user->getResults());
      }
    }
    while (isa_and_nonnull<ProducerCommitOp>(last->getNextNode()))
      last = last->getNextNode();
    b.setInsertionPointAfter(last);
    ProducerCommitOp::create(b, acquire.getLoc(), acquire.getChannel(),
                             acquire.getToken(), AsyncUnit::Threads,
                             IntegerAttr());
  }
}

void ValueRole::place() {
  sinkChains();
  for (Operation *take : reads)
    if (Operation *first = firstRead(take))
      moveTakeBefore(take, chainStart(first));
  for (ProducerAcquireOp acquire : fills) {
    // A slot over another channel's is taken at the start of the block, so
    // before the role reads the slot it overlays.
    auto channel = acquire.getChannel().getDefiningOp<ChannelOp>();
    if (channel && channel.getAliases()) {
      moveTakeBefore(acquire, &acquire->getBlock()->front());
      continue;
    }
    moveTakeBefore(acquire, chainStart(slotWrite(acquire)));
  }
  releaseReads();
  commitResultReads();
}

void ValueRole::handBack() {
  scf::ForOp previous;
  for (auto [mma, channel] : computed) {
    // Pruning replaced the loop: find it again from its MMA.
    auto loop = mma->getParentOfType<scf::ForOp>();
    if (loop != previous)
      b.setInsertionPointAfter(loop);
    previous = loop;
    auto wait = ConsumerWaitOp::create(b, loop.getLoc(), channel);
    ConsumerReleaseOp::create(b, loop.getLoc(), channel, wait.getToken(),
                              AsyncUnit::TCGen05);
  }
}
