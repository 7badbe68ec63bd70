//===- VerifyUtils.h - Checks shared by the fmha ops ------------*- C++ -*-===//
//
// Part of fmha. Helpers for the verifiers and accessors of fmha.attention and
// fmha.gemm: signature checks (ranks, element types, sizes) and configuration
// checks (tile, stages, consumers, on-chip resources). Each helper emits one
// diagnostic that names the limit it checks and the numbers involved.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_DIALECT_FMHA_IR_VERIFYUTILS_H
#define LIB_DIALECT_FMHA_IR_VERIFYUTILS_H

#include "fmha/Dialect/FMHA/IR/FMHADialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>

namespace mlir {
namespace fmha {
namespace checks {

//===----------------------------------------------------------------------===//
// Signature
//===----------------------------------------------------------------------===//

/// Returns input `index` of `type` as a ranked tensor of rank `rank`, or null
/// when there is no such input or it is not such a tensor.
RankedTensorType getInputTensor(FunctionType type, unsigned index,
                                int64_t rank);
/// Same for result `index`.
RankedTensorType getResultTensor(FunctionType type, unsigned index,
                                 int64_t rank);

/// A tensor of a kernel signature and the name of each of its dimensions.
struct NamedTensor {
  /// How the verifier calls the tensor: "q", "a", ...
  StringRef name;
  /// The tensor's type as written in the signature (any type).
  Type type;
  /// The names of its dimensions, outermost first; their number is the rank
  /// the tensor must have.
  ArrayRef<StringRef> dims;
};

/// Checks the rank of each of `tensors` (verifyTensorRank), then their
/// static sizes (verifyStaticSizes).
LogicalResult verifyTensors(Operation *op, ArrayRef<NamedTensor> tensors);

/// Checks that `tensor.type` is a ranked tensor of the expected rank:
/// "q must be a rank-4 tensor [batch, heads_q, seq_q, head_dim], got ...".
LogicalResult verifyTensorRank(Operation *op, const NamedTensor &tensor);

/// Checks that every static dimension of `tensor` (already known to be
/// ranked) is positive ("k heads_kv is 0; sizes must be positive or dynamic
/// (?)") and fits the kernel's i32 size parameters (limits::kMaxProblemSize,
/// which is also below what TMA addresses).
LogicalResult verifyStaticSizes(Operation *op, const NamedTensor &tensor);

/// Checks that `type` is a supported MMA input element type (bf16, f16), and
/// rejects fp8 with its own message.
LogicalResult verifyInputElementType(Operation *op, StringRef name, Type type);

/// Checks that `type` (the element type of tensor `name`) equals `expected`
/// (the element type of tensor `expectedName`).
LogicalResult verifySameElementType(Operation *op, StringRef name, Type type,
                                    StringRef expectedName, Type expected);

/// Checks that two sizes of the same quantity agree where both are static:
/// "k batch 4 does not match q batch 2".
LogicalResult verifySameSize(Operation *op, StringRef dim, StringRef name,
                             int64_t size, StringRef expectedName,
                             int64_t expected);

/// The first static size among `sizes`, or ShapedType::kDynamic.
int64_t mergeSizes(std::initializer_list<int64_t> sizes);

/// Dimension `dim` of `type`, or ShapedType::kDynamic when `type` is null or
/// has no such dimension.
int64_t getDimOrDynamic(RankedTensorType type, unsigned dim);

/// Dimension `dim` of the first of `types` where it is static, or
/// ShapedType::kDynamic.
int64_t mergeDims(unsigned dim, std::initializer_list<RankedTensorType> types);

/// Checks that a row of `rowElements` elements of `elementType` (where the
/// size is static) is a multiple of 16 bytes, as TMA needs for the row stride:
/// "rows of A are 2002 bytes; TMA needs a multiple of 16 (pad K to a multiple
/// of 8)".
LogicalResult verifyTmaRowStride(Operation *op, StringRef tensorName,
                                 StringRef dimName, int64_t rowElements,
                                 Type elementType);

/// Bytes of one element of `type` (2 for bf16/f16, 4 for f32); 2 for types
/// without a bit width (or null) so that accessors stay safe on invalid IR.
int64_t getElementBytes(Type type);
/// Elements of one row piece a plain 16-byte load or store of 16-bit
/// elements moves (tile-assign-layouts' #tile.blocked).
constexpr int64_t kBlockedRowVector = 8;
/// The rows one repetition of #tile.blocked covers for rows of `headDim`
/// 16-bit elements: 128 threads over as many lanes per row as fill a warp
/// or the row; 1 when `headDim` is dynamic or not a multiple of
/// kBlockedRowVector.
int64_t getBlockedLayoutRows(int64_t headDim);

/// Prints `size`, or `?` when it is dynamic.
std::string formatSize(int64_t size);

/// Checks the head_dim of a kernel that moves rows in 16-byte pieces: static
/// (`where` names the tensors that may give it: "in v or vt"), a multiple
/// of `granule` elements and at most `maxHeadDim`.
LogicalResult verifyRowHeadDim(Operation *op, int64_t headDim, StringRef where,
                               int64_t granule, int64_t maxHeadDim);
/// Checks the sizes of a grid of (blocks, `headsName`, batch): heads and
/// batch, where static, at most the grid's y and z limit.
LogicalResult verifyHeadsBatchGrid(Operation *op, StringRef headsName,
                                   int64_t heads, int64_t batch);

//===----------------------------------------------------------------------===//
// Configuration
//===----------------------------------------------------------------------===//

/// Size `index` of a `tile` option with a size for each of `names`; none
/// when the option is absent or has another number of sizes (which the
/// verifier reports).
std::optional<int64_t> getTileSize(std::optional<ArrayRef<int64_t>> tile,
                                   ArrayRef<StringRef> names, unsigned index);

/// Checks that `tile`, when given, has `names.size()` entries:
/// "tile needs 2 sizes [block_m, block_n], got 3".
LogicalResult verifyTileRank(Operation *op,
                             std::optional<ArrayRef<int64_t>> tile,
                             ArrayRef<StringRef> names);

/// Checks that block_m is 64 or 128.
LogicalResult verifyBlockM(Operation *op, int64_t blockM);

/// Checks that block_n is a multiple of `multiple` from `multiple` to
/// limits::kMaxMmaN.
LogicalResult verifyBlockN(Operation *op, int64_t blockN, int64_t multiple);

/// Checks that `stages` (when given) is within [1, limits::kMaxStages], and
/// at least limits::kSm90MinStages on sm_90a.
LogicalResult verifyStages(Operation *op, IntegerAttr stages, Target target);

/// The fewest stages a kernel for `target` may have.
int64_t getMinStages(Target target);

/// Checks that `consumers` (when given) is from 1 to `most`.
LogicalResult verifyConsumers(Operation *op, IntegerAttr consumers,
                              int64_t most = limits::kMaxConsumerGroups);

/// Checks that `usage` fits in the shared memory of `target`:
/// "needs N bytes of shared memory (A .., B .., ...), sm_90a has 232448".
LogicalResult verifySharedMemory(Operation *op, Target target,
                                 const SharedMemoryUsage &usage);

/// Checks that the `registers` a consumer thread needs fit in the most
/// registers `target` can give each of `consumers` consumer warpgroups
/// (fmha::TargetInfo::getMaxConsumerRegisters), and in `ceiling` when it is
/// not 0; `parts` says what they hold, e.g. "128x256 fp32 tile + 8 for
/// addresses and loop state".
LogicalResult verifyConsumerRegisters(Operation *op, Target target,
                                      int64_t registers, StringRef parts,
                                      int64_t consumers = 2,
                                      int64_t ceiling = 0);

/// Checks that `columns` tensor memory columns fit in the tensor memory of
/// `target`; `parts` describes where they come from.
LogicalResult verifyTmemColumns(Operation *op, Target target, int64_t columns,
                                StringRef parts);

/// Checks what the consumers' accumulators need of `target`: on sm_90a the
/// `registers` of a consumer thread of `consumers`, within `ceiling` when it
/// is not 0 (verifyConsumerRegisters), on sm_100a the tensor memory
/// `columns` (verifyTmemColumns); `describeRegisters` and `describeColumns`
/// write what they hold.
LogicalResult
verifyAccumulators(Operation *op, Target target, int64_t registers,
                   function_ref<void(raw_ostream &)> describeRegisters,
                   int64_t columns,
                   function_ref<void(raw_ostream &)> describeColumns,
                   int64_t consumers = 2, int64_t ceiling = 0);

/// The most stages, from `maxStages` down to `minStages`, whose shared memory
/// (`bytesFor(stages)`) fits; `minStages` when none does.
int64_t pickStages(int64_t maxStages, int64_t minStages,
                   function_ref<int64_t(int64_t stages)> bytesFor);

/// Reads an optional I64 configuration attribute, or `defaultValue`.
inline int64_t getIntOr(IntegerAttr attr, int64_t defaultValue) {
  return attr ? attr.getInt() : defaultValue;
}

} // namespace checks
} // namespace fmha
} // namespace mlir

#endif // LIB_DIALECT_FMHA_IR_VERIFYUTILS_H
