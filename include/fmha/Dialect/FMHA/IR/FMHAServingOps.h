//===- FMHAServingOps.h - fmha ops for serving KV caches ---------*- C++
//-*-===//
//
// Part of fmha. Declares the fmha ops that maintain KV caches
// (FMHAServingOps.td): `fmha.append_kv`.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_DIALECT_FMHA_IR_FMHASERVINGOPS_H
#define FMHA_DIALECT_FMHA_IR_FMHASERVINGOPS_H

#include "fmha/Dialect/FMHA/IR/FMHADialect.h"

#define GET_OP_CLASSES
#include "fmha/Dialect/FMHA/IR/FMHAServingOps.h.inc"

#endif // FMHA_DIALECT_FMHA_IR_FMHASERVINGOPS_H
