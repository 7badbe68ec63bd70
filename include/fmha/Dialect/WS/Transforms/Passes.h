//===- Passes.h - Passes of the ws dialect ------------------------*- C++
//-*-===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_DIALECT_WS_TRANSFORMS_PASSES_H
#define FMHA_DIALECT_WS_TRANSFORMS_PASSES_H

#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Target/TargetLimits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace ws {

#define GEN_PASS_DECL
#include "fmha/Dialect/WS/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fmha/Dialect/WS/Transforms/Passes.h.inc"

/// ws-verify-protocol's check of one op's roles; marks the op
/// (`ws.protocol_verified`) when it holds. Reports each violation.
LogicalResult verifyProtocol(WarpSpecializeOp op);

/// ws-verify-phases' check of one op's rings; marks the op
/// (`ws.phases_verified`) when it holds or could not be checked within
/// the model checker's budget (it then warns). Reports what is wrong.
LogicalResult verifyPhases(WarpSpecializeOp op);

/// Runs `check` on each op under `root` without the unit attribute `marker`
/// (an op the check passed carries it); fails when any check fails.
LogicalResult verifyUnmarked(Operation *root, StringRef marker,
                             function_ref<LogicalResult(WarpSpecializeOp)>
                                 check);

} // namespace ws
} // namespace mlir

#endif // FMHA_DIALECT_WS_TRANSFORMS_PASSES_H
