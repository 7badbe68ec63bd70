//===- AssignRolesPlain.cpp - One role for programs without MMA ----------===//
//
// Part of fmha. The role policy of ws-assign-roles for tile programs without
// TMA loads and MMAs (docs/Roles.md): the whole program in one role.
//
//===----------------------------------------------------------------------===//

#include "AssignRolesPlain.h"

#include "fmha/Dialect/Tile/IR/TileDialect.h"
#include "fmha/Dialect/WS/IR/RoleAssignment.h"
#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"

using namespace mlir;
using namespace mlir::ws;

bool ws::isPlainProgram(FunctionOpInterface func) {
  return !func->walk([](Operation *op) {
                return isa<tile::LoadOp, tile::DotOp>(op)
                           ? WalkResult::interrupt()
                           : WalkResult::advance();
              })
              .wasInterrupted();
}

/// The warps the register layouts of `func`'s tensors spread them over,
/// all the same; one warpgroup when no tensor has a register layout.
static FailureOr<unsigned> warpsOf(FunctionOpInterface func) {
  std::optional<unsigned> warps;
  Operation *first = nullptr;
  WalkResult walk = func->walk([&](Operation *op) {
    for (Type type : op->getResultTypes()) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      auto layout = tensor
                        ? dyn_cast_or_null<tile::RegisterLayoutAttrInterface>(
                              tensor.getEncoding())
                        : nullptr;
      if (!layout)
        continue;
      if (!warps) {
        warps = layout.getNumWarps();
        first = op;
      } else if (*warps != layout.getNumWarps()) {
        InFlightDiagnostic diag =
            op->emitOpError("ws-assign-roles: a program without MMA runs in "
                            "one role, but this tensor's layout spreads it "
                            "over ")
            << layout.getNumWarps() << " warps and another's over " << *warps;
        diag.attachNote(first->getLoc()) << "the other tensor";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return warps.value_or(kWarpsPerGroup);
}

LogicalResult ws::assignPlainRoles(FunctionOpInterface func) {
  FailureOr<unsigned> warps = warpsOf(func);
  if (failed(warps))
    return failure();
  MLIRContext *ctx = func.getContext();
  Builder b(ctx);
  func->setAttr(kRolesAttrName,
                b.getArrayAttr({RoleSpecAttr::get(ctx, "worker", *warps,
                                                  /*regs=*/0)}));
  func->setAttr(kChannelStagesAttrName, b.getDenseI32ArrayAttr({}));
  func->walk([](Operation *op) {
    if (isa<tile::StoreDirectOp, tile::CounterArriveOp>(op))
      setPartition(op, {0});
  });
  return success();
}
