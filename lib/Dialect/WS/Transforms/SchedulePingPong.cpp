//===- SchedulePingPong.cpp - Alternate the MMAs of consumer roles --------===//
//
// Part of fmha. Implements ws-schedule-ping-pong.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir {
namespace ws {
#define GEN_PASS_DEF_WSSCHEDULEPINGPONG
#include "fmha/Dialect/WS/Transforms/Passes.h.inc"
} // namespace ws
} // namespace mlir

using namespace mlir;
using namespace mlir::ws;

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

/// The turn token's ends, for consumer `i` of `count` taking turns on named
/// barriers from `firstId`: the last consumer creates the token at its
/// role's start (arrives at consumer 0's barrier), consumer 0 takes it back
/// at its role's end.
static void circulateToken(OpBuilder &b, Location loc, RoleOp consumer,
                           size_t i, int64_t count, unsigned firstId,
                           int64_t threads) {
  Block &body = consumer.getBody().front();
  if (static_cast<int64_t>(i) == count - 1) {
    b.setInsertionPointToStart(&body);
    BarrierArriveOp::create(b, loc, firstId, threads);
  }
  if (i == 0) {
    b.setInsertionPointToEnd(&body);
    BarrierSyncOp::create(b, loc, firstId, threads);
  }
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
    circulateToken(b, loc, consumers[i], i, count, firstId, threads);
  }
}

/// The main loop of a consumer role marked `ws.turn` (ws-assign-roles): the
/// marked loop whose body runs dots, or null. (The role's copies of the
/// other consumers' marked loops only walk the ring's slots.)
static scf::ForOp turnLoopOf(RoleOp role) {
  scf::ForOp turn;
  role.walk([&](scf::ForOp loop) {
    if (WSDialect::getLoaded(loop.getContext())
            .getTurnAttrHelper()
            .isAttrPresent(loop) &&
        llvm::any_of(*loop.getBody(),
                     [](Operation &op) { return isa<tile::DotOp>(op); }))
      turn = loop;
  });
  return turn;
}

/// Ping-pong scheduling of consumer roles that own separate work items (a
/// ping-pong GEMM): each runs its marked main loop (`loops[i]`, one per
/// consumer, `ws.turn`) whole as one turn, so that one consumer's epilogue
/// runs while the tensor cores work for the other. Consumer i waits for its
/// turn (named barrier `firstId + i`) before its loop and passes it on
/// (arrives at `firstId + i + 1`) after it, every time the loop is reached,
/// also when it runs no iteration. The token goes round as in
/// schedulePingPong: the last consumer creates it at the role's start,
/// consumer 0 takes it back at the role's end.
static void scheduleTurns(OpBuilder &b, ArrayRef<RoleOp> consumers,
                          ArrayRef<scf::ForOp> loops, unsigned firstId) {
  int64_t count = consumers.size();
  int64_t threads = 2 * kWarpsPerGroup * kThreadsPerWarp;
  for (auto [i, constLoop] : llvm::enumerate(loops)) {
    scf::ForOp loop = constLoop;
    Location loc = loop.getLoc();
    unsigned mine = firstId + i, next = firstId + (i + 1) % count;
    b.setInsertionPoint(loop);
    BarrierSyncOp::create(b, loc, mine, threads);
    b.setInsertionPointAfter(loop);
    BarrierArriveOp::create(b, loc, next, threads);
    circulateToken(b, loc, consumers[i], i, count, firstId, threads);
  }
}

/// The named barriers of `op` from 1 up to the highest one its roles use.
static unsigned lastBarrierId(WarpSpecializeOp op) {
  unsigned last = 0;
  op.walk([&](Operation *barrier) {
    if (auto sync = dyn_cast<BarrierSyncOp>(barrier))
      last = std::max<unsigned>(last, sync.getId());
    if (auto arrive = dyn_cast<BarrierArriveOp>(barrier))
      last = std::max<unsigned>(last, arrive.getId());
  });
  return last;
}

namespace {
struct WSSchedulePingPongPass
    : public ws::impl::WSSchedulePingPongBase<WSSchedulePingPongPass> {
  using Base::Base;

  void runOnOperation() override {
    OpBuilder b(&getContext());
    WalkResult walk = getOperation()->walk([&](WarpSpecializeOp op) {
      // The consumer roles: those that run dots.
      SmallVector<RoleOp> consumers;
      for (RoleOp role : op.getRoles())
        if (role.walk([](tile::DotOp) { return WalkResult::interrupt(); })
                .wasInterrupted())
          consumers.push_back(role);
      // Named barriers after the ones the consumers use already (each
      // consumer's own, around its TMA stores).
      unsigned firstId =
          std::max<unsigned>(consumers.size(), lastBarrierId(op)) + 1;
      SmallVector<scf::ForOp> turns;
      for (RoleOp role : consumers)
        if (scf::ForOp loop = turnLoopOf(role))
          turns.push_back(loop);
      if (turns.empty()) {
        schedulePingPong(b, consumers, firstId);
        return WalkResult::advance();
      }
      if (turns.size() != consumers.size() || consumers.size() != 2) {
        op.emitOpError("ws-schedule-ping-pong: ")
            << turns.size() << " of its " << consumers.size()
            << " consumer roles run a main loop marked ws.turn: turns are "
               "taken by two consumer roles, each with one marked loop";
        return WalkResult::interrupt();
      }
      scheduleTurns(b, consumers, turns, firstId);
      // The marks are spent, also on the producer's copies of the loops.
      op.walk([&](scf::ForOp loop) {
        auto turn = WSDialect::getLoaded(&getContext()).getTurnAttrHelper();
        if (turn.isAttrPresent(loop))
          turn.removeAttr(loop);
      });
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
