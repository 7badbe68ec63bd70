//===- TargetInfo.cpp - What fmha knows of the GPU it compiles for --------===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#include "fmha/Target/TargetInfo.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::fmha;

std::optional<TargetInfo> TargetInfo::fromChip(StringRef chip) {
  if (chip == "sm_90a")
    return TargetInfo(Arch::Sm90a);
  if (chip == "sm_100a")
    return TargetInfo(Arch::Sm100a);
  return std::nullopt;
}

StringRef TargetInfo::getChip() const {
  return arch == Arch::Sm90a ? "sm_90a" : "sm_100a";
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
