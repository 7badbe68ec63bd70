//===- Pipelines.cpp - fmha's named pass pipelines -----------------------===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#include "fmha/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

LogicalResult fmha::buildSM90Pipeline(OpPassManager &pm,
                                      const PipelineOptions &options) {
  std::string pipeline =
      llvm::formatv("fmha-expand-kernels,"
                    "tile-assign-layouts{{target=sm90},"
                    "ws-partition-roles,"
                    "ws-verify-protocol,"
                    "ws-insert-mbarriers,"
                    "ws-verify-phases,"
                    "ws-allocate-smem,"
                    "ws-allocate-registers,"
                    "convert-ws-to-nvvm{{wait-timeout={0}},"
                    "convert-nvvm-to-llvm,"
                    "reconcile-unrealized-casts",
                    unsigned(options.waitTimeout))
          .str();
  if (options.binary != BinaryFormat::None)
    pipeline +=
        llvm::formatv(",gpu-module-to-binary{{format={0} toolkit={1}}",
                      options.binary == BinaryFormat::Isa ? "isa" : "bin",
                      std::string(options.toolkit))
            .str();
  return parsePassPipeline(pipeline, pm);
}

void fmha::registerFMHAPipelines() {
  // Once only: unlike a pass, a pipeline registered twice is a fatal error,
  // and embedders (the C API among them) may register fmha's passes again.
  static const bool registered = [] {
    PassPipelineRegistration<PipelineOptions>(
        "fmha-sm90-pipeline",
        "Compile fmha ops to warp-specialized sm_90a kernels (PTX by default)",
        [](OpPassManager &pm, const PipelineOptions &options) {
          // The pipeline text is fixed and the options are checked when they
          // are parsed, so building cannot fail.
          (void)buildSM90Pipeline(pm, options);
        });
    return true;
  }();
  (void)registered;
}
