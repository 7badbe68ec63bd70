//===- Expand.h - Expansion of fmha kernel ops ---------------------*- C++
//-*-===//
//
// Part of fmha. Shared by the expansions of fmha-expand-kernels.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_LIB_DIALECT_FMHA_TRANSFORMS_EXPAND_H
#define FMHA_LIB_DIALECT_FMHA_TRANSFORMS_EXPAND_H

#include "fmha/Dialect/FMHA/IR/FMHADialect.h"
#include "fmha/Target/KernelAttrs.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/JSON.h"

namespace mlir {
namespace fmha {

/// A kernel under construction: its gpu.module and gpu.func.
struct KernelShell {
  gpu::GPUModuleOp module;
  gpu::GPUFuncOp func;
};

/// Creates `gpu.module @<name>_module` (with the target's #nvvm.target) in
/// place of `op`, holding an empty `gpu.func @<name>` kernel of the given
/// argument types; the builder is left at the start of its body.
KernelShell createKernelShell(OpBuilder &b, Operation *op, StringRef name,
                              Target target, TypeRange argTypes);

/// The manifest name of a size: its value when static, else `symbol`.
llvm::json::Value sizeJSON(int64_t size, StringRef symbol);

/// The manifest name of an element type (`bf16`, `f16`, `f32`).
std::string dtypeName(Type type);

/// Replace `op` by its kernel: the tile program of one CTA.
LogicalResult expandGemm(GemmOp op, OpBuilder &b);
LogicalResult expandAttention(AttentionOp op, OpBuilder &b);

} // namespace fmha
} // namespace mlir

#endif // FMHA_LIB_DIALECT_FMHA_TRANSFORMS_EXPAND_H
