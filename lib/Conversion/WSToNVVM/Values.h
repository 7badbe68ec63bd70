//===- Values.h - Small values the WS-to-NVVM patterns build ----*- C++ -*-===//
//
// Part of fmha. Constants and addresses that patterns of every file of
// convert-ws-to-nvvm build.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_LIB_CONVERSION_WSTONVVM_VALUES_H
#define FMHA_LIB_CONVERSION_WSTONVVM_VALUES_H

#include "mlir/IR/Builders.h"

namespace mlir {
namespace tile {
class NvmmaSharedAttr;
} // namespace tile
namespace ws {

/// An i32 constant.
Value i32Const(OpBuilder &b, Location loc, int64_t value);

/// An i64 constant.
Value i64Const(OpBuilder &b, Location loc, int64_t value);

/// The byte offset, in a buffer of `rows` rows laid out as `layout` (row
/// major, swizzled: #tile.nvmma_shared), of the element at `row`, `col`
/// (i32 values).
Value swizzledByteOffset(OpBuilder &b, Location loc, Value row, Value col,
                         tile::NvmmaSharedAttr layout, int64_t rows);

/// Inline PTX `text` with `operands` under `constraints`, returning
/// `result` (null: none); with `sideEffects` LLVM neither drops, merges nor
/// moves it across other side effects.
Value inlinePtx(OpBuilder &b, Location loc, Type result, ValueRange operands,
                StringRef text, StringRef constraints, bool sideEffects = true);

/// `value` (an i32 or i64) through an opaque move (`mov` inline asm with
/// side effects): what is computed from the result is computed where the
/// move is, in a loop's body, rather than hoisted out of the loop by LLVM
/// and kept in a register across it.
Value opaqueMove(OpBuilder &b, Location loc, Value value);

/// The start-address field of an MMA shared-memory descriptor (wgmma or
/// tcgen05.mma) for the i64 shared-memory address `address`, at run time:
/// matrix-descriptor-encode(address) = (address & 0x3FFFF) >> 4, the
/// counterpart of fmha::encodeStartAddress (MMADescriptorAddress.h).
Value buildStartAddress(OpBuilder &b, Location loc, Value address);

/// The address of barrier `index` of the mbarrier array at `barriers`.
Value barrierAt(OpBuilder &b, Location loc, Value barriers, Value index);

/// The address of the barrier an mbarrier op addresses, from the converted
/// operands of its conversion pattern (`barriers` and `index`).
template <typename Adaptor>
Value barrierOf(OpBuilder &b, Location loc, Adaptor adaptor) {
  return barrierAt(b, loc, adaptor.getBarriers(), adaptor.getIndex());
}

struct TMABoxes;

/// Box `box` of a TMA copy of a block that moves as `boxes` (several boxes
/// one swizzle span wide, stored one after the other in shared memory):
/// `coords` (innermost first, as PTX takes them) with the innermost moved
/// by the boxes before it, and `smem` moved by their bytes. Box 0 is
/// `coords` and `smem` as they are.
void tmaBox(OpBuilder &b, Location loc, const TMABoxes &boxes,
            int64_t elementBytes, int64_t box, SmallVectorImpl<Value> &coords,
            Value &smem);

} // namespace ws
} // namespace mlir

#endif // FMHA_LIB_CONVERSION_WSTONVVM_VALUES_H
