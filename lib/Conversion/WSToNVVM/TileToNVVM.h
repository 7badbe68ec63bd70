//===- TileToNVVM.h - Tile compute ops to NVVM (sm90) -------------*- C++
//-*-===//
//
// Part of fmha. The compute half of convert-ws-to-nvvm: tensors in
// registers and shared memory, wgmma, epilogue stores.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_LIB_CONVERSION_WSTONVVM_TILETONVVM_H
#define FMHA_LIB_CONVERSION_WSTONVVM_TILETONVVM_H

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace ws {

/// Teaches `converter` the tensor types of sm90 tile programs: a tensor with
/// a `#tile.wgmma_acc` layout becomes the registers one thread holds (a
/// struct with one struct per m64nN fragment), a tensor in shared memory
/// (`#tile.nvmma_shared`) becomes the address of its buffer.
void populateTileTypeConversions(LLVMTypeConverter &converter);

/// Patterns lowering tile and ws compute ops of sm90 kernels.
void populateTileToNVVMPatterns(const LLVMTypeConverter &converter,
                                RewritePatternSet &patterns);

} // namespace ws
} // namespace mlir

#endif // FMHA_LIB_CONVERSION_WSTONVVM_TILETONVVM_H
