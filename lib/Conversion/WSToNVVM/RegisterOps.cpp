//===- RegisterOps.cpp - Register-tensor compute ops ----------------------===//
//
// Part of fmha. Lowers the ops that compute on tensors in registers, once
// for every register layout (`#tile.wgmma_acc`, `#tile.tmem_32x32b` and
// their row and column vectors, `#tile.slice`), through the layout interface
// (see RegisterTensor.h): row reductions (a thread's values of a row, then
// butterfly shuffles across the lanes that share the row), row and column
// broadcasts, row scalings (skipped by threads whose factors are all 1),
// iota, scalar splats and changes between layouts that give every thread
// the same elements.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "Patterns.h"
#include "RegisterTensor.h"
#include "Values.h"

#include "fmha/Dialect/Tile/IR/TileDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlir::ws;

/// `#tile.wgmma_acc`, as diagnostics name a layout.
static std::string layoutName(Attribute layout) {
  return ("#" + layout.getAbstractAttribute().getName()).str();
}

/// tile.reduce max|sum axis 1 of an f32 register tensor into its row slice
/// -> for each of the thread's rows, its values of the row combined (a
/// balanced tree), then combined with the other lanes that hold the row
/// (shfl.sync.bfly over the layout's replica lane masks of dimension 0): the
/// row's value, the same in all of them.
static LogicalResult lowerReduce(tile::ReduceOp op,
                                 tile::ReduceOp::Adaptor adaptor,
                                 ConversionPatternRewriter &rewriter,
                                 const LLVMTypeConverter &converter) {
  RankedTensorType inType = op.getInput().getType();
  RankedTensorType outType = op.getResult().getType();
  std::optional<RegisterTensor> in = RegisterTensor::get(inType);
  if (!in)
    return rewriter.notifyMatchFailure(op, "not a register-layout input");
  if (op.getAxis() != 1)
    return op.emitOpError("lowers row reductions (axis 1) of a ")
           << layoutName(in->getLayout()) << " tensor only";
  std::optional<RegisterTensor> out = RegisterTensor::get(outType);
  if (!out || !out->isRowSliceOf(*in))
    return op.emitOpError("needs its result laid out by #tile.slice<dim = "
                          "1> of the input's layout, got ")
           << outType;
  if (!inType.getElementType().isF32())
    return op.emitOpError("lowers f32 reductions only, got ")
           << inType.getElementType();

  Location loc = op.getLoc();
  bool isMax = op.getKind() == tile::ReduceKind::max;
  auto combine = [&](Value x, Value y) -> Value {
    if (isMax)
      return LLVM::MaximumOp::create(rewriter, loc, x, y);
    return LLVM::FAddOp::create(rewriter, loc, x, y);
  };
  Type f32 = rewriter.getF32Type();
  Value allLanes = i32Const(rewriter, loc, -1);
  Value clamp = i32Const(rewriter, loc, kThreadsPerWarp - 1);
  auto reduceRow = [&](int64_t r) {
    // The thread's values of the row, columns increasing.
    int64_t row = out->getOffsets(r)[0];
    SmallVector<Value> values;
    for (int64_t v = 0; v < in->getNumValues(); ++v)
      if (in->getOffsets(v)[0] == row)
        values.push_back(LLVM::ExtractValueOp::create(
            rewriter, loc, adaptor.getInput(), in->getPosition(v)));
    // A balanced tree: independent operations first.
    while (values.size() > 1) {
      SmallVector<Value> next;
      for (size_t i = 0; i + 1 < values.size(); i += 2)
        next.push_back(combine(values[i], values[i + 1]));
      if (values.size() % 2)
        next.push_back(values.back());
      values = std::move(next);
    }
    Value value = values.front();
    for (int64_t mask : in->getLayout().getReplicaLaneMasks(0)) {
      Value other = NVVM::ShflOp::create(rewriter, loc, f32, allLanes, value,
                                         i32Const(rewriter, loc, mask), clamp,
                                         NVVM::ShflKind::bfly, UnitAttr());
      value = combine(value, other);
    }
    return value;
  };
  rewriter.replaceOp(op, out->buildStruct(rewriter, loc, converter, reduceRow));
  return success();
}

/// tile.broadcast axis 1 of a row vector (`#tile.slice<dim = 1>`), or axis
/// 0 of a column vector (`<dim = 0>`), to its parent register layout ->
/// every value takes its row's (column's) value.
static LogicalResult lowerBroadcast(tile::BroadcastOp op,
                                    tile::BroadcastOp::Adaptor adaptor,
                                    ConversionPatternRewriter &rewriter,
                                    const LLVMTypeConverter &converter) {
  std::optional<RegisterTensor> out = RegisterTensor::get(op.getResult());
  if (!out)
    return rewriter.notifyMatchFailure(op, "not a register-layout result");
  std::optional<RegisterTensor> in = RegisterTensor::get(op.getInput());
  unsigned axis = op.getAxis();
  if (axis > 1 || !in || !in->isSliceOf(*out, axis))
    return op.emitOpError("lowers row broadcasts (axis 1) of a "
                          "#tile.slice<dim = 1> row vector and column "
                          "broadcasts (axis 0) of a #tile.slice<dim = 0> "
                          "column vector only");
  // The dimension of the full tensor the vector runs along.
  unsigned kept = 1 - axis;
  Location loc = op.getLoc();
  // The vector's values by offset, read as the fragments that take them
  // come.
  DenseMap<int64_t, int64_t> valueAt;
  for (int64_t r = 0; r < in->getNumValues(); ++r)
    valueAt[in->getOffsets(r)[0]] = r;
  DenseMap<int64_t, Value> read;
  Value result = LLVM::UndefOp::create(rewriter, loc,
                                       converter.convertType(out->getType()));
  int64_t perFragment = out->getValuesPerFragment();
  for (int64_t first = 0; first < out->getNumValues(); first += perFragment) {
    for (int64_t v = first; v < first + perFragment; ++v) {
      int64_t at = out->getOffsets(v)[kept];
      if (!read.count(at))
        read[at] =
            LLVM::ExtractValueOp::create(rewriter, loc, adaptor.getInput(),
                                         in->getPosition(valueAt.lookup(at)));
    }
    for (int64_t v = first; v < first + perFragment; ++v)
      result = LLVM::InsertValueOp::create(
          rewriter, loc, result, read.lookup(out->getOffsets(v)[kept]),
          out->getPosition(v));
  }
  rewriter.replaceOp(op, result);
  return success();
}

/// tile.scale_rows of a register tile by its row vector of factors -> each
/// value times its row's factor, in a block that only threads with a factor
/// other than 1 (or NaN) among their rows run: a compare per row and a
/// branch. A multiply by 1 leaves a value as it is.
static LogicalResult lowerScaleRows(tile::ScaleRowsOp op,
                                    tile::ScaleRowsOp::Adaptor adaptor,
                                    ConversionPatternRewriter &rewriter,
                                    const LLVMTypeConverter &converter) {
  std::optional<RegisterTensor> t = RegisterTensor::get(op.getResult());
  std::optional<RegisterTensor> rows = RegisterTensor::get(op.getFactors());
  if (!t || !rows || !rows->isRowSliceOf(*t) ||
      !t->getType().getElementType().isF32())
    return op.emitOpError("lowers an f32 register tile scaled by a "
                          "#tile.slice<dim = 1> row vector of it only");
  Location loc = op.getLoc();
  Value data = adaptor.getInput(), factors = adaptor.getFactors();
  // The thread's factors, by row offset.
  DenseMap<int64_t, Value> factorAt;
  Value one = LLVM::ConstantOp::create(rewriter, loc, rewriter.getF32Type(),
                                       rewriter.getF32FloatAttr(1.0));
  Value scales;
  for (int64_t r = 0; r < rows->getNumValues(); ++r) {
    Value factor = LLVM::ExtractValueOp::create(rewriter, loc, factors,
                                                rows->getPosition(r));
    factorAt[rows->getOffsets(r)[0]] = factor;
    Value differs = LLVM::FCmpOp::create(rewriter, loc,
                                         LLVM::FCmpPredicate::une, factor, one);
    scales =
        scales ? LLVM::OrOp::create(rewriter, loc, scales, differs).getResult()
               : differs;
  }
  // head: cond_br scales, scale, done(data); scale: br done(data * factors);
  // done(result): br rest, which begins with the op.
  Block *head = rewriter.getInsertionBlock();
  Block *rest = rewriter.splitBlock(head, rewriter.getInsertionPoint());
  Block *done = rewriter.createBlock(rest, {data.getType()}, {loc});
  LLVM::BrOp::create(rewriter, loc, ValueRange{}, rest);
  Block *scale = rewriter.createBlock(done);
  Value product = t->buildStruct(rewriter, loc, converter, [&](int64_t v) {
    Value value =
        LLVM::ExtractValueOp::create(rewriter, loc, data, t->getPosition(v));
    return LLVM::FMulOp::create(rewriter, loc, value,
                                factorAt.lookup(t->getOffsets(v)[0]));
  });
  LLVM::BrOp::create(rewriter, loc, ValueRange{product}, done);
  rewriter.setInsertionPointToEnd(head);
  LLVM::CondBrOp::create(rewriter, loc, scales, scale, ValueRange{}, done,
                         ValueRange{data});
  rewriter.replaceOp(op, done->getArgument(0));
  return success();
}

/// tile.iota in a register layout -> each value's index along the axis: the
/// thread's origin plus the value's offset (for a row vector, its row).
static LogicalResult lowerIota(tile::IotaOp op, tile::IotaOp::Adaptor,
                               ConversionPatternRewriter &rewriter,
                               const LLVMTypeConverter &converter) {
  std::optional<RegisterTensor> t = RegisterTensor::get(op.getType());
  if (!t)
    return rewriter.notifyMatchFailure(op, "not a register layout");
  Location loc = op.getLoc();
  int64_t axis = t->getSlice() ? 0 : op.getAxis();
  OpFoldResult origin = t->buildThreadOrigin(rewriter, loc)[axis];
  rewriter.replaceOp(
      op, t->buildStruct(rewriter, loc, converter, [&](int64_t v) {
        return buildCoordinate(rewriter, loc, origin, t->getOffsets(v)[axis]);
      }));
  return success();
}

/// tensor.splat of a scalar into a register layout -> every register set to
/// the scalar.
static LogicalResult lowerSplat(tensor::SplatOp op,
                                tensor::SplatOp::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter,
                                const LLVMTypeConverter &converter) {
  std::optional<RegisterTensor> t = RegisterTensor::get(op.getType());
  if (!t)
    return rewriter.notifyMatchFailure(op, "not a register layout");
  rewriter.replaceOp(
      op, t->buildStruct(rewriter, op.getLoc(), converter,
                         [&](int64_t) { return adaptor.getInput(); }));
  return success();
}

/// Whether the register layouts `from` and `to` give every thread the same
/// elements, so that changing between them only renumbers registers: equal
/// layouts, wgmma accumulators that differ in instr_n only (a thread holds
/// its rows and columns 2 (l % 4) + {0, 1} of every 8 whatever instr_n is),
/// or row slices of such.
static bool holdSameElements(Attribute from, Attribute to) {
  auto fromSlice = dyn_cast<tile::SliceAttr>(from);
  auto toSlice = dyn_cast<tile::SliceAttr>(to);
  if (fromSlice && toSlice)
    return fromSlice.getDim() == toSlice.getDim() &&
           holdSameElements(fromSlice.getParent(), toSlice.getParent());
  auto fromAcc = dyn_cast<tile::WgmmaAccAttr>(from);
  auto toAcc = dyn_cast<tile::WgmmaAccAttr>(to);
  if (fromAcc && toAcc)
    return fromAcc.getWarpgroups() == toAcc.getWarpgroups();
  return from == to;
}

/// tile.convert_layout between register layouts that give every thread the
/// same elements -> the same registers, renumbered: each value of the result
/// is the input's value at the same offsets.
static LogicalResult lowerConvertLayout(tile::ConvertLayoutOp op,
                                        tile::ConvertLayoutOp::Adaptor adaptor,
                                        ConversionPatternRewriter &rewriter,
                                        const LLVMTypeConverter &converter) {
  std::optional<RegisterTensor> from = RegisterTensor::get(op.getInput());
  std::optional<RegisterTensor> to = RegisterTensor::get(op.getType());
  if (!from || !to || !holdSameElements(from->getLayout(), to->getLayout()))
    return rewriter.notifyMatchFailure(
        op, "not between register layouts of the same elements");
  Type structType = converter.convertType(to->getType());
  if (structType == adaptor.getInput().getType() &&
      from->getPositions() == to->getPositions() &&
      llvm::all_of(llvm::seq<int64_t>(0, to->getNumValues()), [&](int64_t v) {
        return from->getOffsets(v) == to->getOffsets(v);
      })) {
    rewriter.replaceOp(op, adaptor.getInput());
    return success();
  }
  Location loc = op.getLoc();
  DenseMap<ArrayRef<int64_t>, int64_t> source;
  for (int64_t v = 0; v < from->getNumValues(); ++v)
    source[from->getOffsets(v)] = v;
  rewriter.replaceOp(op,
                     to->buildStruct(rewriter, loc, converter, [&](int64_t v) {
                       return LLVM::ExtractValueOp::create(
                           rewriter, loc, adaptor.getInput(),
                           from->getPosition(source.lookup(to->getOffsets(v))));
                     }));
  return success();
}

/// tile.transpose between register layouts (the result's the
/// `#tile.transposed` of the input's) -> the same registers: each thread
/// keeps its values, which the result's layout places at swapped
/// coordinates.
static LogicalResult lowerTranspose(tile::TransposeOp op,
                                    tile::TransposeOp::Adaptor adaptor,
                                    ConversionPatternRewriter &rewriter,
                                    const LLVMTypeConverter &converter) {
  std::optional<RegisterTensor> from = RegisterTensor::get(op.getInput());
  std::optional<RegisterTensor> to = RegisterTensor::get(op.getType());
  if (!from || !to ||
      converter.convertType(to->getType()) != adaptor.getInput().getType())
    return rewriter.notifyMatchFailure(op, "not between register layouts");
  rewriter.replaceOp(op, adaptor.getInput());
  return success();
}

void ws::populateRegisterOpPatterns(const LLVMTypeConverter &converter,
                                    RewritePatternSet &patterns) {
  addLowerings(patterns, converter, lowerReduce, lowerBroadcast, lowerIota,
               lowerSplat, lowerConvertLayout, lowerTranspose, lowerScaleRows);
  populateRegisterMemoryOpPatterns(converter, patterns);
}
