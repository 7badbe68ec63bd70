//===- TCGen05ToNVVM.cpp - Tensor memory and tcgen05 to NVVM (sm100) ------===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#include "BranchUtils.h"
#include "Lowering.h"
#include "Patterns.h"
#include "Values.h"

#include "fmha/Conversion/UMMADescriptors.h"
#include "fmha/Dialect/Tile/IR/TileDialect.h"
#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::ws;
namespace umma = mlir::fmha::umma;

/// The address space of tensor memory in NVVM.
static constexpr unsigned kTensorAddressSpace = 6;
/// Lanes of tensor memory, one per row of a 128-row accumulator.
static constexpr int64_t kTMEMLanes = 128;
/// K of one tcgen05.mma in bytes, whatever the element type (16 elements
/// of `.kind::f16`, 32 of `.kind::f8f6f4`'s fp8).
static constexpr int64_t kMmaKBytes = 32;

namespace {
/// The kind of a tcgen05.mma and its A and B type codes.
struct MmaTypes {
  NVVM::Tcgen05MMAKind kind;
  umma::OperandType a, b;
};
} // namespace

/// The `.kind::f16` type of `element`, if it is one.
static std::optional<umma::F16Kind> getF16Kind(Type element) {
  if (element.isBF16())
    return umma::F16Kind::BF16;
  if (element.isF16())
    return umma::F16Kind::F16;
  return std::nullopt;
}

/// The `.kind::f8f6f4` type of `element`, if fmha uses it.
static std::optional<umma::F8F6F4Kind> getF8Kind(Type element) {
  if (isa<Float8E4M3FNType>(element))
    return umma::F8F6F4Kind::E4M3;
  if (isa<Float8E5M2Type>(element))
    return umma::F8F6F4Kind::E5M2;
  return std::nullopt;
}

/// The tcgen05.mma kind of A and B elements `a` and `b`: `.kind::f16` for
/// two equal 16-bit types, `.kind::f8f6f4` for e4m3 / e5m2 each; nullopt
/// for others.
static std::optional<MmaTypes> getMmaTypes(Type a, Type b) {
  std::optional<umma::F16Kind> a16 = getF16Kind(a), b16 = getF16Kind(b);
  if (a16 && b16 && a == b)
    return MmaTypes{NVVM::Tcgen05MMAKind::F16, *a16, *b16};
  std::optional<umma::F8F6F4Kind> a8 = getF8Kind(a), b8 = getF8Kind(b);
  if (a8 && b8)
    return MmaTypes{NVVM::Tcgen05MMAKind::F8F6F4, *a8, *b8};
  return std::nullopt;
}

void ws::populateTCGen05TypeConversions(LLVMTypeConverter &converter) {
  converter.addConversion([](MemRefType type) -> std::optional<Type> {
    if (isTensorMemory(type))
      return IntegerType::get(type.getContext(), 32);
    return std::nullopt;
  });
  converter.addConversion([](RankedTensorType type) -> std::optional<Type> {
    if (isa_and_nonnull<tile::TmemAttr>(type.getEncoding()))
      return IntegerType::get(type.getContext(), 32);
    return std::nullopt;
  });
}

/// For a tensor laid out by `#tile.tmem_32x32b<warpgroups = 1>` with 128
/// rows, what tcgen05.ld and tcgen05.st move: the values each thread holds
/// (its row, every column), value v being column v. nullopt for other
/// tensors.
static std::optional<int64_t> getTmemRowValues(RankedTensorType type) {
  auto layout = dyn_cast_or_null<tile::Tmem32x32bAttr>(type.getEncoding());
  if (!layout || layout.getWarpgroups() != 1 || type.getRank() != 2 ||
      type.getShape()[0] != kTMEMLanes)
    return std::nullopt;
  return type.getShape()[1];
}

/// A TMEM address as the pointer NVVM's tcgen05 ops take.
static Value tmemPointer(OpBuilder &b, Location loc, Value address) {
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), kTensorAddressSpace),
      address);
}

/// Runs `body` in warp 0 of the CTA only (a branch on the warp index):
/// tcgen05.alloc, relinquish_alloc_permit and dealloc are issued by one
/// warp.
static void inWarpZero(ConversionPatternRewriter &rewriter, Location loc,
                       function_ref<void()> body) {
  Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
  Value warp = LLVM::UDivOp::create(rewriter, loc, tid,
                                    i32Const(rewriter, loc, kThreadsPerWarp));
  Value isWarpZero = LLVM::ICmpOp::create(
      rewriter, loc, LLVM::ICmpPredicate::eq, warp, i32Const(rewriter, loc, 0));
  emitIf(rewriter, loc, isWarpZero, body);
}

/// A CTA barrier between tcgen05 fences: orders the tensor-memory work of
/// every thread before it with that after it.
static void fencedBarrier(OpBuilder &b, Location loc) {
  NVVM::Tcgen05FenceOp::create(b, loc,
                               NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  NVVM::BarrierOp::create(b, loc);
  NVVM::Tcgen05FenceOp::create(b, loc,
                               NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
}

/// The CTA group of a tensor-memory op: 2 in 2-CTA mode (marked by
/// ws-lower-cta-pairs), where one warp of each CTA of the pair allocates
/// and frees together.
static NVVM::CTAGroupKind ctaGroup(Operation *op) {
  return op->hasAttr(kCtaPairAttrName) ? NVVM::CTAGroupKind::CTA_2
                                       : NVVM::CTAGroupKind::CTA_1;
}

/// ws.tmem_alloc -> warp 0 allocates into the shared-memory slot; after a
/// CTA barrier every thread reads the address from it.
static LogicalResult lowerTMEMAlloc(TMEMAllocOp op,
                                    TMEMAllocOp::Adaptor adaptor,
                                    ConversionPatternRewriter &rewriter) {
  if (!op.getSlot())
    return rewriter.notifyMatchFailure(
        op, "no shared-memory slot: run ws-allocate-tmem");
  Location loc = op.getLoc();
  Value slot = MemRefDescriptor(adaptor.getSlot()).alignedPtr(rewriter, loc);
  Value columns = i32Const(rewriter, loc, op.getColumns());
  inWarpZero(rewriter, loc, [&] {
    NVVM::Tcgen05AllocOp::create(rewriter, loc, slot, columns, ctaGroup(op));
  });
  fencedBarrier(rewriter, loc);
  rewriter.replaceOpWithNewOp<LLVM::LoadOp>(op, rewriter.getI32Type(), slot);
  return success();
}

/// ws.tmem_relinquish -> tcgen05.relinquish_alloc_permit by warp 0.
static LogicalResult lowerTMEMRelinquish(TMEMRelinquishOp op,
                                         TMEMRelinquishOp::Adaptor,
                                         ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  inWarpZero(rewriter, loc, [&] {
    NVVM::Tcgen05RelinquishAllocPermitOp::create(rewriter, loc, ctaGroup(op));
  });
  rewriter.eraseOp(op);
  return success();
}

/// ws.tmem_dealloc -> once every thread is done with tensor memory (a
/// fenced CTA barrier), warp 0 frees it. In 2-CTA mode the barrier spans
/// the cluster: neither CTA frees its columns, or exits with barriers the
/// other still signals, before both are done.
static LogicalResult lowerTMEMDealloc(TMEMDeallocOp op,
                                      TMEMDeallocOp::Adaptor adaptor,
                                      ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  NVVM::CTAGroupKind group = ctaGroup(op);
  if (group == NVVM::CTAGroupKind::CTA_2) {
    NVVM::Tcgen05FenceOp::create(rewriter, loc,
                                 NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
    NVVM::ClusterArriveOp::create(rewriter, loc, rewriter.getUnitAttr());
    NVVM::ClusterWaitOp::create(rewriter, loc, rewriter.getUnitAttr());
    NVVM::Tcgen05FenceOp::create(rewriter, loc,
                                 NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  } else {
    fencedBarrier(rewriter, loc);
  }
  Value address = tmemPointer(rewriter, loc, adaptor.getAddress());
  Value columns = i32Const(rewriter, loc, op.getColumns());
  inWarpZero(rewriter, loc, [&] {
    NVVM::Tcgen05DeallocOp::create(rewriter, loc, address, columns, group);
  });
  rewriter.eraseOp(op);
  return success();
}

/// ws.tmem_buffer -> the allocation's address plus the buffer's column.
static LogicalResult lowerTMEMBuffer(TMEMBufferOp op,
                                     TMEMBufferOp::Adaptor adaptor,
                                     ConversionPatternRewriter &rewriter) {
  if (!op.getBase() || !op.getColumn())
    return rewriter.notifyMatchFailure(op, "no columns: run ws-allocate-tmem");
  rewriter.replaceOpWithNewOp<LLVM::AddOp>(
      op, adaptor.getBase(), i32Const(rewriter, op.getLoc(), *op.getColumn()));
  return success();
}

/// ws.slot of a tensor-memory ring -> the ring's address plus the stage
/// times the stage stride in columns.
static LogicalResult lowerTMEMSlot(SlotOp op, SlotOp::Adaptor adaptor,
                                   ConversionPatternRewriter &rewriter) {
  if (!isTensorMemory(op.getType()))
    return rewriter.notifyMatchFailure(op, "not a tensor-memory ring");
  auto ring = op.getRing().getDefiningOp<TMEMBufferOp>();
  if (!ring)
    return rewriter.notifyMatchFailure(op, "ring is not a ws.tmem_buffer");
  Location loc = op.getLoc();
  Value offset =
      LLVM::MulOp::create(rewriter, loc, adaptor.getStage(),
                          i32Const(rewriter, loc, ring.getStageStride()));
  rewriter.replaceOpWithNewOp<LLVM::AddOp>(op, adaptor.getRing(), offset);
  return success();
}

/// memref.subview of a tensor-memory buffer that keeps every lane (row) ->
/// the buffer's address plus its first column: a 32-bit element takes a
/// column, two 16-bit ones share one (packed), so the view's first element
/// must start a column.
static LogicalResult lowerTMEMSubView(memref::SubViewOp op,
                                      memref::SubViewOp::Adaptor adaptor,
                                      ConversionPatternRewriter &rewriter) {
  MemRefType source = op.getSourceType();
  if (!isTensorMemory(source))
    return rewriter.notifyMatchFailure(op, "not a tensor-memory buffer");
  ArrayRef<int64_t> offsets = op.getStaticOffsets();
  ArrayRef<int64_t> sizes = op.getStaticSizes();
  int64_t bits = source.getElementTypeBitWidth();
  if (source.getRank() != 2 || op.getType().getRank() != 2 ||
      (bits != 32 && bits != 16) || offsets[0] != 0 ||
      ShapedType::isDynamic(offsets[1]) || offsets[1] * bits % 32 != 0 ||
      sizes[0] != source.getShape()[0] ||
      !llvm::all_of(op.getStaticStrides(),
                    [](int64_t stride) { return stride == 1; }))
    return op.emitOpError("views tensor memory as whole rows of 32-bit "
                          "or packed 16-bit elements from a static column "
                          "only");
  rewriter.replaceOpWithNewOp<LLVM::AddOp>(
      op, adaptor.getSource(),
      i32Const(rewriter, op.getLoc(), offsets[1] * bits / 32));
  return success();
}

/// memref.subview of a shared-memory buffer with a static result layout
/// (the chunks of a staging buffer an epilogue writes 32 columns at a time)
/// -> a descriptor of the same pointers with the view's offset, sizes and
/// strides.
static LogicalResult lowerSharedSubView(memref::SubViewOp op,
                                        memref::SubViewOp::Adaptor adaptor,
                                        ConversionPatternRewriter &rewriter,
                                        const LLVMTypeConverter &converter) {
  MemRefType type = op.getType();
  if (!isSharedMemory(op.getSourceType()))
    return rewriter.notifyMatchFailure(op, "not a shared-memory buffer");
  if (!type.hasStaticShape() || !op.getSourceType().getLayout().isIdentity())
    return op.emitOpError("views a shared-memory buffer with static "
                          "offsets, sizes and strides only");
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return op.emitOpError("views a shared-memory buffer with static "
                          "offsets, sizes and strides only");
  Location loc = op.getLoc();
  MemRefDescriptor source(adaptor.getSource());
  rewriter.replaceOp(op, Value(MemRefDescriptor::fromStaticShape(
                             rewriter, loc, converter, type,
                             source.allocatedPtr(rewriter, loc),
                             source.alignedPtr(rewriter, loc))));
  return success();
}

/// ws.as_tensor of a tensor-memory buffer -> its address.
static LogicalResult lowerTMEMAsTensor(AsTensorOp op,
                                       AsTensorOp::Adaptor adaptor,
                                       ConversionPatternRewriter &rewriter) {
  if (!isTensorMemory(op.getBuffer().getType()))
    return rewriter.notifyMatchFailure(op, "not a tensor-memory buffer");
  rewriter.replaceOp(op, adaptor.getBuffer());
  return success();
}

void ws::replaceWithTCGen05Commit(MBarrierArriveOp op, Value barrier,
                                  ConversionPatternRewriter &rewriter) {
  if (ctaGroup(op) == NVVM::CTAGroupKind::CTA_2 || op.getMulticast()) {
    Value both = LLVM::ConstantOp::create(rewriter, op.getLoc(),
                                          rewriter.getI16Type(), 0b11);
    rewriter.replaceOpWithNewOp<NVVM::Tcgen05CommitOp>(
        op, barrier, both,
        NVVM::CTAGroupKindAttr::get(rewriter.getContext(), ctaGroup(op)));
    return;
  }
  rewriter.replaceOpWithNewOp<NVVM::Tcgen05CommitOp>(op, barrier, Value());
}

/// Byte offset of the K step starting `kBytes` into the rows of a K-major
/// operand of `rows` rows: rows wider than the swizzle span are stored as
/// column blocks one span wide (one TMA box each).
static int64_t kMajorOffset(int64_t kBytes, int64_t rows, int64_t span) {
  return kBytes / span * rows * span + kBytes % span;
}

/// The shared-memory descriptor of an operand at `base` + `byteOffset`:
/// the start address at run time, the rest from `fields`.
static Value smemDescriptor(OpBuilder &b, Location loc, Value base,
                            int64_t byteOffset,
                            const umma::SmemDescriptor &fields) {
  Value addr = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), base);
  addr = LLVM::AddOp::create(b, loc, addr, i64Const(b, loc, byteOffset));
  return LLVM::OrOp::create(b, loc, buildStartAddress(b, loc, addr),
                            i64Const(b, loc, int64_t(umma::encode(fields))));
}

/// ws.tcgen05_mma -> one tcgen05.mma.cta_group::1.kind::f16 per K step of
/// 16 (`.kind::f8f6f4` per K step of 32 for e4m3 / e5m2 operands, both
/// K-major from shared memory), with shared-memory descriptors for A and
/// B and one instruction descriptor (fmha/Conversion/UMMADescriptors.h).
/// With `cta_pair`,
/// tcgen05.mma.cta_group::2 of M = twice D's rows: the descriptors name
/// this CTA's operands, the hardware reads the peer's at the same offsets.
static LogicalResult lowerTCGen05MMA(TCGen05MMAOp op,
                                     TCGen05MMAOp::Adaptor adaptor,
                                     ConversionPatternRewriter &rewriter) {
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto bType = cast<RankedTensorType>(op.getB().getType());
  auto dType = cast<MemRefType>(op.getD().getType());
  auto aLayout = dyn_cast<tile::NvmmaSharedAttr>(aType.getEncoding());
  auto aTmem = dyn_cast<tile::TmemAttr>(aType.getEncoding());
  auto bLayout = cast<tile::NvmmaSharedAttr>(bType.getEncoding());
  if (op.getTransposeA())
    return op.emitOpError("lowers A given as [M, K] only so far");
  if (aTmem && (aTmem.getUnpacked() || aTmem.getBlockM() != kTMEMLanes))
    return op.emitOpError("reads A from tensor memory as 128 rows of "
                          "packed 16-bit elements only so far");
  std::optional<MmaTypes> types =
      getMmaTypes(aType.getElementType(), bType.getElementType());
  if (!types)
    return op.emitOpError("tcgen05.mma lowering supports bf16 or f16 A and B "
                          "of one type, or f8E4M3FN / f8E5M2 A and B; got ")
           << aType.getElementType() << " and " << bType.getElementType();
  bool fp8 = types->kind == NVVM::Tcgen05MMAKind::F8F6F4;
  if (fp8 && (aTmem || !op.getTransposeB()))
    return op.emitOpError("fp8 tcgen05.mma lowers A and B from shared "
                          "memory, both K-major (B given as [N, K], "
                          "transpose_b), only so far");
  bool pair = op.getCtaPair();
  unsigned ctas = pair ? 2 : 1;
  // The MMA's M spans the pair's rows; each CTA holds half of B's N.
  int64_t m = ctas * dType.getShape()[0], n = dType.getShape()[1];
  int64_t bN = n / ctas;
  if (std::optional<std::string> why = umma::checkF16Shape(m, n, ctas))
    return op.emitOpError(*why);
  int64_t k = aType.getShape()[1];
  int64_t elementBytes = aType.getElementTypeBitWidth() / 8;
  // One instruction's K: 32 bytes, 16 elements of 16 bits or 32 of fp8.
  int64_t instrK = kMmaKBytes / elementBytes;
  int64_t aSpan = aLayout ? aLayout.getSwizzle() : 128;
  int64_t bSpan = bLayout.getSwizzle();
  bool bKMajor = op.getTransposeB();
  if (aSpan == 0 || bSpan == 0)
    return op.emitOpError("needs swizzled operands (32, 64 or 128 bytes)");
  if (!bKMajor && bN % (bSpan / elementBytes) != 0)
    return op.emitOpError("an MN-major B needs N (")
           << bN << ") to be a multiple of its swizzle span ("
           << bSpan / elementBytes << " elements)";

  Location loc = op.getLoc();
  umma::InstrDescriptor instr;
  instr.aType = types->a;
  instr.bType = types->b;
  instr.transposeB = !bKMajor;
  instr.m = m;
  instr.n = n;
  Value idesc = i32Const(rewriter, loc, int64_t(umma::encode(instr)));
  umma::SmemDescriptor aFields =
      umma::canonicalDescriptor(aSpan, /*kMajor=*/true);
  // An MN-major B: column blocks one span wide, each K rows deep.
  umma::SmemDescriptor bFields = umma::canonicalDescriptor(
      bSpan, bKMajor, /*blockBytes=*/uint32_t(k * bSpan));
  Value d = tmemPointer(rewriter, loc, adaptor.getD());
  Value one = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(),
                                       rewriter.getBoolAttr(true));
  // Tensor-memory reads and writes of other threads (the epilogue that
  // freed this accumulator) happen before.
  NVVM::Tcgen05FenceOp::create(rewriter, loc,
                               NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  for (int64_t kk = 0; kk < k / instrK; ++kk) {
    int64_t kBytes = kk * kMmaKBytes;
    // A in tensor memory: K step kk starts kBytes / 4 columns further
    // along its rows (16 packed 16-bit elements: 8 columns).
    Value descA =
        aTmem ? tmemPointer(
                    rewriter, loc,
                    LLVM::AddOp::create(rewriter, loc, adaptor.getA(),
                                        i32Const(rewriter, loc, kBytes / 4)))
              : smemDescriptor(rewriter, loc, adaptor.getA(),
                               kMajorOffset(kBytes, aType.getShape()[0], aSpan),
                               aFields);
    Value descB = smemDescriptor(
        rewriter, loc, adaptor.getB(),
        bKMajor ? kMajorOffset(kBytes, bType.getShape()[0], bSpan)
                : kk * instrK * bSpan,
        bFields);
    NVVM::Tcgen05MMAOp::create(
        rewriter, loc, types->kind,
        pair ? NVVM::CTAGroupKind::CTA_2 : NVVM::CTAGroupKind::CTA_1,
        NVVM::Tcgen05MMACollectorOp::DISCARD, /*aShift=*/false, d, descA, descB,
        idesc, kk == 0 ? adaptor.getAccumulate() : one,
        /*scaleInputD=*/Value(), /*disableOutputLane=*/Value());
  }
  rewriter.eraseOp(op);
  return success();
}

/// The TMEM address of the calling thread's row (lane) of a 128-lane
/// buffer at `base`: warp w of a warpgroup reaches lanes 32 * (w % 4) on.
static Value rowAddress(OpBuilder &b, Location loc, Value base) {
  Type i32 = b.getI32Type();
  Value tid = NVVM::ThreadIdXOp::create(b, loc, i32);
  Value quarter = LLVM::URemOp::create(
      b, loc,
      LLVM::UDivOp::create(b, loc, tid, i32Const(b, loc, kThreadsPerWarp)),
      i32Const(b, loc, 4));
  // The lane is the high half of a TMEM address: 32 lanes per quarter.
  Value lanes = LLVM::ShlOp::create(b, loc, quarter, i32Const(b, loc, 16 + 5));
  return LLVM::AddOp::create(b, loc, base, lanes);
}

/// tile.convert_layout from tensor memory (`#tile.tmem`, f32, 128 rows) to
/// `#tile.tmem_32x32b<warpgroups = 1>` -> tcgen05.ld.32x32b: warp w of the
/// warpgroup reads lanes 32 * (w % 4) .. + 31, each thread its row, in
/// chunks of at most 32 columns; then wait for the loads.
static LogicalResult lowerTMEMLoad(tile::ConvertLayoutOp op,
                                   tile::ConvertLayoutOp::Adaptor adaptor,
                                   ConversionPatternRewriter &rewriter,
                                   const LLVMTypeConverter &converter) {
  RankedTensorType inType = op.getInput().getType();
  auto tmem = dyn_cast_or_null<tile::TmemAttr>(inType.getEncoding());
  std::optional<int64_t> values = getTmemRowValues(op.getType());
  if (!tmem || !values)
    return rewriter.notifyMatchFailure(op, "not a tcgen05.ld");
  if (!inType.getElementType().isF32() || !tmem.getUnpacked() ||
      tmem.getBlockM() != kTMEMLanes)
    return op.emitOpError("loads 128-row f32 tensors from tensor memory "
                          "only so far");
  Location loc = op.getLoc();
  Type i32 = rewriter.getI32Type();
  Value base = rowAddress(rewriter, loc, adaptor.getInput());
  NVVM::Tcgen05FenceOp::create(rewriter, loc,
                               NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  Type structType = converter.convertType(op.getType());
  Value result = LLVM::UndefOp::create(rewriter, loc, structType);
  SmallVector<std::pair<int64_t, Value>> chunks;
  for (int64_t column = 0; column < *values;) {
    int64_t num = 32;
    while (num > *values - column)
      num /= 2;
    Type type = num == 1 ? i32 : Type(VectorType::get({num}, i32));
    Value addr = LLVM::AddOp::create(rewriter, loc, base,
                                     i32Const(rewriter, loc, column));
    Value loaded = NVVM::Tcgen05LdOp::create(
        rewriter, loc, type, /*pack=*/false,
        NVVM::Tcgen05LdStShape::SHAPE_32X32B, tmemPointer(rewriter, loc, addr),
        /*offset=*/Value());
    chunks.push_back({column, loaded});
    column += num;
  }
  NVVM::Tcgen05WaitOp::create(rewriter, loc, NVVM::Tcgen05WaitKind::LOAD);
  for (auto [column, loaded] : chunks) {
    auto vector = dyn_cast<VectorType>(loaded.getType());
    int64_t num = vector ? vector.getNumElements() : 1;
    for (int64_t i = 0; i < num; ++i) {
      Value word =
          vector ? LLVM::ExtractElementOp::create(rewriter, loc, loaded,
                                                  i32Const(rewriter, loc, i))
                       .getResult()
                 : loaded;
      Value value =
          LLVM::BitcastOp::create(rewriter, loc, rewriter.getF32Type(), word);
      result = LLVM::InsertValueOp::create(rewriter, loc, result, value,
                                           ArrayRef<int64_t>{column + i});
    }
  }
  // The slot may be handed back (and overwritten by MMAs) after this.
  NVVM::Tcgen05FenceOp::create(rewriter, loc,
                               NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  rewriter.replaceOp(op, result);
  return success();
}

/// ws.store_tmem of a `#tile.tmem_32x32b<warpgroups = 1>` tensor (128 rows)
/// -> tcgen05.st.32x32b: each thread stores its row into its warp's 32
/// lanes, 32-bit elements one column each, 16-bit ones two to a column (the
/// lower column in the low half), in chunks of at most 32 columns; then it
/// waits for the stores and fences them before the barrier that hands the
/// buffer to the tensor cores.
static LogicalResult lowerTMEMStore(StoreTMEMOp op,
                                    StoreTMEMOp::Adaptor adaptor,
                                    ConversionPatternRewriter &rewriter,
                                    const LLVMTypeConverter &converter) {
  RankedTensorType type = op.getValue().getType();
  std::optional<int64_t> values = getTmemRowValues(type);
  if (!values)
    return op.emitOpError("stores 128-row #tile.tmem_32x32b<warpgroups = "
                          "1> tensors only so far");
  unsigned bits = type.getElementTypeBitWidth();
  if (bits == 16 && *values % 2 != 0)
    return op.emitOpError("stores 16-bit rows of an even length only");
  Location loc = op.getLoc();
  Type i32 = rewriter.getI32Type();
  Type element = converter.convertType(type.getElementType());
  // One 32-bit word per column.
  SmallVector<Value> words;
  for (int64_t v = 0; v < *values; v += bits == 16 ? 2 : 1) {
    auto extract = [&](int64_t i) -> Value {
      return LLVM::ExtractValueOp::create(rewriter, loc, adaptor.getValue(),
                                          ArrayRef<int64_t>{i});
    };
    if (bits == 32) {
      words.push_back(LLVM::BitcastOp::create(rewriter, loc, i32, extract(v)));
      continue;
    }
    auto pair = VectorType::get({2}, element);
    Value vec = LLVM::UndefOp::create(rewriter, loc, pair);
    for (int64_t e = 0; e < 2; ++e)
      vec = LLVM::InsertElementOp::create(rewriter, loc, vec, extract(v + e),
                                          i32Const(rewriter, loc, e));
    words.push_back(LLVM::BitcastOp::create(rewriter, loc, i32, vec));
  }
  Value base = rowAddress(rewriter, loc, adaptor.getBuffer());
  int64_t count = words.size();
  for (int64_t column = 0; column < count;) {
    int64_t num = 32;
    while (num > count - column)
      num /= 2;
    Value data;
    if (num == 1) {
      data = words[column];
    } else {
      auto vectorType = VectorType::get({num}, i32);
      data = LLVM::UndefOp::create(rewriter, loc, vectorType);
      for (int64_t i = 0; i < num; ++i)
        data = LLVM::InsertElementOp::create(
            rewriter, loc, data, words[column + i], i32Const(rewriter, loc, i));
    }
    Value addr = LLVM::AddOp::create(rewriter, loc, base,
                                     i32Const(rewriter, loc, column));
    NVVM::Tcgen05StOp::create(rewriter, loc, /*unpack=*/false,
                              NVVM::Tcgen05LdStShape::SHAPE_32X32B,
                              tmemPointer(rewriter, loc, addr), data,
                              /*offset=*/Value());
    column += num;
  }
  NVVM::Tcgen05WaitOp::create(rewriter, loc, NVVM::Tcgen05WaitKind::STORE);
  NVVM::Tcgen05FenceOp::create(rewriter, loc,
                               NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  rewriter.eraseOp(op);
  return success();
}

void ws::populateTCGen05ToNVVMPatterns(const LLVMTypeConverter &converter,
                                       RewritePatternSet &patterns) {
  addLowerings(patterns, converter, lowerTMEMAlloc, lowerTMEMRelinquish,
               lowerTMEMDealloc, lowerTMEMBuffer, lowerSharedSubView,
               lowerTMEMAsTensor, lowerTCGen05MMA, lowerTMEMLoad,
               lowerTMEMStore);
  // Before the shared-memory lowerings of the same ops.
  addLowering(patterns, converter, lowerTMEMSlot, /*benefit=*/2);
  addLowering(patterns, converter, lowerTMEMSubView, /*benefit=*/2);
}
