#ifndef FMHA_DIALECT_WS_IR_WSTYPES_TD
#define FMHA_DIALECT_WS_IR_WSTYPES_TD

include "fmha/Dialect/WS/IR/WSDialect.td"
include "mlir/IR/EnumAttr.td"

#endif // FMHA_DIALECT_WS_IR_WSTYPES_TD
