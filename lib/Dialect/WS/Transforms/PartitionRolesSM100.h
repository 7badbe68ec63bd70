//===- PartitionRolesSM100.h - Warp roles for Blackwell ----------*- C++
//-*-===//
//
// Part of fmha. The sm100 half of ws-partition-roles.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_LIB_DIALECT_WS_TRANSFORMS_PARTITIONROLESSM100_H
#define FMHA_LIB_DIALECT_WS_TRANSFORMS_PARTITIONROLESSM100_H

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir {
namespace ws {

/// Register budgets and ring depths of the sm100 roles.
struct SM100RoleOptions {
  unsigned stages;
  unsigned loadRegs;
  unsigned epilogueRegs;
};

/// Splits the tile program of `func` (layouts assigned for sm100) into a
/// load warp, an MMA warp and one epilogue warpgroup per accumulator, with
/// a double-buffered tensor-memory accumulator channel between the MMA warp
/// and the epilogues.
LogicalResult partitionRolesSM100(FunctionOpInterface func,
                                  const SM100RoleOptions &options);

/// The same for attention tile programs (Q loaded before the main loop):
/// a load warp, an MMA warp and one softmax warpgroup per consumer, with S,
/// P over S, and O in tensor memory (PartitionAttentionSM100.cpp).
LogicalResult partitionAttentionSM100(FunctionOpInterface func,
                                      const SM100RoleOptions &options);

} // namespace ws
} // namespace mlir

#endif // FMHA_LIB_DIALECT_WS_TRANSFORMS_PARTITIONROLESSM100_H
