//===- MergePartials.cpp - Merging partial attention results -------------===//
//
// Part of fmha. The tile code that merges partial attention results over
// disjoint key sets, shared by fmha.merge_states and by split-KV's last
// arrival: the log-sum-exp of each state's rows first, then the states'
// O tiles weighted once per row, `unroll` states per step so that their
// loads are in flight together, whole rows or a chunk of columns at a time.
//
//===----------------------------------------------------------------------===//

#include "Expand.h"

#include "fmha/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fmha;

MergedPartials
fmha::mergePartials(OpBuilder &b, Location loc, Value count,
                    RankedTensorType tileType, const MergeShape &shape,
                    function_ref<Value(Value)> loadLse2,
                    function_ref<Value(Value, Value)> loadTile,
                    function_ref<void(Value, Value)> storeColumns) {
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  int64_t unroll = shape.unroll, rows = tileType.getShape()[0];
  int64_t width = tileType.getShape()[1];
  int64_t columns = shape.columns ? shape.columns : width;
  assert(width % columns == 0 && "column chunks must tile the rows");
  assert((columns == width || storeColumns) && "chunks need a store");
  auto rowType = RankedTensorType::get({rows}, f32);
  auto accType = RankedTensorType::get({rows, columns}, f32);
  double negInf = -std::numeric_limits<double>::infinity();
  auto rowsOf = [&](double value) -> Value {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(rowType, b.getF32FloatAttr(value)));
  };
  auto constI32 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i32, v);
  };
  // State s + u of a step: its lse rows, -inf past the last state (whose
  // loads read nothing: the tiles' bounds stop them).
  auto stateLse = [&](Value s, int64_t u) -> std::pair<Value, Value> {
    Value index = arith::AddIOp::create(b, loc, s, constI32(u));
    Value exists =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index, count);
    Value lse = arith::SelectOp::create(b, loc, exists, loadLse2(index),
                                        rowsOf(negInf));
    return {index, lse};
  };
  Value zero = constI32(0), step = constI32(unroll);

  // Pass 1: the merged log-sum-exp, online in base 2: the running max m of
  // the states' lse and sum l of 2^(lse_s - m). States of lse -inf add
  // nothing (while all are, the reference is 0 and l stays 0).
  auto lseLoop = scf::ForOp::create(b, loc, zero, count, step,
                                    ValueRange{rowsOf(negInf), rowsOf(0.0)});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(lseLoop.getBody());
    SmallVector<Value> lses;
    for (int64_t u = 0; u < unroll; ++u)
      lses.push_back(stateLse(lseLoop.getInductionVar(), u).second);
    Value m = lseLoop.getRegionIterArgs()[0];
    Value l = lseLoop.getRegionIterArgs()[1];
    for (Value x : lses) {
      Value newMax = arith::MaximumFOp::create(b, loc, m, x);
      Value empty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                          newMax, rowsOf(negInf));
      Value ref = arith::SelectOp::create(b, loc, empty, rowsOf(0.0), newMax);
      l = arith::AddFOp::create(
          b, loc,
          arith::MulFOp::create(
              b, loc, l,
              math::Exp2Op::create(b, loc,
                                   arith::SubFOp::create(b, loc, m, ref))),
          math::Exp2Op::create(b, loc, arith::SubFOp::create(b, loc, x, ref)));
      m = newMax;
    }
    scf::YieldOp::create(b, loc, ValueRange{m, l});
  }
  Value m = lseLoop.getResult(0), l = lseLoop.getResult(1);
  // lse2 = m + log2(l) where some state has keys (l > 0); the weights'
  // reference is lse2 there, else 0 (every weight is then 0).
  Value hasKeys =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, l, rowsOf(0.0));
  Value safeSum = arith::SelectOp::create(b, loc, hasKeys, l, rowsOf(1.0));
  Value lse2 =
      arith::AddFOp::create(b, loc, m, math::Log2Op::create(b, loc, safeSum));
  Value ref = arith::SelectOp::create(b, loc, hasKeys, lse2, rowsOf(0.0));

  // Pass 2: o = sum_s 2^(lse2_s - lse2) o_s, each state's tile weighted
  // row by row; a state of weight 0 adds 0 whatever its tile holds. Whole
  // rows at once, or a chunk of columns at a time, each stored when summed.
  OpBuilder::InsertionGuard chunkGuard(b);
  Value column = zero;
  if (columns != width) {
    auto chunks = scf::ForOp::create(b, loc, zero, constI32(width),
                                     constI32(columns), ValueRange{});
    b.setInsertionPointToStart(chunks.getBody());
    column = chunks.getInductionVar();
  }
  Value zeros = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType, b.getF32FloatAttr(0.0)));
  auto oLoop = scf::ForOp::create(b, loc, zero, count, step, ValueRange{zeros});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(oLoop.getBody());
    // Every load of the step first, then the arithmetic.
    SmallVector<std::pair<Value, Value>> loaded;
    for (int64_t u = 0; u < unroll; ++u) {
      auto [index, lse] = stateLse(oLoop.getInductionVar(), u);
      loaded.push_back({lse, loadTile(index, column)});
    }
    Value sum = oLoop.getRegionIterArgs()[0];
    for (auto [lse, tile] : loaded) {
      Value weight =
          math::Exp2Op::create(b, loc, arith::SubFOp::create(b, loc, lse, ref));
      Value weights = tile::BroadcastOp::create(b, loc, accType, weight,
                                                b.getI64IntegerAttr(1));
      if (tile.getType() != accType)
        tile = arith::ExtFOp::create(b, loc, accType, tile);
      Value counts = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                           weights, zeros);
      sum = arith::AddFOp::create(
          b, loc, sum,
          arith::SelectOp::create(b, loc, counts,
                                  arith::MulFOp::create(b, loc, tile, weights),
                                  zeros));
    }
    scf::YieldOp::create(b, loc, ValueRange{sum});
  }
  if (columns == width)
    return {oLoop.getResult(0), lse2, hasKeys};
  storeColumns(column, oLoop.getResult(0));
  return {Value(), lse2, hasKeys};
}

Value MergedPartials::naturalLse(OpBuilder &b, Location loc) const {
  auto rowType = cast<RankedTensorType>(lse2.getType());
  auto rowsOf = [&](double value) -> Value {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(rowType, b.getF32FloatAttr(value)));
  };
  return arith::SelectOp::create(
      b, loc, hasKeys, arith::MulFOp::create(b, loc, lse2, rowsOf(M_LN2)),
      rowsOf(-std::numeric_limits<double>::infinity()));
}
