//===- TargetInfo.cpp - What fmha knows of the GPU it compiles for --------===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#include "fmha/Target/TargetInfo.h"
#include "fmha/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::fmha;

/// The chip of each `Arch`, in its order.
static constexpr StringLiteral kChips[] = {"sm_90a", "sm_100a"};

std::optional<TargetInfo> TargetInfo::fromChip(StringRef chip) {
  for (TargetInfo info : getAll())
    if (info.getChip() == chip)
      return info;
  return std::nullopt;
}

SmallVector<TargetInfo, 2> TargetInfo::getAll() {
  return {TargetInfo(Arch::Sm90a), TargetInfo(Arch::Sm100a)};
}

StringRef TargetInfo::getChip() const {
  return kChips[static_cast<unsigned>(arch)];
}

FailureOr<Attribute> TargetInfo::getAccumulatorLayout(RankedTensorType acc,
                                                      Operation *where) const {
  int64_t m = acc.getShape()[0], n = acc.getShape()[1];
  bool validN = n % limits::kMmaNGranularity == 0 && n <= limits::kMaxMmaN;
  if (hasTensorMemory()) {
    // 64-row accumulators (lanes 0-15 of each quarter) have no register
    // layout for their readers yet.
    if (m % getMmaM() != 0 || !validN)
      return where->emitOpError("an sm100 accumulator tile is a multiple of "
                                "128 rows and 8 to 256 columns in steps of 8 "
                                "(64-row accumulators are not supported yet), "
                                "got ")
             << m << "x" << n;
    return Attribute(tile::TmemAttr::get(where->getContext(), getMmaM(), n,
                                         /*unpacked=*/true));
  }
  if (m % getMmaM() != 0 || !validN)
    return where->emitOpError("an sm90 accumulator tile is a multiple of 64 "
                              "rows and 8 to 256 columns in steps of 8, got ")
           << m << "x" << n;
  return Attribute(tile::WgmmaAccAttr::get(where->getContext(), n,
                                           /*warpgroups=*/1));
}

/// The `#nvvm.target` of the closest `gpu.module` around `op` (or `op`).
static NVVM::NVVMTargetAttr moduleTarget(Operation *op) {
  auto module = dyn_cast<gpu::GPUModuleOp>(op);
  if (!module)
    module = op->getParentOfType<gpu::GPUModuleOp>();
  ArrayAttr targets = module ? module.getTargetsAttr() : ArrayAttr();
  if (!targets)
    return {};
  for (Attribute target : targets)
    if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target))
      return nvvm;
  return {};
}

FailureOr<TargetInfo> TargetInfo::lookup(Operation *op, StringRef pass) {
  NVVM::NVVMTargetAttr nvvm = moduleTarget(op);
  if (!nvvm)
    return op->emitError()
           << pass << ": no target: put the kernel in a gpu.module with an "
           << "#nvvm.target (gpu.module @kernels [#nvvm.target<chip = "
              "\"sm_90a\">], or chip = \"sm_100a\"; --nvvm-attach-target "
              "attaches one to every gpu.module)";
  std::optional<TargetInfo> info = fromChip(nvvm.getChip());
  if (!info)
    return op->emitError() << pass << ": the gpu.module's target chip '"
                           << nvvm.getChip()
                           << "' is not one fmha compiles for (sm_90a, "
                              "sm_100a)";
  return *info;
}
