//===- ExpandAttentionBackward.cpp - fmha.attention_backward's kernels ----===//
//
// Part of fmha. The kernels of fmha.attention_backward (docs/Backward.md),
// in one gpu.module that records their launch order (`fmha.launches`):
// the prep kernel (D = rowsum(dO * O), lse2 = lse * log2(e), dq_acc
// zeroed) and the post kernel (dq = scale * dq_acc, rounded), tile programs
// of plain loads and stores without MMA; the main kernel is not built yet,
// and the expansion says so unless it is asked for the others alone.
//
//===----------------------------------------------------------------------===//

#include "Expand.h"

#include "fmha/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// Builds the kernels; holds the sizes and types they share.
class BackwardBuilder : TileProgramBuilder {
public:
  BackwardBuilder(AttentionBackwardOp op, OpBuilder &b)
      : TileProgramBuilder(b, op.getLoc()), op(op), rows(op.getPrepRows()),
        headDim(op.getHeadDim()), element(op.getElementType()),
        rowType(RankedTensorType::get({rows}, f32)),
        tileType(RankedTensorType::get({rows, headDim}, f32)) {}

  LogicalResult build(ArrayRef<BackwardKernel> kernels);

private:
  /// The size symbols of the contract, and the padded rows of d_lse.
  struct Sizes {
    Attribute batch, headsQ, seqQ, headDim, paddedSeqQ;
  };
  Sizes getSizes(LaunchContract &contract);
  /// The shapes of the scratch tensors (static where the op's sizes are).
  SmallVector<int64_t> getDLseShape();
  SmallVector<int64_t> getDqAccShape();
  /// Declares the scratch tensors in `contract`.
  void declareDLse(LaunchContract &contract, const Sizes &sizes);
  void declareDqAcc(LaunchContract &contract, const Sizes &sizes);
  /// The grid's x of the prep kernel: CTAs of `rows` rows over d_lse's
  /// padded rows.
  Attribute getPrepBlocks(LaunchContract &contract, const Sizes &sizes);
  /// The block of query rows a CTA of the prep and post kernels takes:
  /// rows row0.. of head `head` of batch `batch`.
  void readBlock();
  /// `value` in every element of a row vector.
  Value rowsOf(double value) {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(rowType, b.getF32FloatAttr(value)));
  }

  void buildPrep(gpu::GPUModuleOp module);
  void buildPost(gpu::GPUModuleOp module);

  AttentionBackwardOp op;
  int64_t rows, headDim;
  Type element;
  RankedTensorType rowType, tileType;
  Value batch, head, row0;
};

} // namespace

BackwardBuilder::Sizes BackwardBuilder::getSizes(LaunchContract &contract) {
  Sizes sizes;
  sizes.batch = contract.size(op.getBatch(), "B");
  sizes.headsQ = contract.size(op.getNumHeadsQ(), "H");
  sizes.seqQ = contract.size(op.getSeqLenQ(), "SQ");
  sizes.headDim = contract.integer(headDim);
  int64_t pad = op.getLsePadRows(), seqQ = op.getSeqLenQ();
  sizes.paddedSeqQ =
      ShapedType::isDynamic(seqQ)
          ? contract.mul(contract.ceildiv(sizes.seqQ, contract.integer(pad)),
                         contract.integer(pad))
          : contract.integer(llvm::divideCeil(seqQ, pad) * pad);
  return sizes;
}

SmallVector<int64_t> BackwardBuilder::getDLseShape() {
  int64_t seqQ = op.getSeqLenQ(), pad = op.getLsePadRows();
  return {op.getBatch(), op.getNumHeadsQ(), 2,
          ShapedType::isDynamic(seqQ) ? ShapedType::kDynamic
                                      : llvm::divideCeil(seqQ, pad) * pad};
}

SmallVector<int64_t> BackwardBuilder::getDqAccShape() {
  return {op.getBatch(), op.getNumHeadsQ(), op.getSeqLenQ(), headDim};
}

// Both scratch tensors are written by a launch of the same call before they
// are read (dq_acc zeroed by the prep kernel), so their contents do not
// matter from one call to the next.

void BackwardBuilder::declareDLse(LaunchContract &contract,
                                  const Sizes &sizes) {
  contract.scratch(
      "d_lse",
      {sizes.batch, sizes.headsQ, contract.integer(2), sizes.paddedSeqQ}, f32,
      /*zeroed=*/false);
}

void BackwardBuilder::declareDqAcc(LaunchContract &contract,
                                   const Sizes &sizes) {
  contract.scratch("dq_acc",
                   {sizes.batch, sizes.headsQ, sizes.seqQ, sizes.headDim}, f32,
                   /*zeroed=*/false);
}

Attribute BackwardBuilder::getPrepBlocks(LaunchContract &contract,
                                         const Sizes &sizes) {
  int64_t pad = op.getLsePadRows();
  if (pad % rows != 0)
    return contract.ceildiv(sizes.paddedSeqQ, contract.integer(rows));
  Attribute padBlocks = contract.ceildiv(sizes.seqQ, contract.integer(pad));
  if (pad == rows)
    return padBlocks;
  return contract.mul(padBlocks, contract.integer(pad / rows));
}

void BackwardBuilder::readBlock() {
  row0 = arith::MulIOp::create(
      b, loc, tile::ProgramIdOp::create(b, loc, i32, tile::GridDim::x),
      constI32(rows));
  head = tile::ProgramIdOp::create(b, loc, i32, tile::GridDim::y);
  batch = tile::ProgramIdOp::create(b, loc, i32, tile::GridDim::z);
}

/// The prep kernel: for a block of query rows, D = rowsum(dO * O) in f32
/// and lse2 = lse * log2(e) (+inf where lse is -inf: P = 2^(S - lse2) is
/// then 0) into d_lse, and the block's rows of dq_acc zeroed. Its grid
/// covers d_lse's padded rows, which read O, dO and lse as 0 (D = 0,
/// lse2 = 0: what the main kernel reads there is defined).
void BackwardBuilder::buildPrep(gpu::GPUModuleOp module) {
  auto qLike = MemRefType::get(op.getOutputType().getShape(), element);
  SmallVector<Type> args = {
      qLike, MemRefType::get(op.getOutputGradType().getShape(), element),
      MemRefType::get(op.getLseType().getShape(), f32),
      MemRefType::get(getDLseShape(), f32),
      MemRefType::get(getDqAccShape(), f32)};
  gpu::GPUFuncOp func =
      addKernel(b, module, (op.getSymName() + "_prep").str(), args);
  LaunchContract contract(b);
  Sizes sizes = getSizes(contract);
  SmallVector<Attribute> qShape = {sizes.batch, sizes.headsQ, sizes.seqQ,
                                   sizes.headDim};
  contract.tensor("o", qShape, element, /*output=*/false);
  contract.tensor("do", qShape, element, /*output=*/false);
  contract.tensor("lse", {sizes.batch, sizes.headsQ, sizes.seqQ}, f32,
                  /*output=*/false);
  declareDLse(contract, sizes);
  declareDqAcc(contract, sizes);
  for (StringRef name : {"o", "do", "lse", "d_lse", "dq_acc"})
    contract.memref(name);
  contract.record(func,
                  {getPrepBlocks(contract, sizes), sizes.headsQ, sizes.batch});

  Value o = func.getArgument(0), dO = func.getArgument(1),
        lse = func.getArgument(2), dLse = func.getArgument(3),
        dqAcc = func.getArgument(4);
  readBlock();
  Value zero = constI32(0);
  auto loadType = RankedTensorType::get({rows, headDim}, element);
  auto load = [&](Value source) -> Value {
    Value loaded = tile::LoadDirectOp::create(
        b, loc, loadType, source, ValueRange{batch, head, row0, zero});
    return arith::ExtFOp::create(b, loc, tileType, loaded);
  };
  Value product = arith::MulFOp::create(b, loc, load(dO), load(o));
  Value d = tile::ReduceOp::create(
      b, loc, rowType,
      tile::ReduceKindAttr::get(b.getContext(), tile::ReduceKind::sum), product,
      b.getI64IntegerAttr(1));
  Value rowLse = tile::LoadDirectOp::create(b, loc, rowType, lse,
                                            ValueRange{batch, head, row0});
  Value noKeys =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, rowLse,
                            rowsOf(-std::numeric_limits<double>::infinity()));
  Value lse2 = arith::SelectOp::create(
      b, loc, noKeys, rowsOf(std::numeric_limits<double>::infinity()),
      arith::MulFOp::create(b, loc, rowLse, rowsOf(M_LOG2E)));
  tile::StoreDirectOp::create(b, loc, dLse, {batch, head, zero, row0}, d);
  tile::StoreDirectOp::create(b, loc, dLse, {batch, head, constI32(1), row0},
                              lse2);
  Value zeros = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(tileType, b.getF32FloatAttr(0.0)));
  tile::StoreDirectOp::create(b, loc, dqAcc, {batch, head, row0, zero}, zeros);
  gpu::ReturnOp::create(b, loc);
}

/// The post kernel: dq = scale * dq_acc, rounded, for a block of query
/// rows (the main kernel's dQ partials leave the scale out).
void BackwardBuilder::buildPost(gpu::GPUModuleOp module) {
  SmallVector<Type> args = {
      MemRefType::get(getDqAccShape(), f32),
      MemRefType::get(op.getQueryGradType().getShape(), element)};
  gpu::GPUFuncOp func =
      addKernel(b, module, (op.getSymName() + "_post").str(), args);
  LaunchContract contract(b);
  Sizes sizes = getSizes(contract);
  declareDqAcc(contract, sizes);
  contract.tensor("dq", {sizes.batch, sizes.headsQ, sizes.seqQ, sizes.headDim},
                  element, /*output=*/true);
  contract.memref("dq_acc");
  contract.memref("dq");
  contract.record(func, {contract.ceildiv(sizes.seqQ, contract.integer(rows)),
                         sizes.headsQ, sizes.batch});

  Value dqAcc = func.getArgument(0), dq = func.getArgument(1);
  readBlock();
  Value zero = constI32(0);
  Value acc = tile::LoadDirectOp::create(b, loc, tileType, dqAcc,
                                         ValueRange{batch, head, row0, zero});
  Value scaled = arith::MulFOp::create(
      b, loc, acc, splat(constF32(op.getScaleOrDefault()), tileType));
  Value out = arith::TruncFOp::create(
      b, loc, RankedTensorType::get({rows, headDim}, element), scaled);
  tile::StoreDirectOp::create(b, loc, dq, {batch, head, row0, zero}, out);
  gpu::ReturnOp::create(b, loc);
}

LogicalResult BackwardBuilder::build(ArrayRef<BackwardKernel> kernels) {
  if (llvm::is_contained(kernels, BackwardKernel::Main))
    return op.emitOpError(
        "expands into prep, main and post kernels, but the main kernel is "
        "not built yet (docs/Backward.md); "
        "fmha-expand-kernels{backward-kernels=prep,post} builds the other "
        "two alone");
  // One module for the kernels of the call.
  gpu::GPUModuleOp module =
      createKernelModule(b, op, op.getSymName(), op.getTarget());
  SmallVector<Attribute> launches;
  for (BackwardKernel kernel : kernels) {
    if (kernel == BackwardKernel::Prep)
      buildPrep(module);
    else
      buildPost(module);
    launches.push_back(FlatSymbolRefAttr::get(
        cast<gpu::GPUFuncOp>(module.getBody()->back()).getNameAttr()));
  }
  auto *fmha = op->getContext()->getLoadedDialect<FMHADialect>();
  fmha->getLaunchesAttrHelper().setAttr(module, b.getArrayAttr(launches));
  op.erase();
  return success();
}

LogicalResult fmha::expandAttentionBackward(AttentionBackwardOp op,
                                            OpBuilder &b,
                                            ArrayRef<BackwardKernel> kernels) {
  return BackwardBuilder(op, b).build(kernels);
}
