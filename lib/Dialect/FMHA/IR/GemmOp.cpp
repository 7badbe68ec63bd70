//===- GemmOp.cpp - fmha.gemm accessors and verifier ----------------------===//
//
// Part of fmha. The signature accessors, the effective configuration (with
// its defaults), the resource accounting and the verifier of fmha.gemm.
//
//===----------------------------------------------------------------------===//

#include "VerifyUtils.h"

#include "fmha/Dialect/FMHA/IR/FMHADialect.h"
#include "fmha/Target/TargetLimits.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::fmha;
using namespace mlir::fmha::checks;

namespace {
/// Dimension names of the tensors of a GEMM signature.
constexpr StringRef kADims[] = {"M", "K"};
constexpr StringRef kBDims[] = {"K", "N"};
constexpr StringRef kBTransposedDims[] = {"N", "K"};
constexpr StringRef kCDims[] = {"M", "N"};
/// A scale is one f32 for the whole tensor, or one per row of A (M) or
/// column of B (N).
constexpr StringRef kScaleADims[] = {"1 or M"};
constexpr StringRef kScaleBDims[] = {"1 or N"};
constexpr StringRef kTileNames[] = {"block_m", "block_n", "block_k"};

/// Default tile: 128 x 128 per consumer, one 128-byte swizzle span of K.
constexpr int64_t kDefaultBlockM = 128;
constexpr int64_t kDefaultBlockN = 128;
/// Default A/B stages: the most, up to this many, that fit.
constexpr int64_t kMaxDefaultStages = 4;
/// Default consumer warpgroups per CTA.
constexpr int64_t kDefaultConsumers = 2;
} // namespace

//===----------------------------------------------------------------------===//
// Signature
//===----------------------------------------------------------------------===//

RankedTensorType GemmOp::getAType() {
  return getInputTensor(getFunctionType(), 0, 2);
}

RankedTensorType GemmOp::getBType() {
  return getInputTensor(getFunctionType(), 1, 2);
}

RankedTensorType GemmOp::getCType() {
  return getResultTensor(getFunctionType(), 0, 2);
}

RankedTensorType GemmOp::getScaleAType() {
  return getInputTensor(getFunctionType(), 2, 1);
}

RankedTensorType GemmOp::getScaleBType() {
  return getInputTensor(getFunctionType(), 3, 1);
}

/// Whether `type` is an fp8 element type fmha.gemm takes.
static bool isFp8Type(Type type) {
  return isa_and_nonnull<Float8E4M3FNType, Float8E5M2Type>(type);
}

bool GemmOp::isFp8() {
  RankedTensorType a = getAType();
  return a && isFp8Type(a.getElementType());
}

/// Whether `scale` holds one value per row or column rather than one for
/// the whole tensor: any size but a static 1.
static bool isVectorScale(RankedTensorType scale) {
  return scale && scale.getDimSize(0) != 1;
}

bool GemmOp::hasRowScales() { return isVectorScale(getScaleAType()); }

bool GemmOp::hasColumnScales() { return isVectorScale(getScaleBType()); }

int64_t GemmOp::getM() { return mergeDims(0, {getAType(), getCType()}); }

int64_t GemmOp::getN() {
  return mergeSizes({getDimOrDynamic(getBType(), getTransposeB() ? 0 : 1),
                     getDimOrDynamic(getCType(), 1)});
}

int64_t GemmOp::getK() {
  return mergeSizes({getDimOrDynamic(getAType(), 1),
                     getDimOrDynamic(getBType(), getTransposeB() ? 1 : 0)});
}

//===----------------------------------------------------------------------===//
// Effective configuration
//===----------------------------------------------------------------------===//

/// The element type of the MMA inputs, null when a is not a matrix.
static Type getInputElementType(GemmOp op) {
  RankedTensorType a = op.getAType();
  return a ? a.getElementType() : Type();
}

int64_t GemmOp::getBlockM() {
  return getTileSize(getTile(), kTileNames, 0).value_or(kDefaultBlockM);
}

int64_t GemmOp::getBlockN() {
  return getTileSize(getTile(), kTileNames, 1).value_or(kDefaultBlockN);
}

int64_t GemmOp::getBlockK() {
  if (std::optional<int64_t> blockK = getTileSize(getTile(), kTileNames, 2))
    return *blockK;
  // One 128-byte swizzle span: 64 elements of bf16 / f16, 128 of fp8.
  return limits::kMaxSwizzleBytes / getElementBytes(getInputElementType(*this));
}

int64_t GemmOp::getNumConsumerGroups() {
  if (IntegerAttr consumers = getConsumersAttr())
    return consumers.getInt();
  // Swapped operands take one consumer (its tile's columns are the MMA's M).
  return getSwapAb() ? 1 : kDefaultConsumers;
}

int64_t GemmOp::getNumCtas() {
  if (IntegerAttr ctas = getCtasAttr())
    return ctas.getInt();
  return 1;
}

int64_t GemmOp::getNumMulticast() {
  if (IntegerAttr multicast = getMulticastAttr())
    return multicast.getInt();
  return 1;
}

int64_t GemmOp::getNumSplits() {
  if (IntegerAttr splits = getSplitsAttr())
    return splits.getInt();
  return 1;
}

int64_t GemmOp::getPromoteInterval() {
  if (IntegerAttr every = getPromoteEveryAttr())
    return every.getInt();
  return 0;
}

bool GemmOp::isPingPong() {
  std::optional<GemmSchedule> schedule = getSchedule();
  return schedule && *schedule == GemmSchedule::PingPong;
}

int64_t GemmOp::getStagesOrDefault() {
  if (IntegerAttr stages = getStagesAttr())
    return stages.getInt();
  return pickStages(kMaxDefaultStages, getMinStages(getTarget()),
                    [&](int64_t stages) {
                      return getSharedMemoryUsage(stages).getTotalBytes();
                    });
}

//===----------------------------------------------------------------------===//
// Resources
//===----------------------------------------------------------------------===//

SharedMemoryUsage GemmOp::getSharedMemoryUsage(int64_t stages) {
  int64_t inBytes = getElementBytes(getInputElementType(*this));
  RankedTensorType c = getCType();
  int64_t outBytes = getElementBytes(c ? c.getElementType() : Type());
  int64_t blockM = getBlockM(), blockN = getBlockN(), blockK = getBlockK();
  int64_t consumers = getNumConsumerGroups();
  SharedMemoryUsage usage;
  // The buffers in the order the sm_90a pipeline allocates them: the ring of
  // one A block per consumer tile and one shared B block, `stages` slots
  // each (ping-pong: one A and one B block a slot, the consumers' work
  // items taking turns in the ring), then each consumer's C tile, staged
  // for the TMA store.
  usage.addPart("A", isPingPong() ? 1 : consumers,
                stages * blockM * blockK * inBytes);
  // In 2-CTA mode each CTA of the pair holds half of B's block_n rows.
  int64_t ctas = std::max<int64_t>(getNumCtas(), 1);
  usage.addPart("B", 1, stages * (blockN / ctas) * blockK * inBytes);
  usage.addPart("C staging", consumers, blockM * blockN * outBytes);
  // A full and an empty barrier per slot.
  usage.mbarriers = 2 * stages;
  return usage;
}

int64_t GemmOp::getConsumerRegisters() {
  int64_t accumulator = getBlockM() * getBlockN() / limits::kWarpgroupThreads;
  // Accumulate promotion keeps the wgmma chain's tile and the running sum.
  int64_t accumulators = getPromoteInterval() > 0 ? 2 : 1;
  int64_t registers =
      accumulators * accumulator + limits::kSm90GemmReservedRegisters;
  // Per-column scales in the accumulator's column layout: a thread holds
  // 2 columns of every 8.
  if (hasColumnScales())
    registers += getBlockN() / 4;
  return registers;
}

int64_t GemmOp::getTmemColumns() {
  // A double-buffered accumulator per consumer: the epilogue drains one while
  // the MMAs fill the other.
  return getNumConsumerGroups() * 2 * getBlockN();
}

//===----------------------------------------------------------------------===//
// Verifier
//===----------------------------------------------------------------------===//

/// Checks the number of inputs and results and the rank of each tensor.
static LogicalResult verifyStructure(GemmOp op) {
  FunctionType type = op.getFunctionType();
  unsigned inputs = type.getNumInputs();
  if (inputs != 2 && inputs != 4)
    return op.emitOpError()
           << "expects 2 inputs (a, b) or 4 (a, b, scale_a, scale_b), got "
           << inputs;
  if (type.getNumResults() != 1)
    return op.emitOpError()
           << "expects 1 result (c), got " << type.getNumResults();
  SmallVector<NamedTensor, 5> tensors = {
      {"a", type.getInput(0), kADims},
      {"b", type.getInput(1),
       op.getTransposeB() ? ArrayRef<StringRef>(kBTransposedDims)
                          : ArrayRef<StringRef>(kBDims)},
      {"c", type.getResult(0), kCDims}};
  if (inputs == 4) {
    tensors.push_back({"scale_a", type.getInput(2), kScaleADims});
    tensors.push_back({"scale_b", type.getInput(3), kScaleBDims});
  }
  return verifyTensors(op, tensors);
}

/// Checks the fp8 inputs: e4m3 or e5m2 each but not both e5m2, B given as
/// [N, K] (fp8 wgmma reads both operands K-major), and f32 scales.
static LogicalResult verifyFp8Inputs(GemmOp op, Type a, Type b) {
  if (!isFp8Type(b))
    return op.emitOpError()
           << "b element type " << b << " does not match a's fp8 " << a
           << ": expected f8E4M3FN or f8E5M2";
  if (isa<Float8E5M2Type>(a) && isa<Float8E5M2Type>(b))
    return op.emitOpError()
           << "a and b are both f8E5M2: at most one fp8 operand may be "
              "f8E5M2 (as torch._scaled_mm), the other f8E4M3FN";
  if (!op.getTransposeB())
    return op.emitOpError()
           << "fp8 needs transpose_b (b as [N, K]): fp8 MMAs read both "
              "operands K-major";
  if (op.getFunctionType().getNumInputs() != 4)
    return op.emitOpError()
           << "fp8 a and b need scales: expected 4 inputs (a, b, scale_a, "
              "scale_b), got 2";
  for (auto [name, scale] : {std::pair{"scale_a", op.getScaleAType()},
                             std::pair{"scale_b", op.getScaleBType()}})
    if (!scale.getElementType().isF32())
      return op.emitOpError()
             << name << " element type " << scale.getElementType()
             << " is not supported: expected f32";
  return success();
}

/// Checks the element types: a and b bf16 or f16 and the same, or both fp8
/// with scales; c bf16, f16 or f32.
static LogicalResult verifyElementTypes(GemmOp op) {
  Type element = op.getAType().getElementType();
  Type bElement = op.getBType().getElementType();
  if (isFp8Type(element)) {
    if (failed(verifyFp8Inputs(op, element, bElement)))
      return failure();
  } else if (isFp8Type(bElement)) {
    return op.emitOpError() << "b is fp8 (" << bElement << ") but a is "
                            << element << ": expected both fp8 or neither";
  } else {
    if (failed(verifyInputElementType(op, "a", element)) ||
        failed(verifySameElementType(op, "b", bElement, "a", element)))
      return failure();
    if (op.getFunctionType().getNumInputs() != 2)
      return op.emitOpError()
             << "scale_a and scale_b are for fp8 a and b only, not " << element;
  }
  Type result = op.getCType().getElementType();
  if (result.isBF16() || result.isF16() || result.isF32())
    return success();
  if (isFp8Type(result))
    return op.emitOpError() << "c: fp8 (" << result
                            << ") is not supported: expected bf16, f16 or f32";
  return op.emitOpError() << "c element type " << result
                          << " is not supported: expected bf16, f16 or f32";
}

/// Checks that M, N and K agree between the tensors and that TMA can address
/// the rows of each tensor.
static LogicalResult verifySizes(GemmOp op) {
  ArrayRef<int64_t> a = op.getAType().getShape();
  ArrayRef<int64_t> b = op.getBType().getShape();
  ArrayRef<int64_t> c = op.getCType().getShape();
  bool transposeB = op.getTransposeB();
  int64_t bK = transposeB ? b[1] : b[0];
  int64_t bN = transposeB ? b[0] : b[1];
  if (!ShapedType::isDynamic(a[1]) && !ShapedType::isDynamic(bK) && a[1] != bK)
    return op.emitOpError()
           << "b K " << bK << " does not match a K " << a[1]
           << (transposeB ? " (b is [N, K] with transpose_b)"
                          : " (b is [K, N]; use transpose_b for [N, K])");
  if (failed(verifySameSize(op, "M", "c", c[0], "a", a[0])) ||
      failed(verifySameSize(op, "N", "c", c[1], "b", bN)))
    return failure();
  // A scale is one value (static size 1) or one per row of A / column of B.
  for (auto [name, scale, dim, size] :
       {std::tuple{"scale_a", op.getScaleAType(), "M", op.getM()},
        std::tuple{"scale_b", op.getScaleBType(), "N", op.getN()}}) {
    if (!scale)
      continue;
    int64_t scaleSize = scale.getDimSize(0);
    if (ShapedType::isDynamic(scaleSize) || ShapedType::isDynamic(size) ||
        scaleSize == 1 || scaleSize == size)
      continue;
    return op.emitOpError()
           << name << " has " << scaleSize << " values: expected 1 (one scale "
           << "for the tensor) or " << dim << " = " << size << " (one per "
           << (StringRef(dim) == "M" ? "row of a" : "column of b") << ")";
  }

  // Row strides of the row-major tensors, as the TMA descriptors see them.
  Type inType = op.getAType().getElementType();
  if (failed(verifyTmaRowStride(op, "A", "K", op.getK(), inType)) ||
      failed(verifyTmaRowStride(op, "B", transposeB ? "K" : "N",
                                transposeB ? op.getK() : op.getN(), inType)) ||
      failed(verifyTmaRowStride(op, "C", "N", op.getN(),
                                op.getCType().getElementType())))
    return failure();
  return success();
}

/// Reads a CTA-pair option (`ctas`, `multicast`: 1 or 2) of `op`: whether
/// it asks for a pair, or a failure (reported) when its value is neither or
/// the pair is asked for on a target that cannot build it. `counts` says
/// what the value counts; a non-empty `needs` says what only sm_100a has
/// for a pair (an option every target builds passes none).
static FailureOr<bool> isPairAsked(GemmOp op, StringRef name, IntegerAttr attr,
                                   StringRef counts, StringRef needs,
                                   Target target) {
  if (!attr)
    return false;
  int64_t value = attr.getInt();
  if (value != 1 && value != 2)
    return op.emitOpError() << name << " " << value
                            << " is not supported: expected 1 or 2 " << counts;
  if (value == 1)
    return false;
  if (!needs.empty() && !getTargetInfo(target).hasCtaPairMma())
    return op.emitOpError() << name << " 2 needs sm_100a (" << needs
                            << "), not " << stringifyTarget(target);
  return true;
}

/// Checks 2-CTA mode (`ctas`): sm_100a only, and a tile pair that is a
/// `cta_group::2` MMA shape (M = 256 across the pair, N a multiple of 16).
static LogicalResult verifyCtas(GemmOp op, Target target, int64_t blockN) {
  FailureOr<bool> pair =
      isPairAsked(op, "ctas", op.getCtasAttr(), "CTAs per MMA",
                  "tcgen05.mma.cta_group::2", target);
  if (failed(pair))
    return failure();
  if (!*pair)
    return success();
  int64_t blockM = op.getBlockM();
  if (blockM != limits::kMaxBlockM)
    return op.emitOpError()
           << "block_m " << blockM << " is not supported with ctas 2: expected "
           << limits::kMaxBlockM << " (each CTA holds " << limits::kMaxBlockM
           << " rows of the pair's M = " << 2 * limits::kMaxBlockM << " MMA)";
  if (blockN % (2 * limits::kMmaNGranularity) != 0)
    return op.emitOpError()
           << "block_n " << blockN << " is not supported with ctas 2: "
           << "expected a multiple of " << 2 * limits::kMmaNGranularity
           << " (each CTA loads block_n / 2 rows of B)";
  return success();
}

/// Checks TMA multicast (`multicast`): not with 2-CTA mode, and a B block
/// that splits into two halves TMA can write where the whole block would be
/// (the split ws.tma_load {multicast} makes). Both targets build it: on
/// sm_100a tcgen05 commits release the shared B tiles in both CTAs, on
/// sm_90a one lane per consumer warp arrives in both.
static LogicalResult verifyMulticast(GemmOp op, Target target, int64_t blockN) {
  FailureOr<bool> pair =
      isPairAsked(op, "multicast", op.getMulticastAttr(),
                  "CTAs sharing each B tile", /*needs=*/"", target);
  if (failed(pair))
    return failure();
  if (!*pair)
    return success();
  if (op.getNumCtas() != 1)
    return op.emitOpError()
           << "multicast 2 cannot be combined with ctas " << op.getNumCtas()
           << ": in 2-CTA mode the CTAs already load separate halves of B";
  if (op.getTransposeB()) {
    if (blockN % (2 * limits::kSwizzleAtomRows) != 0)
      return op.emitOpError()
             << "block_n " << blockN << " is not supported with multicast 2: "
             << "each CTA loads block_n / 2 rows of B, which must be a "
                "multiple of "
             << limits::kSwizzleAtomRows
             << " (a swizzle pattern), so block_n a "
             << "multiple of " << 2 * limits::kSwizzleAtomRows;
    return success();
  }
  // B as [K, N]: a row of block_n elements moves in boxes one swizzle span
  // wide; one box is split by its rows of K, several between the CTAs (of
  // an odd number, the even CTA loads one more).
  return success();
}

/// Checks the ping-pong schedule: sm_90a, two consumers (they take turns),
/// and neither CTA pairs nor multicast (whose CTAs compute a tile in step).
static LogicalResult verifySchedule(GemmOp op, Target target) {
  if (!op.isPingPong())
    return success();
  if (getTargetInfo(target).hasTensorMemory())
    return op.emitOpError() << "schedule pingpong is supported on sm_90a only"
                            << ", not " << stringifyTarget(target)
                            << " (its epilogue warpgroups already overlap "
                               "the MMAs)";
  int64_t consumers = op.getNumConsumerGroups();
  if (consumers != 2)
    return op.emitOpError()
           << "schedule pingpong needs consumers 2 (the consumer warpgroups "
              "take turns), got "
           << consumers;
  if (op.getNumMulticast() != 1 || op.getNumCtas() != 1)
    return op.emitOpError()
           << "schedule pingpong cannot be combined with "
           << (op.getNumMulticast() != 1 ? "multicast " : "ctas ")
           << (op.getNumMulticast() != 1 ? op.getNumMulticast()
                                         : op.getNumCtas())
           << ": the CTAs of a cluster compute their tiles in step";
  return success();
}

/// Checks split-K (`splits`): at least 1 and at most the K steps where K is
/// static; sm_90a only; not with CTA pairs, multicast or ping-pong (whose
/// work items are whole tiles or tiles computed in step).
static LogicalResult verifySplits(GemmOp op, Target target) {
  IntegerAttr attr = op.getSplitsAttr();
  if (!attr)
    return success();
  int64_t splits = attr.getInt();
  if (splits < 1)
    return op.emitOpError() << "splits " << splits
                            << " is not supported: expected at least 1 (the "
                               "K ranges of each tile)";
  int64_t k = op.getK();
  int64_t blockK = op.getBlockK();
  if (!ShapedType::isDynamic(k) && splits > llvm::divideCeilSigned(k, blockK))
    return op.emitOpError()
           << "splits " << splits << " exceeds the "
           << llvm::divideCeilSigned(k, blockK) << " K steps of block_k "
           << blockK << " (K = " << k << "): every K range needs a step";
  if (splits == 1)
    return success();
  if (getTargetInfo(target).hasTensorMemory())
    return op.emitOpError()
           << "splits " << splits << " is supported on sm_90a only, not "
           << stringifyTarget(target);
  if (op.getNumMulticast() != 1 || op.getNumCtas() != 1 || op.isPingPong())
    return op.emitOpError()
           << "splits " << splits << " cannot be combined with "
           << (op.getNumMulticast() != 1 ? "multicast 2"
               : op.getNumCtas() != 1    ? "ctas 2"
                                         : "schedule pingpong")
           << ": a split-K work item is one CTA's tile and K range";
  return success();
}

/// Checks accumulate promotion (`promote_every`): at least 1, for fp8 a
/// and b on sm_90a (whose fp8 wgmma accumulates with reduced precision;
/// tcgen05.mma accumulates in f32), not with the ping-pong schedule.
static LogicalResult verifyPromotion(GemmOp op, Target target) {
  IntegerAttr attr = op.getPromoteEveryAttr();
  if (!attr)
    return success();
  int64_t every = attr.getInt();
  if (every < 1)
    return op.emitOpError() << "promote_every " << every
                            << " is not supported: expected at least 1 (K "
                               "steps per promotion)";
  if (!op.isFp8())
    return op.emitOpError() << "promote_every is for fp8 a and b only, not "
                            << op.getAType().getElementType()
                            << " (16-bit wgmma accumulates in f32)";
  if (getTargetInfo(target).hasTensorMemory())
    return op.emitOpError() << "promote_every is supported on sm_90a only, not "
                            << stringifyTarget(target)
                            << " (tcgen05.mma accumulates fp8 products in "
                               "f32)";
  if (op.isPingPong())
    return op.emitOpError()
           << "promote_every cannot be combined with schedule pingpong: the "
              "consumers' main loops take turns whole, not in groups of K "
              "steps";
  return success();
}

/// Checks swapped operands (`swap_ab`, sm_90a): 16-bit inputs (b is the
/// MMA's A operand, which wgmma reads MN-major from shared memory only for
/// them), one consumer and none of the CTA-pair and ping-pong modes; block_m
/// is the MMA's N and block_n a multiple of its 64 rows of M.
static LogicalResult verifySwapAB(GemmOp op, Target target) {
  if (op.isFp8())
    return op.emitOpError() << "swap_ab is for bf16 and f16 inputs, not "
                            << op.getAType().getElementType();
  if (getTargetInfo(target).hasTensorMemory())
    return op.emitOpError() << "swap_ab is supported on sm_90a only, not "
                            << stringifyTarget(target);
  if (int64_t consumers = op.getNumConsumerGroups(); consumers != 1)
    return op.emitOpError()
           << "swap_ab needs consumers 1 (the consumer's columns of c are "
              "the MMA's M), got "
           << consumers;
  if (op.getNumCtas() != 1 || op.getNumMulticast() != 1 || op.isPingPong())
    return op.emitOpError()
           << "swap_ab cannot be combined with "
           << (op.getNumCtas() != 1        ? "ctas 2"
               : op.getNumMulticast() != 1 ? "multicast 2"
                                           : "schedule pingpong")
           << ": a swapped tile is computed by one consumer of one CTA";
  int64_t blockM = op.getBlockM(), blockN = op.getBlockN();
  if (blockM < limits::kMmaNGranularity || blockM > limits::kMaxMmaN ||
      blockM % limits::kMmaNGranularity != 0)
    return op.emitOpError()
           << "block_m " << blockM << " is not supported with swap_ab: "
           << "expected a multiple of " << limits::kMmaNGranularity << " from "
           << limits::kMmaNGranularity << " to " << limits::kMaxMmaN
           << " (the rows of a are the MMA's N)";
  if (blockN < limits::kWgmmaM || blockN > limits::kMaxMmaN ||
      blockN % limits::kWgmmaM != 0)
    return op.emitOpError()
           << "block_n " << blockN << " is not supported with swap_ab: "
           << "expected a multiple of " << limits::kWgmmaM << " up to "
           << limits::kMaxMmaN << " (the rows of b are the MMA's M, "
           << limits::kWgmmaM << " per wgmma)";
  return success();
}

/// Checks the tile, stages and consumers, then what they need of the target.
static LogicalResult verifyConfig(GemmOp op) {
  int64_t blockN = op.getBlockN();
  if (failed(verifyTileRank(op, op.getTile(), kTileNames)))
    return failure();
  if (op.getSwapAb()) {
    if (failed(verifySwapAB(op, op.getTarget())))
      return failure();
  } else if (failed(verifyBlockM(op, op.getBlockM())) ||
             failed(verifyBlockN(op, blockN, limits::kMmaNGranularity))) {
    return failure();
  }
  int64_t blockK = op.getBlockK();
  Type inType = op.getAType().getElementType();
  int64_t inBytes = getElementBytes(inType);
  int64_t mmaK = limits::kMmaKBytes / inBytes;
  if (blockK <= 0 || blockK % mmaK != 0)
    return op.emitOpError() << "block_k " << blockK
                            << " is not supported: expected a multiple of "
                            << mmaK << " (the MMA K step of "
                            << (op.isFp8() ? "fp8" : "16-bit") << " inputs)";
  int64_t spanBytes = blockK * inBytes;
  Target target = op.getTarget();
  // Two 128-byte spans: each K step's rows move as two TMA boxes.
  bool twoSpans = spanBytes == 2 * limits::kMaxSwizzleBytes;
  if (!twoSpans && (spanBytes > limits::kMaxSwizzleBytes ||
                    !llvm::isPowerOf2_64(static_cast<uint64_t>(spanBytes))))
    return op.emitOpError()
           << "block_k " << blockK << " spans " << spanBytes << " bytes of "
           << inType << ": expected " << limits::kMinSwizzleBytes << ", "
           << 2 * limits::kMinSwizzleBytes << " or " << limits::kMaxSwizzleBytes
           << " bytes (one TMA swizzle span), i.e. block_k "
           << limits::kMinSwizzleBytes / inBytes << ", "
           << 2 * limits::kMinSwizzleBytes / inBytes << " or "
           << limits::kMaxSwizzleBytes / inBytes
           << ", or two 128-byte spans (block_k "
           << 2 * limits::kMaxSwizzleBytes / inBytes << ")";
  if (twoSpans && (op.isFp8() || getTargetInfo(target).hasTensorMemory() ||
                   op.getNumMulticast() != 1 || op.isPingPong()))
    return op.emitOpError()
           << "block_k " << blockK << " spans two 128-byte swizzle spans, "
           << "which needs 16-bit inputs on sm_90a without multicast or "
              "schedule pingpong";
  if (failed(verifyCtas(op, target, blockN)) ||
      failed(verifyMulticast(op, target, blockN)))
    return failure();
  if (failed(verifyStages(op, op.getStagesAttr(), target)) ||
      failed(verifyConsumers(op, op.getConsumersAttr(),
                             getTargetInfo(target).hasWgmma()
                                 ? limits::kMaxSm90ConsumerGroups
                                 : limits::kMaxConsumerGroups)) ||
      failed(verifySchedule(op, target)) || failed(verifySplits(op, target)) ||
      failed(verifyPromotion(op, target)))
    return failure();

  if (failed(verifySharedMemory(op, target, op.getSharedMemoryUsage())))
    return failure();

  // Beyond two consumers ptxas holds a wgmma's accumulator to the registers
  // a thread starts with (limits::kMaxSm90ConsumerGroups).
  int64_t consumers = op.getNumConsumerGroups();
  int64_t ceiling =
      consumers > 2 ? getTargetInfo(target).getStartRegisters(consumers) : 0;
  return verifyAccumulators(
      op, target, op.getConsumerRegisters(),
      [&](raw_ostream &os) {
        os << op.getBlockM() << "x" << blockN << " fp32 tile";
        if (op.getPromoteInterval() > 0)
          os << " x 2 (promote_every: the wgmma chain's and the running sum)";
        os << " + " << limits::kSm90GemmReservedRegisters
           << " for addresses and loop state";
        if (op.hasColumnScales())
          os << " + " << blockN / 4 << " for per-column scales";
      },
      op.getTmemColumns(),
      [&](raw_ostream &os) {
        os << consumers << " consumer tiles x 2 x " << blockN
           << " double-buffered fp32 accumulator columns";
      },
      consumers, ceiling);
}

LogicalResult GemmOp::verify() {
  if (failed(verifyStructure(*this)) || failed(verifyElementTypes(*this)) ||
      failed(verifySizes(*this)))
    return failure();
  return verifyConfig(*this);
}
