#ifndef FMHA_DIALECT_WS_IR_WSOPS_TD
#define FMHA_DIALECT_WS_IR_WSOPS_TD

include "fmha/Dialect/WS/IR/WSDialect.td"
include "fmha/Dialect/WS/IR/WSAttrs.td"
include "fmha/Dialect/WS/IR/WSTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

#endif // FMHA_DIALECT_WS_IR_WSOPS_TD
