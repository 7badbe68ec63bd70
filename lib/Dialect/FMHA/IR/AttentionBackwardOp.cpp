//===- AttentionBackwardOp.cpp - fmha.attention_backward ------------------===//
//
// Part of fmha. The signature accessors, the effective configuration, the
// resource accounting of the main kernel and the verifier of
// fmha.attention_backward. The signature rules it shares with
// fmha.attention are in AttentionChecks.h.
//
//===----------------------------------------------------------------------===//

#include "AttentionChecks.h"
#include "VerifyUtils.h"

#include "fmha/Dialect/FMHA/IR/FMHADialect.h"
#include "fmha/Target/TargetLimits.h"

#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fmha;
using namespace mlir::fmha::checks;

namespace {
constexpr ArrayRef<StringRef> kQDims = kAttentionQDims;
constexpr ArrayRef<StringRef> kKVDims = kAttentionKVDims;
constexpr ArrayRef<StringRef> kLseDims = kAttentionLseDims;
constexpr StringRef kTileNames[] = {"block_m", "block_n"};

/// Head dims with a kernel.
constexpr int64_t kHeadDims[] = {64, 128};
/// The main kernel's tile: query rows per step, and keys per CTA (two
/// consumer warpgroups of one wgmma's 64 rows each).
constexpr int64_t kDefaultBlockM = 64;
constexpr int64_t kBlockN = 128;
constexpr int64_t kConsumers = kBlockN / limits::kWgmmaM;
/// Slots of the Q, dO and d_lse rings of the main kernel.
constexpr int64_t kStages = 2;
/// Query rows of one CTA of the prep and post kernels.
constexpr int64_t kPrepRows = 64;
} // namespace

//===----------------------------------------------------------------------===//
// Signature
//===----------------------------------------------------------------------===//

RankedTensorType AttentionBackwardOp::getQueryType() {
  return getInputTensor(getFunctionType(), 0, 4);
}
RankedTensorType AttentionBackwardOp::getKeyType() {
  return getInputTensor(getFunctionType(), 1, 4);
}
RankedTensorType AttentionBackwardOp::getValueType() {
  return getInputTensor(getFunctionType(), 2, 4);
}
RankedTensorType AttentionBackwardOp::getOutputType() {
  return getInputTensor(getFunctionType(), 3, 4);
}
RankedTensorType AttentionBackwardOp::getOutputGradType() {
  return getInputTensor(getFunctionType(), 4, 4);
}
RankedTensorType AttentionBackwardOp::getLseType() {
  return getInputTensor(getFunctionType(), 5, 3);
}
RankedTensorType AttentionBackwardOp::getQueryGradType() {
  return getResultTensor(getFunctionType(), 0, 4);
}
RankedTensorType AttentionBackwardOp::getKeyGradType() {
  return getResultTensor(getFunctionType(), 1, 4);
}
RankedTensorType AttentionBackwardOp::getValueGradType() {
  return getResultTensor(getFunctionType(), 2, 4);
}

Type AttentionBackwardOp::getElementType() {
  RankedTensorType q = getQueryType();
  return q ? q.getElementType() : Type();
}

int64_t AttentionBackwardOp::getBatch() {
  return mergeDims(0,
                   {getQueryType(), getKeyType(), getValueType(),
                    getOutputType(), getOutputGradType(), getLseType(),
                    getQueryGradType(), getKeyGradType(), getValueGradType()});
}

int64_t AttentionBackwardOp::getNumHeadsQ() {
  return mergeDims(1, {getQueryType(), getOutputType(), getOutputGradType(),
                       getLseType(), getQueryGradType()});
}

int64_t AttentionBackwardOp::getNumHeadsKV() {
  return mergeDims(
      1, {getKeyType(), getValueType(), getKeyGradType(), getValueGradType()});
}

int64_t AttentionBackwardOp::getSeqLenQ() {
  return mergeDims(2, {getQueryType(), getOutputType(), getOutputGradType(),
                       getLseType(), getQueryGradType()});
}

int64_t AttentionBackwardOp::getSeqLenK() {
  return mergeDims(
      2, {getKeyType(), getValueType(), getKeyGradType(), getValueGradType()});
}

int64_t AttentionBackwardOp::getHeadDim() {
  return mergeDims(3, {getQueryType(), getKeyType(), getValueType(),
                       getOutputType(), getOutputGradType(), getQueryGradType(),
                       getKeyGradType(), getValueGradType()});
}

//===----------------------------------------------------------------------===//
// Effective configuration
//===----------------------------------------------------------------------===//

int64_t AttentionBackwardOp::getBlockM() {
  return getTileSize(getTile(), kTileNames, 0).value_or(kDefaultBlockM);
}

int64_t AttentionBackwardOp::getBlockN() {
  return getTileSize(getTile(), kTileNames, 1).value_or(kBlockN);
}

double AttentionBackwardOp::getScaleOrDefault() {
  return getAttentionScale(getScaleAttr(), getHeadDim());
}

int64_t AttentionBackwardOp::getPrepRows() { return kPrepRows; }

int64_t AttentionBackwardOp::getLsePadRows() { return getBlockM(); }

//===----------------------------------------------------------------------===//
// Resources
//===----------------------------------------------------------------------===//

SharedMemoryUsage AttentionBackwardOp::getSharedMemoryUsage() {
  int64_t headDim = getHeadDim();
  if (ShapedType::isDynamic(headDim))
    headDim = 0;
  int64_t bytes = getElementBytes(getElementType());
  int64_t blockM = getBlockM(), blockN = getBlockN();
  SharedMemoryUsage usage;
  // K and V of the CTA's keys, loaded once.
  usage.addPart("K/V", 2, blockN * headDim * bytes);
  // The rings of Q and dO tiles.
  usage.addPart("Q/dO", 2 * kStages, blockM * headDim * bytes);
  // dS^T, staged for the dQ product that takes it as its A operand.
  usage.addPart("dS", 1, blockN * blockM * bytes);
  // The f32 dQ partial, staged for its TMA reduce-add.
  usage.addPart("dQ", 1, blockM * headDim * 4);
  // The ring of D and lse2 rows.
  usage.addPart("D/lse2", kStages, 2 * blockM * 4);
  // K/V's full barrier; a full and an empty one per slot of the Q/dO ring
  // and of the D/lse2 ring.
  usage.mbarriers = 2 * (1 + 2 * kStages);
  return usage;
}

int64_t AttentionBackwardOp::getConsumerRegisters() {
  int64_t headDim = getHeadDim();
  if (ShapedType::isDynamic(headDim))
    headDim = 0;
  int64_t keys = limits::kWgmmaM, blockM = getBlockM();
  int64_t threads = limits::kWarpgroupThreads;
  // dK and dV, S^T and dP^T in fp32; P^T and dS^T in 16 bits (two to a
  // register); the loop's state.
  return 2 * keys * headDim / threads + 2 * keys * blockM / threads +
         keys * blockM / threads + limits::kSm90AttentionLoopRegisters;
}

//===----------------------------------------------------------------------===//
// Verifier
//===----------------------------------------------------------------------===//

/// Checks the number of inputs and results and the rank of each tensor.
static LogicalResult verifyStructure(AttentionBackwardOp op) {
  FunctionType type = op.getFunctionType();
  if (type.getNumInputs() != 6)
    return op.emitOpError() << "expects 6 inputs (q, k, v, o, do, lse), got "
                            << type.getNumInputs();
  if (type.getNumResults() != 3)
    return op.emitOpError()
           << "expects 3 results (dq, dk, dv), got " << type.getNumResults();
  return verifyTensors(op, {{"q", type.getInput(0), kQDims},
                            {"k", type.getInput(1), kKVDims},
                            {"v", type.getInput(2), kKVDims},
                            {"o", type.getInput(3), kQDims},
                            {"do", type.getInput(4), kQDims},
                            {"lse", type.getInput(5), kLseDims},
                            {"dq", type.getResult(0), kQDims},
                            {"dk", type.getResult(1), kKVDims},
                            {"dv", type.getResult(2), kKVDims}});
}

/// Checks the element types, the sizes, the head dim and the GQA ratio.
static LogicalResult verifySignature(AttentionBackwardOp op) {
  if (failed(verifyAttentionElementTypes(op, op.getQueryType(),
                                         {{"k", op.getKeyType()},
                                          {"v", op.getValueType()},
                                          {"o", op.getOutputType()},
                                          {"do", op.getOutputGradType()},
                                          {"dq", op.getQueryGradType()},
                                          {"dk", op.getKeyGradType()},
                                          {"dv", op.getValueGradType()}},
                                         op.getLseType())) ||
      failed(verifyDenseAttentionSizes(op, op.getQueryType(), op.getKeyType(),
                                       {{"o", op.getOutputType()},
                                        {"do", op.getOutputGradType()},
                                        {"dq", op.getQueryGradType()}},
                                       {{"v", op.getValueType()},
                                        {"dk", op.getKeyGradType()},
                                        {"dv", op.getValueGradType()}},
                                       op.getLseType())) ||
      failed(verifyAttentionHeadDim(
          op, op.getHeadDim(), kHeadDims, "every tensor but lse",
          "the backward at head dim 256 is not built yet: its dK and dV "
          "accumulators of 64 x 256 fp32 take every register a consumer "
          "thread has")))
    return failure();
  return verifyGqaRatio(op, op.getNumHeadsQ(), op.getNumHeadsKV());
}

/// Checks the target, the tile, and what the main kernel needs of the
/// target.
static LogicalResult verifyConfig(AttentionBackwardOp op) {
  Target target = op.getTarget();
  if (target != Target::Sm90a)
    return op.emitOpError() << "target " << stringifyTarget(target)
                            << " is not supported: the backward's kernels "
                               "are built for sm_90a only so far";
  if (failed(verifyTileRank(op, op.getTile(), kTileNames)))
    return failure();
  int64_t blockM = op.getBlockM(), blockN = op.getBlockN();
  if (blockM < limits::kMmaK16Bit || blockM > limits::kMaxBlockM ||
      blockM % limits::kMmaK16Bit != 0)
    return op.emitOpError()
           << "block_m " << blockM << " is not supported: expected a "
           << "multiple of " << limits::kMmaK16Bit << " from "
           << limits::kMmaK16Bit << " to " << limits::kMaxBlockM
           << " (the N of the S^T product and the K of the dV and dK "
              "products)";
  if (blockN != kBlockN)
    return op.emitOpError()
           << "block_n " << blockN << " is not supported: expected " << kBlockN
           << " (" << kConsumers << " consumer warpgroups of "
           << limits::kWgmmaM << " keys, a wgmma's M)";
  // The grids have heads along y and batch along z.
  for (auto [name, size] :
       {std::pair<StringRef, int64_t>{"heads_q", op.getNumHeadsQ()},
        {"batch", op.getBatch()}})
    if (!ShapedType::isDynamic(size) && size > limits::kMaxGridYZ)
      return op.emitOpError()
             << name << " " << size << " is too large: the kernels' grids "
             << "have the heads along y and batch along z, at most "
             << limits::kMaxGridYZ;
  if (failed(verifySharedMemory(op, target, op.getSharedMemoryUsage())))
    return failure();
  int64_t headDim = op.getHeadDim();
  std::string parts;
  llvm::raw_string_ostream os(parts);
  os << "dK and dV " << limits::kWgmmaM << "x" << headDim
     << " fp32 + S^T and dP^T " << limits::kWgmmaM << "x" << blockM
     << " fp32 + P^T and dS^T " << limits::kWgmmaM << "x" << blockM << " "
     << op.getElementType() << " + " << limits::kSm90AttentionLoopRegisters
     << " for the loop's state";
  return verifyConsumerRegisters(op, target, op.getConsumerRegisters(), parts);
}

LogicalResult AttentionBackwardOp::verify() {
  if (failed(verifyStructure(*this)) || failed(verifySignature(*this)) ||
      failed(verifySoftmax(*this, getCausal(), getWindow(), getScaleAttr())))
    return failure();
  return verifyConfig(*this);
}
