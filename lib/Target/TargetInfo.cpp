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

StringRef TargetInfo::getShortName() const {
  return arch == Arch::Sm90a ? "sm90" : "sm100";
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

FailureOr<TargetInfo> TargetInfo::lookup(Operation *op, StringRef option,
                                         StringRef pass) {
  std::optional<TargetInfo> fromOption;
  if (!option.empty()) {
    if (option == "sm90")
      fromOption = TargetInfo(Arch::Sm90a);
    else if (option == "sm100")
      fromOption = TargetInfo(Arch::Sm100a);
    else
      return op->emitError() << pass << ": unknown target '" << option
                             << "' (known: sm90, sm100)";
  }
  NVVM::NVVMTargetAttr nvvm = moduleTarget(op);
  if (!nvvm) {
    if (fromOption)
      return *fromOption;
    return op->emitError()
           << pass << ": no target: put the kernel in a gpu.module with an "
           << "#nvvm.target (gpu.module @kernels [#nvvm.target<chip = "
              "\"sm_90a\">] or chip = \"sm_100a\"), or pass the option "
           << "target=sm90 or target=sm100";
  }
  std::optional<TargetInfo> fromModule = fromChip(nvvm.getChip());
  if (!fromModule)
    return op->emitError() << pass << ": the gpu.module's target chip '"
                           << nvvm.getChip()
                           << "' is not one fmha compiles for (sm_90a, "
                              "sm_100a)";
  if (fromOption && fromOption->getArch() != fromModule->getArch())
    return op->emitError() << pass
                           << ": option target=" << fromOption->getShortName()
                           << " contradicts the gpu.module's target chip '"
                           << nvvm.getChip() << "' (drop the option)";
  return *fromModule;
}
