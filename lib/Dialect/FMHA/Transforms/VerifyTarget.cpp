//===- VerifyTarget.cpp - A module's kernels against a pipeline's target --===//
//
// Part of fmha. Implements fmha-verify-target, the first pass of the
// pipelines: a kernel for the other target, or one without a target, is an
// error that names the pipeline to use or how to attach a target, before
// any lowering fails on it deep down.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/FMHA/IR/FMHADialect.h"
#include "fmha/Dialect/FMHA/Transforms/Passes.h"
#include "fmha/Dialect/Tile/IR/TileDialect.h"
#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_FMHAVERIFYTARGET
#include "fmha/Dialect/FMHA/Transforms/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::fmha;

namespace {
/// What a pipeline compiles for.
struct PipelineTarget {
  /// The fmha ops' target.
  Target target;
  /// The chip of #nvvm.target.
  StringRef chip;
  /// The pipeline's flag.
  StringRef flag;
};

constexpr StringLiteral kSm90Flag = "--fmha-sm90-pipeline";
constexpr StringLiteral kSm100Flag = "--fmha-sm100-pipeline";

PipelineTarget getPipelineTarget(Target target) {
  if (target == Target::Sm100a)
    return {target, stringifyTarget(target), kSm100Flag};
  return {target, stringifyTarget(target), kSm90Flag};
}
} // namespace

/// The pipeline for `chip`, or "" when fmha has none.
static StringRef flagForChip(StringRef chip) {
  if (chip == stringifyTarget(Target::Sm90a))
    return kSm90Flag;
  if (chip == stringifyTarget(Target::Sm100a))
    return kSm100Flag;
  return "";
}

/// The target a layout (a tensor's encoding) or a memory space belongs to,
/// if only one target has it.
static std::optional<Target> targetOfAttr(Attribute attr) {
  if (auto slice = dyn_cast_or_null<tile::SliceAttr>(attr))
    return targetOfAttr(slice.getParent());
  if (isa_and_nonnull<tile::WgmmaAccAttr>(attr))
    return Target::Sm90a;
  if (isa_and_nonnull<tile::TmemAttr, tile::Tmem32x32bAttr,
                      ws::TensorMemoryAttr>(attr))
    return Target::Sm100a;
  return std::nullopt;
}

/// The target only which `type` exists on, if any.
static std::optional<Target> targetOfType(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return targetOfAttr(tensor.getEncoding());
  if (auto memref = dyn_cast<MemRefType>(type))
    return targetOfAttr(memref.getMemorySpace());
  if (auto channel = dyn_cast<ws::ChannelType>(type))
    return channel.isTensorMemory() ? std::optional(Target::Sm100a)
                                    : std::nullopt;
  return std::nullopt;
}

/// The target only which `op` exists on, if any, and why.
static std::optional<std::pair<Target, std::string>>
targetOfOp(Operation *op) {
  if (isa<ws::TCGen05MMAOp, ws::TMEMAllocOp, ws::TMEMBufferOp,
          ws::TMEMRelinquishOp, ws::TMEMDeallocOp, ws::StoreTMEMOp>(op))
    return std::pair(Target::Sm100a,
                     std::string("is a tcgen05/tensor-memory operation"));
  for (StringRef mode : {ws::WSDialect::CtaPairAttrHelper::getNameStr(),
                         ws::WSDialect::MulticastAttrHelper::getNameStr()})
    if (op->hasAttr(mode))
      return std::pair(Target::Sm100a,
                       ("is a kernel in clusters ('" + mode + "')").str());
  for (TypeRange types : {TypeRange(op->getOperandTypes()),
                          TypeRange(op->getResultTypes())})
    for (Type type : types)
      if (std::optional<Target> target = targetOfType(type)) {
        std::string why;
        llvm::raw_string_ostream os(why);
        os << "uses " << type;
        return std::pair(*target, why);
      }
  return std::nullopt;
}

/// Checks the fmha ops of `module` against `pipeline`.
static LogicalResult verifyKernelOps(ModuleOp module,
                                     const PipelineTarget &pipeline) {
  bool ok = true;
  auto check = [&](Operation *op, Target target) {
    if (target == pipeline.target)
      return;
    op->emitOpError() << "targets " << stringifyTarget(target)
                      << ", but this is the " << pipeline.chip
                      << " pipeline: compile it with "
                      << getPipelineTarget(target).flag;
    ok = false;
  };
  module.walk([&](AttentionOp op) { check(op, op.getTarget()); });
  module.walk([&](GemmOp op) { check(op, op.getTarget()); });
  return success(ok);
}

/// Checks the targets of `gpuModule` and the ops of its kernels against
/// `pipeline`.
static LogicalResult verifyGpuModule(gpu::GPUModuleOp gpuModule,
                                     const PipelineTarget &pipeline) {
  bool hasKernelOps = false;
  gpuModule.walk([&](Operation *op) {
    hasKernelOps |= isa<tile::TileDialect, ws::WSDialect>(op->getDialect());
  });
  SmallVector<NVVM::NVVMTargetAttr> targets;
  if (ArrayAttr attrs = gpuModule.getTargetsAttr())
    for (Attribute attr : attrs)
      if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(attr))
        targets.push_back(nvvm);
  if (targets.empty()) {
    if (!hasKernelOps)
      return success();
    return gpuModule.emitOpError()
           << "has no target: attach one with --nvvm-attach-target=\"module="
           << gpuModule.getName() << " chip=" << pipeline.chip
           << " features=+ptx86\" before the pipeline, or give it the "
              "attribute `targets = [#nvvm.target<chip = \""
           << pipeline.chip << "\", features = \"+ptx86\">]`";
  }
  for (NVVM::NVVMTargetAttr target : targets) {
    if (target.getChip() == pipeline.chip)
      continue;
    InFlightDiagnostic diag = gpuModule.emitOpError()
                              << "targets chip " << target.getChip()
                              << ", but this is the " << pipeline.chip
                              << " pipeline: ";
    StringRef flag = flagForChip(target.getChip());
    if (flag.empty())
      return diag << "fmha compiles for " << stringifyTarget(Target::Sm90a)
                  << " (" << kSm90Flag << ") and "
                  << stringifyTarget(Target::Sm100a) << " (" << kSm100Flag
                  << ")";
    return diag << "compile it with " << flag;
  }
  WalkResult walk = gpuModule.walk([&](Operation *op) {
    std::optional<std::pair<Target, std::string>> only = targetOfOp(op);
    if (!only || only->first == pipeline.target)
      return WalkResult::advance();
    op->emitOpError() << only->second << ", which only "
                      << stringifyTarget(only->first) << " has, but this is "
                      << "the " << pipeline.chip << " pipeline: compile it "
                      << "with " << getPipelineTarget(only->first).flag
                      << " (and chip " << stringifyTarget(only->first) << ")";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

namespace {
struct FMHAVerifyTargetPass
    : public fmha::impl::FMHAVerifyTargetBase<FMHAVerifyTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (target != "sm90" && target != "sm100") {
      module.emitError("fmha-verify-target: unknown target '")
          << target << "' (known: sm90, sm100)";
      return signalPassFailure();
    }
    PipelineTarget pipeline = getPipelineTarget(
        target == "sm100" ? Target::Sm100a : Target::Sm90a);
    bool ok = succeeded(verifyKernelOps(module, pipeline));
    module.walk([&](gpu::GPUModuleOp gpuModule) {
      ok &= succeeded(verifyGpuModule(gpuModule, pipeline));
    });
    markAllAnalysesPreserved();
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
