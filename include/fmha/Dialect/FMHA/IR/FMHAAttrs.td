#ifndef FMHA_DIALECT_FMHA_IR_FMHAATTRS_TD
#define FMHA_DIALECT_FMHA_IR_FMHAATTRS_TD

include "fmha/Dialect/FMHA/IR/FMHADialect.td"
include "mlir/IR/EnumAttr.td"

#endif // FMHA_DIALECT_FMHA_IR_FMHAATTRS_TD
