//===- FMHADialect.h - The fmha dialect ----------------------------*- C++
//-*-===//
//
// Part of fmha. Declares the fmha dialect, its attributes, types and ops.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_DIALECT_FMHA_IR_FMHADIALECT_H
#define FMHA_DIALECT_FMHA_IR_FMHADIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "fmha/Target/KernelResources.h"
#include "fmha/Target/TargetInfo.h"

#include <optional>

#include "fmha/Dialect/FMHA/IR/FMHADialect.h.inc"
#include "fmha/Dialect/FMHA/IR/FMHAEnums.h.inc"

namespace mlir {
namespace fmha {
/// What fmha knows of the target an op names (its `target` attribute).
inline TargetInfo getTargetInfo(Target target) {
  // Every case of the enum is a chip TargetInfo knows.
  return *TargetInfo::fromChip(stringifyTarget(target));
}

/// Checks `attr` when it is part of a kernel's launch contract
/// (`fmha.tensors`, `fmha.params`, `fmha.grid`): the form of each entry.
/// Other attributes pass.
LogicalResult verifyLaunchAttr(NamedAttribute attr,
                               function_ref<InFlightDiagnostic()> emitError);
} // namespace fmha
} // namespace mlir

#define GET_ATTRDEF_CLASSES
#include "fmha/Dialect/FMHA/IR/FMHAAttrs.h.inc"

#define GET_OP_CLASSES
#include "fmha/Dialect/FMHA/IR/FMHAOps.h.inc"

#endif // FMHA_DIALECT_FMHA_IR_FMHADIALECT_H
