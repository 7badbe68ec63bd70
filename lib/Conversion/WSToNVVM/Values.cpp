//===- Values.cpp - Small values the WS-to-NVVM patterns build ------------===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#include "Values.h"

#include "fmha/Dialect/Tile/IR/TileDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

Value ws::i32Const(OpBuilder &b, Location loc, int64_t value) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(), value);
}

Value ws::i64Const(OpBuilder &b, Location loc, int64_t value) {
  return LLVM::ConstantOp::create(b, loc, b.getI64Type(), value);
}

Value ws::inlinePtx(OpBuilder &b, Location loc, Type result,
                    ValueRange operands, StringRef text, StringRef constraints,
                    bool sideEffects) {
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, result, operands, text, constraints, sideEffects,
      /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
      LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
      /*operand_attrs=*/ArrayAttr());
  return result ? asmOp.getRes() : Value();
}

Value ws::opaqueMove(OpBuilder &b, Location loc, Value value) {
  bool wide = value.getType().isInteger(64);
  return inlinePtx(b, loc, value.getType(), ValueRange{value},
                   wide ? "mov.b64 $0, $1;" : "mov.b32 $0, $1;",
                   wide ? "=l,l" : "=r,r");
}

Value ws::buildStartAddress(OpBuilder &b, Location loc, Value address) {
  return LLVM::AndOp::create(
      b, loc, LLVM::LShrOp::create(b, loc, address, i64Const(b, loc, 4)),
      i64Const(b, loc, 0x3FFF));
}

Value ws::barrierAt(OpBuilder &b, Location loc, Value barriers, Value index) {
  return LLVM::GEPOp::create(b, loc, barriers.getType(), b.getI64Type(),
                             barriers, ValueRange{index});
}

void ws::tmaBox(OpBuilder &b, Location loc, const TMABoxes &boxes,
                int64_t elementBytes, int64_t box,
                SmallVectorImpl<Value> &coords, Value &smem) {
  if (box == 0)
    return;
  coords[0] = LLVM::AddOp::create(
      b, loc, coords[0],
      i32Const(b, loc, box * boxes.spanBytes / elementBytes));
  smem = LLVM::GEPOp::create(
      b, loc, smem.getType(), b.getI8Type(), smem,
      ArrayRef<LLVM::GEPArg>{int32_t(box * boxes.boxBytes)});
}

/// The byte offset, in a buffer of `rows` rows laid out as `layout` (row
/// major, swizzled), of the element at `row`, `col` (i32 values): the
/// S-byte piece of the row holding the column, the row within that piece's
/// [rows x S bytes] sub-tile, then the 16-byte chunk permuted within its
/// 128-byte line (#tile.nvmma_shared).
Value ws::swizzledByteOffset(OpBuilder &b, Location loc, Value row, Value col,
                             tile::NvmmaSharedAttr layout, int64_t rows) {
  int64_t swizzle = layout.getSwizzle(),
          elementBytes = layout.getElementBits() / 8;
  auto c = [&](int64_t value) { return i32Const(b, loc, value); };
  Value colBytes = LLVM::MulOp::create(b, loc, col, c(elementBytes));
  Value piece = LLVM::UDivOp::create(b, loc, colBytes, c(swizzle));
  Value inPiece = LLVM::URemOp::create(b, loc, colBytes, c(swizzle));
  Value offset = LLVM::AddOp::create(
      b, loc,
      LLVM::AddOp::create(b, loc,
                          LLVM::MulOp::create(b, loc, piece, c(rows * swizzle)),
                          LLVM::MulOp::create(b, loc, row, c(swizzle))),
      inPiece);
  // o xor (((o / 128) % (S / 16)) * 16).
  Value line = LLVM::AndOp::create(
      b, loc, LLVM::LShrOp::create(b, loc, offset, c(7)), c(swizzle / 16 - 1));
  return LLVM::XOrOp::create(b, loc, offset,
                             LLVM::ShlOp::create(b, loc, line, c(4)));
}
