//===- StageInHeldSlots.h - Epilogue staging in channel slots ---*- C++ -*-===//
//
// Part of fmha. Used by ws-partition-roles.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_DIALECT_WS_TRANSFORMS_STAGEINHELDSLOTS_H
#define LIB_DIALECT_WS_TRANSFORMS_STAGEINHELDSLOTS_H

#include "fmha/Dialect/WS/IR/WSDialect.h"

namespace mlir {
namespace ws {

/// Lets the epilogue of each consumer role of `op` stage its TMA stores in a
/// buffer of the slot of `channel` that it holds, instead of a staging buffer
/// of its own, where that is safe: the role keeps the slot until its last
/// TMA store has read the buffer, nothing reads the buffer after the role's
/// own reads (which end before the staging starts), and no other role reads
/// or stages in it at all. Staging buffers no role uses any more are erased.
/// Attention's O tiles go into the buffers of their Q tiles this way.
void stageInHeldSlots(WarpSpecializeOp op, Value channel);

} // namespace ws
} // namespace mlir

#endif // LIB_DIALECT_WS_TRANSFORMS_STAGEINHELDSLOTS_H
