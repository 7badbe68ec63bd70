//===- FMHAServingOps.h - fmha ops that move keys, values -------*- C++ -*-===//
//
// Part of fmha. Declares the fmha ops that copy keys and values into the
// layouts attention reads
// (FMHAServingOps.td): `fmha.append_kv` and `fmha.transpose_values`.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_DIALECT_FMHA_IR_FMHASERVINGOPS_H
#define FMHA_DIALECT_FMHA_IR_FMHASERVINGOPS_H

#include "fmha/Dialect/FMHA/IR/FMHADialect.h"

#define GET_OP_CLASSES
#include "fmha/Dialect/FMHA/IR/FMHAServingOps.h.inc"

#endif // FMHA_DIALECT_FMHA_IR_FMHASERVINGOPS_H
