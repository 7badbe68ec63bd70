//===- ModuleToBinary.cpp - gpu-module-to-binary that fails on errors -----===//
//
// Part of fmha. Implements fmha-module-to-binary: upstream
// gpu-module-to-binary reports some errors (a toolkit that does not exist, a
// failed ptxas) without failing, so a tool exited 0 after printing them.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/FMHA/Transforms/Passes.h"

#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

#include <atomic>

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_FMHAMODULETOBINARY
#include "fmha/Dialect/FMHA/Transforms/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;

namespace {
struct FMHAModuleToBinaryPass
    : public fmha::impl::FMHAModuleToBinaryBase<FMHAModuleToBinaryPass> {
  using Base::Base;

  /// The dialects the upstream pass loads.
  void getDependentDialects(DialectRegistry &registry) const override {
    createGpuModuleToBinaryPass()->getDependentDialects(registry);
  }

  void runOnOperation() override {
    if (format != "isa" && format != "bin") {
      getOperation().emitError("fmha-module-to-binary: unknown format '")
          << format << "' (known: isa, bin)";
      return signalPassFailure();
    }
    GpuModuleToBinaryPassOptions options;
    options.compilationTarget = format;
    options.toolkitPath = toolkit;
    OpPassManager pipeline(ModuleOp::getOperationName());
    pipeline.addPass(createGpuModuleToBinaryPass(options));

    // Errors are counted on their way to the other handlers, which still
    // print them.
    std::atomic<bool> reportedError = false;
    ScopedDiagnosticHandler handler(&getContext(), [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error)
        reportedError = true;
      return failure();
    });
    if (failed(runPipeline(pipeline, getOperation())) || reportedError)
      signalPassFailure();
  }
};
} // namespace
