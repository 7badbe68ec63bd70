//===- AssignRolesSM100.cpp - The warp roles of a Blackwell GEMM ----------===//
//
// Part of fmha. ws-assign-roles on sm_100a for GEMM tile programs (loads all
// in the main loop, tensor-memory accumulators): a load warp issues the
// TMA loads into the operand ring (TMA multicast of B in a ws.multicast
// kernel); an MMA warp computes every accumulator in a slot of a two-slot
// tensor-memory channel (one thread issues tcgen05.mma, commits release
// the operand slots and hand the accumulators over), so the epilogue of
// one output tile overlaps the MMAs of the next; one epilogue warpgroup per
// accumulator stores what is computed from it. The whole decision is
// written as role attributes (docs/Roles.md), which ws-partition-roles
// materialises like any other.
//
//===----------------------------------------------------------------------===//

#include "PartitionRolesSM100.h"
#include "PartitionUtils.h"

#include "fmha/Dialect/WS/IR/RoleAssignment.h"
#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::ws;

/// Slots of the accumulator channel: the epilogue of one tile overlaps the
/// MMAs of the next.
static constexpr int32_t kAccumulatorStages = 2;

/// The roles: the load warp, the MMA warp, then one epilogue per chain.
static constexpr int32_t kLoadRole = 0, kMMARole = 1, kFirstEpilogue = 2;
/// The channels: the operand ring, then the accumulators.
static constexpr int32_t kOperandChannel = 0, kAccumulatorChannel = 1;

namespace {

/// What the policy found in one tile program.
struct Program {
  scf::ForOp loop;
  SmallVector<tile::LoadOp> loads;
  /// The dots of the main loop whose results are yielded (accumulator
  /// chains), one per loop-carried value, in order.
  SmallVector<tile::DotOp> chains;
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
          "ws-assign-roles on sm_100a handles GEMM tile programs "
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
    program.chains.push_back(dot);
  }
  if (program.chains.empty())
    return program.loop.emitOpError(
        "carries no tile.dot accumulator: nothing for the MMA warp to do");
  for (tile::StoreOp store : program.stores)
    if (store->getBlock() != program.loop->getBlock())
      return store.emitOpError("must be in the block of the main loop");
  return program;
}

/// Whether the value `store` stores is computed (in the store's block) from
/// result `position` of `loop`.
static bool storesResult(tile::StoreOp store, scf::ForOp loop,
                         unsigned position) {
  bool reads = false;
  walkBackward(store.getValue(), [&](Value v, SmallVectorImpl<Value> &next) {
    reads |= v == loop.getResult(position);
    if (Operation *def = v.getDefiningOp())
      if (def->getBlock() == store->getBlock() && def != loop.getOperation())
        llvm::append_range(next, def->getOperands());
  });
  return reads;
}

bool ws::isAttentionSM100(FunctionOpInterface func) {
  bool prologue = false;
  func->walk([&](tile::LoadOp load) {
    prologue |= !isa<scf::ForOp>(load->getParentOp());
  });
  return prologue;
}

LogicalResult ws::assignRolesSM100(FunctionOpInterface func,
                                   const SM100RoleOptions &options) {
  if (isAttentionSM100(func))
    return assignAttentionRolesSM100(func, options);
  FailureOr<Program> program = analyze(func);
  if (failed(program))
    return failure();
  if (program->loads.empty())
    return success();
  MLIRContext *ctx = func.getContext();
  Builder b(ctx);
  // The MMA warp shares the load warp's warpgroup, and so its budget.
  SmallVector<Attribute> roles{
      RoleSpecAttr::get(ctx, "load", 1, options.loadRegs),
      RoleSpecAttr::get(ctx, "mma", 1, options.loadRegs)};
  for (unsigned i = 0; i < program->chains.size(); ++i)
    roles.push_back(RoleSpecAttr::get(ctx, ("epilogue" + Twine(i)).str(),
                                      kWarpsPerGroup, options.epilogueRegs));
  func->setAttr(kRolesAttrName, b.getArrayAttr(roles));
  func->setAttr(
      kChannelStagesAttrName,
      b.getDenseI32ArrayAttr({int32_t(options.stages), kAccumulatorStages}));

  // The load warp issues every load into the operand ring; in a kernel
  // marked ws.multicast (a cluster of two CTAs sharing B tiles) the loads
  // of the dots' B operands are multicast.
  bool multicast = func->hasAttr(kMulticastAttrName);
  DenseSet<Operation *> shared;
  for (tile::DotOp dot : program->chains)
    shared.insert(dot.getB().getDefiningOp());
  for (tile::LoadOp load : program->loads) {
    load->setAttr(kLoadChannelAttrName, b.getI32IntegerAttr(kOperandChannel));
    setPartition(load, {kLoadRole});
    if (multicast && shared.contains(load.getOperation()))
      load->setAttr(kMulticastLoadAttrName, b.getUnitAttr());
  }

  // The MMA warp computes every accumulator, in a slot of the accumulator
  // channel.
  size_t positions = program->chains.size();
  program->loop->setAttr(kPartitionOutputsAttrName,
                         b.getArrayAttr(SmallVector<Attribute>(
                             positions, b.getDenseI32ArrayAttr({kMMARole}))));
  program->loop->setAttr(kOutputChannelsAttrName,
                         b.getDenseI32ArrayAttr(SmallVector<int32_t>(
                             positions, kAccumulatorChannel)));

  // Epilogue i stores what is computed from accumulator i.
  for (tile::StoreOp store : program->stores) {
    SmallVector<int32_t> owners;
    for (unsigned i = 0; i < positions; ++i)
      if (storesResult(store, program->loop, i))
        owners.push_back(kFirstEpilogue + i);
    if (owners.empty())
      return store.emitOpError("stores a value that does not come from an "
                               "accumulator of the main loop");
    setPartition(store, owners);
  }
  return success();
}
