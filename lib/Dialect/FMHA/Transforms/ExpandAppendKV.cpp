//===- ExpandAppendKV.cpp - fmha.append_kv to a tile program --------------===//
//
// Part of fmha. The tile program of one CTA of fmha.append_kv: a block of
// new tokens of one KV head of one sequence, copied into the caches with
// plain loads and stores (no TMA, no MMA) through views whose bounds mask
// the rows outside the block.
//
//===----------------------------------------------------------------------===//

#include "Expand.h"

#include "fmha/Dialect/FMHA/IR/FMHAServingOps.h"
#include "fmha/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// Builds the tile program; holds what every part of it needs.
class AppendBuilder : TileProgramBuilder {
public:
  AppendBuilder(AppendKVOp op, OpBuilder &b)
      : TileProgramBuilder(b, op.getLoc()), op(op), rows(op.getBlockRows()),
        headDim(op.getHeadDim()) {}

  LogicalResult build();

private:
  /// `value` (i32) as an index.
  Value toIndex(Value value) {
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), value);
  }
  /// `memref.dim` of `buffer` as an i32.
  Value dimI32(Value buffer, int64_t dim) {
    return arith::IndexCastOp::create(
        b, loc, i32, memref::DimOp::create(b, loc, buffer, dim));
  }
  /// The strides of `buffer` (index values).
  SmallVector<Value> stridesOf(Value buffer) {
    auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
    return SmallVector<Value>(metadata.getStrides());
  }
  /// A [`count`, head_dim] view of `buffer` whose row 0 is at element
  /// `offset` and whose rows are `rowStride` apart.
  Value rowsView(Value buffer, Value offset, Value count, Value rowStride);
  /// Copies the tile of the block's rows at token row `row` (relative to
  /// the block's first token, negative rows masked) from each new tensor's
  /// view to the matching cache view.
  void copy(Value row, ArrayRef<std::pair<Value, Value>> views);
  /// Records the launch contract (LaunchContract) on `kernel`.
  void recordLaunchContract(Operation *kernel);

  AppendKVOp op;
  int64_t rows, headDim;
};

} // namespace

void AppendBuilder::recordLaunchContract(Operation *kernel) {
  LaunchContract contract(b);
  Type element = op.getElementType();
  RankedTensorType newType = op.getNewType(), cache = op.getCacheType();
  Attribute batch = contract.size(op.getBatch(), "B"),
            seqNew = contract.size(newType.getDimSize(1), "N"),
            heads = contract.size(op.getNumHeads(), "H"),
            d = contract.integer(headDim);
  for (StringRef name : {"k_new", "v_new"})
    contract.tensor(name, {batch, seqNew, heads, d}, element,
                    /*output=*/false);
  contract.tensor("cache_seqlens", {batch}, i32, /*output=*/false);
  SmallVector<Attribute> cacheShape;
  if (op.isPaged()) {
    contract.tensor(
        "block_table",
        {batch, contract.size(op.getTableType().getDimSize(1), "MP")}, i32,
        /*output=*/false);
    cacheShape = {contract.size(cache.getDimSize(0), "NP"),
                  contract.integer(op.getPageSize()), heads, d};
  } else {
    cacheShape = {batch, contract.size(cache.getDimSize(1), "C"), heads, d};
  }
  for (StringRef name : {"k_cache", "v_cache"})
    contract.tensor(name, cacheShape, element, /*output=*/true);
  // Keys and values with the strides the caller's tensors have; lengths
  // and the block table dense.
  contract.memref("k_new", /*strided=*/true);
  contract.memref("v_new", /*strided=*/true);
  contract.memref("cache_seqlens");
  if (op.isPaged())
    contract.memref("block_table");
  contract.memref("k_cache", /*strided=*/true);
  contract.memref("v_cache", /*strided=*/true);
  contract.record(
      kernel, {contract.ceildiv(seqNew, contract.integer(rows)), heads, batch});
}

Value AppendBuilder::rowsView(Value buffer, Value offset, Value count,
                              Value rowStride) {
  auto type = cast<MemRefType>(buffer.getType());
  int64_t dyn = ShapedType::kDynamic;
  auto viewType =
      MemRefType::get({dyn, headDim}, type.getElementType(),
                      StridedLayoutAttr::get(b.getContext(), dyn, {dyn, 1}));
  return memref::ReinterpretCastOp::create(
      b, loc, viewType, buffer, offset,
      ArrayRef<OpFoldResult>{toIndex(count), b.getIndexAttr(headDim)},
      ArrayRef<OpFoldResult>{rowStride, b.getIndexAttr(1)});
}

void AppendBuilder::copy(Value row, ArrayRef<std::pair<Value, Value>> views) {
  auto tileType = RankedTensorType::get({rows, headDim}, op.getElementType());
  Value zero = constI32(0);
  for (auto [from, to] : views) {
    Value tile = tile::LoadDirectOp::create(b, loc, tileType, from,
                                            ValueRange{row, zero});
    tile::StoreDirectOp::create(b, loc, to, {row, zero}, tile);
  }
}

LogicalResult AppendBuilder::build() {
  MLIRContext *ctx = op.getContext();
  Type element = op.getElementType();
  int64_t dyn = ShapedType::kDynamic;
  auto strided = [&](RankedTensorType type) {
    SmallVector<int64_t> strides(type.getRank(), dyn);
    strides.back() = 1;
    return MemRefType::get(type.getShape(), element,
                           StridedLayoutAttr::get(ctx, 0, strides));
  };
  auto dense = [&](RankedTensorType type) {
    return MemRefType::get(type.getShape(), i32);
  };
  SmallVector<Type> args = {strided(op.getNewType()), strided(op.getNewType()),
                            dense(op.getSeqlensType())};
  if (op.isPaged())
    args.push_back(dense(op.getTableType()));
  args.push_back(strided(op.getCacheType()));
  args.push_back(strided(op.getCacheType()));
  KernelShell shell =
      createKernelShell(b, op, op.getSymName(), op.getTarget(), args);
  recordLaunchContract(shell.func);
  auto arg = [&](unsigned i) { return shell.func.getArgument(i); };
  Value kNew = arg(0), vNew = arg(1), seqlens = arg(2);
  Value table = op.isPaged() ? arg(3) : Value();
  Value kCache = arg(op.isPaged() ? 4 : 3), vCache = arg(op.isPaged() ? 5 : 4);

  // The block: new tokens first.. (at most `rows` of them) of KV head
  // `head` of sequence `batch`, whose length before them is `length`.
  Value block = tile::ProgramIdOp::create(b, loc, i32, tile::GridDim::x);
  Value head = tile::ProgramIdOp::create(b, loc, i32, tile::GridDim::y);
  Value batch = tile::ProgramIdOp::create(b, loc, i32, tile::GridDim::z);
  Value first = arith::MulIOp::create(b, loc, block, constI32(rows));
  Value count = arith::MinSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, dimI32(kNew, 1), first),
      constI32(rows));
  Value length =
      memref::LoadOp::create(b, loc, seqlens, ValueRange{toIndex(batch)});
  // The block's first position; nothing is written for a negative length.
  Value position = arith::AddIOp::create(b, loc, length, first);
  Value lengthValid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                            length, constI32(0));

  // The new tokens' views: the block's rows of its head.
  SmallVector<Value> newStrides = stridesOf(kNew);
  auto newView = [&](Value buffer, ArrayRef<Value> strides) {
    Value offset = arith::AddIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc, arith::MulIOp::create(b, loc, toIndex(batch), strides[0]),
            arith::MulIOp::create(b, loc, toIndex(first), strides[1])),
        arith::MulIOp::create(b, loc, toIndex(head), strides[2]));
    return rowsView(buffer, offset, count, strides[1]);
  };
  Value kFrom = newView(kNew, newStrides);
  Value vFrom = newView(vNew, stridesOf(vNew));
  SmallVector<Value> kCacheStrides = stridesOf(kCache);
  SmallVector<Value> vCacheStrides = stridesOf(vCache);
  // A cache view whose row 0 is the block's first token: `outer` (the
  // sequence, or the page) and `row` (the row of the block's first token
  // in it) give its offset; `count` rows of it are the block's.
  auto cacheViews = [&](Value outer, Value row, Value rowsInView) {
    auto view = [&](Value buffer, ArrayRef<Value> strides) {
      Value offset = arith::AddIOp::create(
          b, loc,
          arith::AddIOp::create(
              b, loc, arith::MulIOp::create(b, loc, outer, strides[0]),
              arith::MulIOp::create(b, loc, row, strides[1])),
          arith::MulIOp::create(b, loc, toIndex(head), strides[2]));
      return rowsView(buffer, offset, rowsInView, strides[1]);
    };
    return SmallVector<std::pair<Value, Value>>{
        {kFrom, view(kCache, kCacheStrides)},
        {vFrom, view(vCache, vCacheStrides)}};
  };

  if (!op.isPaged()) {
    // A dense cache: the block's positions are consecutive rows of the
    // sequence's cache, as many as its capacity leaves room for.
    Value room = arith::SubIOp::create(b, loc, dimI32(kCache, 1), position);
    Value inCache = arith::MinSIOp::create(b, loc, count, room);
    Value any = arith::AndIOp::create(
        b, loc, lengthValid,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, inCache,
                              constI32(0)));
    auto ifAny = scf::IfOp::create(b, loc, any, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifAny.thenBlock());
    copy(constI32(0), cacheViews(toIndex(batch), toIndex(position), inCache));
  } else {
    // A paged cache: the block's positions fall into at most two groups of
    // `rows` positions aligned to `rows`, each inside one page (pages are
    // multiples of `rows`). Each group with rows of the block and a page
    // inside the table and the pool gets one copy, at the block's token
    // row of the group's first position (negative rows masked).
    int64_t pageSize = op.getPageSize();
    Value maxPages = dimI32(table, 1), numPages = dimI32(kCache, 0);
    Value aligned = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, position, constI32(rows)),
        constI32(rows));
    for (int64_t group = 0; group < 2; ++group) {
      OpBuilder::InsertionGuard guard(b);
      Value start =
          arith::AddIOp::create(b, loc, aligned, constI32(group * rows));
      Value row = arith::SubIOp::create(b, loc, start, position);
      Value pageIndex =
          arith::DivUIOp::create(b, loc, start, constI32(pageSize));
      Value any = arith::AndIOp::create(
          b, loc, lengthValid,
          arith::AndIOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, row,
                                    count),
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                    pageIndex, maxPages)));
      auto ifAny = scf::IfOp::create(b, loc, any, /*withElseRegion=*/false);
      b.setInsertionPointToStart(ifAny.thenBlock());
      Value page = memref::LoadOp::create(
          b, loc, table, ValueRange{toIndex(batch), toIndex(pageIndex)});
      auto ifInPool = scf::IfOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, page,
                                numPages),
          /*withElseRegion=*/false);
      b.setInsertionPointToStart(ifInPool.thenBlock());
      // The page's row of the block's first token (before the page's
      // first row in the first group; only rows of the group are stored).
      Value firstRow = arith::SubIOp::create(
          b, loc, arith::RemUIOp::create(b, loc, start, constI32(pageSize)),
          row);
      copy(row, cacheViews(toIndex(page), toIndex(firstRow), count));
    }
  }
  gpu::ReturnOp::create(b, loc);
  op.erase();
  return success();
}

LogicalResult fmha::expandAppendKV(AppendKVOp op, OpBuilder &b) {
  return AppendBuilder(op, b).build();
}
