#ifndef FMHA_DIALECT_FMHA_IR_FMHAOPS_TD
#define FMHA_DIALECT_FMHA_IR_FMHAOPS_TD

include "fmha/Dialect/FMHA/IR/FMHADialect.td"
include "fmha/Dialect/FMHA/IR/FMHAAttrs.td"
include "fmha/Dialect/FMHA/IR/FMHATypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

#endif // FMHA_DIALECT_FMHA_IR_FMHAOPS_TD
