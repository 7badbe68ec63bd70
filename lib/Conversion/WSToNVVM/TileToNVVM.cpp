//===- TileToNVVM.cpp - Tile compute ops to NVVM (sm90) ------------------===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#include "TileToNVVM.h"

#include "fmha/Dialect/Tile/IR/TileDialect.h"
#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::ws;

/// Rows of one wgmma instruction (m64nNk16).
static constexpr int64_t kWgmmaM = 64;
/// K of one 16-bit wgmma instruction.
static constexpr int64_t kWgmmaK = 16;

/// The register fragments of a `#tile.wgmma_acc` tensor in one warpgroup:
/// `count` m64 x instr_n fragments of `values` values each, fragment index
/// `mr * (N / instr_n) + nr`.
struct Fragments {
  int64_t rowReps, colReps, instrN, values;
  int64_t count() const { return rowReps * colReps; }
};

static std::optional<Fragments> getFragments(RankedTensorType type) {
  auto acc = dyn_cast_or_null<tile::WgmmaAccAttr>(type.getEncoding());
  if (!acc || acc.getWarpgroups() != 1 || type.getRank() != 2)
    return std::nullopt;
  int64_t instrN = acc.getInstrN();
  return Fragments{type.getShape()[0] / kWgmmaM, type.getShape()[1] / instrN,
                   instrN, instrN / 2};
}

static Type fragmentStructType(MLIRContext *ctx, Type element,
                               const Fragments &f) {
  auto inner = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(f.values, element));
  return LLVM::LLVMStructType::getLiteral(ctx,
                                          SmallVector<Type>(f.count(), inner));
}

void ws::populateTileTypeConversions(LLVMTypeConverter &converter) {
  converter.addConversion(
      [&converter](RankedTensorType type) -> std::optional<Type> {
        MLIRContext *ctx = type.getContext();
        if (isa_and_nonnull<tile::NvmmaSharedAttr>(type.getEncoding()))
          return LLVM::LLVMPointerType::get(ctx, kSharedAddressSpace);
        if (std::optional<Fragments> f = getFragments(type)) {
          Type element = converter.convertType(type.getElementType());
          if (!element)
            return std::nullopt;
          return fragmentStructType(ctx, element, *f);
        }
        return std::nullopt;
      });
}

static Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(), v);
}
static Value i64Const(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI64Type(), v);
}

/// Calls `fn(fragment, value)` for every register of a fragment struct.
static void forEachValue(const Fragments &f,
                         function_ref<void(int64_t, int64_t)> fn) {
  for (int64_t i = 0; i < f.count(); ++i)
    for (int64_t v = 0; v < f.values; ++v)
      fn(i, v);
}

namespace {

/// tile.program_id -> the CTA index (ctaid.x/y/z).
struct ProgramIdLowering : ConvertOpToLLVMPattern<tile::ProgramIdOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::ProgramIdOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Value id;
    switch (op.getDim()) {
    case tile::GridDim::x:
      id = NVVM::BlockIdXOp::create(rewriter, op.getLoc(), i32);
      break;
    case tile::GridDim::y:
      id = NVVM::BlockIdYOp::create(rewriter, op.getLoc(), i32);
      break;
    case tile::GridDim::z:
      id = NVVM::BlockIdZOp::create(rewriter, op.getLoc(), i32);
      break;
    }
    rewriter.replaceOp(op, id);
    return success();
  }
};

/// tile.num_programs -> the grid size (nctaid.x/y/z).
struct NumProgramsLowering : ConvertOpToLLVMPattern<tile::NumProgramsOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::NumProgramsOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Value count;
    switch (op.getDim()) {
    case tile::GridDim::x:
      count = NVVM::GridDimXOp::create(rewriter, op.getLoc(), i32);
      break;
    case tile::GridDim::y:
      count = NVVM::GridDimYOp::create(rewriter, op.getLoc(), i32);
      break;
    case tile::GridDim::z:
      count = NVVM::GridDimZOp::create(rewriter, op.getLoc(), i32);
      break;
    }
    rewriter.replaceOp(op, count);
    return success();
  }
};

/// ws.as_tensor -> the buffer's shared-memory address.
struct AsTensorLowering : ConvertOpToLLVMPattern<AsTensorOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(AsTensorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa_and_nonnull<tile::NvmmaSharedAttr>(op.getType().getEncoding()))
      return rewriter.notifyMatchFailure(op, "not an NVMMA shared tensor");
    rewriter.replaceOp(op, MemRefDescriptor(adaptor.getBuffer())
                               .alignedPtr(rewriter, op.getLoc()));
    return success();
  }
};

/// A splat constant in registers -> every register set to the value.
struct SplatConstantLowering : ConvertOpToLLVMPattern<arith::ConstantOp> {
  SplatConstantLowering(const LLVMTypeConverter &converter)
      : ConvertOpToLLVMPattern(converter, /*benefit=*/2) {}
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto dense = dyn_cast<SplatElementsAttr>(op.getValue());
    std::optional<Fragments> f = type ? getFragments(type) : std::nullopt;
    if (!f || !dense)
      return rewriter.notifyMatchFailure(op, "not a register splat");
    Location loc = op.getLoc();
    Type structType = getTypeConverter()->convertType(type);
    Value scalar = LLVM::ConstantOp::create(
        rewriter, loc, getTypeConverter()->convertType(type.getElementType()),
        dense.getSplatValue<Attribute>());
    Value result = LLVM::UndefOp::create(rewriter, loc, structType);
    forEachValue(*f, [&](int64_t i, int64_t v) {
      result = LLVM::InsertValueOp::create(rewriter, loc, result, scalar,
                                           ArrayRef<int64_t>{i, v});
    });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// An elementwise op on register tensors -> the scalar op on each register.
struct ElementwiseLowering : ConversionPattern {
  ElementwiseLowering(const LLVMTypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/2, ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1 ||
        op->getNumRegions() != 0)
      return failure();
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    std::optional<Fragments> f = type ? getFragments(type) : std::nullopt;
    if (!f)
      return failure();
    for (Value operand : op->getOperands()) {
      auto operandType = dyn_cast<RankedTensorType>(operand.getType());
      if (!operandType || operandType.getShape() != type.getShape() ||
          operandType.getEncoding() != type.getEncoding())
        return rewriter.notifyMatchFailure(op, "operands in other layouts");
    }
    Location loc = op->getLoc();
    Value result = LLVM::UndefOp::create(rewriter, loc,
                                         getTypeConverter()->convertType(type));
    forEachValue(*f, [&](int64_t i, int64_t v) {
      SmallVector<Value> scalars;
      for (Value operand : operands)
        scalars.push_back(LLVM::ExtractValueOp::create(
            rewriter, loc, operand, ArrayRef<int64_t>{i, v}));
      OperationState state(loc, op->getName(), scalars, {type.getElementType()},
                           op->getAttrs());
      Operation *scalarOp = rewriter.create(state);
      result = LLVM::InsertValueOp::create(rewriter, loc, result,
                                           scalarOp->getResult(0),
                                           ArrayRef<int64_t>{i, v});
    });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The 64-bit wgmma matrix descriptor of an operand in swizzled shared
/// memory: start address, leading and stride byte offsets, swizzle mode.
/// K-major operands (rows along K) step 8 rows of one swizzle span along
/// M/N. MN-major operands step `leadingBytes` between column blocks one
/// swizzle span wide along M/N, and 8 rows of one span along K.
static Value wgmmaDescriptor(OpBuilder &b, Location loc, Value base,
                             int64_t byteOffset, tile::NvmmaSharedAttr layout,
                             int64_t leadingBytes) {
  int64_t swizzle = layout.getSwizzle();
  // Layout type field (bits 62-63): 1 = 128B, 2 = 64B, 3 = 32B swizzle.
  int64_t mode = swizzle == 128 ? 1 : swizzle == 64 ? 2 : swizzle == 32 ? 3 : 0;
  int64_t strideBytes = 8 * swizzle;
  Value addr = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), base);
  addr = LLVM::AddOp::create(b, loc, addr, i64Const(b, loc, byteOffset));
  Value start = LLVM::AndOp::create(
      b, loc, LLVM::LShrOp::create(b, loc, addr, i64Const(b, loc, 4)),
      i64Const(b, loc, 0x3FFF));
  int64_t fixed = (((leadingBytes >> 4) & 0x3FFF) << 16) |
                  ((strideBytes >> 4) << 32) | (mode << 62);
  return LLVM::OrOp::create(b, loc, start, i64Const(b, loc, fixed));
}

/// tile.dot with operands in shared memory -> wgmma.mma_async m64nNk16 over
/// the K steps and fragments, then wait for them.
struct DotLowering : ConvertOpToLLVMPattern<tile::DotOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(tile::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto aType = cast<RankedTensorType>(op.getA().getType());
    auto bType = cast<RankedTensorType>(op.getB().getType());
    auto aLayout = dyn_cast_or_null<tile::NvmmaSharedAttr>(aType.getEncoding());
    auto bLayout = dyn_cast_or_null<tile::NvmmaSharedAttr>(bType.getEncoding());
    std::optional<Fragments> f = getFragments(op.getAcc().getType());
    if (!aLayout || !bLayout || !f)
      return rewriter.notifyMatchFailure(op, "needs shared operands and a "
                                             "wgmma accumulator");
    if (op.getTransposeA())
      return op.emitOpError("lowers A given as [M, K] only so far");
    Type element = aType.getElementType();
    NVVM::WGMMATypes wgmmaType;
    if (element.isBF16())
      wgmmaType = NVVM::WGMMATypes::bf16;
    else if (element.isF16())
      wgmmaType = NVVM::WGMMATypes::f16;
    else
      return op.emitOpError("wgmma lowering supports bf16 and f16 operands");
    if (!op.getAcc().getType().getElementType().isF32())
      return op.emitOpError("wgmma lowering supports f32 accumulators");

    MLIRContext *ctx = rewriter.getContext();
    Location loc = op.getLoc();
    int64_t k = aType.getShape()[1];
    int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
    int64_t aRowBytes = k * elementBytes;
    // B as [N, K] (transpose_b) is K-major like A. As [K, N] it is MN-major:
    // column blocks one swizzle span wide, each K rows deep, one after the
    // other (as TMA wrote them, one box per block).
    bool bKMajor = op.getTransposeB();
    int64_t bSpanElems = bLayout.getSwizzle() / elementBytes;
    int64_t bBlockBytes = k * bLayout.getSwizzle();
    if (!bKMajor && (bSpanElems == 0 || f->instrN % bSpanElems != 0))
      return op.emitOpError("an MN-major B needs wgmma N (")
             << f->instrN << ") to be a multiple of its swizzle span ("
             << bSpanElems << " elements)";
    auto shape = NVVM::MMAShapeAttr::get(ctx, kWgmmaM, f->instrN, kWgmmaK);
    auto type = NVVM::WGMMATypesAttr::get(ctx, wgmmaType);
    auto f32Type = NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32);
    auto scaleOut = NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::one);
    auto scaleIn = NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one);
    auto row = NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row);
    auto col = NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::col);

    NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
    Value acc = adaptor.getAcc();
    for (int64_t kk = 0; kk < k / kWgmmaK; ++kk) {
      int64_t kBytes = kk * kWgmmaK * elementBytes;
      for (int64_t mr = 0; mr < f->rowReps; ++mr) {
        Value descA = wgmmaDescriptor(rewriter, loc, adaptor.getA(),
                                      mr * kWgmmaM * aRowBytes + kBytes,
                                      aLayout, /*leadingBytes=*/16);
        for (int64_t nr = 0; nr < f->colReps; ++nr) {
          Value descB =
              bKMajor ? wgmmaDescriptor(rewriter, loc, adaptor.getB(),
                                        nr * f->instrN * aRowBytes + kBytes,
                                        bLayout, /*leadingBytes=*/16)
                      : wgmmaDescriptor(rewriter, loc, adaptor.getB(),
                                        nr * (f->instrN / bSpanElems) *
                                                bBlockBytes +
                                            kk * kWgmmaK * bLayout.getSwizzle(),
                                        bLayout, /*leadingBytes=*/bBlockBytes);
          int64_t i = mr * f->colReps + nr;
          Value fragment = LLVM::ExtractValueOp::create(rewriter, loc, acc, i);
          Value result = NVVM::WgmmaMmaAsyncOp::create(
              rewriter, loc, fragment.getType(), fragment, descA, descB, shape,
              type, type, f32Type, scaleOut, scaleIn, scaleIn, row,
              bKMajor ? col : row, NVVM::MMAIntOverflowAttr());
          acc = LLVM::InsertValueOp::create(rewriter, loc, acc, result, i);
        }
      }
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
    // Unless ws-insert-mbarriers placed the waits (ws.async_wgmma), the
    // result is complete when the op is.
    if (!op->hasAttr("ws.async_wgmma"))
      NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc,
                                         rewriter.getI64IntegerAttr(0));
    rewriter.replaceOp(op, acc);
    return success();
  }
};

/// ws.store_shared of a wgmma-layout tensor -> each thread stores its pairs
/// of adjacent columns into the row-major buffer.
struct StoreSharedLowering : ConvertOpToLLVMPattern<StoreSharedOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(StoreSharedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = op.getValue().getType();
    std::optional<Fragments> f = getFragments(type);
    if (!f)
      return rewriter.notifyMatchFailure(op, "not a wgmma-layout tensor");
    Location loc = op.getLoc();
    int64_t cols = type.getShape()[1];
    Type element = getTypeConverter()->convertType(type.getElementType());
    auto pair = VectorType::get({2}, element);
    Value base =
        MemRefDescriptor(adaptor.getBuffer()).alignedPtr(rewriter, loc);

    // This thread's first element: warp w of the warpgroup owns rows
    // 16w..16w+15; lane l holds row l/4 (and l/4 + 8), columns 2(l%4)+{0,1}.
    Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
    Value t =
        LLVM::URemOp::create(rewriter, loc, tid, i32Const(rewriter, loc, 128));
    Value warp = LLVM::UDivOp::create(rewriter, loc, t,
                                      i32Const(rewriter, loc, kThreadsPerWarp));
    Value lane = LLVM::URemOp::create(rewriter, loc, t,
                                      i32Const(rewriter, loc, kThreadsPerWarp));
    Value rowInWarp =
        LLVM::UDivOp::create(rewriter, loc, lane, i32Const(rewriter, loc, 4));
    Value rowOf = LLVM::AddOp::create(
        rewriter, loc,
        LLVM::MulOp::create(rewriter, loc, warp, i32Const(rewriter, loc, 16)),
        rowInWarp);
    Value colOf = LLVM::MulOp::create(
        rewriter, loc,
        LLVM::URemOp::create(rewriter, loc, lane, i32Const(rewriter, loc, 4)),
        i32Const(rewriter, loc, 2));
    Value threadOffset =
        LLVM::AddOp::create(rewriter, loc,
                            LLVM::MulOp::create(rewriter, loc, rowOf,
                                                i32Const(rewriter, loc, cols)),
                            colOf);
    Value threadBase = LLVM::GEPOp::create(rewriter, loc, base.getType(),
                                           element, base, threadOffset);
    for (int64_t i = 0; i < f->count(); ++i) {
      int64_t mr = i / f->colReps, nr = i % f->colReps;
      for (int64_t v = 0; v < f->values; v += 2) {
        int64_t rowOffset = mr * kWgmmaM + 8 * ((v % 4) / 2);
        int64_t colOffset = nr * f->instrN + 8 * (v / 4);
        Value vec = LLVM::UndefOp::create(rewriter, loc, pair);
        for (int64_t j = 0; j < 2; ++j)
          vec = LLVM::InsertElementOp::create(
              rewriter, loc, vec,
              LLVM::ExtractValueOp::create(rewriter, loc, adaptor.getValue(),
                                           ArrayRef<int64_t>{i, v + j}),
              i32Const(rewriter, loc, j));
        Value addr = LLVM::GEPOp::create(
            rewriter, loc, base.getType(), element, threadBase,
            ArrayRef<LLVM::GEPArg>{int32_t(rowOffset * cols + colOffset)});
        LLVM::StoreOp::create(rewriter, loc, vec, addr,
                              /*alignment=*/2 *
                                  (element.getIntOrFloatBitWidth() / 8));
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// ws.tma_store -> cp.async.bulk.tensor shared::cta -> global, committed as
/// a bulk group (coordinates reversed for PTX).
struct TMAStoreLowering : ConvertOpToLLVMPattern<TMAStoreOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(TMAStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = MemRefDescriptor(adaptor.getBuffer()).alignedPtr(rewriter, loc);
    SmallVector<Value> coords(llvm::reverse(adaptor.getCoords()));
    NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
        rewriter, loc, adaptor.getDesc(), src, coords, Value(),
        NVVM::TMAStoreModeAttr::get(rewriter.getContext(),
                                    NVVM::TMAStoreMode::TILE),
        Value());
    NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

/// ws.tma_store_wait -> cp.async.bulk.wait_group.read 0.
struct TMAStoreWaitLowering : ConvertOpToLLVMPattern<TMAStoreWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(TMAStoreWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkWaitGroupOp>(
        op, rewriter.getI32IntegerAttr(0), rewriter.getUnitAttr());
    return success();
  }
};

} // namespace

void ws::populateTileToNVVMPatterns(const LLVMTypeConverter &converter,
                                    RewritePatternSet &patterns) {
  patterns.add<ProgramIdLowering, NumProgramsLowering, AsTensorLowering,
               SplatConstantLowering, DotLowering, StoreSharedLowering,
               TMAStoreLowering, TMAStoreWaitLowering>(converter);
  patterns.add<ElementwiseLowering>(converter, patterns.getContext());
}
