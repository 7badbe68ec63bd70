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

/// The address of the barrier an mbarrier op addresses, from the converted
/// operands of its conversion pattern (`barriers` and `index`).
template <typename Adaptor>
Value barrierOf(OpBuilder &b, Location loc, Adaptor adaptor) {
  return barrierAt(b, loc, adaptor.getBarriers(), adaptor.getIndex());
}

} // namespace ws
} // namespace mlir

#endif // FMHA_LIB_CONVERSION_WSTONVVM_VALUES_H
