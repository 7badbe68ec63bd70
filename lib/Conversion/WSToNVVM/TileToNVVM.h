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

/// Teaches `converter` the tensor types of tile programs: a tensor in a
/// register layout becomes the values one thread holds (see
/// RegisterTensor.h: for `#tile.wgmma_acc`, a struct with one struct per
/// m64nN fragment), a tensor in shared memory (`#tile.nvmma_shared`) the
/// address of its buffer.
void populateTileTypeConversions(LLVMTypeConverter &converter);

/// Patterns lowering tile and ws compute ops of sm90 kernels.
void populateTileToNVVMPatterns(const LLVMTypeConverter &converter,
                                RewritePatternSet &patterns);

/// Patterns of RegisterOps.cpp and RegisterMemoryOps.cpp: tile.reduce,
/// tile.broadcast, tile.iota, tensor.splat and tile.convert_layout on
/// register tensors, and their stores and loads.
void populateRegisterOpPatterns(const LLVMTypeConverter &converter,
                                RewritePatternSet &patterns);

/// Patterns of RegisterMemoryOps.cpp: ws.store_shared, ws.load_shared and
/// tile.store_direct of register tensors.
void populateRegisterMemoryOpPatterns(const LLVMTypeConverter &converter,
                                      RewritePatternSet &patterns);

} // namespace ws
} // namespace mlir

#endif // FMHA_LIB_CONVERSION_WSTONVVM_TILETONVVM_H
