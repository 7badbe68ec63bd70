//===- TileDialect.cpp - The tile dialect ---------------------------------===//
//
// Part of fmha. Registers the tile dialect's attributes, types and ops.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

#include "fmha/Dialect/Tile/IR/TileDialect.cpp.inc"
#include "fmha/Dialect/Tile/IR/TileEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "fmha/Dialect/Tile/IR/TileTypes.cpp.inc"

bool mlir::tile::containsTileOps(Operation *root) {
  return root
      ->walk([](Operation *op) {
        return isa<TileDialect>(op->getDialect()) ? WalkResult::interrupt()
                                                  : WalkResult::advance();
      })
      .wasInterrupted();
}

void TileDialect::initialize() {
  registerAttributes();
  addTypes<
#define GET_TYPEDEF_LIST
#include "fmha/Dialect/Tile/IR/TileTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "fmha/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// TensorDescType
//===----------------------------------------------------------------------===//

LogicalResult
TensorDescType::verify(function_ref<InFlightDiagnostic()> emitError,
                       RankedTensorType block, unsigned rank) {
  if (!block.hasStaticShape())
    return emitError() << "a descriptor's block must have a static shape, got "
                       << block;
  if (block.getRank() < 1 || block.getRank() > 5)
    return emitError() << "TMA handles tensors of rank 1 to 5, block has rank "
                       << block.getRank();
  if (rank != 0 && (rank < block.getRank() || rank > 5))
    return emitError() << "global rank " << rank
                       << " must be between the block's rank ("
                       << block.getRank() << ") and 5";
  for (int64_t dim : block.getShape())
    if (dim < 1 || dim > 256)
      return emitError() << "TMA box dimensions must be in [1, 256], got "
                         << dim;
  if (!block.getElementType().isIntOrFloat())
    return emitError() << "element type must be an integer or float, got "
                       << block.getElementType();
  if (Attribute encoding = block.getEncoding();
      encoding && !isa<NvmmaSharedAttr>(encoding))
    return emitError() << "a descriptor's block lives in shared memory: its "
                          "encoding must be a #tile.nvmma_shared, got "
                       << encoding;
  return success();
}

int64_t TensorDescType::getBlockBytes() const {
  return getBlock().getNumElements() *
         getBlock().getElementType().getIntOrFloatBitWidth() / 8;
}
