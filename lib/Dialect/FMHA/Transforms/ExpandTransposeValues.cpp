//===- ExpandTransposeValues.cpp - fmha.transpose_values to tiles ---------===//
//
// Part of fmha. The tile program of one CTA of fmha.transpose_values: 128
// keys of one KV head of one sequence, loaded a row per thread and stored
// byte by byte into a view of V^T whose rows are the keys in the order of
// fp8 attention's key permutation.
//
//===----------------------------------------------------------------------===//

#include "Expand.h"

#include "fmha/Dialect/FMHA/IR/FMHAServingOps.h"
#include "fmha/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// Builds the tile program; holds what every part of it needs.
class TransposeBuilder : TileProgramBuilder {
public:
  TransposeBuilder(TransposeValuesOp op, OpBuilder &b)
      : TileProgramBuilder(b, op.getLoc()), op(op), headDim(op.getHeadDim()) {}

  LogicalResult build();

private:
  /// Records the launch contract (LaunchContract) on `kernel`.
  void recordLaunchContract(Operation *kernel);
  /// The view of `vt` (`[batch, heads_kv, head_dim, keys]`, dense) that
  /// tile.store_direct writes a block of keys into with `row_dims 4`:
  /// `[batch, heads_kv, keys / 16, 2, 4, 2, head_dim]`, where key `16 g +
  /// 8 a + 2 t + c` (its coordinates `[g, a, t, c]`, row-major) lies at
  /// `16 g + 4 t + 2 a + c` of its row and head_dim runs `keys` apart.
  Value permutedView(Value vt);

  TransposeValuesOp op;
  int64_t headDim;
};

} // namespace

void TransposeBuilder::recordLaunchContract(Operation *kernel) {
  LaunchContract contract(b);
  Type element = op.getValuesType().getElementType();
  Attribute batch = contract.size(op.getBatch(), "B"),
            heads = contract.size(op.getNumHeads(), "H"),
            seqK = contract.size(op.getValuesType().getDimSize(2), "S"),
            keys = contract.size(op.getTransposedType().getDimSize(3), "K"),
            d = contract.integer(headDim);
  contract.tensor("v", {batch, heads, seqK, d}, element, /*output=*/false);
  contract.tensor("vt", {batch, heads, d, keys}, element, /*output=*/true);
  contract.memref("v", /*strided=*/true);
  contract.memref("vt");
  contract.record(
      kernel,
      {contract.ceildiv(keys, contract.integer(TransposeValuesOp::kBlockKeys)),
       heads, batch});
}

Value TransposeBuilder::permutedView(Value vt) {
  int64_t dyn = ShapedType::kDynamic;
  auto index = [&](Value v) -> OpFoldResult { return v; };
  auto dim = [&](int64_t d) { return memref::DimOp::create(b, loc, vt, d); };
  Value heads = dim(1), keys = dim(3);
  Value d = arith::ConstantIndexOp::create(b, loc, headDim);
  Value headStride = arith::MulIOp::create(b, loc, d, keys);
  Value batchStride = arith::MulIOp::create(b, loc, heads, headStride);
  Value groups = arith::DivUIOp::create(
      b, loc, keys,
      arith::ConstantIndexOp::create(b, loc, TransposeValuesOp::kKeyGroup));
  auto viewType = MemRefType::get(
      {dyn, dyn, dyn, 2, 4, 2, headDim}, op.getValuesType().getElementType(),
      StridedLayoutAttr::get(
          b.getContext(), 0,
          {dyn, dyn, TransposeValuesOp::kKeyGroup, 2, 4, 1, dyn}));
  SmallVector<OpFoldResult> sizes = {index(dim(0)),          index(heads),
                                     index(groups),          b.getIndexAttr(2),
                                     b.getIndexAttr(4),      b.getIndexAttr(2),
                                     b.getIndexAttr(headDim)};
  SmallVector<OpFoldResult> strides = {
      index(batchStride),
      index(headStride),
      b.getIndexAttr(TransposeValuesOp::kKeyGroup),
      b.getIndexAttr(2),
      b.getIndexAttr(4),
      b.getIndexAttr(1),
      index(keys)};
  return memref::ReinterpretCastOp::create(b, loc, viewType, vt,
                                           b.getIndexAttr(0), sizes, strides);
}

LogicalResult TransposeBuilder::build() {
  MLIRContext *ctx = op.getContext();
  Type element = op.getValuesType().getElementType();
  int64_t dyn = ShapedType::kDynamic;
  auto v =
      MemRefType::get(op.getValuesType().getShape(), element,
                      StridedLayoutAttr::get(ctx, dyn, {dyn, dyn, dyn, 1}));
  auto vt = MemRefType::get(op.getTransposedType().getShape(), element);
  KernelShell shell = createKernelShell(b, op, op.getSymName(), op.getTarget(),
                                        TypeRange{v, vt});
  recordLaunchContract(shell.func);
  Value values = shell.func.getArgument(0);
  Value view = permutedView(shell.func.getArgument(1));

  // The block: keys first.. of KV head `head` of sequence `batch`; keys
  // past seq_k load as zeros, keys past vt's last group are not stored.
  Value block = tile::ProgramIdOp::create(b, loc, i32, tile::GridDim::x);
  Value head = tile::ProgramIdOp::create(b, loc, i32, tile::GridDim::y);
  Value batch = tile::ProgramIdOp::create(b, loc, i32, tile::GridDim::z);
  Value first = arith::MulIOp::create(b, loc, block,
                                      constI32(TransposeValuesOp::kBlockKeys));
  Value group = arith::DivUIOp::create(b, loc, first,
                                       constI32(TransposeValuesOp::kKeyGroup));
  Value zero = constI32(0);
  auto tileType =
      RankedTensorType::get({TransposeValuesOp::kBlockKeys, headDim}, element);
  Value rows = tile::LoadDirectOp::create(b, loc, tileType, values,
                                          ValueRange{batch, head, first, zero});
  tile::StoreDirectOp::create(
      b, loc, view, ValueRange{batch, head, group, zero, zero, zero, zero},
      rows, b.getI64IntegerAttr(4));
  gpu::ReturnOp::create(b, loc);
  op.erase();
  return success();
}

LogicalResult fmha::expandTransposeValues(TransposeValuesOp op, OpBuilder &b) {
  return TransposeBuilder(op, b).build();
}
