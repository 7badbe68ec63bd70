//===- WSDialect.h - The ws dialect ----------------------------*- C++ -*-===//
//
// Part of fmha. Declares the ws dialect, its attributes, types and ops.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_DIALECT_WS_IR_WSDIALECT_H
#define FMHA_DIALECT_WS_IR_WSDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "fmha/Dialect/Tile/IR/TileDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"

#include "fmha/Dialect/WS/IR/WSDialect.h.inc"
#include "fmha/Dialect/WS/IR/WSInterfaces.h.inc"

namespace mlir {
namespace ws {
/// Names of discardable attributes (WSDialect.td, `discardableAttrs`) for
/// code that still spells them as constants: aliases of the generated
/// helpers' names. New code uses the helpers (`WSDialect::*AttrHelper`).
inline constexpr StringLiteral kCtaPairAttrName =
    WSDialect::CtaPairAttrHelper::getNameStr();
inline constexpr StringLiteral kMulticastAttrName =
    WSDialect::MulticastAttrHelper::getNameStr();
inline constexpr StringLiteral kHangReportAttrName =
    WSDialect::HangReportAttrHelper::getNameStr();
inline constexpr StringLiteral kWaitTimeoutAttrName =
    WSDialect::WaitTimeoutAttrHelper::getNameStr();
} // namespace ws
} // namespace mlir
#include "fmha/Dialect/WS/IR/WSEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "fmha/Dialect/WS/IR/WSAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "fmha/Dialect/WS/IR/WSTypes.h.inc"

#define GET_OP_CLASSES
#include "fmha/Dialect/WS/IR/WSOps.h.inc"

#endif // FMHA_DIALECT_WS_IR_WSDIALECT_H
