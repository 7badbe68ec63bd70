//===- TileDialect.h - The tile dialect ----------------------------*- C++ -*-===//
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
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "fmha/Dialect/Tile/IR/TileDialect.h.inc"
#include "fmha/Dialect/Tile/IR/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "fmha/Dialect/Tile/IR/TileAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "fmha/Dialect/Tile/IR/TileTypes.h.inc"

#define GET_OP_CLASSES
#include "fmha/Dialect/Tile/IR/TileOps.h.inc"

#endif // FMHA_DIALECT_TILE_IR_TILEDIALECT_H
