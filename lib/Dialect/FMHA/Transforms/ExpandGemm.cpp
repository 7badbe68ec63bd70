//===- ExpandGemm.cpp - fmha.gemm to a tile program -----------------------===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#include "Expand.h"

#include "fmha/Dialect/Tile/IR/TileDialect.h"
#include "fmha/Dialect/WS/IR/WSDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::fmha;

/// Output tile rows a group of persistent CTAs walks together.
static constexpr int64_t kGroupM = 8;

/// Records the launch contract of a GEMM kernel (LaunchContract) on
/// `kernel`.
static void recordGemmContract(GemmOp op, Operation *kernel, Builder &b) {
  LaunchContract contract(b);
  Type in = op.getAType().getElementType();
  Type out = op.getCType().getElementType();
  int64_t blockM = op.getBlockM(), blockN = op.getBlockN(),
          blockK = op.getBlockK();
  // In 2-CTA mode each CTA loads half of B's block_n.
  int64_t ctas = op.getNumCtas();
  int64_t blockNB = blockN / ctas;
  // A and B rows of block_k elements fill one swizzle span (the verifier
  // allows 32, 64 or 128 bytes) or two of 128 bytes, moved as two boxes of
  // `kBox` elements; tile-assign-layouts picks the same swizzle.
  int64_t swizzle = std::min<int64_t>(blockK * in.getIntOrFloatBitWidth() / 8,
                                      limits::kMaxSwizzleBytes);
  int64_t kBox = swizzle * 8 / in.getIntOrFloatBitWidth();
  Attribute m = contract.size(op.getM(), "M"),
            n = contract.size(op.getN(), "N"),
            k = contract.size(op.getK(), "K");
  // B as [N, K] is read like A; as [K, N] its rows are N-contiguous and TMA
  // moves them in boxes one swizzle span wide (the kernel issues several).
  bool kMajorB = op.getTransposeB();
  int64_t elementBytes = in.getIntOrFloatBitWidth() / 8;
  int64_t bSwizzle =
      kMajorB ? swizzle : limits::widestSwizzleBytes(blockNB * elementBytes);
  int64_t bBoxRows = kMajorB ? blockNB : blockK;
  int64_t bBoxColumns = kMajorB ? kBox : bSwizzle / elementBytes;
  // With TMA multicast each CTA of the cluster loads half of the B block:
  // half of its rows when a row is one box, else half of the boxes (the
  // split of ws.tma_load {multicast}).
  int64_t multicast = op.getNumMulticast();
  bool rowIsOneBox =
      kMajorB || bSwizzle == 0 || bSwizzle == blockNB * elementBytes;
  if (multicast == 2 && rowIsOneBox)
    bBoxRows /= 2;
  contract.tensor("a", {m, k}, in, /*output=*/false);
  contract.tensor(
      "b", kMajorB ? ArrayRef<Attribute>{n, k} : ArrayRef<Attribute>{k, n},
      op.getBType().getElementType(),
      /*output=*/false);
  contract.tensor("c", {m, n}, out, /*output=*/true);
  // fp8: the scales, one f32 for the tensor or one per row of A / column of
  // B, read with plain loads.
  bool scaled = op.isFp8();
  if (scaled) {
    Type f32 = b.getF32Type();
    contract.tensor("scale_a", {op.hasRowScales() ? m : contract.integer(1)},
                    f32, /*output=*/false);
    contract.tensor("scale_b", {op.hasColumnScales() ? n : contract.integer(1)},
                    f32,
                    /*output=*/false);
  }
  contract.tensorMap("a", {blockM, kBox}, swizzle);
  contract.tensorMap("b", {bBoxRows, bBoxColumns}, bSwizzle);
  contract.storeTensorMap("c", {blockM, blockN}, out, op.getTarget());
  for (Attribute size : {m, n, k})
    contract.scalar(size);
  if (scaled) {
    contract.memref("scale_a");
    contract.memref("scale_b");
  }
  // Split-K: the partial sums ([splits, M, N4] f32, N4 = N rounded up to
  // whole 16-byte vectors: the partial tiles go out and come back as
  // vectors, which must not straddle a row's end or start off their
  // alignment) and a counter per consumer tile, both provided by the
  // runtime; the counters start zeroed and every launch leaves them so.
  if (int64_t splits = op.getNumSplits(); splits > 1) {
    int64_t consumers = op.getNumConsumerGroups();
    Attribute rowFloats =
        contract.integer(limits::kMaxDirectVectorBytes / sizeof(float));
    Attribute paddedN = contract.mul(contract.ceildiv(n, rowFloats), rowFloats);
    contract.scratch("workspace", {contract.integer(splits), m, paddedN},
                     b.getF32Type(), /*zeroed=*/false);
    contract.scratch(
        "counters",
        {contract.mul(contract.mul(contract.ceildiv(
                                       m, contract.integer(blockM * consumers)),
                                   contract.integer(consumers)),
                      contract.ceildiv(n, contract.integer(blockN)))},
        b.getI32Type(), /*zeroed=*/true);
    contract.memref("workspace");
    contract.memref("counters");
  }
  // Persistent: one CTA per SM; CTAs past the last tile do nothing. In
  // 2-CTA and multicast mode clusters of two along x (ws-lower-roles sets
  // the kernel's nvvm.cluster_dim), so an even count of CTAs.
  int64_t cluster = ctas * multicast;
  Attribute sms = b.getStringAttr("num_sms"), one = contract.integer(1);
  if (cluster != 1)
    sms = contract.mul(contract.ceildiv(sms, contract.integer(cluster)),
                       contract.integer(cluster));
  contract.record(kernel, {sms, one, one});
}

/// `x / d` rounded up, for `x` of i32 and a positive constant `d`.
static Value ceilDiv(OpBuilder &b, Location loc, Value x, int64_t d,
                     function_ref<Value(int64_t)> constant) {
  return arith::DivUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, x, constant(d - 1)), constant(d));
}

/// The CTA's index along the grid's x and the number of CTAs along it.
static std::pair<Value, Value> programGrid(OpBuilder &b, Location loc) {
  auto x = tile::GridDimAttr::get(b.getContext(), tile::GridDim::x);
  return {tile::ProgramIdOp::create(b, loc, x),
          tile::NumProgramsOp::create(b, loc, x)};
}

/// The output tile (row, column) of persistent work item `t` in grouped
/// order: kGroupM tile rows at a time, so that neighbouring CTAs share A and
/// B tiles in L2.
static std::pair<Value, Value>
groupedTile(OpBuilder &b, Location loc, Value t, Value tilesM, Value tilesN,
            function_ref<Value(int64_t)> constant) {
  Value perGroup = arith::MulIOp::create(b, loc, tilesN, constant(kGroupM));
  Value firstM = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, t, perGroup), constant(kGroupM));
  Value groupRows = arith::MinUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, tilesM, firstM), constant(kGroupM));
  Value inGroup = arith::RemUIOp::create(b, loc, t, perGroup);
  Value pidM = arith::AddIOp::create(
      b, loc, firstM, arith::RemUIOp::create(b, loc, inGroup, groupRows));
  Value pidN = arith::DivUIOp::create(b, loc, inGroup, groupRows);
  return {pidM, pidN};
}

/// The loop over K steps [`begin`, `end`) of the consumer tiles at `rows`
/// of A and column `column` of B: each step loads an A tile per row and one
/// B tile (its half of B's columns in 2-CTA mode, `pair`), and adds their
/// products into the rows' f32 accumulators, which start at `init`.
/// Returns the loop, its results the accumulators.
static scf::ForOp buildStepLoop(GemmOp op, OpBuilder &b, Value a, Value bArg,
                                ArrayRef<Value> rows, Value column, Value begin,
                                Value end, Value init, bool pair,
                                function_ref<Value(int64_t)> constant) {
  Location loc = op.getLoc();
  bool kMajorB = op.getTransposeB();
  SmallVector<Value> inits(rows.size(), init);
  Value step = constant(1);
  auto loop = scf::ForOp::create(b, loc, begin, end, step, inits);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value kOffset = arith::MulIOp::create(b, loc, loop.getInductionVar(),
                                        constant(op.getBlockK()));
  SmallVector<Value> aTiles;
  for (Value row : rows)
    aTiles.push_back(tile::LoadOp::create(b, loc, a, {row, kOffset}));
  Value bTile =
      tile::LoadOp::create(b, loc, bArg,
                           kMajorB ? SmallVector<Value>{column, kOffset}
                                   : SmallVector<Value>{kOffset, column});
  // With swap_ab the product is turned around, B A^T: B's rows are the
  // MMA's M (B as [K, N] is its A operand given K x M) and A's rows, given
  // as N x K of the MMA, its N.
  bool swap = op.getSwapAb();
  UnitAttr unit = b.getUnitAttr();
  SmallVector<Value> results;
  for (auto [aTile, acc] : llvm::zip(aTiles, loop.getRegionIterArgs()))
    results.push_back(tile::DotOp::create(
        b, loc, swap ? bTile : aTile, swap ? aTile : bTile, acc,
        swap && !kMajorB ? unit : UnitAttr(),
        swap || kMajorB ? unit : UnitAttr(), UnitAttr(),
        pair ? unit : UnitAttr()));
  scf::YieldOp::create(b, loc, results);
  return loop;
}

/// The main loop over K steps [`begin` (0 when null), `end`) of the
/// consumer tiles at `rows` (buildStepLoop), the accumulators starting at
/// `init` (zeros). With accumulate promotion (`promote_every n`) a loop
/// over groups of n steps: each group's steps accumulate into a fresh tile
/// of zeros (`init`), which is then added into the group loop's f32 sums,
/// so that no wgmma chain runs longer than n steps. Returns the outer loop,
/// its results the accumulators.
static scf::ForOp buildMainLoop(GemmOp op, OpBuilder &b, Value a, Value bArg,
                                ArrayRef<Value> rows, Value column, Value begin,
                                Value end, Value init, bool pair,
                                function_ref<Value(int64_t)> constant) {
  if (!begin)
    begin = constant(0);
  int64_t every = op.getPromoteInterval();
  if (every == 0)
    return buildStepLoop(op, b, a, bArg, rows, column, begin, end, init, pair,
                         constant);
  Location loc = op.getLoc();
  SmallVector<Value> inits(rows.size(), init);
  auto groups = scf::ForOp::create(b, loc, begin, end, constant(every), inits);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(groups.getBody());
  Value first = groups.getInductionVar();
  Value last = arith::MinUIOp::create(
      b, loc, arith::AddIOp::create(b, loc, first, constant(every)), end);
  auto steps = buildStepLoop(op, b, a, bArg, rows, column, first, last, init,
                             pair, constant);
  SmallVector<Value> sums;
  for (auto [sum, partial] :
       llvm::zip(groups.getRegionIterArgs(), steps.getResults()))
    sums.push_back(arith::AddFOp::create(b, loc, sum, partial));
  scf::YieldOp::create(b, loc, sums);
  return groups;
}

/// An f32 tile of zeros of `shape`.
static Value zeroTile(OpBuilder &b, Location loc, ArrayRef<int64_t> shape) {
  Type f32 = b.getF32Type();
  return arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get(shape, f32),
                             b.getFloatAttr(f32, 0.0)));
}

/// A block_m x block_n f32 tile of zeros (block_n x block_m with swap_ab),
/// where accumulators start.
static Value zeroAccumulator(GemmOp op, OpBuilder &b) {
  int64_t blockM = op.getBlockM(), blockN = op.getBlockN();
  return zeroTile(b, op.getLoc(),
                  op.getSwapAb() ? ArrayRef{blockN, blockM}
                                 : ArrayRef{blockM, blockN});
}

/// The accumulator `acc` as C's block_m x block_n tile: with swap_ab its
/// transpose (the main loop computes C^T = B A^T), else itself.
static Value cTile(GemmOp op, OpBuilder &b, Value acc) {
  if (!op.getSwapAb())
    return acc;
  return tile::TransposeOp::create(
      b, op.getLoc(),
      RankedTensorType::get({op.getBlockM(), op.getBlockN()}, b.getF32Type()),
      acc);
}

/// The scales of an fp8 GEMM: its `scale_a` and `scale_b` buffers, null
/// for other GEMMs.
struct Scales {
  Value a, b;
};

/// The f32 tile `acc` of C at (`row`, `column`) times the scales (fp8):
/// the product of the per-tensor scales as one scalar, then the row
/// vector of `scale_a` broadcast along the rows and the column vector of
/// `scale_b` along the columns, each loaded once per tile. `acc` itself
/// without scales.
static Value scaleOutput(GemmOp op, OpBuilder &b, Value acc, Value row,
                         Value column, Scales scales) {
  if (!scales.a)
    return acc;
  Location loc = op.getLoc();
  Type f32 = b.getF32Type();
  auto type = cast<RankedTensorType>(acc.getType());
  Value scalar;
  auto scaleBy = [&](Value scale) {
    Value first = memref::LoadOp::create(
        b, loc, scale, ValueRange{arith::ConstantIndexOp::create(b, loc, 0)});
    scalar = scalar ? arith::MulFOp::create(b, loc, scalar, first).getResult()
                    : first;
  };
  if (!op.hasRowScales())
    scaleBy(scales.a);
  if (!op.hasColumnScales())
    scaleBy(scales.b);
  Value result = acc;
  if (scalar)
    result = arith::MulFOp::create(
        b, loc, result, tensor::SplatOp::create(b, loc, type, scalar));
  auto scaleAlong = [&](Value scale, int64_t axis, Value at) {
    // The vector of the kept dimension: rows for axis 1, columns for 0.
    int64_t size = type.getShape()[1 - axis];
    Value vector = tile::LoadDirectOp::create(
        b, loc, RankedTensorType::get({size}, f32), scale, ValueRange{at});
    result = arith::MulFOp::create(
        b, loc, result,
        tile::BroadcastOp::create(b, loc, type, vector,
                                  b.getI64IntegerAttr(axis)));
  };
  if (op.hasRowScales())
    scaleAlong(scales.a, /*axis=*/1, row);
  if (op.hasColumnScales())
    scaleAlong(scales.b, /*axis=*/0, column);
  return result;
}

/// The f32 tile `acc` rounded to C's element type (`acc` itself when C is
/// f32).
static Value roundOutput(GemmOp op, OpBuilder &b, Value acc) {
  Type outType = op.getCType().getElementType();
  if (outType == b.getF32Type())
    return acc;
  return arith::TruncFOp::create(
      b, op.getLoc(),
      RankedTensorType::get({op.getBlockM(), op.getBlockN()}, outType), acc);
}

/// The ping-pong tile program (`schedule pingpong`, sm_90a): CTA p walks
/// the output tiles p, p + P, p + 2P, ... (P CTAs), its work items, two at
/// a time; item 2j + i belongs to consumer i, whose main loop and store come
/// in program order after consumer i - 1's. Each main loop is a loop of its
/// own, so ws-assign-roles gives each consumer its own ring and marks the
/// loops as turns. A second item past the last tile runs no steps and
/// stores nothing (its rows start at M, outside C).
static void buildPingPongTiles(GemmOp op, OpBuilder &b, Value a, Value bArg,
                               Value c, Value m, Value n, Value k,
                               Scales scales,
                               function_ref<Value(int64_t)> constant) {
  Location loc = op.getLoc();
  int64_t blockM = op.getBlockM(), blockN = op.getBlockN(),
          blockK = op.getBlockK();
  int64_t consumers = op.getNumConsumerGroups();
  Value tilesM = ceilDiv(b, loc, m, blockM, constant);
  Value tilesN = ceilDiv(b, loc, n, blockN, constant);
  Value tiles = arith::MulIOp::create(b, loc, tilesM, tilesN);
  auto [pid, numPrograms] = programGrid(b, loc);
  Value kTiles = ceilDiv(b, loc, k, blockK, constant);
  Value step = arith::MulIOp::create(b, loc, numPrograms, constant(consumers));
  auto itemLoop = scf::ForOp::create(b, loc, pid, tiles, step);
  b.setInsertionPointToStart(itemLoop.getBody());
  Value first = itemLoop.getInductionVar();
  for (int64_t i = 0; i < consumers; ++i) {
    // Consumer i's item; past the last tile, the first item's tile with no
    // steps and a store outside C.
    Value t = first, valid;
    if (i > 0) {
      Value offset =
          i == 1 ? numPrograms
                 : arith::MulIOp::create(b, loc, numPrograms, constant(i))
                       .getResult();
      t = arith::AddIOp::create(b, loc, first, offset);
      valid =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, t, tiles);
      t = arith::SelectOp::create(b, loc, valid, t, first);
    }
    auto [pidM, pidN] = groupedTile(b, loc, t, tilesM, tilesN, constant);
    Value row = arith::MulIOp::create(b, loc, pidM, constant(blockM));
    Value column = arith::MulIOp::create(b, loc, pidN, constant(blockN));
    Value steps = kTiles;
    if (valid)
      steps = arith::SelectOp::create(b, loc, valid, kTiles, constant(0));
    Value zero = zeroAccumulator(op, b);
    auto loop = buildMainLoop(op, b, a, bArg, row, column, Value(), steps, zero,
                              /*pair=*/false, constant);
    Value result = roundOutput(
        op, b, scaleOutput(op, b, loop.getResult(0), row, column, scales));
    Value storeRow = row;
    if (valid)
      storeRow = arith::SelectOp::create(b, loc, valid, row, m);
    tile::StoreOp::create(b, loc, c, {storeRow, column}, result);
  }
  b.setInsertionPointAfter(itemLoop);
}

/// The split-K tile program (`splits n`, cooperative): work item w of the
/// persistent grid is K range s = w mod n of CTA tile t = w / n (tiles in
/// grouped order); its main loop runs K steps [s * steps / n, (s + 1) *
/// steps / n). Each consumer's f32 partial tile goes to `workspace[s]` by
/// plain stores, then the consumer arrives at its tile's counter; the last
/// of the n arrivals loads the n partials in split order (so the sum is the
/// same whichever came last), rounds the sum and stores it to C.
static void buildSplitKTiles(GemmOp op, OpBuilder &b, Value a, Value bArg,
                             Value c, Value m, Value n, Value k,
                             Value workspace, Value counters, Scales scales,
                             function_ref<Value(int64_t)> constant) {
  Location loc = op.getLoc();
  int64_t blockM = op.getBlockM(), blockN = op.getBlockN(),
          blockK = op.getBlockK();
  int64_t consumers = op.getNumConsumerGroups();
  int64_t splits = op.getNumSplits();
  Value tilesM = ceilDiv(b, loc, m, blockM * consumers, constant);
  Value tilesN = ceilDiv(b, loc, n, blockN, constant);
  Value tiles = arith::MulIOp::create(b, loc, tilesM, tilesN);
  Value items = arith::MulIOp::create(b, loc, tiles, constant(splits));
  auto [pid, numPrograms] = programGrid(b, loc);
  Value kTiles = ceilDiv(b, loc, k, blockK, constant);
  auto itemLoop = scf::ForOp::create(b, loc, pid, items, numPrograms);
  b.setInsertionPointToStart(itemLoop.getBody());
  Value w = itemLoop.getInductionVar();
  Value t = arith::DivUIOp::create(b, loc, w, constant(splits));
  Value split = arith::RemUIOp::create(b, loc, w, constant(splits));
  auto [pidM, pidN] = groupedTile(b, loc, t, tilesM, tilesN, constant);
  Value m0 = arith::MulIOp::create(b, loc, pidM, constant(blockM * consumers));
  SmallVector<Value> rows;
  for (int64_t i = 0; i < consumers; ++i)
    rows.push_back(i == 0
                       ? m0
                       : arith::AddIOp::create(b, loc, m0, constant(i * blockM))
                             .getResult());
  Value n0 = arith::MulIOp::create(b, loc, pidN, constant(blockN));
  // Balanced K ranges: range s starts at step s * steps / n.
  auto rangeStart = [&](Value s) -> Value {
    return arith::DivUIOp::create(
        b, loc, arith::MulIOp::create(b, loc, s, kTiles), constant(splits));
  };
  Value kBegin = rangeStart(split);
  Value kEnd = rangeStart(arith::AddIOp::create(b, loc, split, constant(1)));

  Value zero = zeroAccumulator(op, b);
  auto loop = buildMainLoop(op, b, a, bArg, rows, n0, kBegin, kEnd, zero,
                            /*pair=*/false, constant);
  // The sum starts from C's tile of zeros: with swap_ab not the
  // accumulator's (which is C^T).
  Value sumZero = op.getSwapAb() ? zeroTile(b, loc, {blockM, blockN}) : zero;
  for (auto [i, acc, row] : llvm::enumerate(loop.getResults(), rows)) {
    tile::StoreDirectOp::create(b, loc, workspace, {split, row, n0},
                                cTile(op, b, acc));
    Value counter = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, t, constant(consumers)),
        constant(i));
    Value last = tile::CounterArriveOp::create(b, loc, counters, counter,
                                               constant(splits));
    auto ifOp = scf::IfOp::create(b, loc, last, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    // The partials in split order, one at a time.
    auto sumLoop = scf::ForOp::create(b, loc, constant(0), constant(splits),
                                      constant(1), ValueRange{sumZero});
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(sumLoop.getBody());
      Value partial = tile::LoadDirectOp::create(
          b, loc, sumZero.getType(), workspace,
          ValueRange{sumLoop.getInductionVar(), row, n0});
      Value sum = arith::AddFOp::create(b, loc, sumLoop.getRegionIterArgs()[0],
                                        partial);
      scf::YieldOp::create(b, loc, sum);
    }
    tile::StoreOp::create(
        b, loc, c, {row, n0},
        roundOutput(op, b,
                    scaleOutput(op, b, sumLoop.getResult(0), row, n0, scales)));
  }
  b.setInsertionPointAfter(itemLoop);
}

LogicalResult fmha::expandGemm(GemmOp op, OpBuilder &b) {
  // The tile program is the same for sm_90a and sm_100a: the targets differ
  // in layouts and roles, assigned by later passes.

  Location loc = op.getLoc();
  Type inType = op.getAType().getElementType();
  Type outType = op.getCType().getElementType();
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  int64_t blockM = op.getBlockM(), blockN = op.getBlockN(),
          blockK = op.getBlockK();
  int64_t consumers = op.getNumConsumerGroups();
  // 2-CTA mode: the two CTAs of a cluster share each MMA; each loads its own
  // block_m rows of A per consumer and half of B's block_n.
  int64_t ctas = op.getNumCtas();
  bool pair = ctas == 2;
  int64_t blockNB = blockN / ctas;
  // TMA multicast: the two CTAs of a cluster take neighbouring row tiles of
  // the same column tile and share its B block (each loads half into both).
  bool multicast = op.getNumMulticast() == 2;
  // CTAs of a cluster, which walks the tiles as one persistent worker.
  int64_t cluster = pair || multicast ? 2 : 1;

  auto aDesc = tile::TensorDescType::get(
      RankedTensorType::get({blockM, blockK}, inType));
  bool kMajorB = op.getTransposeB();
  auto bDesc = tile::TensorDescType::get(
      RankedTensorType::get(kMajorB ? ArrayRef<int64_t>{blockNB, blockK}
                                    : ArrayRef<int64_t>{blockK, blockNB},
                            op.getBType().getElementType()));
  auto cDesc = tile::TensorDescType::get(
      RankedTensorType::get({blockM, blockN}, outType));
  SmallVector<Type> params{aDesc, bDesc, cDesc, i32, i32, i32};
  // fp8: the scales, whatever their size, as 1-d f32 buffers.
  bool scaled = op.isFp8();
  if (scaled) {
    auto scaleType = MemRefType::get({ShapedType::kDynamic}, f32);
    params.append({scaleType, scaleType});
  }
  // Split-K: the workspace of partial sums and the tiles' counters.
  bool split = op.getNumSplits() > 1;
  if (split) {
    int64_t dynamic = ShapedType::kDynamic;
    params.push_back(MemRefType::get({dynamic, dynamic, dynamic}, f32));
    params.push_back(MemRefType::get({dynamic}, i32));
  }
  KernelShell shell =
      createKernelShell(b, op, op.getSymName(), op.getTarget(), params);
  gpu::GPUFuncOp func = shell.func;
  auto *fmha = cast<FMHADialect>(op->getDialect());
  recordGemmContract(op, func, b);
  fmha->getStagesAttrHelper().setAttr(
      func, b.getI64IntegerAttr(op.getStagesOrDefault()));
  if (!getTargetInfo(op.getTarget()).accumulatesInTensorMemory())
    fmha->getConsumerRegistersAttrHelper().setAttr(
        func, b.getI64IntegerAttr(op.getConsumerRegisters()));
  if (pair)
    func->setAttr(ws::WSDialect::CtaPairAttrHelper::getNameStr(),
                  b.getUnitAttr());
  if (multicast)
    func->setAttr(ws::WSDialect::MulticastAttrHelper::getNameStr(),
                  b.getUnitAttr());
  Value a = func.getArgument(0), bArg = func.getArgument(1),
        c = func.getArgument(2), k = func.getArgument(5);

  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i32, v);
  };
  Scales scales;
  unsigned nextArg = 6;
  if (scaled) {
    scales = {func.getArgument(6), func.getArgument(7)};
    nextArg = 8;
  }
  if (split) {
    buildSplitKTiles(op, b, a, bArg, c, func.getArgument(3),
                     func.getArgument(4), k, func.getArgument(nextArg),
                     func.getArgument(nextArg + 1), scales, constant);
    gpu::ReturnOp::create(b, loc);
    op.erase();
    return success();
  }
  if (op.isPingPong()) {
    buildPingPongTiles(op, b, a, bArg, c, func.getArgument(3),
                       func.getArgument(4), k, scales, constant);
    gpu::ReturnOp::create(b, loc);
    op.erase();
    return success();
  }
  // Persistent: CTA p takes output tiles p, p + #CTAs, ... in grouped order
  // (kGroupM tile rows at a time, so neighbouring CTAs share A and B tiles
  // in L2), and its roles carry on with the next tile's loads while the
  // consumers store the last one.
  Value m = func.getArgument(3), n = func.getArgument(4);
  // In 2-CTA and multicast mode a tile spans both CTAs' rows and the
  // cluster is the persistent worker: CTA 2p + r is rank r of cluster p.
  Value tilesM = ceilDiv(b, loc, m, cluster * blockM * consumers, constant);
  Value tilesN = ceilDiv(b, loc, n, blockN, constant);
  Value tiles = arith::MulIOp::create(b, loc, tilesM, tilesN);
  Value pid, numPrograms;
  std::tie(pid, numPrograms) = programGrid(b, loc);
  Value rank;
  if (cluster > 1) {
    rank = arith::RemUIOp::create(b, loc, pid, constant(cluster));
    pid = arith::DivUIOp::create(b, loc, pid, constant(cluster));
    numPrograms =
        arith::DivUIOp::create(b, loc, numPrograms, constant(cluster));
  }
  auto tileLoop = scf::ForOp::create(b, loc, pid, tiles, numPrograms);
  b.setInsertionPointToStart(tileLoop.getBody());
  Value t = tileLoop.getInductionVar();
  auto [pidM, pidN] = groupedTile(b, loc, t, tilesM, tilesN, constant);
  SmallVector<Value> rows;
  Value m0 = arith::MulIOp::create(b, loc, pidM,
                                   constant(cluster * blockM * consumers));
  // Consumer i's MMA covers ctas * block_m rows; this CTA holds block_m of
  // them, the even CTA the first. With multicast, rank r computes the r-th
  // consumers * block_m rows of the cluster's tile.
  if (pair)
    m0 = arith::AddIOp::create(
        b, loc, m0,
        arith::MulIOp::create(b, loc, rank, constant(blockM)).getResult());
  if (multicast)
    m0 = arith::AddIOp::create(
        b, loc, m0,
        arith::MulIOp::create(b, loc, rank, constant(blockM * consumers))
            .getResult());
  for (int64_t i = 0; i < consumers; ++i)
    rows.push_back(
        i == 0 ? m0
               : arith::AddIOp::create(b, loc, m0, constant(i * ctas * blockM))
                     .getResult());
  Value n0 = arith::MulIOp::create(b, loc, pidN, constant(blockN));
  // This CTA's half of B's columns (2-CTA mode).
  Value nB = n0;
  if (pair)
    nB = arith::AddIOp::create(
        b, loc, n0,
        arith::MulIOp::create(b, loc, rank, constant(blockNB)).getResult());
  Value kTiles = ceilDiv(b, loc, k, blockK, constant);

  Value zero = zeroAccumulator(op, b);
  auto loop = buildMainLoop(op, b, a, bArg, rows, nB, Value(), kTiles, zero,
                            pair, constant);
  for (auto [acc, row] : llvm::zip(loop.getResults(), rows))
    tile::StoreOp::create(
        b, loc, c, {row, n0},
        roundOutput(op, b,
                    scaleOutput(op, b, cTile(op, b, acc), row, n0, scales)));
  b.setInsertionPointAfter(tileLoop);
  gpu::ReturnOp::create(b, loc);
  op.erase();
  return success();
}
