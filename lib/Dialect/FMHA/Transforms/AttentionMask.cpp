//===- AttentionMask.cpp - Attention's causal and window masks ------------===//
//
// Part of fmha. The mask arithmetic that fmha.attention's and
// fmha.attention_backward's tile programs share: window sizes bounded by
// the sequence, and which keys a query's window shows, with the diagonal
// aligned bottom-right.
//
//===----------------------------------------------------------------------===//

#include "Expand.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::fmha;

Value fmha::windowSize(OpBuilder &b, Location loc, int64_t size, Value seqLen) {
  if (size == 0)
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
  Value bound = arith::ConstantIntOp::create(b, loc, b.getI32Type(), size);
  return arith::MinSIOp::create(b, loc, bound, seqLen);
}

Value fmha::maskWindow(OpBuilder &b, Location loc, Value mask, Value keys,
                       Value queries, Value seqQ, Value seqK,
                       std::optional<int64_t> left,
                       std::optional<int64_t> right) {
  auto type = cast<RankedTensorType>(keys.getType());
  auto splat = [&](Value scalar) -> Value {
    return tensor::SplatOp::create(b, loc, type, scalar);
  };
  // Query i sits at key position i + (seq_k - seq_q).
  Value shift = arith::SubIOp::create(b, loc, seqK, seqQ);
  Value diag = arith::AddIOp::create(b, loc, queries, splat(shift));
  // Keeps the keys that compare to `bound` by `predicate`.
  auto keep = [&](arith::CmpIPredicate predicate, Value bound) {
    Value kept = arith::CmpIOp::create(b, loc, predicate, keys, bound);
    mask = arith::AndIOp::create(b, loc, mask, kept);
  };
  if (right) {
    Value reach = splat(windowSize(b, loc, *right, seqQ));
    keep(arith::CmpIPredicate::sle, arith::AddIOp::create(b, loc, diag, reach));
  }
  if (left) {
    Value reach = splat(windowSize(b, loc, *left, seqK));
    keep(arith::CmpIPredicate::sge, arith::SubIOp::create(b, loc, diag, reach));
  }
  return mask;
}
