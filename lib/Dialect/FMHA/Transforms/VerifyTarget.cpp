//===- VerifyTarget.cpp - A module's kernels against their targets --------===//
//
// Part of fmha. Implements fmha-verify-target, the first pass of the
// pipelines: a kernel without a target, for a chip fmha does not compile
// for, or using what its target does not have, is an error that says so
// (and how to attach a target), before any lowering fails on it deep down.
// The target is the kernel's own (its gpu.module's #nvvm.target), and what
// a target has is what fmha::TargetInfo answers.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/FMHA/Transforms/Passes.h"
#include "fmha/Dialect/Tile/IR/TileDialect.h"
#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Target/TargetInfo.h"

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
/// What a kernel uses that not every target has: a TargetInfo question and
/// the words for the thing used.
struct Need {
  bool (TargetInfo::*has)() const;
  std::string what;
};
} // namespace

/// The chips of the targets fmha compiles for where `has` holds (all of them
/// when `has` is null), as a list: "sm_90a, sm_100a".
static std::string chipsWith(bool (TargetInfo::*has)() const = nullptr) {
  std::string chips;
  llvm::raw_string_ostream os(chips);
  auto hasIt = [&](const TargetInfo &info) { return !has || (info.*has)(); };
  llvm::interleaveComma(llvm::make_filter_range(TargetInfo::getAll(), hasIt),
                        os,
                        [&](const TargetInfo &info) { os << info.getChip(); });
  return chips;
}

/// What a layout (a tensor's encoding) or a memory space needs, if anything.
static std::optional<Need> needOfAttr(Attribute attr) {
  if (auto slice = dyn_cast_or_null<tile::SliceAttr>(attr))
    return needOfAttr(slice.getParent());
  if (isa_and_nonnull<tile::WgmmaAccAttr>(attr))
    return Need{&TargetInfo::hasWgmma, ""};
  if (isa_and_nonnull<tile::TmemAttr, tile::Tmem32x32bAttr,
                      ws::TensorMemoryAttr>(attr))
    return Need{&TargetInfo::hasTensorMemory, ""};
  return std::nullopt;
}

/// What `type` needs, if anything.
static std::optional<Need> needOfType(Type type) {
  std::optional<Need> need;
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    need = needOfAttr(tensor.getEncoding());
  else if (auto memref = dyn_cast<MemRefType>(type))
    need = needOfAttr(memref.getMemorySpace());
  else if (auto channel = dyn_cast<ws::ChannelType>(type);
           channel && channel.isTensorMemory())
    need = Need{&TargetInfo::hasTensorMemory, ""};
  if (!need)
    return std::nullopt;
  llvm::raw_string_ostream os(need->what);
  os << "uses " << type;
  return need;
}

/// What `op` needs, if anything.
static std::optional<Need> needOfOp(Operation *op) {
  if (isa<ws::TCGen05MMAOp, ws::TMEMAllocOp, ws::TMEMBufferOp,
          ws::TMEMRelinquishOp, ws::TMEMDeallocOp, ws::StoreTMEMOp>(op))
    return Need{&TargetInfo::hasTensorMemory,
                "is a tcgen05/tensor-memory operation"};
  StringRef pair = ws::WSDialect::CtaPairAttrHelper::getNameStr();
  if (op->hasAttr(pair))
    return Need{&TargetInfo::hasCtaPairMma,
                ("is a kernel of CTA pairs ('" + pair + "')").str()};
  for (TypeRange types : {TypeRange(op->getOperandTypes()),
                          TypeRange(op->getResultTypes())})
    for (Type type : types)
      if (std::optional<Need> need = needOfType(type))
        return need;
  return std::nullopt;
}

/// Checks the targets of `gpuModule`, and the ops of its kernels against
/// them.
static LogicalResult verifyGpuModule(gpu::GPUModuleOp gpuModule) {
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
    StringRef chip = TargetInfo::getAll().front().getChip();
    return gpuModule.emitOpError()
           << "has no target: attach one with --nvvm-attach-target=\"module="
           << gpuModule.getName() << " chip=" << chip
           << " features=+ptx86\" (fmha compiles for " << chipsWith()
           << ") before the pipeline, or give it the attribute `targets = "
              "[#nvvm.target<chip = \""
           << chip << "\", features = \"+ptx86\">]`";
  }
  for (NVVM::NVVMTargetAttr target : targets) {
    if (!TargetInfo::fromChip(target.getChip()))
      return gpuModule.emitOpError()
             << "targets chip " << target.getChip()
             << ", which fmha does not compile for (it compiles for "
             << chipsWith() << ")";
    if (target.getChip() != targets.front().getChip())
      return gpuModule.emitOpError()
             << "targets chips " << targets.front().getChip() << " and "
             << target.getChip() << ": fmha compiles a kernel for one target";
  }
  TargetInfo info = *TargetInfo::fromChip(targets.front().getChip());
  WalkResult walk = gpuModule.walk([&](Operation *op) {
    std::optional<Need> need = needOfOp(op);
    if (!need || (info.*need->has)())
      return WalkResult::advance();
    op->emitOpError() << need->what << ", which " << info.getChip()
                      << " (the gpu.module's #nvvm.target) does not have: "
                         "it needs "
                      << chipsWith(need->has);
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

namespace {
struct FMHAVerifyTargetPass
    : public fmha::impl::FMHAVerifyTargetBase<FMHAVerifyTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    bool ok = true;
    getOperation().walk([&](gpu::GPUModuleOp gpuModule) {
      ok &= succeeded(verifyGpuModule(gpuModule));
    });
    markAllAnalysesPreserved();
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
