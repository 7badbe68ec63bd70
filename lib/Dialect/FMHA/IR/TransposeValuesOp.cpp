//===- TransposeValuesOp.cpp - fmha.transpose_values verifier -------------===//
//
// Part of fmha. The signature accessors and the verifier of
// fmha.transpose_values.
//
//===----------------------------------------------------------------------===//

#include "VerifyUtils.h"

#include "fmha/Dialect/FMHA/IR/FMHAServingOps.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::fmha;
using namespace mlir::fmha::checks;

namespace {
/// Dimension names of the tensors of the signature.
constexpr StringRef kValuesDims[] = {"batch", "heads_kv", "seq_k", "head_dim"};
constexpr StringRef kTransposedDims[] = {"batch", "heads_kv", "head_dim",
                                         "keys"};
/// Bytes of one 128-bit load: the head_dim granule.
constexpr int64_t kRowPiece = 16;
/// The largest head_dim (a row a thread holds in registers).
constexpr int64_t kMaxHeadDim = 256;
} // namespace

RankedTensorType TransposeValuesOp::getValuesType() {
  return getInputTensor(getFunctionType(), 0, 4);
}

RankedTensorType TransposeValuesOp::getTransposedType() {
  return getResultTensor(getFunctionType(), 0, 4);
}

int64_t TransposeValuesOp::getHeadDim() {
  RankedTensorType v = getValuesType(), vt = getTransposedType();
  return mergeSizes({getDimOrDynamic(v, 3), getDimOrDynamic(vt, 2)});
}

int64_t TransposeValuesOp::getNumHeads() {
  return mergeDims(1, {getValuesType(), getTransposedType()});
}

int64_t TransposeValuesOp::getBatch() {
  return mergeDims(0, {getValuesType(), getTransposedType()});
}

LogicalResult TransposeValuesOp::verify() {
  FunctionType type = getFunctionType();
  if (type.getNumInputs() != 1 || type.getNumResults() != 1)
    return emitOpError() << "expects 1 input (v) and 1 result (vt), got "
                         << type.getNumInputs() << " and "
                         << type.getNumResults();
  if (failed(
          verifyTensors(*this, {{"v", type.getInput(0), kValuesDims},
                                {"vt", type.getResult(0), kTransposedDims}})))
    return failure();
  RankedTensorType v = getValuesType(), vt = getTransposedType();
  Type element = v.getElementType();
  if (!isa<Float8E4M3FNType, Float8E5M2Type>(element))
    return emitOpError() << "v element type " << element
                         << " is not supported: expected f8E4M3FN or f8E5M2";
  if (failed(verifySameElementType(*this, "vt", vt.getElementType(), "v",
                                   element)))
    return failure();
  if (failed(verifySameSize(*this, "batch", "vt", vt.getDimSize(0), "v",
                            v.getDimSize(0))) ||
      failed(verifySameSize(*this, "heads_kv", "vt", vt.getDimSize(1), "v",
                            v.getDimSize(1))) ||
      failed(verifySameSize(*this, "head_dim", "vt", vt.getDimSize(2), "v",
                            v.getDimSize(3))))
    return failure();
  int64_t seqK = v.getDimSize(2), keys = vt.getDimSize(3);
  int64_t padded = llvm::divideCeil(seqK, kKeyGroup) * kKeyGroup;
  if (!ShapedType::isDynamic(seqK) && !ShapedType::isDynamic(keys) &&
      keys != padded)
    return emitOpError() << "vt keys " << keys << " must be seq_k " << seqK
                         << " rounded up to a multiple of " << kKeyGroup << ", "
                         << padded;
  if (!ShapedType::isDynamic(keys) && keys % kKeyGroup != 0)
    return emitOpError() << "vt keys " << keys << " must be a multiple of "
                         << kKeyGroup;

  if (failed(verifyRowHeadDim(*this, getHeadDim(), "in v or vt", kRowPiece,
                              kMaxHeadDim)))
    return failure();
  return verifyHeadsBatchGrid(*this, "heads_kv", getNumHeads(), getBatch());
}
