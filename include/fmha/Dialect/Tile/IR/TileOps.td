//===- TileOps.td - Ops of the tile dialect ----------------*- tablegen -*-===//
//
// Part of fmha. What a tile program needs beyond upstream arith, math, scf
// and tensor: grid queries, TMA block loads and stores, matrix
// multiply-accumulate, reductions, broadcasts, iota and layout conversions.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_DIALECT_TILE_IR_TILEOPS_TD
#define FMHA_DIALECT_TILE_IR_TILEOPS_TD

include "fmha/Dialect/Tile/IR/TileDialect.td"
include "fmha/Dialect/Tile/IR/TileAttrs.td"
include "fmha/Dialect/Tile/IR/TileTypes.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

/// A statically shaped ranked tensor of one of `allowedTypes`: the values of
/// a tile program.
class Tile_TensorOf<list<Type> allowedTypes, list<Pred> preds = [],
                    string summary = "statically shaped tensor">
    : RankedTensorOf<allowedTypes, !listconcat([HasStaticShapePred], preds),
                     summary>;

def Tile_Tensor : Tile_TensorOf<[AnyType]>;
def Tile_FloatTensor : Tile_TensorOf<[AnyFloat]>;
def Tile_MmaOperand
    : Tile_TensorOf<[BF16, F16, F8E4M3FN, F8E5M2], [HasAnyRankOfPred<[2]>],
                    "statically shaped 2-d tensor">;
def Tile_MmaAccumulator
    : Tile_TensorOf<[F32, F16], [HasAnyRankOfPred<[2]>],
                    "statically shaped 2-d tensor">;

//===----------------------------------------------------------------------===//
// Grid queries
//===----------------------------------------------------------------------===//

class Tile_GridQueryOp<string mnemonic> : Tile_Op<mnemonic, [Pure]> {
  let arguments = (ins Tile_GridDimAttr:$dim);
  let results = (outs I32:$result);
  let assemblyFormat = "$dim attr-dict `:` type($result)";
}

def Tile_ProgramIdOp : Tile_GridQueryOp<"program_id"> {
  let summary = "the index of this program (CTA) along a grid dimension";
  let description = [{
    The index of the program instance, one CTA, along grid dimension `dim`:
    `blockIdx.x|y|z` (`%ctaid`). Programs of one launch differ only in their
    program ids.

    ```mlir
    %m_block = tile.program_id x : i32
    ```
  }];
}

def Tile_NumProgramsOp : Tile_GridQueryOp<"num_programs"> {
  let summary = "the number of programs (CTAs) along a grid dimension";
  let description = [{
    The size of the grid along dimension `dim`: `gridDim.x|y|z`
    (`%nctaid`).

    ```mlir
    %num_heads = tile.num_programs y : i32
    ```
  }];
}

//===----------------------------------------------------------------------===//
// TMA block transfers
//===----------------------------------------------------------------------===//

def Tile_LoadOp : Tile_Op<"load", [InferTypeOpAdaptor]> {
  let summary = "load one block of a global tensor through TMA";
  let description = [{
    Reads the block of the global tensor described by `desc` whose first
    element is at `coords`: one `i32` per dimension of the global tensor
    (`getGlobalRank()` of them), in elements, outermost first and innermost
    last. The block covers the innermost dimensions; the outer ones take
    one index each. Coordinates may be negative or reach past the end:
    elements outside the global tensor read as zero (TMA's out-of-bounds
    fill), so ragged edges need no masking on load.

    The result is the descriptor's block type, encoding included: after
    `tile-assign-layouts` that is a `#tile.nvmma_shared` encoding, for the
    loaded block lives in shared memory.

    ```mlir
    %q = tile.load %desc[%batch, %head, %row, %c0]
        : !tile.desc<tensor<128x64xbf16>, rank = 4>
    // %q : tensor<128x64xbf16>
    ```
  }];
  let arguments = (ins Arg<Tile_TensorDescType, "the global tensor",
                           [MemRead]>:$desc,
                       Variadic<I32>:$coords);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $desc `[` $coords `]` attr-dict `:` qualified(type($desc))
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store"> {
  let summary = "store one block of a global tensor through TMA";
  let description = [{
    Writes `value`, of the descriptor's block shape and element type, to the
    block of the global tensor described by `desc` whose first element is at
    `coords` (as in `tile.load`: one `i32` per global dimension, innermost
    last). Elements that fall outside the global tensor are not written.
    The value's type is written after the descriptor's when its layout
    differs from the block's (a register layout, for example).

    With `reduce add`, each element is added to what global memory holds
    (TMA's reduce-add, `cp.reduce.async.bulk.tensor`, atomic per element)
    instead of replacing it: CTAs that own parts of one sum (the attention
    backward's dQ partials, added into an f32 `dq_acc`) accumulate it
    without a last arrival. The value is f32.

    ```mlir
    tile.store %desc[%batch, %head, %row, %c0], %o
        : !tile.desc<tensor<128x64xbf16>, rank = 4>
    tile.store %acc[%batch, %head, %row, %c0], %dq reduce add
        : !tile.desc<tensor<64x128xf32>, rank = 4>
    ```
  }];
  let arguments = (ins Arg<Tile_TensorDescType, "the global tensor",
                           [MemRead, MemWrite]>:$desc,
                       Variadic<I32>:$coords,
                       Tile_Tensor:$value,
                       OptionalAttr<Tile_StoreReduceKindAttr>:$reduce);
  let assemblyFormat = [{
    $desc `[` $coords `]` `,` $value (`reduce` $reduce^)? attr-dict `:`
    custom<DescAndBlockType>(type($desc), type($value))
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$desc, "::mlir::ValueRange":$coords,
                   "::mlir::Value":$value), [{
      build($_builder, $_state, desc, coords, value,
            ::mlir::tile::StoreReduceKindAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def Tile_StoreDirectOp : Tile_Op<"store_direct"> {
  let summary = "store a register tensor to global memory with plain stores";
  let description = [{
    Writes `value` into the global-memory buffer `dest`, a memref of rank
    `rank(dest) >= rank(value)`, at `coords`: one `i32` per dimension of
    `dest`, outermost first. The value covers the innermost `rank(value)`
    dimensions starting at their coordinates; the outer dimensions take one
    index each:

    ```
    dest[c0, .., c(r-k-1), c(r-k) + i0, .., c(r-1) + i(k-1)] = value[i0, .., i(k-1)]
    ```

    Elements whose index falls outside `dest` (negative or past its size)
    are not written, so ragged edges need no masking.

    With `row_dims k` (default 1), the value's first dimension runs over `k`
    consecutive dimensions of `dest` in row-major order: those just before
    the dimensions its other dimensions cover. Their coordinates give the
    first row's index in each; row `i` goes to the index `i` places further
    in that row-major order. Attention whose query heads share a tile
    (`pack_gqa`) writes its per-row log-sum-exp this way: packed row
    `s * g + j` is position `s` of head `j`, `[seq, g]` of a view of `lse`
    whose strides are not row-major.

    Unlike `tile.store`, which goes through TMA (a shared-memory staging
    buffer and a bulk copy whose global strides must be multiples of 16
    bytes), each element is written from the register of the thread that
    holds it, with an ordinary global store. That suits small outputs whose
    rows TMA cannot address, such as attention's per-row log-sum-exp
    `[batch, heads, seq]` in f32 when `seq` is not a multiple of 4. The
    lowering reads `dest`'s sizes and strides from its memref descriptor.

    With layouts assigned, `value` is in a register layout; the sm90
    lowering handles row vectors (`#tile.slice<dim = 1>` of a
    `#tile.wgmma_acc`), each row written once, by one of the four threads
    of the quad that holds it, and 2-d tensors: into a `dest` whose
    innermost stride is 1 each thread writes its runs of contiguous values
    as vectors of up to 16 bytes, aligned to their size, so `dest`'s rows
    must start on that alignment and hold whole vectors (a vector that
    would run past a row's end is not written); the buffers fmha's runtime
    provides and the tensors its Python API passes are laid out so. A
    16-bit `#tile.wgmma_acc` tensor whose rows are whole 32-column groups,
    stored from a static column that is a multiple of 8 into rows whose
    static size is one, goes out in 16-byte vectors: the four threads of a
    quad exchange their 4-byte pairs (shuffles) so that each writes one
    8-column block whole, full 32-byte sectors where the pairs wrote half.

    ```mlir
    tile.store_direct %lse[%batch, %head, %row], %lse_rows
        : memref<?x?x?xf32>, tensor<64xf32>
    // Rows s * 4 + j of a packed tile: lse[b, kv * 4 + j, s0 + s].
    tile.store_direct %view[%b, %kv, %s0, %c0], %lse_rows row_dims 2
        : memref<?x?x?x4xf32, strided<[?, ?, 1, ?], offset: ?>>,
          tensor<64xf32>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "the global buffer", [MemWrite]>:$dest,
                       Variadic<I32>:$coords,
                       Tile_Tensor:$value,
                       OptionalAttr<ConfinedAttr<I64Attr,
                                    [IntMinValue<1>]>>:$row_dims);
  let assemblyFormat = [{
    $dest `[` $coords `]` `,` $value (`row_dims` $row_dims^)? attr-dict `:`
    type($dest) `,` type($value)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$dest, "::mlir::ValueRange":$coords,
                   "::mlir::Value":$value), [{
      build($_builder, $_state, dest, coords, value, ::mlir::IntegerAttr());
    }]>
  ];
  let extraClassDeclaration = [{
    /// The dimensions of `dest` the value's rows run over (`row_dims`).
    int64_t getNumRowDims() { return getRowDims().value_or(1); }
    /// Whether `dest`'s innermost stride is not 1 (another static stride,
    /// or a dynamic one): the value's columns are stored value by value,
    /// that stride apart.
    bool storesByColumns();
  }];
  let hasVerifier = 1;
}

def Tile_LoadDirectOp : Tile_Op<"load_direct"> {
  let summary = "load a register tensor from global memory with plain loads";
  let description = [{
    Reads the block of the global-memory buffer `source`, a memref of rank
    `rank(source) >= rank(result)`, at `coords` (one `i32` per dimension of
    `source`, outermost first), the mirror of `tile.store_direct`: the
    result covers the innermost `rank(result)` dimensions starting at their
    coordinates, the outer dimensions take one index each. Elements whose
    index falls outside `source` read as zero.

    Each thread loads the elements it holds in the result's register
    layout with ordinary global loads, so no shared memory and no TMA
    descriptor are involved. What other CTAs of the same launch wrote is
    visible after a `tile.counter_arrive` that counted their arrivals
    (split-K's partial sums). The sm90 lowering handles 2-d register
    tensors, a thread's runs of contiguous values loaded as vectors of up
    to 16 bytes under the alignment `tile.store_direct` needs (a vector that
    would run past a row's end reads zeros), and row vectors
    (`#tile.slice<dim = 1>`, as split-KV attention reads its partial
    log-sum-exps).

    ```mlir
    %p = tile.load_direct %ws[%split, %row, %col]
        : memref<?x?x?xf32> -> tensor<128x128xf32>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "the global buffer", [MemRead]>:$source,
                       Variadic<I32>:$coords);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $source `[` $coords `]` attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_CounterArriveOp : Tile_Op<"counter_arrive"> {
  let summary = "count one arrival at a global counter; true for the last";
  let description = [{
    Adds 1 to element `index` of `counters`, a rank-1 `i32` memref in global
    memory, as one atomic read-modify-write at GPU scope, and returns
    whether this arrival is the last of `count`: whether the element held
    `count - 1` before. The last arrival also sets the element back to 0
    (no other arrival touches it any more), so that counters zeroed once
    stay zeroed from one launch to the next. The tile program runs the op
    once, however many threads run the program, and every thread gets the
    result.

    The arrival orders the program's memory accesses like an
    acquire-release at GPU scope: every global write the program made
    before it is visible, once the last arrival is counted, to the program
    that made the last one, for its reads after the op. That is what
    split-K needs: each work item stores its partial sum and arrives at its
    tile's counter; the last one reads all partials and reduces them.
    Arrivals never wait for each other.

    ```mlir
    %last = tile.counter_arrive %counters[%tile], %splits : memref<?xi32>
    ```
  }];
  let arguments = (ins Arg<MemRefRankOf<[I32], [1]>, "the counters",
                           [MemRead, MemWrite]>:$counters,
                       I32:$index, I32:$count);
  let results = (outs I1:$last);
  let assemblyFormat = [{
    $counters `[` $index `]` `,` $count attr-dict `:` type($counters)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def Tile_DotOp : Tile_Op<"dot", [Pure, InferTypeOpAdaptor]> {
  let summary = "matrix multiply-accumulate";
  let description = [{
    Computes `acc + op(a) * op(b)` where op transposes its operand when
    `transpose_a` (a is given K x M) or `transpose_b` (b is given N x K) is
    set: M x K times K x N, accumulated into the M x N `acc`; the result has
    the type of `acc`. Attention computes `Q K^T` with `transpose_b` on K
    tiles loaded row-major.

    Operands are bf16, f16, f8E4M3FN or f8E5M2, both of the same type or
    both fp8 (an f8E4M3FN operand may meet an f8E5M2 one); the accumulator
    is f32 or f16 (f32 with bf16 operands). Products are
    accumulated at least at the accumulator's precision, in an unspecified
    order.

    With layouts assigned, `b` is in shared memory (`#tile.nvmma_shared`);
    `a` is in shared memory, in registers (`#tile.wgmma_acc`, Hopper, with
    a `#tile.wgmma_acc` accumulator and no `transpose_a`) or in tensor
    memory (`#tile.tmem`, Blackwell, with a `#tile.tmem` accumulator); the
    accumulator is `#tile.wgmma_acc` (Hopper) or `#tile.tmem` (Blackwell).

    With `async`, the product is only issued: the result is complete once
    a `tile.dot_wait` returns it, and the only uses it may have are that
    wait and the accumulator of another asynchronous dot. A program can so
    overlap one multiply with other work, e.g. attention computing the
    softmax of one block while the tensor cores compute the next `Q K^T`.

    With `cta_pair` (Blackwell 2-CTA mode, a cluster of two CTAs running
    the same program), the two CTAs of a pair compute one product together:
    `b` is this CTA's half of the N columns (the even CTA of the pair holds
    the first half) and the accumulator has all N = 2 x `b`'s columns;
    `a` and the accumulator are this CTA's own rows. The result of each CTA
    is its rows of `[a_even; a_odd] x [b_even, b_odd]`.

    With `k_quad16` (fp8 `a` computed in registers, FP8 attention's P), the
    K index runs in the order in which an 8-bit wgmma A fragment reads a
    tensor laid out like an accumulator (`#tile.wgmma_acc`), so that no
    value moves between threads: in each group of 16 K indices, position
    `4 t + i` (`t`, `i` from 0 to 3) of `b` meets column `2 t + i % 2 +
    8 (i / 2)` of `a`, that is columns 0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12,
    13, 6, 7, 14, 15 at positions 0 to 15. The result is `acc + a * b'`
    where `b'` is `b` with its K rows in that order: a producer that stores
    `b`'s K rows permuted the same way gets the plain product. K must be a
    multiple of 32 (one 8-bit wgmma's K).

    ```mlir
    %s = tile.dot %q, %k, %zero {transpose_b}
        : tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x128xf32>
    %o = tile.dot %p, %vt, %acc {k_quad16, transpose_b}
        : tensor<64x128xf8E4M3FN>, tensor<128x128xf8E4M3FN>, tensor<64x128xf32>
    %t = tile.dot %q, %k2, %zero {async, transpose_b}
        : tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x128xf32>
    %c = tile.dot %a, %bhalf, %zero {cta_pair, transpose_b}
        : tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x256xf32>
    ```
  }];
  let arguments = (ins Tile_MmaOperand:$a, Tile_MmaOperand:$b,
                       Tile_MmaAccumulator:$acc,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b,
                       UnitAttr:$async, UnitAttr:$cta_pair,
                       UnitAttr:$k_quad16);
  let results = (outs Tile_MmaAccumulator:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc attr-dict `:` type($a) `,` type($b) `,` type($acc)
  }];
  let hasVerifier = 1;
}

def Tile_DotWaitOp : Tile_Op<"dot_wait", [NoMemoryEffect, InferTypeOpAdaptor]> {
  let summary = "wait for asynchronous matrix multiplies";
  let description = [{
    Waits until at most `pending` of the asynchronous `tile.dot`s issued
    before it by the same threads are still running, counted in issue
    order (the oldest complete first), and returns `values` complete:
    uses read the results, never the operands. Each operand is the result
    of an asynchronous `tile.dot`; listing one whose dot is among the
    `pending` newest is an error the lowering cannot see, so the producer
    of the program counts (on Hopper a dot is one wgmma group and the wait
    is `wgmma.wait_group pending`).

    ```mlir
    %s = tile.dot %q, %k, %zero {async, transpose_b}
        : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x64xf32>
    %o = tile.dot %p, %v, %acc {async}
        : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<64x128xf32>
    // The older dot (S) is complete; P V may still run.
    %s_done = tile.dot_wait %s pending 1 : tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Variadic<Tile_MmaAccumulator>:$values,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$pending);
  let results = (outs Variadic<Tile_MmaAccumulator>:$results);
  let assemblyFormat = [{
    $values `pending` $pending attr-dict `:` type($values)
  }];
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "reduce a tensor along one axis";
  let description = [{
    Combines the elements of `input` along dimension `axis` with `kind`
    (`max` or `sum`); the result has the input's shape without `axis` and
    its element type, a float. Row reductions (one value per row) use the
    last axis.

    If the input is in a register layout (`#tile.wgmma_acc` or
    `#tile.tmem_32x32b`), the result is laid out by
    `#tile.slice<dim = axis, parent = ...>` of it, or has no encoding yet.

    ```mlir
    %m = tile.reduce max %s axis 1 : tensor<128x128xf32> -> tensor<128xf32>
    ```
  }];
  let arguments = (ins Tile_ReduceKindAttr:$kind, Tile_FloatTensor:$input,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$axis);
  let results = (outs Tile_FloatTensor:$result);
  let assemblyFormat = [{
    $kind $input `axis` $axis attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "repeat a tensor along a new axis";
  let description = [{
    Inserts dimension `axis` into the shape of `input` and repeats the
    values along it: `result[i0, .., i_axis, ..] = input[i0, .., ..]`
    without `i_axis`. The inverse shape relation of `tile.reduce`; the
    element type is kept.

    If the result is in a register layout (`#tile.wgmma_acc` or
    `#tile.tmem_32x32b`), the input is laid out by
    `#tile.slice<dim = axis, parent = ...>` of it, or has no encoding yet.

    ```mlir
    %mb = tile.broadcast %m axis 1 : tensor<128xf32> -> tensor<128x128xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$input,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $input `axis` $axis attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_ScaleRowsOp : Tile_Op<"scale_rows",
                                [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "multiply each row of a 2-d tensor by its factor";
  let description = [{
    `result[i, j] = input[i, j] * factors[i]`: what `tile.broadcast` of
    `factors` along axis 1 and `arith.mulf` compute, as one op whose factors
    are expected to be exactly 1 most of the time. The online softmax
    rescales its accumulator O this way; with conditional rescaling a row's
    factor is 1 unless its running max grew past a threshold. In registers
    the lowering skips the multiplies of every thread whose rows' factors
    are all 1 (a compare per row and a branch): a multiply by 1 leaves a
    value as it is, so the result is the same either way.

    `factors` has the input's rows and element type; if the input is in a
    register layout, the factors are laid out by
    `#tile.slice<dim = 1, parent = ...>` of it, or have no encoding yet.

    ```mlir
    %o1 = tile.scale_rows %o, %alpha : tensor<64x128xf32>, tensor<64xf32>
    ```
  }];
  let arguments = (ins Tile_FloatTensor:$input, Tile_FloatTensor:$factors);
  let results = (outs Tile_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $factors attr-dict `:` type($input) `,` type($factors)
  }];
  let hasVerifier = 1;
}

def Tile_IotaOp : Tile_Op<"iota", [Pure]> {
  let summary = "a tensor whose elements are their index along one axis";
  let description = [{
    `result[i0, i1, ..] = i_axis`: each element is its own index along
    dimension `axis`. Combined with program ids, `arith.cmpi` and
    `arith.select` it builds masks, for example of the key columns past the
    sequence end:

    ```mlir
    %col = tile.iota axis 1 : tensor<128x128xi32>
    %kv_b = tensor.splat %kv : tensor<128x128xi32>
    %key = arith.addi %col, %kv_b : tensor<128x128xi32>
    %len_b = tensor.splat %seq_len : tensor<128x128xi32>
    %valid = arith.cmpi slt, %key, %len_b : tensor<128x128xi32>
    ```

    With layouts assigned, the result is in a register layout.
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$axis);
  let results = (outs Tile_TensorOf<[I32]>:$result);
  let assemblyFormat = "`axis` $axis attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [Pure]> {
  let summary = "change the layout encoding of a tensor";
  let description = [{
    The same values in another layout: `input` and `result` have the same
    shape and element type and differ only in their encodings. Lowering
    moves the data, between registers of other threads, to or from shared
    memory (`#tile.nvmma_shared`) or tensor memory (`#tile.tmem`, through
    `tcgen05.ld`/`tcgen05.st` for `#tile.tmem_32x32b`). A conversion to the
    same type folds away.

    ```mlir
    %sr = tile.convert_layout %s
        : tensor<128x128xf32, #tile.tmem<block = [128, 128], unpacked = true>>
          -> tensor<128x128xf32, #tile.tmem_32x32b<warpgroups = 1>>
    ```
  }];
  let arguments = (ins Tile_Tensor:$input);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_TransposeOp : Tile_Op<"transpose", [Pure]> {
  let summary = "swap the two dimensions of a 2-d tensor";
  let description = [{
    `result[i, j] = input[j, i]`: the result's shape is the input's with its
    dimensions swapped; the element type is kept. A GEMM with `swap_ab`
    computes each output tile turned around (`B A^T`, so that a few rows of
    A are the MMA's N) and transposes the accumulator before its epilogue.

    In a register layout the result is laid out by
    `#tile.transposed<parent = ...>` of the input's layout (or the input by
    that of the result's), so the transpose moves no data: each thread keeps
    its values and reads them with swapped coordinates. Before layouts are
    assigned, neither has an encoding.

    In shared memory (input and result both `#tile.nvmma_shared`, each
    row-major in its own swizzle) the transpose moves the bytes: FP8
    attention's V tile `[keys, head_dim]`, loaded as it lies in global
    memory, becomes the K-major `[head_dim, keys]` tile that an 8-bit
    wgmma's B must be. A role of the kernel makes it
    (`ws.transpose_shared`, from `ws-partition-roles`: the op's result is
    handed over through a channel, `ws.result_channel`); elements of one
    byte only, the input's rows a multiple of 16 and its columns of 32,
    and `k_quad16` (the only order built in shared memory): the result's
    columns run in `tile.dot`'s `k_quad16` order in each group of 16
    (`result[i, 16 g + p]` is `input[16 g + q, i]`, `q` the `p`-th of 0, 1,
    8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15), so that a dot reading
    it with `k_quad16` gets the plain product.

    ```mlir
    %ct = tile.transpose %acc : tensor<64x8xf32> -> tensor<8x64xf32>
    %vt = tile.transpose %v {k_quad16}
        : tensor<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    ```
  }];
  let arguments = (ins Tile_Tensor:$input, UnitAttr:$k_quad16);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // FMHA_DIALECT_TILE_IR_TILEOPS_TD
