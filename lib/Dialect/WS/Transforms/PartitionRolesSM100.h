//===- PartitionRolesSM100.h - Warp roles for Blackwell ----------*- C++
//-*-===//
//
// Part of fmha. The sm100 half of ws-partition-roles.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_LIB_DIALECT_WS_TRANSFORMS_PARTITIONROLESSM100_H
#define FMHA_LIB_DIALECT_WS_TRANSFORMS_PARTITIONROLESSM100_H

#include "fmha/Dialect/WS/IR/WSDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir {
namespace ws {

/// What the sm100 role policy starts from: the depth of the operand ring
/// and the register budgets of the load and epilogue roles.
struct SM100RoleOptions {
  unsigned stages;
  unsigned loadRegs;
  unsigned epilogueRegs;
};

/// ws-assign-roles on sm_100a: writes the roles (`ws.roles`) and the depth
/// of the operand ring (`ws.channel_stages`) that partitionRolesSM100
/// builds for the tile program of `func` (layouts assigned for sm100). The
/// op-level assignment is implicit in the kind of program so far.
LogicalResult assignRolesSM100(FunctionOpInterface func,
                               const SM100RoleOptions &options);

/// The same for attention tile programs (Q loaded before the main loop),
/// with the ring shortened until Q, the ring, the row vectors and the
/// staging of the outputs fit in shared memory
/// (PartitionAttentionSM100.cpp).
LogicalResult assignAttentionRolesSM100(FunctionOpInterface func,
                                        const SM100RoleOptions &options);

/// Splits the tile program of `func` (layouts assigned for sm100, roles
/// assigned by assignRolesSM100) into a load warp, an MMA warp and one
/// epilogue warpgroup per accumulator, with a double-buffered tensor-memory
/// accumulator channel between the MMA warp and the epilogues.
LogicalResult partitionRolesSM100(FunctionOpInterface func);

/// The same for attention tile programs: a load warp, an MMA warp and an
/// epilogue warp, a correction warpgroup and one softmax warpgroup per
/// consumer, with S, P over S, and O in tensor memory
/// (PartitionAttentionSM100.cpp).
LogicalResult partitionAttentionSM100(FunctionOpInterface func);

/// The roles of `func` (its `ws.roles`), after checking that they are the
/// `expected` roles, by name, in order (the sm100 builders make their roles
/// themselves).
FailureOr<SmallVector<RoleSpecAttr>> rolesNamed(FunctionOpInterface func,
                                                ArrayRef<std::string> expected);

} // namespace ws
} // namespace mlir

#endif // FMHA_LIB_DIALECT_WS_TRANSFORMS_PARTITIONROLESSM100_H
