//===- ExpandAttention.cpp - fmha.attention to a tile program -------------===//
//
// Part of fmha. The tile program of one CTA of attention forward: its
// `consumers` Q tiles share one stream of K/V tiles, and each runs an online
// softmax over them (FlashAttention's algorithm, in base 2).
//
//===----------------------------------------------------------------------===//

#include "Expand.h"

#include "fmha/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::fmha;

/// How far (base 2) a row's max may grow before a conditionally rescaling
/// online softmax moves the row's reference to it and rescales O and the
/// sum: P stays at most 2^8 = 256 (FlashAttention-4's choice).
static constexpr double kRescaleThreshold = 8.0;

namespace {

/// Builds the tile program; holds what every part of it needs.
class AttentionBuilder : TileProgramBuilder {
public:
  AttentionBuilder(AttentionOp op, OpBuilder &b)
      : TileProgramBuilder(b, op.getLoc()), op(op), blockM(op.getBlockM()),
        blockN(op.getBlockN()), headDim(op.getHeadDim()),
        group(op.getPackedGroup()), sType(tensorType({blockM, blockN}, f32)),
        oType(tensorType({blockM, headDim}, f32)),
        rowType(tensorType({blockM}, f32)) {}

  LogicalResult build();

private:
  RankedTensorType tensorType(ArrayRef<int64_t> shape, Type element) {
    return RankedTensorType::get(shape, element);
  }
  /// fmha::windowSize at this builder.
  Value windowSize(int64_t size, Value seqLen) {
    return fmha::windowSize(b, loc, size, seqLen);
  }
  /// `offset + windowSize(size, seqLen)`, a constant when size is 0.
  Value addWindow(int64_t offset, int64_t size, Value seqLen) {
    if (size == 0)
      return constI32(offset);
    return arith::AddIOp::create(b, loc, constI32(offset),
                                 windowSize(size, seqLen));
  }
  /// `offset - windowSize(size, seqLen)`, a constant when size is 0.
  Value subWindow(int64_t offset, int64_t size, Value seqLen) {
    if (size == 0)
      return constI32(offset);
    return arith::SubIOp::create(b, loc, constI32(offset),
                                 windowSize(size, seqLen));
  }
  /// Records the kernel's launch contract (LaunchContract) on `kernel`.
  void recordLaunchContract(Operation *kernel);
  void recordVarlenContract(Operation *kernel);
  void recordKvcacheContract(Operation *kernel);
  /// Appends the tensor maps of q, k and v (over their dimensions in the
  /// order `dims`, when given): swizzled rows move in boxes of one 128-byte
  /// span, block_m rows of q or block_n of k and v. With `pack_gqa` q's map
  /// is over its [batch, heads_kv, seq_q, group, head_dim] view, a box of
  /// block_m / group positions of the group's heads.
  void mapInputs(LaunchContract &contract, ArrayRef<int64_t> dims = {});
  /// Records `contract` on `kernel` with its grid for `rowsQ` query rows (a
  /// sequence's, at most) of `headsQ` heads and `batch` sequences: a CTA per
  /// query block of block_m * consumers rows, or when persistent at most one
  /// CTA per SM and per work item (a query block, or a pair of them when
  /// masks make the work uneven); CTAs left without one exit.
  void recordGrid(LaunchContract &contract, Operation *kernel, Attribute rowsQ,
                  Attribute headsQ, Attribute batch,
                  Attribute splits = Attribute());
  /// Whether q, k and v are fp8: v comes transposed ([batch, heads_kv,
  /// head_dim, keys]) with the keys of each group of 16 permuted as
  /// tile.dot's `k_quad16` reads them, and descale factors scale the scores
  /// and O.
  bool fp8() { return op.isFp8(); }
  /// Whether the online softmax rescales conditionally (FlashAttention-4's
  /// way): a row's reference max moves only when the max grows by more than
  /// kRescaleThreshold, and O is rescaled by tile.scale_rows, whose
  /// multiplies a thread skips when its rows' factors are all 1. It pays
  /// where O is large: at head dim 256 (128 values a thread) it was 1-8%
  /// faster through the API, at head dims 64 and 128 the branch cost more
  /// than the multiplies it skipped (bf16 1-8% slower at 64; fp8 2-7% at
  /// 128, 20% at 64 without a mask; H200, 2026-11-29, bench/RESULTS.md).
  bool conditionalRescale() { return !fp8() && headDim >= 256; }
  /// fp8: loads scoreScale's and valueScale's descale factors (those of
  /// `batch` and `kvHead` with per-head descales).
  void loadDescales(Value batch, Value kvHead);
  /// Whether q, k, v and o are packed sequences (`varlen`).
  bool varlen() { return op.getVarlen(); }
  /// Whether K and V are caches with a length per sequence (`kvcache`), and
  /// whether they are paged.
  bool kvcache() { return op.getKvcache(); }
  bool paged() { return op.isPaged(); }
  /// Whether a Q tile holds the query heads of one KV group (`pack_gqa`):
  /// packed row r is position r / group of head kv_head * group + r % group.
  bool packed() { return op.getPackGqa(); }
  /// Whether each query block's key range is cut into `numSplits` work
  /// items whose partial results the last of them merges (`split_kv`).
  bool split() { return op.getSplitKv(); }
  /// Whether O leaves by plain stores from registers (tile.store_direct)
  /// rather than a TMA box: varlen (bounded by each sequence's end) and
  /// split (written by whichever work item comes last, inside a
  /// condition).
  bool storesDirect() { return varlen() || split(); }
  /// Varlen on sm_90a: blocks that end inside their sequence store O by a
  /// TMA box (o also as a tensor map), the last one by bounded stores. The
  /// sm_100a roles store every block's O from the correction's registers.
  bool varlenTmaStores() {
    return varlen() && getTargetInfo(op.getTarget()).hasWgmma();
  }
  /// The query position of packed row `row` (a scalar or a tensor of rows).
  Value position(Value row);
  /// Kvcache: sets seqK to the cache length of sequence `batch`, read from
  /// cache_seqlens and clamped to [0, the cache's capacity].
  void loadCacheLength(Value batch);
  /// Paged: the page holding key row `row` of sequence `batch`, read from
  /// the block table (its indices clamped to the table).
  Value loadPage(Value batch, Value row);
  /// The coordinates of query row `row` of `head` (batch `batch`) in q, or
  /// of the K/V tile of keys `row`.. of `kvHead` in k and v: [batch, head,
  /// row, 0] (a dense cache's: [batch, head, tileStart(row), 0]; a paged
  /// one's: [page, head, offset in the page, 0]), or with varlen [head,
  /// first row of the sequence + row, 0].
  SmallVector<Value> queryCoords(Value batch, Value head, Value row);
  SmallVector<Value> keyCoords(Value batch, Value kvHead, Value row,
                               Value zero);
  /// The coordinates of the V tile of keys from `row` on: keyCoords, or
  /// with fp8's transposed v [batch, kvHead, 0, row].
  SmallVector<Value> valueCoords(Value batch, Value kvHead, Value row,
                                 Value zero);
  /// The V tile at `coords` as P V reads it: loaded, and with fp8's
  /// `transpose_v` transposed in shared memory, its keys permuted
  /// (`tile.transpose {k_quad16}`).
  Value loadValues(Value v, ArrayRef<Value> coords);
  /// Varlen: sets the bounds of sequence `seq` (qRow0, kRow0, seqQ, seqK),
  /// read from cu_seqlens and clamped to the tensors, and returns whether
  /// the sequence exists and has query rows from `first` on (an i1).
  Value loadSequence(Value seq, Value first);
  /// Varlen: `buffer` ([total, heads, head_dim], or lse's [heads, total]) as
  /// a view of the current sequence's rows only, [heads, rows(, head_dim)],
  /// so that the bounded stores of tile.store_direct stop at its end.
  Value sequenceView(Value buffer);
  /// Stores varlen O tile `out` of rows m0.. of the sequence by stores
  /// bounded by its end, or (varlenTmaStores) by TMA when the block ends
  /// inside the sequence.
  void storeSequenceRows(Value head, Value m0, Value out);
  /// The first key a K/V tile of keys `n0`.. is loaded from: `n0`, except
  /// in a KV cache, whose tile reaching past the sequence's length is
  /// moved back to end at it: rows past a length may hold anything, NaN
  /// or Inf included, and P V would turn their zero probabilities into NaN
  /// (0 * Inf). Rows the moved box finds before the cache's first, or
  /// before its page's first (a paged box stays in the page of `n0`), read
  /// as zeros; the keys it repeats are hidden by visible().
  Value tileStart(Value n0);
  /// The mask of one S tile: true where key `tileStart(n0) + col` is
  /// visible to query row `m0 + row` (position(m0 + row)); keys at keyLimit
  /// and after, and keys before `n0` (a moved tile's repeats), hidden.
  Value visible(Value m0, Value n0);
  /// Whether the S tile of queries `m0`.. and keys `n0`.. has any element
  /// `visible` hides (an i1 scalar).
  Value needsMask(Value m0, Value n0);
  /// The K/V range the masks leave visible to any of the query tiles at
  /// `rows`: its first key and its length in whole tiles.
  std::pair<Value, Value> keyRange(ArrayRef<Value> rows);
  /// Split-KV: narrows the range [begin, begin + tiles * block_n) to this
  /// work item's share (balanced, in whole tiles) and sets keyLimit to its
  /// end.
  void splitKeyRange(Value &begin, Value &tiles);
  /// The CTA's Q tiles, one per consumer, starting at `rows`.
  SmallVector<Value> loadQueryTiles(Value batch, Value head,
                                    ArrayRef<Value> rows);
  /// The epilogue of one query tile: O divided by the row sum, stored, and
  /// the LSE rows when `lse` is set; with split-KV the partial results, and
  /// the merge by the last work item of the tile.
  void storeResults(Value batch, Value head, Value m0, Value acc, Value rowMax,
                    Value rowSum);
  /// The division of O by the row sums: whether each row saw a key, the
  /// sums with 1 for those that saw none, and their reciprocals.
  struct RowNorm {
    Value hasKeys, safeSum, inverse;
  };
  RowNorm rowNorm(Value rowSum);
  /// The log-sum-exp rows in natural log, -inf for rows that saw no key:
  /// (max + log2(sum)) * ln(2), the max in base 2.
  Value naturalLse(Value rowMax, const RowNorm &norm);
  /// Writes the tile's normalised O (f32) and, when `lse` is set, its
  /// log-sum-exp rows (natural log, computed by `lseRow` after O is
  /// stored) to o and lse.
  void writeResults(Value batch, Value head, Value m0, Value out,
                    function_ref<Value()> lseRow);
  /// Writes O (f32, normalised) rows from `m0` and columns from `column`
  /// on to o.
  void writeOutput(Value batch, Value head, Value m0, Value out, Value column);
  /// Writes the log-sum-exp `rows` (natural log) from `m0` on to lse.
  void writeLse(Value batch, Value head, Value m0, Value rows);
  /// Split-KV: stores this work item's normalised O and base-2 log-sum-exp
  /// as partials; the last of the tile's work items merges all of them (in
  /// split order) and writes the results.
  void storePartials(Value batch, Value head, Value m0, Value out, Value lse2);
  /// `buffer` viewed with `sizes` and `strides` (elements), offset 0.
  Value stridedView(Value buffer, ArrayRef<Value> sizes,
                    ArrayRef<Value> strides);
  /// Packed or split kvcache: o as [batch, heads, rows, head_dim] (packed:
  /// [batch, heads_kv, seq_q, group, head_dim]) and lse as [batch, heads,
  /// rows] (packed: [batch, heads_kv, seq_q, group]), so that a tile's rows
  /// are the view's rows (row_dims 2 when packed).
  Value outputView();
  Value lseView();
  /// One online-softmax step over a raw S tile: P (in the element type),
  /// the new row max (base 2, scaled) and sum, and the factor alpha that
  /// rescales what was accumulated before.
  struct SoftmaxStep {
    Value p, rowMax, rowSum, alpha;
  };
  SoftmaxStep softmaxStep(Value s, Value m0, Value n0, Value rowMax,
                          Value rowSum);
  /// The online softmax's rescaling after a tile whose unnormalised
  /// probabilities `p` were taken against the row maxima `ref`: alpha =
  /// exp2(`rowMax` - ref), the factor of the old sum and O, and the new sum
  /// `rowSum` * alpha + the rows of p.
  std::pair<Value, Value> rescaleSum(Value p, Value rowMax, Value ref,
                                     Value rowSum);
  /// O + P V for one tile: P (block_m x block_n, in registers) times the V
  /// tile, issued only when `async`.
  Value valueProduct(Value p, Value vTile, Value acc, bool async);
  void buildQueryTiles(Value batch, Value head, Value kvHead,
                       ArrayRef<Value> rows);
  void buildSerialQueryTiles(Value batch, Value head, Value kvHead,
                             ArrayRef<Value> rows);
  /// The CTA's query tiles of query block `block` of one head.
  void buildTile(Value block, Value head, Value batch);
  /// The persistent kernel (sm_90a): a loop over the work items of one CTA,
  /// each one or two query blocks built by buildTile.
  void buildPersistentLoop();
  /// Whether the kernel is persistent (`schedule persistent`, by default on
  /// sm_90a where two Q slots fit): one CTA walks several work items, its
  /// producer running ahead into the next one.
  bool persistent() { return op.isPersistent(); }
  /// Whether masks make the query blocks' work uneven (causal or windowed):
  /// the long blocks are scheduled first. Not against a KV cache: the
  /// cache's keys, which every query sees, dominate the work, and with one
  /// query block (decode) a pair would be that block computed twice.
  bool pairsBlocks() {
    if (kvcache())
      return false;
    return op.getCausal() || op.getLeftWindow() || op.getRightWindow();
  }

  AttentionOp op;
  int64_t blockM, blockN, headDim;
  /// Query heads per KV head packed into a tile's rows (1 unless packed).
  int64_t group;
  /// The f32 tiles of a query tile's program: the scores S (block_m x
  /// block_n), the output O (block_m x head_dim) and the per-row values.
  RankedTensorType sType, oType, rowType;
  /// Kernel parameters. With varlen, seqQ and seqK are the lengths of the
  /// work item's sequence (loadSequence).
  Value q, k, v, o, lse, batchCount, headsQ, headsKV, seqQ, seqK;
  /// Varlen on sm_90a: O as a tensor map too, for the blocks that end
  /// inside their sequence (`o` is the memref of the bounded stores).
  Value oMap;
  /// Varlen: the cu_seqlens, the longest query sequence and the total
  /// tokens (parameters), and the work item's first q and k rows.
  Value cuQ, cuK, maxSeqQ, totalQ, totalK, qRow0, kRow0;
  /// Kvcache: the cache lengths, the block table (paged) and dim 1 of the
  /// caches (max_len, or page_size when paged).
  Value cacheSeqlens, blockTable, cacheRows;
  /// Split-KV: the partial results' workspace, the tiles' counters and the
  /// number of splits (parameters), and the work item's split.
  Value partialO, partialLse, counters, numSplits, splitIndex;
  /// The keys the work item may see end here: seqK, or with split-KV the
  /// end of its share of the key range.
  Value keyLimit;
  /// fp8: the descale factors (f32 buffers of one value each, or
  /// [batch, heads_kv]).
  Value descaleQ, descaleK, descaleV;
  /// The factor of the raw scores in the base-2 softmax: scale * log2(e),
  /// times descale_q * descale_k with fp8 inputs (loaded per query tile).
  Value scoreScale;
  /// fp8: descale_v, the factor of O folded into 1 / rowsum.
  Value valueScale;
};

} // namespace

void AttentionBuilder::mapInputs(LaunchContract &contract,
                                 ArrayRef<int64_t> dims) {
  if (fp8()) {
    // Rows of head_dim bytes (q, k) and of block_n bytes (v transposed), in
    // boxes one swizzle span wide: the widest span the rows fill, the
    // layout tile-assign-layouts gives the tiles (block_n 96 or 160: 32
    // bytes, five boxes of 32 keys at 160).
    int64_t span = fmha::limits::widestSwizzleBytes(headDim);
    int64_t keySpan = fmha::limits::widestSwizzleBytes(blockN);
    contract.tensorMap("q", {blockM, span}, span, dims);
    contract.tensorMap("k", {blockN, span}, span, dims);
    if (op.takesTransposedValues())
      contract.tensorMap("v", {headDim, keySpan}, keySpan, dims);
    else
      contract.tensorMap("v", {blockN, span}, span, dims);
    return;
  }
  int64_t span = std::min<int64_t>(128, headDim * 2) / 2;
  if (packed())
    contract.tensorMap("q", {blockM / group, group, span}, 128,
                       {0, 2, 1, 3, 4});
  else
    contract.tensorMap("q", {blockM, span}, 128, dims);
  contract.tensorMap("k", {blockN, span}, 128, dims);
  contract.tensorMap("v", {blockN, span}, 128, dims);
}

void AttentionBuilder::recordGrid(LaunchContract &contract, Operation *kernel,
                                  Attribute rowsQ, Attribute headsQ,
                                  Attribute batch, Attribute splits) {
  int64_t rowsPerCta = blockM * op.getNumConsumerGroups();
  if (!persistent()) {
    Attribute blocks = contract.ceildiv(rowsQ, contract.integer(rowsPerCta));
    if (splits)
      blocks = contract.mul(blocks, splits);
    contract.record(kernel, {blocks, headsQ, batch});
    return;
  }
  int64_t rowsPerItem = pairsBlocks() ? 2 * rowsPerCta : rowsPerCta;
  Attribute items =
      contract.mul(contract.ceildiv(rowsQ, contract.integer(rowsPerItem)),
                   contract.mul(headsQ, batch));
  if (splits)
    items = contract.mul(items, splits);
  Attribute one = contract.integer(1);
  contract.record(kernel,
                  {contract.min(b.getStringAttr("num_sms"), items), one, one});
}

void AttentionBuilder::recordLaunchContract(Operation *kernel) {
  if (varlen())
    return recordVarlenContract(kernel);
  if (kvcache())
    return recordKvcacheContract(kernel);
  LaunchContract contract(b);
  Type dtype = op.getElementType();
  Attribute batch = contract.size(op.getBatch(), "B"),
            headsQ = contract.size(op.getNumHeadsQ(), "H"),
            headsKV = contract.size(op.getNumHeadsKV(), "HKV"),
            sq = contract.size(op.getSeqLenQ(), "SQ"),
            sk = contract.size(op.getSeqLenK(), "SK");
  Attribute d = contract.integer(headDim);
  contract.tensor("q", {batch, headsQ, sq, d}, dtype, /*output=*/false);
  contract.tensor("k", {batch, headsKV, sk, d}, dtype, /*output=*/false);
  if (fp8()) {
    // v transposed, its keys padded to whole groups of 16 (SKV); or with
    // transpose_v as k.
    if (op.takesTransposedValues())
      contract.tensor("v",
                      {batch, headsKV, d,
                       contract.size(op.getValueType().getDimSize(3), "SKV")},
                      dtype, /*output=*/false);
    else
      contract.tensor("v", {batch, headsKV, sk, d}, dtype, /*output=*/false);
    // The descales: [1], or [batch, heads_kv] per sequence and KV head.
    SmallVector<Attribute> descale = {contract.integer(1)};
    if (op.hasHeadDescales())
      descale = {batch, headsKV};
    for (StringRef name : {"descale_q", "descale_k", "descale_v"})
      contract.tensor(name, descale, b.getF32Type(), /*output=*/false);
  } else {
    contract.tensor("v", {batch, headsKV, sk, d}, dtype, /*output=*/false);
  }
  contract.tensor("o", {batch, headsQ, sq, d}, op.getOutputElementType(),
                  /*output=*/true);
  mapInputs(contract);
  contract.storeTensorMap("o", {blockM, headDim}, op.getOutputElementType(),
                          op.getTarget());
  if (op.hasLse()) {
    contract.tensor("lse", {batch, headsQ, sq}, b.getF32Type(),
                    /*output=*/true);
    // Written with plain stores (tile.store_direct), not TMA: its rows of
    // seq_q f32 need not be multiples of 16 bytes.
    contract.memref("lse");
  }
  if (fp8())
    for (StringRef name : {"descale_q", "descale_k", "descale_v"})
      contract.memref(name);
  for (Attribute size : {batch, headsQ, headsKV, sq, sk})
    contract.scalar(size);
  recordGrid(contract, kernel, sq, headsQ, batch);
}

void AttentionBuilder::recordKvcacheContract(Operation *kernel) {
  LaunchContract contract(b);
  Type dtype = op.getElementType(), i32Type = b.getI32Type();
  Attribute batch = contract.size(op.getBatch(), "B"),
            headsQ = contract.size(op.getNumHeadsQ(), "H"),
            headsKV = contract.size(op.getNumHeadsKV(), "HKV"),
            sq = contract.size(op.getSeqLenQ(), "SQ"),
            rows = contract.size(op.getSeqLenK(), "SK");
  Attribute d = contract.integer(headDim);
  // Dense caches have a row block per sequence; paged ones a pool of pages.
  Attribute blocks =
      paged() ? contract.size(op.getKeyType().getDimSize(0), "NP") : batch;
  // Packed: q and o as [batch, seq_q, heads_kv, group, head_dim], views of
  // the caller's tensors.
  Attribute g = contract.integer(group);
  if (packed())
    contract.tensor("q", {batch, sq, headsKV, g, d}, dtype, /*output=*/false);
  else
    contract.tensor("q", {batch, sq, headsQ, d}, dtype, /*output=*/false);
  contract.tensor("k", {blocks, rows, headsKV, d}, dtype, /*output=*/false);
  contract.tensor("v", {blocks, rows, headsKV, d}, dtype, /*output=*/false);
  contract.tensor("cache_seqlens", {batch}, i32Type, /*output=*/false);
  if (paged())
    contract.tensor(
        "block_table",
        {batch, contract.size(op.getBlockTableType().getDimSize(1), "MP")},
        i32Type, /*output=*/false);
  if (packed())
    contract.tensor("o", {batch, sq, headsKV, g, d}, dtype, /*output=*/true);
  else
    contract.tensor("o", {batch, sq, headsQ, d}, dtype, /*output=*/true);
  if (op.hasLse())
    contract.tensor("lse", {batch, headsQ, sq}, b.getF32Type(),
                    /*output=*/true);
  // The work items' heads and rows: KV heads and seq_q * group packed rows
  // when packed.
  Attribute itemHeads = packed() ? headsKV : headsQ;
  Attribute itemRows = packed() ? contract.mul(sq, g) : sq;
  // Split-KV: the number of splits (from the caller), the partial results
  // and a counter per query tile of a consumer, zeroed once by the runtime
  // and left zeroed by every launch.
  Attribute splits;
  if (split()) {
    splits = contract.callerSize("S");
    contract.scratch("partial_o", {splits, batch, itemHeads, itemRows, d},
                     b.getF32Type(), /*zeroed=*/false);
    contract.scratch("partial_lse", {splits, batch, itemHeads, itemRows},
                     b.getF32Type(), /*zeroed=*/false);
    int64_t consumers = op.getNumConsumerGroups();
    Attribute tiles = contract.mul(
        contract.ceildiv(itemRows, contract.integer(blockM * consumers)),
        contract.integer(consumers));
    contract.scratch("counters",
                     {contract.mul(contract.mul(batch, itemHeads), tiles)},
                     i32Type, /*zeroed=*/true);
  }
  // Every tensor map is over the [blocks, heads, rows, head_dim] view of its
  // [blocks, rows, heads, head_dim] tensor (dims [0, 2, 1, 3]): a box is
  // rows of one head, of one sequence or of one page.
  SmallVector<int64_t> dims = {0, 2, 1, 3};
  mapInputs(contract, dims);
  if (storesDirect())
    contract.memref("o");
  else if (packed())
    contract.storeTensorMap("o", {blockM / group, group, headDim},
                            op.getOutputElementType(), op.getTarget(),
                            {0, 2, 1, 3, 4});
  else
    contract.storeTensorMap("o", {blockM, headDim}, op.getOutputElementType(),
                            op.getTarget(), dims);
  if (op.hasLse())
    contract.memref("lse");
  contract.memref("cache_seqlens");
  if (paged())
    contract.memref("block_table");
  for (Attribute size : {batch, headsQ, headsKV, sq, rows})
    contract.scalar(size);
  if (split()) {
    contract.memref("partial_o");
    contract.memref("partial_lse");
    contract.memref("counters");
    contract.scalar(splits);
  }
  recordGrid(contract, kernel, itemRows, itemHeads, batch, splits);
}

void AttentionBuilder::recordVarlenContract(Operation *kernel) {
  LaunchContract contract(b);
  Type dtype = op.getElementType();
  Attribute headsQ = contract.size(op.getNumHeadsQ(), "H"),
            headsKV = contract.size(op.getNumHeadsKV(), "HKV"),
            tq = contract.size(op.getSeqLenQ(), "TQ"),
            tk = contract.size(op.getSeqLenK(), "TK"),
            entries = contract.size(op.getCuSeqlensQType().getDimSize(0), "B1");
  Attribute d = contract.integer(headDim);
  contract.tensor("q", {tq, headsQ, d}, dtype, /*output=*/false);
  contract.tensor("k", {tk, headsKV, d}, dtype, /*output=*/false);
  contract.tensor("v", {tk, headsKV, d}, dtype, /*output=*/false);
  contract.tensor("cu_seqlens_q", {entries}, b.getI32Type(), /*output=*/false);
  contract.tensor("cu_seqlens_k", {entries}, b.getI32Type(), /*output=*/false);
  contract.tensor("o", {tq, headsQ, d}, dtype, /*output=*/true);
  if (op.hasLse())
    contract.tensor("lse", {headsQ, tq}, b.getF32Type(), /*output=*/true);
  // The batch and the longest query sequence size the grid; no tensor's
  // shape has them: the caller passes them.
  Attribute batch = contract.callerSize("B"),
            maxSeqQ = contract.callerSize("MAXQ");
  // Q, K and V as [heads, total, head_dim] views of the packed tensors
  // (dims [1, 0, 2]): a box covers rows of one head.
  mapInputs(contract, {1, 0, 2});
  // O leaves by plain stores bounded by the sequence's end, or on sm_90a by
  // TMA where a block ends inside its sequence; lse by plain stores.
  contract.memref("o");
  if (varlenTmaStores())
    contract.storeTensorMap("o", {blockM, headDim}, op.getOutputElementType(),
                            op.getTarget(), {1, 0, 2});
  if (op.hasLse())
    contract.memref("lse");
  contract.memref("cu_seqlens_q");
  contract.memref("cu_seqlens_k");
  for (Attribute size : {batch, headsQ, headsKV, maxSeqQ, tq, tk})
    contract.scalar(size);
  recordGrid(contract, kernel, maxSeqQ, headsQ, batch);
}

SmallVector<Value> AttentionBuilder::queryCoords(Value batch, Value head,
                                                 Value row) {
  if (varlen())
    return {head, arith::AddIOp::create(b, loc, qRow0, row), constI32(0)};
  // Packed: [batch, kv head, position, head in group, column].
  if (packed())
    return {batch, head, position(row), constI32(0), constI32(0)};
  return {batch, head, row, constI32(0)};
}

Value AttentionBuilder::position(Value row) {
  if (!packed())
    return row;
  Value g = constI32(group);
  if (auto type = dyn_cast<RankedTensorType>(row.getType()))
    g = splat(g, type);
  return arith::DivUIOp::create(b, loc, row, g);
}

SmallVector<Value> AttentionBuilder::valueCoords(Value batch, Value kvHead,
                                                 Value row, Value zero) {
  // fp8: v is transposed, [batch, heads_kv, head_dim, keys].
  if (op.takesTransposedValues())
    return {batch, kvHead, zero, row};
  return keyCoords(batch, kvHead, row, zero);
}

Value AttentionBuilder::loadValues(Value v, ArrayRef<Value> coords) {
  Value tile = tile::LoadOp::create(b, loc, v, coords);
  if (!fp8() || op.takesTransposedValues())
    return tile;
  auto type = cast<RankedTensorType>(tile.getType());
  return tile::TransposeOp::create(
      b, loc,
      RankedTensorType::get({type.getDimSize(1), type.getDimSize(0)},
                            type.getElementType()),
      tile, b.getUnitAttr());
}

void AttentionBuilder::loadDescales(Value batch, Value kvHead) {
  // log2(e) folded into the softmax scale: exp(x * scale) = exp2(x * c).
  scoreScale = constF32(op.getScaleOrDefault() * M_LOG2E);
  if (!fp8())
    return;
  // The factor of the tensor, or those of the work item's sequence and KV
  // head (loaded per work item, as the tile's rows are).
  SmallVector<Value> indices;
  if (op.hasHeadDescales()) {
    for (Value index : {batch, kvHead})
      indices.push_back(
          arith::IndexCastOp::create(b, loc, b.getIndexType(), index));
  } else {
    indices.push_back(arith::ConstantIndexOp::create(b, loc, 0));
  }
  auto load = [&](Value buffer) -> Value {
    return memref::LoadOp::create(b, loc, buffer, indices);
  };
  scoreScale = arith::MulFOp::create(
      b, loc, scoreScale,
      arith::MulFOp::create(b, loc, load(descaleQ), load(descaleK)));
  valueScale = load(descaleV);
}

SmallVector<Value> AttentionBuilder::keyCoords(Value batch, Value kvHead,
                                               Value row, Value zero) {
  if (paged()) {
    // Row `row % page_size` of its page (`row` is never negative), moved
    // back as tileStart says: the box stays in the page, and rows before
    // the page's first (a negative row) read as zeros.
    Value offset = arith::AddIOp::create(
        b, loc, arith::RemSIOp::create(b, loc, row, constI32(op.getPageSize())),
        arith::SubIOp::create(b, loc, tileStart(row), row));
    return {loadPage(batch, row), kvHead, offset, zero};
  }
  if (varlen())
    return {kvHead, arith::AddIOp::create(b, loc, kRow0, row), zero};
  return {batch, kvHead, tileStart(row), zero};
}

Value AttentionBuilder::tileStart(Value n0) {
  if (!kvcache())
    return n0;
  Value end = arith::AddIOp::create(b, loc, n0, constI32(blockN));
  Value past =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, end, seqK);
  return arith::SelectOp::create(
      b, loc, past, arith::SubIOp::create(b, loc, seqK, constI32(blockN)), n0);
}

/// The entry `at` of `table` (an i32 memref), each index clamped to
/// [0, size - 1] of its dimension.
static Value loadClamped(OpBuilder &b, Location loc, Value table,
                         ArrayRef<Value> at) {
  Type index = b.getIndexType();
  SmallVector<Value> indices;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  for (auto [dim, value] : llvm::enumerate(at)) {
    Value size =
        memref::DimOp::create(b, loc, table, static_cast<int64_t>(dim));
    Value last = arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, size, one), zero);
    Value i = arith::IndexCastOp::create(b, loc, index, value);
    i = arith::MaxSIOp::create(b, loc, arith::MinSIOp::create(b, loc, i, last),
                               zero);
    indices.push_back(i);
  }
  return memref::LoadOp::create(b, loc, table, indices);
}

void AttentionBuilder::loadCacheLength(Value batch) {
  // The cache's capacity: max_len rows, or max_pages pages.
  Value capacity = cacheRows;
  if (paged()) {
    Value pages = arith::IndexCastOp::create(
        b, loc, i32, memref::DimOp::create(b, loc, blockTable, 1));
    capacity = arith::MulIOp::create(b, loc, pages, cacheRows);
  }
  Value length = loadClamped(b, loc, cacheSeqlens, {batch});
  seqK = arith::MaxSIOp::create(
      b, loc, arith::MinSIOp::create(b, loc, length, capacity), constI32(0));
}

Value AttentionBuilder::loadPage(Value batch, Value row) {
  Value slot = arith::DivSIOp::create(b, loc, row, constI32(op.getPageSize()));
  return loadClamped(b, loc, blockTable, {batch, slot});
}

Value AttentionBuilder::loadSequence(Value seq, Value first) {
  SequenceBounds bounds =
      loadSequenceBounds(b, loc, cuQ, cuK, batchCount, seq, totalQ, totalK);
  qRow0 = bounds.qRow0;
  seqQ = bounds.seqQ;
  kRow0 = bounds.kRow0;
  seqK = bounds.seqK;
  Value hasRows =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, first, seqQ);
  return arith::AndIOp::create(b, loc, bounds.exists, hasRows);
}

void AttentionBuilder::storeSequenceRows(Value head, Value m0, Value out) {
  Value zero = constI32(0);
  if (!varlenTmaStores()) {
    tile::StoreDirectOp::create(b, loc, sequenceView(o), {head, m0, zero}, out);
    return;
  }
  Value end = arith::AddIOp::create(b, loc, m0, constI32(blockM));
  Value inside =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, end, seqQ);
  auto ifOp = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  tile::StoreOp::create(b, loc, oMap,
                        {head, arith::AddIOp::create(b, loc, qRow0, m0), zero},
                        out);
  b.setInsertionPointToStart(ifOp.elseBlock());
  tile::StoreDirectOp::create(b, loc, sequenceView(o), {head, m0, zero}, out);
}

Value AttentionBuilder::sequenceView(Value buffer) {
  return fmha::sequenceView(b, loc, buffer, headsQ, qRow0, seqQ, totalQ);
}

Value AttentionBuilder::visible(Value m0, Value n0) {
  auto idxType = tensorType({blockM, blockN}, i32);
  Value rows = position(arith::AddIOp::create(
      b, loc, splat(m0, idxType),
      tile::IotaOp::create(b, loc, idxType, b.getI64IntegerAttr(0))));
  Value start = tileStart(n0);
  Value cols = arith::AddIOp::create(
      b, loc, splat(start, idxType),
      tile::IotaOp::create(b, loc, idxType, b.getI64IntegerAttr(1)));
  // The sequence-length tail (or the end of the split's keys).
  Value mask = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, cols,
                                     splat(keyLimit, idxType));
  // A moved tile's keys before n0, which the tile before it had.
  if (kvcache())
    mask = arith::AndIOp::create(
        b, loc, mask,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, cols,
                              splat(n0, idxType)));
  return maskWindow(b, loc, mask, cols, rows, seqQ, seqK, op.getLeftWindow(),
                    op.getRightWindow());
}

SmallVector<Value> AttentionBuilder::loadQueryTiles(Value batch, Value head,
                                                    ArrayRef<Value> rows) {
  SmallVector<Value> tiles;
  for (Value m0 : rows)
    tiles.push_back(
        tile::LoadOp::create(b, loc, q, queryCoords(batch, head, m0)));
  return tiles;
}

std::pair<Value, Value> AttentionBuilder::keyRange(ArrayRef<Value> rows) {
  Value zero = constI32(0);
  // The K/V range the masks leave visible to any of the CTA's rows, in
  // whole tiles: causal and right-windowed queries see keys up to their
  // diagonal (+ right), left windows start `left` keys before it. All Q
  // tiles share one stream of K/V tiles; each masks what it must not see.
  Value shift = arith::SubIOp::create(b, loc, seqK, seqQ);
  Value end = seqK;
  if (std::optional<int64_t> right = op.getRightWindow()) {
    // Past the last position of the last tile (packed: block_m / group
    // positions per tile).
    Value last;
    if (packed())
      last = arith::AddIOp::create(
          b, loc, arith::AddIOp::create(b, loc, position(rows.back()), shift),
          addWindow(blockM / group, *right, seqQ));
    else
      last = arith::AddIOp::create(
          b, loc, arith::AddIOp::create(b, loc, rows.back(), shift),
          addWindow(blockM, *right, seqQ));
    end = arith::MinSIOp::create(b, loc, end, last);
  }
  Value begin = zero;
  if (std::optional<int64_t> left = op.getLeftWindow()) {
    Value first = arith::SubIOp::create(
        b, loc, arith::AddIOp::create(b, loc, position(rows.front()), shift),
        windowSize(*left, seqK));
    first = arith::MaxSIOp::create(b, loc, first, zero);
    begin = arith::MulIOp::create(
        b, loc, arith::DivSIOp::create(b, loc, first, constI32(blockN)),
        constI32(blockN));
  }
  Value span = arith::MaxSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, end, begin), zero);
  Value tiles = arith::DivSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, span, constI32(blockN - 1)),
      constI32(blockN));
  return {begin, tiles};
}

void AttentionBuilder::splitKeyRange(Value &begin, Value &tiles) {
  // Split s of n takes tiles [s * tiles / n, (s + 1) * tiles / n): shares
  // that differ by one tile at most, empty when there are fewer tiles than
  // splits.
  auto share = [&](Value s) -> Value {
    return arith::DivSIOp::create(
        b, loc, arith::MulIOp::create(b, loc, s, tiles), numSplits);
  };
  Value first = share(splitIndex);
  Value last = share(arith::AddIOp::create(b, loc, splitIndex, constI32(1)));
  Value end = arith::AddIOp::create(
      b, loc, begin, arith::MulIOp::create(b, loc, last, constI32(blockN)));
  keyLimit = arith::MinSIOp::create(b, loc, seqK, end);
  begin = arith::AddIOp::create(
      b, loc, begin, arith::MulIOp::create(b, loc, first, constI32(blockN)));
  tiles = arith::SubIOp::create(b, loc, last, first);
}

void AttentionBuilder::storeResults(Value batch, Value head, Value m0,
                                    Value acc, Value rowMax, Value rowSum) {
  double negInf = -std::numeric_limits<double>::infinity();
  // Rows with no visible key: o = 0 and lse = -inf.
  RowNorm norm = rowNorm(rowSum);
  Value hasKeys = norm.hasKeys, safeSum = norm.safeSum, inverse = norm.inverse;
  // A cache's rows past its length may hold anything, NaN included: a row
  // that sees no key gets 0 rather than 0 * those rows of V. Its factor is
  // 0 and the choice reads the broadcast factor alone, so that a role
  // handed only the factor (the sm_100a correction) can make it.
  if (kvcache())
    inverse = arith::SelectOp::create(b, loc, hasKeys, inverse,
                                      splat(constF32(0.0), rowType));
  // fp8: descale_v, once per row with the reciprocal of the sum.
  if (valueScale)
    inverse =
        arith::MulFOp::create(b, loc, inverse, splat(valueScale, rowType));
  Value factor =
      tile::BroadcastOp::create(b, loc, oType, inverse, b.getI64IntegerAttr(1));
  Value out = arith::MulFOp::create(b, loc, acc, factor);
  if (kvcache())
    out = arith::SelectOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, factor,
                              splat(constF32(0.0), oType)),
        splat(constF32(0.0), oType), out);
  // lse = max + log2(sum), in base 2 (max is in base 2); -inf for rows
  // that see no key.
  auto lse2 = [&]() -> Value {
    Value row = arith::AddFOp::create(b, loc, rowMax,
                                      math::Log2Op::create(b, loc, safeSum));
    return arith::SelectOp::create(b, loc, hasKeys, row,
                                   splat(constF32(negInf), rowType));
  };
  if (split())
    return storePartials(batch, head, m0, out, lse2());
  writeResults(batch, head, m0, out,
               [&]() -> Value { return naturalLse(rowMax, norm); });
}

AttentionBuilder::RowNorm AttentionBuilder::rowNorm(Value rowSum) {
  Value hasKeys = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                        rowSum, splat(constF32(0.0), rowType));
  Value safeSum = arith::SelectOp::create(b, loc, hasKeys, rowSum,
                                          splat(constF32(1.0), rowType));
  // One approximate reciprocal per row (rcp.approx, a single instruction),
  // then a multiply per element: an IEEE division per element is 64 to 128
  // div.rn.f32 per thread, each a dozen instructions and a called slow
  // path. Its error (1 ulp of f32) is far below the output's rounding.
  Value inverse = arith::DivFOp::create(b, loc, splat(constF32(1.0), rowType),
                                        safeSum, arith::FastMathFlags::afn);
  return {hasKeys, safeSum, inverse};
}

Value AttentionBuilder::naturalLse(Value rowMax, const RowNorm &norm) {
  Value lseRow = arith::MulFOp::create(
      b, loc,
      arith::AddFOp::create(b, loc, rowMax,
                            math::Log2Op::create(b, loc, norm.safeSum)),
      splat(constF32(M_LN2), rowType));
  return arith::SelectOp::create(
      b, loc, norm.hasKeys, lseRow,
      splat(constF32(-std::numeric_limits<double>::infinity()), rowType));
}

void AttentionBuilder::writeResults(Value batch, Value head, Value m0,
                                    Value out, function_ref<Value()> lseRow) {
  writeOutput(batch, head, m0, out, constI32(0));
  if (lse)
    writeLse(batch, head, m0, lseRow());
}

void AttentionBuilder::writeOutput(Value batch, Value head, Value m0, Value out,
                                   Value column) {
  out = arith::TruncFOp::create(
      b, loc,
      tensorType(cast<RankedTensorType>(out.getType()).getShape(),
                 op.getOutputElementType()),
      out);
  // A varlen block may end past its sequence: its O goes out by stores
  // bounded by the sequence's end instead of a TMA box; so does split-KV's
  // merged O (inside the last arrival's condition). Packed rows run over
  // two dimensions of o: row_dims 2, or a TMA box of block_m / group
  // positions of the group's heads.
  IntegerAttr rowDims = packed() ? b.getI64IntegerAttr(2) : IntegerAttr();
  Value zero = constI32(0);
  if (varlen())
    storeSequenceRows(head, m0, out);
  else if (storesDirect() && packed())
    tile::StoreDirectOp::create(b, loc, outputView(),
                                {batch, head, position(m0), zero, column}, out,
                                rowDims);
  else if (storesDirect())
    tile::StoreDirectOp::create(b, loc, outputView(), {batch, head, m0, column},
                                out);
  else if (packed())
    tile::StoreOp::create(b, loc, o, {batch, head, position(m0), zero, column},
                          out);
  else
    tile::StoreOp::create(b, loc, o, {batch, head, m0, column}, out);
}

void AttentionBuilder::writeLse(Value batch, Value head, Value m0, Value rows) {
  IntegerAttr rowDims = packed() ? b.getI64IntegerAttr(2) : IntegerAttr();
  Value zero = constI32(0);
  if (varlen())
    tile::StoreDirectOp::create(b, loc, sequenceView(lse), {head, m0}, rows);
  else if (packed())
    tile::StoreDirectOp::create(
        b, loc, lseView(), {batch, head, position(m0), zero}, rows, rowDims);
  else
    tile::StoreDirectOp::create(b, loc, lse, {batch, head, m0}, rows);
}

/// How the sm_100a correction warpgroup (88 registers, a row per thread)
/// merges split-KV's partials: two partials in flight, 8 columns at a time.
/// ptxas -v on test/Target/sm100/attention-decode.mlir: no spills; with 16
/// columns, or with chunks of 8 to 64 rows in #tile.blocked (as sm_90a),
/// 4 to 40 bytes in some of its kernels.
static const MergeShape kTmemMergeShape{/*unroll=*/2, /*columns=*/8};

void AttentionBuilder::storePartials(Value batch, Value head, Value m0,
                                     Value out, Value lse2) {
  Value zero = constI32(0);
  tile::StoreDirectOp::create(b, loc, partialO,
                              {splitIndex, batch, head, m0, zero}, out);
  tile::StoreDirectOp::create(b, loc, partialLse, {splitIndex, batch, head, m0},
                              lse2);
  // The tile's counter: (batch * heads + head) * tiles per head + m0 /
  // block_m, tiles per head being whole CTAs' worth of consumer tiles.
  int64_t consumers = op.getNumConsumerGroups();
  Value heads = packed() ? headsKV : headsQ;
  Value rows =
      packed()
          ? arith::MulIOp::create(b, loc, seqQ, constI32(group)).getResult()
          : seqQ;
  Value tiles = arith::MulIOp::create(
      b, loc,
      arith::DivSIOp::create(
          b, loc,
          arith::AddIOp::create(b, loc, rows, constI32(blockM * consumers - 1)),
          constI32(blockM * consumers)),
      constI32(consumers));
  Value index = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(
          b, loc,
          arith::AddIOp::create(
              b, loc, arith::MulIOp::create(b, loc, batch, heads), head),
          tiles),
      arith::DivSIOp::create(b, loc, m0, constI32(blockM)));
  Value last =
      tile::CounterArriveOp::create(b, loc, counters, index, numSplits);
  auto onLast = scf::IfOp::create(b, loc, last, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(onLast.thenBlock());
  // The last arrival merges the partials of the tile's rows that exist, a
  // chunk of rows at a time (mergePartials, as fmha.merge_states): on
  // sm_90a in a layout of their own (#tile.blocked: 128-bit loads, and
  // registers for a few partials in flight rather than a 64-row
  // accumulator each): decode tiles hold few live rows (4 for one query of
  // 4 packed heads). A chunk holds whole packed groups, so that its rows
  // start at a position of the o and lse views. On sm_100a the correction
  // warpgroup merges, a row per thread, the whole tile at once and a few
  // columns at a time (kTmemMergeShape).
  bool tmem = getTargetInfo(op.getTarget()).accumulatesInTensorMemory();
  int64_t chunkRows = tmem ? blockM : op.getSplitMergeChunkRows();
  MergeShape shape = tmem ? kTmemMergeShape : MergeShape{limits::kMergeUnroll};
  int64_t width = shape.columns ? shape.columns : headDim;
  auto chunkType = RankedTensorType::get({chunkRows, headDim}, b.getF32Type());
  auto loadType = RankedTensorType::get({chunkRows, width}, b.getF32Type());
  auto chunkRowType = RankedTensorType::get({chunkRows}, b.getF32Type());
  Value live = arith::MinSIOp::create(b, loc, constI32(blockM),
                                      arith::SubIOp::create(b, loc, rows, m0));
  auto chunks =
      scf::ForOp::create(b, loc, zero, live, constI32(chunkRows), ValueRange{});
  b.setInsertionPointToStart(chunks.getBody());
  Value r0 = arith::AddIOp::create(b, loc, m0, chunks.getInductionVar());
  MergedPartials merged = mergePartials(
      b, loc, numSplits, chunkType, shape,
      [&](Value i) -> Value {
        return tile::LoadDirectOp::create(b, loc, chunkRowType, partialLse,
                                          ValueRange{i, batch, head, r0});
      },
      [&](Value i, Value column) -> Value {
        return tile::LoadDirectOp::create(
            b, loc, loadType, partialO, ValueRange{i, batch, head, r0, column});
      },
      [&](Value column, Value o) { writeOutput(batch, head, r0, o, column); });
  if (merged.o)
    writeOutput(batch, head, r0, merged.o, zero);
  if (lse)
    writeLse(batch, head, r0, merged.naturalLse(b, loc));
}

Value AttentionBuilder::stridedView(Value buffer, ArrayRef<Value> sizes,
                                    ArrayRef<Value> strides) {
  auto type = cast<MemRefType>(buffer.getType());
  auto fold = [&](ArrayRef<Value> values, SmallVectorImpl<OpFoldResult> &out,
                  SmallVectorImpl<int64_t> &statics) {
    for (Value value : values) {
      std::optional<int64_t> constant = getConstantIntValue(value);
      out.push_back(constant ? OpFoldResult(b.getIndexAttr(*constant))
                             : OpFoldResult(value));
      statics.push_back(constant.value_or(ShapedType::kDynamic));
    }
  };
  SmallVector<OpFoldResult> sizeFolds, strideFolds;
  SmallVector<int64_t> staticSizes, staticStrides;
  fold(sizes, sizeFolds, staticSizes);
  fold(strides, strideFolds, staticStrides);
  auto viewType =
      MemRefType::get(staticSizes, type.getElementType(),
                      StridedLayoutAttr::get(b.getContext(), 0, staticStrides),
                      type.getMemorySpace());
  return memref::ReinterpretCastOp::create(
      b, loc, viewType, buffer, b.getIndexAttr(0), sizeFolds, strideFolds);
}

Value AttentionBuilder::outputView() {
  // o is [batch, seq_q, heads, head_dim], packed [batch, seq_q, heads_kv,
  // group, head_dim], row-major.
  // Static sizes stay constants, so that the view's type keeps them.
  auto type = cast<MemRefType>(o.getType());
  SmallVector<Value> dims;
  for (int64_t d = 0; d < type.getRank(); ++d)
    dims.push_back(
        type.isDynamicDim(d)
            ? memref::DimOp::create(b, loc, o, d).getResult()
            : arith::ConstantIndexOp::create(b, loc, type.getDimSize(d))
                  .getResult());
  auto mul = [&](Value x, Value y) -> Value {
    std::optional<int64_t> cx = getConstantIntValue(x),
                           cy = getConstantIntValue(y);
    if (cx && cy)
      return arith::ConstantIndexOp::create(b, loc, *cx * *cy);
    return arith::MulIOp::create(b, loc, x, y);
  };
  SmallVector<Value> strides(dims.size());
  strides.back() = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t d = type.getRank() - 2; d >= 0; --d)
    strides[d] = mul(strides[d + 1], dims[d + 1]);
  // Heads before the sequence: [batch, heads(_kv), seq_q, (group,)
  // head_dim].
  std::swap(dims[1], dims[2]);
  std::swap(strides[1], strides[2]);
  return stridedView(o, dims, strides);
}

Value AttentionBuilder::lseView() {
  // lse [batch, heads_q, seq_q] as [batch, heads_kv, seq_q, group]: head
  // kv * group + j of position s is lse[b][kv * group + j][s].
  Value batchDim = memref::DimOp::create(b, loc, lse, 0);
  Value heads = memref::DimOp::create(b, loc, lse, 1);
  Value rows = memref::DimOp::create(b, loc, lse, 2);
  Value g = arith::ConstantIndexOp::create(b, loc, group);
  auto mul = [&](Value x, Value y) -> Value {
    return arith::MulIOp::create(b, loc, x, y);
  };
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  return stridedView(
      lse, {batchDim, arith::DivUIOp::create(b, loc, heads, g), rows, g},
      {mul(heads, rows), mul(g, rows), one, rows});
}

Value AttentionBuilder::needsMask(Value m0, Value n0) {
  Value shift = arith::SubIOp::create(b, loc, seqK, seqQ);
  Value lastKey = arith::AddIOp::create(b, loc, n0, constI32(blockN - 1));
  // The tile reaches past the last key (of the split).
  Value needs = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                      lastKey, keyLimit);
  // Its last key lies right of the first row's diagonal (+ right window).
  if (std::optional<int64_t> right = op.getRightWindow()) {
    Value limit = arith::AddIOp::create(
        b, loc, arith::AddIOp::create(b, loc, position(m0), shift),
        windowSize(*right, seqQ));
    needs = arith::OrIOp::create(
        b, loc, needs,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, lastKey,
                              limit));
  }
  // Its first key lies left of the last row's window start.
  if (std::optional<int64_t> left = op.getLeftWindow()) {
    // The last row's position: packed, that of the tile's last group.
    int64_t lastRow = packed() ? blockM / group - 1 : blockM - 1;
    Value start = arith::SubIOp::create(
        b, loc,
        arith::AddIOp::create(b, loc, position(m0),
                              subWindow(lastRow, *left, seqK)),
        arith::SubIOp::create(b, loc, seqQ, seqK));
    needs = arith::OrIOp::create(
        b, loc, needs,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, n0, start));
  }
  return needs;
}

AttentionBuilder::SoftmaxStep AttentionBuilder::softmaxStep(Value s, Value m0,
                                                            Value n0,
                                                            Value rowMax,
                                                            Value rowSum) {
  double negInf = -std::numeric_limits<double>::infinity();
  // Masks cost several instructions per element: only tiles that cross the
  // sequence end, the diagonal or a window edge pay them.
  auto masked = scf::IfOp::create(b, loc, sType, needsMask(m0, n0),
                                  /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(masked.thenBlock());
    Value select = arith::SelectOp::create(b, loc, visible(m0, n0), s,
                                           splat(constF32(negInf), sType));
    scf::YieldOp::create(b, loc, select);
    b.setInsertionPointToStart(masked.elseBlock());
    scf::YieldOp::create(b, loc, s);
  }
  s = masked.getResult(0);
  // log2(e) folded into the softmax scale: exp(x * scale) = exp2(x * c)
  // (scoreScale; with fp8 times the descales of q and k, which must be
  // positive). For c > 0 the row max of x * c is c times the row max of x,
  // so the scaling joins the subtraction in one fma per element.
  double c = op.getScaleOrDefault() * M_LOG2E;
  Value cSplat = splat(scoreScale, sType);
  if (c <= 0)
    s = arith::MulFOp::create(b, loc, s, cSplat);
  Value tileMax = tile::ReduceOp::create(
      b, loc, rowType,
      tile::ReduceKindAttr::get(b.getContext(), tile::ReduceKind::max), s,
      b.getI64IntegerAttr(1));
  if (c > 0)
    tileMax =
        arith::MulFOp::create(b, loc, tileMax, splat(scoreScale, rowType));
  Value newMax = arith::MaximumFOp::create(b, loc, rowMax, tileMax);
  if (conditionalRescale()) {
    // A row's reference moves to its new max only when that exceeds the
    // old by more than kRescaleThreshold (base 2), so most steps keep
    // alpha at exactly 1. P stays at most 2^threshold, and O, the sum and
    // the log-sum-exp are all taken against the same reference. A row's
    // first finite max always moves it (+inf more than -inf); -inf - -inf
    // is NaN, which compares false: such a row keeps -inf.
    Value moves =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                              arith::SubFOp::create(b, loc, newMax, rowMax),
                              splat(constF32(kRescaleThreshold), rowType));
    newMax = arith::SelectOp::create(b, loc, moves, newMax, rowMax);
  }
  // Rows with nothing visible yet keep a finite reference, so that
  // exp2(-inf - max) is 0 instead of NaN.
  Value isEmpty =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, newMax,
                            splat(constF32(negInf), rowType));
  Value ref = arith::SelectOp::create(b, loc, isEmpty,
                                      splat(constF32(0.0), rowType), newMax);
  Value negRef = tile::BroadcastOp::create(b, loc, sType,
                                           arith::NegFOp::create(b, loc, ref),
                                           b.getI64IntegerAttr(1));
  Value p = c > 0 ? math::FmaOp::create(b, loc, s, cSplat, negRef).getResult()
                  : arith::AddFOp::create(b, loc, s, negRef).getResult();
  p = math::Exp2Op::create(b, loc, p);
  auto [alpha, newSum] = rescaleSum(p, rowMax, ref, rowSum);
  Value pLow = arith::TruncFOp::create(
      b, loc, tensorType(sType.getShape(), op.getElementType()), p);
  return {pLow, newMax, newSum, alpha};
}

std::pair<Value, Value> AttentionBuilder::rescaleSum(Value p, Value rowMax,
                                                     Value ref, Value rowSum) {
  // P stays unnormalised; the running sum and O are rescaled by
  // exp2(old max - new max) and divided by the sum once, at the end.
  Value alpha =
      math::Exp2Op::create(b, loc, arith::SubFOp::create(b, loc, rowMax, ref));
  Value tileSum = tile::ReduceOp::create(
      b, loc, rowType,
      tile::ReduceKindAttr::get(b.getContext(), tile::ReduceKind::sum), p,
      b.getI64IntegerAttr(1));
  Value newSum = arith::AddFOp::create(
      b, loc, arith::MulFOp::create(b, loc, rowSum, alpha), tileSum);
  return {alpha, newSum};
}

Value AttentionBuilder::valueProduct(Value p, Value vTile, Value acc,
                                     bool async) {
  UnitAttr unit = b.getUnitAttr();
  // fp8: V^T is K-major (transpose_b), its keys in the order the 8-bit A
  // fragment reads P's registers (k_quad16).
  if (fp8())
    return tile::DotOp::create(b, loc, p, vTile, acc, UnitAttr(), unit,
                               async ? unit : UnitAttr(), UnitAttr(), unit);
  return tile::DotOp::create(b, loc, p, vTile, acc, UnitAttr(), UnitAttr(),
                             async ? unit : UnitAttr());
}

void AttentionBuilder::buildQueryTiles(Value batch, Value head, Value kvHead,
                                       ArrayRef<Value> rows) {
  Value zero = constI32(0);
  loadDescales(batch, kvHead);
  SmallVector<Value> qTiles = loadQueryTiles(batch, head, rows);

  auto [begin, tiles] = keyRange(rows);
  if (split())
    splitKeyRange(begin, tiles);
  // At least one tile, fully masked when no key is visible: the first
  // tile's S and the last tile's P V sit outside the loop.
  tiles = arith::MaxSIOp::create(b, loc, tiles, constI32(1));
  auto keyStart = [&](Value index) {
    return arith::AddIOp::create(
        b, loc, begin, arith::MulIOp::create(b, loc, index, constI32(blockN)));
  };
  auto zeros = [&](RankedTensorType type) {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, b.getF32FloatAttr(0.0)));
  };
  double negInf = -std::numeric_limits<double>::infinity();

  // The loop is software-pipelined (FlashAttention-3's intra-warpgroup
  // overlap): iteration j issues S_j = Q K_j^T and O += P_{j-1} V_{j-1}
  // back to back, waits for S_j only, computes its softmax while P V runs,
  // then rescales O. The first tile's S and softmax come before the loop,
  // the last tile's P V after it.
  Value k0 =
      tile::LoadOp::create(b, loc, k, keyCoords(batch, kvHead, begin, zero));
  SmallVector<Value> inits;
  for (auto [i, m0] : llvm::enumerate(rows)) {
    Value s = tile::DotOp::create(b, loc, qTiles[i], k0, zeros(sType),
                                  UnitAttr(), b.getUnitAttr(), UnitAttr());
    SoftmaxStep step = softmaxStep(
        s, m0, begin,
        arith::ConstantOp::create(
            b, loc, DenseElementsAttr::get(rowType, b.getF32FloatAttr(negInf))),
        zeros(rowType));
    inits.append({zeros(oType), step.rowMax, step.rowSum, step.p});
  }
  auto loop =
      scf::ForOp::create(b, loc, constI32(1), tiles, constI32(1), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value n0 = keyStart(loop.getInductionVar());
    Value previous = arith::SubIOp::create(b, loc, n0, constI32(blockN));
    Value kTile =
        tile::LoadOp::create(b, loc, k, keyCoords(batch, kvHead, n0, zero));
    SmallVector<Value> scores, accs;
    for (Value qTile : qTiles)
      scores.push_back(tile::DotOp::create(b, loc, qTile, kTile, zeros(sType),
                                           UnitAttr(), b.getUnitAttr(),
                                           b.getUnitAttr()));
    Value vTile = loadValues(v, valueCoords(batch, kvHead, previous, zero));
    for (size_t i = 0; i < rows.size(); ++i) {
      auto state = loop.getRegionIterArgs().slice(4 * i, 4);
      accs.push_back(valueProduct(state[3], vTile, state[0], /*async=*/true));
    }
    SmallVector<Value> yields;
    for (auto [i, m0] : llvm::enumerate(rows)) {
      auto state = loop.getRegionIterArgs().slice(4 * i, 4);
      // Each consumer issued its S then its P V: S is the older one.
      Value s = tile::DotWaitOp::create(b, loc, ValueRange{scores[i]}, 1)
                    .getResult(0);
      SoftmaxStep step = softmaxStep(s, m0, n0, state[1], state[2]);
      auto wait = tile::DotWaitOp::create(b, loc, ValueRange{accs[i]}, 0);
      // An 8-bit P is converted once the P V product that reads the
      // previous one is done, as FlashAttention-3 orders it: the
      // conversion writes the registers the next P V reads, four values
      // to a register, and registers a wgmma reads must not be written
      // while one runs (else ptxas serializes every wgmma, C7513).
      if (getElementTypeOrSelf(step.p.getType()).getIntOrFloatBitWidth() == 8)
        step.p.getDefiningOp()->moveAfter(wait);
      // With conditional rescaling alpha is exactly 1 in most steps, and
      // tile.scale_rows lets those skip O's multiplies.
      Value acc = wait.getResult(0);
      acc = conditionalRescale()
                ? tile::ScaleRowsOp::create(b, loc, acc, step.alpha).getResult()
                : arith::MulFOp::create(
                      b, loc, acc,
                      tile::BroadcastOp::create(b, loc, oType, step.alpha,
                                                b.getI64IntegerAttr(1)))
                      .getResult();
      yields.append({acc, step.rowMax, step.rowSum, step.p});
    }
    scf::YieldOp::create(b, loc, yields);
  }

  Value last = keyStart(arith::SubIOp::create(b, loc, tiles, constI32(1)));
  Value vLast = loadValues(v, valueCoords(batch, kvHead, last, zero));
  for (auto [i, m0] : llvm::enumerate(rows)) {
    Value acc = valueProduct(loop.getResult(4 * i + 3), vLast,
                             loop.getResult(4 * i), /*async=*/false);
    Value rowMax = loop.getResult(4 * i + 1),
          rowSum = loop.getResult(4 * i + 2);
    storeResults(batch, head, m0, acc, rowMax, rowSum);
  }
}

/// The sm_100a program: one step per iteration (S, masked softmax, O
/// rescaled, O += P V), which ws-partition-roles on sm_100a spreads over
/// its MMA and softmax warps; the sm_90a program is software-pipelined
/// instead (buildQueryTiles).
void AttentionBuilder::buildSerialQueryTiles(Value batch, Value head,
                                             Value kvHead,
                                             ArrayRef<Value> rows) {
  Value zero = constI32(0);
  SmallVector<Value> qTiles = loadQueryTiles(batch, head, rows);

  auto [begin, tiles] = keyRange(rows);
  if (split())
    splitKeyRange(begin, tiles);

  double negInf = -std::numeric_limits<double>::infinity();
  // log2(e) folded into the softmax scale: exp(x * scale) = exp2(x * c).
  double scaleLog2 = op.getScaleOrDefault() * M_LOG2E;
  SmallVector<Value> inits;
  for (size_t i = 0; i < rows.size(); ++i) {
    inits.push_back(arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(oType, b.getF32FloatAttr(0.0))));
    inits.push_back(arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(rowType, b.getF32FloatAttr(negInf))));
    inits.push_back(arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(rowType, b.getF32FloatAttr(0.0))));
  }
  auto loop = scf::ForOp::create(b, loc, zero, tiles, constI32(1), inits);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value n0 = arith::AddIOp::create(
        b, loc, begin,
        arith::MulIOp::create(b, loc, loop.getInductionVar(),
                              constI32(blockN)));
    Value kTile =
        tile::LoadOp::create(b, loc, k, keyCoords(batch, kvHead, n0, zero));
    Value vTile =
        tile::LoadOp::create(b, loc, v, keyCoords(batch, kvHead, n0, zero));
    SmallVector<Value> yields;
    for (auto [i, m0] : llvm::enumerate(rows)) {
      auto state = loop.getRegionIterArgs().slice(3 * i, 3);
      Value acc = state[0], rowMax = state[1], rowSum = state[2];
      Value sZero = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(sType, b.getF32FloatAttr(0.0)));
      Value s = tile::DotOp::create(b, loc, qTiles[i], kTile, sZero, UnitAttr(),
                                    b.getUnitAttr());
      s = arith::MulFOp::create(b, loc, s, splat(constF32(scaleLog2), sType));
      s = arith::SelectOp::create(b, loc, visible(m0, n0), s,
                                  splat(constF32(negInf), sType));
      Value tileMax = tile::ReduceOp::create(
          b, loc, rowType,
          tile::ReduceKindAttr::get(b.getContext(), tile::ReduceKind::max), s,
          b.getI64IntegerAttr(1));
      Value newMax = arith::MaximumFOp::create(b, loc, rowMax, tileMax);
      // Rows with nothing visible yet keep a finite reference, so that
      // exp2(-inf - max) is 0 instead of NaN.
      Value isEmpty =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, newMax,
                                splat(constF32(negInf), rowType));
      Value ref = arith::SelectOp::create(
          b, loc, isEmpty, splat(constF32(0.0), rowType), newMax);
      Value p = math::Exp2Op::create(
          b, loc,
          arith::SubFOp::create(
              b, loc, s,
              tile::BroadcastOp::create(b, loc, sType, ref,
                                        b.getI64IntegerAttr(1))));
      auto [alpha, newSum] = rescaleSum(p, rowMax, ref, rowSum);
      Value scaled = arith::MulFOp::create(
          b, loc, acc,
          tile::BroadcastOp::create(b, loc, oType, alpha,
                                    b.getI64IntegerAttr(1)));
      Value pLow = arith::TruncFOp::create(
          b, loc, tensorType({blockM, blockN}, op.getElementType()), p);
      Value newAcc = tile::DotOp::create(b, loc, pLow, vTile, scaled,
                                         UnitAttr(), UnitAttr());
      yields.append({newAcc, newMax, newSum});
    }
    scf::YieldOp::create(b, loc, yields);
  }

  for (auto [i, m0] : llvm::enumerate(rows)) {
    Value acc = loop.getResult(3 * i), rowMax = loop.getResult(3 * i + 1),
          rowSum = loop.getResult(3 * i + 2);
    storeResults(batch, head, m0, acc, rowMax, rowSum);
  }
}

LogicalResult AttentionBuilder::build() {
  // sm_90a and sm_100a differ in the loop's schedule (and block_m, from the
  // op's defaults); layouts and roles come later.
  MLIRContext *ctx = op.getContext();
  Type element = op.getElementType();
  auto desc = [&](int64_t rows, Type type, unsigned rank) {
    return tile::TensorDescType::get(
        tensorType(rank >= 3 ? ArrayRef<int64_t>{rows, headDim}
                             : ArrayRef<int64_t>{rows},
                   type),
        rank);
  };
  int64_t dyn = ShapedType::kDynamic;
  SmallVector<Type> args;
  if (varlen()) {
    // Q, K and V through [heads, total, head_dim] tensor maps; O [total,
    // heads, head_dim] and lse [heads, total] as memrefs; the cu_seqlens.
    args = {desc(blockM, element, 3), desc(blockN, element, 3),
            desc(blockN, element, 3),
            MemRefType::get({dyn, dyn, headDim}, element)};
    if (varlenTmaStores())
      args.push_back(desc(blockM, element, 3));
    if (op.hasLse())
      args.push_back(MemRefType::get({dyn, dyn}, f32));
    args.append(2, MemRefType::get({dyn}, i32));
    // batch, heads_q, heads_kv, max_seqlen_q, total_q, total_k
    args.append(6, i32);
  } else if (kvcache()) {
    // Q, K, V and O through [blocks, heads, rows, head_dim] tensor maps (Q
    // packed [batch, heads_kv, seq_q, group, head_dim]; O of packed or
    // split kernels a memref [batch, seq_q, heads(_kv, group), head_dim]);
    // the cache lengths and the block table as memrefs.
    args = {desc(blockM, element, packed() ? 5 : 4), desc(blockN, element, 4),
            desc(blockN, element, 4)};
    if (storesDirect() && packed())
      args.push_back(MemRefType::get({dyn, dyn, dyn, group, headDim}, element));
    else if (storesDirect())
      args.push_back(MemRefType::get({dyn, dyn, dyn, headDim}, element));
    else
      args.push_back(desc(blockM, element, packed() ? 5 : 4));
    if (op.hasLse())
      args.push_back(MemRefType::get(SmallVector<int64_t>(3, dyn), f32));
    args.push_back(MemRefType::get({dyn}, i32));
    if (paged())
      args.push_back(MemRefType::get({dyn, dyn}, i32));
    // batch, heads_q, heads_kv, seq_q, max_len or page_size
    args.append(5, i32);
    // Split-KV: partial O and lse, the counters, the number of splits.
    if (split())
      args.append({MemRefType::get({dyn, dyn, dyn, dyn, headDim}, f32),
                   MemRefType::get(SmallVector<int64_t>(4, dyn), f32),
                   MemRefType::get({dyn}, i32), i32});
  } else if (fp8()) {
    // Q, K, V^T ([head_dim, block_n] tiles; with transpose_v V's
    // [block_n, head_dim], as K's) and O through tensor maps, the descales
    // as 1-d buffers.
    args = {desc(blockM, element, 4), desc(blockN, element, 4),
            op.takesTransposedValues()
                ? tile::TensorDescType::get(
                      tensorType({headDim, blockN}, element), 4)
                : desc(blockN, element, 4),
            desc(blockM, op.getOutputElementType(), 4)};
    if (op.hasLse())
      args.push_back(MemRefType::get(SmallVector<int64_t>(3, dyn), f32));
    args.append(3, MemRefType::get(op.hasHeadDescales()
                                       ? ArrayRef<int64_t>{dyn, dyn}
                                       : ArrayRef<int64_t>{dyn},
                                   f32));
    args.append(5, i32); // batch, heads_q, heads_kv, seq_q, seq_k
  } else {
    args = {desc(blockM, element, 4), desc(blockN, element, 4),
            desc(blockN, element, 4), desc(blockM, element, 4)};
    if (op.hasLse())
      args.push_back(MemRefType::get(SmallVector<int64_t>(3, dyn), f32));
    args.append(5, i32); // batch, heads_q, heads_kv, seq_q, seq_k
  }
  KernelShell shell =
      createKernelShell(b, op, op.getSymName(), op.getTarget(), args);
  gpu::GPUFuncOp func = shell.func;
  auto *fmha = cast<FMHADialect>(op->getDialect());
  recordLaunchContract(func);
  fmha->getStagesAttrHelper().setAttr(
      func, b.getI64IntegerAttr(op.getStagesOrDefault()));
  // The estimate sizes the register split; past the widest split's budget
  // (a tile the verifier admitted by its tight estimate) it asks for that.
  const TargetInfo &info = getTargetInfo(op.getTarget());
  if (!info.accumulatesInTensorMemory())
    fmha->getConsumerRegistersAttrHelper().setAttr(
        func, b.getI64IntegerAttr(std::min(
                  op.getConsumerRegisters(),
                  info.getMaxConsumerRegisters(op.getNumConsumerGroups()))));
  if (persistent())
    fmha->getItemSlotsAttrHelper().setAttr(
        func, b.getI64IntegerAttr(op.getQuerySlots()));
  unsigned next = 0;
  q = func.getArgument(next++);
  k = func.getArgument(next++);
  v = func.getArgument(next++);
  o = func.getArgument(next++);
  if (varlenTmaStores())
    oMap = func.getArgument(next++);
  lse = op.hasLse() ? func.getArgument(next++) : Value();
  if (varlen()) {
    cuQ = func.getArgument(next++);
    cuK = func.getArgument(next++);
  }
  if (kvcache()) {
    cacheSeqlens = func.getArgument(next++);
    if (paged())
      blockTable = func.getArgument(next++);
  }
  if (fp8()) {
    descaleQ = func.getArgument(next++);
    descaleK = func.getArgument(next++);
    descaleV = func.getArgument(next++);
  }
  batchCount = func.getArgument(next++);
  headsQ = func.getArgument(next++);
  headsKV = func.getArgument(next++);
  if (varlen()) {
    maxSeqQ = func.getArgument(next++);
    totalQ = func.getArgument(next++);
    totalK = func.getArgument(next++);
  } else {
    seqQ = func.getArgument(next++);
    seqK = func.getArgument(next++);
    cacheRows = seqK;
  }
  if (split()) {
    partialO = func.getArgument(next++);
    partialLse = func.getArgument(next++);
    counters = func.getArgument(next++);
    numSplits = func.getArgument(next++);
  }

  if (persistent()) {
    buildPersistentLoop();
  } else {
    auto grid = [&](tile::GridDim dim) -> Value {
      return tile::ProgramIdOp::create(b, loc,
                                       tile::GridDimAttr::get(ctx, dim));
    };
    Value head = grid(tile::GridDim::y), batch = grid(tile::GridDim::z);
    Value block = grid(tile::GridDim::x);
    // Causal and windowed CTAs differ in work: the last query blocks see
    // the most keys. They run first (block x takes query block count - 1 -
    // x), so the short ones fill the gaps at the end instead of a long one
    // trailing.
    if (pairsBlocks())
      block = arith::SubIOp::create(
          b, loc,
          arith::SubIOp::create(
              b, loc,
              tile::NumProgramsOp::create(
                  b, loc, tile::GridDimAttr::get(ctx, tile::GridDim::x)),
              block),
          constI32(1));
    buildTile(block, head, batch);
  }
  gpu::ReturnOp::create(b, loc);
  op.erase();
  return success();
}

void AttentionBuilder::buildTile(Value block, Value head, Value batch) {
  // GQA / MQA: query heads share KV heads in groups of heads_q / heads_kv.
  // Packed, the work item's head is the KV head.
  Value kvHead = packed() ? head
                          : arith::DivUIOp::create(
                                b, loc, head,
                                arith::DivUIOp::create(b, loc, headsQ, headsKV))
                                .getResult();
  // Split-KV: `block` numbers (query block, split) pairs.
  if (split()) {
    splitIndex = arith::RemUIOp::create(b, loc, block, numSplits);
    block = arith::DivUIOp::create(b, loc, block, numSplits);
  }
  Value first = arith::MulIOp::create(
      b, loc, block, constI32(blockM * op.getNumConsumerGroups()));
  // Varlen: `batch` is the sequence; a block that starts past its end (or
  // of a sequence that does not exist) loads and stores nothing. Every role
  // computes the same condition, so their channels stay in step.
  std::optional<OpBuilder::InsertionGuard> guard;
  if (varlen()) {
    auto item = scf::IfOp::create(b, loc, loadSequence(batch, first),
                                  /*withElseRegion=*/false);
    guard.emplace(b);
    b.setInsertionPoint(item.thenBlock()->getTerminator());
  }
  // Kvcache: the keys are the first cache_seqlens[batch] rows of the cache.
  if (kvcache())
    loadCacheLength(batch);
  keyLimit = seqK;
  SmallVector<Value> rows{first};
  for (int64_t i = 1; i < op.getNumConsumerGroups(); ++i)
    rows.push_back(arith::AddIOp::create(b, loc, first, constI32(i * blockM)));
  // With accumulators in tensor memory (tcgen05) the MMA and softmax warps
  // take one step per iteration; wgmma consumers pipeline S and P V.
  if (getTargetInfo(op.getTarget()).accumulatesInTensorMemory())
    buildSerialQueryTiles(batch, head, kvHead, rows);
  else
    buildQueryTiles(batch, head, kvHead, rows);
}

void AttentionBuilder::buildPersistentLoop() {
  MLIRContext *ctx = b.getContext();
  auto ceilDiv = [&](Value x, int64_t d) -> Value {
    return arith::DivSIOp::create(
        b, loc, arith::AddIOp::create(b, loc, x, constI32(d - 1)), constI32(d));
  };
  auto mul = [&](Value x, Value y) -> Value {
    return arith::MulIOp::create(b, loc, x, y);
  };
  Value pid = tile::ProgramIdOp::create(
      b, loc, tile::GridDimAttr::get(ctx, tile::GridDim::x));
  Value programs = tile::NumProgramsOp::create(
      b, loc, tile::GridDimAttr::get(ctx, tile::GridDim::x));
  int64_t rowsPerCta = blockM * op.getNumConsumerGroups();
  // Varlen: every sequence gets the query blocks of the longest one.
  // Packed: seq_q * group rows of each KV head. Split-KV: each query block
  // is numSplits work items.
  Value rowsQ = varlen() ? maxSeqQ : seqQ;
  if (packed())
    rowsQ = mul(rowsQ, constI32(group));
  Value blocks = ceilDiv(rowsQ, rowsPerCta);
  if (split())
    blocks = mul(blocks, numSplits);
  Value itemHeads = packed() ? headsKV : headsQ;
  Value heads = mul(itemHeads, batchCount);
  // The query blocks of one (batch, head) are neighbours in the work order,
  // so the CTAs running at the same time share its K/V tiles in L2.
  auto emit = [&](Value block, Value flatHead) {
    Value head = arith::RemUIOp::create(b, loc, flatHead, itemHeads);
    Value batch = arith::DivUIOp::create(b, loc, flatHead, itemHeads);
    buildTile(block, head, batch);
  };
  if (!pairsBlocks()) {
    // CTA p takes tiles p, p + #CTAs, ...
    auto loop = scf::ForOp::create(b, loc, pid, mul(blocks, heads), programs);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value t = loop.getInductionVar();
    Value block = arith::RemUIOp::create(b, loc, t, blocks);
    emit(block, arith::DivUIOp::create(b, loc, t, blocks));
    return;
  }
  // Masks make query blocks uneven: block i of n sees about i + 1 key
  // tiles. A work item pairs block n - 1 - j with block j, so every item
  // costs about the same and a static round-robin keeps the CTAs balanced;
  // the longer block runs first. With n odd the middle block pairs with
  // itself and is computed twice (the same values stored twice).
  Value halves = ceilDiv(rowsQ, 2 * rowsPerCta);
  Value items = mul(halves, heads);
  // CTA p takes items p, p + #CTAs, ...: this many.
  Value zero = constI32(0), one = constI32(1), two = constI32(2);
  Value left = arith::MaxSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, items, pid), zero);
  Value mine = arith::DivSIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, left,
                            arith::SubIOp::create(b, loc, programs, one)),
      programs);
  auto loop = scf::ForOp::create(b, loc, zero, mul(mine, two), one);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value u = loop.getInductionVar();
  Value item = arith::AddIOp::create(
      b, loc, pid, mul(programs, arith::DivUIOp::create(b, loc, u, two)));
  Value j = arith::RemUIOp::create(b, loc, item, halves);
  Value last = arith::SubIOp::create(b, loc, blocks, one);
  Value longer = arith::SubIOp::create(b, loc, last, j);
  Value half = arith::RemUIOp::create(b, loc, u, two);
  Value firstHalf =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, half, zero);
  Value block = arith::SelectOp::create(b, loc, firstHalf, longer, j);
  emit(block, arith::DivUIOp::create(b, loc, item, halves));
}

LogicalResult fmha::expandAttention(AttentionOp op, OpBuilder &b) {
  return AttentionBuilder(op, b).build();
}
