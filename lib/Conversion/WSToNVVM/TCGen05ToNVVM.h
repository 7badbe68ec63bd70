//===- TCGen05ToNVVM.h - Tensor memory and tcgen05 to NVVM (sm100) *- C++
//-*-===//
//
// Part of fmha. The sm100 half of convert-ws-to-nvvm: tensor-memory
// allocation and buffers, tcgen05.mma with its descriptors, tcgen05.commit
// arrivals, and tcgen05.ld and tcgen05.st of the 32x32b register layout.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_LIB_CONVERSION_WSTONVVM_TCGEN05TONVVM_H
#define FMHA_LIB_CONVERSION_WSTONVVM_TCGEN05TONVVM_H

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace ws {

/// Teaches `converter` the sm100 types: a tensor-memory buffer (a memref in
/// `#ws.tmem`) and a tensor in tensor memory (`#tile.tmem`) become their
/// 32-bit TMEM address (lane in the high half, column in the low half).
void populateTCGen05TypeConversions(LLVMTypeConverter &converter);

/// Patterns lowering the sm100 ops.
void populateTCGen05ToNVVMPatterns(const LLVMTypeConverter &converter,
                                   RewritePatternSet &patterns);

} // namespace ws
} // namespace mlir

#endif // FMHA_LIB_CONVERSION_WSTONVVM_TCGEN05TONVVM_H
