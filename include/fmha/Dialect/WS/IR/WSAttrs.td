#ifndef FMHA_DIALECT_WS_IR_WSATTRS_TD
#define FMHA_DIALECT_WS_IR_WSATTRS_TD

include "fmha/Dialect/WS/IR/WSDialect.td"
include "mlir/IR/EnumAttr.td"

#endif // FMHA_DIALECT_WS_IR_WSATTRS_TD
