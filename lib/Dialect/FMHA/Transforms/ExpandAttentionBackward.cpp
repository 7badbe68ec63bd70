//===- ExpandAttentionBackward.cpp - fmha.attention_backward's kernels ----===//
//
// Part of fmha. The kernels of fmha.attention_backward (docs/Backward.md),
// in one gpu.module that records their launch order (`fmha.launches`):
// the prep kernel (D = rowsum(dO * O), lse2 = lse * log2(e)), a tile
// program of plain loads and stores; the dK/dV kernel (a CTA per block of
// keys walking the query blocks of the K/V head's group) and the dQ kernel
// (a CTA per block of query rows walking the key blocks), warp-specialized
// tile programs that recompute P from lse2. No result is accumulated
// across CTAs, so the gradients are the same bits from run to run. With
// `varlen` each CTA takes a block of one sequence, whose rows it reads
// from the cu_seqlens (Sequences.cpp, as the forward).
//
//===----------------------------------------------------------------------===//

#include "Expand.h"

#include "fmha/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fmha;

namespace {

/// Builds the kernels; holds the sizes and types they share.
class BackwardBuilder : TileProgramBuilder {
public:
  BackwardBuilder(AttentionBackwardOp op, OpBuilder &b)
      : TileProgramBuilder(b, op.getLoc()), op(op), rows(op.getPrepRows()),
        headDim(op.getHeadDim()), element(op.getElementType()),
        rowType(RankedTensorType::get({rows}, f32)),
        tileType(RankedTensorType::get({rows, headDim}, f32)) {}

  LogicalResult build(ArrayRef<BackwardKernel> kernels);

private:
  /// The size symbols of the contract: seqQ and seqK are the tokens of q
  /// and k (varlen: their totals), rowsQ and rowsK the rows the grids cover
  /// (varlen: the longest sequences, sizes the caller passes), paddedSeqQ
  /// the padded rows of d_lse.
  struct Sizes {
    Attribute batch, headsQ, headsKV, seqQ, seqK, headDim, rowsQ, rowsK,
        paddedSeqQ;
  };
  Sizes getSizes(LaunchContract &contract);
  /// Whether q, k, v, o, do and the gradients are packed sequences.
  bool varlen() { return op.getVarlen(); }
  /// The shape of q, o, do and dq (`queries`) or of k, v, dk and dv in the
  /// contract: [batch, heads, seq, head_dim], varlen [total, heads,
  /// head_dim].
  SmallVector<Attribute> tokenShape(const Sizes &sizes, bool queries);
  /// A memref of q's (`queries`) or k's shape and `type`, for plain loads
  /// and stores.
  MemRefType tokenMemref(bool queries);
  /// Varlen: sets the bounds of sequence `batch` (qRow0, kRow0, seqQ,
  /// seqK), seqQ at most the longest query sequence (d_lse has no more
  /// rows), and returns whether it exists.
  Value loadSequence();
  /// `buffer` as the view of the current sequence's rows (varlen), of
  /// `heads` heads: bounded stores stop at its end.
  Value queryView(Value buffer) {
    return sequenceView(b, loc, buffer, headsQ, qRow0, seqQ, totalQ);
  }
  Value keyView(Value buffer) {
    return sequenceView(b, loc, buffer, headsKV, kRow0, seqK, totalK);
  }
  /// Varlen: loads the sequence's bounds and opens an scf.if that skips the
  /// rest of the kernel for a block whose first row `first` lies past the
  /// sequence's end (`keys`: its keys, else its query rows) or of a
  /// sequence that does not exist; leaves the builder in its then block,
  /// under `guard`. Every role computes the same condition, so their
  /// channels stay in step.
  void skipPastSequence(Value first, bool keys,
                        std::optional<OpBuilder::InsertionGuard> &guard);
  /// The coordinates of query row `row` of `head` in q or do, or of key
  /// row `row` of `kvHead` in k or v: [batch, head, row, 0], varlen [head,
  /// first row of the sequence + row, 0].
  SmallVector<Value> queryCoords(Value head, Value row);
  SmallVector<Value> keyCoords(Value kvHead, Value row);
  /// The shape of d_lse (static where the op's sizes are; varlen: dynamic
  /// but for the heads).
  SmallVector<int64_t> getDLseShape();
  /// Declares d_lse in `contract`.
  void declareDLse(LaunchContract &contract, const Sizes &sizes);
  /// The shape of dq_acc (fused_dq; static where the op's sizes are).
  SmallVector<int64_t> getDqAccShape() {
    return {op.getBatch(), op.getNumHeadsQ(), op.getSeqLenQ(), headDim};
  }
  /// Declares dq_acc (fused_dq) in `contract`.
  void declareDqAcc(LaunchContract &contract, const Sizes &sizes);
  /// The grid's x of the prep kernel: CTAs of `rows` rows over d_lse's
  /// padded rows.
  Attribute getPrepBlocks(LaunchContract &contract, const Sizes &sizes);
  /// The block of query rows a CTA of the prep kernel takes: rows row0.. of
  /// head `head` of batch `batch`.
  void readBlock();
  /// `value` in every element of a row vector.
  Value rowsOf(double value) {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(rowType, b.getF32FloatAttr(value)));
  }
  RankedTensorType tensorType(ArrayRef<int64_t> shape, Type type) {
    return RankedTensorType::get(shape, type);
  }
  /// A tensor of `type` filled with 0.
  Value zeros(RankedTensorType type) {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, b.getF32FloatAttr(0.0)));
  }
  /// The tensor map of `rows` rows of a [batch, heads, seq, head_dim]
  /// tensor (varlen: [total, heads, head_dim]), as a kernel argument type.
  Type rowsDesc(int64_t tileRows) { return rowsDesc(tileRows, headDim); }
  /// The same of tiles of `columns` of each row's head_dim.
  Type rowsDesc(int64_t tileRows, int64_t columns) {
    return tile::TensorDescType::get(tensorType({tileRows, columns}, element),
                                     op.getTokenRank());
  }
  /// The main kernels' first argument types: the tensor maps of q, k, v
  /// and do (boxes of `queryRows` and `keyRows` rows) and d_lse.
  SmallVector<Type> mainInputTypes(int64_t queryRows, int64_t keyRows) {
    return {rowsDesc(queryRows), rowsDesc(keyRows), rowsDesc(keyRows),
            rowsDesc(queryRows), MemRefType::get(getDLseShape(), f32)};
  }
  /// Declares q, k, v and do (inputs) and d_lse in `contract`, with the
  /// tensor maps of q and do in boxes of `queryRows` rows and of k and v in
  /// boxes of `keyRows` (one 128-byte swizzle span wide), then d_lse as a
  /// memref: the main kernels' first parameters.
  void declareMainInputs(LaunchContract &contract, const Sizes &sizes,
                         int64_t queryRows, int64_t keyRows);
  /// Appends the trailing arguments of a kernel to `args`: the size
  /// scalars (batch, heads_q, heads_kv, seq_q, seq_k), varlen the
  /// cu_seqlens and (batch, heads_q, heads_kv, max_seqlen_q, total_q,
  /// total_k).
  void appendSizeArgs(SmallVector<Type> &args);
  /// Reads the trailing arguments of `func` appendSizeArgs added, from
  /// argument `first` on.
  void readSizes(gpu::GPUFuncOp func, unsigned first);
  /// Declares and passes the trailing arguments.
  void passSizes(LaunchContract &contract, const Sizes &sizes);
  /// Records a main kernel's ring slots and its consumers' registers on
  /// `func`, for ws-assign-roles, and that the lowering computes its wgmma
  /// descriptors at their use (`fmha.descriptors_at_use`): the backward's
  /// kernels issue five or three dots a step, and descriptors encoded once
  /// per dot cost less than hoisted ones held across the loop (measured:
  /// docs/Backward.md).
  void configure(gpu::GPUFuncOp func, int64_t registers) {
    auto *fmha = op->getContext()->getLoadedDialect<FMHADialect>();
    fmha->getStagesAttrHelper().setAttr(func,
                                        b.getI64IntegerAttr(op.getStages()));
    fmha->getConsumerRegistersAttrHelper().setAttr(
        func, b.getI64IntegerAttr(registers));
    fmha->getDescriptorsAtUseAttrHelper().setAttr(func, b.getUnitAttr());
  }

  /// fmha::windowSize at this builder.
  Value windowSize(int64_t size, Value seqLen) {
    return fmha::windowSize(b, loc, size, seqLen);
  }
  /// Whether key `keys` is visible to query `queries` (i32 tensors of one
  /// shape): both inside their sequences and inside the mask, the
  /// diagonal aligned bottom-right as in fmha.attention.
  Value visible(Value keys, Value queries);
  /// Whether the tile of keys [n0, n0 + keyRows) and queries [m0, m0 +
  /// queryRows) has any element `visible` hides (an i1 scalar).
  Value needsMask(Value n0, int64_t keyRows, Value m0, int64_t queryRows);
  /// The query blocks of `rows` rows that see any key of the dK/dV CTA's
  /// block from `n0`: the first block's row and the number of blocks.
  std::pair<Value, Value> queryBlocks(Value n0, int64_t rows);
  /// The key blocks of `keyRows` keys that any of the `queryRows` query
  /// rows from `m0` see: the first block's key and the number of blocks.
  std::pair<Value, Value> keyBlocks(Value m0, int64_t queryRows,
                                    int64_t keyRows);
  /// The blocks of `rows` that cover [begin, end): ceil((end - begin) /
  /// rows), 0 when the range is empty.
  Value blocksBetween(Value begin, Value end, int64_t rows);
  /// `p` with the elements `visible` hides set to 0, where the tile needs
  /// it (an scf.if): `keyAxis` is the axis of the tile's keys.
  Value maskProbabilities(Value p, Value n0, Value m0, unsigned keyAxis);
  /// P = 2^(c * S - lse2) for raw scores `s`, lse2 broadcast along
  /// `lseAxis` (the keys' axis: a row vector of queries along the other).
  Value probabilities(Value s, Value lse2, unsigned lseAxis);
  /// dS = P * (dP - D), D broadcast along `axis`.
  Value scoreGrads(Value p, Value dp, Value d, unsigned axis);
  /// What one step of the dK/dV kernel's loop works on: the accumulators
  /// (dV and dK of each consumer, in that order; split, dV and dK's column
  /// parts), each consumer's K tiles (one per column part) and V tile and
  /// first key, the step's Q tiles (one per column part) and dO tile, its
  /// first query row, and its lse2 and D vectors.
  struct KeyGradStep {
    ValueRange accs;
    ArrayRef<SmallVector<Value>> kTiles;
    ArrayRef<Value> vTiles, keyStarts;
    ArrayRef<Value> qTiles;
    Value doTile, m0, lse2, d;
  };
  /// The loop-carried accumulators of each consumer: dV and dK's column
  /// parts.
  int64_t accsPerConsumer() { return 1 + op.getQueryGradParts(); }
  /// One step in the query-major form (keyGradsQueryMajor): each
  /// consumer's S = Q K_c^T (summed over the column parts) and dP = dO
  /// V_c^T issued together, P and dS with the queries as rows, then dV_c
  /// += P^T dO and dK_c += dS^T Q (per column part; P and dS read
  /// transposed); with `dqAcc` (fused_dq) each consumer's part of dQ = dS
  /// K_c too (dS from registers), added into it, or, split
  /// (splitsQueryGrads), column part h of dQ = sum_c dS_c K_c[:, h] for
  /// each h, which reads every consumer's dS (ws-assign-roles gives part h
  /// to consumer h and hands it the others' dS). Returns the accumulators
  /// after the step.
  SmallVector<Value> queryMajorKeyGrads(const KeyGradStep &step, Value dqAcc);
  /// One step in the transposed form: S^T = K_c Q^T and dP^T = V_c dO^T
  /// (dP^T issued with S^T where op.overlapsKeyGradProducts()), P^T and
  /// dS^T as register A operands of dV_c += P^T dO and dK_c += dS^T Q.
  /// Returns the accumulators after the step.
  SmallVector<Value> transposedKeyGrads(const KeyGradStep &step);
  /// An asynchronous `a @ b + acc` (`transposeB`: b is [N, K]).
  Value issueDot(Value a, Value bTile, Value acc, bool transposeB) {
    UnitAttr unit = b.getUnitAttr();
    return tile::DotOp::create(b, loc, a, bTile, acc, UnitAttr(),
                               transposeB ? unit : UnitAttr(), unit);
  }
  /// `dot` complete, with at most `pending` newer dots of the same
  /// threads still running.
  Value waitFor(Value dot, int64_t pending) {
    return tile::DotWaitOp::create(b, loc, ValueRange{dot}, pending)
        .getResult(0);
  }
  /// `value` rounded to the element type.
  Value narrow(Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    return arith::TruncFOp::create(b, loc, tensorType(type.getShape(), element),
                                   value);
  }

  void buildPrep(gpu::GPUModuleOp module);
  void buildKeyGrads(gpu::GPUModuleOp module);
  void buildQueryGrads(gpu::GPUModuleOp module);
  void buildPost(gpu::GPUModuleOp module);

  AttentionBackwardOp op;
  int64_t rows, headDim;
  Type element;
  RankedTensorType rowType, tileType;
  Value batch, head, row0;
  /// The kernels' size arguments; varlen: the cu_seqlens, the longest
  /// query sequence and the totals, and the current sequence's first rows.
  Value batchCount, headsQ, headsKV, seqQ, seqK;
  Value cuQ, cuK, maxSeqQ, totalQ, totalK, qRow0, kRow0;
};

} // namespace

BackwardBuilder::Sizes BackwardBuilder::getSizes(LaunchContract &contract) {
  Sizes sizes;
  sizes.headsQ = contract.size(op.getNumHeadsQ(), "H");
  sizes.headsKV = contract.size(op.getNumHeadsKV(), "HKV");
  sizes.headDim = contract.integer(headDim);
  int64_t pad = op.getLsePadRows(), seqQ = op.getSeqLenQ();
  if (varlen()) {
    sizes.seqQ = contract.size(op.getSeqLenQ(), "TQ");
    sizes.seqK = contract.size(op.getSeqLenK(), "TK");
    // The batch and the longest sequences size the grids and d_lse; no
    // tensor's shape has them: the caller passes them.
    sizes.batch = contract.callerSize("B");
    sizes.rowsQ = contract.callerSize("MAXQ");
    sizes.rowsK = contract.callerSize("MAXK");
    seqQ = ShapedType::kDynamic;
  } else {
    sizes.batch = contract.size(op.getBatch(), "B");
    sizes.seqQ = sizes.rowsQ = contract.size(op.getSeqLenQ(), "SQ");
    sizes.seqK = sizes.rowsK = contract.size(op.getSeqLenK(), "SK");
  }
  sizes.paddedSeqQ =
      ShapedType::isDynamic(seqQ)
          ? contract.mul(contract.ceildiv(sizes.rowsQ, contract.integer(pad)),
                         contract.integer(pad))
          : contract.integer(llvm::divideCeil(seqQ, pad) * pad);
  return sizes;
}

SmallVector<Attribute> BackwardBuilder::tokenShape(const Sizes &sizes,
                                                   bool queries) {
  Attribute heads = queries ? sizes.headsQ : sizes.headsKV;
  Attribute tokens = queries ? sizes.seqQ : sizes.seqK;
  if (varlen())
    return {tokens, heads, sizes.headDim};
  return {sizes.batch, heads, tokens, sizes.headDim};
}

MemRefType BackwardBuilder::tokenMemref(bool queries) {
  RankedTensorType type = queries ? op.getQueryType() : op.getKeyType();
  return MemRefType::get(type.getShape(), element);
}

SmallVector<int64_t> BackwardBuilder::getDLseShape() {
  int64_t seqQ = op.getSeqLenQ(), pad = op.getLsePadRows();
  if (varlen())
    return {ShapedType::kDynamic, op.getNumHeadsQ(), 2, ShapedType::kDynamic};
  return {op.getBatch(), op.getNumHeadsQ(), 2,
          ShapedType::isDynamic(seqQ)
              ? ShapedType::kDynamic
              : llvm::divideCeilSigned(seqQ, pad) * pad};
}

Value BackwardBuilder::loadSequence() {
  SequenceBounds bounds =
      loadSequenceBounds(b, loc, cuQ, cuK, batchCount, batch, totalQ, totalK);
  qRow0 = bounds.qRow0;
  kRow0 = bounds.kRow0;
  seqQ = arith::MinSIOp::create(b, loc, bounds.seqQ, maxSeqQ);
  seqK = bounds.seqK;
  return bounds.exists;
}

void BackwardBuilder::skipPastSequence(
    Value first, bool keys, std::optional<OpBuilder::InsertionGuard> &guard) {
  Value exists = loadSequence();
  Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, first,
                                       keys ? seqK : seqQ);
  auto ifOp =
      scf::IfOp::create(b, loc, arith::AndIOp::create(b, loc, exists, inside),
                        /*withElseRegion=*/false);
  guard.emplace(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
}

SmallVector<Value> BackwardBuilder::queryCoords(Value head, Value row) {
  if (varlen())
    return {head, arith::AddIOp::create(b, loc, qRow0, row), constI32(0)};
  return {batch, head, row, constI32(0)};
}

SmallVector<Value> BackwardBuilder::keyCoords(Value kvHead, Value row) {
  if (varlen())
    return {kvHead, arith::AddIOp::create(b, loc, kRow0, row), constI32(0)};
  return {batch, kvHead, row, constI32(0)};
}

// d_lse is written by the prep kernel of the same call before the main
// kernels read it, so its contents do not matter from one call to the next.
void BackwardBuilder::declareDLse(LaunchContract &contract,
                                  const Sizes &sizes) {
  contract.scratch(
      "d_lse",
      {sizes.batch, sizes.headsQ, contract.integer(2), sizes.paddedSeqQ}, f32,
      /*zeroed=*/false);
}

// dq_acc is zeroed by the prep kernel of the same call before the dK/dV
// kernel adds into it.
void BackwardBuilder::declareDqAcc(LaunchContract &contract,
                                   const Sizes &sizes) {
  contract.scratch("dq_acc",
                   {sizes.batch, sizes.headsQ, sizes.seqQ, sizes.headDim}, f32,
                   /*zeroed=*/false);
}

Attribute BackwardBuilder::getPrepBlocks(LaunchContract &contract,
                                         const Sizes &sizes) {
  int64_t pad = op.getLsePadRows();
  if (pad % rows != 0)
    return contract.ceildiv(sizes.paddedSeqQ, contract.integer(rows));
  Attribute padBlocks = contract.ceildiv(sizes.rowsQ, contract.integer(pad));
  if (pad == rows)
    return padBlocks;
  return contract.mul(padBlocks, contract.integer(pad / rows));
}

void BackwardBuilder::readBlock() {
  row0 = arith::MulIOp::create(
      b, loc, tile::ProgramIdOp::create(b, loc, i32, tile::GridDim::x),
      constI32(rows));
  head = tile::ProgramIdOp::create(b, loc, i32, tile::GridDim::y);
  batch = tile::ProgramIdOp::create(b, loc, i32, tile::GridDim::z);
}

/// The prep kernel: for a block of query rows, D = rowsum(dO * O) in f32
/// and lse2 = lse * log2(e) (+inf where lse is -inf: P = 2^(S - lse2) is
/// then 0) into d_lse, and (fused_dq) the block's rows of dq_acc zeroed.
/// Its grid covers d_lse's padded rows, which read O, dO and lse as 0 (D =
/// 0, lse2 = 0: what the main kernels read there is defined); varlen, the
/// rows past each sequence's end.
void BackwardBuilder::buildPrep(gpu::GPUModuleOp module) {
  SmallVector<Type> args = {tokenMemref(true), tokenMemref(true),
                            MemRefType::get(op.getLseType().getShape(), f32),
                            MemRefType::get(getDLseShape(), f32)};
  if (op.getFusedDq())
    args.push_back(MemRefType::get(getDqAccShape(), f32));
  unsigned sizesArg = args.size();
  if (varlen())
    appendSizeArgs(args);
  gpu::GPUFuncOp func =
      addKernel(b, module, (op.getSymName() + "_prep").str(), args);
  LaunchContract contract(b);
  Sizes sizes = getSizes(contract);
  SmallVector<Attribute> qShape = tokenShape(sizes, /*queries=*/true);
  contract.tensor("o", qShape, element, /*output=*/false);
  contract.tensor("do", qShape, element, /*output=*/false);
  SmallVector<Attribute> lseShape =
      varlen() ? SmallVector<Attribute>{sizes.headsQ, sizes.seqQ}
               : SmallVector<Attribute>{sizes.batch, sizes.headsQ, sizes.seqQ};
  contract.tensor("lse", lseShape, f32, /*output=*/false);
  declareDLse(contract, sizes);
  for (StringRef name : {"o", "do", "lse", "d_lse"})
    contract.memref(name);
  if (op.getFusedDq()) {
    declareDqAcc(contract, sizes);
    contract.memref("dq_acc");
  }
  if (varlen())
    passSizes(contract, sizes);
  contract.record(func,
                  {getPrepBlocks(contract, sizes), sizes.headsQ, sizes.batch});

  Value o = func.getArgument(0), dO = func.getArgument(1),
        lse = func.getArgument(2), dLse = func.getArgument(3);
  readBlock();
  Value zero = constI32(0);
  SmallVector<Value> at = {batch, head, row0, zero};
  SmallVector<Value> lseAt = {batch, head, row0};
  if (varlen()) {
    // Each sequence's rows; the views read 0 past its end.
    readSizes(func, sizesArg);
    loadSequence();
    o = queryView(o);
    dO = queryView(dO);
    lse = queryView(lse);
    at = {head, row0, zero};
    lseAt = {head, row0};
  }
  auto loadType = RankedTensorType::get({rows, headDim}, element);
  auto load = [&](Value source) -> Value {
    Value loaded =
        tile::LoadDirectOp::create(b, loc, loadType, source, ValueRange(at));
    return arith::ExtFOp::create(b, loc, tileType, loaded);
  };
  Value product = arith::MulFOp::create(b, loc, load(dO), load(o));
  Value d = tile::ReduceOp::create(
      b, loc, rowType,
      tile::ReduceKindAttr::get(b.getContext(), tile::ReduceKind::sum), product,
      b.getI64IntegerAttr(1));
  Value rowLse =
      tile::LoadDirectOp::create(b, loc, rowType, lse, ValueRange(lseAt));
  Value noKeys =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, rowLse,
                            rowsOf(-std::numeric_limits<double>::infinity()));
  Value lse2 = arith::SelectOp::create(
      b, loc, noKeys, rowsOf(std::numeric_limits<double>::infinity()),
      arith::MulFOp::create(b, loc, rowLse, rowsOf(M_LOG2E)));
  tile::StoreDirectOp::create(b, loc, dLse, {batch, head, zero, row0}, d);
  tile::StoreDirectOp::create(b, loc, dLse, {batch, head, constI32(1), row0},
                              lse2);
  if (op.getFusedDq())
    tile::StoreDirectOp::create(b, loc, func.getArgument(4),
                                {batch, head, row0, zero}, zeros(tileType));
  gpu::ReturnOp::create(b, loc);
}

void BackwardBuilder::declareMainInputs(LaunchContract &contract,
                                        const Sizes &sizes, int64_t queryRows,
                                        int64_t keyRows) {
  SmallVector<Attribute> qShape = tokenShape(sizes, /*queries=*/true);
  SmallVector<Attribute> kShape = tokenShape(sizes, /*queries=*/false);
  contract.tensor("q", qShape, element, /*output=*/false);
  contract.tensor("k", kShape, element, /*output=*/false);
  contract.tensor("v", kShape, element, /*output=*/false);
  contract.tensor("do", qShape, element, /*output=*/false);
  declareDLse(contract, sizes);
  // Rows of head_dim 16-bit elements in boxes of one 128-byte span; varlen,
  // over [heads, total, head_dim] views of the packed tensors (dims [1, 0,
  // 2]): a box covers rows of one head.
  int64_t span = std::min<int64_t>(128, headDim * 2) / 2;
  SmallVector<int64_t> dims;
  if (varlen())
    dims = {1, 0, 2};
  contract.tensorMap("q", {queryRows, span}, 128, dims);
  contract.tensorMap("k", {keyRows, span}, 128, dims);
  contract.tensorMap("v", {keyRows, span}, 128, dims);
  contract.tensorMap("do", {queryRows, span}, 128, dims);
  contract.memref("d_lse");
}

void BackwardBuilder::appendSizeArgs(SmallVector<Type> &args) {
  if (!varlen()) {
    args.append(5, i32);
    return;
  }
  args.append(2, MemRefType::get({ShapedType::kDynamic}, i32));
  args.append(6, i32);
}

void BackwardBuilder::passSizes(LaunchContract &contract, const Sizes &sizes) {
  if (!varlen()) {
    for (Attribute size :
         {sizes.batch, sizes.headsQ, sizes.headsKV, sizes.seqQ, sizes.seqK})
      contract.scalar(size);
    return;
  }
  Attribute entries = contract.size(op.getCuSeqlensQType().getDimSize(0), "B1");
  for (StringRef name : {"cu_seqlens_q", "cu_seqlens_k"}) {
    contract.tensor(name, {entries}, i32, /*output=*/false);
    contract.memref(name);
  }
  for (Attribute size : {sizes.batch, sizes.headsQ, sizes.headsKV, sizes.rowsQ,
                         sizes.seqQ, sizes.seqK})
    contract.scalar(size);
}

void BackwardBuilder::readSizes(gpu::GPUFuncOp func, unsigned first) {
  if (varlen()) {
    cuQ = func.getArgument(first++);
    cuK = func.getArgument(first++);
  }
  batchCount = func.getArgument(first);
  headsQ = func.getArgument(first + 1);
  headsKV = func.getArgument(first + 2);
  if (varlen()) {
    maxSeqQ = func.getArgument(first + 3);
    totalQ = func.getArgument(first + 4);
    totalK = func.getArgument(first + 5);
    return;
  }
  seqQ = func.getArgument(first + 3);
  seqK = func.getArgument(first + 4);
}

Value BackwardBuilder::visible(Value keys, Value queries) {
  auto type = cast<RankedTensorType>(keys.getType());
  auto cmp = [&](arith::CmpIPredicate predicate, Value x, Value y) -> Value {
    return arith::CmpIOp::create(b, loc, predicate, x, y);
  };
  // Operands are built one statement at a time: the IR's order must not
  // depend on the order the C++ compiler evaluates arguments in.
  Value keyInside = cmp(arith::CmpIPredicate::slt, keys, splat(seqK, type));
  Value queryInside =
      cmp(arith::CmpIPredicate::slt, queries, splat(seqQ, type));
  Value mask = arith::AndIOp::create(b, loc, keyInside, queryInside);
  return maskWindow(b, loc, mask, keys, queries, seqQ, seqK, op.getLeftWindow(),
                    op.getRightWindow());
}

Value BackwardBuilder::needsMask(Value n0, int64_t keyRows, Value m0,
                                 int64_t queryRows) {
  auto cmp = [&](arith::CmpIPredicate predicate, Value x, Value y) -> Value {
    return arith::CmpIOp::create(b, loc, predicate, x, y);
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  Value lastKey = add(n0, constI32(keyRows - 1));
  Value lastQuery = add(m0, constI32(queryRows - 1));
  // The tile reaches past the last key or the last query.
  Value pastKeys = cmp(arith::CmpIPredicate::sge, lastKey, seqK);
  Value pastQueries = cmp(arith::CmpIPredicate::sge, lastQuery, seqQ);
  Value needs = arith::OrIOp::create(b, loc, pastKeys, pastQueries);
  Value shift = arith::SubIOp::create(b, loc, seqK, seqQ);
  // Its last key lies right of the first query's diagonal (+ right).
  if (std::optional<int64_t> right = op.getRightWindow())
    needs = arith::OrIOp::create(
        b, loc, needs,
        cmp(arith::CmpIPredicate::sgt, lastKey,
            add(add(m0, shift), windowSize(*right, seqQ))));
  // Its first key lies left of the last query's window start.
  if (std::optional<int64_t> left = op.getLeftWindow())
    needs = arith::OrIOp::create(
        b, loc, needs,
        cmp(arith::CmpIPredicate::slt, n0,
            arith::SubIOp::create(b, loc, add(lastQuery, shift),
                                  windowSize(*left, seqK))));
  return needs;
}

Value BackwardBuilder::blocksBetween(Value begin, Value end, int64_t rows) {
  Value span = arith::MaxSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, end, begin), constI32(0));
  return arith::DivSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, span, constI32(rows - 1)),
      constI32(rows));
}

std::pair<Value, Value> BackwardBuilder::queryBlocks(Value n0, int64_t rows) {
  // From the first query whose diagonal (+ right window) reaches key n0 to
  // the last whose window start (left) is not past the block's last key.
  Value shift = arith::SubIOp::create(b, loc, seqK, seqQ);
  Value first = constI32(0);
  if (std::optional<int64_t> right = op.getRightWindow()) {
    Value diagonal = arith::SubIOp::create(b, loc, n0, shift);
    first = arith::MaxSIOp::create(
        b, loc, first,
        arith::SubIOp::create(b, loc, diagonal, windowSize(*right, seqQ)));
  }
  Value begin = arith::MulIOp::create(
      b, loc, arith::DivSIOp::create(b, loc, first, constI32(rows)),
      constI32(rows));
  Value end = seqQ;
  if (std::optional<int64_t> left = op.getLeftWindow()) {
    Value pastKeys =
        arith::AddIOp::create(b, loc, n0, constI32(op.getBlockN()));
    Value reach = arith::AddIOp::create(
        b, loc, arith::SubIOp::create(b, loc, pastKeys, shift),
        windowSize(*left, seqK));
    end = arith::MinSIOp::create(b, loc, end, reach);
  }
  return {begin, blocksBetween(begin, end, rows)};
}

std::pair<Value, Value> BackwardBuilder::keyBlocks(Value m0, int64_t queryRows,
                                                   int64_t keyRows) {
  // Up to the last row's diagonal (+ right window), from the first row's
  // window start (left).
  Value shift = arith::SubIOp::create(b, loc, seqK, seqQ);
  Value end = seqK;
  if (std::optional<int64_t> right = op.getRightWindow()) {
    Value pastRows = arith::AddIOp::create(b, loc, m0, constI32(queryRows));
    Value reach = arith::AddIOp::create(
        b, loc, arith::AddIOp::create(b, loc, pastRows, shift),
        windowSize(*right, seqQ));
    end = arith::MinSIOp::create(b, loc, end, reach);
  }
  Value begin = constI32(0);
  if (std::optional<int64_t> left = op.getLeftWindow()) {
    Value diagonal = arith::AddIOp::create(b, loc, m0, shift);
    Value first = arith::MaxSIOp::create(
        b, loc, begin,
        arith::SubIOp::create(b, loc, diagonal, windowSize(*left, seqK)));
    begin = arith::MulIOp::create(
        b, loc, arith::DivSIOp::create(b, loc, first, constI32(keyRows)),
        constI32(keyRows));
  }
  return {begin, blocksBetween(begin, end, keyRows)};
}

Value BackwardBuilder::maskProbabilities(Value p, Value n0, Value m0,
                                         unsigned keyAxis) {
  auto type = cast<RankedTensorType>(p.getType());
  int64_t keyRows = type.getDimSize(keyAxis),
          queryRows = type.getDimSize(1 - keyAxis);
  auto masked =
      scf::IfOp::create(b, loc, type, needsMask(n0, keyRows, m0, queryRows),
                        /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(masked.thenBlock());
  auto idxType = tensorType(type.getShape(), i32);
  auto index = [&](Value start, unsigned axis) -> Value {
    return arith::AddIOp::create(
        b, loc, splat(start, idxType),
        tile::IotaOp::create(b, loc, idxType, b.getI64IntegerAttr(axis)));
  };
  Value keep = visible(index(n0, keyAxis), index(m0, 1 - keyAxis));
  scf::YieldOp::create(
      b, loc,
      ValueRange{arith::SelectOp::create(b, loc, keep, p, zeros(type))});
  b.setInsertionPointToStart(masked.elseBlock());
  scf::YieldOp::create(b, loc, p);
  return masked.getResult(0);
}

Value BackwardBuilder::probabilities(Value s, Value lse2, unsigned lseAxis) {
  auto type = cast<RankedTensorType>(s.getType());
  // 2^(c * log2(e) * S - lse2): one fma and one exp2 per element. A row
  // whose lse2 is +inf (no visible key in the forward) gets 0.
  Value negLse = tile::BroadcastOp::create(b, loc, type,
                                           arith::NegFOp::create(b, loc, lse2),
                                           b.getI64IntegerAttr(lseAxis));
  Value scale = splat(constF32(op.getScaleOrDefault() * M_LOG2E), type);
  return math::Exp2Op::create(b, loc,
                              math::FmaOp::create(b, loc, s, scale, negLse));
}

Value BackwardBuilder::scoreGrads(Value p, Value dp, Value d, unsigned axis) {
  auto type = cast<RankedTensorType>(p.getType());
  Value rowD =
      tile::BroadcastOp::create(b, loc, type, d, b.getI64IntegerAttr(axis));
  return arith::MulFOp::create(b, loc, p,
                               arith::SubFOp::create(b, loc, dp, rowD));
}

SmallVector<Value> BackwardBuilder::queryMajorKeyGrads(const KeyGradStep &step,
                                                       Value dqAcc) {
  int64_t keyRows =
      cast<RankedTensorType>(step.kTiles[0][0].getType()).getDimSize(0);
  int64_t parts = op.getQueryGradParts(), blockM = op.getBlockM();
  RankedTensorType sType = tensorType({blockM, keyRows}, f32);
  SmallVector<Value> scores, gradDots;
  for (auto [kParts, vTile] : llvm::zip(step.kTiles, step.vTiles)) {
    // S = sum_h Q[:, h] K_c[:, h]^T.
    Value s = zeros(sType);
    for (auto [qPart, kPart] : llvm::zip(step.qTiles, kParts))
      s = issueDot(qPart, kPart, s, true);
    scores.push_back(s);
    gradDots.push_back(issueDot(step.doTile, vTile, zeros(sType), true));
  }
  UnitAttr unit = b.getUnitAttr();
  auto addInto = [&](Value column, Value part) {
    tile::StoreOp::create(b, loc, dqAcc,
                          ValueRange{batch, head, step.m0, column}, part,
                          tile::StoreReduceKindAttr::get(
                              b.getContext(), tile::StoreReduceKind::add));
  };
  RankedTensorType dqType = tensorType({blockM, headDim / parts}, f32);
  int64_t accs = accsPerConsumer();
  // Consumer c's dV += P^T dO and dK += dS^T Q (per column part of Q), P
  // and dS read transposed ([queries, keys]: the keys are the products'
  // rows).
  auto valueGradDot = [&](size_t c, Value p) -> Value {
    return tile::DotOp::create(b, loc, p, step.doTile, step.accs[accs * c],
                               unit, UnitAttr(), unit);
  };
  auto keyGradDots = [&](size_t c, Value ds, SmallVector<Value> &dots) {
    for (auto [h, qPart] : llvm::enumerate(step.qTiles))
      dots.push_back(tile::DotOp::create(b, loc, ds, qPart,
                                         step.accs[accs * c + 1 + h], unit,
                                         UnitAttr(), unit));
  };
  SmallVector<Value> results, pTiles, dsTiles;
  for (auto [c, keys] : llvm::enumerate(step.keyStarts)) {
    Value p = maskProbabilities(
        probabilities(waitFor(scores[c], 1), step.lse2, /*lseAxis=*/1), keys,
        step.m0, /*keyAxis=*/1);
    Value ds =
        narrow(scoreGrads(p, waitFor(gradDots[c], 0), step.d, /*axis=*/1));
    if (parts > 1) {
      pTiles.push_back(narrow(p));
      dsTiles.push_back(ds);
      continue;
    }
    SmallVector<Value> dots = {valueGradDot(c, narrow(p))};
    keyGradDots(c, ds, dots);
    if (!dqAcc) {
      llvm::append_range(results,
                         tile::DotWaitOp::create(b, loc, dots, 0).getResults());
      continue;
    }
    // With dqAcc, this consumer's keys' part of dQ = dS K too (dS a
    // register A operand, K read MN-major), added into dq_acc.
    dots.push_back(issueDot(ds, step.kTiles[c][0], zeros(dqType), false));
    auto done = tile::DotWaitOp::create(b, loc, dots, 0);
    llvm::append_range(results, done.getResults().drop_back());
    addInto(constI32(0), done.getResults().back());
  }
  if (pTiles.empty())
    return results;
  // Split (fused_dq only): consumer h issues its dV, column part h of dQ
  // over every consumer's keys, then its dK, and stages the part while dK
  // runs. The waits are apart: a wait that listed dQ's part with dV and dK
  // would tie one consumer's accumulators to the others' dS.
  for (auto [h, p, ds] : llvm::enumerate(pTiles, dsTiles)) {
    SmallVector<Value> dots = {valueGradDot(h, p)};
    Value dq = zeros(dqType);
    for (auto [other, kParts] : llvm::zip(dsTiles, step.kTiles))
      dq = issueDot(other, kParts[h], dq, false);
    keyGradDots(h, ds, dots);
    addInto(constI32(h * headDim / parts), waitFor(dq, parts));
    llvm::append_range(results,
                       tile::DotWaitOp::create(b, loc, dots, 0).getResults());
  }
  return results;
}

SmallVector<Value>
BackwardBuilder::transposedKeyGrads(const KeyGradStep &step) {
  int64_t keyRows =
      cast<RankedTensorType>(step.kTiles[0][0].getType()).getDimSize(0);
  RankedTensorType sType = tensorType({keyRows, op.getBlockM()}, f32);
  bool overlap = op.overlapsKeyGradProducts();
  Value qTile = step.qTiles[0];
  SmallVector<Value> scores, gradDots;
  for (auto [kParts, vTile] : llvm::zip(step.kTiles, step.vTiles)) {
    scores.push_back(issueDot(kParts[0], qTile, zeros(sType), true));
    if (overlap)
      gradDots.push_back(issueDot(vTile, step.doTile, zeros(sType), true));
  }
  SmallVector<Value> results;
  for (auto [c, keys] : llvm::enumerate(step.keyStarts)) {
    Value sT = waitFor(scores[c], overlap ? 1 : 0);
    Value pT = maskProbabilities(probabilities(sT, step.lse2, /*lseAxis=*/0),
                                 keys, step.m0, /*keyAxis=*/0);
    Value dpT = waitFor(
        overlap ? gradDots[c]
                : issueDot(step.vTiles[c], step.doTile, zeros(sType), true),
        0);
    Value dsT = scoreGrads(pT, dpT, step.d, /*axis=*/0);
    Value dv = issueDot(narrow(pT), step.doTile, step.accs[2 * c], false);
    Value dk = issueDot(narrow(dsT), qTile, step.accs[2 * c + 1], false);
    llvm::append_range(
        results,
        tile::DotWaitOp::create(b, loc, ValueRange{dv, dk}, 0).getResults());
  }
  return results;
}

/// The dK/dV kernel: a CTA per block_n keys of one K/V head, two consumer
/// warpgroups of 64 keys each. Each holds its K and V rows and walks the
/// query blocks of every query head of the group that its keys are visible
/// to, accumulating dV += P^T dO and dK += dS^T Q from the transposed
/// products S^T = K Q^T and dP^T = V dO^T (which leave P^T and dS^T in the
/// accumulator layout that a register A operand takes), or, query-major,
/// from S = Q K^T and dP = dO V^T (queryMajorKeyGrads).
void BackwardBuilder::buildKeyGrads(gpu::GPUModuleOp module) {
  int64_t blockM = op.getBlockM(), keyRows = op.getConsumerRows(),
          consumers = op.getBlockN() / keyRows, parts = op.getQueryGradParts(),
          partCols = headDim / parts;
  bool fused = op.getFusedDq();
  SmallVector<Type> args = mainInputTypes(blockM, keyRows);
  // Split (splitsQueryGrads): Q, K and dK in column parts, one TMA box
  // each.
  args[0] = rowsDesc(blockM, partCols);
  args[1] = rowsDesc(keyRows, partCols);
  // dk and dv by TMA, varlen by plain stores bounded by the sequence.
  if (varlen())
    args.append(2, tokenMemref(/*queries=*/false));
  else
    args.append({rowsDesc(keyRows, partCols), rowsDesc(keyRows)});
  RankedTensorType dqType = tensorType({blockM, partCols}, f32);
  if (fused)
    args.push_back(tile::TensorDescType::get(dqType, 4));
  unsigned sizesArg = args.size();
  appendSizeArgs(args);
  gpu::GPUFuncOp func =
      addKernel(b, module, (op.getSymName() + "_dkdv").str(), args);
  LaunchContract contract(b);
  Sizes sizes = getSizes(contract);
  declareMainInputs(contract, sizes, blockM, keyRows);
  SmallVector<Attribute> kShape = tokenShape(sizes, /*queries=*/false);
  contract.tensor("dk", kShape, element, /*output=*/true);
  contract.tensor("dv", kShape, element, /*output=*/true);
  for (StringRef name : {"dk", "dv"}) {
    if (varlen())
      contract.memref(name);
    else
      contract.storeTensorMap(name,
                              {keyRows, name == "dk" ? partCols : headDim},
                              element, op.getTarget());
  }
  if (fused) {
    declareDqAcc(contract, sizes);
    // Staged swizzled (tile-assign-layouts), in boxes of one 128-byte
    // span of f32.
    contract.tensorMap("dq_acc", {blockM, std::min<int64_t>(headDim, 32)}, 128);
  }
  passSizes(contract, sizes);
  contract.record(
      func, {contract.ceildiv(sizes.rowsK, contract.integer(op.getBlockN())),
             sizes.headsKV, sizes.batch});
  configure(func, op.getKeyGradRegisters());

  Value q = func.getArgument(0), k = func.getArgument(1),
        v = func.getArgument(2), dO = func.getArgument(3),
        dLse = func.getArgument(4), dk = func.getArgument(5),
        dv = func.getArgument(6), dqAcc = fused ? func.getArgument(7) : Value();
  readSizes(func, sizesArg);
  Value zero = constI32(0), one = constI32(1);
  Value kvHead = tile::ProgramIdOp::create(b, loc, i32, tile::GridDim::y);
  batch = tile::ProgramIdOp::create(b, loc, i32, tile::GridDim::z);
  Value n0 = arith::MulIOp::create(
      b, loc, tile::ProgramIdOp::create(b, loc, i32, tile::GridDim::x),
      constI32(op.getBlockN()));
  // Varlen: a block of keys past its sequence's end does nothing.
  std::optional<OpBuilder::InsertionGuard> guard;
  if (varlen())
    skipPastSequence(n0, /*keys=*/true, guard);
  // The coordinates `at` with the column of part `h`.
  auto atPart = [&](SmallVector<Value> at, int64_t h) {
    at.back() = constI32(h * partCols);
    return at;
  };
  SmallVector<Value> keyStarts, vTiles;
  SmallVector<SmallVector<Value>> kTiles;
  for (int64_t c = 0; c < consumers; ++c) {
    Value start = arith::AddIOp::create(b, loc, n0, constI32(c * keyRows));
    keyStarts.push_back(start);
    SmallVector<Value> at = keyCoords(kvHead, start);
    kTiles.push_back(llvm::map_to_vector(
        llvm::seq<int64_t>(0, parts), [&](int64_t h) -> Value {
          return tile::LoadOp::create(b, loc, k, atPart(at, h));
        }));
    vTiles.push_back(tile::LoadOp::create(b, loc, v, at));
  }

  auto [begin, blocks] = queryBlocks(n0, blockM);
  Value group = arith::DivUIOp::create(b, loc, headsQ, headsKV);
  Value steps = arith::MulIOp::create(b, loc, group, blocks);

  RankedTensorType accType = tensorType({keyRows, headDim}, f32);
  RankedTensorType vecType = tensorType({blockM}, f32);
  RankedTensorType partType = tensorType({keyRows, partCols}, f32);
  SmallVector<Value> inits;
  for (int64_t c = 0; c < consumers; ++c) {
    inits.push_back(zeros(accType));
    inits.append(parts, zeros(partType));
  }
  auto loop = scf::ForOp::create(b, loc, zero, steps, one, inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value t = loop.getInductionVar();
    // Step t: query block t % blocks of the group's head t / blocks.
    head = arith::AddIOp::create(b, loc,
                                 arith::MulIOp::create(b, loc, kvHead, group),
                                 arith::DivUIOp::create(b, loc, t, blocks));
    Value m0 = arith::AddIOp::create(
        b, loc, begin,
        arith::MulIOp::create(b, loc, arith::RemUIOp::create(b, loc, t, blocks),
                              constI32(blockM)));
    SmallVector<Value> at = queryCoords(head, m0);
    SmallVector<Value> qTiles = llvm::map_to_vector(
        llvm::seq<int64_t>(0, parts), [&](int64_t h) -> Value {
          return tile::LoadOp::create(b, loc, q, atPart(at, h));
        });
    Value doTile = tile::LoadOp::create(b, loc, dO, at);
    Value d = tile::LoadDirectOp::create(b, loc, vecType, dLse,
                                         ValueRange{batch, head, zero, m0});
    Value lse2 = tile::LoadDirectOp::create(b, loc, vecType, dLse,
                                            ValueRange{batch, head, one, m0});
    // Query-major products where block_m allows (op.keyGradsQueryMajor()).
    KeyGradStep step{loop.getRegionIterArgs(),
                     kTiles,
                     vTiles,
                     keyStarts,
                     qTiles,
                     doTile,
                     m0,
                     lse2,
                     d};
    scf::YieldOp::create(b, loc,
                         op.keyGradsQueryMajor()
                             ? queryMajorKeyGrads(step, dqAcc)
                             : transposedKeyGrads(step));
  }
  Value scale = splat(constF32(op.getScaleOrDefault()), partType);
  if (varlen()) {
    dk = keyView(dk);
    dv = keyView(dv);
  }
  auto store = [&](Value buffer, Value keys, int64_t h, Value tile) {
    Value column = constI32(h * partCols);
    if (varlen())
      tile::StoreDirectOp::create(b, loc, buffer, {kvHead, keys, column}, tile);
    else
      tile::StoreOp::create(b, loc, buffer,
                            ValueRange{batch, kvHead, keys, column}, tile);
  };
  int64_t accs = accsPerConsumer();
  for (int64_t c = 0; c < consumers; ++c) {
    for (int64_t h = 0; h < parts; ++h)
      store(dk, keyStarts[c], h,
            narrow(arith::MulFOp::create(
                b, loc, loop.getResult(accs * c + 1 + h), scale)));
    store(dv, keyStarts[c], 0, narrow(loop.getResult(accs * c)));
  }
  guard.reset();
  gpu::ReturnOp::create(b, loc);
}

/// The dQ kernel: a CTA per two blocks of 64 query rows of one head, one
/// per consumer warpgroup, each holding its Q, dO, D and lse2 rows and
/// walking the key blocks they see: S = Q K^T, P, dP = dO V^T, dS, and
/// dQ += dS K (K read as [keys, head_dim], MN-major, as the forward reads V).
void BackwardBuilder::buildQueryGrads(gpu::GPUModuleOp module) {
  int64_t queryRows = op.getConsumerRows(), keyRows = op.getQueryGradKeys(),
          consumers = op.getBlockN() / queryRows;
  SmallVector<Type> args = mainInputTypes(queryRows, keyRows);
  // dq by TMA, varlen by plain stores bounded by the sequence.
  args.push_back(varlen() ? Type(tokenMemref(/*queries=*/true))
                          : rowsDesc(queryRows));
  appendSizeArgs(args);
  gpu::GPUFuncOp func =
      addKernel(b, module, (op.getSymName() + "_dq").str(), args);
  LaunchContract contract(b);
  Sizes sizes = getSizes(contract);
  declareMainInputs(contract, sizes, queryRows, keyRows);
  contract.tensor("dq", tokenShape(sizes, /*queries=*/true), element,
                  /*output=*/true);
  if (varlen())
    contract.memref("dq");
  else
    contract.storeTensorMap("dq", {queryRows, headDim}, element,
                            op.getTarget());
  passSizes(contract, sizes);
  contract.record(
      func,
      {contract.ceildiv(sizes.rowsQ, contract.integer(queryRows * consumers)),
       sizes.headsQ, sizes.batch});
  configure(func, op.getQueryGradRegisters());

  Value q = func.getArgument(0), k = func.getArgument(1),
        v = func.getArgument(2), dO = func.getArgument(3),
        dLse = func.getArgument(4), dq = func.getArgument(5);
  readSizes(func, 6);
  Value zero = constI32(0), one = constI32(1);
  head = tile::ProgramIdOp::create(b, loc, i32, tile::GridDim::y);
  batch = tile::ProgramIdOp::create(b, loc, i32, tile::GridDim::z);
  Value kvHead = arith::DivUIOp::create(
      b, loc, head, arith::DivUIOp::create(b, loc, headsQ, headsKV));
  Value m0 = arith::MulIOp::create(
      b, loc, tile::ProgramIdOp::create(b, loc, i32, tile::GridDim::x),
      constI32(queryRows * consumers));
  // Varlen: a block of query rows past its sequence's end does nothing.
  std::optional<OpBuilder::InsertionGuard> guard;
  if (varlen())
    skipPastSequence(m0, /*keys=*/false, guard);
  RankedTensorType vecType = tensorType({queryRows}, f32);
  SmallVector<Value> queryStarts, qTiles, doTiles, ds, lse2s;
  for (int64_t c = 0; c < consumers; ++c) {
    Value start = arith::AddIOp::create(b, loc, m0, constI32(c * queryRows));
    queryStarts.push_back(start);
    qTiles.push_back(tile::LoadOp::create(b, loc, q, queryCoords(head, start)));
    doTiles.push_back(
        tile::LoadOp::create(b, loc, dO, queryCoords(head, start)));
    ds.push_back(tile::LoadDirectOp::create(
        b, loc, vecType, dLse, ValueRange{batch, head, zero, start}));
    lse2s.push_back(tile::LoadDirectOp::create(
        b, loc, vecType, dLse, ValueRange{batch, head, one, start}));
  }

  auto [begin, blocks] = keyBlocks(m0, queryRows * consumers, keyRows);

  RankedTensorType accType = tensorType({queryRows, headDim}, f32);
  RankedTensorType sType = tensorType({queryRows, keyRows}, f32);
  SmallVector<Value> inits(consumers, zeros(accType));
  auto loop = scf::ForOp::create(b, loc, zero, blocks, one, inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value n0 = arith::AddIOp::create(
        b, loc, begin,
        arith::MulIOp::create(b, loc, loop.getInductionVar(),
                              constI32(keyRows)));
    Value kTile = tile::LoadOp::create(b, loc, k, keyCoords(kvHead, n0));
    Value vTile = tile::LoadOp::create(b, loc, v, keyCoords(kvHead, n0));
    // As in the dK/dV kernel: S and dP back to back, P while dP runs.
    SmallVector<Value> scores, gradDots;
    for (int64_t c = 0; c < consumers; ++c) {
      scores.push_back(issueDot(qTiles[c], kTile, zeros(sType), true));
      gradDots.push_back(issueDot(doTiles[c], vTile, zeros(sType), true));
    }
    SmallVector<Value> yields;
    for (int64_t c = 0; c < consumers; ++c) {
      Value sc = waitFor(scores[c], 1);
      Value p = maskProbabilities(probabilities(sc, lse2s[c], /*lseAxis=*/1),
                                  n0, queryStarts[c], /*keyAxis=*/1);
      Value dp = waitFor(gradDots[c], 0);
      Value dsTile = scoreGrads(p, dp, ds[c], /*axis=*/1);
      Value dq =
          issueDot(narrow(dsTile), kTile, loop.getRegionIterArgs()[c], false);
      yields.push_back(waitFor(dq, 0));
    }
    scf::YieldOp::create(b, loc, yields);
  }
  Value scale = splat(constF32(op.getScaleOrDefault()), accType);
  if (varlen())
    dq = queryView(dq);
  for (int64_t c = 0; c < consumers; ++c) {
    Value out = narrow(arith::MulFOp::create(b, loc, loop.getResult(c), scale));
    if (varlen())
      tile::StoreDirectOp::create(b, loc, dq, {head, queryStarts[c], zero},
                                  out);
    else
      tile::StoreOp::create(b, loc, dq,
                            ValueRange{batch, head, queryStarts[c], zero}, out);
  }
  guard.reset();
  gpu::ReturnOp::create(b, loc);
}

/// The post kernel (fused_dq): dq = scale * dq_acc, rounded, for a block
/// of query rows (the dK/dV kernel's dQ parts leave the scale out).
void BackwardBuilder::buildPost(gpu::GPUModuleOp module) {
  SmallVector<Type> args = {
      MemRefType::get(getDqAccShape(), f32),
      MemRefType::get(op.getQueryGradType().getShape(), element)};
  gpu::GPUFuncOp func =
      addKernel(b, module, (op.getSymName() + "_post").str(), args);
  LaunchContract contract(b);
  Sizes sizes = getSizes(contract);
  declareDqAcc(contract, sizes);
  contract.tensor("dq", {sizes.batch, sizes.headsQ, sizes.seqQ, sizes.headDim},
                  element, /*output=*/true);
  contract.memref("dq_acc");
  contract.memref("dq");
  contract.record(func, {contract.ceildiv(sizes.seqQ, contract.integer(rows)),
                         sizes.headsQ, sizes.batch});

  Value dqAcc = func.getArgument(0), dq = func.getArgument(1);
  readBlock();
  Value zero = constI32(0);
  Value acc = tile::LoadDirectOp::create(b, loc, tileType, dqAcc,
                                         ValueRange{batch, head, row0, zero});
  Value scaled = arith::MulFOp::create(
      b, loc, acc, splat(constF32(op.getScaleOrDefault()), tileType));
  tile::StoreDirectOp::create(b, loc, dq, {batch, head, row0, zero},
                              narrow(scaled));
  gpu::ReturnOp::create(b, loc);
}

LogicalResult BackwardBuilder::build(ArrayRef<BackwardKernel> kernels) {
  // One module for the kernels of the call.
  gpu::GPUModuleOp module =
      createKernelModule(b, op, op.getSymName(), op.getTarget());
  SmallVector<Attribute> launches;
  for (BackwardKernel kernel : kernels) {
    switch (kernel) {
    case BackwardKernel::Prep:
      buildPrep(module);
      break;
    case BackwardKernel::KeyGrads:
      buildKeyGrads(module);
      break;
    case BackwardKernel::QueryGrads:
      if (op.getFusedDq())
        buildPost(module);
      else
        buildQueryGrads(module);
      break;
    }
    launches.push_back(FlatSymbolRefAttr::get(
        cast<gpu::GPUFuncOp>(module.getBody()->back()).getNameAttr()));
  }
  auto *fmha = op->getContext()->getLoadedDialect<FMHADialect>();
  fmha->getLaunchesAttrHelper().setAttr(module, b.getArrayAttr(launches));
  op.erase();
  return success();
}

LogicalResult fmha::expandAttentionBackward(AttentionBackwardOp op,
                                            OpBuilder &b,
                                            ArrayRef<BackwardKernel> kernels) {
  return BackwardBuilder(op, b).build(kernels);
}
