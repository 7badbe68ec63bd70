//===- TileToNVVM.cpp - Tile compute ops to NVVM (sm90) ------------------===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#include "BranchUtils.h"
#include "Lowering.h"
#include "Patterns.h"
#include "RegisterTensor.h"
#include "Values.h"

#include "fmha/Conversion/WGMMADescriptors.h"
#include "fmha/Dialect/Tile/IR/TileDialect.h"
#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"
#include "fmha/Target/KernelAttrs.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::ws;
namespace wgmma = mlir::fmha::wgmma;

/// Rows of one wgmma instruction (m64nNk16).
static constexpr int64_t kWgmmaM = 64;
/// K of one 16-bit wgmma instruction.
static constexpr int64_t kWgmmaK = 16;
/// K of one wgmma instruction in bytes, whatever the element type
/// (m64nNk16 for 16-bit, m64nNk32 for fp8 operands).
static constexpr int64_t kWgmmaKBytes = 32;

/// The register fragments of a `#tile.wgmma_acc` tensor in one warpgroup:
/// `count` m64 x instr_n fragments of `values` values each, fragment index
/// `mr * (N / instr_n) + nr`. Value v of a fragment is row
/// `8 * ((v / 2) % 2)` and column `8 * (v / 4) + v % 2` relative to the
/// thread's first element (see `#tile.wgmma_acc`): what wgmma reads and
/// writes, one fragment per instruction.
struct Fragments {
  int64_t rowReps, colReps, instrN, values;
  int64_t count() const { return rowReps * colReps; }
};

/// The fragments of a `#tile.wgmma_acc` tensor over one warpgroup.
static std::optional<Fragments> getFragments(RankedTensorType type) {
  auto acc = dyn_cast_or_null<tile::WgmmaAccAttr>(type.getEncoding());
  if (!acc || acc.getWarpgroups() != 1 || type.getRank() != 2)
    return std::nullopt;
  int64_t instrN = acc.getInstrN();
  return Fragments{type.getShape()[0] / kWgmmaM, type.getShape()[1] / instrN,
                   instrN, instrN / 2};
}

/// Whether `t` (fragments `f`) holds its values as packAccumulatorFp8
/// expects: fragment after fragment, and in each, per 8 columns, the pair
/// of adjacent columns of row r, then of row r + 8.
static bool packsByRowPairs(const RegisterTensor &t, const Fragments &f) {
  if (f.instrN % 16 || t.getNumValues() != f.count() * f.values)
    return false;
  for (int64_t v = 0; v + 8 <= t.getNumValues(); v += 8) {
    for (int64_t h = 0; h < 2; ++h) {
      ArrayRef<int64_t> first = t.getOffsets(v + 2 * h);
      int64_t columns[] = {0, 1, 8, 9}, at[] = {0, 1, 4, 5};
      for (auto [c, a] : llvm::zip(columns, at)) {
        ArrayRef<int64_t> o = t.getOffsets(v + 2 * h + a);
        if (o.size() != 2 || o[0] != first[0] || o[1] != first[1] + c)
          return false;
      }
    }
  }
  return true;
}

/// Whether `type` is an fp8 `#tile.wgmma_acc` tensor whose values are
/// lowered packed, four to an i32 as an 8-bit wgmma A operand reads them
/// (packAccumulatorFp8): what attention's P is between its conversion and
/// the P V product, across the main loop's phis included. Fragment after
/// fragment, word `g / 4 + h` of a fragment holds its values `g + 2 h +
/// {0, 1, 4, 5}` (for each 8 values `g`, lowest byte first).
static bool isPackedFp8(RankedTensorType type) {
  if (!isa<Float8E4M3FNType, Float8E5M2Type>(type.getElementType()))
    return false;
  std::optional<Fragments> f = getFragments(type);
  std::optional<RegisterTensor> t = RegisterTensor::get(type);
  return f && t && packsByRowPairs(*t, *f);
}

void ws::populateTileTypeConversions(LLVMTypeConverter &converter) {
  converter.addConversion(
      [&converter](RankedTensorType type) -> std::optional<Type> {
        if (isa_and_nonnull<tile::NvmmaSharedAttr>(type.getEncoding()))
          return LLVM::LLVMPointerType::get(type.getContext(),
                                            kSharedAddressSpace);
        std::optional<RegisterTensor> t = RegisterTensor::get(type);
        if (!t)
          return std::nullopt;
        if (isPackedFp8(type)) {
          std::optional<Fragments> f = getFragments(type);
          MLIRContext *ctx = type.getContext();
          Type fragment = LLVM::LLVMStructType::getLiteral(
              ctx, SmallVector<Type>(f->values / 4, IntegerType::get(ctx, 32)));
          return LLVM::LLVMStructType::getLiteral(
              ctx, SmallVector<Type>(f->count(), fragment));
        }
        Type element = converter.convertType(type.getElementType());
        if (!element)
          return std::nullopt;
        return t->getStructType(element);
      });
}

/// A grid query -> the NVVM special register of the op's dimension: `XOp`,
/// `YOp` or `ZOp`.
template <typename SourceOp, typename XOp, typename YOp, typename ZOp>
static LogicalResult lowerGridQuery(SourceOp op, typename SourceOp::Adaptor,
                                    ConversionPatternRewriter &rewriter) {
  Type i32 = rewriter.getI32Type();
  Value value;
  switch (op.getDim()) {
  case tile::GridDim::x:
    value = XOp::create(rewriter, op.getLoc(), i32);
    break;
  case tile::GridDim::y:
    value = YOp::create(rewriter, op.getLoc(), i32);
    break;
  case tile::GridDim::z:
    value = ZOp::create(rewriter, op.getLoc(), i32);
    break;
  }
  rewriter.replaceOp(op, value);
  return success();
}

/// tile.program_id -> the CTA index (ctaid.x/y/z).
static constexpr LoweringFn<tile::ProgramIdOp> lowerProgramId =
    lowerGridQuery<tile::ProgramIdOp, NVVM::BlockIdXOp, NVVM::BlockIdYOp,
                   NVVM::BlockIdZOp>;

/// tile.num_programs -> the grid size (nctaid.x/y/z).
static constexpr LoweringFn<tile::NumProgramsOp> lowerNumPrograms =
    lowerGridQuery<tile::NumProgramsOp, NVVM::GridDimXOp, NVVM::GridDimYOp,
                   NVVM::GridDimZOp>;

/// ws.as_tensor -> the buffer's shared-memory address.
static LogicalResult lowerAsTensor(AsTensorOp op, AsTensorOp::Adaptor adaptor,
                                   ConversionPatternRewriter &rewriter) {
  if (!isa_and_nonnull<tile::NvmmaSharedAttr>(op.getType().getEncoding()))
    return rewriter.notifyMatchFailure(op, "not an NVMMA shared tensor");
  rewriter.replaceOp(
      op,
      MemRefDescriptor(adaptor.getBuffer()).alignedPtr(rewriter, op.getLoc()));
  return success();
}

/// A splat constant in registers -> every register set to the value.
static LogicalResult lowerSplatConstant(arith::ConstantOp op,
                                        arith::ConstantOp::Adaptor,
                                        ConversionPatternRewriter &rewriter,
                                        const LLVMTypeConverter &converter) {
  auto dense = dyn_cast<SplatElementsAttr>(op.getValue());
  std::optional<RegisterTensor> t = RegisterTensor::get(op.getType());
  if (!t || !dense)
    return rewriter.notifyMatchFailure(op, "not a register splat");
  RankedTensorType type = t->getType();
  Location loc = op.getLoc();
  if (isPackedFp8(type)) {
    // Four copies of the byte in each word.
    uint64_t byte =
        dense.getSplatValue<APFloat>().bitcastToAPInt().getZExtValue();
    Value word =
        i32Const(rewriter, loc, static_cast<int32_t>(byte * 0x01010101u));
    std::optional<Fragments> f = getFragments(type);
    Value result =
        LLVM::UndefOp::create(rewriter, loc, converter.convertType(type));
    for (int64_t frag = 0; frag < f->count(); ++frag)
      for (int64_t w = 0; w < f->values / 4; ++w)
        result = LLVM::InsertValueOp::create(rewriter, loc, result, word,
                                             ArrayRef<int64_t>{frag, w});
    rewriter.replaceOp(op, result);
    return success();
  }
  Value scalar = LLVM::ConstantOp::create(
      rewriter, loc, converter.convertType(type.getElementType()),
      dense.getSplatValue<Attribute>());
  rewriter.replaceOp(op, t->buildStruct(rewriter, loc, converter,
                                        [&](int64_t) { return scalar; }));
  return success();
}

/// An fp8 `#tile.wgmma_acc` tensor (fragments `f`, f32 values from
/// `input`) packed as isPackedFp8 lays it out, the struct of i32 words an
/// 8-bit wgmma A operand reads (registerAOperandFp8): per fragment, 16
/// columns and row (r or r + 8), one word holding the row's pair of the
/// first 8 columns (two bytes of one cvt) and its pair of the next 8.
/// Carried packed through the main loop, P needs no byte moves at all:
/// moving the bytes one at a time cost several shifts, moves and prmt per
/// register, and bytes crossing the loop's phis a few shifts and ors.
static Value packAccumulatorFp8(OpBuilder &b, Location loc, const Fragments &f,
                                Type element, Type structType,
                                function_ref<Value(int64_t)> input) {
  Type i16 = b.getI16Type(), i32 = b.getI32Type();
  auto halves = VectorType::get({2}, i16);
  auto convert = [&](int64_t v) -> Value {
    // The second operand's value is the low byte.
    return NVVM::ConvertF32x2ToF8x2Op::create(
        b, loc, i16, input(v + 1), input(v), NVVM::FPRoundingMode::RN,
        NVVM::SaturationMode::SATFINITE, /*relu=*/false, element);
  };
  Value result = LLVM::UndefOp::create(b, loc, structType);
  for (int64_t frag = 0; frag < f.count(); ++frag) {
    for (int64_t group = 0; group < f.values; group += 8) {
      for (int64_t h = 0; h < 2; ++h) {
        int64_t first = frag * f.values + group + 2 * h;
        // The two pairs as the halves of one word (a `mov.b32 {lo, hi}`).
        Value pairs = LLVM::UndefOp::create(b, loc, halves);
        pairs = LLVM::InsertElementOp::create(b, loc, pairs, convert(first),
                                              i32Const(b, loc, 0));
        pairs = LLVM::InsertElementOp::create(b, loc, pairs, convert(first + 4),
                                              i32Const(b, loc, 1));
        Value word = LLVM::BitcastOp::create(b, loc, i32, pairs);
        result = LLVM::InsertValueOp::create(
            b, loc, result, word, ArrayRef<int64_t>{frag, group / 4 + h});
      }
    }
  }
  return result;
}

/// arith.truncf of f32 register tensors to f8E4M3FN / f8E5M2 ->
/// `cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32` (nvvm.convert.f32x2.to.f8x2) on
/// each pair of a thread's values that are adjacent columns of one row (the
/// accumulator layout holds its values so), a lone value with 0 beside it.
/// Values beyond the fp8 range saturate to its largest finite value (as
/// FlashAttention-3 and torch's e4m3 conversions with saturation do) rather
/// than becoming NaN. Each result is an i8, the lowered fp8 element, or,
/// for the tensors isPackedFp8 holds packed, four of them in an i32.
static LogicalResult lowerTruncToFp8(arith::TruncFOp op,
                                     arith::TruncFOp::Adaptor adaptor,
                                     ConversionPatternRewriter &rewriter,
                                     const LLVMTypeConverter &converter) {
  std::optional<RegisterTensor> t = RegisterTensor::get(op.getType());
  Type element = getElementTypeOrSelf(op.getType());
  if (!t || !isa<Float8E4M3FNType, Float8E5M2Type>(element) ||
      !getElementTypeOrSelf(op.getIn().getType()).isF32())
    return rewriter.notifyMatchFailure(op, "not f32 to fp8 in registers");
  Location loc = op.getLoc();
  auto input = [&](int64_t v) -> Value {
    return LLVM::ExtractValueOp::create(rewriter, loc, adaptor.getIn(),
                                        t->getPosition(v));
  };
  if (isPackedFp8(t->getType())) {
    rewriter.replaceOp(
        op,
        packAccumulatorFp8(rewriter, loc, *getFragments(t->getType()), element,
                           converter.convertType(op.getType()), input));
    return success();
  }
  SmallVector<Value> bytes(t->getNumValues());
  auto pairType = VectorType::get({2}, rewriter.getI8Type());
  auto convert = [&](Value high, Value low) {
    return NVVM::ConvertF32x2ToF8x2Op::create(
        rewriter, loc, pairType, high, low, NVVM::FPRoundingMode::RN,
        NVVM::SaturationMode::SATFINITE, /*relu=*/false, element);
  };
  for (int64_t v = 0; v < t->getNumValues(); ++v) {
    ArrayRef<int64_t> at = t->getOffsets(v);
    bool paired = v + 1 < t->getNumValues() && at.size() == 2 &&
                  t->getOffsets(v + 1)[0] == at[0] &&
                  t->getOffsets(v + 1)[1] == at[1] + 1;
    // The low byte is the value of the second operand.
    Value low = input(v);
    Value high = paired ? input(v + 1)
                        : LLVM::ConstantOp::create(
                              rewriter, loc, rewriter.getF32FloatAttr(0.0));
    Value pair = convert(high, low);
    bytes[v] = LLVM::ExtractElementOp::create(rewriter, loc, pair,
                                              i32Const(rewriter, loc, 0));
    if (paired)
      bytes[++v] = LLVM::ExtractElementOp::create(rewriter, loc, pair,
                                                  i32Const(rewriter, loc, 1));
  }
  rewriter.replaceOp(op, t->buildStruct(rewriter, loc, converter,
                                        [&](int64_t v) { return bytes[v]; }));
  return success();
}

namespace {

/// An elementwise op on register tensors -> the scalar op on each register.
/// Tensor operands must have the result's shape and layout; scalar operands
/// (the condition of an arith.select) apply to every register.
struct ElementwiseLowering : ConversionPattern {
  ElementwiseLowering(const LLVMTypeConverter &converter, MLIRContext *ctx)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/2, ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1 ||
        op->getNumRegions() != 0)
      return failure();
    std::optional<RegisterTensor> t = RegisterTensor::get(op->getResult(0));
    if (!t)
      return failure();
    RankedTensorType type = t->getType();
    for (Value operand : op->getOperands()) {
      if (operand.getType().isIntOrIndexOrFloat())
        continue;
      auto operandType = dyn_cast<RankedTensorType>(operand.getType());
      if (!operandType || operandType.getShape() != type.getShape() ||
          operandType.getEncoding() != type.getEncoding())
        return rewriter.notifyMatchFailure(op, "operands in other layouts");
    }
    Location loc = op->getLoc();
    auto lowerValue = [&](int64_t v) {
      SmallVector<int64_t, 2> position = t->getPosition(v);
      SmallVector<Value> scalars;
      for (auto [operand, converted] : llvm::zip(op->getOperands(), operands))
        scalars.push_back(isa<RankedTensorType>(operand.getType())
                              ? LLVM::ExtractValueOp::create(
                                    rewriter, loc, converted, position)
                              : converted);
      Value scalar;
      if (isa<math::Exp2Op>(op) && type.getElementType().isF32()) {
        // ex2.approx.ftz.f32 rather than the scalar math.exp2, which becomes
        // a call to __nv_exp2f: kernels must not depend on libdevice being
        // found and linked. (llvm.intr.exp2 is illegal in the GPU-to-NVVM
        // conversion for that reason.) Results below 2^-126 flush to zero:
        // without .ftz ptxas wraps every ex2 in a compare and two
        // predicated multiplies to produce denormals, a third of the
        // softmax's instructions.
        scalar =
            LLVM::CallIntrinsicOp::create(
                rewriter, loc, rewriter.getF32Type(),
                rewriter.getStringAttr("llvm.nvvm.ex2.approx.ftz.f"), scalars)
                .getResult(0);
      } else if (isa<math::Log2Op>(op) && type.getElementType().isF32()) {
        // lg2.approx.f32 likewise (attention's log-sum-exp), not a call to
        // libdevice's __nv_log2f.
        scalar = LLVM::CallIntrinsicOp::create(
                     rewriter, loc, rewriter.getF32Type(),
                     rewriter.getStringAttr("llvm.nvvm.lg2.approx.f"), scalars)
                     .getResult(0);
      } else if (isa<math::FmaOp>(op)) {
        // The fma instruction (llvm.intr.fma), not libdevice's __nv_fmaf.
        scalar = LLVM::FMAOp::create(rewriter, loc, scalars[0], scalars[1],
                                     scalars[2]);
      } else {
        OperationState state(loc, op->getName(), scalars,
                             {type.getElementType()}, op->getAttrs());
        scalar = rewriter.create(state)->getResult(0);
      }
      return scalar;
    };
    rewriter.replaceOp(
        op, t->buildStruct(rewriter, loc, *getTypeConverter(), lowerValue));
    return success();
  }
};

} // namespace

/// The wgmma matrix descriptors of an operand in swizzled shared memory at
/// `base`: the start address at run time, the rest
/// (fmha/Conversion/WGMMADescriptors.h) a constant. K-major operands (rows
/// along K) step 8 rows of one swizzle span along M/N. MN-major operands
/// step `leadingBytes` between column blocks one swizzle span wide along
/// M/N, and 8 rows of one span along K.
///
/// By default each k-step's descriptor is encoded from its own address,
/// which LLVM folds and hoists as it sees fit. `atUse`
/// (fmha.descriptors_at_use) keeps them out of registers across a loop:
/// the base's address goes through an opaque move and is encoded once per
/// dot, and each k-step and repetition adds its offset (in 16-byte units)
/// to the low word only, one 32-bit add a wgmma rather than an add, a
/// shift, a mask and an or on 64 bits. The field cannot carry: it is bits
/// 4..17 of a shared-memory address, and an operand and all its offsets lie
/// inside the CTA's shared memory (below 2^18 bytes).
class WgmmaDescriptors {
public:
  WgmmaDescriptors(OpBuilder &b, Location loc, Value base,
                   tile::NvmmaSharedAttr layout, int64_t leadingBytes,
                   bool atUse)
      : fixed(wgmma::encode(
            wgmma::canonicalDescriptor(layout.getSwizzle(), leadingBytes))) {
    address = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), base);
    if (!atUse)
      return;
    low = LLVM::TruncOp::create(
        b, loc, b.getI32Type(),
        encode(b, loc, opaqueMove(b, loc, address), fixed & 0xFFFFFFFFu));
  }

  /// The descriptor of the operand's bytes from `byteOffset` on.
  Value at(OpBuilder &b, Location loc, int64_t byteOffset) const {
    assert(byteOffset % 16 == 0 && byteOffset < (1 << 18) &&
           "a wgmma operand starts on 16 bytes inside shared memory");
    if (!low)
      return encode(
          b, loc,
          LLVM::AddOp::create(b, loc, address, i64Const(b, loc, byteOffset)),
          fixed);
    Value word = low;
    if (byteOffset)
      word =
          LLVM::AddOp::create(b, loc, word, i32Const(b, loc, byteOffset >> 4));
    return LLVM::OrOp::create(
        b, loc, LLVM::ZExtOp::create(b, loc, b.getI64Type(), word),
        i64Const(b, loc, int64_t(fixed & ~uint64_t(0xFFFFFFFFu))));
  }

private:
  /// The start address of `addr` or'ed with `fields`.
  static Value encode(OpBuilder &b, Location loc, Value addr, uint64_t fields) {
    return LLVM::OrOp::create(b, loc, buildStartAddress(b, loc, addr),
                              i64Const(b, loc, int64_t(fields)));
  }

  uint64_t fixed;
  Value address, low;
};

/// The A operand of the k-step `kk` (columns 16kk..16kk+15) for the m64 row
/// repetition `mr` of a 16-bit tensor in registers laid out by
/// `#tile.wgmma_acc` (fragments `a`): four 32-bit registers of two elements
/// each, the lower column in the low half.
///
/// PTX ISA 9.7.15.5.1.1.1, "Matrix Fragments for wgmma.mma_async.m64nNk16",
/// Figure 148 ("WGMMA .m64nNk16 register fragment layout for matrix A"):
/// lane l of warp w holds a0, a1 = row 16w + l/4, columns 2(l%4) + {0, 1};
/// a2, a3 = row + 8; a4..a7 = the same 8 columns further. That is the
/// accumulator "D" layout (Figure 149) restricted to 16 columns (CUTLASS
/// states it as `ALayout_64x16 = CLayout_64x16` in cute's
/// mma_traits_sm90_gmma.hpp), so register 2j + h takes values
/// 4 * (c / 8) + 2h + {0, 1} of the fragment holding column c = 16kk + 8j.
static SmallVector<Value, 4> registerAOperand(OpBuilder &b, Location loc,
                                              Value a, const Fragments &fa,
                                              int64_t mr, int64_t kk,
                                              Type element) {
  auto pair = VectorType::get({2}, element);
  SmallVector<Value, 4> regs;
  for (int64_t j = 0; j < 2; ++j) {
    int64_t col = kk * kWgmmaK + 8 * j;
    int64_t fragment = mr * fa.colReps + col / fa.instrN;
    int64_t base = 4 * ((col % fa.instrN) / 8);
    for (int64_t h = 0; h < 2; ++h) {
      Value vec = LLVM::UndefOp::create(b, loc, pair);
      for (int64_t e = 0; e < 2; ++e)
        vec = LLVM::InsertElementOp::create(
            b, loc, vec,
            LLVM::ExtractValueOp::create(
                b, loc, a, ArrayRef<int64_t>{fragment, base + 2 * h + e}),
            i32Const(b, loc, e));
      regs.push_back(LLVM::BitcastOp::create(b, loc, b.getI32Type(), vec));
    }
  }
  return regs;
}

/// The A operand of the 8-bit k-step `kk` (K positions 32kk..32kk+31) for
/// the m64 row repetition `mr` of an fp8 tensor in registers laid out by
/// `#tile.wgmma_acc` (fragments `a`), read in the quad16 K order of
/// `tile.dot`'s `k_quad16`: four 32-bit registers of four elements each,
/// the lowest position in the lowest byte.
///
/// The 8-bit A fragment (PTX ISA 9.7.15.5.1.1, the m64nNk32 A figure; per
/// warp the same as mma.m16n8k32's 8-bit A, whose formula 9.7.14.5 states:
/// row = groupID (+ 8 for a4..a7, a12..a15), col = 4 threadID_in_group +
/// (i & 3) (+ 16 for a8..a15)) gives lane l the K positions 4(l%4)..+3 of
/// each group of 16, in rows l/4 and l/4 + 8. The accumulator layout holds
/// the same thread's columns 2(l%4) + {0, 1, 8, 9} of each group of 16 in
/// the same rows: values 4(c/8) + {0, 1} and 4(c/8) + 4 + {0, 1} of the
/// fragment holding column c (row + 8: + 2). So register 2h + j (row half
/// h, 16-group j of the step) packs those four values in that order.
static SmallVector<Value, 4> registerAOperandFp8(OpBuilder &b, Location loc,
                                                 Value a, const Fragments &fa,
                                                 bool packed, int64_t mr,
                                                 int64_t kk) {
  Type i32 = b.getI32Type();
  SmallVector<Value, 4> regs(4);
  for (int64_t j = 0; j < 2; ++j) {
    int64_t col = 32 * kk + 16 * j;
    int64_t fragment = mr * fa.colReps + col / fa.instrN;
    int64_t base = 4 * ((col % fa.instrN) / 8);
    for (int64_t h = 0; h < 2; ++h) {
      if (packed) {
        // The word isPackedFp8 keeps them in.
        regs[2 * j + h] = LLVM::ExtractValueOp::create(
            b, loc, a, ArrayRef<int64_t>{fragment, base / 4 + h});
        continue;
      }
      Value reg;
      int64_t values[] = {0, 1, 4, 5};
      for (auto [e, offset] : llvm::enumerate(values)) {
        Value byte = LLVM::ZExtOp::create(
            b, loc, i32,
            LLVM::ExtractValueOp::create(
                b, loc, a, ArrayRef<int64_t>{fragment, base + 2 * h + offset}));
        if (e)
          byte = LLVM::ShlOp::create(b, loc, byte, i32Const(b, loc, 8 * e));
        reg = e ? LLVM::OrOp::create(b, loc, reg, byte).getResult() : byte;
      }
      regs[2 * j + h] = reg;
    }
  }
  return regs;
}

/// `values` passed through an empty inline asm that reads and writes them
/// (each with `constraint`, "r" or "f"), like CUTLASS's
/// warpgroup_fence_operand: the asm has side effects, so the code computing
/// the values stays before it and before a wgmma.fence that follows it.
static SmallVector<Value> pinRegisters(OpBuilder &b, Location loc,
                                       ArrayRef<Value> values,
                                       StringRef constraint) {
  int64_t count = values.size();
  std::string constraints;
  for (int64_t i = 0; i < count; ++i)
    constraints += ("=" + constraint + ",").str();
  for (int64_t i = 0; i < count; ++i)
    constraints += std::to_string(i) + (i + 1 < count ? "," : "");
  SmallVector<Type> types;
  for (Value value : values)
    types.push_back(value.getType());
  Type resultType =
      count == 1 ? types.front()
                 : LLVM::LLVMStructType::getLiteral(b.getContext(), types);
  Value pinned = inlinePtx(b, loc, resultType, values, "", constraints);
  if (count == 1)
    return {pinned};
  SmallVector<Value> result;
  for (int64_t i = 0; i < count; ++i)
    result.push_back(LLVM::ExtractValueOp::create(b, loc, pinned, i));
  return result;
}

/// The f32 accumulator `acc` (fragments `f`) with every value passed
/// through pinRegisters, one fragment at a time.
static Value pinAccumulator(OpBuilder &b, Location loc, Value acc,
                            const Fragments &f) {
  for (int64_t i = 0; i < f.count(); ++i) {
    Value fragment = LLVM::ExtractValueOp::create(b, loc, acc, i);
    SmallVector<Value> values;
    for (int64_t v = 0; v < f.values; ++v)
      values.push_back(LLVM::ExtractValueOp::create(b, loc, fragment, v));
    values = pinRegisters(b, loc, values, "f");
    for (int64_t v = 0; v < f.values; ++v)
      acc = LLVM::InsertValueOp::create(b, loc, acc, values[v],
                                        ArrayRef<int64_t>{i, v});
  }
  return acc;
}

/// One `wgmma.mma_async.sync.aligned.m64nNk16.f32.<a>.<b>` (k32 for fp8)
/// with A from registers, as inline PTX (nvvm.wgmma.mma_async takes A
/// descriptors only): `d, a, b-desc, scale-d, imm-scale-a, imm-scale-b,
/// imm-trans-b`, without imm-trans-b for fp8, whose B is K-major only (PTX
/// ISA 9.7.15.5.2, wgmma.mma_async). The accumulator registers are read and
/// written ("=f" outputs tied to the inputs, what "+f" means in CUDA);
/// scale-d is `accumulate` (D += A * B, or D = A * B).
static Value wgmmaRegisterA(OpBuilder &b, Location loc, Value fragment,
                            ArrayRef<Value> a, Value descB, int64_t n,
                            int64_t instrK, StringRef aType, StringRef bType,
                            bool transposeB, bool accumulate) {
  int64_t d = n / 2;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "{\n.reg .pred p;\nsetp.ne.b32 p, " << (accumulate ? 1 : 0) << ", 0;\n"
     << "wgmma.mma_async.sync.aligned.m64n" << n << "k" << instrK << ".f32."
     << aType << "." << bType << " {";
  for (int64_t i = 0; i < d; ++i)
    os << (i ? ", $" : "$") << i;
  os << "}, {$" << 2 * d << ", $" << 2 * d + 1 << ", $" << 2 * d + 2 << ", $"
     << 2 * d + 3 << "}, $" << 2 * d + 4 << ", p, 1, 1";
  if (instrK == kWgmmaK)
    os << ", " << (transposeB ? 1 : 0);
  os << ";\n}\n";
  std::string constraints;
  for (int64_t i = 0; i < d; ++i)
    constraints += "=f,";
  for (int64_t i = 0; i < d; ++i)
    constraints += std::to_string(i) + ",";
  constraints += "r,r,r,r,l";

  SmallVector<Value> operands;
  for (int64_t i = 0; i < d; ++i)
    operands.push_back(LLVM::ExtractValueOp::create(b, loc, fragment, i));
  llvm::append_range(operands, a);
  operands.push_back(descB);
  return inlinePtx(b, loc, fragment.getType(), operands, text, constraints);
}

/// The wgmma operand type of `element`, if wgmma takes it.
static std::optional<NVVM::WGMMATypes> getWgmmaType(Type element) {
  if (element.isBF16())
    return NVVM::WGMMATypes::bf16;
  if (element.isF16())
    return NVVM::WGMMATypes::f16;
  if (isa<Float8E4M3FNType>(element))
    return NVVM::WGMMATypes::e4m3;
  if (isa<Float8E5M2Type>(element))
    return NVVM::WGMMATypes::e5m2;
  return std::nullopt;
}

/// Byte offset of (row, byte kBytes along K) in a K-major operand of `rows`
/// rows in NVMMA-swizzled shared memory: rows wider than the swizzle span
/// are stored as column blocks one span wide (one TMA box each), one after
/// the other, so K steps past a span move to the next block.
static int64_t kMajorOffset(int64_t row, int64_t kBytes, int64_t rows,
                            tile::NvmmaSharedAttr layout) {
  int64_t span = layout.getSwizzle();
  return kBytes / span * rows * span + row * span + kBytes % span;
}

namespace {
/// An MN-major operand in NVMMA-swizzled shared memory (A given as [K, M],
/// B as [K, N]): column blocks one swizzle span wide along M (N), each K
/// rows deep, one after the other (as TMA wrote them, one box per block).
struct MNMajorOperand {
  /// Elements of M (N) in one block, and the bytes of a block.
  int64_t spanElements, blockBytes, swizzle;
  /// The byte offset of the operand of the MMA at M (N) `mn`, K step `kk`
  /// (kWgmmaK rows of K each).
  int64_t offset(int64_t mn, int64_t kk) const {
    return mn / spanElements * blockBytes + kk * kWgmmaK * swizzle;
  }
};
} // namespace

/// The MN-major layout of `operand` ("A" or "B") of `k` rows of K, whose
/// MMAs take `instrMN` of M (N) each, which must be whole swizzle spans.
static FailureOr<MNMajorOperand> getMNMajorOperand(tile::DotOp op,
                                                   StringRef operand,
                                                   tile::NvmmaSharedAttr layout,
                                                   int64_t instrMN, int64_t k,
                                                   int64_t elementBytes) {
  int64_t span = layout.getSwizzle() / elementBytes;
  if (span == 0 || instrMN % span != 0)
    return op.emitOpError("an MN-major ")
           << operand << " needs wgmma " << (operand == "A" ? "M" : "N") << " ("
           << instrMN << ") to be a multiple of its swizzle span (" << span
           << " elements)";
  return MNMajorOperand{span, k * layout.getSwizzle(), layout.getSwizzle()};
}

/// tile.dot with A in shared memory or in registers (`#tile.wgmma_acc`, 16
/// bits) and B in shared memory -> wgmma.mma_async m64nNk16 (m64nNk32 for
/// fp8, each operand e4m3 or e5m2, both K-major) over the K steps and
/// fragments, then wait for them. A given as [K, M] (`transpose_a`) and B
/// as [K, N] (no `transpose_b`) are read MN-major.
static LogicalResult lowerDot(tile::DotOp op, tile::DotOp::Adaptor adaptor,
                              ConversionPatternRewriter &rewriter) {
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto bType = cast<RankedTensorType>(op.getB().getType());
  auto aLayout = dyn_cast_or_null<tile::NvmmaSharedAttr>(aType.getEncoding());
  std::optional<Fragments> aRegs = getFragments(aType);
  auto bLayout = dyn_cast_or_null<tile::NvmmaSharedAttr>(bType.getEncoding());
  std::optional<Fragments> f = getFragments(op.getAcc().getType());
  if ((!aLayout && !aRegs) || !bLayout || !f)
    return rewriter.notifyMatchFailure(op, "needs A in shared memory or "
                                           "registers, B in shared memory "
                                           "and a wgmma accumulator");
  // A as [K, M] (transpose_a, in shared memory: the verifier keeps
  // register A operands K-major) is MN-major, laid out as an MN-major B.
  bool aKMajor = !op.getTransposeA();
  Type element = aType.getElementType();
  std::optional<NVVM::WGMMATypes> wgmmaType = getWgmmaType(element);
  std::optional<NVVM::WGMMATypes> wgmmaTypeB =
      getWgmmaType(bType.getElementType());
  if (!wgmmaType || !wgmmaTypeB)
    return op.emitOpError("wgmma lowering supports bf16, f16, f8E4M3FN and "
                          "f8E5M2 operands");
  if (!op.getAcc().getType().getElementType().isF32())
    return op.emitOpError("wgmma lowering supports f32 accumulators");

  MLIRContext *ctx = rewriter.getContext();
  Location loc = op.getLoc();
  int64_t k = aType.getShape()[aKMajor ? 1 : 0];
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  // One instruction's K: 16 elements of 16 bits, 32 of fp8.
  int64_t instrK = kWgmmaKBytes / elementBytes;
  // B as [N, K] (transpose_b) is K-major like A. As [K, N] it is MN-major:
  // column blocks one swizzle span wide, each K rows deep, one after the
  // other (as TMA wrote them, one box per block).
  bool bKMajor = op.getTransposeB();
  // fp8 wgmma reads B K-major only, A K-major from shared memory or from
  // registers in the quad16 K order only (k_quad16).
  if (elementBytes == 1 && !bKMajor)
    return op.emitOpError("fp8 wgmma needs B given as [N, K] (transpose_b): "
                          "K-major");
  if (elementBytes == 1 && !aRegs && !aKMajor)
    return op.emitOpError("fp8 wgmma needs A in shared memory given as [M, "
                          "K]: K-major");
  if (elementBytes == 1 && aRegs && !op.getKQuad16())
    return op.emitOpError("fp8 wgmma reads A from registers in the quad16 K "
                          "order only (k_quad16)");
  int64_t bSpanElems = bLayout.getSwizzle() / elementBytes;
  int64_t bBlockBytes = k * bLayout.getSwizzle();
  if (!bKMajor && (bSpanElems == 0 || f->instrN % bSpanElems != 0))
    return op.emitOpError("an MN-major B needs wgmma N (")
           << f->instrN << ") to be a multiple of its swizzle span ("
           << bSpanElems << " elements)";
  MNMajorOperand aMN{};
  if (!aKMajor) {
    FailureOr<MNMajorOperand> mn =
        getMNMajorOperand(op, "A", aLayout, kWgmmaM, k, elementBytes);
    if (failed(mn))
      return failure();
    aMN = *mn;
  }
  auto shape = NVVM::MMAShapeAttr::get(ctx, kWgmmaM, f->instrN, instrK);
  auto type = NVVM::WGMMATypesAttr::get(ctx, *wgmmaType);
  auto typeB = NVVM::WGMMATypesAttr::get(ctx, *wgmmaTypeB);
  auto f32Type = NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32);
  auto scaleOut = NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::one);
  auto scaleZero = NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::zero);
  auto scaleIn = NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one);
  auto row = NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row);
  auto col = NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::col);

  Value acc = adaptor.getAcc();
  // A zero accumulator is not put into registers: the first k-step of each
  // fragment runs with scale-d false (D = A * B) on undefined registers, so
  // that a loop does not zero the fragment's registers before every dot.
  bool fromZero = matchPattern(op.getAcc(), m_AnyZeroFloat());
  if (fromZero)
    acc = LLVM::UndefOp::create(rewriter, loc, acc.getType());
  auto func = op->getParentOfType<FunctionOpInterface>();
  bool atUse = func && func->hasAttr(fmha::kDescriptorsAtUseAttrName);
  // With A in registers, its registers and the accumulator's are computed
  // (and pinned) before the wgmma.fence: registers a wgmma reads must not
  // be written between the fence and the wgmma, or ptxas inserts fences
  // of its own (C7519).
  SmallVector<Value> aRegisters;
  if (aRegs) {
    for (int64_t kk = 0; kk < k / instrK; ++kk)
      for (int64_t mr = 0; mr < f->rowReps; ++mr)
        llvm::append_range(aRegisters,
                           elementBytes == 1
                               ? registerAOperandFp8(rewriter, loc,
                                                     adaptor.getA(), *aRegs,
                                                     isPackedFp8(aType), mr, kk)
                               : registerAOperand(rewriter, loc, adaptor.getA(),
                                                  *aRegs, mr, kk, element));
    aRegisters = pinRegisters(rewriter, loc, aRegisters, "r");
    if (!fromZero)
      acc = pinAccumulator(rewriter, loc, acc, *f);
  }
  NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
  std::optional<WgmmaDescriptors> descriptorsA, descriptorsB;
  if (aLayout)
    descriptorsA.emplace(rewriter, loc, adaptor.getA(), aLayout,
                         /*leadingBytes=*/aKMajor ? 16 : aMN.blockBytes, atUse);
  descriptorsB.emplace(rewriter, loc, adaptor.getB(), bLayout,
                       /*leadingBytes=*/bKMajor ? 16 : bBlockBytes, atUse);
  for (int64_t kk = 0; kk < k / instrK; ++kk) {
    int64_t kBytes = kk * kWgmmaKBytes;
    for (int64_t mr = 0; mr < f->rowReps; ++mr) {
      Value descA;
      ArrayRef<Value> aOperand;
      if (aLayout && !aKMajor)
        descA = descriptorsA->at(rewriter, loc, aMN.offset(mr * kWgmmaM, kk));
      else if (aLayout)
        descA = descriptorsA->at(
            rewriter, loc,
            kMajorOffset(mr * kWgmmaM, kBytes, aType.getShape()[0], aLayout));
      else
        aOperand =
            ArrayRef<Value>(aRegisters).slice(4 * (kk * f->rowReps + mr), 4);
      for (int64_t nr = 0; nr < f->colReps; ++nr) {
        Value descB = descriptorsB->at(
            rewriter, loc,
            bKMajor ? kMajorOffset(nr * f->instrN, kBytes, bType.getShape()[0],
                                   bLayout)
                    : nr * (f->instrN / bSpanElems) * bBlockBytes +
                          kk * kWgmmaK * bLayout.getSwizzle());
        int64_t i = mr * f->colReps + nr;
        Value fragment = LLVM::ExtractValueOp::create(rewriter, loc, acc, i);
        bool accumulate = kk > 0 || !fromZero;
        Value result =
            aLayout ? NVVM::WgmmaMmaAsyncOp::create(
                          rewriter, loc, fragment.getType(), fragment, descA,
                          descB, shape, type, typeB, f32Type,
                          accumulate ? scaleOut : scaleZero, scaleIn, scaleIn,
                          aKMajor ? row : col, bKMajor ? col : row,
                          NVVM::MMAIntOverflowAttr())
                    : wgmmaRegisterA(rewriter, loc, fragment, aOperand, descB,
                                     f->instrN, instrK,
                                     NVVM::stringifyWGMMATypes(*wgmmaType),
                                     NVVM::stringifyWGMMATypes(*wgmmaTypeB),
                                     /*transposeB=*/!bKMajor, accumulate);
        acc = LLVM::InsertValueOp::create(rewriter, loc, acc, result, i);
      }
    }
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
  // Unless the program waits for it (`async`, tile.dot_wait) or
  // ws-insert-mbarriers placed the waits (ws.async_wgmma), the result is
  // complete when the op is. Without an explicit wait a read from
  // registers always waits: nothing else orders the A registers' reuse.
  if (!op.getAsync() &&
      (!op->hasAttr(WSDialect::AsyncWgmmaAttrHelper::getNameStr()) || aRegs))
    NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc,
                                       rewriter.getI64IntegerAttr(0));
  rewriter.replaceOp(op, acc);
  return success();
}

/// tile.dot_wait -> wgmma.wait_group `pending`; the values pass through an
/// empty asm after it, so nothing reads their registers before the wait.
static LogicalResult lowerDotWait(tile::DotWaitOp op,
                                  tile::DotWaitOp::Adaptor adaptor,
                                  ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  NVVM::WgmmaWaitGroupSyncOp::create(
      rewriter, loc, rewriter.getI64IntegerAttr(op.getPending()));
  SmallVector<Value> results;
  for (auto [value, original] :
       llvm::zip(adaptor.getValues(), op.getValues())) {
    std::optional<Fragments> f =
        getFragments(cast<RankedTensorType>(original.getType()));
    if (!f)
      return rewriter.notifyMatchFailure(op, "needs wgmma accumulators");
    results.push_back(pinAccumulator(rewriter, loc, value, *f));
  }
  rewriter.replaceOp(op, results);
  return success();
}

/// ws.tma_store -> cp.async.bulk.tensor shared::cta -> global under its
/// predicate (with `reduce add`, cp.reduce.async.bulk.tensor.add in a branch
/// the predicate's threads take), committed as a bulk group by every thread
/// (coordinates reversed for PTX). A swizzled block whose rows are wider
/// than the span goes box by box, as TMA loads read one.
static LogicalResult lowerTMAStore(TMAStoreOp op, TMAStoreOp::Adaptor adaptor,
                                   ConversionPatternRewriter &rewriter) {
  Location loc = op.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  Value src = MemRefDescriptor(adaptor.getBuffer()).alignedPtr(rewriter, loc);
  SmallVector<Value> coords(llvm::reverse(adaptor.getCoords()));
  RankedTensorType block = op.getDesc().getType().getBlock();
  int64_t elementBytes = block.getElementTypeBitWidth() / 8;
  TMABoxes boxes = getTMABoxes(block);
  auto mode = NVVM::TMAStoreModeAttr::get(ctx, NVVM::TMAStoreMode::TILE);
  auto issue = [&] {
    for (int64_t box = 0; box < boxes.count; ++box) {
      SmallVector<Value> at(coords);
      Value from = src;
      tmaBox(rewriter, loc, boxes, elementBytes, box, at, from);
      if (op.getReduceAdd())
        NVVM::CpAsyncBulkTensorReduceOp::create(
            rewriter, loc, adaptor.getDesc(), from,
            NVVM::TMAReduxKindAttr::get(ctx, NVVM::TMAReduxKind::ADD), mode, at,
            Value());
      else
        NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
            rewriter, loc, adaptor.getDesc(), from, at, Value(), mode,
            adaptor.getPred());
    }
  };
  // cp.reduce.async.bulk.tensor has no predicate operand: the leader
  // branches into it.
  if (op.getReduceAdd() && adaptor.getPred())
    emitIf(rewriter, loc, adaptor.getPred(), issue);
  else
    issue();
  NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, loc);
  rewriter.eraseOp(op);
  return success();
}

/// ws.tma_store_wait -> cp.async.bulk.wait_group.read 0.
static LogicalResult lowerTMAStoreWait(TMAStoreWaitOp op,
                                       TMAStoreWaitOp::Adaptor,
                                       ConversionPatternRewriter &rewriter) {
  rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkWaitGroupOp>(
      op, rewriter.getI32IntegerAttr(0), rewriter.getUnitAttr());
  return success();
}

void ws::populateTileToNVVMPatterns(const LLVMTypeConverter &converter,
                                    RewritePatternSet &patterns) {
  addLowerings(patterns, converter, lowerProgramId, lowerNumPrograms,
               lowerAsTensor, lowerDot, lowerDotWait, lowerTMAStore,
               lowerTMAStoreWait);
  // Before the scalar lowerings of the same ops.
  addLowering(patterns, converter, lowerSplatConstant, /*benefit=*/2);
  addLowering(patterns, converter, lowerTruncToFp8, /*benefit=*/3);
  patterns.add<ElementwiseLowering>(converter, patterns.getContext());
  populateRegisterOpPatterns(converter, patterns);
  populateTransposeSharedPatterns(converter, patterns);
}
