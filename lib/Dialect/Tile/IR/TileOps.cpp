//===- TileOps.cpp - Ops of the tile dialect ------------------------------===//
//
// Part of fmha. Verifiers and helpers of the tile ops.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::tile;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Parses the `!tile.desc` type of a store; the stored value has its block
/// type.
static ParseResult parseDescAndBlockType(OpAsmParser &parser, Type &descType,
                                         Type &valueType) {
  TensorDescType desc;
  if (parser.parseType(desc))
    return failure();
  descType = desc;
  valueType = desc.getBlock();
  if (succeeded(parser.parseOptionalComma()))
    return parser.parseType(valueType);
  return success();
}

/// Prints the `!tile.desc` type of a store; see parseDescAndBlockType.
static void printDescAndBlockType(OpAsmPrinter &printer, Operation *,
                                  Type descType, Type valueType) {
  printer << descType;
  if (valueType != cast<TensorDescType>(descType).getBlock())
    printer << ", " << valueType;
}

/// Checks that a TMA transfer through `desc` has one coordinate per global
/// dimension.
static LogicalResult verifyCoords(Operation *op, TensorDescType desc,
                                  size_t numCoords) {
  if (numCoords == desc.getGlobalRank())
    return success();
  return op->emitOpError()
         << "needs one coordinate per dimension of the global tensor: "
         << desc.getGlobalRank() << " for " << desc << ", got " << numCoords;
}

/// `shape` without dimension `axis`.
static SmallVector<int64_t> dropAxis(ArrayRef<int64_t> shape, uint64_t axis) {
  SmallVector<int64_t> result(shape);
  result.erase(result.begin() + axis);
  return result;
}

/// Checks that `axis` is a dimension of `type`, the type of the op's `name`
/// ("input", "result").
static LogicalResult verifyAxis(Operation *op, uint64_t axis,
                                RankedTensorType type, StringRef name) {
  if (axis < static_cast<uint64_t>(type.getRank()))
    return success();
  return op->emitOpError() << "axis " << axis << " is out of range for the "
                           << type.getRank() << "-d " << name << " " << type;
}

/// Checks that the result of an op that moves values between tensors has
/// the element type of its input.
static LogicalResult verifySameElementType(Operation *op,
                                           RankedTensorType inType,
                                           RankedTensorType outType) {
  if (outType.getElementType() == inType.getElementType())
    return success();
  return op->emitOpError() << "result element type " << outType.getElementType()
                           << " differs from the input's "
                           << inType.getElementType();
}

/// Checks the layouts of a 2-d tensor `full` and of `sliced`, `full` without
/// dimension `axis` (the operands of reduce and broadcast): `full` is in a
/// register layout or none, and `sliced` is laid out by the slice of it
/// along `axis` or has no encoding.
static LogicalResult verifySliceLayouts(Operation *op, RankedTensorType full,
                                        RankedTensorType sliced, uint64_t axis,
                                        StringRef fullName,
                                        StringRef slicedName) {
  Attribute fullEnc = full.getEncoding();
  Attribute slicedEnc = sliced.getEncoding();
  if (fullEnc && !isRegisterParentLayout(fullEnc))
    return op->emitOpError()
           << "the " << fullName
           << " must be in a 2-d register layout (#tile.wgmma_acc or "
              "#tile.tmem_32x32b) or have no encoding, got "
           << fullEnc;
  if (!slicedEnc)
    return success();
  if (!fullEnc)
    return op->emitOpError()
           << "the " << slicedName << " has encoding " << slicedEnc
           << " but the " << fullName << " has none";
  // A register parent layout verified `full` to be 2-d, so axis <= 1.
  auto expected = SliceAttr::get(op->getContext(), axis, fullEnc);
  if (slicedEnc != expected)
    return op->emitOpError()
           << "the " << slicedName << " must be laid out by " << expected
           << " (or have no encoding), got " << slicedEnc;
  return success();
}

/// Checks tile.reduce (`reduces`: its input is the full tensor, its result
/// the slice) or tile.broadcast (its result is the full tensor, its input
/// the slice) along `axis`: `axis` is a dimension of the full tensor, the
/// slice has the full tensor's shape without it, the result has the input's
/// element type and the layouts agree.
static LogicalResult verifyAxisSlice(Operation *op, uint64_t axis,
                                     bool reduces) {
  auto inType = cast<RankedTensorType>(op->getOperand(0).getType());
  auto outType = cast<RankedTensorType>(op->getResult(0).getType());
  RankedTensorType full = reduces ? inType : outType;
  RankedTensorType sliced = reduces ? outType : inType;
  StringRef fullName = reduces ? "input" : "result";
  StringRef slicedName = reduces ? "result" : "input";
  if (failed(verifyAxis(op, axis, full, fullName)))
    return failure();
  auto expected = RankedTensorType::get(dropAxis(full.getShape(), axis),
                                        full.getElementType());
  if (sliced.getShape() != expected.getShape()) {
    if (reduces)
      return op->emitOpError()
             << "reducing " << inType << " along axis " << axis << " gives "
             << expected << ", but the result type is " << outType;
    return op->emitOpError()
           << "broadcasting to " << outType << " along axis " << axis
           << " takes an input of type " << expected << ", got " << inType;
  }
  if (failed(verifySameElementType(op, inType, outType)))
    return failure();
  return verifySliceLayouts(op, full, sliced, axis, fullName, slicedName);
}

//===----------------------------------------------------------------------===//
// LoadOp
//===----------------------------------------------------------------------===//

LogicalResult
LoadOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                         Adaptor adaptor,
                         SmallVectorImpl<Type> &inferredReturnTypes) {
  auto desc = dyn_cast_or_null<TensorDescType>(adaptor.getDesc().getType());
  if (!desc)
    return emitOptionalError(location, "expected a !tile.desc operand, got ",
                             adaptor.getDesc().getType());
  inferredReturnTypes.push_back(desc.getBlock());
  return success();
}

LogicalResult LoadOp::verify() {
  return verifyCoords(*this, getDesc().getType(), getCoords().size());
}

//===----------------------------------------------------------------------===//
// StoreOp
//===----------------------------------------------------------------------===//

LogicalResult StoreOp::verify() {
  TensorDescType desc = getDesc().getType();
  if (failed(verifyCoords(*this, desc, getCoords().size())))
    return failure();
  // The value may be in registers, with its own layout: only the shape and
  // the element type must match the block.
  RankedTensorType value = getValue().getType();
  if (value.getShape() != desc.getBlock().getShape() ||
      value.getElementType() != desc.getBlock().getElementType())
    return emitOpError() << "stores a value of type " << value
                         << " but the block type of the descriptor is "
                         << desc.getBlock();
  if (getReduce() && !value.getElementType().isF32())
    return emitOpError() << "reduce add stores f32 tiles only so far, got "
                         << value.getElementType();
  return success();
}

/// Checks that `memref` is in global memory: no memory space, or NVPTX's
/// global address space 1 (0 is the generic one). `access` words the error
/// ("accesses", "writes").
static LogicalResult verifyGlobal(Operation *op, MemRefType memref,
                                  StringRef what,
                                  StringRef access = "accesses") {
  Attribute space = memref.getMemorySpace();
  if (!space)
    return success();
  auto number = dyn_cast<IntegerAttr>(space);
  if (number && (number.getInt() == 0 || number.getInt() == 1))
    return success();
  return op->emitOpError() << access << " global memory, but " << what
                           << " is in memory space " << space;
}

/// Checks a direct access (tile.load_direct, tile.store_direct) of `value`
/// at `coords` coordinates of `memref`, the op's `role` ("source",
/// "destination"): one coordinate per dimension of the memref, and a value
/// of no higher rank and of its element type. `verb` and `preposition` word
/// the errors ("loads ... from", "stores ... into").
static LogicalResult verifyDirectAccess(Operation *op, MemRefType memref,
                                        RankedTensorType value, size_t coords,
                                        StringRef role, StringRef verb,
                                        StringRef preposition) {
  if (coords != static_cast<size_t>(memref.getRank()))
    return op->emitOpError()
           << "needs one coordinate per dimension of the " << role << ": "
           << memref.getRank() << " for " << memref << ", got " << coords;
  if (value.getRank() > memref.getRank())
    return op->emitOpError()
           << verb << " a value of rank " << value.getRank() << " "
           << preposition << " a " << role << " of rank " << memref.getRank();
  if (value.getElementType() != memref.getElementType())
    return op->emitOpError()
           << verb << " " << value.getElementType() << " elements "
           << preposition << " a memref of " << memref.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// StoreDirectOp
//===----------------------------------------------------------------------===//

bool StoreDirectOp::storesByColumns() {
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(getDest().getType().getStridesAndOffset(strides, offset)) &&
         strides.back() != 1;
}

LogicalResult StoreDirectOp::verify() {
  MemRefType dest = getDest().getType();
  if (failed(verifyDirectAccess(*this, dest, getValue().getType(),
                                getCoords().size(), "destination", "stores",
                                "into")))
    return failure();
  int64_t covered = getValue().getType().getRank() + getNumRowDims() - 1;
  if (covered > dest.getRank())
    return emitOpError() << "row_dims " << getNumRowDims()
                         << ": the value's rows and other dimensions cover "
                         << covered << " dimensions, more than the "
                         << dest.getRank() << " of the destination";
  return verifyGlobal(*this, dest, "the destination", "writes");
}

//===----------------------------------------------------------------------===//
// LoadDirectOp
//===----------------------------------------------------------------------===//

LogicalResult LoadDirectOp::verify() {
  MemRefType source = getSource().getType();
  if (failed(verifyDirectAccess(*this, source, getResult().getType(),
                                getCoords().size(), "source", "loads", "from")))
    return failure();
  return verifyGlobal(*this, source, "the source");
}

//===----------------------------------------------------------------------===//
// CounterArriveOp
//===----------------------------------------------------------------------===//

LogicalResult CounterArriveOp::verify() {
  return verifyGlobal(*this, getCounters().getType(), "the counters");
}

//===----------------------------------------------------------------------===//
// DotOp
//===----------------------------------------------------------------------===//

LogicalResult
DotOp::inferReturnTypes(MLIRContext *context, std::optional<Location> location,
                        Adaptor adaptor,
                        SmallVectorImpl<Type> &inferredReturnTypes) {
  inferredReturnTypes.push_back(adaptor.getAcc().getType());
  return success();
}

LogicalResult DotOp::verify() {
  RankedTensorType aType = getA().getType();
  RankedTensorType bType = getB().getType();
  RankedTensorType accType = getAcc().getType();
  Type elementType = aType.getElementType();
  // fp8 operands may mix e4m3 and e5m2 (the MMAs take each operand's type).
  auto isFp8 = [](Type type) {
    return isa<Float8E4M3FNType, Float8E5M2Type>(type);
  };
  if (elementType != bType.getElementType() &&
      !(isFp8(elementType) && isFp8(bType.getElementType())))
    return emitOpError() << "operands must have the same element type (or "
                            "both be fp8), got "
                         << elementType << " and " << bType.getElementType();
  if (elementType.isBF16() && !accType.getElementType().isF32())
    return emitOpError() << "bf16 operands need an f32 accumulator, got "
                         << accType.getElementType();

  // Shapes: op(a) is M x K, op(b) is K x N, acc is M x N.
  ArrayRef<int64_t> a = aType.getShape(), b = bType.getShape(),
                    acc = accType.getShape();
  bool ta = getTransposeA(), tb = getTransposeB();
  int64_t m = ta ? a[1] : a[0], ka = ta ? a[0] : a[1];
  int64_t kb = tb ? b[1] : b[0], n = tb ? b[0] : b[1];
  if (ka != kb)
    return emitOpError() << "a " << aType << (ta ? " (transposed)" : "")
                         << " has K = " << ka << " but b " << bType
                         << (tb ? " (transposed)" : "") << " has K = " << kb;
  if (m != acc[0])
    return emitOpError() << "a " << aType << (ta ? " (transposed)" : "")
                         << " has M = " << m << " rows but the accumulator "
                         << accType << " has " << acc[0];
  // In 2-CTA mode b is this CTA's half of N.
  int64_t accN = getCtaPair() ? 2 * n : n;
  if (accN != acc[1])
    return emitOpError() << "b " << bType << (tb ? " (transposed)" : "")
                         << " has N = " << n << " columns"
                         << (getCtaPair() ? " (half of a CTA pair's)" : "")
                         << " but the accumulator " << accType << " has "
                         << acc[1];

  // Layouts: where each operand can live.
  Attribute aEnc = aType.getEncoding(), bEnc = bType.getEncoding(),
            accEnc = accType.getEncoding();
  if (bEnc && !isa<NvmmaSharedAttr>(bEnc))
    return emitOpError() << "b must be in shared memory (#tile.nvmma_shared) "
                            "or have no encoding, got "
                         << bEnc;
  if (accEnc && !isa<WgmmaAccAttr, TmemAttr>(accEnc))
    return emitOpError() << "the accumulator must be in wgmma registers "
                            "(#tile.wgmma_acc) or tensor memory (#tile.tmem) "
                            "or have no encoding, got "
                         << accEnc;
  if (aEnc && !isa<NvmmaSharedAttr, WgmmaAccAttr, TmemAttr>(aEnc))
    return emitOpError() << "a must be in shared memory (#tile.nvmma_shared), "
                            "wgmma registers (#tile.wgmma_acc) or tensor "
                            "memory (#tile.tmem) or have no encoding, got "
                         << aEnc;
  if (auto aRegs = dyn_cast_or_null<WgmmaAccAttr>(aEnc)) {
    auto accRegs = dyn_cast_or_null<WgmmaAccAttr>(accEnc);
    if (!accRegs)
      return emitOpError() << "a in registers (#tile.wgmma_acc) needs a "
                              "#tile.wgmma_acc accumulator (only wgmma reads A "
                              "from registers), got "
                           << accType;
    if (aRegs.getWarpgroups() != accRegs.getWarpgroups())
      return emitOpError() << "a in registers is spread over "
                           << aRegs.getWarpgroups()
                           << " warpgroup(s) but the accumulator over "
                           << accRegs.getWarpgroups();
    if (ta)
      return emitOpError() << "a in registers (#tile.wgmma_acc) must be "
                              "K-major: transpose_a is not allowed";
  }
  if (isa_and_nonnull<TmemAttr>(aEnc) && !isa_and_nonnull<TmemAttr>(accEnc))
    return emitOpError() << "a in tensor memory (#tile.tmem) needs a "
                            "#tile.tmem accumulator (only tcgen05.mma reads A "
                            "from tensor memory), got "
                         << accType;
  // The quad16 K order is how an 8-bit A fragment reads accumulator-laid
  // registers; 16-bit fragments read them in plain order.
  bool aInRegisters = isa_and_nonnull<WgmmaAccAttr>(aEnc);
  if (getKQuad16()) {
    if (!isFp8(elementType))
      return emitOpError() << "k_quad16 is the K order of an fp8 A operand "
                              "in registers, but a is "
                           << elementType;
    if (ta)
      return emitOpError() << "k_quad16 reads a in registers, K-major: "
                              "transpose_a is not allowed";
    if (ka % 32 != 0)
      return emitOpError() << "k_quad16 needs K to be a multiple of 32 (one "
                              "8-bit wgmma's K), got "
                           << ka;
    if (aEnc && !aInRegisters)
      return emitOpError() << "k_quad16 needs a in registers "
                              "(#tile.wgmma_acc), got "
                           << aEnc;
  } else if (aInRegisters && isFp8(elementType)) {
    return emitOpError() << "an fp8 a in registers (#tile.wgmma_acc) is read "
                            "in the quad16 K order only: k_quad16 must be set";
  }
  // An asynchronous result is incomplete until a wait returns it.
  if (getAsync())
    for (OpOperand &use : getResult().getUses()) {
      auto dot = dyn_cast<DotOp>(use.getOwner());
      if (isa<DotWaitOp>(use.getOwner()) ||
          (dot && dot.getAsync() && use.get() == dot.getAcc() &&
           use.getOperandNumber() == 2))
        continue;
      return emitOpError() << "async result may only be used by tile.dot_wait "
                              "or as the accumulator of an async tile.dot, "
                              "not by "
                           << use.getOwner()->getName();
    }
  return success();
}

//===----------------------------------------------------------------------===//
// DotWaitOp
//===----------------------------------------------------------------------===//

LogicalResult DotWaitOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location,
    DotWaitOp::Adaptor adaptor, SmallVectorImpl<Type> &inferredReturnTypes) {
  llvm::append_range(inferredReturnTypes, adaptor.getValues().getTypes());
  return success();
}

LogicalResult DotWaitOp::verify() {
  for (auto [i, value] : llvm::enumerate(getValues())) {
    auto dot = value.getDefiningOp<DotOp>();
    if (!dot || !dot.getAsync())
      return emitOpError() << "operand " << i
                           << " is not the result of an async tile.dot";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::verify() {
  return verifyAxisSlice(*this, getAxis(), /*reduces=*/true);
}

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  return verifyAxisSlice(*this, getAxis(), /*reduces=*/false);
}

//===----------------------------------------------------------------------===//
// ScaleRowsOp
//===----------------------------------------------------------------------===//

LogicalResult ScaleRowsOp::verify() {
  RankedTensorType type = getInput().getType();
  RankedTensorType factors = getFactors().getType();
  if (type.getRank() != 2)
    return emitOpError() << "scales the rows of a 2-d tensor, got " << type;
  if (factors.getRank() != 1 || factors.getDimSize(0) != type.getDimSize(0))
    return emitOpError() << "takes one factor per row of " << type << ", got "
                         << factors;
  if (factors.getElementType() != type.getElementType())
    return emitOpError() << "factors element type " << factors.getElementType()
                         << " differs from the input's "
                         << type.getElementType();
  return verifySliceLayouts(*this, type, factors, /*axis=*/1, "input",
                            "factors");
}

//===----------------------------------------------------------------------===//
// IotaOp
//===----------------------------------------------------------------------===//

LogicalResult IotaOp::verify() {
  RankedTensorType type = getResult().getType();
  if (failed(verifyAxis(*this, getAxis(), type, "result")))
    return failure();
  Attribute encoding = type.getEncoding();
  if (encoding && !isRegisterLayout(encoding))
    return emitOpError() << "the result must be in a register layout "
                            "(#tile.wgmma_acc, #tile.tmem_32x32b or "
                            "#tile.slice) or have no encoding, got "
                         << encoding;
  return success();
}

//===----------------------------------------------------------------------===//
// ConvertLayoutOp
//===----------------------------------------------------------------------===//

LogicalResult ConvertLayoutOp::verify() {
  RankedTensorType inType = getInput().getType();
  RankedTensorType outType = getResult().getType();
  if (inType.getShape() != outType.getShape())
    return emitOpError() << "changes the shape: " << inType << " -> " << outType
                         << " (only the encoding may change)";
  if (inType.getElementType() != outType.getElementType())
    return emitOpError() << "changes the element type: " << inType << " -> "
                         << outType << " (only the encoding may change)";
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // convert_layout(convert_layout(x)) converts x directly.
  if (auto producer = getInput().getDefiningOp<ConvertLayoutOp>()) {
    if (producer.getInput().getType() == getType())
      return producer.getInput();
    getInputMutable().assign(producer.getInput());
    return getResult();
  }
  return {};
}

#define GET_OP_CLASSES
#include "fmha/Dialect/Tile/IR/TileOps.cpp.inc"

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::verify() {
  RankedTensorType inType = getInput().getType();
  RankedTensorType outType = getResult().getType();
  if (inType.getRank() != 2 || outType.getRank() != 2)
    return emitOpError() << "transposes 2-d tensors, got " << inType << " -> "
                         << outType;
  if (inType.getDimSize(0) != outType.getDimSize(1) ||
      inType.getDimSize(1) != outType.getDimSize(0))
    return emitOpError() << "result shape must be the input's swapped: "
                         << inType << " -> " << outType;
  if (inType.getElementType() != outType.getElementType())
    return emitOpError() << "changes the element type: " << inType << " -> "
                         << outType;
  Attribute inEnc = inType.getEncoding(), outEnc = outType.getEncoding();
  bool shared = isa_and_nonnull<NvmmaSharedAttr>(inEnc) ||
                isa_and_nonnull<NvmmaSharedAttr>(outEnc);
  if (shared || getKQuad16()) {
    if (shared && (!isa_and_nonnull<NvmmaSharedAttr>(inEnc) ||
                   !isa_and_nonnull<NvmmaSharedAttr>(outEnc)))
      return emitOpError() << "transposes in shared memory with input and "
                              "result both #tile.nvmma_shared, got "
                           << inType << " -> " << outType;
    if (inType.getElementTypeBitWidth() != 8)
      return emitOpError() << "transposes one-byte elements in shared memory, "
                              "got "
                           << inType.getElementType();
    if (shared && !getKQuad16())
      return emitOpError() << "transposes in shared memory into the k_quad16 "
                              "order only (the one fp8 attention's P V "
                              "reads); the plain order is not built";
    if (inType.getDimSize(0) % kTransposeRowGroup != 0 ||
        inType.getDimSize(1) % kTransposeColumnBytes != 0)
      return emitOpError() << "transposes in shared memory a tile of rows in "
                              "groups of "
                           << kTransposeRowGroup << " and columns in groups of "
                           << kTransposeColumnBytes << ", got " << inType;
    return success();
  }
  if (!inEnc && !outEnc)
    return success();
  Attribute expected = getTransposedLayout(inEnc);
  if (!expected || !outEnc)
    return emitOpError() << "input and result must both be in register "
                            "layouts or both have no encoding, got "
                         << inType << " -> " << outType;
  if (outEnc != expected)
    return emitOpError() << "result layout must be " << expected << ", got "
                         << outEnc;
  return success();
}
