//===- CheckerPasses.cpp - The passes of the ws protocol checkers ---------===//
//
// Part of fmha. ws-verify-protocol and ws-verify-phases: each runs its check
// (Checkers.h) on every ws.warp_specialize of the operation, all of them
// even when one fails, and changes nothing but the checks' markers.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/WS/Analysis/Checkers.h"
#include "fmha/Dialect/WS/Transforms/Passes.h"

namespace mlir {
namespace ws {
#define GEN_PASS_DEF_WSVERIFYPHASES
#define GEN_PASS_DEF_WSVERIFYPROTOCOL
#include "fmha/Dialect/WS/Transforms/Passes.h.inc"
} // namespace ws
} // namespace mlir

using namespace mlir;
using namespace mlir::ws;

namespace {

/// A checker pass: `Check` on every ws.warp_specialize. `Base` is the pass's
/// generated base class.
template <typename Derived, template <typename> class Base,
          LogicalResult (*Check)(WarpSpecializeOp)>
struct CheckerPass : public Base<Derived> {
  void runOnOperation() override {
    if (failed(verifyEachKernel(this->getOperation(), Check)))
      this->signalPassFailure();
    // Only the markers changed.
    this->markAllAnalysesPreserved();
  }
};

struct WSVerifyProtocolPass
    : public CheckerPass<WSVerifyProtocolPass, ws::impl::WSVerifyProtocolBase,
                         verifyProtocol> {};

struct WSVerifyPhasesPass
    : public CheckerPass<WSVerifyPhasesPass, ws::impl::WSVerifyPhasesBase,
                         verifyPhases> {};

} // namespace

/// Runs `check` on the ws.warp_specialize ops under `root` that `select`
/// picks, all of them even when one fails.
static LogicalResult
verifySelected(Operation *root, function_ref<bool(WarpSpecializeOp)> select,
               function_ref<LogicalResult(WarpSpecializeOp)> check) {
  // Collected first: a check marks the op it passes.
  SmallVector<WarpSpecializeOp> kernels;
  root->walk([&](WarpSpecializeOp op) {
    if (select(op))
      kernels.push_back(op);
  });
  bool ok = true;
  for (WarpSpecializeOp op : kernels)
    ok &= succeeded(check(op));
  return success(ok);
}

LogicalResult
ws::verifyEachKernel(Operation *root,
                     function_ref<LogicalResult(WarpSpecializeOp)> check) {
  return verifySelected(
      root, [](WarpSpecializeOp) { return true; }, check);
}

LogicalResult
ws::verifyUnmarked(Operation *root, StringRef marker,
                   function_ref<LogicalResult(WarpSpecializeOp)> check) {
  return verifySelected(
      root, [&](WarpSpecializeOp op) { return !op->hasAttr(marker); }, check);
}
