//===- AppendKVOp.cpp - fmha.append_kv accessors and verifier -------------===//
//
// Part of fmha. The signature accessors, the block of new tokens a CTA
// copies and the verifier of fmha.append_kv.
//
//===----------------------------------------------------------------------===//

#include "VerifyUtils.h"

#include "fmha/Dialect/FMHA/IR/FMHAServingOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::fmha;
using namespace mlir::fmha::checks;

#define GET_OP_CLASSES
#include "fmha/Dialect/FMHA/IR/FMHAServingOps.cpp.inc"

namespace {
/// Dimension names of the tensors of the signature.
constexpr StringRef kNewDims[] = {"batch", "seq_new", "heads_kv", "head_dim"};
constexpr StringRef kSeqlensDims[] = {"batch"};
constexpr StringRef kTableDims[] = {"batch", "max_pages"};
constexpr StringRef kDenseCacheDims[] = {"batch", "capacity", "heads_kv",
                                         "head_dim"};
constexpr StringRef kPagedCacheDims[] = {"num_pages", "page_size", "heads_kv",
                                         "head_dim"};

/// Elements of one row piece a thread moves at once, hence the head_dim
/// granule.
constexpr int64_t kVector = kBlockedRowVector;
/// The largest head_dim.
constexpr int64_t kMaxHeadDim = 512;
/// The smallest page: a multiple of every block of rows.
constexpr int64_t kMinPageSize = 16;
} // namespace

//===----------------------------------------------------------------------===//
// Signature
//===----------------------------------------------------------------------===//

RankedTensorType AppendKVOp::getNewType() {
  return getInputTensor(getFunctionType(), 0, 4);
}

RankedTensorType AppendKVOp::getSeqlensType() {
  return getInputTensor(getFunctionType(), 2, 1);
}

RankedTensorType AppendKVOp::getTableType() {
  return getInputTensor(getFunctionType(), 3, 2);
}

RankedTensorType AppendKVOp::getCacheType() {
  return getResultTensor(getFunctionType(), 0, 4);
}

bool AppendKVOp::isPaged() { return getFunctionType().getNumInputs() == 4; }

Type AppendKVOp::getElementType() {
  RankedTensorType type = getNewType();
  return type ? type.getElementType() : Type();
}

int64_t AppendKVOp::getHeadDim() {
  return mergeDims(3, {getNewType(), getCacheType()});
}

int64_t AppendKVOp::getNumHeads() {
  return mergeDims(2, {getNewType(), getCacheType()});
}

int64_t AppendKVOp::getBatch() {
  int64_t batch =
      mergeDims(0, {getNewType(), getSeqlensType(), getTableType()});
  if (!isPaged() && ShapedType::isDynamic(batch))
    return getDimOrDynamic(getCacheType(), 0);
  return batch;
}

int64_t AppendKVOp::getPageSize() {
  return isPaged() ? getDimOrDynamic(getCacheType(), 1) : ShapedType::kDynamic;
}

int64_t AppendKVOp::getBlockRows() {
  return getBlockedLayoutRows(getHeadDim());
}

//===----------------------------------------------------------------------===//
// Verifier
//===----------------------------------------------------------------------===//

LogicalResult AppendKVOp::verify() {
  FunctionType type = getFunctionType();
  unsigned inputs = type.getNumInputs();
  if (inputs != 3 && inputs != 4)
    return emitOpError() << "expects 3 inputs (k_new, v_new, cache_seqlens) "
                            "or 4 (and block_table), got "
                         << inputs;
  if (type.getNumResults() != 2)
    return emitOpError() << "expects 2 results (k_cache, v_cache), got "
                         << type.getNumResults();
  ArrayRef<StringRef> cacheDims =
      isPaged() ? ArrayRef<StringRef>(kPagedCacheDims) : kDenseCacheDims;
  SmallVector<NamedTensor> tensors = {
      {"k_new", type.getInput(0), kNewDims},
      {"v_new", type.getInput(1), kNewDims},
      {"cache_seqlens", type.getInput(2), kSeqlensDims},
      {"k_cache", type.getResult(0), cacheDims},
      {"v_cache", type.getResult(1), cacheDims}};
  if (isPaged())
    tensors.push_back({"block_table", type.getInput(3), kTableDims});
  if (failed(verifyTensors(*this, tensors)))
    return failure();

  // Element types: one 16-bit type for keys and values, i32 lengths and
  // pages.
  Type element = getElementType();
  if (!element.isBF16() && !element.isF16())
    return emitOpError() << "k_new element type " << element
                         << " is not supported: expected bf16 or f16";
  auto tensorType = [](Type t) { return cast<RankedTensorType>(t); };
  for (auto [name, t] : {std::pair<StringRef, Type>{"v_new", type.getInput(1)},
                         {"k_cache", type.getResult(0)},
                         {"v_cache", type.getResult(1)}})
    if (failed(verifySameElementType(
            *this, name, tensorType(t).getElementType(), "k_new", element)))
      return failure();
  SmallVector<std::pair<StringRef, Type>> indices = {
      {"cache_seqlens", type.getInput(2)}};
  if (isPaged())
    indices.push_back({"block_table", type.getInput(3)});
  for (auto [name, t] : indices)
    if (!tensorType(t).getElementType().isInteger(32))
      return emitOpError() << name << " element type "
                           << tensorType(t).getElementType()
                           << " is not supported: expected i32";

  // Sizes shared by several tensors.
  ArrayRef<int64_t> kNew = getNewType().getShape();
  ArrayRef<int64_t> vNew = tensorType(type.getInput(1)).getShape();
  ArrayRef<int64_t> kCache = getCacheType().getShape();
  ArrayRef<int64_t> vCache = tensorType(type.getResult(1)).getShape();
  for (auto [i, dim] : llvm::enumerate(ArrayRef<StringRef>(kNewDims)))
    if (failed(verifySameSize(*this, dim, "v_new", vNew[i], "k_new", kNew[i])))
      return failure();
  for (auto [i, dim] : llvm::enumerate(cacheDims))
    if (failed(verifySameSize(*this, dim, "v_cache", vCache[i], "k_cache",
                              kCache[i])))
      return failure();
  if (failed(verifySameSize(*this, "batch", "cache_seqlens",
                            getSeqlensType().getDimSize(0), "k_new",
                            kNew[0])) ||
      failed(verifySameSize(*this, "heads_kv", "k_cache", kCache[2], "k_new",
                            kNew[2])) ||
      failed(verifySameSize(*this, "head_dim", "k_cache", kCache[3], "k_new",
                            kNew[3])))
    return failure();
  if (isPaged()) {
    if (failed(verifySameSize(*this, "batch", "block_table",
                              getTableType().getDimSize(0), "k_new", kNew[0])))
      return failure();
    int64_t pageSize = getPageSize();
    if (ShapedType::isDynamic(pageSize) || !llvm::isPowerOf2_64(pageSize) ||
        pageSize < kMinPageSize)
      return emitOpError() << "page_size (k_cache dimension 1) must be a "
                              "static power of two of at least "
                           << kMinPageSize << ", got " << formatSize(pageSize);
  } else if (failed(verifySameSize(*this, "batch", "k_cache", kCache[0],
                                   "k_new", kNew[0]))) {
    return failure();
  }

  if (failed(verifyRowHeadDim(*this, getHeadDim(), "in k_new or k_cache",
                              kVector, kMaxHeadDim)))
    return failure();
  return verifyHeadsBatchGrid(*this, "heads_kv", getNumHeads(), getBatch());
}
