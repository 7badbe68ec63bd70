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

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace mlir::fmha;
using namespace mlir::fmha::checks;

namespace {
constexpr StringRef kTileNames[] = {"block_m", "block_n"};

/// Head dims with a kernel.
constexpr int64_t kHeadDims[] = {64, 128};
/// The main kernels' tiles: block_m query rows per step of the dK/dV
/// kernel; block_n keys per CTA of the dK/dV kernel and query rows per CTA
/// of the dQ kernel (two consumer warpgroups of one wgmma's 64 rows each);
/// keys per step of the dQ kernel.
constexpr int64_t kDefaultBlockM = 64;
/// The default block_m of a varlen backward at head dims above 64: the
/// widest whose dK/dV consumer fits beside the sequence's bounds.
constexpr int64_t kVarlenWideBlockM = 48;
/// Registers that hold a varlen sequence's bounds (its lengths and first
/// rows, loaded from the cu_seqlens where the dense kernel reads kernel
/// parameters that ptxas rematerializes), counted in the consumers' budget:
/// at head dim 128 with block_m 64, where the count without them is the
/// widest split's limit, ptxas spilled 24-28 bytes (in the producer, whose
/// 24 registers that split leaves it; with block_m 48 the default split
/// gives it 40; docs/Backward.md).
constexpr int64_t kVarlenSequenceRegisters = 8;
constexpr int64_t kBlockN = 128;
constexpr int64_t kConsumerRows = limits::kWgmmaM;
constexpr int64_t kConsumers = kBlockN / kConsumerRows;
constexpr int64_t kQueryGradKeys = 64;
/// Keys per step of the dQ kernel at head dims up to 64, where its
/// consumers' registers hold S and dP of 128 keys.
constexpr int64_t kQueryGradKeysNarrow = 128;
/// Slots of the rings the main kernels' loops stream through (Q and dO in
/// the dK/dV kernel, K and V in the dQ kernel).
constexpr int64_t kStages = 2;
/// Query rows of one CTA of the prep kernel.
constexpr int64_t kPrepRows = 64;
} // namespace

//===----------------------------------------------------------------------===//
// Signature
//===----------------------------------------------------------------------===//

// Dimensions: [batch, heads, seq, head_dim] (lse [batch, heads, seq]), or
// with varlen [total, heads, head_dim] (lse [heads, total]).

RankedTensorType AttentionBackwardOp::getQueryType() {
  return getInputTensor(getFunctionType(), 0, getTokenRank());
}
RankedTensorType AttentionBackwardOp::getKeyType() {
  return getInputTensor(getFunctionType(), 1, getTokenRank());
}
RankedTensorType AttentionBackwardOp::getValueType() {
  return getInputTensor(getFunctionType(), 2, getTokenRank());
}
RankedTensorType AttentionBackwardOp::getOutputType() {
  return getInputTensor(getFunctionType(), 3, getTokenRank());
}
RankedTensorType AttentionBackwardOp::getOutputGradType() {
  return getInputTensor(getFunctionType(), 4, getTokenRank());
}
RankedTensorType AttentionBackwardOp::getLseType() {
  return getInputTensor(getFunctionType(), 5, getTokenRank() - 1);
}
RankedTensorType AttentionBackwardOp::getCuSeqlensQType() {
  return getVarlen() ? getInputTensor(getFunctionType(), 6, 1)
                     : RankedTensorType();
}
RankedTensorType AttentionBackwardOp::getCuSeqlensKType() {
  return getVarlen() ? getInputTensor(getFunctionType(), 7, 1)
                     : RankedTensorType();
}
RankedTensorType AttentionBackwardOp::getQueryGradType() {
  return getResultTensor(getFunctionType(), 0, getTokenRank());
}
RankedTensorType AttentionBackwardOp::getKeyGradType() {
  return getResultTensor(getFunctionType(), 1, getTokenRank());
}
RankedTensorType AttentionBackwardOp::getValueGradType() {
  return getResultTensor(getFunctionType(), 2, getTokenRank());
}

Type AttentionBackwardOp::getElementType() {
  RankedTensorType q = getQueryType();
  return q ? q.getElementType() : Type();
}

int64_t AttentionBackwardOp::getBatch() {
  if (getVarlen()) {
    int64_t entries = mergeDims(0, {getCuSeqlensQType(), getCuSeqlensKType()});
    return ShapedType::isDynamic(entries) ? entries : entries - 1;
  }
  return mergeDims(0,
                   {getQueryType(), getKeyType(), getValueType(),
                    getOutputType(), getOutputGradType(), getLseType(),
                    getQueryGradType(), getKeyGradType(), getValueGradType()});
}

int64_t AttentionBackwardOp::getNumHeadsQ() {
  // lse is [heads, total] with varlen.
  unsigned lseDim = getVarlen() ? 0 : 1;
  return mergeSizes({mergeDims(1, {getQueryType(), getOutputType(),
                                   getOutputGradType(), getQueryGradType()}),
                     getDimOrDynamic(getLseType(), lseDim)});
}

int64_t AttentionBackwardOp::getNumHeadsKV() {
  return mergeDims(
      1, {getKeyType(), getValueType(), getKeyGradType(), getValueGradType()});
}

int64_t AttentionBackwardOp::getSeqLenQ() {
  unsigned dim = getVarlen() ? 0 : 2, lseDim = getVarlen() ? 1 : 2;
  return mergeSizes({mergeDims(dim, {getQueryType(), getOutputType(),
                                     getOutputGradType(), getQueryGradType()}),
                     getDimOrDynamic(getLseType(), lseDim)});
}

int64_t AttentionBackwardOp::getSeqLenK() {
  return mergeDims(getVarlen() ? 0 : 2, {getKeyType(), getValueType(),
                                         getKeyGradType(), getValueGradType()});
}

int64_t AttentionBackwardOp::getHeadDim() {
  return mergeDims(getTokenRank() - 1,
                   {getQueryType(), getKeyType(), getValueType(),
                    getOutputType(), getOutputGradType(), getQueryGradType(),
                    getKeyGradType(), getValueGradType()});
}

//===----------------------------------------------------------------------===//
// Effective configuration
//===----------------------------------------------------------------------===//

int64_t AttentionBackwardOp::getBlockM() {
  if (std::optional<int64_t> blockM = getTileSize(getTile(), kTileNames, 0))
    return *blockM;
  int64_t headDim = getHeadDim();
  if (getVarlen() && !ShapedType::isDynamic(headDim) && headDim > 64)
    return kVarlenWideBlockM;
  return kDefaultBlockM;
}

int64_t AttentionBackwardOp::getBlockN() {
  return getTileSize(getTile(), kTileNames, 1).value_or(kBlockN);
}

int64_t AttentionBackwardOp::getConsumerRows() { return kConsumerRows; }

int64_t AttentionBackwardOp::getQueryGradKeys() {
  int64_t headDim = getHeadDim();
  return !ShapedType::isDynamic(headDim) && headDim <= 64
             ? kQueryGradKeysNarrow
             : kQueryGradKeys;
}

int64_t AttentionBackwardOp::getStages() { return kStages; }

double AttentionBackwardOp::getScaleOrDefault() {
  return getAttentionScale(getScaleAttr(), getHeadDim());
}

std::optional<int64_t> AttentionBackwardOp::getLeftWindow() {
  return checks::getLeftWindow(getWindow());
}

std::optional<int64_t> AttentionBackwardOp::getRightWindow() {
  return checks::getRightWindow(getCausal(), getWindow());
}

int64_t AttentionBackwardOp::getPrepRows() { return kPrepRows; }

int64_t AttentionBackwardOp::getLsePadRows() {
  return std::lcm(getBlockM(), kConsumerRows);
}

//===----------------------------------------------------------------------===//
// Resources
//===----------------------------------------------------------------------===//

/// The head dim, 0 where it is not known (IR that does not verify).
static int64_t knownHeadDim(AttentionBackwardOp op) {
  int64_t headDim = op.getHeadDim();
  return ShapedType::isDynamic(headDim) ? 0 : headDim;
}

SharedMemoryUsage AttentionBackwardOp::getKeyGradSharedMemory() {
  int64_t headDim = knownHeadDim(*this);
  int64_t bytes = getElementBytes(getElementType());
  int64_t blockM = getBlockM(), blockN = getBlockN();
  SharedMemoryUsage usage;
  // K and V of the CTA's keys, loaded once.
  usage.addPart("K/V", 2, blockN * headDim * bytes);
  // The ring of Q and dO tiles.
  usage.addPart("Q/dO", 2 * kStages, blockM * headDim * bytes);
  // dK and dV of each consumer are staged for their TMA stores in its K
  // and V tiles (ws-stage-in-held-slots); split, only dK's first column
  // part: the others' K tiles are read by the other consumers too.
  if (splitsQueryGrads())
    usage.addPart("dK staged", kConsumers * (getQueryGradParts() - 1),
                  kConsumerRows * headDim / getQueryGradParts() * bytes);
  // Query-major products: P and dS of each consumer, staged for dV += P^T
  // dO and dK += dS^T Q (read transposed).
  if (keyGradsQueryMajor())
    usage.addPart("P/dS", 2 * kConsumers, kConsumerRows * blockM * bytes);
  // With fused_dq, each consumer's part of dQ, staged in f32 for the TMA
  // reduce-add (dS, its A operand, is in registers); split, its column
  // part, and each consumer's dS handed to the others in one slot.
  if (getFusedDq())
    usage.addPart("dQ", kConsumers, blockM * headDim / getQueryGradParts() * 4);
  if (splitsQueryGrads())
    usage.addPart("dS handed", kConsumers, blockM * kConsumerRows * bytes);
  // K/V's barriers; a full and an empty one per slot of the Q/dO ring.
  usage.mbarriers = 2 + 2 * kStages;
  return usage;
}

SharedMemoryUsage AttentionBackwardOp::getQueryGradSharedMemory() {
  int64_t headDim = knownHeadDim(*this);
  int64_t bytes = getElementBytes(getElementType());
  int64_t rows = getBlockN();
  SharedMemoryUsage usage;
  // Q and dO of the CTA's query rows, loaded once.
  usage.addPart("Q/dO", 2, rows * headDim * bytes);
  // The ring of K and V tiles.
  usage.addPart("K/V", 2 * kStages, getQueryGradKeys() * headDim * bytes);
  // dQ of each consumer, staged for its TMA store.
  usage.addPart("dQ", 1, rows * headDim * bytes);
  usage.mbarriers = 2 + 2 * kStages;
  return usage;
}

/// Registers of a consumer thread that holds `accumulators` fp32 tiles of
/// 64 x head_dim and the two fp32 products of `columns` columns (S and
/// dP, or their transposes) with their 16-bit copies (P and dS as MMA
/// operands), plus the loop's state.
static int64_t consumerRegisters(int64_t headDim, int64_t accumulators,
                                 int64_t columns) {
  int64_t rows = kConsumerRows, threads = limits::kWarpgroupThreads;
  return accumulators * rows * headDim / threads +
         2 * rows * columns / threads + rows * columns / threads +
         limits::kSm90AttentionLoopRegisters;
}

/// Registers of the fused dQ's fp32 part: block_m x head_dim, split
/// (`parts` column parts) block_m x head_dim / parts.
static int64_t dqPartRegisters(int64_t headDim, int64_t blockM, int64_t parts) {
  return blockM * headDim / parts / limits::kWarpgroupThreads;
}

/// Registers of a dK/dV consumer thread once S and dP are gone, with the
/// fused dQ: dK and dV, dQ's part, dS (its 16-bit A operand) and the
/// loop's state.
static int64_t fusedDqPhaseRegisters(int64_t headDim, int64_t blockM,
                                     int64_t parts) {
  int64_t rows = kConsumerRows, threads = limits::kWarpgroupThreads;
  return 2 * rows * headDim / threads +
         dqPartRegisters(headDim, blockM, parts) +
         rows * blockM / (2 * threads) + limits::kSm90AttentionLoopRegisters;
}

int64_t AttentionBackwardOp::getKeyGradRegisters() {
  int64_t headDim = knownHeadDim(*this);
  int64_t registers = consumerRegisters(headDim, 2, getBlockM());
  // With fused_dq, dQ's part lives once S and dP are gone: the larger of
  // the two phases. ptxas keeps them apart only with the descriptors
  // computed at their use, as the backward's kernels have them (at head
  // dim 128 the hoisted descriptors spilled 56-64 bytes, at their use
  // none).
  if (getFusedDq())
    registers = std::max(registers, fusedDqPhaseRegisters(headDim, getBlockM(),
                                                          getQueryGradParts()));
  if (getVarlen())
    registers += kVarlenSequenceRegisters;
  return registers;
}

bool AttentionBackwardOp::splitsQueryGrads() {
  // One 128-byte span of 16-bit columns per consumer: each part is one
  // TMA box of Q, K and dK, read by wgmma in place.
  return getFusedDq() && knownHeadDim(*this) == kConsumers * 64;
}

int64_t AttentionBackwardOp::getQueryGradParts() {
  return splitsQueryGrads() ? kConsumers : 1;
}

bool AttentionBackwardOp::overlapsKeyGradProducts() {
  // One more 64 x block_m fp32 product in flight.
  int64_t extra = kConsumerRows * getBlockM() / limits::kWarpgroupThreads;
  return getKeyGradRegisters() + extra <= limits::kSm90MaxConsumerRegisters;
}

bool AttentionBackwardOp::keyGradsQueryMajor() {
  // The transposed form leaves P^T and dS^T where a register A operand
  // reads them, but holds lse2 and D as column vectors (16 values a thread
  // each, 32 predicated loads a step) and, at head dim 128, waits for S^T
  // and dP^T in turn. The query-major form holds two values a row vector,
  // issues S and dP together, and pays two staged 64 x block_m tiles a
  // step: on an H200 1.03-1.12x faster at head dim 128 and 1.05-1.11x at
  // 64 (bench/RESULTS.md, 2026-11-29). The fused dQ takes dS from
  // registers as the A operand of dQ = dS K. A block_m that is not a
  // multiple of wgmma's M, S's rows, keeps the transposed form (varlen at
  // head dim 128: 48; fused_dq requires the multiple).
  return getBlockM() % limits::kWgmmaM == 0;
}

int64_t AttentionBackwardOp::getQueryGradRegisters() {
  return consumerRegisters(knownHeadDim(*this), 1, getQueryGradKeys());
}

//===----------------------------------------------------------------------===//
// Verifier
//===----------------------------------------------------------------------===//

/// Checks the number of inputs and results and the rank of each tensor.
static LogicalResult verifyStructure(AttentionBackwardOp op) {
  FunctionType type = op.getFunctionType();
  bool varlen = op.getVarlen();
  if (varlen && type.getNumInputs() != 8)
    return op.emitOpError() << "varlen expects 8 inputs (q, k, v, o, do, lse, "
                               "cu_seqlens_q, cu_seqlens_k), got "
                            << type.getNumInputs();
  if (!varlen && type.getNumInputs() != 6)
    return op.emitOpError()
           << "expects 6 inputs (q, k, v, o, do, lse), got "
           << type.getNumInputs()
           << (type.getNumInputs() == 8 ? " (cu_seqlens need varlen)" : "");
  if (type.getNumResults() != 3)
    return op.emitOpError()
           << "expects 3 results (dq, dk, dv), got " << type.getNumResults();
  ArrayRef<StringRef> qDims = varlen ? ArrayRef<StringRef>(kVarlenQDims)
                                     : ArrayRef<StringRef>(kAttentionQDims);
  ArrayRef<StringRef> kvDims = varlen ? ArrayRef<StringRef>(kVarlenKVDims)
                                      : ArrayRef<StringRef>(kAttentionKVDims);
  ArrayRef<StringRef> lseDims = varlen ? ArrayRef<StringRef>(kVarlenLseDims)
                                       : ArrayRef<StringRef>(kAttentionLseDims);
  SmallVector<NamedTensor> tensors = {
      {"q", type.getInput(0), qDims},  {"k", type.getInput(1), kvDims},
      {"v", type.getInput(2), kvDims}, {"o", type.getInput(3), qDims},
      {"do", type.getInput(4), qDims}, {"lse", type.getInput(5), lseDims}};
  if (varlen)
    tensors.append({{"cu_seqlens_q", type.getInput(6), kCuSeqlensDims},
                    {"cu_seqlens_k", type.getInput(7), kCuSeqlensDims}});
  tensors.append({{"dq", type.getResult(0), qDims},
                  {"dk", type.getResult(1), kvDims},
                  {"dv", type.getResult(2), kvDims}});
  return verifyTensors(op, tensors);
}

/// Checks the element types, the sizes, the head dim and the GQA ratio.
static LogicalResult verifySignature(AttentionBackwardOp op) {
  SmallVector<AttentionTensor> likeQ = {{"o", op.getOutputType()},
                                        {"do", op.getOutputGradType()},
                                        {"dq", op.getQueryGradType()}};
  SmallVector<AttentionTensor> likeK = {{"v", op.getValueType()},
                                        {"dk", op.getKeyGradType()},
                                        {"dv", op.getValueGradType()}};
  if (failed(verifyAttentionElementTypes(op, op.getQueryType(),
                                         {{"k", op.getKeyType()},
                                          {"v", op.getValueType()},
                                          {"o", op.getOutputType()},
                                          {"do", op.getOutputGradType()},
                                          {"dq", op.getQueryGradType()},
                                          {"dk", op.getKeyGradType()},
                                          {"dv", op.getValueGradType()}},
                                         op.getLseType())))
    return failure();
  if (op.getVarlen()) {
    if (failed(verifyCuSeqlens(op, op.getCuSeqlensQType(),
                               op.getCuSeqlensKType())) ||
        failed(verifyVarlenAttentionSizes(op, op.getQueryType(),
                                          op.getKeyType(), likeQ, likeK,
                                          op.getLseType())))
      return failure();
  } else if (failed(verifyDenseAttentionSizes(op, op.getQueryType(),
                                              op.getKeyType(), likeQ, likeK,
                                              op.getLseType()))) {
    return failure();
  }
  if (failed(verifyAttentionHeadDim(
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
  if (op.getFusedDq() && op.getVarlen())
    return op.emitOpError()
           << "fused_dq is not supported with varlen: a varlen backward "
              "computes dQ by a kernel of its own";
  if (op.getFusedDq() && blockM % limits::kWgmmaM != 0)
    return op.emitOpError()
           << "block_m " << blockM << " is not supported with fused_dq: "
           << "expected a multiple of " << limits::kWgmmaM
           << " (the rows of dQ's part, a wgmma accumulator's M)";
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
  if (failed(verifySharedMemory(op, target, op.getKeyGradSharedMemory())) ||
      failed(verifySharedMemory(op, target, op.getQueryGradSharedMemory())))
    return failure();
  int64_t headDim = op.getHeadDim();
  std::string parts;
  llvm::raw_string_ostream os(parts);
  // The products' shapes in the form the kernel computes them.
  bool queryMajor = op.keyGradsQueryMajor();
  std::string products =
      queryMajor ? llvm::formatv("{0}x{1}", blockM, kConsumerRows).str()
                 : llvm::formatv("{0}x{1}", kConsumerRows, blockM).str();
  os << "dK and dV " << kConsumerRows << "x" << headDim << " fp32 + "
     << (queryMajor ? "S and dP " : "S^T and dP^T ") << products << " fp32 + "
     << (queryMajor ? "P and dS " : "P^T and dS^T ") << products << " "
     << op.getElementType() << " + " << limits::kSm90AttentionLoopRegisters
     << " for the loop's state";
  if (op.getFusedDq()) {
    int64_t parts = op.getQueryGradParts();
    os << "; then, with the fused dQ, dK, dV, dS and dQ's "
       << (parts > 1 ? "column part " : "part ") << blockM << "x"
       << headDim / parts
       << " fp32: " << fusedDqPhaseRegisters(headDim, blockM, parts);
  }
  if (op.getVarlen())
    os << " + " << kVarlenSequenceRegisters << " for the sequence's bounds";
  return verifyConsumerRegisters(op, target, op.getKeyGradRegisters(), parts);
}

LogicalResult AttentionBackwardOp::verify() {
  if (failed(verifyStructure(*this)) || failed(verifySignature(*this)) ||
      failed(verifySoftmax(*this, getCausal(), getWindow(), getScaleAttr())))
    return failure();
  return verifyConfig(*this);
}
