//===- BranchUtils.h - Branches in WS-to-NVVM patterns ----------*- C++ -*-===//
//
// Part of fmha. Code that only some threads run, emitted inside a
// conversion pattern as LLVM control flow.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_LIB_CONVERSION_WSTONVVM_BRANCHUTILS_H
#define FMHA_LIB_CONVERSION_WSTONVVM_BRANCHUTILS_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace ws {

/// Emits `body` at the insertion point in a block of its own that the
/// threads for which `cond` holds branch into; afterwards all threads go on
/// at the code that followed the insertion point, where the insertion point
/// is left.
inline void emitIf(ConversionPatternRewriter &rewriter, Location loc,
                   Value cond, function_ref<void()> body) {
  Block *before = rewriter.getInsertionBlock();
  Block *after = rewriter.splitBlock(before, rewriter.getInsertionPoint());
  Block *then = rewriter.createBlock(after);
  rewriter.setInsertionPointToEnd(before);
  LLVM::CondBrOp::create(rewriter, loc, cond, then, after);
  rewriter.setInsertionPointToEnd(then);
  body();
  LLVM::BrOp::create(rewriter, loc, after);
  rewriter.setInsertionPointToStart(after);
}

} // namespace ws
} // namespace mlir

#endif // FMHA_LIB_CONVERSION_WSTONVVM_BRANCHUTILS_H
