//===- StageInHeldSlots.cpp - Epilogue staging in channel slots -----------===//
//
// Part of fmha. A consumer that holds a slot of a channel until the end of
// its epilogue can stage its TMA stores in the slot's buffers once it has
// read them: attention's O tile goes where its Q tile was, which is what
// makes head dim 256 fit in shared memory.
//
// Why this is safe, given the checks below:
// - Nobody writes the buffer while the role stages in it: a producer fills a
//   slot only after every consumer role has released it, and the role
//   releases it only after `ws.tma_store_wait`, when its TMA stores have read
//   the buffer. This holds for any number of stages and of acquires by the
//   producer (a persistent kernel would load its next Q tile after the store).
// - Nobody reads the buffer while the role writes it: no other role reads
//   or stages in that buffer of the slot at all (each consumer reads its own
//   Q tile), and the role's own reads (wgmmas on the Q tile in its main
//   loop) come before the staging in program order and are complete when it
//   starts: the role releases its last slot of the loop's channel `by wgmma`
//   after the loop, which waits for all its wgmmas (ws-insert-mbarriers), and
//   the tile it stages is the result of the loop's last wgmma in any case
//   (wgmma groups complete in order).
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/Transforms/Passes.h"

#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace ws {
#define GEN_PASS_DEF_WSSTAGEINHELDSLOTS
#include "fmha/Dialect/WS/Transforms/Passes.h.inc"
} // namespace ws
} // namespace mlir

using namespace mlir;
using namespace mlir::ws;

namespace {
/// A staging buffer moved into a buffer of the held slot.
struct Move {
  Value staging;
  Value slotBuffer;
};
} // namespace

/// The ops of `role` that take slots of `channel`.
static SmallVector<Operation *> getTakes(RoleOp role, Value channel) {
  SmallVector<Operation *> takes;
  role.walk([&](Operation *op) {
    if (auto wait = dyn_cast<ConsumerWaitOp>(op);
        wait && wait.getChannel() == channel)
      takes.push_back(op);
    if (auto acquire = dyn_cast<ProducerAcquireOp>(op);
        acquire && acquire.getChannel() == channel)
      takes.push_back(op);
  });
  return takes;
}

/// The ops that read `buffer` in shared memory: its users, and for a
/// `ws.as_tensor` of it, the users of that tensor (a dot reading it in place).
static SmallVector<Operation *> getReaders(Value buffer) {
  SmallVector<Operation *> readers;
  for (Operation *user : buffer.getUsers()) {
    if (isa<AsTensorOp>(user))
      llvm::append_range(readers, user->getResult(0).getUsers());
    else
      readers.push_back(user);
  }
  return readers;
}

/// The first and last op of `body` that use `staging`, if every use is a
/// `ws.store_shared` or `ws.tma_store` in `body` after `after`, directly or
/// inside an op of `body` (a store under an `scf.if`: the op counts).
static std::optional<std::pair<Operation *, Operation *>>
getStagingRange(Value staging, Block &body, Operation *after) {
  Operation *first = nullptr, *last = nullptr;
  for (Operation *user : staging.getUsers()) {
    Operation *top = body.findAncestorOpInBlock(*user);
    if (!top || !isa<StoreSharedOp, TMAStoreOp>(user) ||
        !after->isBeforeInBlock(top))
      return std::nullopt;
    if (!first || top->isBeforeInBlock(first))
      first = top;
    if (!last || last->isBeforeInBlock(top))
      last = top;
  }
  if (!first)
    return std::nullopt;
  return std::make_pair(first, last);
}

/// Moves the staging buffers of `role` into the buffers of the slot of
/// `channel` it holds, where safe; `waits` are all waits on the channel, and
/// `used` the indices of the slot's buffers that roles stage in already.
static void stageInRole(RoleOp role, Value channel,
                        ArrayRef<ConsumerWaitOp> waits,
                        DenseSet<unsigned> &used) {
  // The role takes one slot of the channel (per tile of a persistent
  // kernel) and releases it in the same block.
  SmallVector<Operation *> takes = getTakes(role, channel);
  if (takes.size() != 1)
    return;
  auto wait = dyn_cast<ConsumerWaitOp>(takes.front());
  if (!wait || !wait.getToken().hasOneUse())
    return;
  Block &body = *wait->getBlock();
  auto release =
      dyn_cast<ConsumerReleaseOp>(*wait.getToken().getUsers().begin());
  if (!release || release->getBlock() != &body)
    return;

  llvm::SetVector<Value> stagings;
  role.walk([&](StoreSharedOp store) {
    if (store.getBuffer().getDefiningOp<BufferAllocOp>())
      stagings.insert(store.getBuffer());
  });
  SmallVector<Move> moves;
  SmallVector<unsigned> indices;
  Operation *lastStaging = nullptr;
  for (Value staging : stagings) {
    // Staged in this role only (not in another role: the uses must all be
    // in this role's block).
    auto range = getStagingRange(staging, body, wait);
    if (!range)
      continue;
    auto [first, last] = *range;
    for (auto [index, slotBuffer] : llvm::enumerate(wait.getBuffers())) {
      if (used.contains(index) || llvm::is_contained(indices, index) ||
          slotBuffer.getType() != staging.getType())
        continue;
      // Read by this role before the staging starts, by no other role.
      bool readBefore = llvm::all_of(getReaders(slotBuffer), [&](Operation *r) {
        Operation *top = body.findAncestorOpInBlock(*r);
        return top && top->isBeforeInBlock(first);
      });
      bool readElsewhere = llvm::any_of(waits, [&](ConsumerWaitOp other) {
        return other != wait && !other.getBuffers()[index].use_empty();
      });
      if (!readBefore || readElsewhere)
        continue;
      indices.push_back(index);
      moves.push_back({staging, slotBuffer});
      if (!lastStaging || lastStaging->isBeforeInBlock(last))
        lastStaging = last;
      break;
    }
  }
  if (moves.empty())
    return;
  // The slot is released once the TMA stores have read it: at the role's
  // final wait, or (in a persistent kernel's tile loop) at one added after
  // the last store.
  TMAStoreWaitOp storeWait;
  for (Operation *op = lastStaging->getNextNode(); op && !storeWait;
       op = op->getNextNode())
    storeWait = dyn_cast<TMAStoreWaitOp>(op);
  if (!storeWait) {
    OpBuilder b(lastStaging->getContext());
    b.setInsertionPointAfter(lastStaging);
    storeWait = TMAStoreWaitOp::create(b, lastStaging->getLoc());
  }
  for (Move &move : moves)
    move.staging.replaceAllUsesWith(move.slotBuffer);
  used.insert(indices.begin(), indices.end());
  release->moveAfter(storeWait);
}

/// Lets the epilogue of each role of `op` stage its TMA stores in a buffer
/// of the slot of `channel` it holds, where safe (see the file comment).
/// Staging buffers no role uses any more are erased.
static void stageInHeldSlots(WarpSpecializeOp op, Value channel) {
  SmallVector<ConsumerWaitOp> waits;
  op.walk([&](ConsumerWaitOp wait) {
    if (wait.getChannel() == channel)
      waits.push_back(wait);
  });
  llvm::SetVector<Operation *> stagings;
  op.walk([&](StoreSharedOp store) {
    if (auto alloc = store.getBuffer().getDefiningOp<BufferAllocOp>())
      stagings.insert(alloc);
  });
  DenseSet<unsigned> used;
  for (RoleOp role : op.getRoles())
    stageInRole(role, channel, waits, used);
  for (Operation *alloc : stagings)
    if (alloc->use_empty())
      alloc->erase();
}

namespace {
struct WSStageInHeldSlotsPass
    : public ws::impl::WSStageInHeldSlotsBase<WSStageInHeldSlotsPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([&](WarpSpecializeOp op) {
      // The channels the roles share, in order.
      SmallVector<Value> channels;
      for (Operation &other : *op->getBlock())
        if (auto channel = dyn_cast<ChannelOp>(other))
          channels.push_back(channel);
      for (Value channel : channels)
        stageInHeldSlots(op, channel);
    });
  }
};
} // namespace
