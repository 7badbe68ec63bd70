//===- Expand.h - Expansion of fmha kernel ops ---------------------*- C++
//-*-===//
//
// Part of fmha. Shared by the expansions of fmha-expand-kernels.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_LIB_DIALECT_FMHA_TRANSFORMS_EXPAND_H
#define FMHA_LIB_DIALECT_FMHA_TRANSFORMS_EXPAND_H

#include "fmha/Dialect/FMHA/IR/FMHADialect.h"
#include "fmha/Target/KernelAttrs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir {
namespace fmha {

class AppendKVOp;
class TransposeValuesOp;

/// What every tile-program builder of fmha-expand-kernels holds: the
/// builder, the kernel op's location, the scalar types and the constants
/// built from them.
class TileProgramBuilder {
protected:
  TileProgramBuilder(OpBuilder &b, Location loc)
      : b(b), loc(loc), i32(b.getI32Type()), f32(b.getF32Type()) {}

  Value constI32(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i32, v);
  }
  Value constF32(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }
  /// `value` (a scalar) in every element of a tensor of `type`.
  Value splat(Value value, RankedTensorType type) {
    return tensor::SplatOp::create(b, loc, type, value);
  }

  OpBuilder &b;
  Location loc;
  Type i32, f32;
};

/// A kernel under construction: its gpu.module and gpu.func.
struct KernelShell {
  gpu::GPUModuleOp module;
  gpu::GPUFuncOp func;
};

/// Creates `gpu.module @<name>_module` (with the target's #nvvm.target) in
/// place of `op`, holding an empty `gpu.func @<name>` kernel of the given
/// argument types; the builder is left at the start of its body.
KernelShell createKernelShell(OpBuilder &b, Operation *op, StringRef name,
                              Target target, TypeRange argTypes);
/// Creates an empty `gpu.module @<name>_module` (with the target's
/// #nvvm.target) in place of `op`, for several kernels.
gpu::GPUModuleOp createKernelModule(OpBuilder &b, Operation *op, StringRef name,
                                    Target target);
/// Appends an empty `gpu.func @<name>` kernel of the given argument types
/// to `module`; the builder is left at the start of its body.
gpu::GPUFuncOp addKernel(OpBuilder &b, gpu::GPUModuleOp module, StringRef name,
                         TypeRange argTypes);

/// The launch contract a kernel records for its caller: its tensors,
/// parameters and grid as the attributes `fmha.tensors`, `fmha.params` and
/// `fmha.grid` (FMHADialect.td). The manifest (fmha/Dialect/FMHA/IR/
/// Manifest.h) is written from them and from what the later passes record.
class LaunchContract {
public:
  explicit LaunchContract(Builder &b) : b(b) {}

  /// A size: its value when static, else `symbol`.
  Attribute size(int64_t size, StringRef symbol);
  /// An integer of a shape, box or grid expression.
  Attribute integer(int64_t value) { return b.getI64IntegerAttr(value); }
  /// The grid expressions `{ceildiv = [x, y]}`, `{mul = ...}`, `{min = ...}`.
  Attribute ceildiv(Attribute x, Attribute y) { return apply("ceildiv", x, y); }
  Attribute mul(Attribute x, Attribute y) { return apply("mul", x, y); }
  Attribute min(Attribute x, Attribute y) { return apply("min", x, y); }

  /// Declares tensor `name` of `shape` and `dtype`, an input or an output.
  void tensor(StringRef name, ArrayRef<Attribute> shape, Type dtype,
              bool output);
  /// Declares tensor `name` of `shape` (size expressions) and `dtype` that
  /// the runtime provides, not the caller: a workspace whose contents do not
  /// matter across launches, or (`zeroed`) one the runtime zeroes before the
  /// kernel's first launch and that every launch leaves zeroed.
  void scratch(StringRef name, ArrayRef<Attribute> shape, Type dtype,
               bool zeroed);
  /// Declares a size the caller passes as an integer (a symbol no tensor's
  /// shape has) and returns it as a symbol.
  Attribute callerSize(StringRef symbol);
  /// Appends a parameter: a tensor map of `tensor` with its box and swizzle
  /// (over the tensor's dimensions in the order `dims`, when given), an i32
  /// scalar, or `tensor` as a memref descriptor (`strided`: with the
  /// strides the caller's tensor has, any layout, rather than dense).
  void tensorMap(StringRef tensor, ArrayRef<int64_t> box, int64_t swizzle,
                 ArrayRef<int64_t> dims = {});
  /// Appends the tensor map of an output that TMA stores write from a
  /// `box` of `element`s staged in shared memory. On sm_90a (wgmma
  /// targets): in the widest swizzle the box's rows fill, as
  /// tile-assign-layouts stages them (so that threads write the staging
  /// buffer without bank conflicts), in boxes one swizzle span wide;
  /// unswizzled when no span fits, and on targets that accumulate in tensor
  /// memory (sm_100a, whose epilogues stage rows in column chunks:
  /// ws-chunk-row-stores).
  void storeTensorMap(StringRef tensor, ArrayRef<int64_t> box, Type element,
                      Target target, ArrayRef<int64_t> dims = {});
  void scalar(Attribute value);
  void memref(StringRef tensor, bool strided = false);

  /// Sets the contract, with `grid`, on `kernel`.
  void record(Operation *kernel, ArrayRef<Attribute> grid);

private:
  Attribute apply(StringRef fn, Attribute x, Attribute y);
  /// Declares tensor `name` of `shape` and `dtype` with its `role` (input,
  /// output, scratch or zeroed) in `fmha.tensors`.
  void declare(StringRef name, ArrayRef<Attribute> shape, Type dtype,
               StringRef role);
  NamedAttribute entry(StringRef key, Attribute value) {
    return b.getNamedAttr(key, value);
  }

  Builder &b;
  SmallVector<NamedAttribute> tensors;
  SmallVector<Attribute> params;
  SmallVector<Attribute> sizes;
};

/// Partial attention results over disjoint key sets, merged: `o` (f32) is
/// sum_s 2^(lse2_s - lse2) o_s, 0 in rows no state has keys for; `lse2` the
/// merged log-sum-exp in base 2 where `hasKeys` (an i1 row vector).
struct MergedPartials {
  Value o, lse2, hasKeys;
  /// The merged log-sum-exp in natural log, -inf in rows without keys
  /// (built where it is called: after O is stored, it takes no registers
  /// while O is live).
  Value naturalLse(OpBuilder &b, Location loc) const;
};

/// How mergePartials walks the states' tiles: `unroll` states per loop
/// step, so that their loads overlap; the O sum over whole rows
/// (`columns` 0) or a chunk of `columns` columns at a time, which holds a
/// `columns`-wide running sum and partial in registers instead of whole
/// rows (for roles that hold a row per thread).
struct MergeShape {
  int64_t unroll;
  int64_t columns = 0;
};

/// Merges `count` (i32) states of tiles of `tileType`'s shape, state s
/// given by `loadLse2(s)` (its rows' log-sum-exp in base 2, -inf for no
/// keys) and `loadTile(s, column)` (its O rows from `column` on, f32 or
/// narrower, as wide as a chunk of `shape`). Loads of states past the
/// last must read nothing (their bounds stop them): their results are
/// unused. With column chunks, `storeColumns(column, o)` takes each
/// chunk's merged O (f32) and the result's `o` is null.
MergedPartials
mergePartials(OpBuilder &b, Location loc, Value count,
              RankedTensorType tileType, const MergeShape &shape,
              function_ref<Value(Value)> loadLse2,
              function_ref<Value(Value, Value)> loadTile,
              function_ref<void(Value, Value)> storeColumns = {});

/// A window size as an i32 scalar, at most `seqLen`: a window as long as
/// the sequence bounds nothing, and the bound keeps the mask arithmetic
/// below i32's limit for windows up to 2^31 - 1 (the verifiers' limit).
/// A size of 0 (causal) stays a constant.
Value windowSize(OpBuilder &b, Location loc, int64_t size, Value seqLen);

/// `mask` (an i1 tensor) and the window's rule for keys `keys` and query
/// rows `queries` (i32 tensors of mask's shape): query i sits at key
/// position i + seq_k - seq_q (the diagonal aligned bottom-right, as
/// FlashAttention defines it) and sees the keys from `left` before to
/// `right` after it (each unbounded when absent; causal is right = 0).
Value maskWindow(OpBuilder &b, Location loc, Value mask, Value keys,
                 Value queries, Value seqQ, Value seqK,
                 std::optional<int64_t> left, std::optional<int64_t> right);

/// The rows of one sequence of a varlen batch: its first query row and key
/// in the packed tensors, its lengths (i32), and whether it exists (an i1).
struct SequenceBounds {
  Value qRow0, seqQ, kRow0, seqK, exists;
};

/// The bounds of sequence `seq` read from the cu_seqlens `cuQ` and `cuK`
/// (i32 memrefs): rows cu[seq] to cu[seq + 1], clamped to [0, total] and
/// to a non-negative length; the sequence exists when `seq` is below
/// `batchCount` and both cu_seqlens have an entry past it.
SequenceBounds loadSequenceBounds(OpBuilder &b, Location loc, Value cuQ,
                                  Value cuK, Value batchCount, Value seq,
                                  Value totalQ, Value totalK);

/// `buffer` ([total, heads, head_dim], or an lse's [heads, total]) as a view
/// of rows `first` to `first + rows` only, [heads, rows(, head_dim)], so
/// that the bounded accesses of tile.load_direct and tile.store_direct stop
/// at the sequence's end. `total` is the buffer's rows (an lse's stride).
Value sequenceView(OpBuilder &b, Location loc, Value buffer, Value heads,
                   Value first, Value rows, Value total);

/// Replace `op` by its kernel: the tile program of one CTA.
LogicalResult expandGemm(GemmOp op, OpBuilder &b);
LogicalResult expandAttention(AttentionOp op, OpBuilder &b);
LogicalResult expandMergeStates(MergeStatesOp op, OpBuilder &b);
LogicalResult expandAppendKV(AppendKVOp op, OpBuilder &b);
LogicalResult expandTransposeValues(TransposeValuesOp op, OpBuilder &b);

/// The kernels of fmha.attention_backward, in launch order.
enum class BackwardKernel { Prep, KeyGrads, QueryGrads };
/// Replaces `op` by a gpu.module with `kernels`.
LogicalResult expandAttentionBackward(AttentionBackwardOp op, OpBuilder &b,
                                      ArrayRef<BackwardKernel> kernels);

} // namespace fmha
} // namespace mlir

#endif // FMHA_LIB_DIALECT_FMHA_TRANSFORMS_EXPAND_H
