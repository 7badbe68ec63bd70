//===- ReplicaRoles.cpp - one code copy for roles that differ in values ---===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#include "ReplicaRoles.h"
#include "RoleUtils.h"

#include "fmha/Dialect/WS/IR/WSUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlir::ws;

namespace {
/// An op only one replica has, and where it goes in the first role's body:
/// after `after` in `block`, or at the block's start when `after` is null.
struct ExtraOp {
  Operation *op;
  Block *block;
  Operation *after;
};

/// How one replica's body lines up with the first role's.
struct Alignment {
  /// Replica values -> the first role's values.
  IRMapping map;
  /// Lined-up ops: the first role's, the replica's.
  SmallVector<std::pair<Operation *, Operation *>> pairs;
  /// The first role's ops with side effects that the replica does not run.
  SmallVector<Operation *> missing;
  /// The replica's ops that the first role does not have.
  SmallVector<ExtraOp> extras;
};
} // namespace

/// The id and thread count of a named barrier op.
static std::optional<std::pair<int64_t, int64_t>> namedBarrier(Operation *op) {
  if (auto sync = dyn_cast<BarrierSyncOp>(op))
    return std::make_pair<int64_t, int64_t>(sync.getId(), sync.getThreads());
  if (auto arrive = dyn_cast<BarrierArriveOp>(op))
    return std::make_pair<int64_t, int64_t>(arrive.getId(),
                                            arrive.getThreads());
  return std::nullopt;
}

/// `op`'s attributes but those that only name things for diagnostics (the
/// ring and channel of a wait: replicas that each own channels wait on
/// different ones in the same place).
static DictionaryAttr semanticAttrs(Operation *op) {
  NamedAttrList attrs(op->getAttrDictionary());
  attrs.erase(WSDialect::RingAttrHelper::getNameStr());
  attrs.erase(WSDialect::ChannelAttrHelper::getNameStr());
  return attrs.getDictionary(op->getContext());
}

/// Whether `a` and `b` can be one op of the merged body: the same op with
/// the same attributes (a named barrier's id and diagnostic names aside)
/// and types, and regions of at most one block. Operands are compared after
/// the alignment.
static bool sameShape(Operation *a, Operation *b) {
  if (a->getName() != b->getName() ||
      a->getNumOperands() != b->getNumOperands() ||
      a->getNumRegions() != b->getNumRegions() ||
      !llvm::equal(a->getResultTypes(), b->getResultTypes()) ||
      !llvm::equal(a->getOperandTypes(), b->getOperandTypes()))
    return false;
  for (auto [ra, rb] : llvm::zip(a->getRegions(), b->getRegions()))
    if (ra.getBlocks().size() != rb.getBlocks().size() ||
        (!ra.hasOneBlock() && !ra.empty()))
      return false;
  if (auto barrier = namedBarrier(a))
    return barrier->second == namedBarrier(b)->second;
  if (a->getAttrDictionary() == b->getAttrDictionary())
    return true;
  return isa<MBarrierWaitOp>(a) && semanticAttrs(a) == semanticAttrs(b);
}

/// Whether every replica may run `op` though only some have it: it computes
/// a value (an offset one replica adds) and has no other effect.
static bool isFreeToRun(Operation *op) {
  return op->getNumRegions() == 0 && isPure(op);
}

/// Whether an op only some replicas have can be merged: a pure op, which
/// every replica then runs, or one with effects but no results, which only
/// the replicas that have it run.
static bool isMergeable(Operation *op) {
  return isFreeToRun(op) || op->getNumResults() == 0;
}

/// The most ops a block pair may have (the product of their sizes) for the
/// quadratic alignment.
constexpr size_t kMaxAlignmentCells = size_t(1) << 22;

static bool alignBlocks(Block &ref, Block &rep, Alignment &al);

/// Lines up the regions of the lined-up ops `a` and `b`.
static bool alignRegions(Operation *a, Operation *b, Alignment &al) {
  for (auto [ra, rb] : llvm::zip(a->getRegions(), b->getRegions()))
    if (!ra.empty() && !alignBlocks(ra.front(), rb.front(), al))
      return false;
  return true;
}

/// Lines up the ops of `rep` with those of `ref` (a longest common
/// subsequence of ops of the same shape), recording lined-up pairs, the
/// ops only one side has, and the values of `rep` standing for `ref`'s.
static bool alignBlocks(Block &ref, Block &rep, Alignment &al) {
  if (!llvm::equal(ref.getArgumentTypes(), rep.getArgumentTypes()))
    return false;
  for (auto [a, b] : llvm::zip(ref.getArguments(), rep.getArguments()))
    al.map.map(b, a);
  SmallVector<Operation *> as = llvm::map_to_vector(
      ref.getOperations(), [](Operation &op) { return &op; });
  SmallVector<Operation *> bs = llvm::map_to_vector(
      rep.getOperations(), [](Operation &op) { return &op; });
  size_t n = as.size(), m = bs.size();
  if ((n + 1) * (m + 1) > kMaxAlignmentCells)
    return false;
  // lcs[i * (m + 1) + j]: the longest common subsequence of as[i:], bs[j:].
  std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
  auto at = [&](size_t i, size_t j) -> uint32_t & {
    return lcs[i * (m + 1) + j];
  };
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;) {
      at(i, j) = std::max(at(i + 1, j), at(i, j + 1));
      if (sameShape(as[i], bs[j]))
        at(i, j) = std::max(at(i, j), at(i + 1, j + 1) + 1);
    }

  Operation *last = nullptr;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && sameShape(as[i], bs[j]) &&
        at(i, j) == at(i + 1, j + 1) + 1) {
      al.map.map(bs[j]->getResults(), as[i]->getResults());
      al.pairs.push_back({as[i], bs[j]});
      if (!alignRegions(as[i], bs[j], al))
        return false;
      last = as[i++];
      ++j;
    } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
      if (!isMergeable(as[i]))
        return false;
      if (!isFreeToRun(as[i]))
        al.missing.push_back(as[i]);
      last = as[i++];
    } else {
      if (!isMergeable(bs[j]))
        return false;
      al.extras.push_back({bs[j++], &ref, last});
    }
  }
  return true;
}

/// Whether a differing value of `operand` can be chosen by a select: a
/// scalar, a buffer, or a barrier array, but not the tensor-memory ring a
/// `ws.slot` indexes (its lowering reads the stage stride off the
/// `ws.tmem_buffer` that placed the ring).
static bool isSelectable(OpOperand &operand) {
  Type type = operand.get().getType();
  if (auto memref = dyn_cast<MemRefType>(type))
    return isSharedMemory(memref) ||
           (isTensorMemory(memref) && !isa<SlotOp>(operand.getOwner()));
  return isa<IntegerType, IndexType, FloatType, MBarrierType>(type);
}

/// Whether `a` and `b` are constants of one value.
static bool sameConstant(Value a, Value b) {
  auto ca = a.getDefiningOp<arith::ConstantOp>();
  auto cb = b.getDefiningOp<arith::ConstantOp>();
  return ca && cb && ca.getValue() == cb.getValue();
}

namespace {
/// What the merge changes in the first role's body, found before anything
/// changes.
struct MergePlan {
  /// Operands of the first role's ops whose value differs by replica, with
  /// the value of each replica (its own, mapped when the merge applies).
  llvm::MapVector<OpOperand *, SmallVector<Value>> operands;
  /// Named barriers whose id differs by replica, with each replica's id.
  llvm::MapVector<Operation *, SmallVector<int64_t>> barrierIds;
  /// The first role's ops, with the replicas that do not run them.
  llvm::MapVector<Operation *, SmallVector<int64_t>> missing;
  /// Each replica's ops that the first role does not run, with the mapping
  /// of its values.
  SmallVector<std::pair<int64_t, ExtraOp>> extras;
};
} // namespace

/// Whether `value`, used by a replica `role`'s op that the merge keeps, will
/// have a value in the merged body: defined outside the role, or standing
/// for a value of the first role, or computed by an op of the role's own
/// that the merge copies (one of `extras`).
static bool willHaveValue(Value value, RoleOp role, const IRMapping &map,
                          const DenseSet<Operation *> &extras) {
  if (!role->isAncestor(value.getParentRegion()->getParentOp()) ||
      map.contains(value))
    return true;
  Operation *def = value.getDefiningOp();
  return def && extras.contains(def);
}

/// Whether every value that `op` (an op only replica `role` has) uses from
/// outside itself will have a value in the merged body.
static bool usesOnlyMergedValues(Operation *op, RoleOp role,
                                 const IRMapping &map,
                                 const DenseSet<Operation *> &extras) {
  WalkResult walk = op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      if (!op->isAncestor(operand.getParentRegion()->getParentOp()) &&
          !willHaveValue(operand, role, map, extras))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

/// Plans the merge of `roles` into the first, or fails.
static FailureOr<MergePlan> planMerge(ArrayRef<RoleOp> roles,
                                      std::vector<Alignment> &alignments) {
  int64_t count = roles.size();
  RoleOp first = roles.front();
  Block &refBody = first.getBody().front();
  alignments.reserve(count - 1);
  MergePlan plan;
  for (int64_t k = 1; k < count; ++k) {
    Alignment &al = alignments.emplace_back();
    RoleOp replica = roles[k];
    if (!alignBlocks(refBody, replica.getBody().front(), al))
      return failure();
    DenseSet<Operation *> extras;
    for (ExtraOp extra : al.extras)
      extras.insert(extra.op);
    for (auto [a, b] : al.pairs) {
      if (auto barrier = namedBarrier(a)) {
        int64_t id = namedBarrier(b)->first;
        if (id != barrier->first) {
          auto [it, _] = plan.barrierIds.insert(
              {a, SmallVector<int64_t>(count, barrier->first)});
          it->second[k] = id;
        }
      }
      for (OpOperand &operand : a->getOpOperands()) {
        Value mine = operand.get();
        Value theirs = b->getOperand(operand.getOperandNumber());
        Value mapped = al.map.lookupOrDefault(theirs);
        if (mine == mapped || sameConstant(mine, mapped))
          continue;
        if (!isSelectable(operand) ||
            !willHaveValue(theirs, replica, al.map, extras))
          return failure();
        auto [it, _] =
            plan.operands.insert({&operand, SmallVector<Value>(count, mine)});
        it->second[k] = theirs;
      }
    }
    for (Operation *op : al.missing)
      plan.missing[op].push_back(k);
    for (ExtraOp extra : al.extras) {
      if (!usesOnlyMergedValues(extra.op, replica, al.map, extras))
        return failure();
      plan.extras.push_back({k, extra});
    }
  }
  return plan;
}

/// `index == k`.
static Value isReplica(OpBuilder &b, Location loc, Value index, int64_t k) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, index,
                               constI32(b, loc, k));
}

/// The value of replica `index` among `values` (one per replica).
static Value selectByReplica(OpBuilder &b, Location loc, Value index,
                             ArrayRef<Value> values) {
  Value value = values.front();
  for (auto [k, other] : llvm::enumerate(values))
    if (other != values.front())
      value = arith::SelectOp::create(b, loc, isReplica(b, loc, index, k),
                                      other, value);
  return value;
}

/// Moves `op` into an `scf.if` taken by every replica but `skip`.
static void guardExcept(OpBuilder &b, Operation *op, Value index,
                        ArrayRef<int64_t> skip) {
  Location loc = op->getLoc();
  b.setInsertionPoint(op);
  Value cond;
  for (int64_t k : skip) {
    Value other = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, index,
                                        constI32(b, loc, k));
    cond = cond ? arith::AndIOp::create(b, loc, cond, other) : other;
  }
  guard(b, op, cond);
}

/// Replaces the named barrier `op` by its NVVM op with the id of replica
/// `index` among `ids`.
static void replaceBarrierId(OpBuilder &b, Operation *op, Value index,
                             ArrayRef<int64_t> ids) {
  Location loc = op->getLoc();
  b.setInsertionPoint(op);
  Value id = constI32(b, loc, ids.front());
  for (auto [k, other] : llvm::enumerate(ids))
    if (other != ids.front())
      id = arith::SelectOp::create(b, loc, isReplica(b, loc, index, k),
                                   constI32(b, loc, other), id);
  Value threads = constI32(b, loc, namedBarrier(op)->second);
  if (isa<BarrierSyncOp>(op))
    NVVM::BarrierOp::create(b, loc, Type(), id, threads,
                            NVVM::BarrierReductionAttr(), Value());
  else
    NVVM::BarrierArriveOp::create(b, loc, id, threads);
  op->erase();
}

Value ws::mergeReplicaRoles(ArrayRef<RoleOp> roles, Value warp) {
  std::vector<Alignment> alignments;
  FailureOr<MergePlan> plan = planMerge(roles, alignments);
  if (failed(plan))
    return Value();

  RoleOp first = roles.front();
  Block &body = first.getBody().front();
  Location loc = first.getLoc();
  OpBuilder b = OpBuilder::atBlockBegin(&body);
  Value offset = arith::SubIOp::create(b, loc, warp,
                                       constI32(b, loc, *first.getFirstWarp()));
  Value index = arith::DivUIOp::create(b, loc, offset,
                                       constI32(b, loc, first.getWarps()));

  // Each replica's own ops, in its order, after the op they follow.
  DenseMap<std::pair<Block *, Operation *>, Operation *> lastPlaced;
  for (auto &[k, extra] : plan->extras) {
    Operation *anchor = extra.after;
    if (!anchor && extra.block == &body)
      anchor = index.getDefiningOp();
    Operation *&placed = lastPlaced[{extra.block, anchor}];
    if (placed)
      b.setInsertionPointAfter(placed);
    else if (anchor)
      b.setInsertionPointAfter(anchor);
    else
      b.setInsertionPointToStart(extra.block);
    IRMapping &map = alignments[k - 1].map;
    if (isFreeToRun(extra.op)) {
      placed = b.clone(*extra.op, map);
      continue;
    }
    Location at = extra.op->getLoc();
    auto ifOp = scf::IfOp::create(b, at, isReplica(b, at, index, k),
                                  /*withElse=*/false);
    OpBuilder inner(ifOp.thenBlock()->getTerminator());
    inner.clone(*extra.op, map);
    placed = ifOp;
  }
  for (auto &[operand, values] : plan->operands) {
    for (size_t k = 1; k < values.size(); ++k)
      values[k] = alignments[k - 1].map.lookupOrDefault(values[k]);
    b.setInsertionPoint(operand->getOwner());
    operand->set(
        selectByReplica(b, operand->getOwner()->getLoc(), index, values));
  }
  for (auto &[op, skip] : plan->missing)
    guardExcept(b, op, index, skip);
  for (auto &[op, ids] : plan->barrierIds)
    replaceBarrierId(b, op, index, ids);
  for (RoleOp role : roles.drop_front())
    RoleOp(role).erase();
  return index;
}
