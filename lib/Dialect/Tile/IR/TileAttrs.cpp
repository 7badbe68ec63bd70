//===- TileAttrs.cpp - Layout encodings of the tile dialect ---------------===//
//
// Part of fmha. The layout encodings: their registration, parameter
// verifiers, their checks against the tensors they lay out, and layout
// helpers.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/Tile/IR/TileDialect.h"
#include "fmha/Target/TargetLimits.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

#define GET_ATTRDEF_CLASSES
#include "fmha/Dialect/Tile/IR/TileAttrs.cpp.inc"

void TileDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fmha/Dialect/Tile/IR/TileAttrs.cpp.inc"
      >();
}

/// Prints `shape` and `elementType` as `tensor<128x64xbf16>`, without quotes.
static std::string tensorString(ArrayRef<int64_t> shape, Type elementType) {
  std::string result;
  llvm::raw_string_ostream os(result);
  os << "tensor<";
  for (int64_t dim : shape)
    os << dim << "x";
  os << elementType << ">";
  return result;
}

/// Checks that a tensor laid out by `layout` is statically shaped and, unless
/// `rank` is negative, has rank `rank`. Fails without a message on a null
/// element type: the parser verifies a tensor's encoding before it checks
/// that the element type parsed, and has already reported why it did not.
static LogicalResult verifyShape(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef layout, ArrayRef<int64_t> shape,
                                 Type elementType, int64_t rank) {
  if (!elementType)
    return failure();
  if (ShapedType::isDynamicShape(shape))
    return emitError() << "#tile." << layout
                       << " lays out statically shaped tensors only";
  if (rank < 0 || static_cast<int64_t>(shape.size()) == rank)
    return success();
  return emitError() << "#tile." << layout << " lays out " << rank
                     << "-d tensors, got a tensor of rank " << shape.size();
}

/// Checks a tensor that the 2-d register layout `layout` lays out: statically
/// shaped, of rank 2, with a multiple of `rows` rows and of `columns`
/// columns; otherwise reports the rule it breaks (`rowRule`, `columnRule`)
/// and the tensor.
static LogicalResult
verifyTiledShape(function_ref<InFlightDiagnostic()> emitError, StringRef layout,
                 ArrayRef<int64_t> shape, Type elementType, int64_t rows,
                 const Twine &rowRule, int64_t columns,
                 const Twine &columnRule) {
  if (failed(verifyShape(emitError, layout, shape, elementType, 2)))
    return failure();
  if (shape[0] % rows != 0)
    return emitError() << rowRule << ", got "
                       << tensorString(shape, elementType);
  if (shape[1] % columns != 0)
    return emitError() << columnRule << ", got "
                       << tensorString(shape, elementType);
  return success();
}

//===----------------------------------------------------------------------===//
// Layout helpers
//===----------------------------------------------------------------------===//

bool mlir::tile::isRegisterParentLayout(Attribute encoding) {
  return isa_and_nonnull<WgmmaAccAttr, Tmem32x32bAttr, BlockedAttr>(encoding);
}

bool mlir::tile::isRegisterLayout(Attribute encoding) {
  return isa_and_nonnull<RegisterLayoutAttrInterface>(encoding);
}

Attribute mlir::tile::getTransposedLayout(Attribute encoding) {
  if (auto transposed = dyn_cast_if_present<TransposedAttr>(encoding))
    return transposed.getParent();
  if (!isRegisterParentLayout(encoding))
    return {};
  return TransposedAttr::get(encoding);
}

SmallVector<int64_t, 2>
mlir::tile::getRegisterLayoutTileShape(Attribute encoding) {
  return TypeSwitch<Attribute, SmallVector<int64_t, 2>>(encoding)
      .Case<WgmmaAccAttr, Tmem32x32bAttr, BlockedAttr>(
          [](auto layout) { return layout.getTileShape(); })
      .Default([](Attribute) { return SmallVector<int64_t, 2>(); });
}

//===----------------------------------------------------------------------===//
// WgmmaAccAttr
//===----------------------------------------------------------------------===//

/// Checks the `warpgroups` parameter of a register layout: a CTA has 1 to 8.
static LogicalResult
verifyWarpgroups(function_ref<InFlightDiagnostic()> emitError,
                 unsigned warpgroups) {
  if (warpgroups < 1 || warpgroups > 8)
    return emitError() << "warpgroups must be in [1, 8] (a CTA has at most "
                          "1024 threads), got "
                       << warpgroups;
  return success();
}

LogicalResult WgmmaAccAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   unsigned instrN, unsigned warpgroups) {
  if (instrN < 8 || instrN > 256 || instrN % 8 != 0)
    return emitError() << "instr_n must be a multiple of 8 in [8, 256] "
                          "(wgmma m64nNk16), got "
                       << instrN;
  return verifyWarpgroups(emitError, warpgroups);
}

LogicalResult WgmmaAccAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  SmallVector<int64_t, 2> tile = getTileShape();
  return verifyTiledShape(
      emitError, "wgmma_acc", shape, elementType, tile[0],
      "#tile.wgmma_acc with " + Twine(getWarpgroups()) +
          " warpgroup(s) needs a multiple of " + Twine(tile[0]) + " rows",
      tile[1],
      "#tile.wgmma_acc with instr_n = " + Twine(getInstrN()) +
          " needs a multiple of " + Twine(tile[1]) + " columns");
}

//===----------------------------------------------------------------------===//
// Tmem32x32bAttr
//===----------------------------------------------------------------------===//

LogicalResult
Tmem32x32bAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       unsigned warpgroups) {
  return verifyWarpgroups(emitError, warpgroups);
}

LogicalResult Tmem32x32bAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  return verifyTiledShape(
      emitError, "tmem_32x32b", shape, elementType, 128,
      "#tile.tmem_32x32b needs a multiple of 128 rows (one per thread of a "
      "warpgroup)",
      getWarpgroups(),
      "#tile.tmem_32x32b splits the columns over " + Twine(getWarpgroups()) +
          " warpgroups: the column count must divide evenly");
}

//===----------------------------------------------------------------------===//
// BlockedAttr
//===----------------------------------------------------------------------===//

LogicalResult BlockedAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  unsigned vector, unsigned lanes,
                                  unsigned warps) {
  if (vector < 1 || vector > 16 || !llvm::isPowerOf2_32(vector))
    return emitError() << "vector must be a power of two in [1, 16], got "
                       << vector;
  if (lanes < 1 || lanes > 32 || !llvm::isPowerOf2_32(lanes))
    return emitError() << "lanes must be a power of two in [1, 32], got "
                       << lanes;
  if (warps < 1 || warps > 32)
    return emitError() << "warps must be in [1, 32] (a CTA has at most 1024 "
                          "threads), got "
                       << warps;
  return success();
}

LogicalResult BlockedAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  SmallVector<int64_t, 2> tile = getTileShape();
  return verifyTiledShape(
      emitError, "blocked", shape, elementType, tile[0],
      "#tile.blocked<vector = " + Twine(getVector()) +
          ", lanes = " + Twine(getLanes()) + ", warps = " + Twine(getWarps()) +
          "> needs a multiple of " + Twine(tile[0]) + " rows",
      tile[1],
      "#tile.blocked<vector = " + Twine(getVector()) +
          ", lanes = " + Twine(getLanes()) + "> needs a multiple of " +
          Twine(tile[1]) + " columns");
}

//===----------------------------------------------------------------------===//
// SliceAttr
//===----------------------------------------------------------------------===//

/// Checks that `parent`, the parent of a `#tile.<layout>`, is a 2-d register
/// layout.
static LogicalResult
verifyRegisterParent(function_ref<InFlightDiagnostic()> emitError,
                     StringRef layout, Attribute parent) {
  if (isRegisterParentLayout(parent))
    return success();
  return emitError() << "the parent of a #tile." << layout
                     << " must be a #tile.wgmma_acc, #tile.tmem_32x32b or "
                        "#tile.blocked layout, got "
                     << parent;
}

LogicalResult SliceAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                unsigned dim, Attribute parent) {
  if (failed(verifyRegisterParent(emitError, "slice", parent)))
    return failure();
  if (dim > 1)
    return emitError() << "#tile.slice dim " << dim
                       << " is out of range for a 2-d parent layout";
  return success();
}

LogicalResult
SliceAttr::verifyEncoding(ArrayRef<int64_t> shape, Type elementType,
                          function_ref<InFlightDiagnostic()> emitError) const {
  if (failed(verifyShape(emitError, "slice", shape, elementType, 1)))
    return failure();
  SmallVector<int64_t, 2> tile = getRegisterLayoutTileShape(getParent());
  if (tile.size() != 2 || getDim() > 1)
    return success(); // The parameter verifier reports these.
  int64_t granule = tile[1 - getDim()];
  if (shape[0] % granule != 0)
    return emitError() << "#tile.slice<dim = " << getDim()
                       << "> needs a multiple of " << granule
                       << " elements (the parent's tile along dimension "
                       << 1 - getDim() << "), got " << shape[0];
  return success();
}

//===----------------------------------------------------------------------===//
// TransposedAttr
//===----------------------------------------------------------------------===//

LogicalResult
TransposedAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       Attribute parent) {
  return verifyRegisterParent(emitError, "transposed", parent);
}

LogicalResult TransposedAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (failed(verifyShape(emitError, "transposed", shape, elementType, 2)))
    return failure();
  // The transpose must be a tensor the parent lays out.
  auto parent = dyn_cast<VerifiableTensorEncoding>(getParent());
  if (!parent)
    return success(); // The parameter verifier reports it.
  return parent.verifyEncoding({shape[1], shape[0]}, elementType, emitError);
}

//===----------------------------------------------------------------------===//
// NvmmaSharedAttr
//===----------------------------------------------------------------------===//

NvmmaSharedAttr NvmmaSharedAttr::getRowMajor(RankedTensorType type) {
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  int64_t swizzle =
      fmha::limits::widestSwizzleBytes(type.getShape().back() * bits / 8);
  if (!swizzle)
    return {};
  return get(type.getContext(), swizzle, /*transposed=*/false, bits);
}

LogicalResult
NvmmaSharedAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        unsigned swizzle, bool transposed,
                        unsigned elementBits) {
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "swizzle must be 0, 32, 64 or 128 bytes, got "
                       << swizzle;
  if (elementBits != 8 && elementBits != 16 && elementBits != 32)
    return emitError() << "element_bits must be 8, 16 or 32, got "
                       << elementBits;
  return success();
}

LogicalResult NvmmaSharedAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (failed(verifyShape(emitError, "nvmma_shared", shape, elementType, -1)))
    return failure();
  if (shape.size() < 2)
    return emitError() << "#tile.nvmma_shared lays out tensors of rank 2 or "
                          "more, got a tensor of rank "
                       << shape.size();
  if (!elementType.isIntOrFloat() ||
      elementType.getIntOrFloatBitWidth() != getElementBits())
    return emitError() << "#tile.nvmma_shared has element_bits = "
                       << getElementBits() << " but the element type is "
                       << elementType;
  unsigned dim = getContiguousDim(shape.size());
  int64_t bytes = shape[dim] * getElementBits() / 8;
  int64_t granule = getSwizzle() ? getSwizzle() : 16;
  if (bytes % granule != 0)
    return emitError() << "the contiguous dimension " << dim << " of "
                       << tensorString(shape, elementType) << " spans " << bytes
                       << " bytes, not a multiple of " << granule
                       << (getSwizzle() ? " (the swizzle width)"
                                        : " (the TMA and MMA granule)");
  return success();
}

//===----------------------------------------------------------------------===//
// TmemAttr
//===----------------------------------------------------------------------===//

LogicalResult TmemAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               unsigned blockM, unsigned blockN,
                               bool unpacked) {
  if (blockM != 64 && blockM != 128)
    return emitError() << "#tile.tmem block rows must be 64 or 128 (the M of "
                          "a tcgen05.mma), got "
                       << blockM;
  if (blockN < 1 || blockN > 256)
    return emitError() << "#tile.tmem block columns must be in [1, 256] (the "
                          "N of a tcgen05.mma), got "
                       << blockN;
  return success();
}

LogicalResult
TmemAttr::verifyEncoding(ArrayRef<int64_t> shape, Type elementType,
                         function_ref<InFlightDiagnostic()> emitError) const {
  if (failed(verifyShape(emitError, "tmem", shape, elementType, 2)))
    return failure();
  if (shape[0] % getBlockM() != 0 || shape[1] % getBlockN() != 0)
    return emitError() << tensorString(shape, elementType)
                       << " is not made of whole #tile.tmem blocks of "
                       << getBlockM() << "x" << getBlockN();
  unsigned bits =
      elementType.isIntOrFloat() ? elementType.getIntOrFloatBitWidth() : 0;
  if (bits != 8 && bits != 16 && bits != 32)
    return emitError() << "#tile.tmem holds 8-, 16- or 32-bit elements, got "
                       << elementType;
  if (bits == 32 && !getUnpacked())
    return emitError() << "32-bit elements take a whole TMEM column: "
                          "#tile.tmem needs unpacked = true for "
                       << elementType;
  int64_t columns = getNumColumns(shape, bits);
  if (columns > 512)
    return emitError() << tensorString(shape, elementType) << " takes "
                       << columns
                       << " TMEM columns, more than the 512 of a CTA";
  return success();
}

int64_t TmemAttr::getNumColumns(ArrayRef<int64_t> shape,
                                unsigned elementBits) const {
  int64_t blocks = (shape[0] / getBlockM()) * (shape[1] / getBlockN());
  int64_t perBlock = getUnpacked()
                         ? getBlockN()
                         : llvm::divideCeil(getBlockN() * elementBits, 32);
  return blocks * perBlock;
}
