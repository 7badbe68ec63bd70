//===- PartitionRolesSM100.h - Warp roles for Blackwell ----------*- C++
//-*-===//
//
// Part of fmha. The sm_100a role policies of ws-assign-roles.
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

/// ws-assign-roles on sm_100a: writes the whole role assignment of a GEMM
/// tile program (layouts assigned for sm100; docs/Roles.md): a load warp,
/// an MMA warp computing every accumulator in a tensor-memory channel, one
/// epilogue warpgroup per accumulator (AssignRolesSM100.cpp). Attention
/// programs go to assignAttentionRolesSM100.
LogicalResult assignRolesSM100(FunctionOpInterface func,
                               const SM100RoleOptions &options);

/// The same for attention tile programs (Q loaded before the main loop):
/// a load, an MMA and an epilogue warp, a correction warpgroup and a
/// softmax warpgroup per consumer, with S, P over S and O in tensor memory
/// (AssignRolesAttentionSM100.cpp); the operand ring is shortened until Q,
/// the ring, the row vectors and the staging of the outputs fit in shared
/// memory.
LogicalResult assignAttentionRolesSM100(FunctionOpInterface func,
                                        const SM100RoleOptions &options);

/// Whether the tile program of `func` is attention's on sm_100a: it loads
/// Q before its main loop.
bool isAttentionSM100(FunctionOpInterface func);

} // namespace ws
} // namespace mlir

#endif // FMHA_LIB_DIALECT_WS_TRANSFORMS_PARTITIONROLESSM100_H
