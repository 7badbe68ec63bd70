//===- VerifyUtils.cpp - Checks the fmha kernel ops share -----------------===//
//
// Part of fmha. Signature and configuration checks shared by the verifiers
// of fmha.attention and fmha.gemm.
//
//===----------------------------------------------------------------------===//

#include "VerifyUtils.h"

#include "fmha/Target/TargetLimits.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::fmha;
using namespace mlir::fmha::checks;

//===----------------------------------------------------------------------===//
// Signature
//===----------------------------------------------------------------------===//

static RankedTensorType getTensorOfRank(TypeRange types, unsigned index,
                                        int64_t rank) {
  if (index >= types.size())
    return {};
  auto tensor = dyn_cast<RankedTensorType>(types[index]);
  if (!tensor || tensor.getRank() != rank)
    return {};
  return tensor;
}

RankedTensorType checks::getInputTensor(FunctionType type, unsigned index,
                                        int64_t rank) {
  return getTensorOfRank(type.getInputs(), index, rank);
}

RankedTensorType checks::getResultTensor(FunctionType type, unsigned index,
                                         int64_t rank) {
  return getTensorOfRank(type.getResults(), index, rank);
}

LogicalResult checks::verifyTensors(Operation *op,
                                    ArrayRef<NamedTensor> tensors) {
  for (const NamedTensor &tensor : tensors)
    if (failed(verifyTensorRank(op, tensor)))
      return failure();
  for (const NamedTensor &tensor : tensors)
    if (failed(verifyStaticSizes(op, tensor)))
      return failure();
  return success();
}

LogicalResult checks::verifyTensorRank(Operation *op,
                                       const NamedTensor &tensor) {
  auto ranked = dyn_cast<RankedTensorType>(tensor.type);
  if (ranked && ranked.getRank() == static_cast<int64_t>(tensor.dims.size()))
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << tensor.name << " must be a rank-"
                            << tensor.dims.size() << " tensor [";
  llvm::interleaveComma(tensor.dims, diag);
  return diag << "], got " << tensor.type;
}

LogicalResult checks::verifyStaticSizes(Operation *op,
                                        const NamedTensor &tensor) {
  auto ranked = cast<RankedTensorType>(tensor.type);
  for (auto [size, dim] : llvm::zip(ranked.getShape(), tensor.dims)) {
    if (size == 0)
      return op->emitOpError()
             << tensor.name << " " << dim
             << " is 0; sizes must be positive or dynamic (?)";
    // The kernel takes the sizes as i32 (and the manifest lists them so);
    // this also keeps them below TMA's limit (2^32 per dimension).
    static_assert(limits::kMaxProblemSize < limits::kTmaMaxDimSize);
    if (!ShapedType::isDynamic(size) && size > limits::kMaxProblemSize)
      return op->emitOpError()
             << tensor.name << " " << dim << " " << size
             << " is too large: sizes are i32 in the kernel and its manifest, "
                "at most "
             << limits::kMaxProblemSize;
  }
  return success();
}

LogicalResult checks::verifyInputElementType(Operation *op, StringRef name,
                                             Type type) {
  if (type.isBF16() || type.isF16())
    return success();
  if (isa<Float8E4M3FNType>(type))
    return op->emitOpError()
           << name << ": fp8 (f8E4M3FN) is not supported yet: expected bf16 "
           << "or f16";
  return op->emitOpError() << name << " element type " << type
                           << " is not supported: expected bf16 or f16";
}

LogicalResult checks::verifySameElementType(Operation *op, StringRef name,
                                            Type type, StringRef expectedName,
                                            Type expected) {
  if (type == expected)
    return success();
  return op->emitOpError() << name << " element type " << type
                           << " does not match " << expectedName
                           << " element type " << expected;
}

LogicalResult checks::verifySameSize(Operation *op, StringRef dim,
                                     StringRef name, int64_t size,
                                     StringRef expectedName, int64_t expected) {
  if (ShapedType::isDynamic(size) || ShapedType::isDynamic(expected) ||
      size == expected)
    return success();
  return op->emitOpError() << name << " " << dim << " " << size
                           << " does not match " << expectedName << " " << dim
                           << " " << expected;
}

LogicalResult checks::verifyRowHeadDim(Operation *op, int64_t headDim,
                                       StringRef where, int64_t granule,
                                       int64_t maxHeadDim) {
  if (ShapedType::isDynamic(headDim))
    return op->emitOpError() << "head_dim must be static (" << where << ")";
  if (headDim % granule != 0 || headDim > maxHeadDim)
    return op->emitOpError()
           << "head_dim " << headDim
           << " is not supported: expected a multiple of " << granule
           << " (rows move in 16-byte pieces) up to " << maxHeadDim;
  return success();
}

LogicalResult checks::verifyHeadsBatchGrid(Operation *op, StringRef headsName,
                                           int64_t heads, int64_t batch) {
  for (auto [name, size] :
       {std::pair<StringRef, int64_t>{headsName, heads}, {"batch", batch}})
    if (!ShapedType::isDynamic(size) && size > limits::kMaxGridYZ)
      return op->emitOpError()
             << name << " " << size << " is too large: the grid has "
             << headsName << " CTAs along y and batch along z, at most "
             << limits::kMaxGridYZ;
  return success();
}

int64_t checks::mergeSizes(std::initializer_list<int64_t> sizes) {
  for (int64_t size : sizes)
    if (!ShapedType::isDynamic(size))
      return size;
  return ShapedType::kDynamic;
}

int64_t checks::getDimOrDynamic(RankedTensorType type, unsigned dim) {
  if (!type || dim >= type.getRank())
    return ShapedType::kDynamic;
  return type.getDimSize(dim);
}

int64_t checks::mergeDims(unsigned dim,
                          std::initializer_list<RankedTensorType> types) {
  for (RankedTensorType type : types)
    if (int64_t size = getDimOrDynamic(type, dim); !ShapedType::isDynamic(size))
      return size;
  return ShapedType::kDynamic;
}

LogicalResult checks::verifyTmaRowStride(Operation *op, StringRef tensorName,
                                         StringRef dimName, int64_t rowElements,
                                         Type elementType) {
  if (ShapedType::isDynamic(rowElements))
    return success();
  int64_t elementBytes = getElementBytes(elementType);
  int64_t rowBytes = rowElements * elementBytes;
  if (rowBytes % limits::kTmaStrideAlignmentBytes == 0)
    return success();
  return op->emitOpError() << "rows of " << tensorName << " are " << rowBytes
                           << " bytes; TMA needs a multiple of "
                           << limits::kTmaStrideAlignmentBytes << " (pad "
                           << dimName << " to a multiple of "
                           << limits::kTmaStrideAlignmentBytes / elementBytes
                           << ")";
}

int64_t checks::getBlockedLayoutRows(int64_t headDim) {
  if (ShapedType::isDynamic(headDim) || headDim <= 0 ||
      headDim % kBlockedRowVector)
    return 1;
  int64_t lanes = 32;
  while ((headDim / kBlockedRowVector) % lanes != 0)
    lanes /= 2;
  return 4 * 32 / lanes;
}

int64_t checks::getElementBytes(Type type) {
  if (!type || !type.isIntOrFloat() || type.getIntOrFloatBitWidth() < 8)
    return 2;
  return type.getIntOrFloatBitWidth() / 8;
}

std::string checks::formatSize(int64_t size) {
  if (ShapedType::isDynamic(size))
    return "?";
  return std::to_string(size);
}

//===----------------------------------------------------------------------===//
// Configuration
//===----------------------------------------------------------------------===//

std::optional<int64_t>
checks::getTileSize(std::optional<ArrayRef<int64_t>> tile,
                    ArrayRef<StringRef> names, unsigned index) {
  if (!tile || tile->size() != names.size())
    return std::nullopt;
  return (*tile)[index];
}

LogicalResult checks::verifyTileRank(Operation *op,
                                     std::optional<ArrayRef<int64_t>> tile,
                                     ArrayRef<StringRef> names) {
  if (!tile || tile->size() == names.size())
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << "tile needs " << names.size() << " sizes [";
  llvm::interleaveComma(names, diag);
  return diag << "], got " << tile->size();
}

LogicalResult checks::verifyBlockM(Operation *op, int64_t blockM) {
  if (blockM == limits::kWgmmaM || blockM == limits::kMaxBlockM)
    return success();
  return op->emitOpError() << "block_m " << blockM
                           << " is not supported: expected " << limits::kWgmmaM
                           << " or " << limits::kMaxBlockM
                           << " (a wgmma covers " << limits::kWgmmaM
                           << " rows of a warpgroup's tile)";
}

LogicalResult checks::verifyBlockN(Operation *op, int64_t blockN,
                                   int64_t multiple) {
  if (blockN >= multiple && blockN <= limits::kMaxMmaN &&
      blockN % multiple == 0)
    return success();
  return op->emitOpError() << "block_n " << blockN
                           << " is not supported: expected a multiple of "
                           << multiple << " from " << multiple << " to "
                           << limits::kMaxMmaN;
}

int64_t checks::getMinStages(Target target) {
  return getTargetInfo(target).getMinStages();
}

LogicalResult checks::verifyStages(Operation *op, IntegerAttr stages,
                                   Target target) {
  if (!stages)
    return success();
  int64_t value = stages.getInt();
  if (value < 1 || value > limits::kMaxStages)
    return op->emitOpError()
           << "stages " << value << " is out of range: expected 1 to "
           << limits::kMaxStages;
  if (value < getMinStages(target))
    return op->emitOpError()
           << "stages " << value << " is not supported on "
           << stringifyTarget(target) << ": expected at least "
           << getMinStages(target)
           << " (a consumer releases a slot only after it has waited for the "
              "next one)";
  return success();
}

LogicalResult checks::verifyConsumers(Operation *op, IntegerAttr consumers,
                                      int64_t most) {
  if (!consumers)
    return success();
  int64_t value = consumers.getInt();
  if (value >= 1 && value <= most)
    return success();
  return op->emitOpError() << "consumers " << value
                           << " is not supported: expected 1"
                           << (most == 2 ? " or " : " to ") << most
                           << " consumer warpgroups";
}

LogicalResult checks::verifySharedMemory(Operation *op, Target target,
                                         const SharedMemoryUsage &usage) {
  int64_t total = usage.getTotalBytes();
  int64_t limit = getTargetInfo(target).getMaxSharedMemoryBytes();
  if (total <= limit)
    return success();
  std::string parts;
  llvm::raw_string_ostream os(parts);
  usage.printParts(os);
  return op->emitOpError() << "needs " << total << " bytes of shared memory ("
                           << parts << "), " << stringifyTarget(target)
                           << " has " << limit;
}

LogicalResult checks::verifyConsumerRegisters(Operation *op, Target target,
                                              int64_t registers,
                                              StringRef parts,
                                              int64_t consumers,
                                              int64_t ceiling) {
  const TargetInfo &info = getTargetInfo(target);
  int64_t budget = info.getMaxConsumerRegisters(consumers);
  if (ceiling)
    budget = std::min(budget, ceiling);
  if (registers <= budget)
    return success();
  InFlightDiagnostic diag = op->emitOpError();
  diag << "consumer warpgroup needs " << registers << " registers per thread ("
       << parts << "), " << stringifyTarget(target)
       << " consumer warpgroups get at most " << budget;
  if (consumers > 2)
    return diag << " with " << consumers << " of them";
  return diag << " (setmaxnreg, the producer at "
              << info.getProducerRegisters(budget, consumers) << ")";
}

LogicalResult checks::verifyTmemColumns(Operation *op, Target target,
                                        int64_t columns, StringRef parts) {
  int64_t available = getTargetInfo(target).getTensorMemoryColumns();
  if (columns <= available)
    return success();
  return op->emitOpError() << "needs " << columns << " tensor memory columns ("
                           << parts << "), " << stringifyTarget(target)
                           << " has " << available;
}

LogicalResult
checks::verifyAccumulators(Operation *op, Target target, int64_t registers,
                           function_ref<void(raw_ostream &)> describeRegisters,
                           int64_t columns,
                           function_ref<void(raw_ostream &)> describeColumns,
                           int64_t consumers, int64_t ceiling) {
  std::string parts;
  llvm::raw_string_ostream os(parts);
  if (getTargetInfo(target).accumulatesInTensorMemory()) {
    describeColumns(os);
    return verifyTmemColumns(op, target, columns, parts);
  }
  describeRegisters(os);
  return verifyConsumerRegisters(op, target, registers, parts, consumers,
                                 ceiling);
}

int64_t checks::pickStages(int64_t maxStages, int64_t minStages,
                           function_ref<int64_t(int64_t stages)> bytesFor) {
  for (int64_t stages = maxStages; stages > minStages; --stages)
    if (bytesFor(stages) <= limits::kMaxSharedMemoryBytes)
      return stages;
  return minStages;
}
