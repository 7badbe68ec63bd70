//===- Lowering.h - Conversion patterns written as functions ----*- C++ -*-===//
//
// Part of fmha. The patterns of convert-ws-to-nvvm are plain functions, one
// per op, `LogicalResult lowerX(XOp, XOp::Adaptor, ConversionPatternRewriter
// &)` (with the type converter as a fourth argument where they convert
// types), registered with `addLowerings`: the pattern class around them is
// written once here (what upstream's
// `RewritePatternSet::add(LogicalResult (*)(OpTy, PatternRewriter &))` does
// for rewrite patterns).
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_LIB_CONVERSION_WSTONVVM_LOWERING_H
#define FMHA_LIB_CONVERSION_WSTONVVM_LOWERING_H

#include "mlir/Conversion/LLVMCommon/Pattern.h"

#include <type_traits>

namespace mlir {
namespace ws {

/// A function that lowers `OpT`: it replaces or erases the op through the
/// rewriter, or fails (a match failure, or an error emitted on the op).
template <typename OpT>
using LoweringFn = LogicalResult (*)(OpT op, typename OpT::Adaptor adaptor,
                                     ConversionPatternRewriter &rewriter);

/// A lowering function that converts types too, with the pattern's type
/// converter.
template <typename OpT>
using TypedLoweringFn = LogicalResult (*)(OpT op, typename OpT::Adaptor adaptor,
                                          ConversionPatternRewriter &rewriter,
                                          const LLVMTypeConverter &converter);

/// The conversion pattern of a lowering function `Fn` (a `LoweringFn<OpT>`
/// or a `TypedLoweringFn<OpT>`).
template <typename OpT, typename Fn>
class FunctionLowering : public ConvertOpToLLVMPattern<OpT> {
public:
  FunctionLowering(const LLVMTypeConverter &converter, Fn lower,
                   PatternBenefit benefit)
      : ConvertOpToLLVMPattern<OpT>(converter, benefit), lower(lower) {}

  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if constexpr (std::is_same_v<Fn, LoweringFn<OpT>>)
      return lower(op, adaptor, rewriter);
    else
      return lower(op, adaptor, rewriter, *this->getTypeConverter());
  }

private:
  Fn lower;
};

/// The op a lowering function lowers: the type of its first parameter.
template <typename Fn> struct LoweredOp;
template <typename OpT, typename... Params>
struct LoweredOp<LogicalResult (*)(OpT, Params...)> {
  using type = OpT;
};

/// Adds the pattern of the lowering function `lower` to `patterns`, tried
/// before those of lower benefit on the same op.
template <typename Fn>
void addLowering(RewritePatternSet &patterns,
                 const LLVMTypeConverter &converter, Fn lower,
                 PatternBenefit benefit) {
  patterns.add<FunctionLowering<typename LoweredOp<Fn>::type, Fn>>(
      converter, lower, benefit);
}

/// Adds the patterns of `lowers` to `patterns`, each of benefit 1.
template <typename... Fns>
void addLowerings(RewritePatternSet &patterns,
                  const LLVMTypeConverter &converter, Fns... lowers) {
  (addLowering(patterns, converter, lowers, /*benefit=*/1), ...);
}

} // namespace ws
} // namespace mlir

#endif // FMHA_LIB_CONVERSION_WSTONVVM_LOWERING_H
