//===- Pipelines.cpp - fmha's named pass pipelines -----------------------===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#include "fmha/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

/// The chain shared by the targets: they differ in layouts, roles and the
/// tensor-memory allocation, nothing else.
static LogicalResult buildPipeline(OpPassManager &pm,
                                   const fmha::PipelineOptions &options,
                                   StringRef target) {
  bool sm100 = target == "sm100";
  std::string pipeline =
      llvm::formatv("fmha-expand-kernels,"
                    "tile-assign-layouts{{target={1}},"
                    "ws-partition-roles{{target={1}},"
                    "ws-verify-protocol,"
                    "ws-insert-mbarriers,"
                    "ws-verify-phases,"
                    "{2}"
                    "ws-allocate-smem,"
                    "ws-allocate-registers,"
                    "convert-ws-to-nvvm{{wait-timeout={0} replica-roles={3}},"
                    "convert-nvvm-to-llvm,"
                    "reconcile-unrealized-casts",
                    unsigned(options.waitTimeout), target,
                    sm100 ? "ws-allocate-tmem," : "",
                    options.replicaRoles ? "true" : "false")
          .str();
  if (options.binary != fmha::BinaryFormat::None)
    pipeline +=
        llvm::formatv(",gpu-module-to-binary{{format={0} toolkit={1}}",
                      options.binary == fmha::BinaryFormat::Isa ? "isa" : "bin",
                      std::string(options.toolkit))
            .str();
  return parsePassPipeline(pipeline, pm);
}

LogicalResult fmha::buildSM90Pipeline(OpPassManager &pm,
                                      const PipelineOptions &options) {
  return buildPipeline(pm, options, "sm90");
}

LogicalResult fmha::buildSM100Pipeline(OpPassManager &pm,
                                       const PipelineOptions &options) {
  return buildPipeline(pm, options, "sm100");
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
    PassPipelineRegistration<PipelineOptions>(
        "fmha-sm100-pipeline",
        "Compile fmha ops to warp-specialized sm_100a kernels (PTX by "
        "default): tcgen05.mma into tensor memory",
        [](OpPassManager &pm, const PipelineOptions &options) {
          // As above: fixed text, options checked when parsed.
          (void)buildSM100Pipeline(pm, options);
        });
    return true;
  }();
  (void)registered;
}
