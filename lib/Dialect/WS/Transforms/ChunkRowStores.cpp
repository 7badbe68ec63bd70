//===- ChunkRowStores.cpp - Row stores from tensor memory in chunks -------===//
//
// Part of fmha. ws-chunk-row-stores: a warpgroup that reads an accumulator row
// from tensor memory (tcgen05.ld: thread t holds row t), computes on it column
// by column and stores it (into a shared-memory staging buffer, back into
// tensor memory, or into global memory by plain stores) needs registers for
// a whole row: 256 f32 values for N = 256, more than a thread has. Done 32
// columns at a time (tcgen05.ld of 32 columns, wait, compute, store, next
// chunk) it needs 32.
//
// The row reductions the stored value depends on (attention's softmax: the
// row maximum, then P = exp2(S - max) with its row sum) are chunked too:
// each becomes a pass over the chunks that combines the partial results
// (max or sum), and the row vectors computed from them are ready for the
// passes after it. Sinks (reductions and the store) whose inputs are all
// ready at the same point share a pass, so a chunk is loaded once for them.
//
// A column vector loaded from global memory (tile.load_direct) and
// broadcast over the rows (an fp8 GEMM's per-column scales) is loaded per
// chunk too: each chunk loads its own columns of the vector.
//
// The chunks read tensor memory later than the whole-row load they replace,
// so the release of a slot they read moves after the slot's last read.
//
//===----------------------------------------------------------------------===//

#include "PartitionUtils.h"
#include "PassUtils.h"

#include "fmha/Dialect/Tile/IR/TileDialect.h"
#include "fmha/Dialect/WS/IR/WSDialect.h"
#include "fmha/Dialect/WS/IR/WSUtils.h"
#include "fmha/Dialect/WS/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace ws {
#define GEN_PASS_DEF_WSCHUNKROWSTORES
#include "fmha/Dialect/WS/Transforms/Passes.h.inc"
} // namespace ws
} // namespace mlir

using namespace mlir;
using namespace mlir::ws;

/// Columns of tensor memory a thread loads per chunk of a row store: 32
/// registers of 32 bits.
static constexpr int64_t kChunkColumns = 32;

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

/// A row reduction of a whole 128-row tensor of `columns` columns.
static bool isRowReduction(Operation *op, int64_t columns) {
  auto reduce = dyn_cast<tile::ReduceOp>(op);
  return reduce && reduce.getAxis() == 1 &&
         isRowTensor(reduce.getInput().getType(), columns) &&
         (reduce.getKind() == tile::ReduceKind::max ||
          reduce.getKind() == tile::ReduceKind::sum);
}

/// Whether `op` broadcasts over the rows a column vector loaded from global
/// memory by plain loads (`tile.load_direct`): every chunk loads its own
/// columns of the vector.
static bool isLoadedColumnBroadcast(Operation *op) {
  auto broadcast = dyn_cast<tile::BroadcastOp>(op);
  return broadcast && broadcast.getAxis() == 0 &&
         broadcast.getInput().getDefiningOp<tile::LoadDirectOp>();
}

/// Whether `op` is a splat constant: every chunk takes a smaller copy.
static bool isSplatConstant(Operation *op) {
  auto constant = dyn_cast<arith::ConstantOp>(op);
  auto dense =
      constant ? dyn_cast<DenseElementsAttr>(constant.getValue()) : nullptr;
  return dense && dense.isSplat();
}

/// The ops computing `value` column by column from tcgen05.ld loads, or
/// failure when something else goes in: a reduction over columns (other
/// than through a row vector), a tensor computed elsewhere. The splat
/// constants come first (they may be defined anywhere, canonicalization
/// hoists them), then the ops of `block` in block order. The row vectors
/// the slice broadcasts over the columns go into `rows`.
static FailureOr<SmallVector<Operation *>>
columnwiseSlice(Value value, Block *block, SmallVectorImpl<Value> &rows) {
  int64_t columns = cast<RankedTensorType>(value.getType()).getShape()[1];
  llvm::SetVector<Operation *> slice;
  SmallVector<Operation *> constants;
  SmallVector<Value> worklist{value};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def || !isRowTensor(v.getType(), columns))
      return failure();
    if (isa<arith::ConstantOp>(def)) {
      if (!isSplatConstant(def))
        return failure();
      if (!llvm::is_contained(constants, def))
        constants.push_back(def);
      continue;
    }
    if (def->getBlock() != block)
      return failure();
    if (!slice.insert(def))
      continue;
    if (isRowLoad(def) || isa<tile::IotaOp, tensor::SplatOp>(def) ||
        isLoadedColumnBroadcast(def))
      continue;
    if (auto broadcast = dyn_cast<tile::BroadcastOp>(def)) {
      // A row vector spread over the columns: every chunk takes its part.
      if (broadcast.getAxis() != 1)
        return failure();
      rows.push_back(broadcast.getInput());
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
  constants.append(ordered.begin(), ordered.end());
  return constants;
}

/// The tensor-memory buffer the whole-row load `op` reads.
static Value loadedBuffer(Operation *op) {
  return cast<tile::ConvertLayoutOp>(op).getInput().getDefiningOp()->getOperand(
      0);
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

/// One chunk's copy of `op` (of a slice), its operands mapped by `map`.
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
  if (auto splat = dyn_cast<tensor::SplatOp>(op))
    return tensor::SplatOp::create(b, loc, chunk, splat.getInput());
  if (isLoadedColumnBroadcast(op)) {
    // The chunk's columns of the vector: its own load, `column` further
    // along the innermost coordinate.
    auto broadcast = cast<tile::BroadcastOp>(op);
    auto load = broadcast.getInput().getDefiningOp<tile::LoadDirectOp>();
    auto vector = cast<RankedTensorType>(load.getType());
    SmallVector<Value> coords(load.getCoords());
    if (column != 0)
      coords.back() = arith::AddIOp::create(
          b, loc, coords.back(),
          arith::ConstantIntOp::create(b, loc, b.getI32Type(), column));
    Value part = tile::LoadDirectOp::create(
        b, load.getLoc(),
        RankedTensorType::get({width}, vector.getElementType(),
                              vector.getEncoding()),
        load.getSource(), coords);
    return tile::BroadcastOp::create(b, loc, chunk, part,
                                     broadcast.getAxisAttr());
  }
  if (auto iota = dyn_cast<tile::IotaOp>(op)) {
    Operation *local = tile::IotaOp::create(b, loc, chunk, iota.getAxisAttr());
    if (iota.getAxis() != 1 || column == 0)
      return local;
    // Column indices: the chunk's own plus its first column.
    Value first = arith::ConstantOp::create(
        b, loc, chunk,
        DenseElementsAttr::get(
            chunk, b.getIntegerAttr(chunk.getElementType(), column)));
    return arith::AddIOp::create(b, loc, local->getResult(0), first);
  }
  Operation *copy = b.clone(*op, map);
  copy->getResult(0).setType(chunk);
  return copy;
}

/// `store`'s (a tile.store_direct of a 2-d tensor) copy for the columns of
/// `chunk` from `column` on: the innermost coordinate moved by `column`.
static void storeDirectChunk(OpBuilder &b, tile::StoreDirectOp store,
                             Value chunk, int64_t column) {
  Location loc = store.getLoc();
  SmallVector<Value> coords(store.getCoords());
  if (column != 0)
    coords.back() = arith::AddIOp::create(
        b, loc, coords.back(),
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), column));
  tile::StoreDirectOp::create(b, loc, store.getDest(), coords, chunk,
                              store.getRowDimsAttr());
}

namespace {

/// A reduction or the store, computed from its column-wise slice.
struct Sink {
  Operation *op;
  SmallVector<Operation *> slice;
  /// The values from outside the slice it reads: where it can be computed.
  SmallVector<Value> inputs;
};

} // namespace

/// The values `slice` reads that it does not compute, plus `extra`.
static SmallVector<Value> sliceInputs(ArrayRef<Operation *> slice,
                                      ValueRange extra) {
  llvm::SmallPtrSet<Operation *, 16> inSlice(slice.begin(), slice.end());
  SmallVector<Value> inputs(extra.begin(), extra.end());
  for (Operation *op : slice) {
    if (isRowLoad(op)) {
      inputs.push_back(loadedBuffer(op));
      continue;
    }
    for (Value operand : op->getOperands())
      if (!inSlice.contains(operand.getDefiningOp()))
        inputs.push_back(operand);
  }
  return inputs;
}

/// Whether every value of `inputs` is available before `at` (in its block,
/// or from outside it).
static bool readyBefore(ArrayRef<Value> inputs, Operation *at) {
  return llvm::all_of(inputs, [&](Value v) {
    Operation *def = v.getDefiningOp();
    Operation *ancestor =
        def ? at->getBlock()->findAncestorOpInBlock(*def) : nullptr;
    return !ancestor || ancestor->isBeforeInBlock(at);
  });
}

/// Whether the ops strictly between `from` and `to` (one block) may be
/// crossed by the chunked loads and stores: no ws ops (waits, releases,
/// commits guard the buffers) and no memory effects.
static bool crossable(Operation *from, Operation *to) {
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode()) {
    bool ws = false;
    op->walk([&](Operation *nested) {
      ws |= isa_and_nonnull<WSDialect>(nested->getDialect());
    });
    if (ws || !isMemoryEffectFree(op))
      return false;
  }
  return true;
}

/// The row reductions of whole rows of `columns` columns that the row
/// vectors `rows` are computed from, in `block`, each with its slice (those
/// computed column by column).
static void collectReductions(ArrayRef<Value> rows, Block *block,
                              int64_t columns, SmallVectorImpl<Sink> &sinks) {
  walkBackward(rows, [&](Value v, SmallVectorImpl<Value> &next) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != block)
      return;
    if (isRowReduction(def, columns)) {
      Sink sink{def, {}, {}};
      SmallVector<Value> more;
      FailureOr<SmallVector<Operation *>> slice =
          columnwiseSlice(def->getOperand(0), block, more);
      // One that is not stays whole: it loads the whole row, as before.
      if (failed(slice))
        return;
      sink.slice = std::move(*slice);
      sink.inputs = sliceInputs(sink.slice, {});
      sinks.push_back(std::move(sink));
      llvm::append_range(next, more);
      return;
    }
    // A row vector (or scalar) computed from others.
    if (def->getNumRegions() == 0)
      llvm::append_range(next, def->getOperands());
  });
}

/// Rewrites `store` (`ws.store_shared` or `ws.store_tmem` of a 128-row
/// `#tile.tmem_32x32b` tensor computed column by column from whole-row
/// `tcgen05.ld` loads, or `tile.store_direct` of one into global memory)
/// into one load, computation and store per `width` columns, the row reductions
/// its row vectors come from (and the other reductions of the same loaded rows)
/// into passes over the chunks. Adds the tensor-memory buffers the chunks read
/// to `read`. Returns false (and changes nothing) when the value is not
/// computed column by column or has `width` columns or fewer.
static bool storeRowsInChunks(OpBuilder &b, Operation *store, int64_t width,
                              llvm::SetVector<Value> &read) {
  auto direct = dyn_cast<tile::StoreDirectOp>(store);
  if (!isa<StoreSharedOp, StoreTMEMOp>(store) && !direct)
    return false;
  Value value = direct ? direct.getValue() : store->getOperand(0);
  Value buffer = direct ? direct.getDest() : store->getOperand(1);
  auto type = cast<RankedTensorType>(value.getType());
  auto bufferType = cast<MemRefType>(buffer.getType());
  if (type.getRank() != 2 || !isRowTensor(type, type.getShape()[1]))
    return false;
  int64_t columns = type.getShape()[1];
  if (columns <= width || columns % width != 0)
    return false;
  // A staging buffer has the value's shape; a global store writes into any
  // view (its rows bounded by the view's sizes), each chunk at its columns.
  if (!direct && (bufferType.getShape() != type.getShape() ||
                  !bufferType.getLayout().isIdentity()))
    return false;
  // A 16-bit row stored into tensor memory packs two elements to a column:
  // a chunk must start on a whole column.
  int64_t bits = type.getElementTypeBitWidth();
  bool intoTensorMemory = isTensorMemory(bufferType);
  if (intoTensorMemory && (bits > 32 || width * bits % 32 != 0))
    return false;
  Block *block = store->getBlock();
  SmallVector<Value> rows;
  FailureOr<SmallVector<Operation *>> storeSlice =
      columnwiseSlice(value, block, rows);
  if (failed(storeSlice))
    return false;
  SmallVector<Sink> sinks;
  collectReductions(rows, block, columns, sinks);
  // Other reductions of the same rows (the softmax's row sum of P, which
  // the store of P does not read) go along: they would load whole rows.
  llvm::SmallPtrSet<Value, 4> loaded;
  auto addLoaded = [&](ArrayRef<Operation *> slice) {
    bool shares = false;
    for (Operation *op : slice)
      if (isRowLoad(op))
        shares |= !loaded.insert(loadedBuffer(op)).second;
    return shares;
  };
  addLoaded(*storeSlice);
  for (Sink &sink : sinks)
    addLoaded(sink.slice);
  for (Operation &op : *block) {
    if (!isRowReduction(&op, columns) ||
        llvm::any_of(sinks, [&](Sink &sink) { return sink.op == &op; }))
      continue;
    SmallVector<Value> more;
    FailureOr<SmallVector<Operation *>> slice =
        columnwiseSlice(op.getOperand(0), block, more);
    if (failed(slice) || !addLoaded(*slice))
      continue;
    sinks.push_back({&op, *slice, sliceInputs(*slice, {})});
    collectReductions(more, block, columns, sinks);
  }
  sinks.push_back({store, std::move(*storeSlice), {}});
  // Where the store writes: the buffer, or the destination and coordinates.
  SmallVector<Value> target{buffer};
  if (direct)
    llvm::append_range(target, direct.getCoords());
  sinks.back().inputs = sliceInputs(sinks.back().slice, target);
  llvm::sort(sinks, [](const Sink &x, const Sink &y) {
    return x.op->isBeforeInBlock(y.op);
  });
  sinks.erase(llvm::unique(sinks, [](const Sink &x,
                                     const Sink &y) { return x.op == y.op; }),
              sinks.end());
  if (sinks.back().op != store)
    return false;

  // Passes: a sink joins the pass before it when its inputs are ready at
  // that pass's place and nothing in between guards memory.
  SmallVector<SmallVector<Sink *>> passes;
  for (Sink &sink : sinks) {
    if (!passes.empty()) {
      Operation *at = passes.back().front()->op;
      if (readyBefore(sink.inputs, at) && crossable(at, sink.op)) {
        passes.back().push_back(&sink);
        continue;
      }
    }
    passes.push_back({&sink});
  }

  // P over S: a store into tensor memory in a pass that loads from tensor
  // memory writes, per chunk, columns below the end of what the pass has
  // loaded so far (elements of at most 32 bits: a 16-bit chunk takes half
  // the columns of the 32-bit one it is computed from), so a buffer that
  // aliases a loaded one from the same first column (ws-allocate-tmem
  // places aliases so) never overwrites a column a later chunk still
  // reads. A chunk's store follows all its loads, and no pass after the
  // store's loads again: the store is the last sink.

  Location loc = store->getLoc();
  for (ArrayRef<Sink *> pass : passes) {
    b.setInsertionPoint(pass.front()->op);
    // The reductions' partial results, combined over the chunks.
    SmallVector<Value> partial(pass.size());
    for (int64_t column = 0; column < columns; column += width) {
      IRMapping map;
      for (auto [i, sink] : llvm::enumerate(pass)) {
        for (Operation *op : sink->slice)
          if (!map.contains(op->getResult(0)))
            map.map(op->getResult(0),
                    chunkOf(b, op, map, column, width)->getResult(0));
        if (sink->op == store) {
          Value chunk = map.lookup(value);
          if (direct) {
            storeDirectChunk(b, direct, chunk, column);
            continue;
          }
          Value view = columnView(b, loc, buffer, column, width);
          if (isa<StoreSharedOp>(store))
            StoreSharedOp::create(b, loc, chunk, view);
          else
            StoreTMEMOp::create(b, loc, chunk, view);
          continue;
        }
        auto reduce = cast<tile::ReduceOp>(sink->op);
        Value part = tile::ReduceOp::create(
            b, reduce.getLoc(), reduce.getType(), reduce.getKindAttr(),
            map.lookup(reduce.getInput()), reduce.getAxisAttr());
        if (!partial[i])
          partial[i] = part;
        else if (reduce.getKind() == tile::ReduceKind::max)
          partial[i] =
              arith::MaximumFOp::create(b, reduce.getLoc(), partial[i], part);
        else
          partial[i] =
              arith::AddFOp::create(b, reduce.getLoc(), partial[i], part);
      }
    }
    for (auto [i, sink] : llvm::enumerate(pass))
      if (sink->op != store)
        sink->op->getResult(0).replaceAllUsesWith(partial[i]);
  }

  // The whole-row ops are dead now, unless something else reads them.
  llvm::SetVector<Operation *> dead;
  for (Sink &sink : sinks) {
    dead.insert(sink.op);
    dead.insert(sink.slice.begin(), sink.slice.end());
    for (Operation *op : sink.slice)
      if (isRowLoad(op))
        read.insert(loadedBuffer(op));
  }
  // Last first; the splat constants, which may sit outside the block, at
  // the end.
  SmallVector<Operation *> ordered, inBlock;
  for (Operation *op : dead)
    (op->getBlock() == block ? inBlock : ordered).push_back(op);
  llvm::sort(inBlock,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  ordered.append(inBlock.begin(), inBlock.end());
  for (Operation *op : llvm::reverse(ordered)) {
    Value input;
    if (auto convert = dyn_cast<tile::ConvertLayoutOp>(op))
      input = convert.getInput();
    if (isLoadedColumnBroadcast(op))
      input = op->getOperand(0);
    if (!op->use_empty())
      continue;
    op->erase();
    if (input && input.use_empty())
      input.getDefiningOp()->erase();
  }
  return true;
}

/// Moves each release of the slot whose buffer is `buffer` (a buffer of a
/// `ws.consumer_wait`, or a view of one) after the slot's last
/// tensor-memory read in the release's block, if that read follows it.
static void releaseAfterLastRead(Value buffer) {
  while (auto view = buffer.getDefiningOp<memref::SubViewOp>())
    buffer = view.getSource();
  auto wait = buffer.getDefiningOp<ConsumerWaitOp>();
  if (!wait)
    return;
  for (Operation *user : wait.getToken().getUsers()) {
    auto release = dyn_cast<ConsumerReleaseOp>(user);
    if (!release)
      continue;
    Operation *last = nullptr;
    for (Value slotBuffer : wait.getBuffers()) {
      if (!isTensorMemory(cast<MemRefType>(slotBuffer.getType())))
        continue;
      Operation *read = lastTensorMemoryRead(slotBuffer, release->getBlock());
      if (read && (!last || last->isBeforeInBlock(read)))
        last = read;
    }
    if (last && release->isBeforeInBlock(last))
      release->moveAfter(last);
  }
}

namespace {

struct WSChunkRowStoresPass
    : PerFunctionPass<WSChunkRowStoresPass, ws::impl::WSChunkRowStoresBase> {
  using PerFunctionPass::PerFunctionPass;

  LogicalResult runOnFunction(FunctionOpInterface func) {
    SmallVector<Operation *> stores;
    func->walk([&](Operation *op) {
      if (isa<StoreSharedOp, StoreTMEMOp, tile::StoreDirectOp>(op))
        stores.push_back(op);
    });
    OpBuilder b(func.getContext());
    llvm::SetVector<Value> read;
    for (Operation *store : stores)
      storeRowsInChunks(b, store, kChunkColumns, read);
    for (Value buffer : read)
      releaseAfterLastRead(buffer);
    return success();
  }
};

} // namespace
