//===- Checkers.h - The ws protocol checkers ----------------------*- C++
//-*-===//
//
// Part of fmha. The static checks of the ws dialect's protocols, run by
// their passes (ws-verify-protocol, ws-verify-phases) and by the passes that
// must not lower a protocol nobody checked (ws-insert-mbarriers,
// ws-lower-roles). Each check marks the ws.warp_specialize it passes with
// its unit attribute (`ws.protocol_verified`, `ws.phases_verified`) and
// reports what is wrong through the helpers of Diagnostics.h.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_DIALECT_WS_ANALYSIS_CHECKERS_H
#define FMHA_DIALECT_WS_ANALYSIS_CHECKERS_H

#include "fmha/Dialect/WS/IR/WSDialect.h"

namespace mlir {
namespace ws {

/// ws-verify-protocol's check of one op's roles; marks the op
/// (`ws.protocol_verified`) when it holds. Reports each violation.
LogicalResult verifyProtocol(WarpSpecializeOp op);

/// ws-verify-phases' check of one op's rings; marks the op
/// (`ws.phases_verified`) when it holds or could not be checked within the
/// model checker's budget (it then warns). Reports what is wrong.
LogicalResult verifyPhases(WarpSpecializeOp op);

/// Runs `check` on each ws.warp_specialize under `root`, all of them even
/// when one fails (each reports its own errors); fails when any check fails.
LogicalResult
verifyEachKernel(Operation *root,
                 function_ref<LogicalResult(WarpSpecializeOp)> check);

/// Runs `check` on each op under `root` without the unit attribute `marker`
/// (an op the check passed carries it); fails when any check fails.
LogicalResult
verifyUnmarked(Operation *root, StringRef marker,
               function_ref<LogicalResult(WarpSpecializeOp)> check);

} // namespace ws
} // namespace mlir

#endif // FMHA_DIALECT_WS_ANALYSIS_CHECKERS_H
