//===- TileDialect.h - The tile dialect -------------------------*- C++ -*-===//
//
// Part of fmha. Declares the tile dialect, its attributes, types and ops.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_DIALECT_TILE_IR_TILEDIALECT_H
#define FMHA_DIALECT_TILE_IR_TILEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "fmha/Dialect/Tile/IR/TileDialect.h.inc"
#include "fmha/Dialect/Tile/IR/TileEnums.h.inc"
#include "fmha/Dialect/Tile/IR/TileInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "fmha/Dialect/Tile/IR/TileAttrs.h.inc"

namespace mlir {
namespace tile {

/// Whether `encoding` is a 2-d register layout, one that `#tile.slice` can
/// take as its parent: `#tile.wgmma_acc`, `#tile.tmem_32x32b` or
/// `#tile.blocked`.
bool isRegisterParentLayout(Attribute encoding);

/// Whether `encoding` spreads a tensor over the registers of threads:
/// `#tile.wgmma_acc`, `#tile.tmem_32x32b`, `#tile.blocked` or a
/// `#tile.slice` of one of them.
bool isRegisterLayout(Attribute encoding);

/// The layout of the transpose of a tensor laid out by `encoding`:
/// `#tile.transposed` of a 2-d register layout, or the parent of a
/// `#tile.transposed` (transposing twice gives the layout back); null for
/// any other encoding.
Attribute getTransposedLayout(Attribute encoding);

/// The rows and columns one repetition of the 2-d register layout `encoding`
/// covers (see isRegisterParentLayout); empty for other encodings.
SmallVector<int64_t, 2> getRegisterLayoutTileShape(Attribute encoding);

/// A tile.transpose in shared memory moves the input's rows in groups of
/// kTransposeRowGroup (the k_quad16 permutation's) and its columns in runs
/// of kTransposeColumnBytes (a warp's step: eight lanes of four bytes).
constexpr int64_t kTransposeRowGroup = 16;
constexpr int64_t kTransposeColumnBytes = 32;

/// Whether `root` holds an op of the tile dialect (a tile program to lay out
/// or partition).
bool containsTileOps(Operation *root);

} // namespace tile
} // namespace mlir

#define GET_TYPEDEF_CLASSES
#include "fmha/Dialect/Tile/IR/TileTypes.h.inc"

#define GET_OP_CLASSES
#include "fmha/Dialect/Tile/IR/TileOps.h.inc"

#endif // FMHA_DIALECT_TILE_IR_TILEDIALECT_H
