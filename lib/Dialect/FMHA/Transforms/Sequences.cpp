//===- Sequences.cpp - The sequences of a varlen batch --------------------===//
//
// Part of fmha. What the varlen kernels of fmha-expand-kernels (the forward
// and the backward) share: the rows of one sequence read from the
// cu_seqlens, clamped so that wrong values cannot move a load or a store
// outside the packed tensors, and views of a packed buffer that stop at the
// sequence's end.
//
//===----------------------------------------------------------------------===//

#include "Expand.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::fmha;

SequenceBounds fmha::loadSequenceBounds(OpBuilder &b, Location loc, Value cuQ,
                                        Value cuK, Value batchCount, Value seq,
                                        Value totalQ, Value totalK) {
  Type index = b.getIndexType(), i32 = b.getI32Type();
  auto toI32 = [&](Value x) -> Value {
    return arith::IndexCastOp::create(b, loc, i32, x);
  };
  auto minI = [&](Value x, Value y) -> Value {
    return arith::MinSIOp::create(b, loc, x, y);
  };
  auto maxI = [&](Value x, Value y) -> Value {
    return arith::MaxSIOp::create(b, loc, x, y);
  };
  Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
  Value one = arith::ConstantIntOp::create(b, loc, i32, 1);
  // Entries the cu_seqlens have (at least one, which the caller checks):
  // reads stay inside them, and sequences past either's end do not exist.
  auto lastEntry = [&](Value cu) -> Value {
    Value entries = toI32(memref::DimOp::create(
        b, loc, cu, arith::ConstantIndexOp::create(b, loc, 0)));
    return arith::SubIOp::create(b, loc, entries, one);
  };
  Value lastQ = lastEntry(cuQ), lastK = lastEntry(cuK);
  Value sequences = minI(batchCount, minI(lastQ, lastK));
  // Sequence `seq` of the packed tensor: rows cu[seq] to cu[seq + 1],
  // clamped to [0, total] and to a non-negative length.
  auto bounds = [&](Value cu, Value last, Value total) {
    auto entry = [&](Value i) -> Value {
      Value at = arith::IndexCastOp::create(b, loc, index, minI(i, last));
      return memref::LoadOp::create(b, loc, cu, ValueRange{at});
    };
    Value start = maxI(minI(entry(seq), total), zero);
    Value end = maxI(
        minI(entry(arith::AddIOp::create(b, loc, seq, one)), total), start);
    return std::make_pair(
        start, arith::SubIOp::create(b, loc, end, start).getResult());
  };
  SequenceBounds result;
  std::tie(result.qRow0, result.seqQ) = bounds(cuQ, lastQ, totalQ);
  std::tie(result.kRow0, result.seqK) = bounds(cuK, lastK, totalK);
  result.exists =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, seq, sequences);
  return result;
}

Value fmha::sequenceView(OpBuilder &b, Location loc, Value buffer, Value heads,
                         Value first, Value rows, Value total) {
  auto type = cast<MemRefType>(buffer.getType());
  Type index = b.getIndexType();
  auto toIndex = [&](Value x) -> OpFoldResult {
    return arith::IndexCastOp::create(b, loc, index, x).getResult();
  };
  OpFoldResult headsIndex = toIndex(heads), rowsIndex = toIndex(rows),
               firstIndex = toIndex(first);
  SmallVector<OpFoldResult> sizes, strides;
  OpFoldResult offset;
  if (type.getRank() == 3) {
    // [total, heads, head_dim] -> [heads, rows, head_dim] at row `first`.
    int64_t headDim = type.getDimSize(2);
    Value rowStride =
        arith::MulIOp::create(b, loc, cast<Value>(headsIndex),
                              arith::ConstantIndexOp::create(b, loc, headDim));
    offset = arith::MulIOp::create(b, loc, cast<Value>(firstIndex), rowStride)
                 .getResult();
    sizes = {headsIndex, rowsIndex, b.getIndexAttr(headDim)};
    strides = {b.getIndexAttr(headDim), rowStride, b.getIndexAttr(1)};
  } else {
    // lse: [heads, total] -> [heads, rows] at column `first`.
    offset = firstIndex;
    sizes = {headsIndex, rowsIndex};
    strides = {toIndex(total), b.getIndexAttr(1)};
  }
  SmallVector<int64_t> staticSizes, staticStrides;
  for (OpFoldResult size : sizes)
    staticSizes.push_back(
        getConstantIntValue(size).value_or(ShapedType::kDynamic));
  for (OpFoldResult stride : strides)
    staticStrides.push_back(
        getConstantIntValue(stride).value_or(ShapedType::kDynamic));
  auto viewType =
      MemRefType::get(staticSizes, type.getElementType(),
                      StridedLayoutAttr::get(
                          b.getContext(), ShapedType::kDynamic, staticStrides),
                      type.getMemorySpace());
  return memref::ReinterpretCastOp::create(b, loc, viewType, buffer, offset,
                                           sizes, strides);
}
