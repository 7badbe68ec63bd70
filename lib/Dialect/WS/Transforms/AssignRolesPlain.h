//===- AssignRolesPlain.h - One role for programs without MMA ----*- C++
//-*-===//
//
// Part of fmha. The role policy of ws-assign-roles for tile programs that
// neither load by TMA nor multiply: on every target.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_LIB_DIALECT_WS_TRANSFORMS_ASSIGNROLESPLAIN_H
#define FMHA_LIB_DIALECT_WS_TRANSFORMS_ASSIGNROLESPLAIN_H

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir {
namespace ws {

/// Whether the tile program of `func` is plain: no `tile.load` (no TMA, so
/// no channel to fill) and no `tile.dot` (no MMA role), only plain loads,
/// register math and plain stores (`fmha.merge_states`).
bool isPlainProgram(FunctionOpInterface func);

/// ws-assign-roles for a plain program: one role, `worker`, of the warps
/// its register layouts spread tensors over, without a register budget
/// (the kernel keeps the registers ptxas gives it, so several CTAs share
/// an SM), no channels, and every plain store in it
/// (AssignRolesPlain.cpp).
LogicalResult assignPlainRoles(FunctionOpInterface func);

} // namespace ws
} // namespace mlir

#endif // FMHA_LIB_DIALECT_WS_TRANSFORMS_ASSIGNROLESPLAIN_H
