//===- ExpandMergeStates.cpp - fmha.merge_states to a tile program --------===//
//
// Part of fmha. The tile program of one CTA of fmha.merge_states: a block of
// query rows of one head of one sequence, whose states it merges with plain
// loads and stores (no TMA, no MMA).
//
//===----------------------------------------------------------------------===//

#include "Expand.h"

#include "fmha/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// Builds the tile program; holds what every part of it needs.
class MergeBuilder : TileProgramBuilder {
public:
  MergeBuilder(MergeStatesOp op, OpBuilder &b)
      : TileProgramBuilder(b, op.getLoc()), op(op), rows(op.getBlockRows()),
        headDim(op.getHeadDim()), rowType(RankedTensorType::get({rows}, f32)) {}

  LogicalResult build();

private:
  /// `value` in every element of a row vector.
  Value rowsOf(double value) {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(rowType, b.getF32FloatAttr(value)));
  }
  /// `memref.dim` of `buffer` as an i32.
  Value dimI32(Value buffer, int64_t dim) {
    return arith::IndexCastOp::create(
        b, loc, i32, memref::DimOp::create(b, loc, buffer, dim));
  }
  /// State `s`'s log-sum-exp of the block's rows, in base 2 (rows past the
  /// sequence read 0; nothing stores them).
  Value loadLse2(Value s) {
    Value lse = tile::LoadDirectOp::create(b, loc, rowType, statesLse,
                                           ValueRange{s, batch, head, row0});
    return arith::MulFOp::create(b, loc, lse, rowsOf(M_LOG2E));
  }
  /// Records the launch contract (LaunchContract) on `kernel`.
  void recordLaunchContract(Operation *kernel);

  MergeStatesOp op;
  int64_t rows, headDim;
  RankedTensorType rowType;
  /// The kernel's arguments, and the block's coordinates.
  Value states, statesLse, o, lse;
  Value batch, head, row0;
};

} // namespace

void MergeBuilder::recordLaunchContract(Operation *kernel) {
  LaunchContract contract(b);
  Type element = op.getElementType();
  Attribute s = contract.size(op.getStatesType().getDimSize(0), "S"),
            batchSize = contract.size(op.getBatch(), "B"),
            seq = contract.size(op.getStatesType().getDimSize(2), "T"),
            heads = contract.size(op.getNumHeads(), "H"),
            d = contract.integer(headDim);
  if (!ShapedType::isDynamic(op.getOutputType().getDimSize(1)))
    seq = contract.integer(op.getOutputType().getDimSize(1));
  contract.tensor("o_states", {s, batchSize, seq, heads, d}, element,
                  /*output=*/false);
  contract.tensor("lse_states", {s, batchSize, heads, seq}, f32,
                  /*output=*/false);
  contract.tensor("o", {batchSize, seq, heads, d}, element, /*output=*/true);
  contract.tensor("lse", {batchSize, heads, seq}, f32, /*output=*/true);
  // All four with the strides the caller's tensors have.
  for (StringRef name : {"o_states", "lse_states", "o", "lse"})
    contract.memref(name, /*strided=*/true);
  contract.record(kernel, {contract.ceildiv(seq, contract.integer(rows)), heads,
                           batchSize});
}

LogicalResult MergeBuilder::build() {
  Type element = op.getElementType();
  int64_t dyn = ShapedType::kDynamic;
  MLIRContext *ctx = op.getContext();
  // Memrefs with the caller's strides; rows of o_states and o contiguous.
  auto strided = [&](ArrayRef<int64_t> shape, Type type, bool rowsContiguous) {
    SmallVector<int64_t> strides(shape.size(), dyn);
    if (rowsContiguous)
      strides.back() = 1;
    return MemRefType::get(shape, type,
                           StridedLayoutAttr::get(ctx, 0, strides));
  };
  SmallVector<Type> args = {
      strided(op.getStatesType().getShape(), element, true),
      strided(op.getStatesLseType().getShape(), f32, false),
      strided(op.getOutputType().getShape(), element, true),
      strided(op.getLseType().getShape(), f32, false)};
  KernelShell shell =
      createKernelShell(b, op, op.getSymName(), op.getTarget(), args);
  recordLaunchContract(shell.func);
  states = shell.func.getArgument(0);
  statesLse = shell.func.getArgument(1);
  o = shell.func.getArgument(2);
  lse = shell.func.getArgument(3);

  // The block: rows row0.. of head `head` of sequence `batch`. o_states and
  // o are read as [.., heads, seq, head_dim] views (transposes), so that a
  // block's rows are one head's.
  row0 = arith::MulIOp::create(
      b, loc, tile::ProgramIdOp::create(b, loc, i32, tile::GridDim::x),
      constI32(rows));
  head = tile::ProgramIdOp::create(b, loc, i32, tile::GridDim::y);
  batch = tile::ProgramIdOp::create(b, loc, i32, tile::GridDim::z);
  auto transposed = [&](Value buffer, ArrayRef<unsigned> order) -> Value {
    return memref::TransposeOp::create(
        b, loc, buffer,
        AffineMapAttr::get(AffineMap::getPermutationMap(order, ctx)));
  };
  Value statesView = transposed(states, {0, 1, 3, 2, 4});
  Value oView = transposed(o, {0, 2, 1, 3});
  Value numStates = dimI32(statesLse, 0);
  Value zero = constI32(0);
  RankedTensorType loadType = RankedTensorType::get({rows, headDim}, element);
  MergedPartials merged = mergePartials(
      b, loc, numStates, loadType, {limits::kMergeUnroll},
      [&](Value s) -> Value { return loadLse2(s); },
      [&](Value s, Value column) -> Value {
        return tile::LoadDirectOp::create(
            b, loc, loadType, statesView,
            ValueRange{s, batch, head, row0, column});
      });

  // The results, by stores bounded by the sequence's end.
  Value out = arith::TruncFOp::create(
      b, loc, RankedTensorType::get({rows, headDim}, element), merged.o);
  tile::StoreDirectOp::create(b, loc, oView, {batch, head, row0, zero}, out);
  tile::StoreDirectOp::create(b, loc, lse, {batch, head, row0},
                              merged.naturalLse(b, loc));
  gpu::ReturnOp::create(b, loc);
  op.erase();
  return success();
}

LogicalResult fmha::expandMergeStates(MergeStatesOp op, OpBuilder &b) {
  return MergeBuilder(op, b).build();
}
