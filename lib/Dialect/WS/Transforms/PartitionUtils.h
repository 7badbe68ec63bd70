//===- PartitionUtils.h - Building blocks of role partitioning ---*- C++
//-*-===//
//
// Part of fmha. What every target's ws-partition-roles does the same way:
// loads into a channel slot, in-place reads of a slot, pruning a role.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_LIB_DIALECT_WS_TRANSFORMS_PARTITIONUTILS_H
#define FMHA_LIB_DIALECT_WS_TRANSFORMS_PARTITIONUTILS_H

#include "fmha/Dialect/WS/IR/WSDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir {
namespace ws {

/// Turns `loads` into TMA copies into one slot of `channel`: acquired before
/// the first, committed `by tma` with their bytes after the last. The loads
/// stay for their other users (canonicalization drops them once unused).
void produceLoads(OpBuilder &b, Value channel,
                  MutableArrayRef<tile::LoadOp> loads);

/// Waits for one slot of `channel` before the first of `loads` and replaces
/// them by in-place reads of its buffers (`ws.as_tensor`); returns the
/// wait's token.
Value consumeLoads(OpBuilder &b, Value channel,
                   MutableArrayRef<tile::LoadOp> loads);

/// Makes every loop-carried value of `loop` yield its own iteration
/// argument: the loop then computes nothing but its side effects.
void dropCarried(scf::ForOp loop);

/// Drops what a role does not need: dead ops and unused loop values.
void cleanUpRole(RoleOp role);

} // namespace ws
} // namespace mlir

#endif // FMHA_LIB_DIALECT_WS_TRANSFORMS_PARTITIONUTILS_H
