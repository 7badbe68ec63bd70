//===- VerifyProtocol.cpp - Static checks of the channel protocol ---------===//
//
// Part of fmha. Implements ws-verify-protocol: proves, per ws.warp_specialize,
// that every channel token is signalled exactly once, that the roles of a
// channel take its slots in the same loop structure, that arrival counts and
// TMA byte counts agree, that the roles cannot deadlock within a bounded
// simulation, and that named barriers see the threads they wait for.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/WS/Analysis/Checkers.h"
#include "fmha/Dialect/WS/Analysis/Diagnostics.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSwitch.h"

#include <map>
#include <vector>

using namespace mlir;
using namespace mlir::ws;

/// Events one role may simulate before the kernel is deemed too large.
static constexpr size_t kMaxSimulatedEvents = size_t(1) << 20;
/// Events and loop iterations visited to list the events of all roles,
/// beyond which the kernel is deemed too large: nested loops whose events all
/// sit in scf.if branches not taken add no events but would be visited a number
/// of times exponential in their depth.
static constexpr size_t kMaxFlattenVisits = size_t(1) << 22;
/// Depth of the expressions compared when matching loop bounds.
static constexpr unsigned kMaxExprDepth = 32;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The value of an integer constant of at most 64 bits.
static std::optional<int64_t> getConstant(Value value) {
  APInt constant;
  if (!value || !matchPattern(value, m_ConstantInt(&constant)) ||
      constant.getBitWidth() > 64)
    return std::nullopt;
  return constant.getSExtValue();
}

/// The trip count of a loop with constant bounds.
static std::optional<int64_t> getConstantTripCount(scf::ForOp loop) {
  std::optional<int64_t> lb = getConstant(loop.getLowerBound());
  std::optional<int64_t> ub = getConstant(loop.getUpperBound());
  std::optional<int64_t> step = getConstant(loop.getStep());
  if (!lb || !ub || !step || *step <= 0 || loop.getUnsignedCmp())
    return std::nullopt;
  if (*ub <= *lb)
    return 0;
  uint64_t span = uint64_t(*ub) - uint64_t(*lb);
  uint64_t trips = span / uint64_t(*step) + (span % uint64_t(*step) != 0);
  return int64_t(std::min<uint64_t>(trips, INT64_MAX));
}

/// Whether `memref` is an argument of the kernel that no op of it writes:
/// its contents are the same for every thread all along (varlen
/// attention's cu_seqlens, which each role reads for itself).
static bool isReadOnlyKernelArgument(Value memref) {
  auto arg = dyn_cast<BlockArgument>(memref);
  if (!arg || !isa<FunctionOpInterface>(arg.getOwner()->getParentOp()))
    return false;
  return llvm::all_of(arg.getUsers(), [](Operation *user) {
    return isa<memref::LoadOp, memref::DimOp>(user);
  });
}

/// Ops whose results are the same in every thread of the CTA when their
/// operands are: arith without memory effects, the grid-level ids of the
/// gpu and tile dialects, memref sizes, and loads from a kernel argument
/// that the kernel only reads.
static bool isUniformOp(Operation *op) {
  if (op->getNumRegions() != 0)
    return false;
  StringRef name = op->getName().getStringRef();
  if (name.starts_with("arith."))
    return isMemoryEffectFree(op);
  if (isa<memref::DimOp>(op))
    return true;
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return isReadOnlyKernelArgument(load.getMemRef());
  if (isa<tile::ProgramIdOp, tile::NumProgramsOp>(op))
    return true;
  return llvm::StringSwitch<bool>(name)
      .Case("gpu.block_id", true)
      .Case("gpu.grid_dim", true)
      .Case("gpu.block_dim", true)
      .Case("gpu.cluster_id", true)
      .Case("gpu.cluster_dim", true)
      .Case("gpu.cluster_block_id", true)
      .Case("gpu.cluster_dim_blocks", true)
      .Default(false);
}

/// Whether `op` takes a slot of `channel`.
static bool isTakeOf(Operation *op, Value channel) {
  auto end = dyn_cast<ChannelEndOpInterface>(op);
  return end && end.isTake() && end.getChannel() == channel;
}

static bool containsTakeOf(Operation *op, Value channel) {
  return op
      ->walk([&](Operation *nested) {
        return isTakeOf(nested, channel) ? WalkResult::interrupt()
                                         : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Visits the ops of a role in program order, leaving out nested
/// ws.warp_specialize ops: each is checked on its own.
static void walkRole(RoleOp role, function_ref<void(Operation *)> fn) {
  role.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<WarpSpecializeOp>(op))
      return WalkResult::skip();
    fn(op);
    return WalkResult::advance();
  });
}

namespace {

//===----------------------------------------------------------------------===//
// Slot-take structure (trip counts)
//===----------------------------------------------------------------------===//

/// What a role does with the slots of one channel, keeping only what matters
/// for their number: runs of takes, loops and conditionals that take.
struct Item {
  enum Kind { Take, Loop, If } kind;
  /// The first take of a run, the scf.for or the scf.if.
  Operation *op;
  /// Takes in a row (Take).
  int64_t count = 0;
  /// Loop body or then branch; else branch.
  std::vector<Item> body, elseBody;
};

//===----------------------------------------------------------------------===//
// Simulation events (deadlocks)
//===----------------------------------------------------------------------===//

struct Event {
  enum Kind { Acquire, Commit, Wait, Release, Sync, Arrive, Loop, If } kind;
  Operation *op;
  /// Index of the channel (channel events) or the barrier id (barriers).
  unsigned index = 0;
  /// Iterations simulated (Loop).
  int64_t trips = 0;
  std::vector<Event> body = {}, elseBody = {};
};

/// The users of one channel within one ws.warp_specialize.
struct ChannelInfo {
  SmallVector<RoleOp> producers, consumers;
};

/// Checks the protocol of one ws.warp_specialize.
class ProtocolVerifier {
public:
  explicit ProtocolVerifier(WarpSpecializeOp ws) : ws(ws) {}
  LogicalResult run();

  /// An error at `op` about `channel`.
  InFlightDiagnostic error(Operation *op, Value channel) {
    failed = true;
    return op->emitError() << "channel " << nameOf(channel) << ": ";
  }
  /// The value as the printer names it (%0, %arg2, ...).
  std::string nameOf(Value value);
  /// A constant or the value's name.
  std::string describeValue(Value value) {
    if (std::optional<int64_t> c = getConstant(value))
      return std::to_string(*c);
    return nameOf(value);
  }

private:
  void collect();
  void checkSides();
  void checkUnits();
  void checkTokens();
  void checkStructure();
  void checkBarriers();
  /// Named barriers each role arrives at, mapped to the arrival, when it
  /// has not waited at any named barrier since.
  using PendingArrivals = std::map<uint32_t, Operation *>;
  void checkArrivalsAlternate(RoleOp role, Block &block,
                              PendingArrivals &pending);
  PendingArrivals repeatBlock(RoleOp role, Block &block,
                              const PendingArrivals &entry);
  void simulate();

  std::vector<Item> buildItems(Block &block, Value channel);
  bool buildEvents(Block &block, std::vector<Event> &events);
  /// Appends the events of one run to `out`; false when there are too many
  /// or `visits` (events and loop iterations seen) grows too large.
  bool flatten(const std::vector<Event> &events, bool cond,
               std::vector<const Event *> &out, size_t &visits);
  bool simulateOnce(bool cond, bool hasIfs, ArrayRef<std::vector<Event>> trees);

  WarpSpecializeOp ws;
  bool failed = false;
  SmallVector<RoleOp> roles;
  llvm::MapVector<Value, ChannelInfo> channels;
  DenseMap<Value, std::string> names;
  /// Region ops around channel ops that the analysis does not understand.
  DenseSet<Operation *> badRegionOps;
  /// Threads of each named barrier id, where its uses agree.
  std::map<uint32_t, int64_t> barrierThreads;
  /// The roles that use each named barrier id.
  std::map<uint32_t, SmallVector<RoleOp>> barrierRoles;
  /// Simulated iterations of a loop of unknown trip count.
  int64_t maxTrips = 4;
  /// A simulation was too large and a warning said so.
  bool warnedTooLarge = false;
  /// Arrivals already reported as repeated.
  DenseSet<Operation *> reportedArrivals;
};

} // namespace

std::string ProtocolVerifier::nameOf(Value value) {
  auto it = names.find(value);
  if (it != names.end())
    return it->second;
  std::string text;
  llvm::raw_string_ostream os(text);
  value.printAsOperand(os, OpPrintingFlags());
  names[value] = text;
  return text;
}

//===----------------------------------------------------------------------===//
// Roles and channels
//===----------------------------------------------------------------------===//

void ProtocolVerifier::collect() {
  llvm::append_range(roles, ws.getRoles());
  DenseSet<std::pair<Value, Operation *>> reportedBoth;
  DenseSet<Value> innerChannels;
  for (RoleOp role : roles) {
    walkRole(role, [&](Operation *op) {
      auto end = dyn_cast<ChannelEndOpInterface>(op);
      if (!end)
        return;
      Value channel = end.getChannel();
      bool producer = end.isProducerEnd();
      // Structured control flow only: the stage threading of
      // ws-insert-mbarriers and this analysis understand nothing else.
      for (Operation *parent = op->getParentOp(); parent && parent != role;
           parent = parent->getParentOp()) {
        if (isa<scf::ForOp, scf::IfOp>(parent) || badRegionOps.count(parent))
          continue;
        badRegionOps.insert(parent);
        failed = true;
        parent->emitOpError("holds channel operations of role '")
            << role.getRoleName()
            << "'; only scf.for and scf.if may enclose them";
      }
      Region *defRegion = channel.getParentRegion();
      if (!defRegion || ws->isAncestor(defRegion->getParentOp())) {
        if (innerChannels.insert(channel).second)
          error(op, channel) << "must be defined above the ws.warp_specialize";
        return;
      }
      ChannelInfo &info = channels[channel];
      auto &mine = producer ? info.producers : info.consumers;
      auto &other = producer ? info.consumers : info.producers;
      if (llvm::is_contained(other, role) &&
          reportedBoth.insert({channel, role}).second)
        error(op, channel) << describeRole(role)
                           << " both produces and consumes it";
      if (!llvm::is_contained(mine, role))
        mine.push_back(role);
    });
  }
}

void ProtocolVerifier::checkSides() {
  for (auto &[channel, info] : channels) {
    if (!info.producers.empty() && !info.consumers.empty())
      continue;
    Operation *at = channel.getDefiningOp();
    if (!at)
      at = ws;
    if (info.producers.empty())
      error(at, channel) << "has no producer role: "
                         << describeRole(info.consumers.front())
                         << " waits for slots that no role commits";
    else
      error(at, channel) << "has no consumer role: "
                         << describeRole(info.producers.front())
                         << " commits slots that no role releases";
  }
}

/// A role signals each barrier of a channel by one unit, which fixes its
/// arrival count (the mirror of ws-insert-mbarriers).
void ProtocolVerifier::checkUnits() {
  for (RoleOp role : roles) {
    DenseMap<Value, AsyncUnit> commits, releases;
    walkRole(role, [&](Operation *op) {
      Value channel;
      AsyncUnit unit;
      DenseMap<Value, AsyncUnit> *units;
      StringRef verb;
      if (auto commit = dyn_cast<ProducerCommitOp>(op)) {
        channel = commit.getChannel();
        unit = commit.getUnit();
        units = &commits;
        verb = "commits";
      } else if (auto release = dyn_cast<ConsumerReleaseOp>(op)) {
        channel = release.getChannel();
        unit = release.getUnit();
        units = &releases;
        verb = "releases";
      } else {
        return;
      }
      auto [it, inserted] = units->insert({channel, unit});
      if (!inserted && it->second != unit) {
        error(op, channel) << describeRole(role) << " " << verb
                           << " it by two different units ("
                           << stringifyAsyncUnit(it->second) << " and "
                           << stringifyAsyncUnit(unit)
                           << "), so its barrier has no single arrival count";
        it->second = unit;
      }
    });
  }
}

//===----------------------------------------------------------------------===//
// Tokens
//===----------------------------------------------------------------------===//

namespace {

/// One class of paths from a take to the end of its block.
struct PathState {
  /// Signals of the token: 0, 1, or 2 for two or more.
  int signals = 0;
  /// Bytes the TMA loads into the slot deliver.
  int64_t loaded = 0;
  /// The last commit or release.
  Operation *signal = nullptr;
  bool operator==(const PathState &o) const {
    return signals == o.signals && loaded == o.loaded && signal == o.signal;
  }
};
using Paths = SmallVector<PathState, 2>;

/// Follows the token of one take along all paths of structured control flow.
class TokenChecker {
public:
  TokenChecker(ProtocolVerifier &v, Operation *take, RoleOp role,
               const DenseSet<Operation *> &badRegionOps)
      : v(v), take(take), token(take->getResult(0)),
        channel(take->getOperand(0)), role(role), badRegionOps(badRegionOps),
        producer(cast<ChannelEndOpInterface>(take).isProducerEnd()) {}

  void run();

private:
  FailureOr<Paths> summarize(Block &block, Block::iterator it);
  InFlightDiagnostic error(Operation *op) {
    return v.error(op, channel) << "token of " << take->getName() << " in "
                                << describeRole(role) << " ";
  }
  StringRef signalled() const { return producer ? "committed" : "released"; }
  bool isSignal(Operation *op) const {
    auto end = dyn_cast<ChannelEndOpInterface>(op);
    return end && !end.isTake() && end.isProducerEnd() == producer &&
           end.getSlotToken() == token;
  }
  bool isLoad(Operation *op) const {
    auto load = dyn_cast<TMALoadOp>(op);
    return load && load.getToken() == token;
  }
  bool usesInside(Operation *op) const {
    return llvm::any_of(token.getUsers(),
                        [&](Operation *user) { return op->isAncestor(user); });
  }
  Operation *firstInside(Region &region, bool loads) const {
    Operation *found = nullptr;
    region.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isSignal(op) || (loads && isLoad(op))) {
        found = op;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return found;
  }
  static void addUnique(Paths &paths, const PathState &state) {
    // Bound the path classes: beyond this many, further ones are dropped.
    if (!llvm::is_contained(paths, state) && paths.size() < 256)
      paths.push_back(state);
  }
  /// Every path of `first` followed by every path of `then`.
  static Paths sequence(const Paths &first, const Paths &then) {
    Paths result;
    for (const PathState &a : first)
      for (const PathState &b : then) {
        int64_t loaded =
            a.loaded > INT64_MAX - b.loaded ? INT64_MAX : a.loaded + b.loaded;
        addUnique(result, {std::min(a.signals + b.signals, 2), loaded,
                           b.signal ? b.signal : a.signal});
      }
    return result;
  }
  /// Fails, reporting at the signal inside `op`, when a path through `op`
  /// signals the token a second time.
  LogicalResult checkOnce(const Paths &paths, Operation &op) {
    if (llvm::none_of(paths, [](const PathState &s) { return s.signals > 1; }))
      return success();
    Operation *at = nullptr;
    for (Region &region : op.getRegions())
      if (!at)
        at = firstInside(region, false);
    error(at ? at : &op) << "is " << signalled() << " twice";
    return failure();
  }

  ProtocolVerifier &v;
  Operation *take;
  Value token, channel;
  RoleOp role;
  const DenseSet<Operation *> &badRegionOps;
  bool producer;
};

} // namespace

FailureOr<Paths> TokenChecker::summarize(Block &block, Block::iterator it) {
  Paths paths{PathState()};
  for (; it != block.end(); ++it) {
    Operation &op = *it;
    if (isSignal(&op)) {
      for (PathState &state : paths) {
        if (state.signals > 0) {
          error(&op) << "is " << signalled() << " twice";
          return failure();
        }
        state.signals = 1;
        state.signal = &op;
      }
      continue;
    }
    if (isLoad(&op)) {
      int64_t bytes = getMemRefBytes(cast<TMALoadOp>(op).getBuffer().getType());
      for (PathState &state : paths)
        state.loaded += bytes;
      continue;
    }
    if (!usesInside(&op))
      continue;
    if (llvm::is_contained(op.getOperands(), token) ||
        op.getNumRegions() == 0) {
      error(&op) << "escapes through '" << op.getName() << "'; only its "
                 << (producer ? "ws.producer_commit" : "ws.consumer_release")
                 << (producer ? " and ws.tma_load" : "") << " may use it";
      return failure();
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      FailureOr<Paths> thenPaths =
          summarize(*ifOp.thenBlock(), ifOp.thenBlock()->begin());
      if (failed(thenPaths))
        return failure();
      Paths elsePaths{PathState()};
      if (Block *elseBlock = ifOp.elseBlock()) {
        FailureOr<Paths> summary = summarize(*elseBlock, elseBlock->begin());
        if (failed(summary))
          return failure();
        elsePaths = *summary;
      }
      auto signalSet = [](const Paths &paths) {
        unsigned mask = 0;
        for (const PathState &state : paths)
          mask |= 1u << state.signals;
        return mask;
      };
      if (signalSet(*thenPaths) != signalSet(elsePaths)) {
        Operation *at = firstInside(ifOp.getThenRegion(), false);
        if (!at)
          at = firstInside(ifOp.getElseRegion(), false);
        error(at ? at : &op)
            << "is " << signalled() << " on only one branch of scf.if";
        return failure();
      }
      Paths both = *thenPaths;
      for (const PathState &state : elsePaths)
        addUnique(both, state);
      paths = sequence(paths, both);
      if (failed(checkOnce(paths, op)))
        return failure();
      continue;
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      FailureOr<Paths> body =
          summarize(*loop.getBody(), loop.getBody()->begin());
      if (failed(body))
        return failure();
      if (llvm::any_of(*body, [](const PathState &s) { return s.signals; })) {
        Operation *at = firstInside(loop.getRegion(), false);
        error(at ? at : &op)
            << "is " << signalled() << " inside a loop that it was not taken "
            << "in, once per iteration";
        return failure();
      }
      bool loads =
          llvm::any_of(*body, [](const PathState &s) { return s.loaded; });
      std::optional<int64_t> trips = getConstantTripCount(loop);
      if (loads && !trips) {
        Operation *at = firstInside(loop.getRegion(), true);
        error(at ? at : &op)
            << "is loaded into by ws.tma_load in a loop of unknown trip "
               "count, so the bytes of its commit cannot be checked";
        return failure();
      }
      Paths repeated;
      for (PathState state : *body) {
        int64_t count = trips.value_or(0);
        state.loaded = count && state.loaded > INT64_MAX / count
                           ? INT64_MAX
                           : state.loaded * count;
        addUnique(repeated, state);
      }
      paths = sequence(paths, repeated);
      continue;
    }
    // Already reported when the op encloses channel ops.
    if (!badRegionOps.count(&op))
      error(&op) << "is used inside '" << op.getName()
                 << "'; only scf.for and scf.if are understood";
    return failure();
  }
  return paths;
}

void TokenChecker::run() {
  FailureOr<Paths> paths =
      summarize(*take->getBlock(), std::next(take->getIterator()));
  if (failed(paths))
    return;
  if (llvm::all_of(*paths, [](const PathState &s) { return !s.signals; })) {
    error(take) << "is never " << signalled();
    return;
  }
  if (llvm::any_of(*paths, [](const PathState &s) { return !s.signals; })) {
    error(take) << "is not " << signalled() << " on every path";
    return;
  }
  if (!producer)
    return;
  // The commit must expect exactly the bytes its TMA loads deliver.
  DenseSet<Operation *> reported;
  for (const PathState &state : *paths) {
    auto commit = dyn_cast_or_null<ProducerCommitOp>(state.signal);
    if (!commit || reported.count(commit))
      continue;
    if (commit.getUnit() == AsyncUnit::TMA) {
      int64_t expected = commit.getTxBytes().value_or(0);
      if (expected == state.loaded)
        continue;
      reported.insert(commit);
      v.error(commit, channel)
          << describeRole(role) << " commits " << expected
          << " bytes but its TMA loads deliver " << state.loaded;
    } else if (state.loaded) {
      reported.insert(commit);
      v.error(commit, channel)
          << describeRole(role) << " commits by "
          << stringifyAsyncUnit(commit.getUnit())
          << " a slot that ws.tma_load fills; commit it by tma tx_bytes "
          << state.loaded;
    }
  }
}

void ProtocolVerifier::checkTokens() {
  for (RoleOp role : roles)
    walkRole(role, [&](Operation *op) {
      auto end = dyn_cast<ChannelEndOpInterface>(op);
      if (end && end.isTake() && channels.count(end.getChannel()))
        TokenChecker(*this, op, role, badRegionOps).run();
    });
}

//===----------------------------------------------------------------------===//
// Trip counts
//===----------------------------------------------------------------------===//

/// Appends `item`, merging runs of takes.
static void appendItem(std::vector<Item> &items, Item item) {
  if (item.kind == Item::Take && !items.empty() &&
      items.back().kind == Item::Take) {
    items.back().count += item.count;
    return;
  }
  items.push_back(std::move(item));
}

namespace {

/// Compares the slot-take structures of two roles for one channel.
class StructureComparison {
public:
  StructureComparison(ProtocolVerifier &v, Value channel, RoleOp roleA,
                      RoleOp roleB, bool report)
      : v(v), channel(channel), roleA(roleA), roleB(roleB), report(report) {}

  bool compare(ArrayRef<Item> a, ArrayRef<Item> b, scf::ForOp loopA,
               scf::ForOp loopB);
  /// True when `a` (in role A) provably equals `b` (in role B).
  bool sameValue(Value a, Value b, unsigned depth = 0);

private:
  bool sameTrips(scf::ForOp a, scf::ForOp b);
  std::string describe(const Item *item, scf::ForOp loop);
  std::string bounds(scf::ForOp loop) {
    return "from " + v.describeValue(loop.getLowerBound()) + " to " +
           v.describeValue(loop.getUpperBound()) + " step " +
           v.describeValue(loop.getStep());
  }
  InFlightDiagnostic error(Operation *op) { return v.error(op, channel); }

  ProtocolVerifier &v;
  Value channel;
  RoleOp roleA, roleB;
  bool report;
  /// Induction variables of matched loops: role A's to role B's.
  DenseMap<Value, Value> inductionVars;
};

} // namespace

bool StructureComparison::sameValue(Value a, Value b, unsigned depth) {
  if (a == b)
    return true;
  auto it = inductionVars.find(a);
  if (it != inductionVars.end())
    return it->second == b;
  std::optional<int64_t> ca = getConstant(a), cb = getConstant(b);
  if (ca || cb)
    return ca && cb && *ca == *cb;
  if (depth >= kMaxExprDepth)
    return false;
  Operation *defA = a.getDefiningOp(), *defB = b.getDefiningOp();
  if (!defA || !defB || !isUniformOp(defA) || !isUniformOp(defB) ||
      cast<OpResult>(a).getResultNumber() !=
          cast<OpResult>(b).getResultNumber())
    return false;
  return OperationEquivalence::isEquivalentTo(
      defA, defB,
      [&](Value x, Value y) { return success(sameValue(x, y, depth + 1)); },
      /*markEquivalent=*/nullptr, OperationEquivalence::IgnoreLocations);
}

bool StructureComparison::sameTrips(scf::ForOp a, scf::ForOp b) {
  std::optional<int64_t> tripsA = getConstantTripCount(a);
  std::optional<int64_t> tripsB = getConstantTripCount(b);
  if (tripsA && tripsB)
    return *tripsA == *tripsB;
  return a.getUnsignedCmp() == b.getUnsignedCmp() &&
         sameValue(a.getLowerBound(), b.getLowerBound()) &&
         sameValue(a.getUpperBound(), b.getUpperBound()) &&
         sameValue(a.getStep(), b.getStep());
}

std::string StructureComparison::describe(const Item *item, scf::ForOp loop) {
  if (!item)
    return loop ? "takes no more slots in an iteration of the loop at " +
                      describeLoc(loop.getLoc())
                : std::string("takes no more slots");
  std::string at = describeLoc(item->op->getLoc());
  switch (item->kind) {
  case Item::Take:
    return "takes " + plural(item->count, "slot") + " at " + at;
  case Item::Loop:
    return "enters the loop at " + at;
  case Item::If:
    return "takes slots under the scf.if at " + at;
  }
  return "";
}

bool StructureComparison::compare(ArrayRef<Item> a, ArrayRef<Item> b,
                                  scf::ForOp loopA, scf::ForOp loopB) {
  auto onlyTakes = [](ArrayRef<Item> items) {
    return items.size() <= 1 &&
           (items.empty() || items.front().kind == Item::Take);
  };
  // A loop body of takes alone: compare the takes per iteration.
  if (loopA && loopB && onlyTakes(a) && onlyTakes(b)) {
    int64_t countA = a.empty() ? 0 : a.front().count;
    int64_t countB = b.empty() ? 0 : b.front().count;
    if (countA == countB)
      return true;
    if (report)
      error(b.empty() ? loopB.getOperation() : b.front().op)
          << "role '" << roleA.getRoleName() << "' takes "
          << plural(countA, "slot") << " per iteration of the loop at "
          << describeLoc(loopA.getLoc()) << ", role '" << roleB.getRoleName()
          << "' takes " << countB;
    return false;
  }
  for (size_t i = 0, e = std::max(a.size(), b.size()); i < e; ++i) {
    const Item *x = i < a.size() ? &a[i] : nullptr;
    const Item *y = i < b.size() ? &b[i] : nullptr;
    Operation *at = y ? y->op : x->op;
    if (x && y && x->kind == y->kind) {
      if (x->kind == Item::Take && x->count == y->count)
        continue;
      if (x->kind == Item::Loop) {
        auto forA = cast<scf::ForOp>(x->op), forB = cast<scf::ForOp>(y->op);
        if (!sameTrips(forA, forB)) {
          if (report)
            error(at) << "trip counts differ: role '" << roleA.getRoleName()
                      << "' runs the loop at " << describeLoc(forA.getLoc())
                      << " " << bounds(forA) << ", role '"
                      << roleB.getRoleName() << "' runs the loop at "
                      << describeLoc(forB.getLoc()) << " " << bounds(forB);
          return false;
        }
        inductionVars[forA.getInductionVar()] = forB.getInductionVar();
        if (!compare(x->body, y->body, forA, forB))
          return false;
        continue;
      }
      if (x->kind == Item::If) {
        auto ifA = cast<scf::IfOp>(x->op), ifB = cast<scf::IfOp>(y->op);
        if (!sameValue(ifA.getCondition(), ifB.getCondition())) {
          if (report)
            error(at) << "cannot prove that roles take the same number of "
                         "slots: role '"
                      << roleA.getRoleName() << "' takes slots under the "
                      << "scf.if at " << describeLoc(ifA.getLoc())
                      << " and role '" << roleB.getRoleName()
                      << "' under the scf.if at " << describeLoc(ifB.getLoc())
                      << ", whose conditions are not known to be equal";
          return false;
        }
        if (!compare(x->body, y->body, nullptr, nullptr) ||
            !compare(x->elseBody, y->elseBody, nullptr, nullptr))
          return false;
        continue;
      }
    }
    if (!report)
      return false;
    bool conditional = (x && x->kind == Item::If) || (y && y->kind == Item::If);
    InFlightDiagnostic diag = error(at);
    if (conditional)
      diag << "cannot prove that roles take the same number of slots: ";
    else
      diag << "roles take its slots in different patterns: ";
    diag << "role '" << roleA.getRoleName() << "' " << describe(x, loopA)
         << " where role '" << roleB.getRoleName() << "' "
         << describe(y, loopB);
    return false;
  }
  return true;
}

std::vector<Item> ProtocolVerifier::buildItems(Block &block, Value channel) {
  std::vector<Item> items;
  for (Operation &op : block) {
    if (isTakeOf(&op, channel)) {
      appendItem(items, Item{Item::Take, &op, 1, {}, {}});
      continue;
    }
    if (op.getNumRegions() == 0 || !containsTakeOf(&op, channel))
      continue;
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      Item item{Item::Loop, &op, 0, {}, {}};
      item.body = buildItems(*loop.getBody(), channel);
      appendItem(items, std::move(item));
      continue;
    }
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      Item item{Item::If, &op, 0, {}, {}};
      item.body = buildItems(*ifOp.thenBlock(), channel);
      if (Block *elseBlock = ifOp.elseBlock())
        item.elseBody = buildItems(*elseBlock, channel);
      // Both branches take alike: the condition does not matter.
      auto role = op.getParentOfType<RoleOp>();
      if (StructureComparison(*this, channel, role, role, /*report=*/false)
              .compare(item.body, item.elseBody, nullptr, nullptr)) {
        for (Item &inner : item.body)
          appendItem(items, std::move(inner));
        continue;
      }
      appendItem(items, std::move(item));
    }
    // Other region ops were reported when the roles were collected.
  }
  return items;
}

void ProtocolVerifier::checkStructure() {
  for (auto &[channel, info] : channels) {
    SmallVector<RoleOp> takers(info.producers);
    llvm::append_range(takers, info.consumers);
    RoleOp reference = takers.front();
    std::vector<Item> expected =
        buildItems(reference.getBody().front(), channel);
    for (RoleOp role : ArrayRef(takers).drop_front()) {
      std::vector<Item> actual = buildItems(role.getBody().front(), channel);
      if (!StructureComparison(*this, channel, reference, role,
                               /*report=*/true)
               .compare(expected, actual, nullptr, nullptr))
        break;
    }
  }
}

//===----------------------------------------------------------------------===//
// Named barriers
//===----------------------------------------------------------------------===//

void ProtocolVerifier::checkBarriers() {
  struct Use {
    Operation *first;
    int64_t threads;
    SmallVector<RoleOp> roles;
    bool conflict = false;
  };
  std::map<uint32_t, Use> uses;
  for (RoleOp role : roles) {
    walkRole(role, [&](Operation *op) {
      auto barrier = dyn_cast<NamedBarrierOpInterface>(op);
      if (!barrier)
        return;
      uint32_t id = barrier.getId(), threads = barrier.getThreads();
      auto [it, inserted] = uses.insert({id, Use{op, threads, {}}});
      Use &use = it->second;
      if (!inserted && use.threads != threads && !use.conflict) {
        use.conflict = true;
        failed = true;
        op->emitError() << "named barrier " << id << " is used with " << threads
                        << " threads here but with " << use.threads
                        << " threads at " << describeLoc(use.first->getLoc());
      }
      if (!llvm::is_contained(use.roles, role))
        use.roles.push_back(role);
    });
  }
  for (auto &[id, use] : uses) {
    barrierRoles[id] = use.roles;
    if (use.conflict)
      continue;
    int64_t total = 0;
    for (RoleOp role : use.roles)
      total += role.getNumThreads();
    if (total == use.threads) {
      barrierThreads[id] = use.threads;
      continue;
    }
    failed = true;
    InFlightDiagnostic diag = use.first->emitError();
    diag << "named barrier " << id << " expects " << use.threads
         << " threads but roles ";
    llvm::interleaveComma(use.roles, diag, [&](RoleOp role) {
      diag << "'" << role.getRoleName() << "' (" << role.getNumThreads() << ")";
    });
    diag << " use it";
  }
}

/// Adds `from`'s pending arrivals to `into`; true when `into` grew.
static bool mergePending(std::map<uint32_t, Operation *> &into,
                         const std::map<uint32_t, Operation *> &from) {
  bool grew = false;
  for (auto [id, op] : from)
    grew |= into.insert({id, op}).second;
  return grew;
}

/// A named barrier completes a generation when its thread count has
/// arrived, whoever the threads are: a role that arrives twice without
/// waiting in between (bar.arrive does not block) can complete one with its
/// own two arrivals, and the role that waits there then waits for a
/// generation that never completes. Loops of unknown trip count are taken
/// to run any number of times, none included: a pipelined loop with a
/// single tile runs no iteration, and the simulation below runs each loop
/// a fixed number of times, so it would not see such a path.
/// The pending arrivals after one or more runs of `block` entered with
/// `entry`: runs it again from the union of what it left until that grows
/// no more.
ProtocolVerifier::PendingArrivals
ProtocolVerifier::repeatBlock(RoleOp role, Block &block,
                              const PendingArrivals &entry) {
  PendingArrivals head = entry, exits;
  bool grew;
  do {
    PendingArrivals state = head;
    checkArrivalsAlternate(role, block, state);
    mergePending(exits, state);
    grew = mergePending(head, state);
  } while (grew);
  return exits;
}

void ProtocolVerifier::checkArrivalsAlternate(RoleOp role, Block &block,
                                              PendingArrivals &pending) {
  for (Operation &op : block) {
    auto barrier = dyn_cast<NamedBarrierOpInterface>(op);
    if (barrier && barrier.waits()) {
      // Only a wait that other roles take part in holds the role back.
      if (llvm::any_of(barrierRoles[barrier.getId()],
                       [&](RoleOp other) { return other != role; }))
        pending.clear();
    } else if (barrier) {
      auto [it, inserted] = pending.insert({barrier.getId(), &op});
      if (!inserted && reportedArrivals.insert(&op).second) {
        failed = true;
        InFlightDiagnostic diag = op.emitError()
                                  << "named barrier " << barrier.getId()
                                  << ": the role may arrive here again "
                                     "without waiting at a named barrier "
                                     "shared with another role since its "
                                     "arrival at "
                                  << describeLoc(it->second->getLoc())
                                  << "; two arrivals of one role can "
                                     "complete a generation alone and leave "
                                     "the roles that wait there blocked";
        diag.attachNote(it->second->getLoc()) << "the earlier arrival";
      }
      it->second = &op;
    } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
      std::optional<int64_t> trips = getConstantTripCount(loop);
      if (trips && *trips == 0)
        continue;
      // A loop of unknown trip count may also run no iteration.
      PendingArrivals exits = repeatBlock(role, *loop.getBody(), pending);
      if (trips)
        pending = std::move(exits);
      else
        mergePending(pending, exits);
    } else if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      PendingArrivals elseState = pending;
      checkArrivalsAlternate(role, *ifOp.thenBlock(), pending);
      if (Block *elseBlock = ifOp.elseBlock())
        checkArrivalsAlternate(role, *elseBlock, elseState);
      mergePending(pending, elseState);
    } else {
      // Other region ops: each block may run any number of times.
      for (Region &region : op.getRegions())
        for (Block &nested : region)
          mergePending(pending, repeatBlock(role, nested, pending));
    }
  }
}

//===----------------------------------------------------------------------===//
// Deadlocks
//===----------------------------------------------------------------------===//

bool ProtocolVerifier::buildEvents(Block &block, std::vector<Event> &events) {
  auto channelIndex = [&](Value channel) {
    return unsigned(channels.find(channel) - channels.begin());
  };
  auto isEventOp = [](Operation *op) {
    return isa<ChannelEndOpInterface, NamedBarrierOpInterface>(op);
  };
  for (Operation &op : block) {
    if (auto end = dyn_cast<ChannelEndOpInterface>(op)) {
      Event::Kind kind = end.isProducerEnd()
                             ? (end.isTake() ? Event::Acquire : Event::Commit)
                             : (end.isTake() ? Event::Wait : Event::Release);
      events.push_back({kind, &op, channelIndex(end.getChannel())});
    } else if (auto barrier = dyn_cast<NamedBarrierOpInterface>(op)) {
      events.push_back({barrier.waits() ? Event::Sync : Event::Arrive, &op,
                        barrier.getId()});
    } else if (op.getNumRegions() != 0) {
      bool hasEvents = op.walk([&](Operation *nested) {
                           return isEventOp(nested) ? WalkResult::interrupt()
                                                    : WalkResult::advance();
                         }).wasInterrupted();
      if (!hasEvents)
        continue;
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        Event event{Event::Loop, &op};
        std::optional<int64_t> trips = getConstantTripCount(loop);
        event.trips = trips ? std::min(*trips, maxTrips) : maxTrips;
        if (!buildEvents(*loop.getBody(), event.body))
          return false;
        events.push_back(std::move(event));
      } else if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
        Event event{Event::If, &op};
        if (!buildEvents(*ifOp.thenBlock(), event.body))
          return false;
        if (Block *elseBlock = ifOp.elseBlock())
          if (!buildEvents(*elseBlock, event.elseBody))
            return false;
        events.push_back(std::move(event));
      } else {
        return false;
      }
    }
  }
  return true;
}

bool ProtocolVerifier::flatten(const std::vector<Event> &events, bool cond,
                               std::vector<const Event *> &out,
                               size_t &visits) {
  for (const Event &event : events) {
    if (out.size() > kMaxSimulatedEvents || ++visits > kMaxFlattenVisits)
      return false;
    if (event.kind == Event::Loop) {
      for (int64_t i = 0; i < event.trips; ++i)
        if (++visits > kMaxFlattenVisits ||
            !flatten(event.body, cond, out, visits))
          return false;
    } else if (event.kind == Event::If) {
      if (!flatten(cond ? event.body : event.elseBody, cond, out, visits))
        return false;
    } else {
      out.push_back(&event);
    }
  }
  return true;
}

bool ProtocolVerifier::simulateOnce(bool cond, bool hasIfs,
                                    ArrayRef<std::vector<Event>> trees) {
  size_t numRoles = roles.size(), numChannels = channels.size();
  std::vector<std::vector<const Event *>> programs(numRoles);
  size_t visits = 0;
  for (size_t r = 0; r < numRoles; ++r) {
    if (flatten(trees[r], cond, programs[r], visits))
      continue;
    // Too large to simulate: nothing is claimed.
    if (!warnedTooLarge) {
      InFlightDiagnostic diag =
          ws.emitWarning("ws-verify-protocol: deadlocks not checked: the "
                         "roles unroll to over ")
          << kMaxSimulatedEvents << " events per role or over "
          << kMaxFlattenVisits << " events and loop iterations (simulating "
          << "up to " << maxTrips << " iterations per loop";
      if (hasIfs)
        diag << ", every scf.if condition " << (cond ? "true" : "false");
      diag << ")";
    }
    warnedTooLarge = true;
    return true;
  }

  DenseMap<Operation *, unsigned> roleIndex;
  for (auto [i, role] : llvm::enumerate(roles))
    roleIndex[role] = i;
  // Per channel, the producer and consumer roles as indices.
  std::vector<SmallVector<unsigned>> producers(numChannels),
      consumers(numChannels);
  std::vector<int64_t> stages(numChannels);
  for (auto [c, entry] : llvm::enumerate(channels)) {
    for (RoleOp role : entry.second.producers)
      producers[c].push_back(roleIndex[role]);
    for (RoleOp role : entry.second.consumers)
      consumers[c].push_back(roleIndex[role]);
    stages[c] = cast<ChannelType>(entry.first.getType()).getStages();
  }

  // Slots taken and signalled so far, per role and channel.
  std::vector<std::vector<int64_t>> taken(numRoles,
                                          std::vector<int64_t>(numChannels, 0));
  std::vector<std::vector<int64_t>> signalled = taken;
  struct Barrier {
    int64_t arrived = 0, phase = 0;
  };
  std::map<uint32_t, Barrier> barriers;
  std::vector<size_t> pc(numRoles, 0);
  std::vector<std::optional<int64_t>> syncPhase(numRoles);

  auto arrive = [&](uint32_t id, int64_t threads) {
    Barrier &barrier = barriers[id];
    barrier.arrived += threads;
    int64_t expected = barrierThreads[id];
    while (expected > 0 && barrier.arrived >= expected) {
      barrier.arrived -= expected;
      ++barrier.phase;
    }
  };
  // The roles that `r` waits for at `event`, empty when it may go on.
  auto waitsFor = [&](unsigned r, const Event &event) {
    SmallVector<unsigned> lagging;
    unsigned c = event.index;
    if (event.kind == Event::Acquire) {
      int64_t needed = taken[r][c] + 1 - stages[c];
      for (unsigned q : consumers[c])
        if (signalled[q][c] < needed)
          lagging.push_back(q);
    } else if (event.kind == Event::Wait) {
      for (unsigned p : producers[c])
        if (signalled[p][c] < taken[r][c] + 1)
          lagging.push_back(p);
    }
    return lagging;
  };
  // Runs the event at the role's pc if it can; true when it did.
  auto step = [&](unsigned r) {
    const Event &event = *programs[r][pc[r]];
    switch (event.kind) {
    case Event::Acquire:
    case Event::Wait:
      if (!waitsFor(r, event).empty())
        return false;
      ++taken[r][event.index];
      return true;
    case Event::Commit:
    case Event::Release:
      ++signalled[r][event.index];
      return true;
    case Event::Arrive:
      arrive(event.index, roles[r].getNumThreads());
      return true;
    case Event::Sync:
      if (!syncPhase[r]) {
        syncPhase[r] = barriers[event.index].phase;
        arrive(event.index, roles[r].getNumThreads());
      }
      if (barriers[event.index].phase <= *syncPhase[r])
        return false;
      syncPhase[r].reset();
      return true;
    case Event::Loop:
    case Event::If:
      break;
    }
    return true;
  };

  for (bool progress = true; progress;) {
    progress = false;
    for (unsigned r = 0; r < numRoles; ++r)
      while (pc[r] < programs[r].size() && step(r)) {
        ++pc[r];
        progress = true;
      }
  }

  SmallVector<unsigned> blocked;
  for (unsigned r = 0; r < numRoles; ++r)
    if (pc[r] < programs[r].size())
      blocked.push_back(r);
  if (blocked.empty())
    return true;

  failed = true;
  const Event &first = *programs[blocked.front()][pc[blocked.front()]];
  InFlightDiagnostic diag = first.op->emitError() << "deadlock: ";
  llvm::interleave(
      blocked, diag,
      [&](unsigned r) {
        const Event &event = *programs[r][pc[r]];
        diag << describeRole(roles[r]) << " waits at " << event.op->getName();
        if (event.kind == Event::Sync) {
          diag << " " << event.index << " (" << describeLoc(event.op->getLoc())
               << ") for " << barrierThreads[event.index] << " threads";
          return;
        }
        Value channel = channels.begin()[event.index].first;
        diag << " of channel " << nameOf(channel) << " ("
             << describeLoc(event.op->getLoc()) << ") for role";
        SmallVector<unsigned> lagging = waitsFor(r, event);
        if (lagging.size() > 1)
          diag << "s";
        for (auto [i, q] : llvm::enumerate(lagging))
          diag << (i ? ", '" : " '") << roles[q].getRoleName() << "'";
        int64_t slot = taken[r][event.index] + 1;
        if (event.kind == Event::Acquire)
          diag << " to release slot #" << slot - stages[event.index];
        else
          diag << " to commit slot #" << slot;
      },
      "; ");
  diag << " (simulating up to " << maxTrips << " iterations per loop";
  if (hasIfs)
    diag << ", every scf.if condition " << (cond ? "true" : "false");
  diag << ")";
  return false;
}

void ProtocolVerifier::simulate() {
  int64_t maxStages = 1;
  for (auto &entry : channels)
    maxStages = std::max<int64_t>(
        maxStages, cast<ChannelType>(entry.first.getType()).getStages());
  maxTrips = 2 * maxStages + 2;

  std::vector<std::vector<Event>> trees(roles.size());
  for (auto [r, role] : llvm::enumerate(roles))
    if (!buildEvents(role.getBody().front(), trees[r]))
      return; // Barrier ops in other region ops: not simulated.
  bool hasIfs = false;
  for (RoleOp role : roles)
    role.getBody().walk([&](scf::IfOp) { hasIfs = true; });
  if (simulateOnce(/*cond=*/true, hasIfs, trees) && hasIfs)
    simulateOnce(/*cond=*/false, hasIfs, trees);
}

LogicalResult ProtocolVerifier::run() {
  collect();
  checkSides();
  checkUnits();
  checkTokens();
  // Matching structures only mean something for well-formed channels.
  if (!failed)
    checkStructure();
  checkBarriers();
  for (RoleOp role : roles) {
    PendingArrivals pending;
    checkArrivalsAlternate(role, role.getBody().front(), pending);
  }
  if (!failed)
    simulate();
  return failure(failed);
}

LogicalResult ws::verifyProtocol(WarpSpecializeOp op) {
  if (failed(ProtocolVerifier(op).run()))
    return failure();
  WSDialect::getLoaded(op.getContext())
      .getProtocolVerifiedAttrHelper()
      .setAttr(op, UnitAttr::get(op.getContext()));
  return success();
}
