//===- AllocateRegisters.cpp - Warp ranges and register budgets ----------===//
//
// Part of fmha. Implements ws-allocate-registers.
//
//===----------------------------------------------------------------------===//

#include "PassUtils.h"

#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"
#include "fmha/Dialect/WS/Transforms/Passes.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace ws {
#define GEN_PASS_DEF_WSALLOCATEREGISTERS
#include "fmha/Dialect/WS/Transforms/Passes.h.inc"
} // namespace ws
} // namespace mlir

using namespace mlir;
using namespace mlir::ws;

/// Assigns the warp ranges of one warp_specialize op and checks budgets.
static LogicalResult allocate(WarpSpecializeOp op) {
  Builder b(op.getContext());
  int64_t cursor = 0;
  for (RoleOp role : op.getRoles())
    if (std::optional<uint32_t> first = role.getFirstWarp())
      cursor = std::max<int64_t>(cursor, *first + role.getWarps());
  bool anyBudget = false;
  // Warpgroups that small roles share: the next free warp of each and the
  // budget of its roles. A small role goes into the first with room and
  // the same budget (the transposer beside the producer's warp).
  struct Shared {
    int64_t group, next;
    std::optional<uint32_t> regs;
  };
  SmallVector<Shared> shared;
  for (RoleOp role : op.getRoles()) {
    anyBudget |= role.getRegs().has_value();
    if (role.getFirstWarp())
      continue;
    int64_t warps = role.getWarps();
    bool wholeGroups = warps % kWarpsPerGroup == 0;
    if (!wholeGroups) {
      auto room = llvm::find_if(shared, [&](const Shared &g) {
        return g.regs == role.getRegs() && g.next + warps <= kWarpsPerGroup;
      });
      if (room != shared.end()) {
        role.setFirstWarpAttr(
            b.getI32IntegerAttr(room->group * kWarpsPerGroup + room->next));
        room->next += warps;
        continue;
      }
    }
    // Whole warpgroups start on a boundary; a small role must not straddle
    // one.
    if (wholeGroups || cursor % kWarpsPerGroup + warps > kWarpsPerGroup)
      cursor = llvm::alignTo(cursor, kWarpsPerGroup);
    role.setFirstWarpAttr(b.getI32IntegerAttr(cursor));
    if (!wholeGroups) {
      int64_t group = cursor / kWarpsPerGroup;
      auto entry = llvm::find_if(
          shared, [&](const Shared &g) { return g.group == group; });
      if (entry == shared.end())
        entry = shared.insert(shared.end(), {group, 0, role.getRegs()});
      entry->next = cursor % kWarpsPerGroup + warps;
    }
    cursor += warps;
  }
  int64_t totalWarps = 0;
  for (RoleOp role : op.getRoles())
    totalWarps =
        std::max<int64_t>(totalWarps, *role.getFirstWarp() + role.getWarps());

  if (anyBudget) {
    // setmaxnreg acts on whole warpgroups: roles that share one share a
    // budget, and the CTA is whole warpgroups.
    totalWarps = llvm::alignTo(totalWarps, kWarpsPerGroup);
    DenseMap<int64_t, RoleOp> groupRole;
    for (RoleOp role : op.getRoles()) {
      if (!role.getRegs())
        return role.emitOpError("has no register budget while other roles "
                                "have one; give every role a budget");
      auto [firstGroup, lastGroup] = role.getWarpgroupRange();
      for (int64_t g = firstGroup; g <= lastGroup; ++g) {
        auto [it, inserted] = groupRole.insert({g, role});
        if (!inserted && it->second.getRegs() != role.getRegs())
          return role.emitOpError("shares warpgroup ")
                 << g << " with role '" << it->second.getRoleName()
                 << "' but has another register budget (" << *role.getRegs()
                 << " vs " << *it->second.getRegs() << ")";
      }
    }
    int64_t registers = 0;
    for (int64_t g = 0; g < totalWarps / kWarpsPerGroup; ++g) {
      auto it = groupRole.find(g);
      if (it == groupRole.end())
        return op.emitOpError("warpgroup ")
               << g << " has no role; setmaxnreg needs every warpgroup";
      registers +=
          int64_t(*it->second.getRegs()) * kWarpsPerGroup * kThreadsPerWarp;
    }
    if (registers > kRegistersPerSM)
      return op.emitOpError("register budgets need ")
             << registers << " registers for " << totalWarps * kThreadsPerWarp
             << " threads; an SM has " << kRegistersPerSM;
  }
  if (totalWarps > kMaxWarpsPerCTA)
    return op.emitOpError("roles need ")
           << totalWarps << " warps; a CTA has at most " << kMaxWarpsPerCTA;
  if (auto func = op->getParentOfType<FunctionOpInterface>())
    WSDialect::getLoaded(func->getContext())
        .getNumThreadsAttrHelper()
        .setAttr(func, b.getI64IntegerAttr(totalWarps * kThreadsPerWarp));
  return success();
}

namespace {
struct WSAllocateRegistersPass
    : public ws::impl::WSAllocateRegistersBase<WSAllocateRegistersPass> {
  void runOnOperation() override {
    if (failed(runOnEach<WarpSpecializeOp>(getOperation(), allocate)))
      signalPassFailure();
  }
};
} // namespace
