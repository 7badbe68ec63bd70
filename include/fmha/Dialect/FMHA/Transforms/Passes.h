//===- Passes.h - Passes of the fmha dialect ----------------------*- C++ -*-===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_DIALECT_FMHA_TRANSFORMS_PASSES_H
#define FMHA_DIALECT_FMHA_TRANSFORMS_PASSES_H

#include "fmha/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace fmha {

#define GEN_PASS_DECL
#include "fmha/Dialect/FMHA/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fmha/Dialect/FMHA/Transforms/Passes.h.inc"

} // namespace fmha
} // namespace mlir

#endif // FMHA_DIALECT_FMHA_TRANSFORMS_PASSES_H
