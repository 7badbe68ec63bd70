//===- LowerRoles.h - ws.warp_specialize to per-warp branches ----*- C++
//-*-===//
//
// Part of fmha. The structural half of convert-ws-to-nvvm.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_LIB_CONVERSION_WSTONVVM_LOWERROLES_H
#define FMHA_LIB_CONVERSION_WSTONVVM_LOWERROLES_H

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir {
namespace ws {

/// Replaces each ws.warp_specialize in `func` by branches on the warp index
/// (after per-warpgroup setmaxnreg), resolves ws.thread_id, guards leader
/// operations by the role's first thread, and sets the kernel attributes
/// nvvm.maxntid and nvvm.minctasm. With `mergeReplicas`, roles that differ
/// only in values run one copy of the code (mergeReplicaRoles).
LogicalResult lowerRoles(FunctionOpInterface func, bool mergeReplicas);

} // namespace ws
} // namespace mlir

#endif // FMHA_LIB_CONVERSION_WSTONVVM_LOWERROLES_H
