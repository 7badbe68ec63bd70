//===- Passes.h - Passes of the ws dialect ------------------------*- C++
//-*-===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_DIALECT_WS_TRANSFORMS_PASSES_H
#define FMHA_DIALECT_WS_TRANSFORMS_PASSES_H

#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Target/TargetLimits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace ws {

#define GEN_PASS_DECL
#include "fmha/Dialect/WS/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fmha/Dialect/WS/Transforms/Passes.h.inc"

} // namespace ws
} // namespace mlir

#endif // FMHA_DIALECT_WS_TRANSFORMS_PASSES_H
