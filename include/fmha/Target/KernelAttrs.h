//===- KernelAttrs.h - Attributes of tile-level kernels ---------*- C++ -*-===//
//
// Part of fmha. `fmha-expand-kernels` hands an fmha op's configuration to the
// later passes as discardable attributes of the kernel it builds: the
// pipeline depth (`fmha.stages`), the Q ring's slots (`fmha.item_slots`),
// the consumers' register need (`fmha.consumer_registers`) and whether
// wgmma descriptors are computed at their use (`fmha.descriptors_at_use`),
// declared in
// FMHADialect.td
// (`discardableAttrs`, whose generated helpers the fmha side uses; ws, which
// includes no fmha header, reads the names below). The fmha dialect verifies
// them wherever they appear, and the passes that read them check them again
// with the same function (the dialect need not be loaded to parse a
// tile-level kernel), so a hand-written value out of range is an error naming
// the attribute and its range, never a channel the ws dialect rejects.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_TARGET_KERNELATTRS_H
#define FMHA_TARGET_KERNELATTRS_H

#include "fmha/Target/TargetLimits.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LLVM.h"

namespace mlir {
namespace fmha {

/// The pipeline stages of a kernel's streamed operands (an integer).
constexpr StringLiteral kStagesAttrName = "fmha.stages";
/// The slots of a ring filled once per work item (an integer).
constexpr StringLiteral kItemSlotsAttrName = "fmha.item_slots";

/// Registers per thread the kernel's register-computing warpgroups need, the
/// op's estimate (an integer): `ws-assign-roles` asks the target for the
/// register split that covers it (fmha::TargetInfo::getConsumerRegisters).
constexpr StringLiteral kConsumerRegistersAttrName = "fmha.consumer_registers";

/// Whether the lowering computes each wgmma descriptor where its wgmma is
/// issued (a unit attribute): LLVM otherwise hoists the loop-invariant
/// ones out of the main loop and keeps them in registers across it, which
/// a kernel whose registers are at the limit cannot afford (the attention
/// backward's dK/dV kernel with the fused dQ at head dim 128).
constexpr StringLiteral kDescriptorsAtUseAttrName = "fmha.descriptors_at_use";

/// Most slots of a ring filled once per work item (a persistent kernel's Q
/// tiles: this item's and the next one's).
constexpr int64_t kMaxItemSlots = 2;

/// Checks `attr` when it is one of the kernel attributes above: an integer
/// within its range, or a unit attribute. Other attributes pass.
inline LogicalResult
verifyKernelAttr(NamedAttribute attr,
                 function_ref<InFlightDiagnostic()> emitError) {
  auto checkInteger = [&](StringRef what, int64_t max) -> LogicalResult {
    auto value = dyn_cast<IntegerAttr>(attr.getValue());
    bool isInt64 = value && value.getType().isSignlessInteger() &&
                   value.getValue().getSignificantBits() <= 64;
    if (isInt64 && value.getInt() >= 1 && value.getInt() <= max)
      return success();
    InFlightDiagnostic diag = emitError();
    diag << "'" << attr.getName().getValue() << "' (" << what
         << ") must be an integer from 1 to " << max << ", got ";
    if (isInt64)
      diag << value.getInt();
    else
      diag << attr.getValue();
    return diag;
  };
  StringRef name = attr.getName().getValue();
  if (name == kStagesAttrName)
    return checkInteger("pipeline stages", limits::kMaxStages);
  if (name == kItemSlotsAttrName)
    return checkInteger("slots of the per-item ring", kMaxItemSlots);
  if (name == kConsumerRegistersAttrName)
    return checkInteger("registers per consumer thread",
                        limits::kMaxRegistersPerThread);
  if (name == kDescriptorsAtUseAttrName && !isa<UnitAttr>(attr.getValue()))
    return emitError() << "'" << name
                       << "' (wgmma descriptors computed at their use) must "
                          "be a unit attribute, got "
                       << attr.getValue();
  return success();
}

} // namespace fmha
} // namespace mlir

#endif // FMHA_TARGET_KERNELATTRS_H
