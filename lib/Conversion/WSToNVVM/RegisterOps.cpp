//===- RegisterOps.cpp - Register-tensor ops of sm90 tile programs --------===//
//
// Part of fmha. Lowers the ops of an attention consumer that work on tensors
// in the wgmma accumulator layout and on their row vectors: row reductions
// (across the 4 lanes of a quad), row broadcasts, iota, scalar splats,
// changes of instr_n and plain global stores of row vectors.
//
// A `#tile.wgmma_acc` tensor of one warpgroup is a struct with one struct
// per m64 x instr_n fragment (see TileToNVVM.h). Lane l of warp w holds rows
// 16w + l/4 and 16w + l/4 + 8 of every m64 row repetition mr: a row vector
// laid out by `#tile.slice<dim = 1>` of it is a struct of those 2 * rowReps
// values, value 2 * mr + h being row 64 mr + 16w + l/4 + 8h, the same in the
// 4 lanes of the quad that share the row.
//
//===----------------------------------------------------------------------===//

#include "BranchUtils.h"
#include "TileToNVVM.h"

#include "fmha/Dialect/Tile/IR/TileDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::ws;

/// Rows of one wgmma instruction (m64nNk16).
static constexpr int64_t kWgmmaM = 64;
/// Lanes of a quad, the lanes that hold the same rows of a wgmma fragment.
static constexpr int64_t kQuadLanes = 4;

static Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(), v);
}

/// This thread's first row and first column in a one-warpgroup
/// `#tile.wgmma_acc` tensor: row 16w + l/4, column 2 (l % 4), from the
/// thread's index in its warpgroup (`%tid.x % 128`; roles of whole
/// warpgroups start on warpgroup boundaries).
static std::pair<Value, Value> threadOrigin(OpBuilder &b, Location loc) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value t = LLVM::URemOp::create(
      b, loc, tid, i32Const(b, loc, kThreadsPerWarp * kWarpsPerGroup));
  Value warp =
      LLVM::UDivOp::create(b, loc, t, i32Const(b, loc, kThreadsPerWarp));
  Value lane =
      LLVM::URemOp::create(b, loc, t, i32Const(b, loc, kThreadsPerWarp));
  Value row = LLVM::AddOp::create(
      b, loc, LLVM::MulOp::create(b, loc, warp, i32Const(b, loc, 16)),
      LLVM::UDivOp::create(b, loc, lane, i32Const(b, loc, kQuadLanes)));
  Value col = LLVM::MulOp::create(
      b, loc, LLVM::URemOp::create(b, loc, lane, i32Const(b, loc, kQuadLanes)),
      i32Const(b, loc, 2));
  return {row, col};
}

/// `base + offset`, or `base` when the offset is 0.
static Value addConst(OpBuilder &b, Location loc, Value base, int64_t offset) {
  if (offset == 0)
    return base;
  return LLVM::AddOp::create(b, loc, base, i32Const(b, loc, offset));
}

namespace {

/// tile.reduce max|sum axis 1 of a `#tile.wgmma_acc` f32 tensor -> for each
/// of the thread's rows, its values over all column fragments combined, then
/// combined with the other 3 lanes of the quad (shfl.sync.bfly 1 and 2): the
/// row's value, identical in the quad's 4 lanes.
struct ReduceLowering : ConvertOpToLLVMPattern<tile::ReduceOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType inType = op.getInput().getType();
    RankedTensorType outType = op.getResult().getType();
    std::optional<Fragments> f = getFragments(inType);
    if (!f)
      return rewriter.notifyMatchFailure(op, "not a wgmma-layout input");
    if (op.getAxis() != 1)
      return op.emitOpError("lowers row reductions (axis 1) of a "
                            "#tile.wgmma_acc tensor only");
    if (!getSliceRowValues(outType))
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
    Value result = LLVM::UndefOp::create(
        rewriter, loc, getTypeConverter()->convertType(outType));
    for (int64_t mr = 0; mr < f->rowReps; ++mr) {
      for (int64_t h = 0; h < 2; ++h) {
        // Row 8h of the thread's rows: values 4j + 2h + {0, 1} of each of
        // the repetition's column fragments.
        SmallVector<Value> values;
        for (int64_t nr = 0; nr < f->colReps; ++nr)
          for (int64_t v = 2 * h; v < f->values; v += 4)
            for (int64_t e = 0; e < 2; ++e)
              values.push_back(LLVM::ExtractValueOp::create(
                  rewriter, loc, adaptor.getInput(),
                  ArrayRef<int64_t>{mr * f->colReps + nr, v + e}));
        // A balanced tree: independent operations first.
        while (values.size() > 1) {
          SmallVector<Value> next;
          for (size_t i = 0; i + 1 < values.size(); i += 2)
            next.push_back(combine(values[i], values[i + 1]));
          if (values.size() % 2)
            next.push_back(values.back());
          values = std::move(next);
        }
        Value row = values.front();
        for (int64_t offset = 1; offset < kQuadLanes; offset *= 2) {
          Value other =
              NVVM::ShflOp::create(rewriter, loc, f32, allLanes, row,
                                   i32Const(rewriter, loc, offset), clamp,
                                   NVVM::ShflKind::bfly, UnitAttr());
          row = combine(row, other);
        }
        result =
            LLVM::InsertValueOp::create(rewriter, loc, result, row, 2 * mr + h);
      }
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// tile.broadcast axis 1 of a row vector (`#tile.slice<dim = 1>`) to a
/// `#tile.wgmma_acc` tensor -> every register takes its row's value.
struct BroadcastLowering : ConvertOpToLLVMPattern<tile::BroadcastOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    auto outType = cast<RankedTensorType>(op.getResult().getType());
    std::optional<Fragments> f = getFragments(outType);
    if (!f)
      return rewriter.notifyMatchFailure(op, "not a wgmma-layout result");
    if (op.getAxis() != 1 || !getSliceRowValues(inType))
      return op.emitOpError("lowers row broadcasts (axis 1) of a "
                            "#tile.slice<dim = 1> row vector only");
    Location loc = op.getLoc();
    Value result = LLVM::UndefOp::create(
        rewriter, loc, getTypeConverter()->convertType(outType));
    for (int64_t mr = 0; mr < f->rowReps; ++mr) {
      Value rows[2];
      for (int64_t h = 0; h < 2; ++h)
        rows[h] = LLVM::ExtractValueOp::create(rewriter, loc,
                                               adaptor.getInput(), 2 * mr + h);
      for (int64_t nr = 0; nr < f->colReps; ++nr)
        for (int64_t v = 0; v < f->values; ++v)
          result = LLVM::InsertValueOp::create(
              rewriter, loc, result, rows[(v / 2) % 2],
              ArrayRef<int64_t>{mr * f->colReps + nr, v});
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// tile.iota in a register layout -> each register's row (axis 0) or column
/// (axis 1) index: the thread's first row or column plus the register's
/// offset within the layout.
struct IotaLowering : ConvertOpToLLVMPattern<tile::IotaOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::IotaOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getResult().getType();
    std::optional<Fragments> f = getFragments(type);
    std::optional<int64_t> sliceValues = getSliceRowValues(type);
    if (!f && !sliceValues)
      return rewriter.notifyMatchFailure(op, "not a wgmma register layout");
    Location loc = op.getLoc();
    auto [row, col] = threadOrigin(rewriter, loc);
    Value result = LLVM::UndefOp::create(rewriter, loc,
                                         getTypeConverter()->convertType(type));
    if (sliceValues) {
      for (int64_t v = 0; v < *sliceValues; ++v)
        result = LLVM::InsertValueOp::create(
            rewriter, loc, result,
            addConst(rewriter, loc, row, kWgmmaM * (v / 2) + 8 * (v % 2)), v);
      rewriter.replaceOp(op, result);
      return success();
    }
    bool rows = op.getAxis() == 0;
    for (int64_t i = 0; i < f->count(); ++i) {
      int64_t mr = i / f->colReps, nr = i % f->colReps;
      for (int64_t v = 0; v < f->values; ++v) {
        Value index = rows ? addConst(rewriter, loc, row,
                                      kWgmmaM * mr + 8 * ((v / 2) % 2))
                           : addConst(rewriter, loc, col,
                                      f->instrN * nr + 8 * (v / 4) + v % 2);
        result = LLVM::InsertValueOp::create(rewriter, loc, result, index,
                                             ArrayRef<int64_t>{i, v});
      }
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// tensor.splat of a scalar into a register layout -> every register set to
/// the scalar.
struct SplatLowering : ConvertOpToLLVMPattern<tensor::SplatOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tensor::SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    auto positions = getRegisterPositions(type);
    if (!positions)
      return rewriter.notifyMatchFailure(op, "not a register layout");
    Location loc = op.getLoc();
    Value result = LLVM::UndefOp::create(rewriter, loc,
                                         getTypeConverter()->convertType(type));
    for (ArrayRef<int64_t> position : *positions)
      result = LLVM::InsertValueOp::create(rewriter, loc, result,
                                           adaptor.getInput(), position);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// tile.convert_layout between one-warpgroup wgmma register layouts that
/// differ in instr_n only -> the same registers, renumbered. A thread holds
/// the same elements whatever instr_n is (its rows, and columns
/// 2 (l % 4) + {0, 1} of every 8), so row vectors (`#tile.slice<dim = 1>`)
/// are unchanged and 2-d tensors only reorder their values.
struct ConvertLayoutLowering : ConvertOpToLLVMPattern<tile::ConvertLayoutOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto inType = cast<RankedTensorType>(op.getInput().getType());
    auto outType = cast<RankedTensorType>(op.getResult().getType());
    if (getSliceRowValues(inType) && getSliceRowValues(outType)) {
      rewriter.replaceOp(op, adaptor.getInput());
      return success();
    }
    std::optional<Fragments> from = getFragments(inType);
    std::optional<Fragments> to = getFragments(outType);
    if (!from || !to)
      return rewriter.notifyMatchFailure(op, "not between wgmma layouts");
    Location loc = op.getLoc();
    Value result = LLVM::UndefOp::create(
        rewriter, loc, getTypeConverter()->convertType(outType));
    for (int64_t i = 0; i < to->count(); ++i) {
      int64_t mr = i / to->colReps, nr = i % to->colReps;
      for (int64_t v = 0; v < to->values; ++v) {
        // The element's column relative to the thread's first, and row half.
        int64_t col = to->instrN * nr + 8 * (v / 4) + v % 2;
        int64_t half = (v / 2) % 2;
        int64_t c = col % from->instrN;
        int64_t source[2] = {mr * from->colReps + col / from->instrN,
                             4 * (c / 8) + 2 * half + c % 2};
        result = LLVM::InsertValueOp::create(
            rewriter, loc, result,
            LLVM::ExtractValueOp::create(rewriter, loc, adaptor.getInput(),
                                         source),
            ArrayRef<int64_t>{i, v});
      }
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// tile.store_direct of a row vector (`#tile.slice<dim = 1>`) into the
/// innermost dimension of a memref -> for each of the thread's rows, a
/// global store by the quad's first lane (the other three hold the same
/// value), branched around where the row or an outer coordinate is outside
/// the memref (unsigned compares: negative coordinates are outside too).
/// Addresses come from the memref descriptor's offset, sizes and strides.
struct StoreDirectLowering : ConvertOpToLLVMPattern<tile::StoreDirectOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::StoreDirectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getValue().getType();
    std::optional<int64_t> values = getSliceRowValues(type);
    if (!values)
      return op.emitOpError("lowers row vectors (#tile.slice<dim = 1> of a "
                            "one-warpgroup #tile.wgmma_acc) only, got ")
             << type;
    Location loc = op.getLoc();
    MemRefType destType = op.getDest().getType();
    Type element = getTypeConverter()->convertType(type.getElementType());
    Type i64 = rewriter.getI64Type();
    int64_t rank = destType.getRank();
    MemRefDescriptor dest(adaptor.getDest());
    auto index = [&](Value coord) -> Value {
      return LLVM::SExtOp::create(rewriter, loc, i64, coord);
    };
    auto below = [&](Value x, Value size) -> Value {
      return LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ult, x,
                                  size);
    };

    // Where the rows start, and whether this thread stores at all: the
    // quad's first lane (column 0), outer coordinates inside the memref.
    auto [row, col] = threadOrigin(rewriter, loc);
    Value ok = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, col,
                                    i32Const(rewriter, loc, 0));
    Value offset = dest.offset(rewriter, loc);
    for (int64_t d = 0; d + 1 < rank; ++d) {
      Value c = index(adaptor.getCoords()[d]);
      ok = LLVM::AndOp::create(rewriter, loc, ok,
                               below(c, dest.size(rewriter, loc, d)));
      offset = LLVM::AddOp::create(
          rewriter, loc, offset,
          LLVM::MulOp::create(rewriter, loc, c, dest.stride(rewriter, loc, d)));
    }
    Value first = index(adaptor.getCoords()[rank - 1]);
    Value size = dest.size(rewriter, loc, rank - 1);
    Value stride = dest.stride(rewriter, loc, rank - 1);
    Value base = dest.alignedPtr(rewriter, loc);

    // One conditional store per row, in program order before the op.
    for (int64_t v = 0; v < *values; ++v) {
      Value r = LLVM::AddOp::create(
          rewriter, loc, first,
          index(addConst(rewriter, loc, row, kWgmmaM * (v / 2) + 8 * (v % 2))));
      Value inside = LLVM::AndOp::create(rewriter, loc, ok, below(r, size));
      Value at = LLVM::AddOp::create(
          rewriter, loc, offset, LLVM::MulOp::create(rewriter, loc, r, stride));
      Value addr = LLVM::GEPOp::create(rewriter, loc, base.getType(), element,
                                       base, ValueRange{at});
      Value value =
          LLVM::ExtractValueOp::create(rewriter, loc, adaptor.getValue(), v);
      emitIf(rewriter, loc, inside, [&] {
        LLVM::StoreOp::create(rewriter, loc, value, addr,
                              element.getIntOrFloatBitWidth() / 8);
      });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void ws::populateRegisterOpPatterns(const LLVMTypeConverter &converter,
                                    RewritePatternSet &patterns) {
  patterns.add<ReduceLowering, BroadcastLowering, IotaLowering, SplatLowering,
               ConvertLayoutLowering, StoreDirectLowering>(converter);
}
