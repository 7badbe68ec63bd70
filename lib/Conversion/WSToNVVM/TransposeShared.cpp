//===- TransposeShared.cpp - Byte tiles transposed in shared memory -------===//
//
// Part of fmha. Lowers `ws.transpose_shared`: a role's warps turn a tile of
// one-byte elements, row-major in its swizzled layout, into its transpose,
// row-major in another (fp8 attention's V^T, which the P V wgmma reads
// K-major).
//
// A warp step moves 16 source rows x 32 bytes, as 16-bit elements (byte
// pairs): one `ldmatrix.x4.trans` gives lane 4 c + q, in each of four
// registers, bytes 2 c and 2 c + 1 of two source rows (2 q and 2 q + 1 of
// an 8-row matrix); two registers of rows four apart in the result's order
// make, by one prmt each, the 4-byte words of result rows 2 c and 2 c + 1
// at columns 4 q .. 4 q + 3; one `stmatrix.x4` stores them, each 8x8
// matrix's rows at addresses its lanes give. The rows each ldmatrix
// address reads are the k_quad16 order's (keys 0..7 and 8..15 of the
// group), so the permutation costs nothing. Both sides are free of bank
// conflicts: an 8x8 matrix's eight rows of 16 bytes fall in eight lines
// of the swizzle (on the stores, lanes of c >= 4 swap their two rows). A
// warp walks the groups of rows `warp, warp + warps, ...` and every
// column run of each; the addresses move by constants or one xor from
// the lane's first ones.
//
//===----------------------------------------------------------------------===//

#include "BranchUtils.h"
#include "Lowering.h"
#include "Patterns.h"
#include "Values.h"

#include "fmha/Dialect/Tile/IR/TileDialect.h"
#include "fmha/Dialect/WS/IR/WSDialect.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::ws;

/// Matrices of one ldmatrix / stmatrix (x4): 8x8 of 16-bit elements each.
static constexpr int64_t kMatrices = 4;

/// `prmt.b32 d, a, b, selector`: byte k of d is byte selector[k] of the
/// eight bytes of {b, a}.
static Value permuteBytes(OpBuilder &b, Location loc, Value lo, Value hi,
                          Value selector) {
  return inlinePtx(b, loc, b.getI32Type(), ValueRange{lo, hi, selector},
                   "prmt.b32 $0, $1, $2, $3;", "=r,r,r,r",
                   /*sideEffects=*/false);
}

/// ws.transpose_shared -> per warp step one ldmatrix.x4.trans, four prmt
/// and one stmatrix.x4 (see the file comment).
static LogicalResult lowerTransposeShared(TransposeSharedOp op,
                                          TransposeSharedOp::Adaptor adaptor,
                                          ConversionPatternRewriter &b) {
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  auto source = cast<RankedTensorType>(op.getSource().getType());
  auto from = cast<tile::NvmmaSharedAttr>(source.getEncoding());
  tile::NvmmaSharedAttr to = op.getLayout();
  int64_t rows = source.getShape()[0], cols = source.getShape()[1];
  int64_t swIn = from.getSwizzle(), swOut = to.getSwizzle();
  int64_t groups = rows / tile::kTransposeRowGroup,
          runs = cols / tile::kTransposeColumnBytes, warps = op.getWarps();
  auto c = [&](int64_t value) { return i32Const(b, loc, value); };
  auto add = [&](Value x, Value y) {
    return LLVM::AddOp::create(b, loc, x, y);
  };
  auto mul = [&](Value x, int64_t y) {
    return LLVM::MulOp::create(b, loc, x, c(y));
  };
  auto bits = [&](Value x, int64_t shift, int64_t mask) -> Value {
    Value shifted = shift ? LLVM::LShrOp::create(b, loc, x, c(shift)) : x;
    return LLVM::AndOp::create(b, loc, shifted, c(mask));
  };
  Value src = adaptor.getSource();
  Value dst = MemRefDescriptor(adaptor.getBuffer()).alignedPtr(b, loc);
  Type i8 = b.getI8Type(), i32 = b.getI32Type();

  // The offsets are computed here, from the thread index passed through an
  // opaque move: hoisted out of the role's loop they would each hold a
  // register across it.
  Value thread = opaqueMove(b, loc, adaptor.getThread());
  Value lane = bits(thread, 0, 31);
  Value warp = LLVM::LShrOp::create(b, loc, thread, c(5));

  // ldmatrix: lane l gives row l % 8 of matrix l / 8; matrices 0 and 1
  // hold keys 0..7 and 8..15 of the group at bytes 0..15 of the run, 2 and
  // 3 the same keys at bytes 16..31. Lane 4 c + q then holds, in each
  // register, bytes 2 c and 2 c + 1 of rows 2 q and 2 q + 1 of a matrix:
  // keys 2 q, 2 q + 1 and 2 q + 8, 2 q + 9, those of positions 4 q to
  // 4 q + 3 in the k_quad16 order.
  Value row = bits(lane, 0, 7);
  Value key = add(mul(bits(lane, 3, 1), 8), row);
  Value sourceOffset = swizzledByteOffset(
      b, loc, key, mul(LLVM::LShrOp::create(b, loc, lane, c(4)), 16), from,
      rows);
  // stmatrix: lane l gives row c = l % 8 of matrix m = l / 8, whose
  // register m holds, in lanes 4 c .. 4 c + 3, result row 2 c + (m % 2)
  // (+ 16 for m >= 2), or for c >= 4 row 2 c + 1 - (m % 2): the eight rows
  // of each matrix then fall in eight different lines of the swizzle.
  Value upper = LLVM::ZExtOp::create(
      b, loc, i32,
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::uge, row, c(4)));
  Value matrix = LLVM::LShrOp::create(b, loc, lane, c(3));
  Value resultRow = add(add(mul(bits(matrix, 1, 1), 16), mul(row, 2)),
                        LLVM::XOrOp::create(b, loc, bits(matrix, 0, 1), upper));
  Value resultOffset = swizzledByteOffset(b, loc, resultRow, c(0), to, cols);
  // The words of result rows 2 c and 2 c + 1 from a register of A and one
  // of B: bytes 0 and 2, or 1 and 3, of each; swapped where c >= 4.
  Value lanesUpper =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::uge,
                           LLVM::LShrOp::create(b, loc, lane, c(2)), c(4));
  Value evenBytes = c(0x6420), oddBytes = c(0x7531);
  Value first = LLVM::SelectOp::create(b, loc, lanesUpper, oddBytes, evenBytes);
  Value second =
      LLVM::SelectOp::create(b, loc, lanesUpper, evenBytes, oddBytes);

  auto shape = NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8);
  auto quad =
      LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(kMatrices, i32));
  auto step = [&](Value group) {
    // Group g: source rows 16 g.. (a multiple of the swizzle's 8-row
    // pattern: a constant distance), result columns 16 g.. (a chunk of a
    // span or another span: one xor and a distance).
    Value sourceBase =
        add(sourceOffset, mul(group, tile::kTransposeRowGroup * swIn));
    Value columnBytes = mul(group, tile::kTransposeRowGroup);
    Value resultBase = add(
        LLVM::XOrOp::create(
            b, loc, resultOffset,
            LLVM::AndOp::create(b, loc, columnBytes, c(swOut - 1))),
        mul(LLVM::UDivOp::create(b, loc, columnBytes, c(swOut)), cols * swOut));
    for (int64_t run = 0; run < runs; ++run) {
      // Run r: source columns 32 r.. (an xor within a span, a distance
      // between spans), result rows 32 r.. (a constant distance).
      int64_t columns = run * tile::kTransposeColumnBytes;
      int64_t within = columns % swIn, spans = columns / swIn * rows * swIn;
      Value offset =
          within
              ? LLVM::XOrOp::create(b, loc, sourceBase, c(within)).getResult()
              : sourceBase;
      Value loadAt = LLVM::GEPOp::create(b, loc, src.getType(), i8, src,
                                         ValueRange{add(offset, c(spans))});
      Value loaded = NVVM::LdMatrixOp::create(b, loc, quad, loadAt, kMatrices,
                                              NVVM::MMALayout::col, shape,
                                              NVVM::LdStMatrixEltType::B16);
      Value regs[kMatrices];
      for (int64_t m = 0; m < kMatrices; ++m)
        regs[m] = LLVM::ExtractValueOp::create(b, loc, loaded, m);
      SmallVector<Value, kMatrices> words = {
          permuteBytes(b, loc, regs[0], regs[1], first),
          permuteBytes(b, loc, regs[0], regs[1], second),
          permuteBytes(b, loc, regs[2], regs[3], first),
          permuteBytes(b, loc, regs[2], regs[3], second)};
      Value storeAt =
          LLVM::GEPOp::create(b, loc, dst.getType(), i8, dst,
                              ValueRange{add(resultBase, c(columns * swOut))});
      NVVM::StMatrixOp::create(b, loc, storeAt, words, NVVM::MMALayout::row,
                               shape, NVVM::LdStMatrixEltType::B16);
    }
  };
  for (int64_t k = 0; k * warps < groups; ++k) {
    Value group = add(warp, c(k * warps));
    if ((k + 1) * warps <= groups) {
      step(group);
      continue;
    }
    Value inside = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, group,
                                        c(groups));
    emitIf(b, loc, inside, [&] { step(group); });
  }
  b.eraseOp(op);
  return success();
}

void ws::populateTransposeSharedPatterns(const LLVMTypeConverter &converter,
                                         RewritePatternSet &patterns) {
  addLowerings(patterns, converter, lowerTransposeShared);
}
