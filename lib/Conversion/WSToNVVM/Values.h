//===- Values.h - Small values the WS-to-NVVM patterns build ----*- C++ -*-===//
//
// Part of fmha. Constants and addresses that patterns of every file of
// convert-ws-to-nvvm build.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_LIB_CONVERSION_WSTONVVM_VALUES_H
#define FMHA_LIB_CONVERSION_WSTONVVM_VALUES_H

#include "mlir/IR/Builders.h"

namespace mlir {
namespace ws {

/// An i32 constant.
Value i32Const(OpBuilder &b, Location loc, int64_t value);

/// An i64 constant.
Value i64Const(OpBuilder &b, Location loc, int64_t value);

/// The address of barrier `index` of the mbarrier array at `barriers`.
Value barrierAt(OpBuilder &b, Location loc, Value barriers, Value index);

} // namespace ws
} // namespace mlir

#endif // FMHA_LIB_CONVERSION_WSTONVVM_VALUES_H
