//===- LowerRoles.cpp - ws.warp_specialize to per-warp branches ----------===//
//
// Part of fmha. Implements ws-lower-roles.
//
//===----------------------------------------------------------------------===//

#include "ReplicaRoles.h"
#include "RoleUtils.h"

#include "fmha/Dialect/WS/Analysis/Checkers.h"
#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"
#include "fmha/Dialect/WS/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallSet.h"

namespace mlir {
namespace ws {
#define GEN_PASS_DEF_WSLOWERROLES
#include "fmha/Dialect/WS/Transforms/Passes.h.inc"
} // namespace ws
} // namespace mlir

using namespace mlir;
using namespace mlir::ws;

/// The register count a kernel of `threads` threads starts with when ptxas
/// caps it for one CTA per SM (nvvm.minctasm = 1).
static int64_t entryRegisterCap(int64_t threads) {
  return std::min<int64_t>(255, (kRegistersPerSM / threads) & ~int64_t(7));
}

/// `lo <= x < hi`.
static Value inRange(OpBuilder &b, Location loc, Value x, int64_t lo,
                     int64_t hi) {
  Value ge = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, x,
                                   constI32(b, loc, lo));
  Value lt = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x,
                                   constI32(b, loc, hi));
  return arith::AndIOp::create(b, loc, ge, lt);
}

/// `cond`, marked as expected true (llvm.intr.expect) for a branch into a
/// role. Without it LLVM's block placement treats a test like `warp == 0` as
/// unlikely and moves that role's code after the others': the PTX would not
/// list the roles in program order.
static Value likely(OpBuilder &b, Location loc, Value cond) {
  Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  return LLVM::ExpectOp::create(b, loc, cond, yes);
}

/// Whether `role` issues the MMAs of a CTA pair (`ws.tcgen05_mma
/// {cta_pair}`): only the even CTA of the pair runs it.
static bool issuesPairMMAs(RoleOp role) {
  WalkResult walk = role.walk([](TCGen05MMAOp mma) {
    return mma.getCtaPair() ? WalkResult::interrupt() : WalkResult::advance();
  });
  return walk.wasInterrupted();
}

/// Moves `role`'s body into a branch taken by its warps, resolving
/// ws.thread_id and guarding leader operations by its first thread and
/// multicast arrivals by threads by each warp's first lane. A role
/// that issues a CTA pair's MMAs runs in the pair's even CTA only. A role
/// that `replicas` roles were merged into (mergeReplicaRoles) is taken by
/// all their warps; `index` tells each replica apart, and each has its own
/// first thread.
static void lowerRole(OpBuilder &b, RoleOp role, Value warp, Value tid,
                      int64_t replicas = 1, Value index = Value()) {
  int64_t first = *role.getFirstWarp();
  Value inRole = inRange(b, role.getLoc(), warp, first,
                         first + replicas * role.getWarps());
  if (issuesPairMMAs(role)) {
    Value rank = NVVM::ClusterId::create(b, role.getLoc(), b.getI32Type());
    Value even =
        arith::CmpIOp::create(b, role.getLoc(), arith::CmpIPredicate::eq, rank,
                              constI32(b, role.getLoc(), 0));
    inRole = arith::AndIOp::create(b, role.getLoc(), inRole, even);
  }
  auto ifOp =
      scf::IfOp::create(b, role.getLoc(), likely(b, role.getLoc(), inRole),
                        /*withElse=*/false);
  Block &body = role.getBody().front();
  ifOp.thenBlock()->getOperations().splice(
      ifOp.thenBlock()->getTerminator()->getIterator(), body.getOperations());

  OpBuilder rb(ifOp.thenBlock(), ifOp.thenBlock()->begin());
  Value firstThread = constI32(rb, role.getLoc(), first * kThreadsPerWarp);
  if (index) {
    rb.setInsertionPointAfterValue(index);
    Value offset = arith::MulIOp::create(
        rb, role.getLoc(), index,
        constI32(rb, role.getLoc(), role.getWarps() * kThreadsPerWarp));
    firstThread = arith::AddIOp::create(rb, role.getLoc(), firstThread, offset);
  }
  Value isLeader = arith::CmpIOp::create(
      rb, role.getLoc(), arith::CmpIPredicate::eq, tid, firstThread);
  SmallVector<Operation *> leaderOps, laneZeroOps;
  SmallVector<ThreadIdOp> threadIds;
  ifOp.thenBlock()->walk([&](Operation *nested) {
    if (auto arrive = dyn_cast<MBarrierArriveOp>(nested)) {
      if (arrive.getLeader())
        leaderOps.push_back(nested);
      else if (arrive.getMulticast() && !arrive.getTcgen05())
        laneZeroOps.push_back(nested);
    } else if (auto store = dyn_cast<TMAStoreOp>(nested)) {
      // Predicated, not branched around (see ws.tma_store).
      store.getPredMutable().assign(isLeader);
    } else if (auto arrive = dyn_cast<CounterArriveOp>(nested)) {
      // Every thread takes part in the barriers; the leader adds.
      arrive.getPredMutable().assign(isLeader);
    } else if (isa<TMALoadMBarrierOp, TCGen05MMAOp>(nested)) {
      leaderOps.push_back(nested);
    } else if (auto threadId = dyn_cast<ThreadIdOp>(nested)) {
      threadIds.push_back(threadId);
    }
  });
  for (ThreadIdOp threadId : threadIds) {
    rb.setInsertionPoint(threadId);
    threadId.replaceAllUsesWith(
        arith::SubIOp::create(rb, threadId.getLoc(), tid, firstThread)
            .getResult());
    threadId.erase();
  }
  for (Operation *leaderOp : leaderOps) {
    guard(rb, leaderOp, isLeader);
    WSDialect::getLoaded(leaderOp->getContext())
        .getLeaderGuardedAttrHelper()
        .setAttr(leaderOp, rb.getUnitAttr());
  }
  // A multicast arrival by threads is made by each warp's first lane (roles
  // start at a warp).
  for (Operation *arrive : laneZeroOps) {
    rb.setInsertionPoint(arrive);
    Location loc = arrive->getLoc();
    Value lane = arith::AndIOp::create(rb, loc, tid,
                                       constI32(rb, loc, kThreadsPerWarp - 1));
    guard(rb, arrive,
          arith::CmpIOp::create(rb, loc, arith::CmpIPredicate::eq, lane,
                                constI32(rb, loc, 0)));
  }
}

namespace {
/// Roles sharing warpgroups, which share a register budget.
struct Cluster {
  int64_t firstGroup, lastGroup;
  SmallVector<RoleOp> roles;
  /// Set when `roles` is one role that replica roles were merged into.
  int64_t replicas = 1;
  Value index;
};
} // namespace

/// Whether `next` holds the `k`-th replica of the single role of `cluster`:
/// one role of as many whole warpgroups and the same register budget,
/// `k` roles further on in the warp space.
static bool isReplicaCluster(const Cluster &cluster, const Cluster &next,
                             int64_t k) {
  if (cluster.roles.size() != 1 || next.roles.size() != 1)
    return false;
  RoleOp role = cluster.roles.front(), other = next.roles.front();
  int64_t warps = role.getWarps();
  return warps % kWarpsPerGroup == 0 && other.getWarps() == warps &&
         other.getRegs() == role.getRegs() &&
         *other.getFirstWarp() == *role.getFirstWarp() + k * warps &&
         !issuesPairMMAs(role) && !issuesPairMMAs(other);
}

/// `clusters`, with each run of replica clusters (isReplicaCluster) whose
/// roles merge (mergeReplicaRoles) made one cluster: their warps run one
/// copy of the code.
static SmallVector<Cluster> mergeReplicaClusters(ArrayRef<Cluster> clusters,
                                                 Value warp) {
  SmallVector<Cluster> merged;
  for (size_t i = 0; i < clusters.size();) {
    size_t end = i + 1;
    while (end < clusters.size() &&
           isReplicaCluster(clusters[i], clusters[end], end - i))
      ++end;
    SmallVector<RoleOp> replicas;
    for (size_t j = i; j < end; ++j)
      replicas.push_back(clusters[j].roles.front());
    Value index =
        replicas.size() > 1 ? mergeReplicaRoles(replicas, warp) : Value();
    if (!index) {
      merged.push_back(clusters[i++]);
      continue;
    }
    merged.push_back({clusters[i].firstGroup,
                      clusters[end - 1].lastGroup,
                      {replicas.front()},
                      int64_t(replicas.size()),
                      index});
    i = end;
  }
  return merged;
}

/// Replaces `op` by branches on the warp index. A kernel of two CTAs that
/// reach each other's barriers (`clusterSync`) meets its cluster after the
/// barrier initialisation, before any role runs.
static LogicalResult lowerWarpSpecialize(WarpSpecializeOp op,
                                         int64_t numThreads, bool hasMBarriers,
                                         bool clusterSync, bool mergeReplicas) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  for (RoleOp role : op.getRoles())
    if (!role.getFirstWarp())
      return role.emitOpError("has no warp range: run ws-allocate-registers "
                              "before ws-lower-roles");

  Value tid = arith::IndexCastOp::create(
      b, loc, b.getI32Type(),
      gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
  // Barriers are initialised by thread 0 where they are allocated; make the
  // initialisation visible to every thread and to the async proxy first.
  if (hasMBarriers) {
    NVVM::FenceMbarrierInitOp::create(b, loc);
    NVVM::BarrierOp::create(b, loc);
  }
  // A CTA pair, or a multicast kernel, arrives on, commits to and copies
  // into the other CTA's barriers: both CTAs' barriers are initialised
  // before either runs a role.
  if (clusterSync) {
    NVVM::ClusterArriveOp::create(b, loc, b.getUnitAttr());
    NVVM::ClusterWaitOp::create(b, loc, b.getUnitAttr());
  }
  // The warp index, broadcast from lane 0 (shfl.sync.idx): ptxas cannot
  // tell that tid / 32 is the same across a warp, so branches on it would
  // look divergent, and in a role entered through such branches it keeps
  // loop values (wgmma descriptors, ring stages) out of the uniform
  // registers. The shuffle's result is warp-uniform by construction.
  Value warp =
      arith::DivUIOp::create(b, loc, tid, constI32(b, loc, kThreadsPerWarp));
  warp = NVVM::ShflOp::create(b, loc, b.getI32Type(),
                              constI32(b, loc, int64_t(0xffffffff)), warp,
                              constI32(b, loc, 0), constI32(b, loc, 0x1f),
                              NVVM::ShflKind::idx, UnitAttr());

  // Roles that share warpgroups form a cluster. Each cluster's warps first
  // move to its register budget (setmaxnreg acts on whole warpgroups, and
  // roles sharing one share a budget), then each role's warps run the role.
  // Keeping the roles inside their cluster's branch keeps every instruction
  // under the setmaxnreg that governs it, which ptxas needs to honour it.
  int64_t cap = entryRegisterCap(numThreads);
  Value group =
      arith::DivUIOp::create(b, loc, warp, constI32(b, loc, kWarpsPerGroup));
  SmallVector<RoleOp> roles(op.getRoles());
  llvm::sort(roles, [](RoleOp x, RoleOp y) {
    return *x.getFirstWarp() < *y.getFirstWarp();
  });
  SmallVector<Cluster> clusters;
  for (RoleOp role : roles) {
    auto [firstGroup, lastGroup] = role.getWarpgroupRange();
    if (!clusters.empty() && firstGroup <= clusters.back().lastGroup) {
      clusters.back().lastGroup =
          std::max(clusters.back().lastGroup, lastGroup);
      clusters.back().roles.push_back(role);
      continue;
    }
    clusters.push_back({firstGroup, lastGroup, {role}});
  }
  if (mergeReplicas)
    clusters = mergeReplicaClusters(clusters, warp);
  for (Cluster &cluster : clusters) {
    Value inCluster =
        inRange(b, loc, group, cluster.firstGroup, cluster.lastGroup + 1);
    auto ifOp = scf::IfOp::create(b, loc, likely(b, loc, inCluster),
                                  /*withElse=*/false);
    OpBuilder cb(ifOp.thenBlock()->getTerminator());
    std::optional<uint32_t> regs = cluster.roles.front().getRegs();
    if (regs && *regs != cap)
      NVVM::SetMaxRegisterOp::create(
          cb, loc, *regs,
          int64_t(*regs) > cap ? NVVM::SetMaxRegisterAction::increase
                               : NVVM::SetMaxRegisterAction::decrease);
    for (RoleOp role : cluster.roles)
      lowerRole(cb, role, warp, tid, cluster.replicas, cluster.index);
  }
  op.erase();
  return success();
}

/// Replaces each ws.warp_specialize in `func` by branches on the warp index
/// and sets the kernel attributes nvvm.maxntid and nvvm.minctasm, and
/// nvvm.cluster_dim for a kernel of CTA pairs or TMA multicast. With
/// `mergeReplicas`, roles that differ only in values run one copy of the
/// code (mergeReplicaRoles).
static LogicalResult lowerRoles(FunctionOpInterface func, bool mergeReplicas) {
  WSDialect &ws = WSDialect::getLoaded(func->getContext());
  bool ctaPair = ws.getCtaPairAttrHelper().isAttrPresent(func);
  bool multicast = ws.getMulticastAttrHelper().isAttrPresent(func);
  SmallVector<WarpSpecializeOp> ops;
  func->walk([&](WarpSpecializeOp op) { ops.push_back(op); });
  bool hasMBarriers = false;
  func->walk([&](MBarrierAllocOp) { hasMBarriers = true; });
  Builder b(func->getContext());
  bool anyBudget = false;
  for (WarpSpecializeOp op : ops)
    for (RoleOp role : op.getRoles())
      anyBudget |= role.getRegs().has_value();

  // TMA multicast: neither CTA exits before both have finished their roles
  // (their producers drained their rings first), so that no CTA signals
  // the other's barriers after it exited.
  if (multicast) {
    for (WarpSpecializeOp op : ops) {
      OpBuilder ob(op->getContext());
      ob.setInsertionPointAfter(op);
      NVVM::ClusterArriveOp::create(ob, op.getLoc(), ob.getUnitAttr());
      NVVM::ClusterWaitOp::create(ob, op.getLoc(), ob.getUnitAttr());
    }
  }
  if (!ops.empty()) {
    IntegerAttr numThreads = ws.getNumThreadsAttrHelper().getAttr(func);
    if (!numThreads)
      return func->emitError("kernel has no ws.num_threads: run "
                             "ws-allocate-registers before ws-lower-roles");
    for (WarpSpecializeOp op : ops)
      if (failed(lowerWarpSpecialize(op, numThreads.getInt(), hasMBarriers,
                                     ctaPair || (multicast && hasMBarriers),
                                     mergeReplicas)))
        return failure();
    func->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
                  b.getDenseI32ArrayAttr({int32_t(numThreads.getInt()), 1, 1}));
    // A register cap at entry makes ptxas honour setmaxnreg.
    if (anyBudget)
      func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                    b.getI32IntegerAttr(1));
  }
  // The kernel runs in clusters of two CTAs along x.
  if ((ctaPair && !ops.empty()) || multicast)
    func->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                  b.getDenseI32ArrayAttr({2, 1, 1}));
  return success();
}

/// Rejects, before anything changes, a kernel that is both a CTA pair and a
/// TMA multicast kernel (each runs in clusters of two CTAs, for its own
/// purpose), and a ws.warp_specialize that is not the only one of its
/// kernel or does not stand directly in the kernel's body: the roles divide
/// the kernel's warps once, from the register cap the kernel starts with.
static LogicalResult checkSupported(gpu::GPUModuleOp module) {
  WSDialect &ws = WSDialect::getLoaded(module.getContext());
  WalkResult walk = module->walk([&](FunctionOpInterface func) {
    if (ws.getCtaPairAttrHelper().isAttrPresent(func) &&
        ws.getMulticastAttrHelper().isAttrPresent(func)) {
      func->emitError("a kernel is either a CTA pair ('")
          << ws.getCtaPairAttrHelper().getName().getValue()
          << "') or shares blocks by TMA multicast ('"
          << ws.getMulticastAttrHelper().getName().getValue() << "'), not both";
      return WalkResult::interrupt();
    }
    WarpSpecializeOp first;
    WalkResult nested = func->walk([&](WarpSpecializeOp op) {
      if (first) {
        InFlightDiagnostic diag =
            op.emitOpError("is the second ws.warp_specialize of kernel @")
            << func.getName() << ": ws-lower-roles lowers one per kernel";
        diag.attachNote(first.getLoc()) << "the first";
        return WalkResult::interrupt();
      }
      first = op;
      if (op->getParentOp() != func.getOperation()) {
        op.emitOpError("must stand directly in the body of its kernel, not "
                       "in '")
            << op->getParentOp()->getName()
            << "': ws-lower-roles divides the kernel's warps into roles "
               "once, at its start";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return nested.wasInterrupted() ? WalkResult::interrupt()
                                   : WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

namespace {
/// Lowers the roles of the kernels of every gpu.module to a dispatch on the
/// warp index.
struct WSLowerRolesPass : public ws::impl::WSLowerRolesBase<WSLowerRolesPass> {
  using WSLowerRolesBase::WSLowerRolesBase;

  void runOnOperation() override {
    SmallVector<gpu::GPUModuleOp> modules;
    getOperation()->walk([&](gpu::GPUModuleOp m) { modules.push_back(m); });
    for (gpu::GPUModuleOp module : modules)
      if (failed(checkSupported(module)))
        return signalPassFailure();
    // Rings that ws-verify-phases has not checked are checked here first:
    // a wrong stage or phase would be a hang or a race in the kernel.
    if (verifyPhases)
      for (gpu::GPUModuleOp module : modules)
        if (failed(verifyUnmarked(
                module, WSDialect::PhasesVerifiedAttrHelper::getNameStr(),
                ws::verifyPhases)))
          return signalPassFailure();
    for (gpu::GPUModuleOp module : modules) {
      // A hang report names the role of its wait: with the reports on, each
      // role keeps its own code.
      bool mergeReplicas =
          replicaRoles && !WSDialect::getLoaded(module.getContext())
                               .getHangReportsAttrHelper()
                               .isAttrPresent(module);
      WalkResult walk = module.walk([&](FunctionOpInterface func) {
        return failed(lowerRoles(func, mergeReplicas)) ? WalkResult::interrupt()
                                                       : WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return signalPassFailure();
    }
  }
};
} // namespace
