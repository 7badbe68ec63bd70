//===- RoleAssignment.cpp - Warp roles written on a tile program ----------===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/WS/IR/RoleAssignment.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::ws;

LogicalResult RoleSpecAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   StringRef name, int32_t warps,
                                   int32_t regs) {
  if (name.empty())
    return emitError() << "a role needs a name";
  if (warps < 1 || warps > kMaxWarpsPerCTA)
    return emitError() << "role '" << name << "' needs 1 to " << kMaxWarpsPerCTA
                       << " warps, got " << warps;
  // 0: no budget (no setmaxnreg), for a kernel of one role.
  if (regs != 0 && !isValidRegisterBudget(regs))
    return emitError() << "role '" << name
                       << "': the register budget must be a multiple of "
                       << kRegisterBudgetStep << " from " << kMinRegisterBudget
                       << " to " << kMaxRegisterBudget
                       << ", or 0 for none, got " << regs;
  return success();
}

SmallVector<RoleSpecAttr> ws::getRoles(Operation *func) {
  SmallVector<RoleSpecAttr> roles;
  if (auto list = func->getAttrOfType<ArrayAttr>(kRolesAttrName))
    for (Attribute entry : list)
      if (auto role = dyn_cast<RoleSpecAttr>(entry))
        roles.push_back(role);
  return roles;
}

ArrayRef<int32_t> ws::getPartition(Operation *op) {
  if (auto roles = op->getAttrOfType<DenseI32ArrayAttr>(kPartitionAttrName))
    return roles.asArrayRef();
  return {};
}

void ws::setPartition(Operation *op, ArrayRef<int32_t> roles) {
  op->setAttr(kPartitionAttrName,
              DenseI32ArrayAttr::get(op->getContext(), roles));
}

bool ws::computesOutput(scf::ForOp loop, unsigned position, int32_t role) {
  auto outputs = loop->getAttrOfType<ArrayAttr>(kPartitionOutputsAttrName);
  if (!outputs)
    return true;
  return llvm::is_contained(
      cast<DenseI32ArrayAttr>(outputs[position]).asArrayRef(), role);
}

int32_t ws::getOutputChannel(scf::ForOp loop, unsigned position) {
  auto channels =
      loop->getAttrOfType<DenseI32ArrayAttr>(kOutputChannelsAttrName);
  if (!channels || position >= channels.asArrayRef().size())
    return -1;
  return channels[position];
}

int32_t ws::getResultChannel(Operation *op) {
  if (auto channel = op->getAttrOfType<IntegerAttr>(kResultChannelAttrName))
    return channel.getInt();
  return -1;
}

int32_t ws::getChannelAlias(Operation *func, size_t channel) {
  auto aliases =
      func->getAttrOfType<DenseI32ArrayAttr>(kChannelAliasesAttrName);
  if (!aliases || channel >= aliases.asArrayRef().size())
    return -1;
  return aliases[channel];
}

/// Checks that `roles` (from `op`'s attribute `name`) are indices of
/// `count` roles.
static LogicalResult checkIndices(Operation *op, StringRef name,
                                  ArrayRef<int32_t> roles, size_t count,
                                  StringRef pass) {
  for (int32_t role : roles)
    if (role < 0 || static_cast<size_t>(role) >= count)
      return op->emitOpError()
             << pass << ": '" << name << "' names role " << role
             << ", but the kernel has " << count << " roles (ws.roles)";
  return success();
}

/// Ends a walk once `diagnostic` is reported.
static WalkResult stop(const InFlightDiagnostic &) {
  return WalkResult::interrupt();
}

LogicalResult ws::verifyRoleAssignment(FunctionOpInterface func, StringRef pass,
                                       bool opLevel) {
  auto list = func->getAttrOfType<ArrayAttr>(kRolesAttrName);
  if (!list || list.empty())
    return func->emitError()
           << pass << ": the kernel has no '" << kRolesAttrName
           << "' (an array of #ws.role_spec): run "
              "ws-assign-roles first or write them";
  for (Attribute entry : list)
    if (!isa<RoleSpecAttr>(entry))
      return func->emitError()
             << pass << ": '" << kRolesAttrName
             << "' holds #ws.role_spec entries, got " << entry;
  size_t roles = list.size();
  auto stages = func->getAttrOfType<DenseI32ArrayAttr>(kChannelStagesAttrName);
  if (!stages)
    return func->emitError()
           << pass << ": the kernel has no '" << kChannelStagesAttrName
           << "' (the slots of each channel, an i32 array)";
  for (int32_t depth : stages.asArrayRef())
    if (depth < 1 || depth > 32)
      return func->emitError()
             << pass << ": '" << kChannelStagesAttrName
             << "' entries must be from 1 to 32 slots, got " << depth;
  size_t channels = stages.size();
  if (auto aliases =
          func->getAttrOfType<DenseI32ArrayAttr>(kChannelAliasesAttrName)) {
    if (aliases.size() != static_cast<int64_t>(channels))
      return func->emitError()
             << pass << ": '" << kChannelAliasesAttrName
             << "' needs one entry per channel (" << channels
             << ", ws.channel_stages), got " << aliases.size();
    for (auto [i, alias] : llvm::enumerate(aliases.asArrayRef()))
      if (alias < -1 || alias >= static_cast<int64_t>(i))
        return func->emitError()
               << pass << ": '" << kChannelAliasesAttrName << "' entry " << i
               << " must be -1 or an earlier channel, got " << alias;
  }
  WalkResult walk = func->walk([&](Operation *op) -> WalkResult {
    // The dialect verifies that ws.partition is an i32 array.
    if (failed(checkIndices(op, kPartitionAttrName, getPartition(op), roles,
                            pass)))
      return WalkResult::interrupt();
    if (Attribute attr = op->getAttr(kPartitionOutputsAttrName)) {
      auto loop = dyn_cast<scf::ForOp>(op);
      auto outputs = dyn_cast<ArrayAttr>(attr);
      if (!loop || !outputs || outputs.size() != loop.getNumRegionIterArgs() ||
          !llvm::all_of(outputs, llvm::IsaPred<DenseI32ArrayAttr>))
        return stop(
            op->emitOpError()
            << pass << ": '" << kPartitionOutputsAttrName
            << "' belongs on an scf.for, one i32 array per loop-carried "
               "value");
      for (Attribute output : outputs)
        if (failed(checkIndices(op, kPartitionOutputsAttrName,
                                cast<DenseI32ArrayAttr>(output).asArrayRef(),
                                roles, pass)))
          return WalkResult::interrupt();
    }
    if (auto attr =
            op->getAttrOfType<DenseI32ArrayAttr>(kOutputChannelsAttrName)) {
      auto loop = dyn_cast<scf::ForOp>(op);
      if (!loop || attr.size() != loop.getNumRegionIterArgs())
        return stop(op->emitOpError()
                    << pass << ": '" << kOutputChannelsAttrName
                    << "' belongs on an scf.for, one entry per loop-carried "
                       "value");
      for (int32_t channel : attr.asArrayRef())
        if (channel < -1 || channel >= static_cast<int64_t>(channels))
          return stop(op->emitOpError()
                      << pass << ": '" << kOutputChannelsAttrName
                      << "' entries are -1 or the index of one of the "
                         "kernel's "
                      << channels << " channels (ws.channel_stages), got "
                      << channel);
    }
    if (auto channel = op->getAttrOfType<IntegerAttr>(kResultChannelAttrName)) {
      if (channel.getInt() < 0 ||
          channel.getInt() >= static_cast<int64_t>(channels))
        return stop(op->emitOpError()
                    << pass << ": '" << kResultChannelAttrName
                    << "' must be the index of one of the kernel's " << channels
                    << " channels (ws.channel_stages), got "
                    << channel.getInt());
      if (getPartition(op).size() != 1)
        return stop(op->emitOpError()
                    << pass << ": an op with '" << kResultChannelAttrName
                    << "' needs a '" << kPartitionAttrName
                    << "' of one role, the one that hands its result over");
    }
    if (!isa<tile::LoadOp>(op) || !opLevel)
      return WalkResult::advance();
    auto channel = op->getAttrOfType<IntegerAttr>(kLoadChannelAttrName);
    if (!channel || channel.getInt() < 0 ||
        static_cast<size_t>(channel.getInt()) >= channels)
      return stop(op->emitOpError()
                  << pass << ": every tile.load needs '" << kLoadChannelAttrName
                  << "', the index of one of the kernel's " << channels
                  << " channels (ws.channel_stages)");
    if (getPartition(op).size() != 1)
      return stop(op->emitOpError()
                  << pass << ": a tile.load needs a '" << kPartitionAttrName
                  << "' of one role, the one that issues its copy");
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

void ws::clearRoleAssignment(Operation *root) {
  root->walk([](Operation *op) {
    for (StringLiteral name :
         {kRolesAttrName, kChannelStagesAttrName, kPartitionAttrName,
          kPartitionOutputsAttrName, kOutputChannelsAttrName,
          kLoadChannelAttrName, kMulticastLoadAttrName, kResultChannelAttrName,
          kChannelAliasesAttrName})
      op->removeAttr(name);
  });
}
