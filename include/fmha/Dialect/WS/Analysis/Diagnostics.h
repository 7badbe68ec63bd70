//===- CheckerUtils.h - Shared pieces of the ws protocol checkers -*- C++
//-*-===//
//
// Part of fmha. What ws-verify-protocol and ws-verify-phases share: how
// their diagnostics name places and counts, and how they run over the
// ws.warp_specialize ops of a module.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_LIB_DIALECT_WS_TRANSFORMS_CHECKERUTILS_H
#define FMHA_LIB_DIALECT_WS_TRANSFORMS_CHECKERUTILS_H

#include "fmha/Dialect/WS/IR/WSDialect.h"

#include <string>

namespace mlir {
namespace ws {

/// "line:col" of the first file location in `loc`, or the location printed.
std::string describeLoc(Location loc);

/// "1 slot", "2 slots": `n` and `word`, in the plural unless `n` is 1.
std::string plural(int64_t n, StringRef word);

/// Runs `check` on each ws.warp_specialize under `root`, all of them even
/// when one fails (each reports its own errors); fails when any check fails.
LogicalResult
verifyEachKernel(Operation *root,
                 function_ref<LogicalResult(WarpSpecializeOp)> check);

} // namespace ws
} // namespace mlir

#endif // FMHA_LIB_DIALECT_WS_TRANSFORMS_CHECKERUTILS_H
