//===- RegisterLayouts.cpp - The register-layout interface ----------------===//
//
// Part of fmha. `RegisterLayoutAttrInterface` on the register layouts: which
// elements of a tensor each thread holds, as the layouts' descriptions in
// TileAttrs.td state them, and the thread's first element built from its
// index at run time.
//
//===----------------------------------------------------------------------===//

#include "fmha/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::tile;

#include "fmha/Dialect/Tile/IR/TileInterfaces.cpp.inc"

/// Threads of a warp and of a warpgroup.
static constexpr int64_t kWarpSize = 32;
static constexpr int64_t kWarpgroupSize = 128;

static Value i32Const(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}

//===----------------------------------------------------------------------===//
// WgmmaAccAttr
//===----------------------------------------------------------------------===//

// Warp w of the layout holds rows 16w .. 16w + 15 of each (64 W)-row tile
// (warpgroup w / 4 rows 64 (w / 4) on, its warp w % 4 16 of them); lane l of
// the warp rows l / 4 and l / 4 + 8, columns 2 (l % 4) + {0, 1} of every 8.

unsigned WgmmaAccAttr::getNumWarps() const { return 4 * getWarpgroups(); }

int64_t WgmmaAccAttr::getValuesPerThread(ArrayRef<int64_t> shape) const {
  return shape[0] * shape[1] / (128 * static_cast<int64_t>(getWarpgroups()));
}

SmallVector<int64_t, 2>
WgmmaAccAttr::getRegisterShape(ArrayRef<int64_t> shape) const {
  // One fragment of instr_n / 2 values per m64nN wgmma tile.
  SmallVector<int64_t, 2> tile = getTileShape();
  return {shape[0] / tile[0] * (shape[1] / tile[1]), tile[1] / 2};
}

SmallVector<int64_t, 2> WgmmaAccAttr::getValueOffsets(ArrayRef<int64_t> shape,
                                                      int64_t value) const {
  SmallVector<int64_t, 2> tile = getTileShape();
  int64_t colReps = shape[1] / tile[1], perFragment = tile[1] / 2;
  int64_t fragment = value / perFragment, v = value % perFragment;
  return {tile[0] * (fragment / colReps) + 8 * ((v / 2) % 2),
          tile[1] * (fragment % colReps) + 8 * (v / 4) + v % 2};
}

int64_t WgmmaAccAttr::getContiguousValues(ArrayRef<int64_t>) const { return 2; }

SmallVector<int64_t, 4> WgmmaAccAttr::getReplicaLaneMasks(unsigned dim) const {
  // The 4 lanes of a quad share rows; lanes 4 apart share columns.
  if (dim == 0)
    return {1, 2};
  return {4, 8, 16};
}

SmallVector<OpFoldResult, 2>
WgmmaAccAttr::buildThreadOrigin(OpBuilder &b, Location loc, ArrayRef<int64_t>,
                                Value thread) const {
  Value warp = arith::DivUIOp::create(b, loc, thread, i32Const(b, loc, 32));
  Value lane = arith::RemUIOp::create(b, loc, thread, i32Const(b, loc, 32));
  // Row 16 w + l / 4 (warps past the first warpgroup go on at row 64),
  // column 2 (l % 4).
  Value row = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, warp, i32Const(b, loc, 16)),
      arith::DivUIOp::create(b, loc, lane, i32Const(b, loc, 4)));
  Value col = arith::MulIOp::create(
      b, loc, arith::RemUIOp::create(b, loc, lane, i32Const(b, loc, 4)),
      i32Const(b, loc, 2));
  return {row, col};
}

//===----------------------------------------------------------------------===//
// Tmem32x32bAttr
//===----------------------------------------------------------------------===//

// Thread t of warpgroup g holds row t of every 128, columns g N / W on.

unsigned Tmem32x32bAttr::getNumWarps() const { return 4 * getWarpgroups(); }

int64_t Tmem32x32bAttr::getValuesPerThread(ArrayRef<int64_t> shape) const {
  return shape[0] / 128 * (shape[1] / getWarpgroups());
}

SmallVector<int64_t, 2>
Tmem32x32bAttr::getRegisterShape(ArrayRef<int64_t> shape) const {
  return {getValuesPerThread(shape)};
}

SmallVector<int64_t, 2> Tmem32x32bAttr::getValueOffsets(ArrayRef<int64_t> shape,
                                                        int64_t value) const {
  int64_t perRow = getContiguousValues(shape);
  return {kWarpgroupSize * (value / perRow), value % perRow};
}

int64_t Tmem32x32bAttr::getContiguousValues(ArrayRef<int64_t> shape) const {
  return shape[1] / getWarpgroups();
}

SmallVector<int64_t, 4>
Tmem32x32bAttr::getReplicaLaneMasks(unsigned dim) const {
  // A row is one thread's; every lane of a warp holds every column.
  if (dim == 0)
    return {};
  return {1, 2, 4, 8, 16};
}

SmallVector<OpFoldResult, 2>
Tmem32x32bAttr::buildThreadOrigin(OpBuilder &b, Location loc,
                                  ArrayRef<int64_t> shape, Value thread) const {
  if (getWarpgroups() == 1)
    return {thread, b.getI32IntegerAttr(0)};
  Value warpgroup =
      arith::DivUIOp::create(b, loc, thread, i32Const(b, loc, kWarpgroupSize));
  return {
      arith::RemUIOp::create(b, loc, thread, i32Const(b, loc, kWarpgroupSize))
          .getResult(),
      arith::MulIOp::create(b, loc, warpgroup,
                            i32Const(b, loc, getContiguousValues(shape)))
          .getResult()};
}

//===----------------------------------------------------------------------===//
// BlockedAttr
//===----------------------------------------------------------------------===//

// Lane l of warp w holds row w (32 / lanes) + l / lanes of each repetition,
// columns vector (l % lanes) on; a thread's values run along its row piece,
// then over the column repetitions, then over the row repetitions.

unsigned BlockedAttr::getNumWarps() const { return getWarps(); }

int64_t BlockedAttr::getValuesPerThread(ArrayRef<int64_t> shape) const {
  return shape[0] * shape[1] / (kWarpSize * getWarps());
}

SmallVector<int64_t, 2>
BlockedAttr::getRegisterShape(ArrayRef<int64_t> shape) const {
  return {getValuesPerThread(shape)};
}

SmallVector<int64_t, 2> BlockedAttr::getValueOffsets(ArrayRef<int64_t> shape,
                                                     int64_t value) const {
  SmallVector<int64_t, 2> tile = getTileShape();
  int64_t vector = getVector(), colReps = shape[1] / tile[1];
  int64_t run = value / vector;
  return {tile[0] * (run / colReps),
          tile[1] * (run % colReps) + value % vector};
}

int64_t BlockedAttr::getContiguousValues(ArrayRef<int64_t>) const {
  return getVector();
}

SmallVector<int64_t, 4> BlockedAttr::getReplicaLaneMasks(unsigned dim) const {
  // Lanes that differ in their low log2(lanes) bits share a row; the others
  // share columns.
  SmallVector<int64_t, 4> masks;
  for (int64_t bit = 1; bit < kWarpSize; bit *= 2)
    if ((bit < getLanes()) == (dim == 0))
      masks.push_back(bit);
  return masks;
}

SmallVector<OpFoldResult, 2>
BlockedAttr::buildThreadOrigin(OpBuilder &b, Location loc, ArrayRef<int64_t>,
                               Value thread) const {
  int64_t lanes = getLanes();
  Value lane = thread;
  if (getWarps() > 1 || lanes < kWarpSize)
    lane = arith::RemUIOp::create(b, loc, thread, i32Const(b, loc, lanes));
  Value col =
      arith::MulIOp::create(b, loc, lane, i32Const(b, loc, getVector()));
  if (lanes == kWarpSize && getWarps() == 1)
    return {b.getI32IntegerAttr(0), col};
  // Rows run over the lanes' high bits, then the warps: thread / lanes.
  Value row = arith::DivUIOp::create(b, loc, thread, i32Const(b, loc, lanes));
  return {row, col};
}

//===----------------------------------------------------------------------===//
// SliceAttr
//===----------------------------------------------------------------------===//

// A slice holds, per thread, the distinct indices along the kept dimension
// of the parent's values, in increasing order: the parent's value offsets
// say everything.

SmallVector<int64_t, 2>
SliceAttr::getParentShape(ArrayRef<int64_t> shape) const {
  SmallVector<int64_t, 2> parentShape = getRegisterLayoutTileShape(getParent());
  parentShape[1 - getDim()] = shape[0];
  return parentShape;
}

/// The offsets along the kept dimension of the parent's values of a thread,
/// each once, in increasing order.
static SmallVector<int64_t> keptOffsets(SliceAttr slice,
                                        ArrayRef<int64_t> shape) {
  RegisterLayoutAttrInterface parent = slice.getParentLayout();
  SmallVector<int64_t, 2> parentShape = slice.getParentShape(shape);
  SmallVector<int64_t> offsets;
  for (int64_t v = 0, e = parent.getValuesPerThread(parentShape); v < e; ++v)
    offsets.push_back(
        parent.getValueOffsets(parentShape, v)[1 - slice.getDim()]);
  llvm::sort(offsets);
  offsets.erase(llvm::unique(offsets), offsets.end());
  return offsets;
}

unsigned SliceAttr::getNumWarps() const {
  return getParentLayout().getNumWarps();
}

int64_t SliceAttr::getValuesPerThread(ArrayRef<int64_t> shape) const {
  return keptOffsets(*this, shape).size();
}

SmallVector<int64_t, 2>
SliceAttr::getRegisterShape(ArrayRef<int64_t> shape) const {
  return {getValuesPerThread(shape)};
}

SmallVector<int64_t, 2> SliceAttr::getValueOffsets(ArrayRef<int64_t> shape,
                                                   int64_t value) const {
  return {keptOffsets(*this, shape)[value]};
}

int64_t SliceAttr::getContiguousValues(ArrayRef<int64_t> shape) const {
  SmallVector<int64_t> offsets = keptOffsets(*this, shape);
  int64_t run = 1;
  while (run < static_cast<int64_t>(offsets.size()) &&
         offsets[run] == offsets[0] + run)
    ++run;
  return run;
}

SmallVector<int64_t, 4> SliceAttr::getReplicaLaneMasks(unsigned dim) const {
  return getParentLayout().getReplicaLaneMasks(1 - getDim());
}

SmallVector<OpFoldResult, 2>
SliceAttr::buildThreadOrigin(OpBuilder &b, Location loc,
                             ArrayRef<int64_t> shape, Value thread) const {
  return {getParentLayout().buildThreadOrigin(b, loc, getParentShape(shape),
                                              thread)[1 - getDim()]};
}

//===----------------------------------------------------------------------===//
// TransposedAttr
//===----------------------------------------------------------------------===//

// Every thread holds the parent's values of the transposed shape, in the
// same order; each value's coordinates are the parent's swapped. Within a
// row of the transpose (a column of the parent) the parent's values come in
// increasing row order, so the interface's order holds.

/// `shape` with its two dimensions swapped.
static SmallVector<int64_t, 2> swapped(ArrayRef<int64_t> shape) {
  return {shape[1], shape[0]};
}

unsigned TransposedAttr::getNumWarps() const {
  return getParentLayout().getNumWarps();
}

int64_t TransposedAttr::getValuesPerThread(ArrayRef<int64_t> shape) const {
  return getParentLayout().getValuesPerThread(swapped(shape));
}

SmallVector<int64_t, 2>
TransposedAttr::getRegisterShape(ArrayRef<int64_t> shape) const {
  return getParentLayout().getRegisterShape(swapped(shape));
}

SmallVector<int64_t, 2> TransposedAttr::getValueOffsets(ArrayRef<int64_t> shape,
                                                        int64_t value) const {
  return swapped(getParentLayout().getValueOffsets(swapped(shape), value));
}

int64_t TransposedAttr::getContiguousValues(ArrayRef<int64_t>) const {
  // A parent's runs lie along its rows, which are columns here.
  return 1;
}

SmallVector<int64_t, 4>
TransposedAttr::getReplicaLaneMasks(unsigned dim) const {
  return getParentLayout().getReplicaLaneMasks(1 - dim);
}

SmallVector<OpFoldResult, 2>
TransposedAttr::buildThreadOrigin(OpBuilder &b, Location loc,
                                  ArrayRef<int64_t> shape, Value thread) const {
  SmallVector<OpFoldResult, 2> origin =
      getParentLayout().buildThreadOrigin(b, loc, swapped(shape), thread);
  return {origin[1], origin[0]};
}
