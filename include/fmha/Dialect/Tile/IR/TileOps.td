#ifndef FMHA_DIALECT_TILE_IR_TILEOPS_TD
#define FMHA_DIALECT_TILE_IR_TILEOPS_TD

include "fmha/Dialect/Tile/IR/TileDialect.td"
include "fmha/Dialect/Tile/IR/TileAttrs.td"
include "fmha/Dialect/Tile/IR/TileTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

#endif // FMHA_DIALECT_TILE_IR_TILEOPS_TD
