//===- AttentionOp.cpp - fmha.attention accessors and verifier ------------===//
//
// Part of fmha. The signature accessors, the effective configuration (with
// its defaults), the resource accounting and the verifier of fmha.attention.
//
//===----------------------------------------------------------------------===//

#include "AttentionChecks.h"
#include "VerifyUtils.h"

#include "fmha/Dialect/FMHA/IR/FMHADialect.h"
#include "fmha/Target/TargetLimits.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fmha;
using namespace mlir::fmha::checks;

namespace {
/// Dimension names of the tensors of an attention signature.
/// Registers per consumer thread for the addresses and bounds of split-KV's
/// plain partial loads (calibrated with ptxas: the head-dim-128 split
/// kernel, its next partial loaded ahead, spills at 232 and fits at 240).
constexpr int64_t kMergeAddressRegisters = 16;

constexpr ArrayRef<StringRef> kQDims = kAttentionQDims;
constexpr ArrayRef<StringRef> kKVDims = kAttentionKVDims;
/// An fp8 kernel's v: transposed, its keys padded to a multiple of 16.
constexpr StringRef kVTDims[] = {"batch", "heads_kv", "head_dim",
                                 "seq_k rounded up to 16"};
/// Descales: one factor per tensor, or one per sequence and KV head.
constexpr StringRef kDescaleDims[] = {"1"};
constexpr StringRef kHeadDescaleDims[] = {"batch", "heads_kv"};
constexpr StringRef kDescaleNames[] = {"descale_q", "descale_k", "descale_v"};
/// Keys per group of an fp8 v's key permutation (tile.dot's k_quad16).
constexpr int64_t kKeyGroup = 16;
constexpr ArrayRef<StringRef> kLseDims = kAttentionLseDims;
constexpr StringRef kCacheQDims[] = {"batch", "seq_q", "heads_q", "head_dim"};
constexpr StringRef kCacheKVDims[] = {"batch", "max_len", "heads_kv",
                                      "head_dim"};
constexpr StringRef kPagedKVDims[] = {"num_pages", "page_size", "heads_kv",
                                      "head_dim"};
constexpr StringRef kCacheSeqlensDims[] = {"batch"};
constexpr StringRef kBlockTableDims[] = {"batch", "max_pages"};
constexpr StringRef kTileNames[] = {"block_m", "block_n"};

/// Supported head dimensions.
constexpr int64_t kHeadDims[] = {64, 128, 256};

/// Default K/V stages: the most, up to this many, that fit (3 with the
/// default tiles for head dims 64 and 128, 2 for 256).
constexpr int64_t kMaxDefaultStages = 3;
/// Default consumer warpgroups per CTA.
constexpr int64_t kDefaultConsumers = 2;
/// Default block_n for head dims up to 128, and for head dim 256.
constexpr int64_t kDefaultBlockN = 128;
constexpr int64_t kDefaultBlockNLargeHeadDim = 64;
} // namespace

//===----------------------------------------------------------------------===//
// Signature
//===----------------------------------------------------------------------===//

RankedTensorType AttentionOp::getQueryType() {
  return getInputTensor(getFunctionType(), 0, getTokenRank());
}

RankedTensorType AttentionOp::getKeyType() {
  return getInputTensor(getFunctionType(), 1, getTokenRank());
}

RankedTensorType AttentionOp::getValueType() {
  return getInputTensor(getFunctionType(), 2, getTokenRank());
}

RankedTensorType AttentionOp::getOutputType() {
  return getResultTensor(getFunctionType(), 0, getTokenRank());
}

RankedTensorType AttentionOp::getLseType() {
  return getResultTensor(getFunctionType(), 1, getTokenRank() - 1);
}

RankedTensorType AttentionOp::getCuSeqlensQType() {
  return getVarlen() ? getInputTensor(getFunctionType(), 3, 1)
                     : RankedTensorType();
}

RankedTensorType AttentionOp::getCuSeqlensKType() {
  return getVarlen() ? getInputTensor(getFunctionType(), 4, 1)
                     : RankedTensorType();
}

RankedTensorType AttentionOp::getCacheSeqlensType() {
  return getKvcache() ? getInputTensor(getFunctionType(), 3, 1)
                      : RankedTensorType();
}

RankedTensorType AttentionOp::getBlockTableType() {
  return getKvcache() ? getInputTensor(getFunctionType(), 4, 2)
                      : RankedTensorType();
}

int64_t AttentionOp::getPageSize() {
  return isPaged() ? getDimOrDynamic(getKeyType(), 1) : ShapedType::kDynamic;
}

int64_t AttentionOp::getPackedGroup() {
  int64_t headsQ = getNumHeadsQ(), headsKV = getNumHeadsKV();
  if (!getPackGqa() || ShapedType::isDynamic(headsQ) ||
      ShapedType::isDynamic(headsKV) || headsKV <= 0 || headsQ % headsKV)
    return 1;
  return headsQ / headsKV;
}

Type AttentionOp::getElementType() {
  RankedTensorType q = getQueryType();
  return q ? q.getElementType() : Type();
}

Type AttentionOp::getOutputElementType() {
  RankedTensorType o = getOutputType();
  return o ? o.getElementType() : Type();
}

RankedTensorType AttentionOp::getDescaleType(unsigned index) {
  if (!isFp8() || getVarlen() || getKvcache())
    return RankedTensorType();
  if (RankedTensorType perHead =
          getInputTensor(getFunctionType(), 3 + index, 2))
    return perHead;
  return getInputTensor(getFunctionType(), 3 + index, 1);
}

// Dimensions: [batch, heads, seq, head_dim] (lse [batch, heads, seq]), or
// with varlen [total, heads, head_dim] (lse [heads, total]), or with kvcache
// [batch, seq, heads, head_dim] (lse [batch, heads, seq]).

int64_t AttentionOp::getBatch() {
  if (getKvcache()) {
    int64_t batch = mergeDims(0, {getQueryType(), getOutputType(), getLseType(),
                                  getCacheSeqlensType(), getBlockTableType()});
    if (isPaged())
      return batch;
    return mergeSizes({batch, getDimOrDynamic(getKeyType(), 0),
                       getDimOrDynamic(getValueType(), 0)});
  }
  if (getVarlen()) {
    int64_t entries = mergeDims(0, {getCuSeqlensQType(), getCuSeqlensKType()});
    return ShapedType::isDynamic(entries) ? entries : entries - 1;
  }
  return mergeDims(0, {getQueryType(), getKeyType(), getValueType(),
                       getOutputType(), getLseType()});
}

int64_t AttentionOp::getNumHeadsQ() {
  if (getKvcache())
    return mergeSizes({getDimOrDynamic(getQueryType(), 2),
                       getDimOrDynamic(getOutputType(), 2),
                       getDimOrDynamic(getLseType(), 1)});
  if (getVarlen())
    return mergeSizes({getDimOrDynamic(getQueryType(), 1),
                       getDimOrDynamic(getOutputType(), 1),
                       getDimOrDynamic(getLseType(), 0)});
  return mergeDims(1, {getQueryType(), getOutputType(), getLseType()});
}

int64_t AttentionOp::getNumHeadsKV() {
  return mergeDims(getKvcache() ? 2 : 1, {getKeyType(), getValueType()});
}

int64_t AttentionOp::getSeqLenQ() {
  if (getKvcache())
    return mergeSizes({getDimOrDynamic(getQueryType(), 1),
                       getDimOrDynamic(getOutputType(), 1),
                       getDimOrDynamic(getLseType(), 2)});
  if (getVarlen())
    return mergeSizes({getDimOrDynamic(getQueryType(), 0),
                       getDimOrDynamic(getOutputType(), 0),
                       getDimOrDynamic(getLseType(), 1)});
  return mergeDims(2, {getQueryType(), getOutputType(), getLseType()});
}

int64_t AttentionOp::getSeqLenK() {
  // A transposed v has its keys padded: k alone has seq_k.
  if (takesTransposedValues())
    return getDimOrDynamic(getKeyType(), getVarlen() ? 0 : 2);
  return mergeDims(getVarlen()    ? 0
                   : getKvcache() ? 1
                                  : 2,
                   {getKeyType(), getValueType()});
}

int64_t AttentionOp::getHeadDim() {
  int64_t last = getTokenRank() - 1;
  if (takesTransposedValues())
    return mergeSizes(
        {mergeDims(last, {getQueryType(), getKeyType(), getOutputType()}),
         getDimOrDynamic(getValueType(), 2)});
  return mergeDims(
      last, {getQueryType(), getKeyType(), getValueType(), getOutputType()});
}

//===----------------------------------------------------------------------===//
// Effective configuration
//===----------------------------------------------------------------------===//

int64_t AttentionOp::getBlockM() {
  if (std::optional<int64_t> blockM = getTileSize(getTile(), kTileNames, 0))
    return *blockM;
  // One MMA's rows: a warpgroup's m64 wgmma (S and O of a 64-row tile fit in
  // registers for every head dim), or a tcgen05.mma's m128.
  return getTargetInfo(getTarget()).getMmaM();
}

int64_t AttentionOp::getBlockN() {
  if (std::optional<int64_t> blockN = getTileSize(getTile(), kTileNames, 1))
    return *blockN;
  int64_t blockN =
      getHeadDim() > 128 ? kDefaultBlockNLargeHeadDim : kDefaultBlockN;
  // A paged K/V tile is one box inside one page.
  int64_t pageSize = getPageSize();
  if (!ShapedType::isDynamic(pageSize) && pageSize > 0)
    blockN = std::min(blockN, pageSize);
  return blockN;
}

int64_t AttentionOp::getNumConsumerGroups() {
  if (IntegerAttr consumers = getConsumersAttr())
    return consumers.getInt();
  // Each consumer's S (block_n columns) and O (head dim columns) live in
  // tensor memory: with head dim 256 two of them need more than its 512
  // columns for any block_n (at least one MMA K step): use one consumer.
  TargetInfo info = getTargetInfo(getTarget());
  if (info.accumulatesInTensorMemory() &&
      kDefaultConsumers * (limits::kMmaK16Bit + getHeadDim()) >
          info.getTensorMemoryColumns())
    return 1;
  return kDefaultConsumers;
}

int64_t AttentionOp::getStagesOrDefault() {
  if (IntegerAttr stages = getStagesAttr())
    return stages.getInt();
  return pickStages(
      kMaxDefaultStages, getMinStages(getTarget()), [&](int64_t stages) {
        return getSharedMemoryUsage(stages, getQuerySlots()).getTotalBytes();
      });
}

/// Whether two Q slots fit beside the K/V stages `op` asks for, or beside
/// the fewest.
static bool twoQuerySlotsFit(AttentionOp op) {
  IntegerAttr stages = op.getStagesAttr();
  int64_t kvStages = stages ? stages.getInt() : getMinStages(op.getTarget());
  return op.getSharedMemoryUsage(kvStages, 2).getTotalBytes() <=
         limits::kMaxSharedMemoryBytes;
}

bool AttentionOp::isPersistent() {
  if (std::optional<Schedule> schedule = getSchedule())
    return *schedule == Schedule::Persistent;
  // The persistent schedule is built for wgmma consumers.
  return getTargetInfo(getTarget()).hasWgmma() && twoQuerySlotsFit(*this);
}

int64_t AttentionOp::getQuerySlots() {
  return isPersistent() && twoQuerySlotsFit(*this) ? 2 : 1;
}

double AttentionOp::getScaleOrDefault() {
  return getAttentionScale(getScaleAttr(), getHeadDim());
}

std::optional<int64_t> AttentionOp::getLeftWindow() {
  return checks::getLeftWindow(getWindow());
}

std::optional<int64_t> AttentionOp::getRightWindow() {
  return checks::getRightWindow(getCausal(), getWindow());
}

//===----------------------------------------------------------------------===//
// Resources
//===----------------------------------------------------------------------===//

SharedMemoryUsage AttentionOp::getSharedMemoryUsage(int64_t stages,
                                                    int64_t querySlots) {
  int64_t headDim = getHeadDim();
  if (ShapedType::isDynamic(headDim))
    headDim = 0;
  int64_t elementBytes = getElementBytes(getElementType());
  int64_t blockM = getBlockM(), consumers = getNumConsumerGroups();
  SharedMemoryUsage usage;
  // The buffers in the order the sm_90a pipeline allocates them. A ring
  // with the Q tile of every consumer, `querySlots` slots. Each consumer
  // stages its O tile for the TMA store in its Q buffer, which it holds until
  // the store has read it (ws-stage-in-held-slots).
  usage.addPart("Q/O", querySlots * consumers, blockM * headDim * elementBytes);
  // fp8: O (bf16 or f16) is wider than the fp8 Q buffer it would be staged
  // in: each consumer stages it in a buffer of its own.
  if (isFp8())
    usage.addPart("O", consumers,
                  blockM * headDim * getElementBytes(getOutputElementType()));
  // The K ring and the V ring, `stages` slots each.
  usage.addPart("K/V", 2, stages * getBlockN() * headDim * elementBytes);
  // transpose_v: the V^T tiles made in shared memory, a ring of their own.
  if (getTransposeV())
    usage.addPart("V^T", 1, stages * getBlockN() * headDim * elementBytes);
  // The lse rows go to global memory straight from registers
  // (tile.store_direct): they need no shared memory.
  // A full and an empty barrier per slot of each ring.
  usage.mbarriers = 2 * ((getTransposeV() ? 3 : 2) * stages + querySlots);
  return usage;
}

int64_t AttentionOp::getSplitMergeChunkRows() {
  return std::max(limits::kSplitMergeChunkRows, getPackedGroup());
}

int64_t AttentionOp::getSplitMergeRegisters() {
  int64_t headDim = getHeadDim();
  if (ShapedType::isDynamic(headDim))
    headDim = 0;
  int64_t chunk =
      getSplitMergeChunkRows() * headDim / limits::kWarpgroupThreads;
  return (limits::kMergeUnroll + 1) * chunk + kMergeAddressRegisters;
}

/// Registers per consumer thread of S (`s` per thread, fp32), of the
/// previous step's P (S rounded to the input type: 16 bits two to a
/// register, fp8 four), still read by its P V wgmma while the softmax of S
/// runs, and of the softmax's temporaries: half of S in the estimate that
/// sizes the register split; in the `tight` one that decides whether a
/// tile fits at all, a quarter of S for 16-bit P and none for fp8, whose
/// conversion packs P into its registers as it goes, nor with three
/// consumers (their split's 160 registers hold exactly S, P, O and the row
/// state of 16-bit head dim 64 with [64, 128] and [64, 96], the least
/// setmaxnreg without spills being 160 and 136; [64, 160] needs 184 and is
/// rejected, head dim 128 with [64, 80] is admitted and spills 4 bytes
/// without a mask, [64, 96] is rejected). Measured with ptxas
/// under the widest split: 16-bit head dim 256 with [64, 80] (230 tight)
/// spills 60 bytes under the default split, 4 under the widest, which the
/// half-S estimate (240) asks for; the widest 16-bit tiles the quarter
/// admits (head dim 64 with [64, 192], 128 with [64, 160]) compile without
/// spills, causal or with two-sided windows, lse, varlen or a KV cache;
/// head dim 128 with [64, 176] spills. fp8 [64, 192] at head dim 128 and
/// [64, 128] at 256 (240 tight) compile without spills; fp8 [64, 224] at
/// head dims 64 and 128 spills 12 bytes without a mask (72 causal at 128),
/// admitted but left out of the candidates.
static int64_t softmaxRegisters(AttentionOp op, int64_t s, bool tight) {
  int64_t bytes = getElementBytes(op.getElementType());
  int64_t temporaries = s / 2;
  if (tight)
    temporaries = bytes == 1 || op.getNumConsumerGroups() > 2 ? 0 : s / 4;
  return s + s * bytes / 4 + temporaries;
}

int64_t AttentionOp::getConsumerRegisters(bool tight) {
  int64_t headDim = getHeadDim();
  if (ShapedType::isDynamic(headDim))
    headDim = 0;
  int64_t blockM = getBlockM(), blockN = getBlockN();
  // Spread over a warpgroup's threads: S, P and the softmax's temporaries
  // (softmaxRegisters); O (block_m x head_dim) in fp32; the per-row state
  // and the loop's scalars.
  int64_t s = blockM * blockN / limits::kWarpgroupThreads;
  int64_t o = blockM * headDim / limits::kWarpgroupThreads;
  int64_t softmax = softmaxRegisters(*this, s, tight);
  int64_t rows = blockM / limits::kWgmmaM * limits::kSm90AttentionRowRegisters +
                 limits::kSm90AttentionLoopRegisters;
  // Split-KV's merge, after the main loop: a chunk of rows of the running
  // sum and of each partial loaded together, and their addresses.
  if (getSplitKv())
    return std::max(softmax + o, getSplitMergeRegisters()) + rows;
  return softmax + o + rows;
}

int64_t AttentionOp::getTmemColumns() {
  int64_t headDim = getHeadDim();
  if (ShapedType::isDynamic(headDim))
    headDim = 0;
  // Per consumer tile: S (P aliases it) and O.
  return getNumConsumerGroups() * (getBlockN() + headDim);
}

//===----------------------------------------------------------------------===//
// Verifier
//===----------------------------------------------------------------------===//

/// Checks the number of inputs and results and the rank of each tensor.
/// Checks the inputs and ranks of a kvcache kernel.
static LogicalResult verifyKvcacheStructure(AttentionOp op) {
  FunctionType type = op.getFunctionType();
  if (op.getVarlen())
    return op.emitOpError("varlen and kvcache exclude each other: a kernel "
                          "reads packed sequences or caches, not both");
  unsigned inputs = type.getNumInputs();
  if (inputs != 4 && inputs != 5)
    return op.emitOpError()
           << "kvcache expects 4 inputs (q, k_cache, v_cache, cache_seqlens) "
              "or 5 (and block_table), got "
           << inputs;
  if (type.getNumResults() != 1 && type.getNumResults() != 2)
    return op.emitOpError()
           << "expects 1 or 2 results (o and optionally lse), got "
           << type.getNumResults();
  bool paged = inputs == 5;
  ArrayRef<StringRef> kvDims = paged ? ArrayRef<StringRef>(kPagedKVDims)
                                     : ArrayRef<StringRef>(kCacheKVDims);
  SmallVector<NamedTensor> tensors = {
      {"q", type.getInput(0), kCacheQDims},
      {"k", type.getInput(1), kvDims},
      {"v", type.getInput(2), kvDims},
      {"cache_seqlens", type.getInput(3), kCacheSeqlensDims}};
  if (paged)
    tensors.push_back({"block_table", type.getInput(4), kBlockTableDims});
  tensors.push_back({"o", type.getResult(0), kCacheQDims});
  if (type.getNumResults() == 2)
    tensors.push_back({"lse", type.getResult(1), kLseDims});
  return verifyTensors(op, tensors);
}

/// Checks the inputs and ranks of an fp8 kernel: dense q, k, v^T and the
/// three descales, all [1] (per tensor) or all [batch, heads_kv].
static LogicalResult verifyFp8Structure(AttentionOp op) {
  FunctionType type = op.getFunctionType();
  if (op.getVarlen() || op.getKvcache())
    return op.emitOpError()
           << "fp8 q, k and v are supported in the dense layout only so far, "
              "not with "
           << (op.getVarlen() ? "varlen" : "kvcache");
  if (type.getNumInputs() != 6)
    return op.emitOpError()
           << "fp8 q, k and v need descale factors: expected 6 inputs (q, k, "
              "v, descale_q, descale_k, descale_v), got "
           << type.getNumInputs();
  if (type.getNumResults() != 1 && type.getNumResults() != 2)
    return op.emitOpError()
           << "expects 1 or 2 results (o and optionally lse), got "
           << type.getNumResults();
  SmallVector<NamedTensor> tensors = {{"q", type.getInput(0), kQDims},
                                      {"k", type.getInput(1), kKVDims},
                                      {"v", type.getInput(2),
                                       op.getTransposeV()
                                           ? ArrayRef<StringRef>(kKVDims)
                                           : ArrayRef<StringRef>(kVTDims)}};
  // The descales take q's form: per head if descale_q is rank 2.
  auto descaleRank = [&](unsigned i) -> int64_t {
    auto tensor = dyn_cast<RankedTensorType>(type.getInput(3 + i));
    return tensor ? tensor.getRank() : 0;
  };
  for (unsigned i = 0; i < 3; ++i) {
    int64_t rank = descaleRank(i);
    if (rank != 1 && rank != 2)
      return op.emitOpError()
             << kDescaleNames[i]
             << " must be a tensor [1] (one factor per tensor) or [batch, "
                "heads_kv] (one per sequence and KV head), got "
             << type.getInput(3 + i);
    if (rank != descaleRank(0))
      return op.emitOpError()
             << kDescaleNames[i] << " is " << type.getInput(3 + i)
             << " but descale_q is " << type.getInput(3)
             << ": the three descales are all [1] or all [batch, heads_kv]";
  }
  ArrayRef<StringRef> descaleDims = descaleRank(0) == 2
                                        ? ArrayRef<StringRef>(kHeadDescaleDims)
                                        : ArrayRef<StringRef>(kDescaleDims);
  for (unsigned i = 0; i < 3; ++i)
    tensors.push_back({kDescaleNames[i], type.getInput(3 + i), descaleDims});
  tensors.push_back({"o", type.getResult(0), kQDims});
  if (type.getNumResults() == 2)
    tensors.push_back({"lse", type.getResult(1), kLseDims});
  return verifyTensors(op, tensors);
}

static LogicalResult verifyStructure(AttentionOp op) {
  if (op.getTransposeV() && !op.isFp8())
    return op.emitOpError("transpose_v transposes fp8 V tiles in shared "
                          "memory; with ")
           << op.getElementType() << " inputs wgmma reads V as it is";
  if (op.isFp8())
    return verifyFp8Structure(op);
  if (op.getKvcache())
    return verifyKvcacheStructure(op);
  FunctionType type = op.getFunctionType();
  bool varlen = op.getVarlen();
  if (varlen && type.getNumInputs() != 5)
    return op.emitOpError() << "varlen expects 5 inputs (q, k, v, "
                               "cu_seqlens_q, cu_seqlens_k), got "
                            << type.getNumInputs();
  if (!varlen && type.getNumInputs() != 3)
    return op.emitOpError()
           << "expects 3 inputs (q, k, v), got " << type.getNumInputs()
           << (type.getNumInputs() == 5 ? " (cu_seqlens need varlen)" : "")
           << (type.getNumInputs() == 6 ? " (descales are for fp8 q, k, v)"
                                        : "");
  if (type.getNumResults() != 1 && type.getNumResults() != 2)
    return op.emitOpError()
           << "expects 1 or 2 results (o and optionally lse), got "
           << type.getNumResults();
  ArrayRef<StringRef> qDims =
      varlen ? ArrayRef<StringRef>(kVarlenQDims) : ArrayRef<StringRef>(kQDims);
  ArrayRef<StringRef> kvDims = varlen ? ArrayRef<StringRef>(kVarlenKVDims)
                                      : ArrayRef<StringRef>(kKVDims);
  SmallVector<NamedTensor> tensors = {{"q", type.getInput(0), qDims},
                                      {"k", type.getInput(1), kvDims},
                                      {"v", type.getInput(2), kvDims}};
  if (varlen)
    tensors.append({{"cu_seqlens_q", type.getInput(3), kCuSeqlensDims},
                    {"cu_seqlens_k", type.getInput(4), kCuSeqlensDims}});
  tensors.push_back({"o", type.getResult(0), qDims});
  if (type.getNumResults() == 2)
    tensors.push_back({"lse", type.getResult(1),
                       varlen ? ArrayRef<StringRef>(kVarlenLseDims)
                              : ArrayRef<StringRef>(kLseDims)});
  return verifyTensors(op, tensors);
}

/// Checks the cu_seqlens of a varlen kernel.
static LogicalResult verifyVarlen(AttentionOp op) {
  if (!op.getVarlen())
    return success();
  return verifyCuSeqlens(op, op.getCuSeqlensQType(), op.getCuSeqlensKType());
}

/// Checks the cache lengths and block table of a kvcache kernel: i32, the
/// page size, the tile inside one page, and the target.
static LogicalResult verifyKvcache(AttentionOp op) {
  if (!op.getKvcache()) {
    if (op.getPackGqa() || op.getSplitKv())
      return op.emitOpError()
             << (op.getPackGqa() ? "pack_gqa" : "split_kv")
             << " needs kvcache: it shapes decode against a KV cache";
    return success();
  }
  if (op.getPackGqa()) {
    int64_t headsQ = op.getNumHeadsQ(), headsKV = op.getNumHeadsKV();
    if (ShapedType::isDynamic(headsQ) || ShapedType::isDynamic(headsKV))
      return op.emitOpError("pack_gqa needs static heads_q and heads_kv: the "
                            "group size sets the kernel's Q and O boxes");
    int64_t group = op.getPackedGroup(), blockM = op.getBlockM();
    if (blockM % group != 0)
      return op.emitOpError()
             << "pack_gqa: the group of " << group
             << " query heads per KV head must divide block_m " << blockM
             << " (a Q tile holds block_m / group positions of the group)";
  }
  SmallVector<std::pair<StringRef, RankedTensorType>> indices = {
      {"cache_seqlens", op.getCacheSeqlensType()}};
  if (op.isPaged())
    indices.push_back({"block_table", op.getBlockTableType()});
  for (auto [name, type] : indices)
    if (!type.getElementType().isInteger(32))
      return op.emitOpError()
             << name << " element type " << type.getElementType()
             << " is not supported: expected i32";
  if (op.isPaged()) {
    int64_t pageSize = op.getPageSize();
    if (ShapedType::isDynamic(pageSize))
      return op.emitOpError("page_size (dim 1 of k and v) must be static: "
                            "the kernel's K/V boxes are cut to pages");
    if (pageSize < 16 || pageSize > 256 || !llvm::isPowerOf2_64(pageSize))
      return op.emitOpError()
             << "page_size " << pageSize
             << " is not supported: expected a power of two from 16 to 256";
    if (op.getBlockN() > pageSize)
      return op.emitOpError()
             << "block_n " << op.getBlockN() << " is larger than page_size "
             << pageSize << ": a K/V tile must lie inside one page";
  }
  return success();
}

/// Checks the element types of an fp8 kernel: q, k, v f8E4M3FN, o bf16 or
/// f16, the descales f32.
static LogicalResult verifyFp8ElementTypes(AttentionOp op) {
  Type element = op.getElementType();
  if (!isa<Float8E4M3FNType>(element))
    return op.emitOpError() << "q element type " << element
                            << " is not supported: fp8 attention takes "
                               "f8E4M3FN q, k and v";
  if (failed(verifySameElementType(op, "k", op.getKeyType().getElementType(),
                                   "q", element)) ||
      failed(verifySameElementType(op, "v", op.getValueType().getElementType(),
                                   "q", element)))
    return failure();
  Type out = op.getOutputElementType();
  if (!out.isBF16() && !out.isF16())
    return op.emitOpError() << "o element type " << out
                            << " is not supported with fp8 q, k and v: "
                               "expected bf16 or f16";
  for (unsigned i = 0; i < 3; ++i)
    if (!op.getDescaleType(i).getElementType().isF32())
      return op.emitOpError() << kDescaleNames[i] << " element type "
                              << op.getDescaleType(i).getElementType()
                              << " is not supported: expected f32";
  return success();
}

/// Checks the element types: q/k/v/o bf16 or f16 and all the same, lse f32.
static LogicalResult verifyElementTypes(AttentionOp op) {
  if (op.isFp8()) {
    if (RankedTensorType lse = op.getLseType())
      if (!lse.getElementType().isF32())
        return op.emitOpError() << "lse element type " << lse.getElementType()
                                << " is not supported: expected f32";
    return verifyFp8ElementTypes(op);
  }
  return verifyAttentionElementTypes(op, op.getQueryType(),
                                     {{"k", op.getKeyType()},
                                      {"v", op.getValueType()},
                                      {"o", op.getOutputType()}},
                                     op.getLseType());
}

/// Checks that the sizes the tensors share agree, in the dense layout.
static LogicalResult verifyDenseSizes(AttentionOp op) {
  if (!op.isFp8())
    return verifyDenseAttentionSizes(
        op, op.getQueryType(), op.getKeyType(), {{"o", op.getOutputType()}},
        {{"v", op.getValueType()}}, op.getLseType());
  ArrayRef<int64_t> q = op.getQueryType().getShape();
  ArrayRef<int64_t> k = op.getKeyType().getShape();
  ArrayRef<int64_t> v = op.getValueType().getShape();
  ArrayRef<int64_t> o = op.getOutputType().getShape();

  // k against q: batch and head dim (heads and sequence lengths differ).
  if (failed(verifySameSize(op, "batch", "k", k[0], "q", q[0])) ||
      failed(verifySameSize(op, "head_dim", "k", k[3], "q", q[3])))
    return failure();
  // fp8 v is k's shape with transpose_v; else transposed, its keys padded
  // to whole groups of the key permutation. o has q's shape.
  if (op.getTransposeV()) {
    for (unsigned dim = 0; dim < 4; ++dim)
      if (failed(verifySameSize(op, kKVDims[dim], "v", v[dim], "k", k[dim])))
        return failure();
  } else if (failed(verifySameSize(op, "batch", "v", v[0], "k", k[0])) ||
             failed(verifySameSize(op, "heads_kv", "v", v[1], "k", k[1])) ||
             failed(verifySameSize(op, "head_dim", "v", v[2], "k", k[3])))
    return failure();
  if (!op.getTransposeV() && !ShapedType::isDynamic(k[2]) &&
      !ShapedType::isDynamic(v[3]) &&
      v[3] != static_cast<int64_t>(llvm::alignTo(k[2], kKeyGroup)))
    return op.emitOpError()
           << "v has " << v[3] << " keys (dim 3) but k has seq_k " << k[2]
           << ": fp8 v is transposed with its keys padded to a multiple of "
           << kKeyGroup << ", expected " << llvm::alignTo(k[2], kKeyGroup);
  for (unsigned i = 0; i < 3; ++i) {
    ArrayRef<int64_t> descale = op.getDescaleType(i).getShape();
    if (op.hasHeadDescales()) {
      if (failed(verifySameSize(op, "batch", kDescaleNames[i], descale[0], "q",
                                q[0])) ||
          failed(verifySameSize(op, "heads_kv", kDescaleNames[i], descale[1],
                                "k", k[1])))
        return failure();
      continue;
    }
    if (!ShapedType::isDynamic(descale[0]) && descale[0] != 1)
      return op.emitOpError()
             << kDescaleNames[i] << " has " << descale[0]
             << " values: expected 1 (one factor per tensor; per KV head, "
                "descales are [batch, heads_kv])";
  }
  for (unsigned dim = 0; dim < 4; ++dim)
    if (failed(verifySameSize(op, kQDims[dim], "o", o[dim], "q", q[dim])))
      return failure();
  // lse is [batch, heads_q, seq_q].
  if (RankedTensorType lseType = op.getLseType()) {
    ArrayRef<int64_t> lse = lseType.getShape();
    for (unsigned dim = 0; dim < 3; ++dim)
      if (failed(
              verifySameSize(op, kLseDims[dim], "lse", lse[dim], "q", q[dim])))
        return failure();
  }
  return success();
}

/// Checks that the sizes the tensors share agree, in the varlen layout.
static LogicalResult verifyVarlenSizes(AttentionOp op) {
  return verifyVarlenAttentionSizes(
      op, op.getQueryType(), op.getKeyType(), {{"o", op.getOutputType()}},
      {{"v", op.getValueType()}}, op.getLseType());
}

/// Checks that the sizes the tensors share agree, in the kvcache layout.
static LogicalResult verifyKvcacheSizes(AttentionOp op) {
  ArrayRef<int64_t> q = op.getQueryType().getShape();
  ArrayRef<int64_t> k = op.getKeyType().getShape();
  ArrayRef<int64_t> v = op.getValueType().getShape();
  ArrayRef<int64_t> o = op.getOutputType().getShape();
  ArrayRef<StringRef> kvDims = op.isPaged() ? ArrayRef<StringRef>(kPagedKVDims)
                                            : ArrayRef<StringRef>(kCacheKVDims);
  if (failed(verifySameSize(op, "head_dim", "k", k[3], "q", q[3])))
    return failure();
  if (!op.isPaged() &&
      failed(verifySameSize(op, "batch", "k", k[0], "q", q[0])))
    return failure();
  for (unsigned dim = 0; dim < 4; ++dim)
    if (failed(verifySameSize(op, kvDims[dim], "v", v[dim], "k", k[dim])) ||
        failed(verifySameSize(op, kCacheQDims[dim], "o", o[dim], "q", q[dim])))
      return failure();
  if (RankedTensorType lseType = op.getLseType()) {
    ArrayRef<int64_t> lse = lseType.getShape();
    if (failed(verifySameSize(op, "batch", "lse", lse[0], "q", q[0])) ||
        failed(verifySameSize(op, "heads_q", "lse", lse[1], "q", q[2])) ||
        failed(verifySameSize(op, "seq_q", "lse", lse[2], "q", q[1])))
      return failure();
  }
  if (failed(verifySameSize(op, "batch", "cache_seqlens",
                            op.getCacheSeqlensType().getDimSize(0), "q", q[0])))
    return failure();
  if (RankedTensorType table = op.getBlockTableType())
    if (failed(verifySameSize(op, "batch", "block_table", table.getDimSize(0),
                              "q", q[0])))
      return failure();
  return success();
}

/// Checks the head dim and that the sizes the tensors share agree.
static LogicalResult verifySizes(AttentionOp op) {
  if (op.getKvcache()) {
    if (failed(verifyKvcacheSizes(op)))
      return failure();
  } else if (op.getVarlen()) {
    if (failed(verifyVarlenSizes(op)))
      return failure();
  } else if (failed(verifyDenseSizes(op))) {
    return failure();
  }

  if (failed(verifyAttentionHeadDim(op, op.getHeadDim(), kHeadDims,
                                    "q, k, v and o")))
    return failure();
  return verifyGqaRatio(op, op.getNumHeadsQ(), op.getNumHeadsKV());
}

/// Checks that a per-block grid fits CUDA's limits: heads_q and batch are
/// its y and z.
static LogicalResult verifyGrid(AttentionOp op) {
  if (op.isPersistent())
    return success();
  for (auto [name, size] : {std::pair<StringRef, int64_t>{"heads_q",
                                                          op.getNumHeadsQ()},
                            {"batch", op.getBatch()}})
    if (!ShapedType::isDynamic(size) && size > limits::kMaxGridYZ)
      return op.emitOpError()
             << name << " " << size << " is too large for the per_block "
             << "schedule, whose grid has heads_q CTAs along y and batch "
             << "along z: at most " << limits::kMaxGridYZ
             << " (the persistent schedule has no such limit)";
  return success();
}

/// Checks the tile, stages and consumers, then what they need of the target.
static LogicalResult verifyConfig(AttentionOp op) {
  int64_t blockN = op.getBlockN();
  // P V's K is the keys: 32 per fp8 wgmma, 16 per 16-bit one.
  if (failed(verifyTileRank(op, op.getTile(), kTileNames)) ||
      failed(verifyBlockM(op, op.getBlockM())) ||
      failed(verifyBlockN(op, blockN,
                          op.isFp8() ? 2 * limits::kMmaK16Bit
                                     : limits::kMmaK16Bit)))
    return failure();
  Target target = op.getTarget();
  if (op.isFp8() && !getTargetInfo(target).hasWgmma())
    return op.emitOpError("fp8 attention is supported on sm_90a only so far "
                          "(its P V product reads P from registers, which "
                          "tcgen05.mma cannot)");
  if (op.getSchedule() == Schedule::Persistent &&
      !getTargetInfo(target).hasWgmma())
    return op.emitOpError("schedule persistent is supported on sm_90a only");
  if (failed(verifyStages(op, op.getStagesAttr(), target)) ||
      failed(verifyConsumers(op, op.getConsumersAttr(),
                             getTargetInfo(target).hasWgmma()
                                 ? limits::kMaxSm90ConsumerGroups
                                 : limits::kMaxConsumerGroups)))
    return failure();
  // KV-cache kernels (prefill against a cache, decode) are selected and
  // tested with one or two consumers.
  if (op.getKvcache() && op.getNumConsumerGroups() > 2)
    return op.emitOpError()
           << "consumers " << op.getNumConsumerGroups()
           << " is for the dense and varlen layouts; kvcache kernels take "
              "1 or 2 consumer warpgroups";
  // The transposer's warps share the producer's warpgroup and its
  // registers, 24 a thread beside three consumers: ptxas spills them.
  if (op.getTransposeV() && op.getNumConsumerGroups() > 2)
    return op.emitOpError()
           << "transpose_v needs at most 2 consumers: beside "
           << op.getNumConsumerGroups()
           << " the transposer's warps get the producer's "
           << limits::kSm90MinProducerRegisters << " registers, too few";

  if (failed(verifySharedMemory(op, target, op.getSharedMemoryUsage())) ||
      failed(verifyGrid(op)))
    return failure();

  int64_t blockM = op.getBlockM();
  int64_t headDim = op.getHeadDim();
  return verifyAccumulators(
      op, target, op.getConsumerRegisters(/*tight=*/true),
      [&](raw_ostream &os) {
        int64_t rowState =
            blockM / limits::kWgmmaM * limits::kSm90AttentionRowRegisters +
            limits::kSm90AttentionLoopRegisters;
        int64_t s = blockM * blockN / limits::kWarpgroupThreads;
        int64_t o = blockM * headDim / limits::kWarpgroupThreads;
        if (op.getSplitKv() &&
            op.getSplitMergeRegisters() > softmaxRegisters(op, s, true) + o) {
          os << "split_kv's merge: " << limits::kMergeUnroll + 1 << " "
             << op.getSplitMergeChunkRows() << "x" << headDim
             << " fp32 chunks (the running sum and the partials loaded "
                "together) + "
             << kMergeAddressRegisters << " for their addresses + " << rowState
             << " for the row and loop state";
          return;
        }
        os << blockM << "x" << blockN << " fp32 S + " << blockM << "x" << blockN
           << " " << op.getElementType()
           << (op.isFp8() ? " P + " : " P and softmax temporaries + ") << blockM
           << "x" << headDim << " fp32 O tiles + " << rowState
           << " for the row and loop state";
      },
      op.getTmemColumns(),
      [&](raw_ostream &os) {
        os << op.getNumConsumerGroups() << " consumer tiles x (" << blockN
           << " S/P + " << headDim << " O) fp32 columns";
      },
      op.getNumConsumerGroups());
}

LogicalResult AttentionOp::verify() {
  if (failed(verifyStructure(*this)) || failed(verifyElementTypes(*this)) ||
      failed(verifyVarlen(*this)) || failed(verifySizes(*this)) ||
      failed(verifyKvcache(*this)) ||
      failed(verifySoftmax(*this, getCausal(), getWindow(), getScaleAttr())))
    return failure();
  return verifyConfig(*this);
}
