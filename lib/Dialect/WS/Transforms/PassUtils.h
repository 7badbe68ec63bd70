//===- PassUtils.h - What the ws passes run the same way --------*- C++ -*-===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_LIB_DIALECT_WS_TRANSFORMS_PASSUTILS_H
#define FMHA_LIB_DIALECT_WS_TRANSFORMS_PASSUTILS_H

#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

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

/// A pass that runs `Derived::runOnFunction(FunctionOpInterface)` on each
/// function of its operation, on all of them even after one failed
/// (runOnEach); the pass fails when one did. `PassBase` is the pass's
/// generated base (`impl::<Pass>Base`).
template <typename Derived, template <typename> class PassBase>
struct PerFunctionPass : PassBase<Derived> {
  using PassBase<Derived>::PassBase;

  void runOnOperation() final {
    if (failed(runOnEach<FunctionOpInterface>(
            this->getOperation(), [&](FunctionOpInterface func) {
              return static_cast<Derived *>(this)->runOnFunction(func);
            })))
      this->signalPassFailure();
  }
};

} // namespace ws
} // namespace mlir

#endif // FMHA_LIB_DIALECT_WS_TRANSFORMS_PASSUTILS_H
