//===- PartitionRolesSM100.cpp - Warp roles for Blackwell -----------------===//
//
// Part of fmha. ws-partition-roles on sm_100a: a tile program whose
// accumulators live in tensor memory becomes a load warp (TMA into a shared-
// memory ring), an MMA warp (one thread issues tcgen05.mma into a tensor-
// memory ring of accumulators, commits release the operand slots and hand
// each finished accumulator over) and one epilogue warpgroup per
// accumulator (tcgen05.ld, conversion, TMA store through shared memory).
// The accumulator ring has two slots, so the epilogue of one output tile
// overlaps the MMAs of the next. In a ws.multicast kernel the B operands
// are loaded by TMA multicast.
//
//===----------------------------------------------------------------------===//

#include "PartitionRolesSM100.h"
#include "PartitionUtils.h"

#include "fmha/Dialect/WS/IR/RoleAssignment.h"
#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::ws;

/// Slots of the accumulator ring: the epilogue of one tile overlaps the
/// MMAs of the next.
static constexpr unsigned kAccumulatorStages = 2;

namespace {

/// What the partitioning found in one tile program.
struct Program {
  scf::ForOp loop;
  SmallVector<tile::LoadOp> loads;
  /// The dots of the main loop whose results are yielded (accumulator
  /// chains), with their loop-carried position.
  SmallVector<std::pair<tile::DotOp, unsigned>> chains;
  SmallVector<tile::StoreOp> stores;
};

} // namespace

static FailureOr<Program> analyze(FunctionOpInterface func) {
  Program program;
  SmallVector<tile::LoadOp> loads;
  func->walk([&](tile::LoadOp load) { loads.push_back(load); });
  func->walk([&](tile::StoreOp store) { program.stores.push_back(store); });
  if (loads.empty())
    return program;
  program.loop = dyn_cast<scf::ForOp>(loads.front()->getParentOp());
  program.loads = loads;
  for (tile::LoadOp load : loads)
    if (!program.loop || load->getParentOp() != program.loop)
      return load.emitOpError(
          "ws-partition-roles on sm_100a handles GEMM tile programs "
          "whose loads all sit directly in one scf.for, and attention "
          "programs that load Q before it");
  for (auto [i, yielded] : llvm::enumerate(program.loop.getYieldedValues())) {
    auto dot = yielded.getDefiningOp<tile::DotOp>();
    if (!dot || dot->getParentOp() != program.loop)
      return program.loop.emitOpError(
          "carries a value that is not a tile.dot accumulator; sm100 "
          "partitioning handles GEMM main loops only");
    if (dot.getAcc() != program.loop.getRegionIterArgs()[i])
      return dot.emitOpError("must accumulate onto its loop-carried value");
    if (!dot.getA().getDefiningOp<tile::LoadOp>() ||
        !dot.getB().getDefiningOp<tile::LoadOp>())
      return dot.emitOpError("operands must come straight from tile.load on "
                             "sm100 (shared memory)");
    if (!isa_and_nonnull<tile::TmemAttr>(dot.getAcc().getType().getEncoding()))
      return dot.emitOpError(
          "needs a tensor-memory accumulator: run "
          "tile-assign-layouts on an sm_100a gpu.module first");
    program.chains.push_back({dot, unsigned(i)});
  }
  if (program.chains.empty())
    return program.loop.emitOpError(
        "carries no tile.dot accumulator: nothing for the MMA warp to do");
  for (tile::StoreOp store : program.stores)
    if (store->getBlock() != program.loop->getBlock())
      return store.emitOpError("must be in the block of the main loop");
  return program;
}

/// A role holding a clone of the program; returns the clone's ops.
struct ClonedProgram {
  RoleOp role;
  Program program;
};

static ClonedProgram cloneInto(RolePartition &partition, const Program &program,
                               RoleSpecAttr spec) {
  RoleCopy copy =
      partition.addRole(spec.getName(), spec.getWarps(), spec.getRegs());
  auto lookup = [&](auto op) { return copy.lookup(op); };
  Program cloned;
  cloned.loop = lookup(program.loop);
  for (tile::LoadOp load : program.loads)
    cloned.loads.push_back(lookup(load));
  for (auto [dot, position] : program.chains)
    cloned.chains.push_back({lookup(dot), position});
  for (tile::StoreOp store : program.stores)
    cloned.stores.push_back(lookup(store));
  return {copy.role, cloned};
}

/// The load warp: every iteration's loads go by TMA into one slot of the
/// operand ring, committed with their bytes. In a kernel marked
/// ws.multicast (a cluster of two CTAs sharing B tiles) the loads of the
/// dots' B operands are TMA multicast copies: each CTA loads half of the
/// block into both.
static void buildLoad(OpBuilder &b, Value stream, Program &p, bool multicast) {
  for (tile::StoreOp store : p.stores)
    store.erase();
  dropCarried(p.loop);
  DenseSet<Operation *> shared;
  if (multicast)
    for (auto [dot, position] : p.chains)
      shared.insert(dot.getB().getDefiningOp());
  produceLoads(b, stream, p.loads, [&](tile::LoadOp load) {
    return shared.contains(load.getOperation());
  });
}

/// The MMA warp: per output tile, take an accumulator slot; per operand
/// slot, issue each chain's MMAs into its accumulator (the first K step of
/// a tile overwrites it) and release the slot when they are done (a
/// tcgen05 commit); then hand the accumulators over, again by commit.
static void buildMMA(OpBuilder &b, Value stream, Value accChannel, Program &p) {
  for (tile::StoreOp store : p.stores)
    store.erase();
  Location loc = p.loop.getLoc();
  b.setInsertionPoint(p.loop);
  auto acquire = ProducerAcquireOp::create(b, loc, accChannel);

  Value waitToken = consumeLoads(b, stream, p.loads);
  Block *body = p.loop.getBody();
  b.setInsertionPoint(p.chains.front().first);
  Value accumulate =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                            p.loop.getInductionVar(), p.loop.getLowerBound());
  for (auto [i, chain] : llvm::enumerate(p.chains)) {
    tile::DotOp dot = chain.first;
    b.setInsertionPoint(dot);
    TCGen05MMAOp::create(b, dot.getLoc(), dot.getA(), dot.getB(),
                         acquire.getBuffers()[i], accumulate,
                         dot.getTransposeAAttr(), dot.getTransposeBAttr(),
                         dot.getCtaPairAttr());
  }
  b.setInsertionPoint(body->getTerminator());
  ConsumerReleaseOp::create(b, loc, stream, waitToken, AsyncUnit::TCGen05);
  dropCarried(p.loop);
  b.setInsertionPointAfter(p.loop);
  ProducerCommitOp::create(b, loc, accChannel, acquire.getToken(),
                           AsyncUnit::TCGen05, IntegerAttr());
}

/// Epilogue `index`: per output tile, wait for the accumulators, load its
/// own (tcgen05.ld, the tile.convert_layout the layouts put there), give
/// the slot back, and store the result through its staging buffer by TMA.
static LogicalResult buildEpilogue(OpBuilder &b, Value accChannel, Program &p,
                                   unsigned index, ArrayRef<Value> staging,
                                   unsigned barrierId) {
  Location loc = p.loop.getLoc();
  b.setInsertionPoint(p.loop);
  auto wait = ConsumerWaitOp::create(b, loc, accChannel);
  SmallVector<Value> accumulators;
  for (auto [i, chain] : llvm::enumerate(p.chains)) {
    Value result = p.loop.getResult(chain.second);
    accumulators.push_back(
        AsTensorOp::create(b, loc, result.getType(), wait.getBuffers()[i]));
    result.replaceAllUsesWith(accumulators.back());
  }
  p.loop.erase();

  // This epilogue's stores: those of its own accumulator.
  Value mine = accumulators[index];
  SmallVector<std::pair<tile::StoreOp, Value>> stores;
  for (auto [store, buffer] : llvm::zip(p.stores, staging)) {
    SmallVector<Value> worklist{store.getValue()};
    DenseSet<Value> seen;
    bool reads = false;
    while (!worklist.empty() && !reads) {
      Value v = worklist.pop_back_val();
      if (!seen.insert(v).second)
        continue;
      reads = v == mine;
      if (Operation *def = v.getDefiningOp())
        if (def->getBlock() == store->getBlock())
          llvm::append_range(worklist, def->getOperands());
    }
    if (reads)
      stores.push_back({store, buffer});
    else
      store.erase();
  }
  int64_t threads = kWarpsPerGroup * kThreadsPerWarp;
  for (auto [store, buffer] : stores) {
    // The previous tile's TMA store must have read the staging buffer.
    Location storeLoc = store.getLoc();
    b.setInsertionPoint(store);
    TMAStoreWaitOp::create(b, storeLoc);
    BarrierSyncOp::create(b, storeLoc, barrierId, threads);
    // Loaded, converted and staged 32 columns at a time later
    // (ws-chunk-row-stores).
    StoreSharedOp::create(b, storeLoc, store.getValue(), buffer);
    FenceAsyncSharedOp::create(b, storeLoc);
    BarrierSyncOp::create(b, storeLoc, barrierId, threads);
    TMAStoreOp::create(b, storeLoc, store.getDesc(), store.getCoords(), buffer);
    store.erase();
  }
  // Release once the accumulator is in registers: after the last read
  // (ws-chunk-row-stores moves it after the last chunk's).
  Operation *lastRead =
      lastTensorMemoryRead(wait.getBuffers()[index], wait->getBlock());
  if (!lastRead)
    return wait.emitOpError("epilogue ")
           << index
           << " does not read its accumulator in the main loop's block";
  b.setInsertionPointAfter(lastRead);
  ConsumerReleaseOp::create(b, loc, accChannel, wait.getToken(),
                            AsyncUnit::Threads);
  return success();
}

/// Whether the tile program of `func` is attention's: it loads Q before its
/// main loop.
static bool isAttention(FunctionOpInterface func) {
  bool prologue = false;
  func->walk([&](tile::LoadOp load) {
    prologue |= !isa<scf::ForOp>(load->getParentOp());
  });
  return prologue;
}

FailureOr<SmallVector<RoleSpecAttr>>
ws::rolesNamed(FunctionOpInterface func, ArrayRef<std::string> expected) {
  SmallVector<RoleSpecAttr> roles = getRoles(func);
  bool same = roles.size() == expected.size();
  for (auto [role, name] : llvm::zip(roles, expected))
    same &= role.getName() == name;
  if (same)
    return roles;
  auto diag = func->emitError("ws-partition-roles: on sm_100a this program "
                              "is split into the roles");
  for (const std::string &name : expected)
    diag << " '" << name << "'";
  return diag << ", in this order (ws.roles)";
}

LogicalResult ws::assignRolesSM100(FunctionOpInterface func,
                                   const SM100RoleOptions &options) {
  if (isAttention(func))
    return assignAttentionRolesSM100(func, options);
  FailureOr<Program> program = analyze(func);
  if (failed(program))
    return failure();
  if (program->loads.empty())
    return success();
  MLIRContext *ctx = func.getContext();
  // The MMA warp shares the load warp's warpgroup, and so its budget.
  SmallVector<Attribute> roles{
      RoleSpecAttr::get(ctx, "load", 1, options.loadRegs),
      RoleSpecAttr::get(ctx, "mma", 1, options.loadRegs)};
  for (unsigned i = 0; i < program->chains.size(); ++i)
    roles.push_back(RoleSpecAttr::get(ctx, ("epilogue" + Twine(i)).str(),
                                      kWarpsPerGroup, options.epilogueRegs));
  Builder b(ctx);
  func->setAttr(kRolesAttrName, b.getArrayAttr(roles));
  func->setAttr(kChannelStagesAttrName,
                b.getDenseI32ArrayAttr({int32_t(options.stages)}));
  return success();
}

LogicalResult ws::partitionRolesSM100(FunctionOpInterface func) {
  if (isAttention(func))
    return partitionAttentionSM100(func);
  FailureOr<Program> program = analyze(func);
  if (failed(program))
    return failure();
  if (program->loads.empty())
    return success();
  SmallVector<std::string> names{"load", "mma"};
  for (unsigned i = 0; i < program->chains.size(); ++i)
    names.push_back(("epilogue" + Twine(i)).str());
  FailureOr<SmallVector<RoleSpecAttr>> specs = rolesNamed(func, names);
  if (failed(specs))
    return failure();
  unsigned stages =
      func->getAttrOfType<DenseI32ArrayAttr>(kChannelStagesAttrName)[0];
  MLIRContext *ctx = func.getContext();
  RolePartition partition(func);
  OpBuilder &b = partition.getBuilder();
  Location loc = func.getLoc();
  Value stream = ChannelOp::create(
      b, loc, ChannelType::get(ctx, sharedBuffersFor(program->loads), stages));
  SmallVector<MemRefType> accBuffers;
  auto tmem = TensorMemoryAttr::get(ctx);
  for (auto [dot, position] : program->chains) {
    RankedTensorType acc = dot.getAcc().getType();
    accBuffers.push_back(MemRefType::get(acc.getShape(), acc.getElementType(),
                                         MemRefLayoutAttrInterface(), tmem));
  }
  Value accChannel = ChannelOp::create(
      b, loc, ChannelType::get(ctx, accBuffers, kAccumulatorStages));
  SmallVector<Value> staging;
  for (tile::StoreOp store : program->stores)
    staging.push_back(allocStaging(b, store));

  partition.createKernel();
  {
    auto [role, p] = cloneInto(partition, *program, (*specs)[0]);
    buildLoad(b, stream, p, func->hasAttr(kMulticastAttrName));
    cleanUpRole(role);
  }
  {
    auto [role, p] = cloneInto(partition, *program, (*specs)[1]);
    buildMMA(b, stream, accChannel, p);
    cleanUpRole(role);
  }
  for (unsigned i = 0; i < program->chains.size(); ++i) {
    auto [role, p] = cloneInto(partition, *program, (*specs)[2 + i]);
    if (failed(
            buildEpilogue(b, accChannel, p, i, staging, /*barrierId=*/1 + i)))
      return failure();
    if (!program->stores.empty()) {
      b.setInsertionPointToEnd(&role.getBody().front());
      TMAStoreWaitOp::create(b, loc);
    }
    cleanUpRole(role);
  }
  // The constants no role uses (the accumulators' zeros, replaced by not
  // accumulating) have no lowering in tensor memory.
  partition.eraseProgram(/*eraseUnusedConstants=*/true);
  clearRoleAssignment(func);
  return success();
}
