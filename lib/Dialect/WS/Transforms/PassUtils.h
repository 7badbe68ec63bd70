//===- PassUtils.h - What the ws passes run the same way --------*- C++ -*-===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_LIB_DIALECT_WS_TRANSFORMS_PASSUTILS_H
#define FMHA_LIB_DIALECT_WS_TRANSFORMS_PASSUTILS_H

#include "mlir/IR/Operation.h"

namespace mlir {
namespace ws {

/// Runs `fn` on each `OpT` in `root`, on all of them even after one failed
/// (so each reports its errors); fails when one did.
template <typename OpT, typename Fn>
LogicalResult runOnEach(Operation *root, Fn &&fn) {
  bool failed = false;
  root->walk([&](OpT op) { failed |= mlir::failed(fn(op)); });
  return failure(failed);
}

} // namespace ws
} // namespace mlir

#endif // FMHA_LIB_DIALECT_WS_TRANSFORMS_PASSUTILS_H
