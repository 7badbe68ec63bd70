//===- ReplicaRoles.h - one code copy for roles that differ in values -----===//
//
// Part of fmha. Used by ws-lower-roles.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_LIB_DIALECT_WS_TRANSFORMS_REPLICAROLES_H
#define FMHA_LIB_DIALECT_WS_TRANSFORMS_REPLICAROLES_H

#include "fmha/Dialect/WS/IR/WSDialect.h"

namespace mlir {
namespace ws {

/// Folds `roles` (two or more, one after another in the warp space, each as
/// many warps as the first) into the first one, so that their warps run one
/// copy of the code: partitioning clones a role per consumer tile, and the
/// clones differ only in values (row offsets, staging buffers, named
/// barrier ids) and in a few barrier operations one clone has and another
/// has not. Lines the bodies up op by op (a longest common subsequence per
/// block), and where they differ:
///  - an operand becomes an `arith.select` on the replica index,
///  - a named barrier takes its id from such a select,
///  - an op with effects that only some replicas have runs under a test of
///    the replica index; a pure op only some have runs in all.
/// The other roles are erased. Returns the replica index (0 for the first
/// role's warps; computed from the warp-uniform `warp` at the top of the
/// first role's body), or a null value, with nothing changed, when the
/// bodies do not line up this way (an op with results and effects, or with
/// results and regions, that only some have; a differing value that is
/// neither a scalar nor a buffer).
Value mergeReplicaRoles(ArrayRef<RoleOp> roles, Value warp);

} // namespace ws
} // namespace mlir

#endif // FMHA_LIB_DIALECT_WS_TRANSFORMS_REPLICAROLES_H
