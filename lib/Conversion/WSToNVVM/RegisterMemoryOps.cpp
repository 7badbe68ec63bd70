//===- RegisterMemoryOps.cpp - Register tensors to and from memory --------===//
//
// Part of fmha. Lowers the plain (non-TMA, non-tcgen05) stores and loads of
// register tensors, once for every register layout through the layout
// interface (see RegisterTensor.h): `ws.store_shared` (row pieces as
// vectors), `ws.load_shared` of row vectors and `tile.store_direct` of row
// vectors and 2-d register tensors into global memory, `tile.load_direct`
// of row vectors and 2-d register tensors from it.
//
//===----------------------------------------------------------------------===//

#include "BranchUtils.h"
#include "Lowering.h"
#include "Patterns.h"
#include "RegisterTensor.h"
#include "Values.h"

#include "fmha/Dialect/Tile/IR/TileDialect.h"
#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Target/TargetLimits.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <map>

using namespace mlir;
using namespace mlir::ws;

/// The widest vector a thread loads or stores at once, in bytes.
static constexpr int64_t kMaxVectorBytes = fmha::limits::kMaxDirectVectorBytes;
/// The columns of a wgmma accumulator's block that a quad holds (4-byte
/// pairs of 16-bit values, one per thread): one 16-byte vector.
static constexpr int64_t kQuadBlockColumns = 8;

/// The static strides and offset of `type`, or failure.
static FailureOr<std::pair<SmallVector<int64_t>, int64_t>>
getStaticStrides(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return failure();
  return std::make_pair(strides, offset);
}

/// `base + offset` elements of `element`, the offset an i32.
static Value elementAddress(OpBuilder &b, Location loc, Value base,
                            Type element, Value offset) {
  return LLVM::GEPOp::create(b, loc, base.getType(), element, base,
                             ValueRange{offset});
}

/// Values `first` to `first + type.getNumElements() - 1` of the register
/// tensor `t`, lowered to the struct `values`, as a vector of `type`.
static Value buildVector(OpBuilder &b, Location loc, const RegisterTensor &t,
                         Value values, int64_t first, VectorType type) {
  Value vector = LLVM::UndefOp::create(b, loc, type);
  for (int64_t i = 0; i < type.getNumElements(); ++i)
    vector = LLVM::InsertElementOp::create(
        b, loc, vector,
        LLVM::ExtractValueOp::create(b, loc, values, t.getPosition(first + i)),
        i32Const(b, loc, i));
  return vector;
}

/// A load of `type` (4, 8 or 16 bytes) from global address `addr` when
/// `inside`, else zeros: `ld.global` predicated on `inside` (inline PTX),
/// so that a thread's loads need no address of their own when outside
/// (the addresses of a row differ by constants, which ptxas folds into the
/// loads' offsets) and all of them can be in flight at once. The asm has
/// side effects so that LLVM keeps it after the fences of a counter
/// arrival. Null for other sizes.
static Value loadIfInside(OpBuilder &b, Location loc, Type type, Value addr,
                          Value inside) {
  int64_t bytes = type.isIntOrFloat()
                      ? type.getIntOrFloatBitWidth() / 8
                      : cast<VectorType>(type).getNumElements() *
                            cast<VectorType>(type)
                                .getElementType()
                                .getIntOrFloatBitWidth() /
                            8;
  if (bytes != 4 && bytes != 8 && bytes != 16)
    return Value();
  int64_t words = bytes / 4;
  std::string text =
      "{ .reg .pred p; setp.ne.b32 p, $" + std::to_string(words) + ", 0; ";
  std::string outputs, constraints;
  for (int64_t i = 0; i < words; ++i) {
    text += "mov.b32 $" + std::to_string(i) + ", 0; ";
    outputs += (i ? ", $" : "$") + std::to_string(i);
    constraints += "=r,";
  }
  text += "@p ld.global" + (words == 1 ? std::string(".b32 ")
                                       : ".v" + std::to_string(words) +
                                             ".b32 {" + outputs + "}, ");
  if (words == 1)
    text += "$0, ";
  text += "[$" + std::to_string(words + 1) + "]; }";
  constraints += "r,l";
  Type i32 = b.getI32Type();
  Type resultType = words == 1
                        ? i32
                        : LLVM::LLVMStructType::getLiteral(
                              b.getContext(), SmallVector<Type>(words, i32));
  Value flag = LLVM::ZExtOp::create(b, loc, i32, inside);
  Value loaded =
      inlinePtx(b, loc, resultType, ValueRange{flag, addr}, text, constraints);
  Value word = loaded;
  if (words > 1) {
    auto wordVector = VectorType::get({words}, i32);
    word = LLVM::UndefOp::create(b, loc, wordVector);
    for (int64_t i = 0; i < words; ++i)
      word = LLVM::InsertElementOp::create(
          b, loc, word, LLVM::ExtractValueOp::create(b, loc, loaded, i),
          i32Const(b, loc, i));
  }
  return LLVM::BitcastOp::create(b, loc, type, word);
}

namespace {
/// The i64 index arithmetic of stores into the memref of a descriptor that
/// are branched around where a coordinate is outside the memref (unsigned
/// compares: negative coordinates are outside too).
class BoundedStores {
public:
  BoundedStores(OpBuilder &b, Location loc, Value descriptor)
      : dest(descriptor), b(b), loc(loc) {}

  /// The i32 coordinate `coord` as an i64 index.
  Value index(Value coord) {
    return LLVM::SExtOp::create(b, loc, b.getI64Type(), coord);
  }
  /// Whether `x < size`, unsigned.
  Value below(Value x, Value size) {
    return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, x, size);
  }
  /// `x and y`, where a null `x` stands for true.
  Value both(Value x, Value y) {
    return x ? LLVM::AndOp::create(b, loc, x, y).getResult() : y;
  }
  /// `x + y`.
  Value add(Value x, Value y) { return LLVM::AddOp::create(b, loc, x, y); }
  /// `x * y`.
  Value mul(Value x, Value y) { return LLVM::MulOp::create(b, loc, x, y); }

  /// The descriptor's offset plus each coordinate of `outer` (the memref's
  /// first dimensions) times its stride; ands into `inside` (see `both`)
  /// that each of them is below its size.
  Value outerOffset(ValueRange outer, Value &inside) {
    Value offset = dest.offset(b, loc);
    for (auto [d, coord] : llvm::enumerate(outer)) {
      Value c = index(coord);
      inside = both(inside, below(c, dest.size(b, loc, d)));
      offset = add(offset, mul(c, dest.stride(b, loc, d)));
    }
    return offset;
  }

  /// The offset of the row `row` places (an i64) after the first one in the
  /// row-major order of the memref's dimensions [first, first + count), whose
  /// coordinates among `coords` give the first row (`row_dims` of
  /// tile.store_direct); ands into `inside` that it lies inside them.
  Value rowOffset(ValueRange coords, unsigned first, unsigned count, Value row,
                  Value &inside) {
    Value flat = index(coords[first]);
    for (unsigned d = first + 1; d < first + count; ++d)
      flat = add(mul(flat, dest.size(b, loc, d)), index(coords[d]));
    flat = add(flat, row);
    Value offset;
    for (unsigned d = first + count - 1; d > first; --d) {
      Value size = dest.size(b, loc, d);
      Value at = LLVM::URemOp::create(b, loc, flat, size);
      flat = LLVM::UDivOp::create(b, loc, flat, size);
      Value part = mul(at, dest.stride(b, loc, d));
      offset = offset ? add(offset, part) : part;
    }
    inside = both(inside, below(flat, dest.size(b, loc, first)));
    Value part = mul(flat, dest.stride(b, loc, first));
    return offset ? add(offset, part) : part;
  }

  /// The descriptor of the memref stored into.
  MemRefDescriptor dest;

private:
  OpBuilder &b;
  Location loc;
};
} // namespace

/// For a swizzled store of 8-byte runs of a wgmma accumulator into
/// 128-byte swizzled rows (f32 staged for a TMA reduce-add): the column
/// distance by which every other quad of lanes swaps its runs, or 0.
/// Shared memory serves 8-byte stores a half-warp at a time: its 16 lanes
/// hold rows r to r + 3 of the pattern (four lanes a row), and the swizzle
/// (16-byte chunk c of row r at c ^ (r % 8)) puts rows 2k and 2k + 1 into
/// the same 32 bytes of banks: two wavefronts where one suffices. With the
/// odd rows storing the run half a span away (the same row's, which their
/// lanes also hold) in the same instruction, the four rows' runs land in
/// four distinct 32-byte groups of banks.
static int64_t conflictFreeSwap(const RegisterTensor &t,
                                tile::NvmmaSharedAttr layout,
                                int64_t vectorBytes) {
  if (!isa<tile::WgmmaAccAttr>(t.getLayout()) || vectorBytes != 8 ||
      layout.getSwizzle() != 128)
    return 0;
  int64_t span = 128 * 8 / layout.getElementBits();
  return t.getType().getShape()[1] % span == 0 ? span / 2 : 0;
}

/// A power of two of bytes above every thread's origin column in `t`'s
/// layout, or 0 where the layout does not bound it: a wgmma accumulator's
/// fragments start at column 2 (l % 4), below 8.
static int64_t originColumnBytes(const RegisterTensor &t,
                                 int64_t elementBytes) {
  return isa<tile::WgmmaAccAttr>(t.getLayout()) ? 8 * elementBytes : 0;
}

/// ws.store_shared with a `layout` -> each thread stores its runs of
/// contiguous values, as vectors of up to 16 bytes (which never cross a
/// 16-byte chunk, the swizzle's unit), at their swizzled offsets. The
/// pattern repeats every 8 rows and every span of columns, so the thread
/// computes the swizzled offset once per value offset modulo those (a few)
/// and reaches the others by constants (a multiple of 8 rows, whole
/// pieces), which ptxas folds into the stores; where the layout bounds the
/// thread's origin column (originColumnBytes), the offsets of a row's other
/// column keys are its first key's with one xor. The offsets are computed at
/// the store, from the thread's origin passed through an opaque move: in a
/// loop, hoisted, they would hold a register each across it.
static LogicalResult lowerSwizzledStoreShared(StoreSharedOp op, Value values,
                                              Value base,
                                              const RegisterTensor &t,
                                              ConversionPatternRewriter &b,
                                              Type element) {
  Location loc = op.getLoc();
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  RankedTensorType type = t.getType();
  int64_t run = t.getLayout().getContiguousValues(type.getShape());
  int64_t perVector = std::min(run, kMaxVectorBytes / elementBytes);
  if (run % perVector != 0)
    return op.emitOpError("stores runs of ")
           << run << " values in vectors of " << perVector;
  SmallVector<OpFoldResult, 2> origin = t.buildThreadOrigin(b, loc);
  for (OpFoldResult &coordinate : origin)
    if (auto value = dyn_cast<Value>(coordinate))
      coordinate = opaqueMove(b, loc, value);
  auto vectorType = VectorType::get({perVector}, element);
  Type i8 = b.getI8Type();
  tile::NvmmaSharedAttr layout = *op.getLayout();
  int64_t rows = type.getShape()[0], swizzle = layout.getSwizzle(),
          span = swizzle / elementBytes;
  constexpr int64_t kPatternRows = 8;
  int64_t originBytes = originColumnBytes(t, elementBytes);
  if (originBytes && swizzle % originBytes != 0)
    originBytes = 0;
  auto swizzledAt = [&](std::pair<int64_t, int64_t> key) {
    return swizzledByteOffset(
        b, loc, buildCoordinate(b, loc, origin[0], key.first),
        buildCoordinate(b, loc, origin[1], key.second), layout, rows);
  };
  DenseMap<std::pair<int64_t, int64_t>, Value> offsets, bases;
  auto threadOffset = [&](std::pair<int64_t, int64_t> key) -> Value {
    if (Value offset = offsets.lookup(key))
      return offset;
    // A column offset whose bytes are a multiple of originBytes (and inside
    // the span) sets only bits the thread's origin column leaves clear,
    // below the bits the swizzle reads: its swizzled offset is that of
    // the row's first key with those bits flipped.
    int64_t keyBytes = key.second * elementBytes;
    Value offset;
    if (key.second && originBytes && keyBytes % originBytes == 0) {
      std::pair<int64_t, int64_t> first = {key.first, 0};
      if (!offsets.count(first))
        offsets[first] = swizzledAt(first);
      offset = LLVM::XOrOp::create(b, loc, offsets[first],
                                   i32Const(b, loc, keyBytes));
    } else {
      offset = swizzledAt(key);
    }
    offsets[key] = offset;
    return offset;
  };
  auto threadBase = [&](std::pair<int64_t, int64_t> key) {
    Value &threadBase = bases[key];
    if (!threadBase)
      threadBase = elementAddress(b, loc, base, i8, threadOffset(key));
    return threadBase;
  };
  // Odd quads store the run `swap` columns away instead (conflictFreeSwap):
  // the same constant offset from the other key's base.
  int64_t swap = conflictFreeSwap(t, layout, perVector * elementBytes);
  DenseMap<std::pair<int64_t, int64_t>, int64_t> valueAt;
  Value odd;
  if (swap) {
    for (int64_t v = 0; v < t.getNumValues(); v += perVector)
      valueAt[{t.getOffsets(v)[0], t.getOffsets(v)[1]}] = v;
    Value quad = LLVM::LShrOp::create(b, loc, t.buildThreadIndex(b, loc),
                                      i32Const(b, loc, 2));
    odd = LLVM::ICmpOp::create(
        b, loc, LLVM::ICmpPredicate::ne,
        LLVM::AndOp::create(b, loc, quad, i32Const(b, loc, 1)),
        i32Const(b, loc, 0));
  }
  for (int64_t v = 0; v < t.getNumValues(); v += perVector) {
    ArrayRef<int64_t> at = t.getOffsets(v);
    std::pair<int64_t, int64_t> key = {at[0] % kPatternRows, at[1] % span};
    Value rowBase = threadBase(key);
    Value vector = buildVector(b, loc, t, values, v, vectorType);
    if (swap) {
      auto partner = valueAt.find({at[0], at[1] ^ swap});
      if (partner == valueAt.end())
        return op.emitOpError("has no run ")
               << swap << " columns from the one at (" << at[0] << ", " << at[1]
               << ") to swap with";
      rowBase = LLVM::SelectOp::create(
          b, loc, odd, threadBase({key.first, key.second ^ swap}), rowBase);
      vector = LLVM::SelectOp::create(
          b, loc, odd,
          buildVector(b, loc, t, values, partner->second, vectorType), vector);
    }
    int64_t bytes = (at[0] - key.first) * swizzle +
                    (at[1] - key.second) / span * rows * swizzle;
    Value addr = LLVM::GEPOp::create(b, loc, base.getType(), i8, rowBase,
                                     ArrayRef<LLVM::GEPArg>{int32_t(bytes)});
    LLVM::StoreOp::create(b, loc, vector, addr,
                          /*alignment=*/perVector * elementBytes);
  }
  b.eraseOp(op);
  return success();
}

/// ws.store_shared of a register tensor into a shared-memory buffer with
/// static strides -> each thread stores its values at its origin plus their
/// offsets: a 2-d tensor's runs of contiguous values (a wgmma pair, a
/// 32x32b row) as vectors of up to 16 bytes, a row vector's values one by
/// one (lanes holding the same row store the same value).
static LogicalResult lowerStoreShared(StoreSharedOp op,
                                      StoreSharedOp::Adaptor adaptor,
                                      ConversionPatternRewriter &rewriter,
                                      const LLVMTypeConverter &converter) {
  std::optional<RegisterTensor> t = RegisterTensor::get(op.getValue());
  if (!t)
    return rewriter.notifyMatchFailure(op, "not a register tensor");
  auto layout = getStaticStrides(op.getBuffer().getType());
  if (failed(layout) || layout->first.back() != 1)
    return op.emitOpError("stores into rows of static stride only");
  auto [strides, offset] = *layout;
  Location loc = op.getLoc();
  Type element = converter.convertType(t->getType().getElementType());
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  Value base = MemRefDescriptor(adaptor.getBuffer()).alignedPtr(rewriter, loc);
  if (op.getLayout()) {
    if (t->getSlice())
      return op.emitOpError("stores 2-d register tensors only into a "
                            "swizzled layout, got ")
             << t->getType();
    return lowerSwizzledStoreShared(op, adaptor.getValue(), base, *t, rewriter,
                                    element);
  }
  SmallVector<OpFoldResult, 2> origin = t->buildThreadOrigin(rewriter, loc);

  if (t->getSlice() && !t->getRowSlice())
    return op.emitOpError("stores row vectors (#tile.slice<dim = 1>) and "
                          "2-d register tensors only, got ")
           << t->getType();
  if (t->getRowSlice()) {
    for (int64_t v = 0; v < t->getNumValues(); ++v) {
      Value at = buildCoordinate(rewriter, loc, origin[0],
                                 offset + t->getOffsets(v)[0]);
      LLVM::StoreOp::create(rewriter, loc,
                            LLVM::ExtractValueOp::create(rewriter, loc,
                                                         adaptor.getValue(),
                                                         t->getPosition(v)),
                            elementAddress(rewriter, loc, base, element, at));
    }
    rewriter.eraseOp(op);
    return success();
  }

  // Vectors of a run's values, aligned to their size.
  int64_t run = t->getLayout().getContiguousValues(t->getType().getShape());
  int64_t perVector = std::min(run, kMaxVectorBytes / elementBytes);
  if (run % perVector != 0 || strides[0] % perVector != 0 ||
      offset % perVector != 0)
    return op.emitOpError("stores rows in vectors of ")
           << perVector * elementBytes
           << " bytes: the row stride and offset must be multiples of "
           << perVector << " elements";
  // The thread's first element: row * stride + column (+ offset).
  Value threadOffset = LLVM::MulOp::create(
      rewriter, loc, buildCoordinate(rewriter, loc, origin[0], 0),
      i32Const(rewriter, loc, strides[0]));
  int64_t staticOffset = offset;
  if (std::optional<int64_t> col = getStaticCoordinate(origin[1]))
    staticOffset += *col;
  else
    threadOffset = LLVM::AddOp::create(rewriter, loc, threadOffset,
                                       cast<Value>(origin[1]));
  if (staticOffset != 0)
    threadOffset = LLVM::AddOp::create(rewriter, loc, threadOffset,
                                       i32Const(rewriter, loc, staticOffset));
  Value threadBase = elementAddress(rewriter, loc, base, element, threadOffset);
  auto vectorType = VectorType::get({perVector}, element);
  for (int64_t v = 0; v < t->getNumValues(); v += perVector) {
    Value vector =
        buildVector(rewriter, loc, *t, adaptor.getValue(), v, vectorType);
    ArrayRef<int64_t> at = t->getOffsets(v);
    Value addr = LLVM::GEPOp::create(
        rewriter, loc, base.getType(), element, threadBase,
        ArrayRef<LLVM::GEPArg>{int32_t(at[0] * strides[0] + at[1])});
    LLVM::StoreOp::create(rewriter, loc, vector, addr,
                          /*alignment=*/perVector * elementBytes);
  }
  rewriter.eraseOp(op);
  return success();
}

/// ws.load_shared of a row vector (`#tile.slice<dim = 1>`) from a whole
/// buffer -> each thread reads the values of its rows (what ws.store_shared
/// of a row vector wrote).
static LogicalResult lowerLoadShared(LoadSharedOp op,
                                     LoadSharedOp::Adaptor adaptor,
                                     ConversionPatternRewriter &rewriter,
                                     const LLVMTypeConverter &converter) {
  std::optional<RegisterTensor> t = RegisterTensor::get(op.getType());
  if (!t || !t->getRowSlice() ||
      !op.getBuffer().getType().getLayout().isIdentity())
    return op.emitOpError("loads row vectors (#tile.slice<dim = 1> of a "
                          "one-warpgroup register layout) from a whole "
                          "buffer only so far");
  Location loc = op.getLoc();
  Value base = MemRefDescriptor(adaptor.getBuffer()).alignedPtr(rewriter, loc);
  Type element = converter.convertType(t->getType().getElementType());
  OpFoldResult row = t->buildThreadOrigin(rewriter, loc)[0];
  auto loadValue = [&](int64_t v) -> Value {
    Value addr = elementAddress(
        rewriter, loc, base, element,
        buildCoordinate(rewriter, loc, row, t->getOffsets(v)[0]));
    return LLVM::LoadOp::create(rewriter, loc, element, addr);
  };
  rewriter.replaceOp(op, t->buildStruct(rewriter, loc, converter, loadValue));
  return success();
}

/// Whether tile.store_direct of `t` writes 16-byte vectors made by a quad
/// (transposeQuad): a 16-bit wgmma accumulator, whose four threads of a
/// quad hold one 4-byte pair each of every 8-column block of a row, with
/// rows of whole 32-column groups, into a memref whose rows hold whole
/// 16-byte vectors (an innermost size, static, and column coordinate that
/// are multiples of 8).
static bool storesQuadVectors(tile::StoreDirectOp op, const RegisterTensor &t,
                              int64_t elementBytes, int64_t run,
                              bool unitColumns) {
  if (!unitColumns || elementBytes != 2 || run != 2 ||
      !isa<tile::WgmmaAccAttr>(t.getType().getEncoding()) ||
      t.getType().getDimSize(1) % (4 * kQuadBlockColumns))
    return false;
  MemRefType destType = op.getDest().getType();
  int64_t cols = destType.getDimSize(destType.getRank() - 1);
  std::optional<int64_t> col = getConstantIntValue(op.getCoords().back());
  return !ShapedType::isDynamic(cols) && cols % kQuadBlockColumns == 0 && col &&
         *col % kQuadBlockColumns == 0;
}

/// One of `values` (i32), chosen by the i32 `index` (0 to 3).
static Value pickWord(OpBuilder &b, Location loc, ArrayRef<Value> values,
                      Value index) {
  Value picked = values.back();
  for (int64_t i = values.size() - 2; i >= 0; --i)
    picked = LLVM::SelectOp::create(
        b, loc,
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, index,
                             i32Const(b, loc, i)),
        values[i], picked);
  return picked;
}

/// The quad's 4 x 4 transpose of the 4-byte words `words` (word i: this
/// thread's pair of 8-column block i of a 32-column group): thread q of the
/// quad gets block q's 16 bytes, the pairs of threads 0 to 3 in order.
/// Round k, thread q sends its word (q + k) % 4 to thread (q + k) % 4 and
/// receives thread (q - k) % 4's word q.
static Value transposeQuad(OpBuilder &b, Location loc, ArrayRef<Value> words,
                           Value quad, Value quadLane0) {
  Value three = i32Const(b, loc, 3);
  auto mod4 = [&](Value x) { return LLVM::AndOp::create(b, loc, x, three); };
  SmallVector<Value> received{pickWord(b, loc, words, quad)};
  for (int64_t k = 1; k < 4; ++k) {
    Value send =
        pickWord(b, loc, words,
                 mod4(LLVM::AddOp::create(b, loc, quad, i32Const(b, loc, k))));
    Value from = LLVM::OrOp::create(
        b, loc, quadLane0,
        mod4(LLVM::AddOp::create(b, loc, quad, i32Const(b, loc, 4 - k))));
    received.push_back(
        NVVM::ShflOp::create(b, loc, b.getI32Type(), i32Const(b, loc, -1), send,
                             from, i32Const(b, loc, kThreadsPerWarp - 1),
                             NVVM::ShflKind::idx, UnitAttr()));
  }
  // Thread p's word arrived in round (q - p) % 4.
  auto vectorType = VectorType::get({4}, b.getI32Type());
  Value vector = LLVM::UndefOp::create(b, loc, vectorType);
  for (int64_t p = 0; p < 4; ++p)
    vector = LLVM::InsertElementOp::create(
        b, loc, vector,
        pickWord(
            b, loc, received,
            mod4(LLVM::AddOp::create(b, loc, quad, i32Const(b, loc, 4 - p)))),
        i32Const(b, loc, p));
  return vector;
}

/// The vectors of storesQuadVectors: for each 32-column group of a row, the
/// quad's transpose of its pairs, handed to `store` with the row's offset
/// among the thread's rows and the group's first column (thread q's block
/// is 8 q columns further).
static void storeQuadVectors(
    OpBuilder &b, Location loc, const RegisterTensor &t, Value values,
    Type element, Value quad,
    function_ref<void(int64_t rowAt, int64_t column, Value vector)> store) {
  Value quadLane0 = LLVM::SubOp::create(
      b, loc,
      LLVM::AndOp::create(b, loc,
                          NVVM::ThreadIdXOp::create(b, loc, b.getI32Type()),
                          i32Const(b, loc, kThreadsPerWarp - 1)),
      quad);
  // The thread's pairs by row and 8-column block.
  std::map<std::pair<int64_t, int64_t>, int64_t> pairAt;
  for (int64_t v = 0; v < t.getNumValues(); v += 2)
    pairAt[{t.getOffsets(v)[0], t.getOffsets(v)[1] / kQuadBlockColumns}] = v;
  auto pairType = VectorType::get({2}, element);
  for (auto [key, v] : pairAt) {
    auto [rowAt, block] = key;
    if (block % 4)
      continue;
    SmallVector<Value> words;
    for (int64_t i = 0; i < 4; ++i)
      words.push_back(LLVM::BitcastOp::create(
          b, loc, b.getI32Type(),
          buildVector(b, loc, t, values, pairAt.at({rowAt, block + i}),
                      pairType)));
    store(rowAt, block * kQuadBlockColumns,
          transposeQuad(b, loc, words, quad, quadLane0));
  }
}

/// tile.store_direct of a 2-d register tensor (a wgmma accumulator, say)
/// into the two innermost dimensions of a memref -> each thread stores its
/// runs of contiguous values as vectors of up to 16 bytes (aligned to their
/// size) when the innermost stride is 1 (16-bit wgmma accumulators in
/// 16-byte vectors that their quads make, storesQuadVectors), else value by
/// value at the column's stride; each store branched around where its row, its
/// last column or an outer coordinate is outside the memref (unsigned compares:
/// negative coordinates are outside too). Addresses come from the memref
/// descriptor's offset, sizes and strides, so a view whose sizes end early
/// (varlen attention's O, cut at its sequence's end) bounds the stores.
/// With `row_dims k` the rows run over the k dimensions before the
/// innermost, row-major (div/rem by their sizes).
static LogicalResult lowerStoreDirectTile(tile::StoreDirectOp op,
                                          tile::StoreDirectOp::Adaptor adaptor,
                                          ConversionPatternRewriter &rewriter,
                                          const LLVMTypeConverter &converter,
                                          const RegisterTensor &t) {
  MemRefType destType = op.getDest().getType();
  int64_t rank = destType.getRank();
  SmallVector<int64_t> strides;
  int64_t staticOffset;
  if (failed(destType.getStridesAndOffset(strides, staticOffset)))
    return op.emitOpError("stores 2-d register tensors into strided memrefs "
                          "only, got ")
           << destType;
  bool unitColumns = !op.storesByColumns();
  Location loc = op.getLoc();
  Type element = converter.convertType(t.getType().getElementType());
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  int64_t run = t.getLayout().getContiguousValues(t.getType().getShape());
  int64_t perVector =
      unitColumns ? std::min(run, kMaxVectorBytes / elementBytes) : 1;
  if (perVector < 1 || run % perVector != 0)
    return op.emitOpError("stores runs of ")
           << run << " contiguous values, not a multiple of vectors of "
           << perVector;
  BoundedStores s(rewriter, loc, adaptor.getDest());
  MemRefDescriptor &dest = s.dest;

  // The outer coordinates: inside the memref, and their offset. The rows
  // run over the `row_dims` dimensions before the innermost.
  unsigned rowDims = op.getNumRowDims();
  unsigned firstRowDim = rank - 1 - rowDims;
  Value ok;
  Value offset = s.outerOffset(adaptor.getCoords().take_front(firstRowDim), ok);
  Value cols = dest.size(rewriter, loc, rank - 1);
  Value colStride =
      unitColumns ? Value() : dest.stride(rewriter, loc, rank - 1);
  Value base = dest.alignedPtr(rewriter, loc);
  SmallVector<OpFoldResult, 2> origin = t.buildThreadOrigin(rewriter, loc);
  Value row0 = s.index(buildCoordinate(rewriter, loc, origin[0], 0));
  // One vector of `width` values at row `rowAt` of the thread's rows and
  // column `first` + `colAt`, branched around where it is outside.
  auto storeVector = [&](int64_t rowAt, Value first, int64_t colAt,
                         int64_t width, function_ref<Value()> makeVector) {
    Value inside = ok;
    Value rowOffset =
        s.rowOffset(adaptor.getCoords(), firstRowDim, rowDims,
                    s.add(row0, i64Const(rewriter, loc, rowAt)), inside);
    Value col = s.add(first, i64Const(rewriter, loc, colAt));
    inside = s.both(
        inside, s.below(s.add(col, i64Const(rewriter, loc, width - 1)), cols));
    Value colOffset = colStride ? s.mul(col, colStride) : col;
    Value addr = LLVM::GEPOp::create(
        rewriter, loc, base.getType(), element, base,
        ValueRange{s.add(offset, s.add(rowOffset, colOffset))});
    Value vector = makeVector();
    emitIf(rewriter, loc, inside, [&] {
      LLVM::StoreOp::create(rewriter, loc, vector, addr,
                            /*alignment=*/width * elementBytes);
    });
  };
  Value column = s.index(adaptor.getCoords()[rank - 1]);
  if (storesQuadVectors(op, t, elementBytes, run, unitColumns)) {
    // Thread q of a quad stores 8-column block q of each group.
    Value quad = LLVM::AndOp::create(
        rewriter, loc,
        NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type()),
        i32Const(rewriter, loc, 3));
    Value quadCol = s.add(
        column,
        s.index(LLVM::MulOp::create(
            rewriter, loc, quad, i32Const(rewriter, loc, kQuadBlockColumns))));
    storeQuadVectors(rewriter, loc, t, adaptor.getValue(), element, quad,
                     [&](int64_t rowAt, int64_t groupColumn, Value vector) {
                       storeVector(rowAt, quadCol, groupColumn,
                                   kQuadBlockColumns, [&] { return vector; });
                     });
    rewriter.eraseOp(op);
    return success();
  }
  Value col0 =
      s.add(column, s.index(buildCoordinate(rewriter, loc, origin[1], 0)));
  auto vectorType = VectorType::get({perVector}, element);
  for (int64_t v = 0; v < t.getNumValues(); v += perVector) {
    ArrayRef<int64_t> at = t.getOffsets(v);
    storeVector(at[0], col0, at[1], perVector, [&] {
      return buildVector(rewriter, loc, t, adaptor.getValue(), v, vectorType);
    });
  }
  rewriter.eraseOp(op);
  return success();
}

/// tile.load_direct of a row vector (`#tile.slice<dim = 1>`) or a column
/// vector (`<dim = 0>`) from the innermost dimension of a memref -> each
/// thread loads the values of its rows (columns), the lanes holding one
/// row (column) loading the same address; an index outside the memref (or
/// an outer coordinate outside it) reads zero: the load is predicated off
/// (loadIfInside), without a branch.
static LogicalResult lowerLoadDirectRows(tile::LoadDirectOp op,
                                         tile::LoadDirectOp::Adaptor adaptor,
                                         ConversionPatternRewriter &rewriter,
                                         const LLVMTypeConverter &converter,
                                         const RegisterTensor &t) {
  Location loc = op.getLoc();
  int64_t rank = op.getSource().getType().getRank();
  Type element = converter.convertType(t.getType().getElementType());
  BoundedStores s(rewriter, loc, adaptor.getSource());
  Value ok;
  Value offset = s.outerOffset(adaptor.getCoords().drop_back(), ok);
  Value base = s.dest.alignedPtr(rewriter, loc);
  OpFoldResult row = t.buildThreadOrigin(rewriter, loc)[0];
  Value zero = LLVM::ZeroOp::create(rewriter, loc, element);
  auto loadValue = [&](int64_t v) -> Value {
    Value inside = ok;
    Value at = s.rowOffset(
        adaptor.getCoords(), rank - 1, 1,
        s.index(buildCoordinate(rewriter, loc, row, t.getOffsets(v)[0])),
        inside);
    Value addr = LLVM::GEPOp::create(rewriter, loc, base.getType(), element,
                                     base, ValueRange{s.add(offset, at)});
    if (Value value = loadIfInside(rewriter, loc, element, addr, inside))
      return value;
    addr = LLVM::SelectOp::create(rewriter, loc, inside, addr, base);
    Value value = LLVM::LoadOp::create(rewriter, loc, element, addr);
    return LLVM::SelectOp::create(rewriter, loc, inside, value, zero);
  };
  rewriter.replaceOp(op, t.buildStruct(rewriter, loc, converter, loadValue));
  return success();
}

/// tile.load_direct of a 2-d register tensor from a memref whose innermost
/// stride is 1 -> each thread loads its runs of contiguous values as
/// vectors of up to 16 bytes from global memory. A vector outside the
/// memref (a row or column past its size, an outer coordinate outside it:
/// unsigned compares, so negative ones too) reads zeros: its load is
/// predicated off (loadIfInside), without a branch, so every load of the
/// thread can be in flight at once. (Vectors of other sizes than 4, 8 or 16
/// bytes load from the base address instead and select zeros.)
static LogicalResult lowerLoadDirect(tile::LoadDirectOp op,
                                     tile::LoadDirectOp::Adaptor adaptor,
                                     ConversionPatternRewriter &rewriter,
                                     const LLVMTypeConverter &converter) {
  RankedTensorType type = op.getResult().getType();
  std::optional<RegisterTensor> t = RegisterTensor::get(type);
  if (t && t->getSlice())
    return lowerLoadDirectRows(op, adaptor, rewriter, converter, *t);
  if (!t || type.getRank() != 2)
    return op.emitOpError("lowers row and column vectors (#tile.slice of a "
                          "one-warpgroup register layout) and 2-d register "
                          "tensors only, got ")
           << type;
  MemRefType sourceType = op.getSource().getType();
  int64_t rank = sourceType.getRank();
  SmallVector<int64_t> strides;
  int64_t staticOffset;
  if (failed(sourceType.getStridesAndOffset(strides, staticOffset)) ||
      strides.back() != 1)
    return op.emitOpError("loads 2-d register tensors from memrefs whose "
                          "innermost stride is 1 only, got ")
           << sourceType;
  Location loc = op.getLoc();
  Type element = converter.convertType(type.getElementType());
  Type resultType = converter.convertType(type);
  if (!resultType)
    return failure();
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  int64_t run = t->getLayout().getContiguousValues(type.getShape());
  int64_t perVector = std::min(run, kMaxVectorBytes / elementBytes);
  if (perVector < 1 || run % perVector != 0)
    return op.emitOpError("loads runs of ")
           << run << " contiguous values, not a multiple of vectors of "
           << perVector;
  Type i64 = rewriter.getI64Type();
  MemRefDescriptor source(adaptor.getSource());
  auto index = [&](Value coord) -> Value {
    return LLVM::SExtOp::create(rewriter, loc, i64, coord);
  };
  auto below = [&](Value x, Value size) -> Value {
    return LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ult, x,
                                size);
  };
  auto add = [&](Value x, Value y) -> Value {
    return LLVM::AddOp::create(rewriter, loc, x, y);
  };
  auto mul = [&](Value x, Value y) -> Value {
    return LLVM::MulOp::create(rewriter, loc, x, y);
  };

  Value ok, offset = source.offset(rewriter, loc);
  for (int64_t d = 0; d + 2 < rank; ++d) {
    Value c = index(adaptor.getCoords()[d]);
    Value inside = below(c, source.size(rewriter, loc, d));
    ok = ok ? LLVM::AndOp::create(rewriter, loc, ok, inside).getResult()
            : inside;
    offset = add(offset, mul(c, source.stride(rewriter, loc, d)));
  }
  Value rows = source.size(rewriter, loc, rank - 2);
  Value cols = source.size(rewriter, loc, rank - 1);
  Value rowStride = source.stride(rewriter, loc, rank - 2);
  Value base = source.alignedPtr(rewriter, loc);
  SmallVector<OpFoldResult, 2> origin = t->buildThreadOrigin(rewriter, loc);
  Value row0 = add(index(adaptor.getCoords()[rank - 2]),
                   index(buildCoordinate(rewriter, loc, origin[0], 0)));
  Value col0 = add(index(adaptor.getCoords()[rank - 1]),
                   index(buildCoordinate(rewriter, loc, origin[1], 0)));
  auto i64Const = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(rewriter, loc, i64,
                                    rewriter.getI64IntegerAttr(v));
  };
  auto vectorType = VectorType::get({perVector}, element);
  Value zeros = LLVM::ZeroOp::create(rewriter, loc, vectorType);
  Value result = LLVM::UndefOp::create(rewriter, loc, resultType);
  for (int64_t v = 0; v < t->getNumValues(); v += perVector) {
    ArrayRef<int64_t> at = t->getOffsets(v);
    Value row = add(row0, i64Const(at[0]));
    Value col = add(col0, i64Const(at[1]));
    Value inside =
        LLVM::AndOp::create(rewriter, loc, below(row, rows),
                            below(add(col, i64Const(perVector - 1)), cols));
    if (ok)
      inside = LLVM::AndOp::create(rewriter, loc, ok, inside);
    Value addr = LLVM::GEPOp::create(
        rewriter, loc, base.getType(), element, base,
        ValueRange{add(offset, add(mul(row, rowStride), col))});
    Value vector = loadIfInside(rewriter, loc, vectorType, addr, inside);
    if (!vector) {
      addr = LLVM::SelectOp::create(rewriter, loc, inside, addr, base);
      vector = LLVM::LoadOp::create(rewriter, loc, vectorType, addr,
                                    /*alignment=*/perVector * elementBytes);
      vector = LLVM::SelectOp::create(rewriter, loc, inside, vector, zeros);
    }
    for (int64_t i = 0; i < perVector; ++i)
      result = LLVM::InsertValueOp::create(
          rewriter, loc, result,
          LLVM::ExtractElementOp::create(rewriter, loc, vector,
                                         i32Const(rewriter, loc, i)),
          t->getPosition(v + i));
  }
  rewriter.replaceOp(op, result);
  return success();
}

/// tile.store_direct of a row vector (`#tile.slice<dim = 1>`) into the
/// innermost dimension of a memref -> for each of the thread's rows, a
/// global store by the row's first holder (the lane at column 0 of the
/// parent layout; the others hold the same value), branched around where
/// the row or an outer coordinate is outside the memref (unsigned compares:
/// negative coordinates are outside too). Addresses come from the memref
/// descriptor's offset, sizes and strides; with `row_dims k` the rows run
/// over the k innermost dimensions, row-major.
static LogicalResult lowerStoreDirect(tile::StoreDirectOp op,
                                      tile::StoreDirectOp::Adaptor adaptor,
                                      ConversionPatternRewriter &rewriter,
                                      const LLVMTypeConverter &converter) {
  RankedTensorType type = op.getValue().getType();
  std::optional<RegisterTensor> t = RegisterTensor::get(type);
  if (t && !t->getRowSlice() && type.getRank() == 2)
    return lowerStoreDirectTile(op, adaptor, rewriter, converter, *t);
  if (!t || !t->getRowSlice())
    return op.emitOpError("lowers row vectors (#tile.slice<dim = 1> of a "
                          "one-warpgroup register layout) and 2-d register "
                          "tensors only, got ")
           << type;
  Location loc = op.getLoc();
  Type element = converter.convertType(type.getElementType());
  int64_t rank = op.getDest().getType().getRank();
  BoundedStores s(rewriter, loc, adaptor.getDest());
  MemRefDescriptor &dest = s.dest;

  // Where the rows start, and whether this thread stores at all: the
  // row's first holder, outer coordinates inside the memref.
  tile::SliceAttr slice = t->getRowSlice();
  SmallVector<OpFoldResult, 2> origin =
      slice.getParentLayout().buildThreadOrigin(
          rewriter, loc, slice.getParentShape(type.getShape()),
          t->buildThreadIndex(rewriter, loc));
  Value ok;
  if (std::optional<int64_t> col = getStaticCoordinate(origin[1]))
    assert(*col == 0 && "a thread of a static column holds column 0");
  else
    ok = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq,
                              cast<Value>(origin[1]),
                              i32Const(rewriter, loc, 0));
  // The rows run over the `row_dims` innermost dimensions; the offset of
  // the thread's row `v` in them, and whether it is inside.
  unsigned rowDims = op.getNumRowDims();
  unsigned firstRowDim = rank - rowDims;
  auto rowOffset = [&](int64_t v, Value &inside) -> Value {
    return s.rowOffset(
        adaptor.getCoords(), firstRowDim, rowDims,
        s.index(buildCoordinate(rewriter, loc, origin[0], t->getOffsets(v)[0])),
        inside);
  };
  // A thread of one row checks it first, with its own conditions.
  Value singleRow;
  if (t->getNumValues() == 1)
    singleRow = rowOffset(0, ok);
  Value offset = s.outerOffset(adaptor.getCoords().take_front(firstRowDim), ok);
  Value base = dest.alignedPtr(rewriter, loc);

  // One conditional store per row, in program order before the op.
  for (int64_t v = 0; v < t->getNumValues(); ++v) {
    Value inside = ok;
    Value r = singleRow ? singleRow : rowOffset(v, inside);
    Value at = s.add(offset, r);
    Value addr = LLVM::GEPOp::create(rewriter, loc, base.getType(), element,
                                     base, ValueRange{at});
    Value value = LLVM::ExtractValueOp::create(
        rewriter, loc, adaptor.getValue(), t->getPosition(v));
    emitIf(rewriter, loc, inside, [&] {
      LLVM::StoreOp::create(rewriter, loc, value, addr,
                            element.getIntOrFloatBitWidth() / 8);
    });
  }
  rewriter.eraseOp(op);
  return success();
}

void ws::populateRegisterMemoryOpPatterns(const LLVMTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  addLowerings(patterns, converter, lowerStoreShared, lowerLoadShared,
               lowerStoreDirect, lowerLoadDirect);
}
