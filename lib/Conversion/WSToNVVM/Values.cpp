//===- Values.cpp - Small values the WS-to-NVVM patterns build ------------===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#include "Values.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

Value ws::i32Const(OpBuilder &b, Location loc, int64_t value) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(), value);
}

Value ws::i64Const(OpBuilder &b, Location loc, int64_t value) {
  return LLVM::ConstantOp::create(b, loc, b.getI64Type(), value);
}

Value ws::barrierAt(OpBuilder &b, Location loc, Value barriers, Value index) {
  return LLVM::GEPOp::create(b, loc, barriers.getType(), b.getI64Type(),
                             barriers, ValueRange{index});
}
