//===- Patterns.h - The pattern sets of convert-ws-to-nvvm ------*- C++ -*-===//
//
// Part of fmha. The type conversions and patterns convert-ws-to-nvvm
// assembles, one set per file: the compute ops of sm90 kernels (tensors in
// registers and shared memory, wgmma, epilogue stores; TileToNVVM.cpp,
// RegisterOps.cpp, RegisterMemoryOps.cpp, TransposeShared.cpp) and the sm100
// ops (tensor-memory allocation and buffers, tcgen05.mma with its descriptors,
// tcgen05.commit arrivals, and tcgen05.ld and tcgen05.st of the 32x32b register
// layout; TCGen05ToNVVM.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_LIB_CONVERSION_WSTONVVM_PATTERNS_H
#define FMHA_LIB_CONVERSION_WSTONVVM_PATTERNS_H

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
class ConversionPatternRewriter;

namespace ws {
class MBarrierArriveOp;

//===----------------------------------------------------------------------===//
// Tile compute ops (sm90)
//===----------------------------------------------------------------------===//

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
/// Patterns of TransposeShared.cpp: ws.transpose_shared.
void populateTransposeSharedPatterns(const LLVMTypeConverter &converter,
                                     RewritePatternSet &patterns);

//===----------------------------------------------------------------------===//
// Tensor memory and tcgen05 (sm100)
//===----------------------------------------------------------------------===//

/// Teaches `converter` the sm100 types: a tensor-memory buffer (a memref in
/// `#ws.tmem`) and a tensor in tensor memory (`#tile.tmem`) become their
/// 32-bit TMEM address (lane in the high half, column in the low half).
void populateTCGen05TypeConversions(LLVMTypeConverter &converter);

/// Patterns lowering the sm100 ops.
void populateTCGen05ToNVVMPatterns(const LLVMTypeConverter &converter,
                                   RewritePatternSet &patterns);

/// Replaces the tcgen05 arrival `op` (`ws.mbarrier_arrive ... tcgen05`) on
/// the mbarrier at `barrier` with a tcgen05.commit: the barrier completes an
/// arrival when the issuing thread's earlier tcgen05 ops are done. In 2-CTA
/// mode `tcgen05.commit.cta_group::2` multicast to the barrier at the same
/// offset in both CTAs of the pair (CTA mask 0b11); with `multicast` (TMA
/// multicast kernels) `tcgen05.commit.cta_group::1` multicast to both CTAs of
/// the cluster.
void replaceWithTCGen05Commit(MBarrierArriveOp op, Value barrier,
                              ConversionPatternRewriter &rewriter);

} // namespace ws
} // namespace mlir

#endif // FMHA_LIB_CONVERSION_WSTONVVM_PATTERNS_H
