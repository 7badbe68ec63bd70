//===- Pipelines.cpp - fmha's named pass pipelines -----------------------===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#include "fmha/Pipelines/Pipelines.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

/// One chain for every target: each pass reads the target of the kernel it
/// works on from the kernel's gpu.module (#nvvm.target, fmha::TargetInfo),
/// and passes a target has nothing for leave its kernels alone
/// (ws-chunk-row-stores and ws-allocate-tmem without tensor memory). fmha-verify-target checks each
/// kernel against its target first. The ws passes rewrite the kernels down
/// to what convert-ws-to-nvvm converts; the kernels' structured control
/// flow becomes branches (convert-scf-to-cf, in each gpu.module only) just
/// before it.
LogicalResult fmha::buildPipeline(OpPassManager &pm,
                                  const PipelineOptions &options) {
  std::string hangReports =
      options.waitTimeout == 0
          ? std::string()
          : llvm::formatv("ws-insert-hang-reports{{wait-timeout={0}},",
                          unsigned(options.waitTimeout))
                .str();
  std::string pipeline =
      llvm::formatv("fmha-verify-target,"
                    "fmha-expand-kernels,"
                    "tile-assign-layouts,"
                    "ws-assign-roles,"
                    "ws-partition-roles,"
                    "ws-chunk-row-stores,"
                    "ws-schedule-ping-pong,"
                    "ws-stage-in-held-slots,"
                    "ws-verify-protocol,"
                    "ws-insert-mbarriers,"
                    "ws-verify-phases,"
                    "ws-allocate-tmem,"
                    "ws-allocate-smem,"
                    "ws-allocate-registers,"
                    "{0}"
                    "ws-lower-roles{{replica-roles={1}},"
                    "ws-lower-cta-pairs,"
                    "gpu.module(convert-scf-to-cf),"
                    "convert-ws-to-nvvm,"
                    "convert-nvvm-to-llvm,"
                    "reconcile-unrealized-casts",
                    hangReports, options.replicaRoles ? "true" : "false")
          .str();
  if (options.binary != fmha::BinaryFormat::None)
    pipeline +=
        llvm::formatv(",fmha-module-to-binary{{format={0} toolkit={1}}",
                      options.binary == fmha::BinaryFormat::Isa ? "isa" : "bin",
                      std::string(options.toolkit))
            .str();
  return parsePassPipeline(pipeline, pm);
}

/// Splits an option string into `name=value` items at spaces outside
/// quotes and braces.
static SmallVector<StringRef> splitOptions(StringRef text) {
  SmallVector<StringRef> items;
  size_t start = 0, depth = 0;
  char quote = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : ' ';
    if (quote) {
      quote = c == quote ? 0 : quote;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}' && depth > 0) {
      --depth;
    } else if (c == ' ' && depth == 0) {
      if (i > start)
        items.push_back(text.slice(start, i));
      start = i + 1;
    }
  }
  return items;
}

/// Checks the value of option `name`, what the option's own parser would
/// report to stderr. Names not listed pass (parseFromString reports those).
static LogicalResult checkOptionValue(StringRef name, StringRef value,
                                      llvm::raw_ostream &errors) {
  if (name == "binary" && !llvm::is_contained({"none", "isa", "bin"}, value)) {
    errors << "option 'binary' takes none, isa or bin, got '" << value
           << "'\n";
    return failure();
  }
  unsigned number;
  if (name == "wait-timeout" && value.getAsInteger(0, number)) {
    errors << "option 'wait-timeout' takes a number of microseconds (an "
              "unsigned integer), got '"
           << value << "'\n";
    return failure();
  }
  if (name == "replica-roles" &&
      !llvm::is_contained({"true", "false", "1", "0", "TRUE", "FALSE", "True",
                           "False"},
                          value)) {
    errors << "option 'replica-roles' takes true or false, got '" << value
           << "'\n";
    return failure();
  }
  return success();
}

LogicalResult fmha::parsePipelineOptions(StringRef text,
                                         PipelineOptions &options,
                                         llvm::raw_ostream &errors) {
  for (StringRef item : splitOptions(text)) {
    auto [name, value] = item.split('=');
    if (failed(checkOptionValue(name.trim(), value.trim(), errors)))
      return failure();
  }
  if (succeeded(options.parseFromString(text, errors)))
    return success();
  errors << "invalid pipeline options '" << text
         << "' (options: binary=none|isa|bin, toolkit=PATH, "
            "wait-timeout=MICROSECONDS, replica-roles=true|false)\n";
  return failure();
}

void fmha::registerFMHAPipelines() {
  // Once only: unlike a pass, a pipeline registered twice is a fatal error,
  // and embedders (the C API among them) may register fmha's passes again.
  static const bool registered = [] {
    // The pipeline text is fixed and the options are checked when they are
    // parsed, so building cannot fail.
    auto build = [](OpPassManager &pm, const PipelineOptions &options) {
      (void)buildPipeline(pm, options);
    };
    PassPipelineRegistration<PipelineOptions>(
        "fmha-pipeline",
        "Compile fmha ops to warp-specialized kernels (PTX by default) for "
        "the target each kernel names (sm_90a: wgmma; sm_100a: tcgen05.mma "
        "into tensor memory)",
        build);
    // The names of the pipeline from when each target had its own.
    PassPipelineRegistration<PipelineOptions>(
        "fmha-sm90-pipeline",
        "--fmha-pipeline, under the name it had for sm_90a kernels", build);
    PassPipelineRegistration<PipelineOptions>(
        "fmha-sm100-pipeline",
        "--fmha-pipeline, under the name it had for sm_100a kernels", build);
    return true;
  }();
  (void)registered;
}
