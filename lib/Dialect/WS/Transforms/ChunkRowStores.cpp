//===- ChunkRowStores.cpp - Row stores from tensor memory in chunks -------===//
//
// Part of fmha. A warpgroup that reads an accumulator row from tensor memory
// (tcgen05.ld: thread t holds row t), computes on it column by column and
// stores it (into a shared-memory staging buffer, or back into tensor
// memory) needs registers for a whole row: 256 f32 values for N = 256, more
// than a thread has. Done 32 columns at a time (tcgen05.ld of 32 columns,
// wait, compute, store, next chunk) it needs 32.
//
//===----------------------------------------------------------------------===//

#include "PartitionRolesSM100.h"

#include "fmha/Dialect/Tile/IR/TileDialect.h"
#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::ws;

/// Lanes of tensor memory: the rows of a 128-row accumulator.
static constexpr int64_t kRows = 128;

/// `type` with `columns` columns instead of its own.
static RankedTensorType withColumns(RankedTensorType type, int64_t columns) {
  return RankedTensorType::get({type.getShape()[0], columns},
                               type.getElementType(), type.getEncoding());
}

/// Whether `type` is a 128-row register tensor of `columns` columns in the
/// tcgen05.ld layout (thread t holds row t).
static bool isRowTensor(Type type, int64_t columns) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return false;
  auto layout = dyn_cast_or_null<tile::Tmem32x32bAttr>(tensor.getEncoding());
  return layout && layout.getWarpgroups() == 1 &&
         tensor.getShape() == ArrayRef<int64_t>{kRows, columns};
}

/// A tcgen05.ld of a whole 128-row f32 buffer: `tile.convert_layout` of a
/// `ws.as_tensor` of tensor memory (one lane per row, unpacked columns).
static bool isRowLoad(Operation *op) {
  auto convert = dyn_cast<tile::ConvertLayoutOp>(op);
  if (!convert)
    return false;
  auto read = convert.getInput().getDefiningOp<AsTensorOp>();
  if (!read || !isTensorMemory(read.getBuffer().getType()))
    return false;
  auto tmem = dyn_cast_or_null<tile::TmemAttr>(
      convert.getInput().getType().getEncoding());
  return tmem && tmem.getBlockM() == kRows && tmem.getUnpacked() &&
         convert.getInput().getType().getElementType().isF32();
}

/// The ops computing `value` column by column from tcgen05.ld loads, in
/// block order, or failure when something else goes in: a reduction, an
/// iota over columns, a tensor computed elsewhere.
static FailureOr<SmallVector<Operation *>> columnwiseSlice(Value value,
                                                           Block *block) {
  int64_t columns = cast<RankedTensorType>(value.getType()).getShape()[1];
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> worklist{value};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != block || !isRowTensor(v.getType(), columns))
      return failure();
    if (!slice.insert(def))
      continue;
    if (isRowLoad(def))
      continue;
    if (auto constant = dyn_cast<arith::ConstantOp>(def)) {
      auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
      if (!dense || !dense.isSplat())
        return failure();
      continue;
    }
    if (auto broadcast = dyn_cast<tile::BroadcastOp>(def)) {
      // A row vector spread over the columns: every chunk takes its part.
      if (broadcast.getAxis() != 1)
        return failure();
      continue;
    }
    if (!def->hasTrait<OpTrait::Elementwise>() || def->getNumResults() != 1 ||
        def->getNumRegions() != 0)
      return failure();
    llvm::append_range(worklist, def->getOperands());
  }
  SmallVector<Operation *> ordered = slice.takeVector();
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// Columns [`column`, `column` + `width`) of the 128-row buffer `buffer`.
static Value columnView(OpBuilder &b, Location loc, Value buffer,
                        int64_t column, int64_t width) {
  auto type = cast<MemRefType>(buffer.getType());
  auto result = memref::SubViewOp::inferResultType(
      type, ArrayRef<int64_t>{0, column},
      ArrayRef<int64_t>{type.getShape()[0], width}, ArrayRef<int64_t>{1, 1});
  return memref::SubViewOp::create(
      b, loc, cast<MemRefType>(result), buffer,
      ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(column)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(type.getShape()[0]),
                             b.getIndexAttr(width)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
}

/// One chunk's copy of `op` (of the slice), its operands mapped by `map`.
static Operation *chunkOf(OpBuilder &b, Operation *op, IRMapping &map,
                          int64_t column, int64_t width) {
  Location loc = op->getLoc();
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  RankedTensorType chunk = withColumns(type, width);
  if (auto convert = dyn_cast<tile::ConvertLayoutOp>(op)) {
    auto read = convert.getInput().getDefiningOp<AsTensorOp>();
    auto tmem =
        cast<tile::TmemAttr>(convert.getInput().getType().getEncoding());
    auto chunkTmem = tile::TmemAttr::get(b.getContext(), tmem.getBlockM(),
                                         width, /*unpacked=*/true);
    Value view = columnView(b, loc, read.getBuffer(), column, width);
    Value tensor = AsTensorOp::create(
        b, loc,
        RankedTensorType::get(chunk.getShape(), chunk.getElementType(),
                              chunkTmem),
        view);
    return tile::ConvertLayoutOp::create(b, loc, chunk, tensor);
  }
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    auto dense = cast<DenseElementsAttr>(constant.getValue());
    return arith::ConstantOp::create(b, loc, chunk, dense.resizeSplat(chunk));
  }
  Operation *copy = b.clone(*op, map);
  copy->getResult(0).setType(chunk);
  return copy;
}

Operation *ws::storeRowsInChunks(OpBuilder &b, Operation *store,
                                 int64_t width) {
  if (!isa<StoreSharedOp, StoreTMEMOp>(store))
    return nullptr;
  Value value = store->getOperand(0), buffer = store->getOperand(1);
  auto type = cast<RankedTensorType>(value.getType());
  auto bufferType = cast<MemRefType>(buffer.getType());
  if (type.getRank() != 2 || !isRowTensor(type, type.getShape()[1]))
    return nullptr;
  int64_t columns = type.getShape()[1];
  if (columns <= width || columns % width != 0 ||
      bufferType.getShape() != type.getShape() ||
      !bufferType.getLayout().isIdentity())
    return nullptr;
  // A 16-bit row stored into tensor memory packs two elements to a column:
  // a chunk must start on a whole column.
  if (isTensorMemory(bufferType) && type.getElementTypeBitWidth() != 32)
    return nullptr;
  FailureOr<SmallVector<Operation *>> slice =
      columnwiseSlice(value, store->getBlock());
  if (failed(slice))
    return nullptr;

  Location loc = store->getLoc();
  b.setInsertionPoint(store);
  Operation *last = nullptr;
  for (int64_t column = 0; column < columns; column += width) {
    IRMapping map;
    for (Operation *op : *slice)
      map.map(op->getResult(0),
              chunkOf(b, op, map, column, width)->getResult(0));
    Value chunk = map.lookup(value);
    Value view = columnView(b, loc, buffer, column, width);
    if (isa<StoreSharedOp>(store))
      last = StoreSharedOp::create(b, loc, chunk, view);
    else
      last = StoreTMEMOp::create(b, loc, chunk, view);
  }
  store->erase();
  for (Operation *op : llvm::reverse(*slice)) {
    Value input;
    if (auto convert = dyn_cast<tile::ConvertLayoutOp>(op))
      input = convert.getInput();
    if (op->use_empty())
      op->erase();
    if (input && input.use_empty())
      input.getDefiningOp()->erase();
  }
  return last;
}

Operation *ws::lastTensorMemoryRead(Value buffer, Block *block) {
  Operation *last = nullptr;
  SmallVector<Value> worklist{buffer};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isa<memref::SubViewOp, AsTensorOp>(user)) {
        worklist.push_back(user->getResult(0));
        continue;
      }
      if (!isa<tile::ConvertLayoutOp>(user))
        continue;
      Operation *op = block->findAncestorOpInBlock(*user);
      if (op && (!last || last->isBeforeInBlock(op)))
        last = op;
    }
  }
  return last;
}
