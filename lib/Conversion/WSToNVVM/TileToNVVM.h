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
/// struct with one struct per m64nN fragment), a row vector laid out by
/// `#tile.slice<dim = 1>` of it the values of the thread's rows (a struct of
/// 2 per m64 row repetition), a tensor in shared memory
/// (`#tile.nvmma_shared`) becomes the address of its buffer.
void populateTileTypeConversions(LLVMTypeConverter &converter);

/// Patterns lowering tile and ws compute ops of sm90 kernels.
void populateTileToNVVMPatterns(const LLVMTypeConverter &converter,
                                RewritePatternSet &patterns);

//===----------------------------------------------------------------------===//
// Register tensors of one warpgroup (shared by the lowering patterns)
//===----------------------------------------------------------------------===//

/// The register fragments of a `#tile.wgmma_acc` tensor in one warpgroup:
/// `count` m64 x instr_n fragments of `values` values each, fragment index
/// `mr * (N / instr_n) + nr`. Value v of a fragment is row
/// `8 * ((v / 2) % 2)` and column `8 * (v / 4) + v % 2` relative to the
/// thread's first element (see `#tile.wgmma_acc`).
struct Fragments {
  int64_t rowReps, colReps, instrN, values;
  int64_t count() const { return rowReps * colReps; }
};

/// The fragments of a `#tile.wgmma_acc` tensor over one warpgroup.
std::optional<Fragments> getFragments(RankedTensorType type);

/// For a row vector laid out by `#tile.slice<dim = 1>` of a one-warpgroup
/// `#tile.wgmma_acc`: the values each thread holds, 2 per m64 row
/// repetition. Value `2 * mr + h` is row `64 * mr + 8 * h` relative to the
/// thread's first row (the value is replicated in the 4 lanes of a quad).
std::optional<int64_t> getSliceRowValues(RankedTensorType type);

/// Where each register of a register tensor (`#tile.wgmma_acc` or a row
/// `#tile.slice` of it) sits in its converted struct: `{fragment, value}`
/// or `{value}`.
std::optional<SmallVector<SmallVector<int64_t, 2>>>
getRegisterPositions(RankedTensorType type);

/// Patterns of RegisterOps.cpp: tile.reduce, tile.broadcast, tile.iota,
/// tensor.splat, tile.convert_layout and tile.store_direct on register
/// tensors.
void populateRegisterOpPatterns(const LLVMTypeConverter &converter,
                                RewritePatternSet &patterns);

} // namespace ws
} // namespace mlir

#endif // FMHA_LIB_CONVERSION_WSTONVVM_TILETONVVM_H
