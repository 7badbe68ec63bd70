//===- VerifyPhases.cpp - Bounded model check of mbarrier phases ----------===//
//
// Part of fmha. Implements ws-verify-phases: checks the stage and phase
// arithmetic of explicit mbarrier rings (the output of ws-insert-mbarriers,
// or rings written by hand) by interpreting every role of a
// ws.warp_specialize for concrete trip counts and simulating the mbarriers
// the roles wait on and arrive at. A kernel in clusters of two CTAs that
// share blocks by TMA multicast (ws.multicast) is simulated as two copies
// of its roles, one per CTA (both run the same program), whose multicast
// copies and commits reach the barriers of both.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/WS/Analysis/Checkers.h"
#include "fmha/Dialect/WS/Analysis/Diagnostics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>
#include <vector>

using namespace mlir;
using namespace mlir::ws;

/// Operations one role may interpret in one simulated run.
static constexpr size_t kMaxSteps = size_t(1) << 20;
/// Operations all roles of one ws.warp_specialize may interpret over all
/// trials together: the trials grow with the stages and nested loops to
/// induction variables multiply, so the per-run bound alone lets a small
/// kernel take minutes.
static constexpr size_t kMaxKernelSteps = size_t(1) << 20;
/// Loops without mbarrier operations run at most this many iterations;
/// beyond, their results are unknown.
static constexpr uint64_t kMaxPlainTrips = 4096;
/// Depth of the computations above the roles that are interpreted.
static constexpr unsigned kMaxOutsideDepth = 32;
/// Stages counted for the trial trip counts (a channel has at most 32).
static constexpr int64_t kMaxStages = 32;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Bits of an integer or index value; none for other types.
static std::optional<unsigned> getWidth(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type))
    return integer.getWidth();
  if (isa<IndexType>(type))
    return 64;
  return std::nullopt;
}

static bool isBarrierOp(Operation *op) { return isa<MBarrierOpInterface>(op); }

/// The mbarrier array operand of a barrier op.
static Value getBarriers(Operation *op) {
  return cast<MBarrierOpInterface>(op).getBarriers();
}

namespace {

//===----------------------------------------------------------------------===//
// Values of the interpreter
//===----------------------------------------------------------------------===//

/// An interpreted value: an integer, or unknown because `cause` (an op
/// result or a block argument) could not be interpreted.
struct Val {
  std::optional<APInt> known;
  Value cause;

  static Val of(APInt value) {
    Val v;
    v.known = std::move(value);
    return v;
  }
  static Val unknown(Value cause) {
    Val v;
    v.cause = cause;
    return v;
  }
};

/// The result of an integer arith op on two operands of one width; none for
/// another op, or where the op is undefined: division and remainder by zero
/// or of the smallest signed value by -1, shifts by the width or more.
static std::optional<APInt> applyBinary(Operation *op, const APInt &a,
                                        const APInt &b) {
  using namespace llvm::APIntOps;
  bool signedDivision = isa<arith::DivSIOp, arith::RemSIOp, arith::CeilDivSIOp,
                            arith::FloorDivSIOp>(op);
  bool division = signedDivision ||
                  isa<arith::DivUIOp, arith::RemUIOp, arith::CeilDivUIOp>(op);
  if (division &&
      (b.isZero() || (signedDivision && a.isMinSignedValue() && b.isAllOnes())))
    return std::nullopt;
  if (isa<arith::ShLIOp, arith::ShRSIOp, arith::ShRUIOp>(op) &&
      b.uge(a.getBitWidth()))
    return std::nullopt;
  return TypeSwitch<Operation *, std::optional<APInt>>(op)
      .Case([&](arith::AddIOp) { return a + b; })
      .Case([&](arith::SubIOp) { return a - b; })
      .Case([&](arith::MulIOp) { return a * b; })
      .Case([&](arith::AndIOp) { return a & b; })
      .Case([&](arith::OrIOp) { return a | b; })
      .Case([&](arith::XOrIOp) { return a ^ b; })
      .Case([&](arith::MaxSIOp) { return smax(a, b); })
      .Case([&](arith::MinSIOp) { return smin(a, b); })
      .Case([&](arith::MaxUIOp) { return umax(a, b); })
      .Case([&](arith::MinUIOp) { return umin(a, b); })
      .Case([&](arith::DivSIOp) { return a.sdiv(b); })
      .Case([&](arith::DivUIOp) { return a.udiv(b); })
      .Case([&](arith::RemSIOp) { return a.srem(b); })
      .Case([&](arith::RemUIOp) { return a.urem(b); })
      .Case([&](arith::CeilDivSIOp) {
        return RoundingSDiv(a, b, APInt::Rounding::UP);
      })
      .Case([&](arith::CeilDivUIOp) {
        return RoundingUDiv(a, b, APInt::Rounding::UP);
      })
      .Case([&](arith::FloorDivSIOp) {
        return RoundingSDiv(a, b, APInt::Rounding::DOWN);
      })
      .Case([&](arith::ShLIOp) { return a.shl(b.getZExtValue()); })
      .Case([&](arith::ShRSIOp) { return a.ashr(b.getZExtValue()); })
      .Case([&](arith::ShRUIOp) { return a.lshr(b.getZExtValue()); })
      .Default([](Operation *) { return std::nullopt; });
}

/// Evaluates a side-effect-free arith op on integers; its result is
/// unknown when an operand is, or when the op is not one it knows.
static Val evaluateArith(Operation *op, function_ref<Val(Value)> get) {
  if (op->getNumResults() != 1)
    return Val::unknown(op->getNumResults() ? op->getResult(0) : Value());
  Value result = op->getResult(0);
  Val self = Val::unknown(result);
  std::optional<unsigned> width = getWidth(result.getType());
  if (!width)
    return self;

  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    if (auto attr = dyn_cast<IntegerAttr>(constant.getValue()))
      return Val::of(attr.getValue().sextOrTrunc(*width));
    return self;
  }
  if (auto select = dyn_cast<arith::SelectOp>(op)) {
    Val cond = get(select.getCondition());
    if (cond.known)
      return get(cond.known->isZero() ? select.getFalseValue()
                                      : select.getTrueValue());
    Val a = get(select.getTrueValue()), b = get(select.getFalseValue());
    if (a.known && b.known && *a.known == *b.known)
      return a;
    return cond;
  }

  SmallVector<APInt> x;
  for (Value operand : op->getOperands()) {
    Val v = get(operand);
    if (!v.known)
      return v;
    x.push_back(*v.known);
  }
  auto resize = [&](bool isSigned) -> Val {
    if (x.size() != 1)
      return self;
    return Val::of(isSigned ? x[0].sextOrTrunc(*width)
                            : x[0].zextOrTrunc(*width));
  };

  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    if (x.size() != 2 || x[0].getBitWidth() != x[1].getBitWidth() ||
        *width != 1)
      return self;
    return Val::of(
        APInt(1, arith::applyCmpPredicate(cmp.getPredicate(), x[0], x[1])));
  }
  if (isa<arith::ExtSIOp, arith::IndexCastOp>(op))
    return resize(true);
  if (isa<arith::ExtUIOp, arith::TruncIOp, arith::IndexCastUIOp>(op))
    return resize(false);
  // Ops whose operands and result have the same width.
  if (x.size() != 2 || x[0].getBitWidth() != *width ||
      x[1].getBitWidth() != *width)
    return self;
  std::optional<APInt> folded = applyBinary(op, x[0], x[1]);
  return folded ? Val::of(*folded) : self;
}

//===----------------------------------------------------------------------===//
// The rings of one ws.warp_specialize
//===----------------------------------------------------------------------===//

/// How the waits on a barrier array are meant to pass: the consumers of a
/// full barrier wait for the phase the producer completes next; the
/// producers of an empty barrier pass their first wait at once.
enum class RingSide { Unknown, Full, Empty };

struct BarrierArray {
  MBarrierAllocOp alloc;
  int64_t count = 0;
  int64_t arrivals = 0;
  RingSide side = RingSide::Unknown;
  std::optional<int64_t> channel;
};

/// One wait, arrival or TMA completion of a role, with concrete operands.
struct Event {
  enum Kind { Wait, Arrive, CompleteTx } kind;
  Operation *op;
  BarrierArray *array;
  int64_t index;
  /// Wait: the parity. Arrive: the arrivals. CompleteTx: unused.
  int64_t amount;
  /// Arrive: bytes added to the expected transactions. CompleteTx: bytes
  /// delivered.
  int64_t bytes;
  /// Arrive, CompleteTx: reaches the barrier at the same index in every CTA
  /// of the cluster (a multicast commit or TMA copy).
  bool multicast = false;
};

/// A protocol or interpretation error, reported at `op`.
struct Error {
  Operation *op = nullptr;
  std::string message;
  /// The run was too long to simulate: a warning, not an error.
  bool tooLong = false;
  /// The trials together were too long: those before this one passed.
  bool overBudget = false;
};

/// What the roles of one ws.warp_specialize share.
struct Kernel {
  WarpSpecializeOp op;
  llvm::MapVector<Value, BarrierArray> arrays;
  /// Ops that hold mbarrier operations in their regions.
  DenseSet<Operation *> holdsBarrierOps;
  /// Values computed above the roles, interpreted once.
  DenseMap<Value, Val> outside;
  /// Operations interpreted so far, by all roles over all trials.
  size_t steps = 0;

  std::string describeArray(const BarrierArray &array) const {
    MBarrierAllocOp alloc = array.alloc;
    return "the mbarrier array at " + describeLoc(alloc.getLoc());
  }

  /// "full[1] of channel 0", "empty[0] (the mbarrier array at 12:5)", or
  /// "barrier 1 of the mbarrier array at 12:5".
  std::string describe(const BarrierArray &array, int64_t index) const {
    if (array.side == RingSide::Unknown)
      return "barrier " + std::to_string(index) + " of " + describeArray(array);
    std::string text = (array.side == RingSide::Full ? "full[" : "empty[") +
                       std::to_string(index) + "]";
    if (array.channel)
      return text + " of channel " + std::to_string(*array.channel);
    return text + " (" + describeArray(array) + ")";
  }
};

/// Evaluates a value defined above the roles: constants and arith on them.
static Val evaluateOutside(Kernel &kernel, Value value, unsigned depth) {
  auto it = kernel.outside.find(value);
  if (it != kernel.outside.end())
    return it->second;
  Val result = Val::unknown(value);
  Operation *def = value.getDefiningOp();
  if (def && depth < kMaxOutsideDepth && def->getNumRegions() == 0 &&
      isa<arith::ArithDialect>(def->getDialect()))
    result = evaluateArith(def, [&](Value operand) {
      return evaluateOutside(kernel, operand, depth + 1);
    });
  kernel.outside[value] = result;
  return result;
}

//===----------------------------------------------------------------------===//
// Interpreting one role
//===----------------------------------------------------------------------===//

/// Runs one role for one trial: loops whose trip count cannot be computed
/// run `trips` times, scf.if ops on an unknown condition that hold barrier
/// ops take the `defaultBranch` (true: then).
class RoleRun {
public:
  RoleRun(Kernel &kernel, RoleOp role, int64_t trips, bool defaultBranch)
      : kernel(kernel), role(role), trips(trips), defaultBranch(defaultBranch) {
  }

  /// Interprets the role, recording its barrier events.
  LogicalResult run() { return runBlock(role.getBody().front(), nullptr); }

  std::vector<Event> events;
  /// A loop ran the trial's trip count.
  bool substituted = false;
  /// An scf.if took the default branch.
  bool usedDefault = false;
  Error error;

private:
  LogicalResult runBlock(Block &block, SmallVectorImpl<Val> *yielded);
  LogicalResult runOp(Operation &op);
  LogicalResult runFor(scf::ForOp loop);
  LogicalResult runIf(scf::IfOp ifOp);
  LogicalResult runBarrierOp(Operation *op);

  Val get(Value value) {
    auto it = env.find(value);
    if (it != env.end())
      return it->second;
    if (role.getBody().isAncestor(value.getParentRegion()))
      return Val::unknown(value);
    return evaluateOutside(kernel, value, 0);
  }
  void setUnknownResults(Operation *op, Value cause = Value()) {
    for (Value result : op->getResults())
      env[result] = Val::unknown(cause ? cause : result);
  }
  LogicalResult fail(Operation *op, const Twine &message) {
    error.op = op;
    error.message = message.str();
    return failure();
  }
  /// An error for a value of `op` that depends on something the
  /// interpreter cannot evaluate.
  LogicalResult cannotInterpret(Operation *op, Value cause, StringRef what);
  FailureOr<BarrierArray *> getArray(Operation *op);
  FailureOr<int64_t> getInt(Operation *op, Value value, StringRef what);

  Kernel &kernel;
  RoleOp role;
  int64_t trips;
  bool defaultBranch;
  DenseMap<Value, Val> env;
  size_t steps = 0;
};

} // namespace

LogicalResult RoleRun::cannotInterpret(Operation *op, Value cause,
                                       StringRef what) {
  std::string source;
  if (!cause) {
    source = "a value";
  } else if (auto arg = dyn_cast<BlockArgument>(cause)) {
    Operation *parent = arg.getOwner()->getParentOp();
    if (isa_and_nonnull<FunctionOpInterface>(parent))
      source = "kernel argument #" + std::to_string(arg.getArgNumber()) +
               " (only trip counts of scf.for may depend on kernel "
               "arguments)";
    else
      source = "block argument #" + std::to_string(arg.getArgNumber()) +
               " of '" +
               (parent ? parent->getName().getStringRef().str() : "?") + "'";
  } else {
    source = describeOp(cause.getDefiningOp());
  }
  return fail(op, "cannot interpret " + source + ", which the " + what +
                      " of this '" + op->getName().getStringRef() + "' in " +
                      describeRole(role) + " depends on");
}

FailureOr<BarrierArray *> RoleRun::getArray(Operation *op) {
  auto it = kernel.arrays.find(getBarriers(op));
  if (it == kernel.arrays.end())
    return fail(op, "cannot interpret the mbarrier array of this '" +
                        op->getName().getStringRef() + "' in role '" +
                        role.getRoleName() +
                        "': it is not a ws.mbarrier_alloc above the "
                        "ws.warp_specialize");
  return &it->second;
}

FailureOr<int64_t> RoleRun::getInt(Operation *op, Value value, StringRef what) {
  Val v = get(value);
  if (!v.known)
    return cannotInterpret(op, v.cause, what);
  if (v.known->getSignificantBits() > 63)
    return fail(op, Twine("the ") + what + " of this '" +
                        op->getName().getStringRef() + "' is out of range");
  return v.known->getSExtValue();
}

LogicalResult RoleRun::runBlock(Block &block, SmallVectorImpl<Val> *yielded) {
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      if (yielded)
        for (Value operand : op.getOperands())
          yielded->push_back(get(operand));
      continue;
    }
    if (failed(runOp(op)))
      return failure();
  }
  return success();
}

LogicalResult RoleRun::runOp(Operation &op) {
  if (++steps > kMaxSteps) {
    error.op = role;
    error.message = describeRole(role) + " runs more than " +
                    std::to_string(kMaxSteps) + " operations";
    error.tooLong = true;
    return failure();
  }
  if (++kernel.steps > kMaxKernelSteps) {
    error.op = role;
    error.message = "the trials interpret more than " +
                    std::to_string(kMaxKernelSteps) + " operations in all";
    error.tooLong = true;
    error.overBudget = true;
    return failure();
  }
  if (isBarrierOp(&op))
    return runBarrierOp(&op);
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return runFor(loop);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return runIf(ifOp);
  if (isa<WarpSpecializeOp>(op))
    return success(); // checked on its own
  if (op.getNumRegions() != 0) {
    if (kernel.holdsBarrierOps.contains(&op))
      return fail(&op, "cannot interpret '" + op.getName().getStringRef() +
                           "' in role '" + role.getRoleName() +
                           "', which holds mbarrier operations: only scf.for "
                           "and scf.if may");
    setUnknownResults(&op);
    return success();
  }
  if (op.getNumResults() == 1 && isa<arith::ArithDialect>(op.getDialect())) {
    env[op.getResult(0)] =
        evaluateArith(&op, [&](Value value) { return get(value); });
    return success();
  }
  setUnknownResults(&op);
  return success();
}

LogicalResult RoleRun::runFor(scf::ForOp loop) {
  bool holds = kernel.holdsBarrierOps.contains(loop);
  bool integerResults = llvm::any_of(loop.getResultTypes(), [](Type type) {
    return getWidth(type).has_value();
  });
  if (!holds && !integerResults) {
    setUnknownResults(loop);
    return success();
  }
  Val lb = get(loop.getLowerBound()), ub = get(loop.getUpperBound()),
      step = get(loop.getStep());
  uint64_t count;
  if (lb.known && ub.known && step.known) {
    const APInt &l = *lb.known, &u = *ub.known, &s = *step.known;
    bool isUnsigned = loop.getUnsignedCmp();
    if (l.getBitWidth() != u.getBitWidth() ||
        l.getBitWidth() != s.getBitWidth() || s.isZero() ||
        (!isUnsigned && s.isNegative())) {
      if (holds)
        return fail(loop, "cannot interpret this scf.for in role '" +
                              role.getRoleName() +
                              "': its step is not positive");
      setUnknownResults(loop);
      return success();
    }
    bool empty = isUnsigned ? u.ule(l) : u.sle(l);
    if (empty) {
      count = 0;
    } else {
      APInt span = u - l;
      APInt n = span.udiv(s);
      if (!span.urem(s).isZero())
        n += 1;
      count = n.getLimitedValue();
    }
    if (!holds && count > kMaxPlainTrips) {
      setUnknownResults(loop);
      return success();
    }
  } else {
    count = uint64_t(trips);
    substituted = true;
  }

  SmallVector<Val> iters;
  for (Value init : loop.getInitArgs())
    iters.push_back(get(init));
  Value iv = loop.getInductionVar();
  for (uint64_t i = 0; i < count; ++i) {
    if (lb.known && step.known &&
        lb.known->getBitWidth() == step.known->getBitWidth())
      env[iv] =
          Val::of(*lb.known + *step.known * APInt(lb.known->getBitWidth(), i));
    else
      env[iv] = Val::unknown(lb.known ? step.cause : lb.cause);
    for (auto [arg, value] : llvm::zip(loop.getRegionIterArgs(), iters))
      env[arg] = value;
    SmallVector<Val> yielded;
    if (failed(runBlock(*loop.getBody(), &yielded)))
      return failure();
    if (yielded.size() != iters.size())
      return fail(loop, "cannot interpret this scf.for: its yield does not "
                        "match its iteration arguments");
    iters = std::move(yielded);
  }
  for (auto [result, value] : llvm::zip(loop.getResults(), iters))
    env[result] = value;
  return success();
}

LogicalResult RoleRun::runIf(scf::IfOp ifOp) {
  Val cond = get(ifOp.getCondition());
  bool branch;
  if (cond.known) {
    branch = !cond.known->isZero();
  } else if (!kernel.holdsBarrierOps.contains(ifOp)) {
    setUnknownResults(ifOp, cond.cause);
    return success();
  } else {
    branch = defaultBranch;
    usedDefault = true;
  }
  Region &region = branch ? ifOp.getThenRegion() : ifOp.getElseRegion();
  if (region.empty()) {
    setUnknownResults(ifOp);
    return success();
  }
  SmallVector<Val> yielded;
  if (failed(runBlock(region.front(), &yielded)))
    return failure();
  if (yielded.size() != ifOp.getNumResults())
    return fail(ifOp, "cannot interpret this scf.if: its yield does not "
                      "match its results");
  for (auto [result, value] : llvm::zip(ifOp.getResults(), yielded))
    env[result] = value;
  return success();
}

LogicalResult RoleRun::runBarrierOp(Operation *op) {
  FailureOr<BarrierArray *> array = getArray(op);
  if (failed(array))
    return failure();
  FailureOr<int64_t> index =
      getInt(op, cast<MBarrierOpInterface>(op).getIndex(), "stage");
  if (failed(index))
    return failure();
  if (*index < 0 || *index >= (*array)->count)
    return fail(op, describeRole(role) + " uses barrier " + Twine(*index) +
                        " of " + kernel.describeArray(**array) +
                        ", which holds " + plural((*array)->count, "barrier") +
                        ": the stage is out of range (simulating loops of "
                        "unknown trip count with " +
                        Twine(trips) + " iterations)");
  Event event{Event::Wait, op, *array, *index, 0, 0};
  if (auto wait = dyn_cast<MBarrierWaitOp>(op)) {
    FailureOr<int64_t> parity = getInt(op, wait.getPhase(), "phase parity");
    if (failed(parity))
      return failure();
    if (*parity != 0 && *parity != 1)
      return fail(op, describeRole(role) + " waits on " +
                          kernel.describe(**array, *index) + " for parity " +
                          Twine(*parity) + ", which is neither 0 nor 1");
    event.amount = *parity;
  } else if (auto arrive = dyn_cast<MBarrierArriveOp>(op)) {
    event.kind = Event::Arrive;
    // One arrival by the leader, one per warp for a multicast arrival by
    // threads (each warp's first lane), else one per thread.
    if (arrive.getLeader())
      event.amount = 1;
    else if (arrive.getMulticast() && !arrive.getTcgen05())
      event.amount = role.getWarps();
    else
      event.amount = role.getNumThreads();
    event.bytes = arrive.getTxBytes().value_or(0);
    event.multicast = arrive.getMulticast();
  } else {
    auto load = cast<TMALoadMBarrierOp>(op);
    event.kind = Event::CompleteTx;
    event.bytes = getMemRefBytes(load.getBuffer().getType());
    // A multicast copy brings this CTA's half of the block to every CTA.
    if (load.getMulticast()) {
      event.bytes /= 2;
      event.multicast = true;
    }
  }
  events.push_back(event);
  return success();
}

//===----------------------------------------------------------------------===//
// Simulating the roles together
//===----------------------------------------------------------------------===//

namespace {

/// One mbarrier: completed phases, arrivals still expected in the current
/// phase, and expected transaction bytes not yet delivered.
struct BarrierState {
  int64_t completed = 0;
  int64_t pending = 0;
  int64_t tx = 0;
};

struct RoleTrace {
  RoleOp role;
  /// The CTA of the cluster that runs this copy of the role.
  unsigned cta;
  std::vector<Event> events;
  size_t next = 0;
  /// Waits passed so far, per barrier.
  std::map<std::pair<BarrierArray *, int64_t>, int64_t> waits;
};

} // namespace

/// What is amiss with the transaction bytes of a phase, if anything.
static std::string describeTx(int64_t tx) {
  if (tx > 0)
    return ", " + std::to_string(tx) +
           " expected transaction bytes not "
           "delivered";
  if (tx < 0)
    return ", " + std::to_string(-tx) +
           " transaction bytes delivered "
           "beyond those expected";
  return "";
}

/// Simulates the roles until all have finished or none can go on. Roles run
/// in turn, each as far as it can; a wait passes when the barrier's current
/// phase parity differs from the wait's (the phase of that parity has
/// completed), as mbarrier.try_wait.parity does.
static std::optional<Error> simulate(Kernel &kernel,
                                     MutableArrayRef<RoleTrace> traces,
                                     unsigned ctas, StringRef trial) {
  std::map<std::tuple<unsigned, BarrierArray *, int64_t>, BarrierState> states;
  auto stateIn = [&](unsigned cta, const Event &event) -> BarrierState & {
    auto [it, inserted] =
        states.try_emplace({cta, event.array, event.index}, BarrierState());
    if (inserted)
      it->second.pending = event.array->arrivals;
    return it->second;
  };
  auto maybeComplete = [](BarrierState &state, const BarrierArray &array) {
    if (state.pending == 0 && state.tx == 0) {
      ++state.completed;
      state.pending = array.arrivals;
    }
  };

  bool progress = true;
  while (progress) {
    progress = false;
    for (RoleTrace &trace : traces) {
      // "role 'load'", or "role 'load' of CTA 1" in a cluster.
      std::string who = describeRole(
          trace.role, ctas > 1 ? std::optional(trace.cta) : std::nullopt);
      while (trace.next < trace.events.size()) {
        const Event &event = trace.events[trace.next];
        BarrierState &state = stateIn(trace.cta, event);
        // Only for messages: built on every event, it would dominate.
        auto barrier = [&] {
          return kernel.describe(*event.array, event.index);
        };
        if (event.kind == Event::Wait) {
          if ((state.completed & 1) == event.amount)
            break; // blocked
          int64_t nth = ++trace.waits[{event.array, event.index}];
          if (event.array->side != RingSide::Unknown) {
            bool full = event.array->side == RingSide::Full;
            int64_t needed = full ? nth : nth - 1;
            if (state.completed != needed)
              return Error{
                  event.op,
                  (who + " passes this wait on " + barrier() +
                   (state.completed < needed ? " too early" : " too late") +
                   ": its " + ordinal(nth) + " wait on this " +
                   (full ? "full" : "empty") + " barrier needs " +
                   plural(needed, "completed phase") + ", but " +
                   Twine(state.completed) +
                   (state.completed == 1 ? " has" : " have") +
                   " completed (it waits for parity " + Twine(event.amount) +
                   ")" + trial)
                      .str()};
          }
        } else if (event.kind == Event::Arrive) {
          for (unsigned cta = 0; cta < ctas; ++cta) {
            if (!event.multicast && cta != trace.cta)
              continue;
            BarrierState &target = stateIn(cta, event);
            if (event.amount > target.pending)
              return Error{event.op,
                           (who + " arrives " + plural(event.amount, "time") +
                            " on " + barrier() +
                            (ctas > 1 ? " of CTA " + std::to_string(cta) : "") +
                            ", more than the " + Twine(target.pending) +
                            " arrivals left in its current phase (it counts " +
                            Twine(event.array->arrivals) +
                            " per phase): the barrier would complete a phase "
                            "early" +
                            trial)
                               .str()};
            target.pending -= event.amount;
            target.tx += event.bytes;
            maybeComplete(target, *event.array);
          }
        } else {
          for (unsigned cta = 0; cta < ctas; ++cta) {
            if (!event.multicast && cta != trace.cta)
              continue;
            BarrierState &target = stateIn(cta, event);
            target.tx -= event.bytes;
            maybeComplete(target, *event.array);
          }
        }
        ++trace.next;
        progress = true;
      }
    }
  }

  // Deadlock: every unfinished role is blocked at a wait.
  SmallVector<RoleTrace *> blocked;
  for (RoleTrace &trace : traces)
    if (trace.next < trace.events.size())
      blocked.push_back(&trace);
  if (!blocked.empty()) {
    std::string message = "deadlock: ";
    for (auto [i, trace] : llvm::enumerate(blocked)) {
      const Event &event = trace->events[trace->next];
      BarrierState &state = stateIn(trace->cta, event);
      if (i != 0)
        message += "; ";
      message += describeRole(trace->role, ctas > 1 ? std::optional(trace->cta)
                                                    : std::nullopt) +
                 " waits " +
                 (i == 0 ? std::string("here")
                         : "at " + describeLoc(event.op->getLoc())) +
                 " forever on " + kernel.describe(*event.array, event.index) +
                 " for parity " + std::to_string(event.amount) + " (" +
                 plural(state.completed, "phase") + " completed, " +
                 std::to_string(event.array->arrivals - state.pending) +
                 " of " + std::to_string(event.array->arrivals) +
                 " arrivals in the current one" + describeTx(state.tx);
      // The parity the wait should have: the one that passes once the
      // phases it needs have completed.
      if (event.array->side != RingSide::Unknown) {
        bool full = event.array->side == RingSide::Full;
        int64_t nth = trace->waits[{event.array, event.index}] + 1;
        int64_t needed = full ? nth : nth - 1;
        int64_t parity = (needed + 1) & 1;
        if (parity != event.amount)
          message += "; as its " + ordinal(nth) + " wait on this " +
                     (full ? "full" : "empty") +
                     " barrier it should wait for parity " +
                     std::to_string(parity);
      }
      message += ")";
    }
    return Error{blocked.front()->events[blocked.front()->next].op,
                 message + trial.str()};
  }

  // Every role finished: each barrier must be between phases.
  for (auto &[key, state] : states) {
    auto [cta, array, index] = key;
    if (state.pending == array->arrivals && state.tx == 0)
      continue;
    std::string text;
    llvm::raw_string_ostream os(text);
    os << kernel.describe(*array, index);
    if (ctas > 1)
      os << " of CTA " << cta;
    os << " is left with " << array->arrivals - state.pending << " of its "
       << array->arrivals << " arrivals per phase";
    os << describeTx(state.tx);
    os << " when every role has finished: the arrivals on it do not add up "
          "to whole phases"
       << trial;
    return Error{array->alloc, text};
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// Collects the barrier arrays of `op`'s roles and how their waits pass.
static void collectArrays(Kernel &kernel) {
  SmallVector<Operation *> barrierOps;
  for (RoleOp role : kernel.op.getRoles())
    role.getBody().walk([&](Operation *op) {
      if (isBarrierOp(op) &&
          op->getParentOfType<WarpSpecializeOp>() == kernel.op.getOperation())
        barrierOps.push_back(op);
    });
  for (Operation *op : barrierOps) {
    for (Operation *parent = op->getParentOp();
         parent && parent != kernel.op.getOperation();
         parent = parent->getParentOp())
      kernel.holdsBarrierOps.insert(parent);
    Value barriers = getBarriers(op);
    auto alloc = barriers.getDefiningOp<MBarrierAllocOp>();
    if (!alloc || kernel.op->isAncestor(alloc))
      continue;
    BarrierArray &array = kernel.arrays[barriers];
    array.alloc = alloc;
    array.count = alloc.getType().getCount();
    array.arrivals = alloc.getArrivals();
  }

  // Sides: from the waits' ws.ring attributes (an array whose waits
  // disagree has none); otherwise an array that TMA copies or expect_tx
  // arrivals complete is full, and an array waited on only by roles that
  // fill full arrays is empty.
  DenseMap<Value, SmallVector<StringRef>> tags;
  DenseMap<Value, SmallVector<RoleOp>> waiters;
  DenseSet<Value> filled;
  DenseSet<Operation *> fillers;
  WSDialect &ws = WSDialect::getLoaded(kernel.op.getContext());
  for (Operation *op : barrierOps) {
    Value barriers = getBarriers(op);
    if (!kernel.arrays.count(barriers))
      continue;
    BarrierArray &array = kernel.arrays[barriers];
    if (auto wait = dyn_cast<MBarrierWaitOp>(op)) {
      waiters[barriers].push_back(op->getParentOfType<RoleOp>());
      if (StringAttr ring = ws.getRingAttrHelper().getAttr(op))
        tags[barriers].push_back(ring.getValue());
      else
        tags[barriers].push_back("");
      if (IntegerAttr channel = ws.getChannelAttrHelper().getAttr(op))
        array.channel = channel.getInt();
    } else if (isa<TMALoadMBarrierOp>(op) ||
               cast<MBarrierArriveOp>(op).getTxBytes()) {
      filled.insert(barriers);
      fillers.insert(op->getParentOfType<RoleOp>());
    }
  }
  for (auto &[barriers, array] : kernel.arrays) {
    SmallVector<StringRef> arrayTags = tags.lookup(barriers);
    if (!arrayTags.empty() && llvm::all_equal(arrayTags) &&
        !arrayTags.front().empty()) {
      if (arrayTags.front() == "full")
        array.side = RingSide::Full;
      else if (arrayTags.front() == "empty")
        array.side = RingSide::Empty;
    } else if (arrayTags.empty() ||
               llvm::all_of(arrayTags, [](StringRef t) { return t.empty(); })) {
      if (filled.contains(barriers)) {
        array.side = RingSide::Full;
      } else {
        SmallVector<RoleOp> roles = waiters.lookup(barriers);
        if (!roles.empty() && llvm::all_of(roles, [&](RoleOp role) {
              return fillers.contains(role);
            }))
          array.side = RingSide::Empty;
      }
    }
  }
}

/// Checks one ws.warp_specialize; emits the first error found.
static LogicalResult verifyKernel(WarpSpecializeOp op) {
  Kernel kernel;
  kernel.op = op;
  collectArrays(kernel);
  // Every barrier op of a role makes its role hold barrier ops.
  if (kernel.holdsBarrierOps.empty())
    return success();

  // A barrier array used by another ws.warp_specialize carries phases from
  // one to the other, which a check of one alone cannot follow.
  for (auto &entry : kernel.arrays)
    for (Operation *user : entry.first.getUsers())
      if (isBarrierOp(user) &&
          user->getParentOfType<WarpSpecializeOp>() != op) {
        op.emitWarning("ws-verify-phases: not checked: ")
            << kernel.describeArray(entry.second)
            << " is also used outside this ws.warp_specialize";
        return success();
      }

  int64_t stages = 1;
  for (auto &entry : kernel.arrays)
    stages = std::max(stages, std::min(entry.second.count, kMaxStages));
  int64_t maxTrips = 2 * stages + 3;

  SmallVector<RoleOp> roles(op.getRoles());
  // A TMA multicast kernel: two CTAs run the roles, each its own copy.
  auto func = op->getParentOfType<FunctionOpInterface>();
  bool multicast = func && WSDialect::getLoaded(op.getContext())
                               .getMulticastAttrHelper()
                               .isAttrPresent(func);
  unsigned ctas = multicast ? 2 : 1;
  for (int64_t trips = 1; trips <= maxTrips; ++trips) {
    bool anySubstituted = false;
    for (bool defaultBranch : {true, false}) {
      SmallVector<RoleTrace> traces;
      bool anyDefault = false;
      for (RoleOp role : roles) {
        RoleRun run(kernel, role, trips, defaultBranch);
        if (failed(run.run())) {
          if (run.error.overBudget && trips > 1) {
            op.emitWarning("ws-verify-phases: checked only with loops of "
                           "unknown trip count running up to ")
                << plural(trips - 1, "iteration") << ": " << run.error.message;
            return success();
          }
          if (run.error.tooLong) {
            InFlightDiagnostic diag = op.emitWarning(
                "ws-verify-phases: not checked: " + run.error.message);
            if (run.substituted)
              diag << " with loops of unknown trip count running "
                   << plural(trips, "iteration");
            return success();
          }
          run.error.op->emitError(run.error.message);
          return failure();
        }
        anySubstituted |= run.substituted;
        anyDefault |= run.usedDefault;
        for (unsigned cta = 0; cta + 1 < ctas; ++cta)
          traces.push_back({role, cta, run.events, 0, {}});
        traces.push_back({role, ctas - 1, std::move(run.events), 0, {}});
      }
      std::string trial;
      if (anySubstituted)
        trial += " (simulating loops of unknown trip count with " +
                 plural(trips, "iteration");
      if (anyDefault)
        trial += std::string(anySubstituted ? ", " : " (") +
                 "scf.if ops of unknown condition taking their " +
                 (defaultBranch ? "then" : "else") + " branch";
      if (!trial.empty())
        trial += ")";
      if (std::optional<Error> error = simulate(kernel, traces, ctas, trial)) {
        error->op->emitError(error->message);
        return failure();
      }
      if (!anyDefault)
        break;
    }
    if (!anySubstituted)
      break;
  }
  return success();
}

LogicalResult ws::verifyPhases(WarpSpecializeOp op) {
  if (failed(verifyKernel(op)))
    return failure();
  WSDialect::getLoaded(op.getContext())
      .getPhasesVerifiedAttrHelper()
      .setAttr(op, UnitAttr::get(op.getContext()));
  return success();
}
