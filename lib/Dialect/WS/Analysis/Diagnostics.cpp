//===- CheckerUtils.cpp - Shared pieces of the ws protocol checkers -------===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#include "CheckerUtils.h"

#include "fmha/Dialect/WS/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::ws;

std::string ws::describeLoc(Location loc) {
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    return (Twine(file.getLine()) + ":" + Twine(file.getColumn())).str();
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

std::string ws::plural(int64_t n, StringRef word) {
  return (Twine(n) + " " + word + (n == 1 ? "" : "s")).str();
}

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
