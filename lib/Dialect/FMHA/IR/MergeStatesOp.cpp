//===- MergeStatesOp.cpp - fmha.merge_states accessors and verifier -------===//
//
// Part of fmha. The signature accessors, the block of rows a CTA merges and
// the verifier of fmha.merge_states.
//
//===----------------------------------------------------------------------===//

#include "VerifyUtils.h"

#include "fmha/Dialect/FMHA/IR/FMHADialect.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::fmha;
using namespace mlir::fmha::checks;

namespace {
/// Dimension names of the tensors of the signature.
constexpr StringRef kStatesDims[] = {"states", "batch", "seq", "heads",
                                     "head_dim"};
constexpr StringRef kStatesLseDims[] = {"states", "batch", "heads", "seq"};
constexpr StringRef kOutputDims[] = {"batch", "seq", "heads", "head_dim"};
constexpr StringRef kLseDims[] = {"batch", "heads", "seq"};

/// Elements of one row piece a thread loads at once, hence the head_dim
/// granule.
constexpr int64_t kVector = kBlockedRowVector;
/// The largest head_dim (a CTA's tile of rows x head_dim stays in registers).
constexpr int64_t kMaxHeadDim = 512;
/// Elements of a state's tile per CTA: 32 f32 values per thread of the
/// warpgroup.
constexpr int64_t kTileElements = 4096;
} // namespace

//===----------------------------------------------------------------------===//
// Signature
//===----------------------------------------------------------------------===//

RankedTensorType MergeStatesOp::getStatesType() {
  return getInputTensor(getFunctionType(), 0, 5);
}

RankedTensorType MergeStatesOp::getStatesLseType() {
  return getInputTensor(getFunctionType(), 1, 4);
}

RankedTensorType MergeStatesOp::getOutputType() {
  return getResultTensor(getFunctionType(), 0, 4);
}

RankedTensorType MergeStatesOp::getLseType() {
  return getResultTensor(getFunctionType(), 1, 3);
}

Type MergeStatesOp::getElementType() {
  RankedTensorType states = getStatesType();
  return states ? states.getElementType() : Type();
}

int64_t MergeStatesOp::getHeadDim() {
  return mergeSizes({getDimOrDynamic(getStatesType(), 4),
                     getDimOrDynamic(getOutputType(), 3)});
}

int64_t MergeStatesOp::getNumHeads() {
  return mergeSizes({getDimOrDynamic(getStatesType(), 3),
                     getDimOrDynamic(getStatesLseType(), 2),
                     getDimOrDynamic(getOutputType(), 2),
                     getDimOrDynamic(getLseType(), 1)});
}

int64_t MergeStatesOp::getBatch() {
  return mergeSizes({getDimOrDynamic(getStatesType(), 1),
                     getDimOrDynamic(getStatesLseType(), 1),
                     getDimOrDynamic(getOutputType(), 0),
                     getDimOrDynamic(getLseType(), 0)});
}

int64_t MergeStatesOp::getBlockRows() {
  int64_t headDim = getHeadDim();
  int64_t granule = getBlockedLayoutRows(headDim);
  if (granule == 1)
    return 1;
  return llvm::alignTo(std::max<int64_t>(1, kTileElements / headDim), granule);
}

//===----------------------------------------------------------------------===//
// Verifier
//===----------------------------------------------------------------------===//

LogicalResult MergeStatesOp::verify() {
  FunctionType type = getFunctionType();
  if (type.getNumInputs() != 2)
    return emitOpError() << "expects 2 inputs (o_states, lse_states), got "
                         << type.getNumInputs();
  if (type.getNumResults() != 2)
    return emitOpError() << "expects 2 results (o, lse), got "
                         << type.getNumResults();
  NamedTensor tensors[] = {{"o_states", type.getInput(0), kStatesDims},
                           {"lse_states", type.getInput(1), kStatesLseDims},
                           {"o", type.getResult(0), kOutputDims},
                           {"lse", type.getResult(1), kLseDims}};
  if (failed(verifyTensors(*this, tensors)))
    return failure();

  // Element types: 16-bit states and o alike, f32 log-sum-exps.
  Type element = getElementType();
  if (!element.isBF16() && !element.isF16())
    return emitOpError() << "o_states element type " << element
                         << " is not supported: expected bf16 or f16";
  if (failed(verifySameElementType(*this, "o", getOutputType().getElementType(),
                                   "o_states", element)))
    return failure();
  for (auto [name, lse] : {std::pair<StringRef, RankedTensorType>{
                               "lse_states", getStatesLseType()},
                           {"lse", getLseType()}})
    if (!lse.getElementType().isF32())
      return emitOpError() << name << " element type " << lse.getElementType()
                           << " is not supported: expected f32";

  // Sizes shared by several tensors.
  ArrayRef<int64_t> states = getStatesType().getShape();
  ArrayRef<int64_t> statesLse = getStatesLseType().getShape();
  ArrayRef<int64_t> o = getOutputType().getShape();
  ArrayRef<int64_t> lse = getLseType().getShape();
  if (failed(verifySameSize(*this, "states", "lse_states", statesLse[0],
                            "o_states", states[0])) ||
      failed(verifySameSize(*this, "batch", "lse_states", statesLse[1],
                            "o_states", states[1])) ||
      failed(verifySameSize(*this, "heads", "lse_states", statesLse[2],
                            "o_states", states[3])) ||
      failed(verifySameSize(*this, "seq", "lse_states", statesLse[3],
                            "o_states", states[2])))
    return failure();
  for (auto [i, dim] : llvm::enumerate(ArrayRef<StringRef>(kOutputDims)))
    if (failed(
            verifySameSize(*this, dim, "o", o[i], "o_states", states[i + 1])))
      return failure();
  if (failed(verifySameSize(*this, "batch", "lse", lse[0], "o_states",
                            states[1])) ||
      failed(verifySameSize(*this, "heads", "lse", lse[1], "o_states",
                            states[3])) ||
      failed(
          verifySameSize(*this, "seq", "lse", lse[2], "o_states", states[2])))
    return failure();

  if (failed(verifyRowHeadDim(*this, getHeadDim(), "in o_states or o", kVector,
                              kMaxHeadDim)))
    return failure();
  return verifyHeadsBatchGrid(*this, "heads", getNumHeads(), getBatch());
}
