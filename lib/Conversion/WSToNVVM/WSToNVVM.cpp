//===- WSToNVVM.cpp - Lower explicit rings and roles to NVVM -------------===//
//
// Part of fmha. Implements convert-ws-to-nvvm.
//
//===----------------------------------------------------------------------===//

#include "LowerRoles.h"
#include "TileToNVVM.h"

#include "fmha/Conversion/Passes.h"
#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace fmha {
#define GEN_PASS_DEF_CONVERTWSTONVVM
#include "fmha/Conversion/Passes.h.inc"
} // namespace fmha
} // namespace mlir

using namespace mlir;
using namespace mlir::ws;

/// The kernel's dynamic shared memory: one external array in the module.
static constexpr StringLiteral kSharedMemoryName = "__fmha_smem";
/// Bytes of a CUtensorMap.
static constexpr int64_t kTensorMapBytes = 128;
/// Suspend-time hint of mbarrier.try_wait, in nanoseconds.
static constexpr int64_t kTryWaitTicks = 10000000;

static Type sharedPtrType(MLIRContext *ctx) {
  return LLVM::LLVMPointerType::get(ctx, kSharedAddressSpace);
}

static Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(), v);
}

/// Pointer to byte `offset` of the kernel's dynamic shared memory.
static Value sharedMemoryAt(OpBuilder &b, Location loc, int64_t offset) {
  MLIRContext *ctx = b.getContext();
  Value base =
      LLVM::AddressOfOp::create(b, loc, sharedPtrType(ctx), kSharedMemoryName);
  return LLVM::GEPOp::create(b, loc, sharedPtrType(ctx), b.getI8Type(), base,
                             ArrayRef<LLVM::GEPArg>{int32_t(offset)});
}

/// Address of barrier `index` of an mbarrier array.
static Value barrierAt(OpBuilder &b, Location loc, Value barriers,
                       Value index) {
  return LLVM::GEPOp::create(b, loc, barriers.getType(), b.getI64Type(),
                             barriers, ValueRange{index});
}

namespace {

/// ws.buffer_alloc -> a memref descriptor over the ring's shared memory.
struct BufferAllocLowering : ConvertOpToLLVMPattern<BufferAllocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(BufferAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getOffset())
      return rewriter.notifyMatchFailure(op, "no offset: run ws-allocate-smem");
    Value ptr = sharedMemoryAt(rewriter, op.getLoc(), *op.getOffset());
    Value desc = MemRefDescriptor::fromStaticShape(
        rewriter, op.getLoc(), *getTypeConverter(), op.getType(), ptr);
    rewriter.replaceOp(op, desc);
    return success();
  }
};

/// ws.slot -> a memref descriptor at stage * slot bytes into the ring.
struct SlotLowering : ConvertOpToLLVMPattern<SlotOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SlotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value ring = MemRefDescriptor(adaptor.getRing()).alignedPtr(rewriter, loc);
    Value bytes = LLVM::MulOp::create(
        rewriter, loc, adaptor.getStage(),
        i32Const(rewriter, loc, getMemRefBytes(op.getType())));
    Value ptr =
        LLVM::GEPOp::create(rewriter, loc, ring.getType(), rewriter.getI8Type(),
                            ring, ValueRange{bytes});
    Value desc = MemRefDescriptor::fromStaticShape(
        rewriter, loc, *getTypeConverter(), op.getType(), ptr);
    rewriter.replaceOp(op, desc);
    return success();
  }
};

/// ws.mbarrier_alloc -> a shared-memory pointer; thread 0 initialises each
/// barrier with the expected arrival count.
struct MBarrierAllocLowering : ConvertOpToLLVMPattern<MBarrierAllocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(MBarrierAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getOffset())
      return rewriter.notifyMatchFailure(op, "no offset: run ws-allocate-smem");
    Location loc = op.getLoc();
    Value base = sharedMemoryAt(rewriter, loc, *op.getOffset());
    Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
    Value isThread0 =
        LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, tid,
                             i32Const(rewriter, loc, 0));
    Value arrivals = i32Const(rewriter, loc, op.getArrivals());
    for (unsigned i = 0; i < op.getType().getCount(); ++i)
      NVVM::MBarrierInitOp::create(
          rewriter, loc,
          barrierAt(rewriter, loc, base, i32Const(rewriter, loc, i)), arrivals,
          isThread0);
    rewriter.replaceOp(op, base);
    return success();
  }
};

/// ws.mbarrier_wait -> a try_wait.parity loop.
struct MBarrierWaitLowering : ConvertOpToLLVMPattern<MBarrierWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(MBarrierWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value addr =
        barrierAt(rewriter, loc, adaptor.getBarriers(), adaptor.getIndex());
    rewriter.replaceOpWithNewOp<NVVM::MBarrierTryWaitParityOp>(
        op, addr, adaptor.getPhase(), i32Const(rewriter, loc, kTryWaitTicks));
    return success();
  }
};

/// ws.mbarrier_arrive -> mbarrier.arrive, or arrive.expect_tx with bytes.
struct MBarrierArriveLowering : ConvertOpToLLVMPattern<MBarrierArriveOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(MBarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value addr =
        barrierAt(rewriter, loc, adaptor.getBarriers(), adaptor.getIndex());
    auto scope = NVVM::MemScopeKindAttr::get(rewriter.getContext(),
                                             NVVM::MemScopeKind::CTA);
    if (std::optional<int64_t> bytes = op.getTxBytes())
      NVVM::MBarrierArriveExpectTxOp::create(
          rewriter, loc, Type(), addr, i32Const(rewriter, loc, *bytes), scope,
          rewriter.getBoolAttr(false), Value());
    else
      NVVM::MBarrierArriveOp::create(rewriter, loc, Type(), addr, Value(),
                                     scope);
    rewriter.eraseOp(op);
    return success();
  }
};

/// ws.tma_load_mbarrier -> cp.async.bulk.tensor (coordinates reversed: PTX
/// lists the innermost dimension first).
struct TMALoadLowering : ConvertOpToLLVMPattern<TMALoadMBarrierOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(TMALoadMBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value dst = MemRefDescriptor(adaptor.getBuffer()).alignedPtr(rewriter, loc);
    Value bar =
        barrierAt(rewriter, loc, adaptor.getBarriers(), adaptor.getIndex());
    SmallVector<Value> coords(llvm::reverse(adaptor.getCoords()));

    // A swizzled block whose rows are wider than the swizzle span moves as
    // several boxes one span wide, stored one after the other (the layout
    // #tile.nvmma_shared describes); the tensor map's box is one of them.
    RankedTensorType block = op.getDesc().getType().getBlock();
    int64_t elementBytes = block.getElementTypeBitWidth() / 8;
    int64_t rowBytes = block.getShape().back() * elementBytes;
    int64_t span = rowBytes;
    if (auto layout =
            dyn_cast_or_null<tile::NvmmaSharedAttr>(block.getEncoding()))
      if (layout.getSwizzle() > 0 && rowBytes > int64_t(layout.getSwizzle()))
        span = layout.getSwizzle();
    int64_t pieceBytes =
        block.getNumElements() / block.getShape().back() * span;
    for (int64_t piece = 0; piece < rowBytes / span; ++piece) {
      SmallVector<Value> pieceCoords(coords);
      Value pieceDst = dst;
      if (piece > 0) {
        pieceCoords[0] = LLVM::AddOp::create(
            rewriter, loc, coords[0],
            i32Const(rewriter, loc, piece * span / elementBytes));
        pieceDst = LLVM::GEPOp::create(
            rewriter, loc, dst.getType(), rewriter.getI8Type(), dst,
            ArrayRef<LLVM::GEPArg>{int32_t(piece * pieceBytes)});
      }
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          rewriter, loc, pieceDst, adaptor.getDesc(), pieceCoords, bar,
          ValueRange(), Value(), Value(),
          NVVM::TMALoadModeAttr::get(rewriter.getContext(),
                                     NVVM::TMALoadMode::TILE),
          rewriter.getBoolAttr(true), NVVM::CTAGroupKindAttr(), Value());
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// ws.fence_async_shared -> fence.proxy.async.shared::cta.
struct FenceAsyncSharedLowering : ConvertOpToLLVMPattern<FenceAsyncSharedOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(FenceAsyncSharedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MLIRContext *ctx = rewriter.getContext();
    rewriter.replaceOpWithNewOp<NVVM::FenceProxyOp>(
        op, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    return success();
  }
};

/// ws.barrier_sync -> bar.sync id, threads.
struct BarrierSyncLowering : ConvertOpToLLVMPattern<BarrierSyncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(BarrierSyncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    NVVM::BarrierOp::create(rewriter, loc, Type(),
                            i32Const(rewriter, loc, op.getId()),
                            i32Const(rewriter, loc, op.getThreads()),
                            NVVM::BarrierReductionAttr(), Value());
    rewriter.eraseOp(op);
    return success();
  }
};

/// ws.barrier_arrive -> bar.arrive id, threads.
struct BarrierArriveLowering : ConvertOpToLLVMPattern<BarrierArriveOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(BarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    rewriter.replaceOpWithNewOp<NVVM::BarrierArriveOp>(
        op, i32Const(rewriter, loc, op.getId()),
        i32Const(rewriter, loc, op.getThreads()));
    return success();
  }
};

/// The kernels' !tile.desc parameters, remembered across the conversion.
struct TensorMapParams {
  StringAttr name;
  FunctionType type;
  SmallVector<unsigned> indices;
};

/// Marks the LLVM parameters that carry tensor maps: 128-byte CUtensorMaps
/// passed by value (`__grid_constant__`) and used in place by TMA.
static void markTensorMapParams(gpu::GPUModuleOp module,
                                const LLVMTypeConverter &converter,
                                ArrayRef<TensorMapParams> kernels) {
  MLIRContext *ctx = module.getContext();
  auto mapType =
      LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), kTensorMapBytes);
  for (const TensorMapParams &kernel : kernels) {
    auto func = module.lookupSymbol<LLVM::LLVMFuncOp>(kernel.name);
    if (!func)
      continue;
    TypeConverter::SignatureConversion signature(kernel.type.getNumInputs());
    if (!converter.convertFunctionSignature(kernel.type, /*isVariadic=*/false,
                                            /*useBarePtrCallConv=*/false,
                                            signature))
      continue;
    for (unsigned index : kernel.indices) {
      unsigned arg = signature.getInputMapping(index)->inputNo;
      func.setArgAttr(arg, LLVM::LLVMDialect::getByValAttrName(),
                      TypeAttr::get(mapType));
      func.setArgAttr(arg, LLVM::LLVMDialect::getAlignAttrName(),
                      IntegerAttr::get(IntegerType::get(ctx, 64), 64));
      func.setArgAttr(arg, NVVM::NVVMDialect::getGridConstantAttrName(),
                      UnitAttr::get(ctx));
    }
  }
}

struct ConvertWSToNVVMPass
    : public fmha::impl::ConvertWSToNVVMBase<ConvertWSToNVVMPass> {
  void runOnOperation() override {
    SmallVector<gpu::GPUModuleOp> modules;
    getOperation()->walk([&](gpu::GPUModuleOp m) { modules.push_back(m); });
    for (gpu::GPUModuleOp module : modules)
      if (failed(convert(module)))
        return signalPassFailure();
  }

  LogicalResult convert(gpu::GPUModuleOp module) {
    MLIRContext *ctx = module.getContext();
    bool usesSharedMemory = false;
    SmallVector<TensorMapParams> kernels;
    WalkResult walk = module.walk([&](FunctionOpInterface func) {
      TensorMapParams params{func.getNameAttr(),
                             dyn_cast<FunctionType>(func.getFunctionType()),
                             {}};
      for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
        if (isa<tile::TensorDescType>(type))
          params.indices.push_back(i);
      if (params.type && !params.indices.empty())
        kernels.push_back(params);
      if (failed(lowerRoles(func)))
        return WalkResult::interrupt();
      usesSharedMemory |= func->hasAttr("ws.smem_bytes");
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    if (usesSharedMemory && !module.lookupSymbol(kSharedMemoryName)) {
      OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
      LLVM::GlobalOp::create(
          b, module.getLoc(), LLVM::LLVMArrayType::get(b.getI8Type(), 0),
          /*isConstant=*/false, LLVM::Linkage::External, kSharedMemoryName,
          Attribute(), /*alignment=*/1024, kSharedAddressSpace);
    }

    // Structured control flow first, types untouched, so that the LLVM
    // conversion below sees every block of every kernel.
    {
      RewritePatternSet scfPatterns(ctx);
      populateSCFToControlFlowConversionPatterns(scfPatterns);
      ConversionTarget scfTarget(*ctx);
      scfTarget.addIllegalDialect<scf::SCFDialect>();
      scfTarget.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
      if (failed(applyPartialConversion(module, scfTarget,
                                        std::move(scfPatterns))))
        return failure();
    }

    LowerToLLVMOptions options(ctx);
    LLVMTypeConverter converter(ctx, options);
    configureGpuToNVVMTypeConverter(converter);
    converter.addConversion([ctx](tile::TensorDescType) -> Type {
      return LLVM::LLVMPointerType::get(ctx);
    });
    converter.addConversion(
        [ctx](MBarrierType) -> Type { return sharedPtrType(ctx); });
    populateTileTypeConversions(converter);

    RewritePatternSet patterns(ctx);
    patterns.add<BufferAllocLowering, SlotLowering, MBarrierAllocLowering,
                 MBarrierWaitLowering, MBarrierArriveLowering, TMALoadLowering,
                 FenceAsyncSharedLowering, BarrierSyncLowering,
                 BarrierArriveLowering>(converter);
    populateTileToNVVMPatterns(converter, patterns);
    populateGpuToNVVMConversionPatterns(converter, patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    index::populateIndexToLLVMConversionPatterns(converter, patterns);
    populateMathToLLVMConversionPatterns(converter, patterns);
    populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);

    LLVMConversionTarget target(*ctx);
    configureGpuToNVVMConversionLegality(target);
    target.addLegalDialect<NVVM::NVVMDialect>();
    target
        .addIllegalDialect<ws::WSDialect, tile::TileDialect, scf::SCFDialect>();
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return failure();
    markTensorMapParams(module, converter, kernels);
    return success();
  }
};
} // namespace
