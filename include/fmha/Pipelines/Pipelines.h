//===- Pipelines.h - fmha's pass pipeline -----------------------*- C++ -*-===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_PIPELINES_PIPELINES_H
#define FMHA_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
namespace fmha {

/// What a pipeline ends with.
enum class BinaryFormat { None, Isa, Bin };

/// Options of the whole-chain pipelines.
struct PipelineOptions : public PassPipelineOptions<PipelineOptions> {
  Option<BinaryFormat> binary{
      *this, "binary", llvm::cl::desc("What to end with"),
      llvm::cl::init(BinaryFormat::Isa),
      llvm::cl::values(
          clEnumValN(BinaryFormat::None, "none",
                     "LLVM/NVVM dialect, from which fmha-translate "
                     "--fmha-manifest writes the manifest"),
          clEnumValN(BinaryFormat::Isa, "isa", "PTX in a gpu.binary"),
          clEnumValN(BinaryFormat::Bin, "bin", "a cubin in a gpu.binary"))};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit whose ptxas makes cubins (binary=bin)"),
      llvm::cl::init("/usr/local/cuda")};
  Option<unsigned> waitTimeout{
      *this, "wait-timeout",
      llvm::cl::desc("Debug: a mbarrier wait that has not completed after "
                     "this many microseconds prints what it waits for and "
                     "traps (ws-insert-hang-reports{wait-timeout}; 0: off)"),
      llvm::cl::init(0)};
  Option<bool> replicaRoles{
      *this, "replica-roles",
      llvm::cl::desc("Roles that differ only in values run one copy of code "
                     "(ws-lower-roles{replica-roles})"),
      llvm::cl::init(true)};
};

/// Parses the option string `text` (as after `--fmha-pipeline=`) into
/// `options`. When it does not parse, writes why to `errors` and fails:
/// every reason goes there, also those that MLIR's option parser would
/// print to stderr (a value an option does not take).
LogicalResult parsePipelineOptions(StringRef text, PipelineOptions &options,
                                   llvm::raw_ostream &errors);

/// fmha ops to kernels for the target each names (sm_90a or sm_100a): a
/// check of each kernel against its target (fmha-verify-target), expansion,
/// layouts, roles, protocol check, rings, phase check, tensor memory (where
/// the target has it), shared memory, registers, NVVM, and PTX or a cubin
/// (fmha-module-to-binary, which fails on any error). Tile and ws kernels
/// written by hand go through it too, in a gpu.module with an #nvvm.target.
/// The pipeline names its passes, so they must be registered first
/// (fmha::registerAllFMHAPasses(), InitAllPasses.h); it fails otherwise.
LogicalResult buildPipeline(OpPassManager &pm, const PipelineOptions &options);

/// buildPipeline under the names it had when each target had its own
/// pipeline.
inline LogicalResult buildSM90Pipeline(OpPassManager &pm,
                                       const PipelineOptions &options) {
  return buildPipeline(pm, options);
}
inline LogicalResult buildSM100Pipeline(OpPassManager &pm,
                                        const PipelineOptions &options) {
  return buildPipeline(pm, options);
}

/// Registers `--fmha-pipeline`, and the same pipeline under the names it had
/// when each target had its own (`--fmha-sm90-pipeline`,
/// `--fmha-sm100-pipeline`); later calls do nothing.
void registerFMHAPipelines();

} // namespace fmha
} // namespace mlir

#endif // FMHA_PIPELINES_PIPELINES_H
