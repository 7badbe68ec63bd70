#ifndef FMHA_DIALECT_TILE_IR_TILEATTRS_TD
#define FMHA_DIALECT_TILE_IR_TILEATTRS_TD

include "fmha/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/EnumAttr.td"

#endif // FMHA_DIALECT_TILE_IR_TILEATTRS_TD
