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

#define GET_OP_CLASSES
#include "fmha/Dialect/Tile/IR/TileOps.cpp.inc"
