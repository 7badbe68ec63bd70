//===- AttentionChecks.cpp - Checks shared by the attention ops -----------===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#include "AttentionChecks.h"
#include "VerifyUtils.h"

#include "fmha/Target/TargetLimits.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fmha;
using namespace mlir::fmha::checks;

namespace {
constexpr ArrayRef<StringRef> kQDims = kAttentionQDims;
constexpr ArrayRef<StringRef> kKVDims = kAttentionKVDims;
constexpr ArrayRef<StringRef> kLseDims = kAttentionLseDims;
constexpr StringRef kWindowNames[] = {"left", "right"};
} // namespace

std::optional<int64_t>
checks::getLeftWindow(std::optional<ArrayRef<int64_t>> window) {
  if (window && window->size() == 2)
    return (*window)[0];
  return std::nullopt;
}

std::optional<int64_t>
checks::getRightWindow(bool causal, std::optional<ArrayRef<int64_t>> window) {
  if (causal)
    return 0;
  if (window && window->size() == 2)
    return (*window)[1];
  return std::nullopt;
}

double checks::getAttentionScale(FloatAttr scale, int64_t headDim) {
  if (scale)
    return scale.getValueAsDouble();
  if (ShapedType::isDynamic(headDim) || headDim <= 0)
    return 1.0;
  return 1.0 / std::sqrt(static_cast<double>(headDim));
}

LogicalResult
checks::verifyAttentionElementTypes(Operation *op, RankedTensorType q,
                                    ArrayRef<AttentionTensor> sameAsQ,
                                    RankedTensorType lse) {
  Type element = q.getElementType();
  if (failed(verifyInputElementType(op, "q", element)))
    return failure();
  for (const AttentionTensor &tensor : sameAsQ)
    if (failed(verifySameElementType(
            op, tensor.name, tensor.type.getElementType(), "q", element)))
      return failure();
  if (lse && !lse.getElementType().isF32())
    return op->emitOpError() << "lse element type " << lse.getElementType()
                             << " is not supported: expected f32";
  return success();
}

LogicalResult checks::verifyDenseAttentionSizes(Operation *op,
                                                RankedTensorType qType,
                                                RankedTensorType kType,
                                                ArrayRef<AttentionTensor> likeQ,
                                                ArrayRef<AttentionTensor> likeK,
                                                RankedTensorType lseType) {
  ArrayRef<int64_t> q = qType.getShape();
  ArrayRef<int64_t> k = kType.getShape();
  // k against q: batch and head dim (heads and sequence lengths differ).
  if (failed(verifySameSize(op, "batch", "k", k[0], "q", q[0])) ||
      failed(verifySameSize(op, "head_dim", "k", k[3], "q", q[3])))
    return failure();
  for (const AttentionTensor &tensor : likeK)
    for (unsigned dim = 0; dim < 4; ++dim)
      if (failed(verifySameSize(op, kKVDims[dim], tensor.name,
                                tensor.type.getDimSize(dim), "k", k[dim])))
        return failure();
  for (const AttentionTensor &tensor : likeQ)
    for (unsigned dim = 0; dim < 4; ++dim)
      if (failed(verifySameSize(op, kQDims[dim], tensor.name,
                                tensor.type.getDimSize(dim), "q", q[dim])))
        return failure();
  // lse is [batch, heads_q, seq_q].
  if (lseType) {
    ArrayRef<int64_t> lse = lseType.getShape();
    for (unsigned dim = 0; dim < 3; ++dim)
      if (failed(
              verifySameSize(op, kLseDims[dim], "lse", lse[dim], "q", q[dim])))
        return failure();
  }
  return success();
}

LogicalResult checks::verifyVarlenAttentionSizes(
    Operation *op, RankedTensorType qType, RankedTensorType kType,
    ArrayRef<AttentionTensor> likeQ, ArrayRef<AttentionTensor> likeK,
    RankedTensorType lseType) {
  ArrayRef<int64_t> q = qType.getShape();
  ArrayRef<int64_t> k = kType.getShape();
  if (failed(verifySameSize(op, "head_dim", "k", k[2], "q", q[2])))
    return failure();
  for (const AttentionTensor &tensor : likeK)
    for (unsigned dim = 0; dim < 3; ++dim)
      if (failed(verifySameSize(op, kVarlenKVDims[dim], tensor.name,
                                tensor.type.getDimSize(dim), "k", k[dim])))
        return failure();
  for (const AttentionTensor &tensor : likeQ)
    for (unsigned dim = 0; dim < 3; ++dim)
      if (failed(verifySameSize(op, kVarlenQDims[dim], tensor.name,
                                tensor.type.getDimSize(dim), "q", q[dim])))
        return failure();
  // lse is [heads_q, total_q].
  if (lseType) {
    ArrayRef<int64_t> lse = lseType.getShape();
    if (failed(verifySameSize(op, "heads_q", "lse", lse[0], "q", q[1])) ||
        failed(verifySameSize(op, "total_q", "lse", lse[1], "q", q[0])))
      return failure();
  }
  return success();
}

LogicalResult checks::verifyCuSeqlens(Operation *op, RankedTensorType cuQ,
                                      RankedTensorType cuK) {
  for (auto [name, type] :
       {std::pair<StringRef, RankedTensorType>{"cu_seqlens_q", cuQ},
        {"cu_seqlens_k", cuK}}) {
    if (!type.getElementType().isInteger(32))
      return op->emitOpError()
             << name << " element type " << type.getElementType()
             << " is not supported: expected i32 (prefix sums of the "
                "sequence lengths)";
    if (!ShapedType::isDynamic(type.getDimSize(0)) && type.getDimSize(0) < 2)
      return op->emitOpError() << name << " has " << type.getDimSize(0)
                               << " entries: expected batch + 1, at least 2";
  }
  return verifySameSize(op, "batch + 1", "cu_seqlens_k", cuK.getDimSize(0),
                        "cu_seqlens_q", cuQ.getDimSize(0));
}

/// `64, 128 or 256`.
static std::string listSizes(ArrayRef<int64_t> sizes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (auto [i, size] : llvm::enumerate(sizes))
    os << (i == 0 ? "" : i + 1 == sizes.size() ? " or " : ", ") << size;
  return text;
}

LogicalResult checks::verifyAttentionHeadDim(Operation *op, int64_t headDim,
                                             ArrayRef<int64_t> supported,
                                             StringRef tensors, StringRef why) {
  // The head dim picks the kernel's tile shapes: it must be known.
  if (ShapedType::isDynamic(headDim))
    return op->emitOpError()
           << "head dim must be static: expected " << listSizes(supported)
           << ", got ? in " << tensors;
  if (!llvm::is_contained(supported, headDim)) {
    InFlightDiagnostic diag = op->emitOpError()
                              << "head dim " << headDim
                              << " is not supported: expected "
                              << listSizes(supported);
    if (!why.empty())
      diag << " (" << why << ")";
    return diag;
  }
  return success();
}

LogicalResult checks::verifyGqaRatio(Operation *op, int64_t headsQ,
                                     int64_t headsKV) {
  // Grouped-query attention: query heads are split evenly over KV heads.
  if (!ShapedType::isDynamic(headsQ) && !ShapedType::isDynamic(headsKV) &&
      headsQ % headsKV != 0)
    return op->emitOpError()
           << "GQA ratio: " << headsQ << " query heads are not a multiple of "
           << headsKV << " KV heads";
  return success();
}

LogicalResult checks::verifySoftmax(Operation *op, bool causal,
                                    std::optional<ArrayRef<int64_t>> window,
                                    FloatAttr scaleAttr) {
  if (window) {
    if (window->size() != 2)
      return op->emitOpError()
             << "window needs 2 sizes [left, right], got " << window->size();
    for (auto [size, side] : llvm::zip(*window, kWindowNames)) {
      if (size < 0)
        return op->emitOpError() << "window " << side
                                 << " size must be non-negative, got " << size;
      if (size > limits::kMaxProblemSize)
        return op->emitOpError()
               << "window " << side << " size " << size
               << " is too large: the kernel computes with i32, at most "
               << limits::kMaxProblemSize
               << " (a window as long as the sequence is no bound: omit it)";
    }
    if (causal && (*window)[1] != 0)
      return op->emitOpError()
             << "causal attention sees no keys to the right of the "
                "diagonal: window right size must be 0 with causal, got "
             << (*window)[1];
  }
  if (scaleAttr) {
    const APFloat &scale = scaleAttr.getValue();
    SmallString<16> text;
    scale.toString(text);
    if (!scale.isFinite())
      return op->emitOpError() << "softmax scale must be finite, got " << text;
    if (scale.isNegative() || scale.isZero())
      return op->emitOpError()
             << "softmax scale must be positive, got " << text;
    // The kernel scales scores by scale * log2(e) in f32 (exp2 softmax).
    double minScale = std::numeric_limits<float>::min() / M_LOG2E;
    double maxScale = std::numeric_limits<float>::max() / M_LOG2E;
    float scaled = static_cast<float>(scale.convertToDouble() * M_LOG2E);
    if (!std::isnormal(scaled)) {
      std::string numbers;
      llvm::raw_string_ostream(numbers)
          << llvm::format("%g", scale.convertToDouble())
          << " is out of range: the kernel multiplies scores by scale * "
             "log2(e) in f32, so scale must be "
          << llvm::format("from %.3g to %.3g", minScale, maxScale);
      return op->emitOpError() << "softmax scale " << numbers;
    }
  }
  return success();
}
