//===- Passes.h - fmha's conversion passes -------------------------*- C++
//-*-===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_CONVERSION_PASSES_H
#define FMHA_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace fmha {

#define GEN_PASS_DECL
#include "fmha/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fmha/Conversion/Passes.h.inc"

} // namespace fmha
} // namespace mlir

#endif // FMHA_CONVERSION_PASSES_H
