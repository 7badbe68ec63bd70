#ifndef FMHA_DIALECT_FMHA_IR_FMHAOPS_TD
#define FMHA_DIALECT_FMHA_IR_FMHAOPS_TD

include "fmha/Dialect/FMHA/IR/FMHADialect.td"
include "fmha/Dialect/FMHA/IR/FMHAAttrs.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Configuration attribute constraints: the builtin attributes, described.
//===----------------------------------------------------------------------===//

/// An i64 array attribute that holds sizes; `desc` says which.
class FMHA_SizesAttr<string desc>
    : DenseArrayAttrBase<"DenseI64ArrayAttr", "int64_t", "i64"> {
  let summary = "i64 dense array attribute: " # desc;
}

/// An i64 attribute that holds a count; `desc` says of what.
class FMHA_CountAttr<string desc>
    : TypedSignlessIntegerAttrBase<I64, "uint64_t",
                                   "64-bit signless integer attribute: " # desc>;

def FMHA_WindowAttr : FMHA_SizesAttr<
    "[left, right] sliding-window key distances, both from 0 to 2^31 - 1">;
def FMHA_ScaleAttr : FloatAttrBase<F64,
    "64-bit float attribute: softmax scale, > 0, finite and a normal f32 "
    "once multiplied by log2(e)">;
def FMHA_TileAttr : FMHA_SizesAttr<
    "tile sizes [block_m, block_n] (attention) or [block_m, block_n, block_k] "
    "(gemm)">;
def FMHA_StagesAttr : FMHA_CountAttr<
    "pipeline stages (shared-memory buffers of the streamed operands), 1 to 32">;
def FMHA_ConsumersAttr : FMHA_CountAttr<
    "consumer warpgroups per CTA, 1 or 2 (a GEMM on sm_90a: 1 to 3)">;
def FMHA_CtasAttr : FMHA_CountAttr<
    "CTAs of a cluster that issue one MMA together (cta_group), 1 or 2">;
def FMHA_MulticastAttr : FMHA_CountAttr<
    "CTAs of a cluster along M that share each B tile by TMA multicast, 1 or 2">;
def FMHA_SplitsAttr : FMHA_CountAttr<
    "K ranges each output tile is split into (split-K), at least 1">;
def FMHA_PromoteEveryAttr : FMHA_CountAttr<
    "K steps an fp8 wgmma chain accumulates before its sum is added into the "
    "f32 accumulator, at least 1">;

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

def FMHA_AttentionOp : FMHA_KernelOp<"attention"> {
  let summary = "declares a fused multi-head attention forward kernel";
  let description = [{
    Declares a kernel named `sym_name` that computes, for every batch `b`,
    query head `h` and query row `i`,

    ```
    s[j]          = scale * dot(q[b, h, i, :], k[b, h / g, j, :])
                    (-inf where the mask hides key j)
    o[b, h, i, :] = sum_j softmax(s)[j] * v[b, h / g, j, :]
    lse[b, h, i]  = log(sum_j exp(s[j]))   (natural log)
    ```

    where `g = heads_q / heads_kv` query heads share one K/V head (grouped
    query attention; `heads_kv = 1` is multi-query attention). A row whose
    keys are all masked gets `o = 0` and `lse = -inf`. Softmax and the
    accumulation are computed in fp32.

    **Signature** (`function_type`), builtin tensors where `?` is a size known
    only at run time:

    | tensor | shape                                         | element type    |
    |--------|-----------------------------------------------|-----------------|
    | `q`    | `[batch, heads_q, seq_q, head_dim]`           | `bf16` or `f16` |
    | `k`    | `[batch, heads_kv, seq_k, head_dim]`          | same as `q`     |
    | `v`    | same as `k`                                   | same as `q`     |
    | `o`    | same as `q` (result 0)                        | same as `q`     |
    | `lse`  | `[batch, heads_q, seq_q]` (optional result 1) | `f32`           |

    `head_dim` must be static (in at least one tensor) and be 64, 128 or 256.
    Sizes that several tensors share (for example `batch` of `q` and `k`)
    must be equal wherever both are static. `heads_q` must be a multiple of
    `heads_kv` when both are static. Static sizes are positive and at most
    2^31 - 1 (the kernel takes them as `i32`, and so does its manifest);
    with the `per_block` schedule, static `heads_q` and `batch` are at most
    65535 (they are the grid's y and z). Tensors are dense and row-major; their rows (`head_dim` elements) are 128,
    256 or 512 bytes, which TMA can always address; `lse` is written with
    plain stores.

    **Syntax.** The configuration keywords are optional but, when present,
    come in this order:

    ```
    fmha.attention @name (q, k, v[, cu_seqlens_q, cu_seqlens_k]) -> o | (o, lse)
    fmha.attention @name (q, k_cache, v_cache, cache_seqlens[, block_table])
        -> o | (o, lse)
        [varlen | kvcache [pack_gqa] [split_kv]] [causal] [window [left, right]]
        [scale f64] [tile [block_m, block_n]]
        [stages n] [consumers n] [schedule (per_block | persistent)]
        target (sm_90a | sm_100a)
        attr-dict
    ```

    **Variable lengths** (`varlen`, FlashAttention's varlen layout, `sm_90a`
    only so far): the sequences of a batch are packed along one token axis
    and two more inputs give their bounds.

    | tensor          | shape                                  | element type |
    |-----------------|----------------------------------------|--------------|
    | `q`, `o`        | `[total_q, heads_q, head_dim]`         | `bf16`/`f16` |
    | `k`, `v`        | `[total_k, heads_kv, head_dim]`        | same as `q`  |
    | `cu_seqlens_q`  | `[batch + 1]` (input 3)                | `i32`        |
    | `cu_seqlens_k`  | `[batch + 1]` (input 4)                | `i32`        |
    | `lse`           | `[heads_q, total_q]` (optional result 1) | `f32`      |

    Sequence `b` holds query rows `cu_seqlens_q[b]` to `cu_seqlens_q[b + 1]`
    and key rows `cu_seqlens_k[b]` to `cu_seqlens_k[b + 1]` (int32 prefix
    sums starting at 0); a sequence may be empty. Masks align each
    sequence's diagonal with its own lengths. The kernel clamps every bound
    it reads to `[0, total]`, so it never reads or writes outside the
    tensors whatever their values; the caller checks them (sorted, starting
    at 0, ending at the total). Besides the tensors the kernel takes the
    batch and the longest query sequence (`max_seqlen_q`), which size its
    grid: a query block past the end of its sequence does nothing. O and
    `lse` are written from registers with stores bounded by the sequence's
    end (a TMA box would write the next sequence's rows).

    **KV caches** (`kvcache`, FlashAttention's `flash_attn_with_kvcache`
    layout; `split_kv` on `sm_90a` only so far): the keys and values of each sequence are
    the first `cache_seqlens[b]` rows of a cache, dense or paged.

    | tensor          | shape                                        | element type |
    |-----------------|----------------------------------------------|--------------|
    | `q`, `o`        | `[batch, seq_q, heads_q, head_dim]`          | `bf16`/`f16` |
    | `k`, `v` dense  | `[batch, max_len, heads_kv, head_dim]`       | same as `q`  |
    | `k`, `v` paged  | `[num_pages, page_size, heads_kv, head_dim]` | same as `q`  |
    | `cache_seqlens` | `[batch]` (input 3)                          | `i32`        |
    | `block_table`   | `[batch, max_pages]` (input 4, paged only)   | `i32`        |
    | `lse`           | `[batch, heads_q, seq_q]` (optional result 1) | `f32`       |

    With a `block_table` the caches are pools of pages: key `j` of sequence
    `b` is row `j % page_size` of page `block_table[b][j / page_size]`.
    `page_size` must be static, a power of two from 16 to 256, and at least
    `block_n` (a K/V tile is one box inside one page; the default `block_n`
    is at most the page size). The kernel clamps each cache length to
    `[0, capacity]` (`max_len`, or `max_pages * page_size`); a page index
    outside the pool reads zeros (TMA's out-of-bounds fill), so the kernel
    never reads outside the caches whatever the values; the caller checks
    them. Masks put the queries at the end of the cache (query `i` is key
    position `cache_seqlens[b] - seq_q + i`).

    **Decode** (with `kvcache`): two keywords shape the kernel for few
    queries against long caches.

    * `pack_gqa`: the `g = heads_q / heads_kv` query heads of a KV group
      share the rows of one Q tile, so one K/V load serves the whole group:
      packed row `r` of a sequence is query position `r / g` of head
      `kv_head * g + r % g`, and the kernel's work items are (sequence, KV
      head, block of `seq_q * g` packed rows). Needs static `heads_q` and
      `heads_kv`, and `g` dividing `block_m`. The kernel reads `q` and writes
      `o` through their `[batch, seq_q, heads_kv, g, head_dim]` views (a
      TMA box of `block_m / g` positions of `g` heads).
    * `split_kv` (`sm_90a`): the key range of each query block is cut into `n`
      balanced ranges of whole tiles, `n >= 1` a kernel parameter (the
      manifest's caller size `S`), and each range is a work item of its
      own. Each writes its normalised partial O (f32) and log-sum-exp
      (base 2) to a workspace the runtime provides (`partial_o [n, batch,
      heads, rows, head_dim]`, `partial_lse [n, batch, heads, rows]`, with
      heads and rows those of the work items: packed or not), then counts
      itself at its query tile's counter (an i32 array the runtime provides
      zeroed); the last of the `n` merges the partials in split order (so
      the result does not depend on which came last), writes `o` and `lse`
      and sets the counter back to 0. A range with no visible key gives
      `o = 0` and `lse = -inf` and weighs nothing in the merge.

    **FP8** (`sm_90a`, dense layout): q, k and v in `f8E4M3FN`, dequantized
    by f32 factors, three more inputs after v:

    | tensor      | shape                                       | element type |
    |-------------|---------------------------------------------|--------------|
    | `q`         | `[batch, heads_q, seq_q, head_dim]`         | `f8E4M3FN`   |
    | `k`         | `[batch, heads_kv, seq_k, head_dim]`        | `f8E4M3FN`   |
    | `v`         | `[batch, heads_kv, head_dim, seq_k16]`      | `f8E4M3FN`   |
    | `descale_q`, `descale_k`, `descale_v` | `[1]` or `[batch, heads_kv]` (inputs 3 to 5) | `f32` |
    | `o`         | `[batch, heads_q, seq_q, head_dim]`         | `bf16` or `f16` |

    The descales are one factor per tensor (`[1]`) or, all three alike, one
    per sequence and KV head (`[batch, heads_kv]`, FlashAttention-3's
    convention: q's factor is per KV head too, shared by the query heads of
    its group). The kernel computes the attention of `q * descale_q`,
    `k * descale_k` and `v * descale_v` (the factors of each sequence and
    head; they must be positive): the scores are
    scaled by `scale * descale_q * descale_k`, P is rounded to `f8E4M3FN`
    (saturating) for its product with V, and `descale_v` joins the final
    division by the row sums. fp8 wgmma reads B K-major only, so v is given
    transposed: `seq_k16` is `seq_k` rounded up to a multiple of 16, and
    column `16 g + p` of v holds key `16 g + order[p]`, `order` = (0, 1, 8,
    9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15) (keys past `seq_k` are
    zeros): the order in which an 8-bit wgmma A fragment reads P from the
    accumulator's registers (`tile.dot`'s `k_quad16`). With `transpose_v`,
    v is `[batch, heads_kv, seq_k, head_dim]` as k is (no copy before the
    call): TMA brings each V tile as it lies, and three warps beside the
    producer's transpose it in shared memory into the permuted V^T tile
    (`tile.transpose {k_quad16}`, handed to the consumers through a ring
    of `stages` slots of its own). `block_n` must be a
    multiple of 32. Each consumer stages its O tile in a buffer of its own
    (O is wider than the Q buffer).

    **Masks.** Key positions are aligned to the bottom right: with
    `d = seq_k - seq_q`, query `i` sees key `j` iff
    `i + d - left <= j <= i + d + right`.

    * neither `causal` nor `window`: every query sees every key.
    * `causal`: `right = 0`, `left` unbounded.
    * `window [left, right]`: both sizes from 0 to 2^31 - 1 (`i32` in the
      kernel; a size at least the sequence length is no bound, as if it
      were omitted); with `causal`, `right` must be 0 (a causal sliding
      window).

    **Configuration** (all optional; the defaults are chosen so that every
    valid signature also has a valid default configuration):

    | field         | meaning                              | default                     |
    |---------------|--------------------------------------|-----------------------------|
    | `scale`       | softmax scale, `> 0` and finite (a float literal: `0.125`, `1.0`); the kernel computes in f32 with `scale * log2(e)`, which must be a normal f32 (about `8.1e-39` to `2.3e38`) | `1/sqrt(head_dim)` |
    | `tile [m, n]` | `block_m` query rows per consumer warpgroup, `block_n` keys per main-loop step | `block_m`: 64 on `sm_90a`, 128 on `sm_100a`; `block_n`: 128, or 64 for `head_dim` 256 |
    | `stages`      | K/V shared-memory buffers, 1 to 32 (from 2 on `sm_90a`) | the most, up to 3, that fit in shared memory |
    | `consumers`   | consumer warpgroups per CTA, 1 or 2, or 3 on `sm_90a` (not with `kvcache` or `transpose_v`); each owns a whole `block_m`-row tile, so a CTA computes `consumers * block_m` query rows and its softmax turns go round all of them | 2; 1 for `head_dim` 256 on `sm_100a` |
    | `schedule`    | `per_block`: a CTA per query block. `persistent` (`sm_90a` only): a CTA per SM (at most) walks the work items, a query block each, or with masks a pair of them (the longest with the shortest, longest first); its producer loads the next item's Q and first K tiles while the consumers finish the last one (the Q tiles get two slots when they fit beside the K/V stages asked for, or beside 2 without `stages`; the default stages are then the most that fit beside them) | `persistent` on `sm_90a` when two Q slots fit that way (head dims up to 128 with the default tiles), else `per_block` |
    | `target`      | `sm_90a` or `sm_100a`                | none: required              |

    Tile rules: `block_m` is 64 or 128 (a wgmma covers 64 rows); `block_n` is
    a multiple of 16 (the MMA K of the `P x V` product) from 16 to 256.

    **Split-K** (`splits n`, `sm_90a`): each CTA tile of `consumers *
    block_m` rows is `n` work items of the persistent grid, item `s` taking
    K steps `[s * steps / n, (s + 1) * steps / n)` of the `steps =
    ceildiv(K, block_k)` (balanced: the ranges differ by one step at most).
    Each consumer stores its f32 partial tile with plain stores into the
    kernel's workspace (`[n, M, N4]` f32, `N4` N rounded up to a multiple
    of 4: rows of whole 16-byte vectors; the runtime provides it), then
    adds 1 to its tile's counter (an i32 array the runtime provides zeroed,
    one per consumer tile: `ceildiv(M, consumers * block_m) * consumers *
    ceildiv(N, block_n)`); the consumer that reads back `n - 1` came last:
    it loads the `n` partials in split order (so the sum does not depend on
    which came last), converts, stores `c` by TMA and sets the counter back
    to 0, so the next launch finds it zeroed. No CTA waits for another, so
    any grid size works. Rules: `n` from 1 to the number of K steps where K
    is static; `sm_90a` only; not with `ctas`, `multicast` or `schedule
    pingpong`.

    **Resources** one CTA needs, which must fit the target:

    * shared memory, as the pipeline allocates it: `stages * 2 * block_n *
      head_dim * e` (K and V; `e` bytes per input element, 2 or 1 for fp8)
      `+ consumers * block_m * head_dim * e` (Q; each consumer stages its O
      tile in its Q buffer, or with fp8 in one of `block_m * head_dim * 2`
      bytes of its own; the lse rows are stored from registers) `+ 16 *
      (stages + 1)` (a full and an empty mbarrier per slot of the K/V and Q
      rings) `<= 232448` bytes;
    * `sm_90a`: at least 2 stages (a consumer releases a K/V slot only after
      it has waited for the next one);
    * `sm_90a`, registers per consumer thread: S and O in fp32 and P in 16
      bits, `block_m * (block_n + block_n / 2 + head_dim) / 128`, plus 12
      per 64 rows of row state, `<= 232` (the consumers' `setmaxnreg`
      budget; the producer keeps 40), `<= 160` with three consumers (the
      producer at 24; head dim 64 with [64, 128] fits);
    * `sm_100a`, tensor memory: `consumers * (block_n + head_dim)` fp32
      columns (S aliased with P, and O) `<= 512`.

    Example: grouped-query causal attention with a 256-key sliding window,
    returning the log-sum-exp, and the same kernel with the defaults:

    ```mlir
    fmha.attention @attn_fwd (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
                              tensor<?x8x?x128xbf16>)
        -> (tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>)
        causal window [256, 0] scale 0.0883883 tile [64, 128] stages 2
        consumers 2 target sm_90a
    fmha.attention @attn_default (tensor<?x32x?x128xbf16>,
                                  tensor<?x8x?x128xbf16>,
                                  tensor<?x8x?x128xbf16>)
        -> tensor<?x32x?x128xbf16> causal target sm_100a
    ```

    FP8 attention, causal, with the log-sum-exp:

    ```mlir
    fmha.attention @attn_fp8 (tensor<?x32x?x128xf8E4M3FN>,
                              tensor<?x8x?x128xf8E4M3FN>,
                              tensor<?x8x128x?xf8E4M3FN>, tensor<1xf32>,
                              tensor<1xf32>, tensor<1xf32>)
        -> (tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>) causal
        target sm_90a
    ```

    Variable-length batches, packed, with the log-sum-exp:

    ```mlir
    fmha.attention @attn_varlen (tensor<?x32x128xbf16>, tensor<?x8x128xbf16>,
                                 tensor<?x8x128xbf16>, tensor<?xi32>,
                                 tensor<?xi32>)
        -> (tensor<?x32x128xbf16>, tensor<32x?xf32>) varlen causal
        target sm_90a
    ```

    Decode against a paged KV cache of 64-row pages:

    ```mlir
    fmha.attention @decode (tensor<?x1x32x128xbf16>, tensor<?x64x8x128xbf16>,
                            tensor<?x64x8x128xbf16>, tensor<?xi32>,
                            tensor<?x?xi32>)
        -> (tensor<?x1x32x128xbf16>, tensor<?x32x1xf32>) kvcache causal
        target sm_90a
    ```

    The same decode with the 4 query heads of each KV head in one tile, the
    cache split over several CTAs:

    ```mlir
    fmha.attention @decode_split (tensor<?x?x32x128xbf16>,
                                  tensor<?x64x8x128xbf16>,
                                  tensor<?x64x8x128xbf16>, tensor<?xi32>,
                                  tensor<?x?xi32>)
        -> tensor<?x?x32x128xbf16> kvcache pack_gqa split_kv causal
        consumers 1 target sm_90a
    ```
  }];

  let arguments = (ins
    SymbolNameAttr:$sym_name,
    TypeAttrOf<FunctionType>:$function_type,
    UnitAttr:$causal,
    OptionalAttr<FMHA_WindowAttr>:$window,
    OptionalAttr<FMHA_ScaleAttr>:$scale,
    OptionalAttr<FMHA_TileAttr>:$tile,
    OptionalAttr<FMHA_StagesAttr>:$stages,
    OptionalAttr<FMHA_ConsumersAttr>:$consumers,
    OptionalAttr<FMHA_ScheduleAttr>:$schedule,
    FMHA_TargetAttr:$target,
    UnitAttr:$varlen,
    UnitAttr:$kvcache,
    UnitAttr:$pack_gqa,
    UnitAttr:$split_kv,
    UnitAttr:$transpose_v
  );

  let assemblyFormat = [{
    $sym_name $function_type
    (`varlen` $varlen^)?
    (`kvcache` $kvcache^)?
    (`pack_gqa` $pack_gqa^)?
    (`split_kv` $split_kv^)?
    (`transpose_v` $transpose_v^)?
    (`causal` $causal^)?
    (`window` $window^)?
    (`scale` $scale^)?
    (`tile` $tile^)?
    (`stages` $stages^)?
    (`consumers` $consumers^)?
    (`schedule` `` $schedule^)?
    `target` `` $target attr-dict
  }];

  let extraClassDeclaration = [{
    //===------------------------------------------------------------------===//
    // Signature. These return null / ShapedType::kDynamic on IR that does not
    // verify, so they are safe to call from the verifier.
    //===------------------------------------------------------------------===//

    /// The type of the query `q` (input 0).
    ::mlir::RankedTensorType getQueryType();
    /// The type of the keys `k` (input 1).
    ::mlir::RankedTensorType getKeyType();
    /// The type of the values `v` (input 2).
    ::mlir::RankedTensorType getValueType();
    /// The type of the output `o` (result 0).
    ::mlir::RankedTensorType getOutputType();
    /// The type of the log-sum-exp `lse` (result 1), null without one.
    ::mlir::RankedTensorType getLseType();
    /// The types of `cu_seqlens_q` and `cu_seqlens_k` (inputs 3 and 4 of a
    /// varlen kernel), null otherwise.
    ::mlir::RankedTensorType getCuSeqlensQType();
    ::mlir::RankedTensorType getCuSeqlensKType();
    /// The types of `cache_seqlens` (input 3 of a kvcache kernel) and
    /// `block_table` (input 4 of a paged one), null otherwise.
    ::mlir::RankedTensorType getCacheSeqlensType();
    ::mlir::RankedTensorType getBlockTableType();
    /// Whether K and V are pools of pages read through a block table.
    bool isPaged() { return getKvcache() && getBlockTableType(); }
    /// The rows of one page (dim 1 of k), ShapedType::kDynamic when not
    /// paged or not static.
    int64_t getPageSize();
    /// Query heads packed into the rows of one Q tile (`pack_gqa`):
    /// heads_q / heads_kv, or 1 without packing (or with dynamic heads).
    int64_t getPackedGroup();
    /// Rank of q, k, v and o: 3 with `varlen` ([total, heads, head_dim]),
    /// else 4.
    int64_t getTokenRank() { return getVarlen() ? 3 : 4; }
    /// Whether the kernel also returns the log-sum-exp.
    bool hasLse() { return getFunctionType().getNumResults() == 2; }
    /// The element type of q, k and v (and of o, except with fp8 inputs).
    ::mlir::Type getElementType();
    /// The element type of o.
    ::mlir::Type getOutputElementType();
    /// Whether q, k and v are fp8: the descale factors follow v (inputs 3
    /// to 5).
    bool isFp8() {
      return ::llvm::isa_and_nonnull<::mlir::Float8E4M3FNType,
                                     ::mlir::Float8E5M2Type>(getElementType());
    }
    /// Whether v is given transposed and permuted (fp8 without
    /// `transpose_v`): `[batch, heads_kv, head_dim, seq_k16]`.
    bool takesTransposedValues() { return isFp8() && !getTransposeV(); }
    /// The types of `descale_q`, `descale_k` and `descale_v` (inputs 3 to 5
    /// of an fp8 kernel, rank 1 or 2), null otherwise.
    ::mlir::RankedTensorType getDescaleType(unsigned index);
    /// Whether the descales are per sequence and KV head (`[batch,
    /// heads_kv]`), not per tensor (`[1]`).
    bool hasHeadDescales() {
      ::mlir::RankedTensorType type = getDescaleType(0);
      return type && type.getRank() == 2;
    }

    /// Sizes of the problem: each is static if any tensor that carries it has
    /// it static, else ShapedType::kDynamic. With `varlen`, the batch is the
    /// size of the cu_seqlens tensors minus one, and seq_q / seq_k are the
    /// total tokens (`total_q`, `total_k`). With `kvcache`, seq_k is the
    /// cache's `max_len` (dense) or its `page_size` (paged).
    int64_t getBatch();
    int64_t getNumHeadsQ();
    int64_t getNumHeadsKV();
    int64_t getSeqLenQ();
    int64_t getSeqLenK();
    int64_t getHeadDim();

    //===------------------------------------------------------------------===//
    // Effective configuration: the attribute's value or its default.
    //===------------------------------------------------------------------===//

    /// Query rows of one consumer warpgroup's tile.
    int64_t getBlockM();
    /// Keys processed per main-loop step.
    int64_t getBlockN();
    /// Number of K/V shared-memory buffers.
    int64_t getStagesOrDefault();
    /// Whether the kernel is persistent: `schedule`, else by default on
    /// sm_90a when two Q slots fit beside the K/V stages asked for (or the
    /// fewest).
    bool isPersistent();
    /// Slots of the Q ring: 2 in a persistent kernel when they fit beside
    /// the K/V stages asked for (or the fewest), so that the next work
    /// item's Q tiles load while this item ends; else 1.
    int64_t getQuerySlots();
    /// Consumer warpgroups per CTA.
    int64_t getNumConsumerGroups();
    /// The softmax scale; 1/sqrt(head_dim) by default.
    double getScaleOrDefault();
    /// How many keys to the left (before the diagonal) a query sees;
    /// std::nullopt when unbounded.
    std::optional<int64_t> getLeftWindow();
    /// How many keys to the right (after the diagonal) a query sees: 0 when
    /// causal; std::nullopt when unbounded.
    std::optional<int64_t> getRightWindow();

    //===------------------------------------------------------------------===//
    // Resources of one CTA with the effective configuration.
    //===------------------------------------------------------------------===//

    /// Shared memory by part ("K/V", "Q/O") and barriers, as
    /// the sm_90a pipeline allocates it.
    ::mlir::fmha::SharedMemoryUsage getSharedMemoryUsage() {
      return getSharedMemoryUsage(getStagesOrDefault(), getQuerySlots());
    }
    ::mlir::fmha::SharedMemoryUsage getSharedMemoryUsage(int64_t stages,
                                                         int64_t querySlots);
    /// Registers per consumer thread (sm_90a): S, P and O, the softmax's
    /// temporaries and the per-row state. The estimate sizes the register
    /// split; `tight`, the least the tile is known to fit in, decides
    /// whether it fits at all.
    int64_t getConsumerRegisters(bool tight = false);
    /// Split-KV: rows of a chunk of the last arrival's merge (whole packed
    /// groups), and the registers per thread the merge needs.
    int64_t getSplitMergeChunkRows();
    int64_t getSplitMergeRegisters();
    /// fp32 tensor memory columns of a CTA (sm_100a): S/P and O per consumer.
    int64_t getTmemColumns();
  }];
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

def FMHA_GemmOp : FMHA_KernelOp<"gemm"> {
  let summary = "declares a matrix multiplication kernel";
  let description = [{
    Declares a kernel named `sym_name` that computes `c = a x b` with fp32
    accumulation, rounding the result to `c`'s element type. With fp8 `a`
    and `b`, it computes `c[i, j] = (a x b)[i, j] * scale_a[i] * scale_b[j]`
    (the fp32 product scaled in the epilogue, then rounded), the scales of
    `torch._scaled_mm`.

    **Signature** (`function_type`), builtin tensors where `?` is a size known
    only at run time, `(a, b) -> c` or, for fp8, `(a, b, scale_a, scale_b)
    -> c`:

    | tensor    | shape                                    | element type           |
    |-----------|------------------------------------------|------------------------|
    | `a`       | `[M, K]`                                 | `bf16`, `f16`, `f8E4M3FN` or `f8E5M2` |
    | `b`       | `[K, N]`, or `[N, K]` with `transpose_b` | same as `a`; for fp8 `a`, `f8E4M3FN` or `f8E5M2` |
    | `scale_a` | `[1]` (one scale) or `[M]` (per row of `a`) | `f32`, fp8 only     |
    | `scale_b` | `[1]` (one scale) or `[N]` (per column of `c`) | `f32`, fp8 only  |
    | `c`       | `[M, N]` (the result)                    | `bf16`, `f16` or `f32` |

    `M`, `N` and `K` must be equal wherever two tensors carry them statically.
    Static sizes are positive and at most 2^31 - 1 (the kernel takes them as
    `i32`, and so does its manifest). Tensors are dense and row-major. TMA
    needs every row to be a multiple of 16 bytes, so where the innermost size
    of a tensor is static it must be a multiple of 16 (fp8), 8 (16-bit
    elements) or 4 (`f32`); where it is dynamic the runtime must check it.

    **FP8.** `a` and `b` are `f8E4M3FN` or `f8E5M2`, at most one of them
    `f8E5M2` (the mixes `torch._scaled_mm` takes); the MMAs are `wgmma
    ...k32.f32.e4m3|e5m2.e4m3|e5m2` on `sm_90a` and `tcgen05.mma
    ...kind::f8f6f4` (K steps of 32) on `sm_100a`, reading both operands
    from shared memory, K-major (fp8 wgmma reads no other layout): fp8
    needs `transpose_b` (`b` as `[N, K]`, a linear layer's weight). Both
    scales are required and `f32`. A scale of static size 1 is one value for its whole tensor,
    read once as a scalar; any other size (`?`, `M` or `N`) is one value
    per row of `a` or column of `b`, read once per output tile in the
    accumulator's row or column layout (with `M` or `N` of 1 both read the
    same). The scales multiply the f32 accumulator before it is rounded to
    `c`'s type (on `sm_100a` once the epilogue has read it from tensor
    memory), so they cost the main loop nothing. `c` is not fp8. The
    default `block_k` is 128 (one 128-byte swizzle span) and `block_k` is a
    multiple of 32 (the fp8 MMA's K).

    **Accumulate promotion** (`promote_every n`, fp8 on `sm_90a`): Hopper's
    fp8 wgmma adds its products into the accumulator with fewer mantissa
    bits than f32 (about 14 in practice), so over a long K the sum loses
    precision. With `promote_every n` each main loop is a loop over groups
    of `n` K steps: the wgmmas of a group accumulate into a fresh zeroed
    tile, which is then added (`arith.addf`, f32 in registers) into the
    running sum; the last group takes the steps left. Not with `schedule
    pingpong` (whose consumers take turns by whole main loops). The second
    accumulator costs the tile's accumulator registers again. Without it
    the wgmma chain runs over the whole K range (what `torch._scaled_mm`
    calls `use_fast_accum=True`).

    **Syntax.** The configuration keywords are optional but, when present,
    come in this order:

    ```
    fmha.gemm @name (a, b [, scale_a, scale_b]) -> c
        [transpose_b] [swap_ab] [tile [block_m, block_n, block_k]] [stages n]
        [consumers n] [ctas n] [multicast n] [schedule (cooperative | pingpong)]
        [splits n] [promote_every n] target (sm_90a | sm_100a) attr-dict
    ```

    **Configuration** (all optional; the defaults are chosen so that every
    valid signature also has a valid default configuration):

    | field            | meaning                              | default                     |
    |------------------|--------------------------------------|-----------------------------|
    | `transpose_b`    | `b` is given as `[N, K]`             | `b` is `[K, N]`             |
    | `swap_ab`        | each tile is computed turned around, `C^T = B A^T` (see below) | `A B` |
    | `tile [m, n, k]` | `block_m` rows of `c` per consumer warpgroup, `block_n` columns, `block_k` elements of K per main-loop step | `[128, 128, 64]` (`block_k` 128 for fp8) |
    | `stages`         | A/B shared-memory buffers, 1 to 32 (from 2 on `sm_90a`) | the most, up to 4, that fit in shared memory |
    | `consumers`      | consumer warpgroups per CTA, 1 or 2, or 3 on `sm_90a` (512 threads; each consumer then gets at most 128 registers); each owns a whole `block_m x block_n` tile, so a CTA computes `consumers * block_m` rows | 2 |
    | `ctas`           | CTAs that issue each MMA together, 1 or 2 (`sm_100a` only): with 2, a cluster of two CTAs computes a `2 * block_m`-row tile pair with `tcgen05.mma.cta_group::2` | 1 |
    | `multicast`      | CTAs of a cluster, 1 or 2, that compute neighbouring tiles along M and share each B tile: with 2, each CTA loads half of it into both by TMA multicast | 1 |
    | `schedule`       | `cooperative`: the consumers split a CTA tile of `consumers * block_m` rows and share its B tile. `pingpong` (`sm_90a`, 2 consumers): each consumer computes whole `block_m x block_n` tiles, the CTA's work items alternating between them and loaded in order into one ring of `stages` slots of one A and one B block; their main loops take turns, one's epilogue overlapping the other's MMAs | `cooperative` |
    | `splits`         | K ranges per output tile (split-K, `sm_90a`): each CTA tile is `splits` work items, one per range of K steps, whose f32 partial sums the last of them adds up | 1 |
    | `promote_every`  | fp8 on `sm_90a`: K steps (of `block_k`) the wgmma chain accumulates into a fresh zeroed accumulator before that sum is added into the f32 running sum in registers (accumulate promotion) | none: one chain over the whole K range (`torch._scaled_mm`'s fast accumulation) |
    | `target`         | `sm_90a` or `sm_100a`                | none: required              |

    Tile rules: `block_m` is 64 or 128 (a wgmma covers 64 rows); `block_n` is
    a multiple of 8 from 8 to 256 (the MMA's N); `block_k` is a multiple of
    the MMA's K (32 bytes: 16 for 16-bit inputs, 32 for fp8) and spans 32,
    64 or 128 bytes (a TMA swizzle span), i.e. 16, 32 or 64 for 16-bit
    inputs and 32, 64 or 128 for fp8; or, for 16-bit inputs on `sm_90a`
    without `multicast` or `schedule pingpong`, 128 (two 128-byte spans,
    each K step's rows loaded as two TMA boxes: half the ring's barrier
    round trips per byte).

    **Swapped operands** (`swap_ab`, `sm_90a`): for a few rows of `a` (a
    decode step's tokens times a weight), a wgmma's 64 rows of M would be
    mostly padding, and so would every A slot of the ring. With `swap_ab`
    the consumer computes the tile's transpose, `C^T = B A^T`: the
    `block_n` rows of `b` are the MMA's M (its A operand, read K-major
    from `[N, K]` or MN-major from `[K, N]`) and the `block_m` rows of `a`
    its N, so an A slot holds only `block_m` rows and
    the ring holds more B slots in the same shared memory. The accumulator
    (`block_n x block_m`) is transposed in registers (`tile.transpose`,
    which moves no data) and stored as C's `block_m x block_n` tile. Rules:
    `block_m` a multiple of 8 from 8 to 256 (the MMA's N);
    `block_n` a multiple of 64 up to 256 (the MMA's M); one consumer; bf16
    or f16 inputs; `sm_90a`; not with `ctas`, `multicast` or `schedule
    pingpong`. With `splits` the partial sums are C's tiles (transposed
    before they are stored), so the workspace and the sum are as without
    `swap_ab`.

    **2-CTA mode** (`ctas 2`, `sm_100a`): the kernel is launched in clusters
    of two CTAs along x. Per consumer, the pair issues one
    `tcgen05.mma.cta_group::2` of M = `2 * block_m` = 256 and N = `block_n`:
    each CTA loads its own `block_m` rows of A and `block_n / 2` rows of B
    and holds its `block_m` rows of the accumulator in its own tensor memory;
    the even CTA of the pair issues the MMAs. Rules: `block_m` is 128 (the
    pair's M is 256) and `block_n` a multiple of 16 from 16 to 256 (the
    2-CTA shapes, PTX ISA 9.7.16.2.1). Attention has no 2-CTA mode.

    **TMA multicast** (`multicast 2`): the kernel is launched in clusters of
    two CTAs along x that take the same tiles of N and neighbouring tiles of
    M (CTA rank r the r-th `consumers * block_m` rows of the cluster's tile).
    Each CTA runs its own MMAs (`wgmma` on `sm_90a`,
    `tcgen05.mma.cta_group::1` on `sm_100a`) on a whole B tile, but loads
    only half of it with `cp.async.bulk.tensor...multicast::cluster` into
    the same shared-memory offset of both CTAs, so each B tile is read from
    L2 once per cluster; a B slot is refilled only when the MMAs of both
    CTAs released it (on `sm_100a` a `tcgen05.commit` multicast to both
    CTAs, on `sm_90a` one lane of each consumer warp arriving on the empty
    barriers of both). Rules:
    not with `ctas 2` (that mode already splits B between the CTAs), and B's
    block must split in two halves that TMA can write where a whole block
    would be, i.e. at a multiple of 8 rows of the swizzled layout: with
    `transpose_b` (B is `[N, K]`, the halves are `block_n / 2` rows)
    `block_n` a multiple of 16; without it (B is `[K, N]`, whose rows of
    `block_n` elements move in boxes one swizzle span wide, the widest of
    128, 64 and 32 bytes that divides the row) one box (the halves are
    `block_k / 2` rows of K) or several boxes (each CTA loads half of
    them; of an odd number, the even CTA one more).

    **Split-K** (`splits n`, `sm_90a`): each CTA tile of `consumers *
    block_m` rows is `n` work items of the persistent grid, item `s` taking
    K steps `[s * steps / n, (s + 1) * steps / n)` of the `steps =
    ceildiv(K, block_k)` (balanced: the ranges differ by one step at most).
    Each consumer stores its f32 partial tile with plain stores into the
    kernel's workspace (`[n, M, N4]` f32, `N4` N rounded up to a multiple
    of 4: rows of whole 16-byte vectors; the runtime provides it), then
    adds 1 to its tile's counter (an i32 array the runtime provides zeroed,
    one per consumer tile: `ceildiv(M, consumers * block_m) * consumers *
    ceildiv(N, block_n)`); the consumer that reads back `n - 1` came last:
    it loads the `n` partials in split order (so the sum does not depend on
    which came last), converts, stores `c` by TMA and sets the counter back
    to 0, so the next launch finds it zeroed. No CTA waits for another, so
    any grid size works. Rules: `n` from 1 to the number of K steps where K
    is static; `sm_90a` only; not with `ctas`, `multicast` or `schedule
    pingpong`.

    **Resources** one CTA needs, which must fit the target:

    * shared memory, as the pipeline allocates it: `stages * (consumers *
      block_m * block_k + block_n / ctas * block_k) * 2` (A and B; with
      `schedule pingpong` a slot holds one A block: `stages * (block_m +
      block_n) * block_k * 2`) `+ consumers * block_m * block_n * bytes(c)`
      (C staged for the TMA store) `+ 16 * stages` (a full and an empty
      mbarrier per slot) `<= 232448` bytes;
    * `sm_90a`: at least 2 stages (a consumer releases a slot only after it
      has waited for the next one);
    * `sm_90a`, registers: `block_m * block_n / 128` fp32 accumulator
      registers per consumer thread (twice that with `promote_every`) plus
      8 (addresses, loop state), plus `block_n / 4` with per-column scales,
      `<= 240` (the widest `setmaxnreg` split; `<= 128` with three
      consumers, which ptxas keeps within the registers a thread of a
      512-thread CTA starts with);
    * `sm_100a`, tensor memory: `consumers * 2 * block_n` fp32 columns (a
      double-buffered accumulator per consumer) `<= 512`.

    Example: a bf16 GEMM with a `[N, K]` weight and a static N and K, and an
    f16 GEMM with an f32 result on the defaults:

    ```mlir
    fmha.gemm @gemm (tensor<?x4096xbf16>, tensor<4096x4096xbf16>)
        -> tensor<?x4096xbf16> transpose_b tile [128, 128, 64] stages 3
        consumers 2 target sm_90a
    fmha.gemm @gemm_f32 (tensor<?x?xf16>, tensor<?x?xf16>) -> tensor<?x?xf32>
        target sm_100a
    ```

    Example: fp8 GEMMs on `sm_90a` with a bf16 result: e4m3 x e4m3 with one
    scale per tensor, and e4m3 x e5m2 with a scale per row of `a` and per
    column of `b`:

    ```mlir
    fmha.gemm @gemm_fp8 (tensor<?x4096xf8E4M3FN>, tensor<4096x4096xf8E4M3FN>,
        tensor<1xf32>, tensor<1xf32>) -> tensor<?x4096xbf16> transpose_b
        tile [128, 128, 128] target sm_90a
    fmha.gemm @gemm_fp8_rowwise (tensor<?x?xf8E4M3FN>, tensor<?x?xf8E5M2>,
        tensor<?xf32>, tensor<?xf32>) -> tensor<?x?xbf16> transpose_b
        target sm_90a
    ```

    Example: a ping-pong bf16 GEMM on `sm_90a`, whose two consumer
    warpgroups compute 128 x 128 tiles in turns:

    ```mlir
    fmha.gemm @gemm_pingpong (tensor<?x?xbf16>, tensor<?x?xbf16>)
        -> tensor<?x?xbf16> transpose_b tile [128, 128, 64] stages 5
        consumers 2 schedule pingpong target sm_90a
    ```

    Example: a 2-CTA bf16 GEMM on `sm_100a`; each cluster of two CTAs
    computes 256 x 256 of `c` per consumer:

    ```mlir
    fmha.gemm @gemm_2cta (tensor<?x?xbf16>, tensor<?x?xbf16>)
        -> tensor<?x?xbf16> transpose_b tile [128, 256, 64] stages 4
        consumers 1 ctas 2 target sm_100a
    ```

    Example: a bf16 GEMM on `sm_100a` whose clusters of two CTAs share each
    128 x 64 B tile by TMA multicast:

    ```mlir
    fmha.gemm @gemm_multicast (tensor<?x?xbf16>, tensor<?x?xbf16>)
        -> tensor<?x?xbf16> transpose_b tile [128, 128, 64] stages 3
        consumers 2 multicast 2 target sm_100a
    ```

    Example: a decode-step bf16 GEMM on `sm_90a` (a few rows of `a` times a
    weight) whose tiles of 8 rows and 64 columns are computed as `B A^T`,
    16 slots of 64 rows of B and 8 rows of A in the ring:

    ```mlir
    fmha.gemm @gemm_thin (tensor<?x4096xbf16>, tensor<?x4096xbf16>)
        -> tensor<?x?xbf16> transpose_b swap_ab tile [8, 64, 64] stages 16
        consumers 1 target sm_90a
    ```

    Example: a split-K bf16 GEMM on `sm_90a` whose 128 x 128 tiles each
    take two work items, one per half of K:

    ```mlir
    fmha.gemm @gemm_splitk (tensor<?x?xbf16>, tensor<?x?xbf16>)
        -> tensor<?x?xbf16> transpose_b tile [64, 128, 64] stages 6
        consumers 2 splits 2 target sm_90a
    ```
  }];

  let arguments = (ins
    SymbolNameAttr:$sym_name,
    TypeAttrOf<FunctionType>:$function_type,
    UnitAttr:$transpose_b,
    UnitAttr:$swap_ab,
    OptionalAttr<FMHA_TileAttr>:$tile,
    OptionalAttr<FMHA_StagesAttr>:$stages,
    OptionalAttr<FMHA_ConsumersAttr>:$consumers,
    OptionalAttr<FMHA_CtasAttr>:$ctas,
    OptionalAttr<FMHA_MulticastAttr>:$multicast,
    OptionalAttr<FMHA_GemmScheduleAttr>:$schedule,
    OptionalAttr<FMHA_SplitsAttr>:$splits,
    OptionalAttr<FMHA_PromoteEveryAttr>:$promote_every,
    FMHA_TargetAttr:$target
  );

  let assemblyFormat = [{
    $sym_name $function_type
    (`transpose_b` $transpose_b^)?
    (`swap_ab` $swap_ab^)?
    (`tile` $tile^)?
    (`stages` $stages^)?
    (`consumers` $consumers^)?
    (`ctas` $ctas^)?
    (`multicast` $multicast^)?
    (`schedule` `` $schedule^)?
    (`splits` $splits^)?
    (`promote_every` $promote_every^)?
    `target` `` $target attr-dict
  }];

  let extraClassDeclaration = [{
    //===------------------------------------------------------------------===//
    // Signature. These return null / ShapedType::kDynamic on IR that does not
    // verify, so they are safe to call from the verifier.
    //===------------------------------------------------------------------===//

    /// The type of `a` (input 0).
    ::mlir::RankedTensorType getAType();
    /// The type of `b` (input 1).
    ::mlir::RankedTensorType getBType();
    /// The type of `c` (the result).
    ::mlir::RankedTensorType getCType();
    /// The types of `scale_a` and `scale_b` (inputs 2 and 3; fp8 only),
    /// null without.
    ::mlir::RankedTensorType getScaleAType();
    ::mlir::RankedTensorType getScaleBType();
    /// Whether `a` (and so `b`) is fp8.
    bool isFp8();
    /// Whether `scale_a` has one value per row of `a` (else one for all).
    bool hasRowScales();
    /// Whether `scale_b` has one value per column of `b` (else one for all).
    bool hasColumnScales();

    /// Sizes of the problem: each is static if any tensor that carries it has
    /// it static, else ShapedType::kDynamic. With `varlen`, the batch is the
    /// size of the cu_seqlens tensors minus one, and seq_q / seq_k are the
    /// total tokens (`total_q`, `total_k`).
    int64_t getM();
    int64_t getN();
    int64_t getK();

    //===------------------------------------------------------------------===//
    // Effective configuration: the attribute's value or its default.
    //===------------------------------------------------------------------===//

    /// Rows of C in one consumer warpgroup's tile.
    int64_t getBlockM();
    /// Columns of C in a tile.
    int64_t getBlockN();
    /// K step of the main loop.
    int64_t getBlockK();
    /// Number of A/B shared-memory buffers.
    int64_t getStagesOrDefault();
    /// Consumer warpgroups per CTA.
    int64_t getNumConsumerGroups();
    /// CTAs that issue each MMA together: 1, or 2 in 2-CTA mode.
    int64_t getNumCtas();
    /// CTAs of a cluster that share each B tile by TMA multicast: 1, or 2.
    int64_t getNumMulticast();
    /// Whether the consumers take whole tiles in turns (`schedule
    /// pingpong`) rather than splitting one CTA tile.
    bool isPingPong();
    /// K ranges each CTA tile is split into (split-K): 1 without.
    int64_t getNumSplits();
    /// K steps per promotion of the fp8 accumulator (`promote_every`): 0
    /// without (the wgmma chain accumulates the whole K range).
    int64_t getPromoteInterval();

    //===------------------------------------------------------------------===//
    // Resources of one CTA with the effective configuration.
    //===------------------------------------------------------------------===//

    /// Shared memory by part ("A", "B", "C staging") and barriers, as the
    /// sm_90a pipeline allocates it.
    ::mlir::fmha::SharedMemoryUsage getSharedMemoryUsage() {
      return getSharedMemoryUsage(getStagesOrDefault());
    }
    ::mlir::fmha::SharedMemoryUsage getSharedMemoryUsage(int64_t stages);
    /// Registers per consumer thread (sm_90a): the fp32 accumulator and
    /// what addresses and loop state take.
    int64_t getConsumerRegisters();
    /// fp32 tensor memory columns of a CTA (sm_100a).
    int64_t getTmemColumns();
  }];
}

//===----------------------------------------------------------------------===//
// AttentionBackwardOp
//===----------------------------------------------------------------------===//

def FMHA_AttentionBackwardOp : FMHA_KernelOp<"attention_backward"> {
  let summary = "declares the kernels of a fused attention backward pass";
  let description = [{
    Declares the kernels named after `sym_name` that compute the gradients
    of `fmha.attention`'s output with respect to its inputs, given the
    forward's output `o`, its log-sum-exp `lse` and the upstream gradient
    `do`. For every batch `b`, query head `h` (K/V head `h / g`), with the
    forward's scale `c` and mask:

    ```
    P  = exp(c * Q K^T - lse)        (the forward's softmax; 0 where masked)
    D  = rowsum(dO * O)              (per query row, f32)
    dV = P^T dO                      (summed over the g query heads of a group)
    dP = dO V^T
    dS = P * (dP - D)
    dK = c * dS^T Q                  (summed over the group)
    dQ = c * dS K
    ```

    The products and the sums are computed in fp32; `dq`, `dk` and `dv` are
    rounded to the element type once. A query row whose `lse` is `-inf`
    (it saw no key) contributes nothing.

    **Signature** (`function_type`), builtin tensors where `?` is a size known
    only at run time:

    | tensor | shape                                     | element type    |
    |--------|-------------------------------------------|-----------------|
    | `q`    | `[batch, heads_q, seq_q, head_dim]`       | `bf16` or `f16` |
    | `k`    | `[batch, heads_kv, seq_k, head_dim]`      | same as `q`     |
    | `v`    | same as `k`                               | same as `q`     |
    | `o`    | same as `q` (the forward's output)        | same as `q`     |
    | `do`   | same as `q` (the gradient of `o`)         | same as `q`     |
    | `lse`  | `[batch, heads_q, seq_q]` (the forward's, natural log) | `f32` |
    | `dq`   | same as `q` (result 0)                    | same as `q`     |
    | `dk`   | same as `k` (result 1)                    | same as `q`     |
    | `dv`   | same as `k` (result 2)                    | same as `q`     |

    The signature follows `fmha.attention`'s dense layout and is checked by
    the same rules: sizes shared by several tensors equal wherever static,
    static sizes positive and at most 2^31 - 1, `heads_q` a multiple of
    `heads_kv` (grouped-query attention; `heads_kv = 1` is multi-query). The
    head dim must be static and 64 or 128: at 256, two accumulators of 64 x
    256 fp32 (dK and dV) take every register a consumer thread has, so it is
    rejected until a kernel for it is built.

    **Variable lengths** (`varlen`): the backward of `fmha.attention ...
    varlen`, in its layout. Sequence `b` has query rows `cu_seqlens_q[b]` to
    `cu_seqlens_q[b + 1]` and keys `cu_seqlens_k[b]` to `cu_seqlens_k[b +
    1]`; masks align each sequence's diagonal bottom-right with its own
    lengths, as the forward does:

    | tensor         | shape                               | element type    |
    |----------------|-------------------------------------|-----------------|
    | `q`, `o`, `do` | `[total_q, heads_q, head_dim]`      | `bf16` or `f16` |
    | `k`, `v`       | `[total_k, heads_kv, head_dim]`     | same as `q`     |
    | `lse`          | `[heads_q, total_q]` (the forward's) | `f32`          |
    | `cu_seqlens_q` | `[batch + 1]` (input 6)             | `i32`           |
    | `cu_seqlens_k` | `[batch + 1]` (input 7)             | `i32`           |
    | `dq`           | same as `q`                         | same as `q`     |
    | `dk`, `dv`     | same as `k`                         | same as `q`     |

    The launches take the batch and the longest sequences beside the
    tensors (the manifest's `sizes` `B`, `MAXQ`, `MAXK`): they size the
    grids and `d_lse`. Every bound the kernels read from the cu_seqlens is
    clamped to the totals and the maxima, so that wrong values cannot make
    them read or write outside the tensors. dQ always has a kernel of its
    own (`fused_dq` is rejected with `varlen`).

    **Syntax.**

    ```
    fmha.attention_backward @name (q, k, v, o, do, lse[, cu_seqlens_q,
        cu_seqlens_k]) -> (dq, dk, dv) [varlen] [causal]
        [window [left, right]] [scale f64] [fused_dq]
        [tile [block_m, block_n]] target sm_90a attr-dict
    ```

    `causal`, `window` and `scale` mean what they mean on `fmha.attention`
    (the bottom-right aligned mask; the default scale `1/sqrt(head_dim)`),
    and must be the forward's.

    **Configuration** of the main kernels (docs/Backward.md):

    | field           | meaning                                       | default |
    |-----------------|-----------------------------------------------|---------|
    | `tile [m, n]`   | `block_m` query rows per step of the dK/dV kernel's loop, a multiple of 16 from 16 to 128; `block_n` keys per CTA of the dK/dV kernel and query rows per CTA of the dQ kernel, 128 (two consumer warpgroups of 64 rows, a wgmma's M) | `[64, 128]`; `[48, 128]` with `varlen` at head dim 128 |
    | `target`        | `sm_90a` (the backward has no `sm_100a` kernels yet) | none: required |

    **Resources** of one CTA of the dK/dV kernel, which must fit the
    target (the dQ kernel's are smaller):

    * shared memory: `block_n * head_dim * 2 * 2` (K and V of the CTA's
      keys, where dK and dV are staged for their TMA stores at the end)
      `+ 2 * 2 * block_m * head_dim * 2` (two slots each of Q and dO)
      `+ 8 * 6` (the rings' barriers), where `block_m` is a multiple of 64
      `+ 2 * 2 * 64 * block_m * 2` (each consumer's P and dS, staged for
      dV and dK), with `fused_dq` `+ 2 * block_m * head_dim * 4` (each
      consumer's part of dQ, staged for the reduce-add), `<= 232448`
      bytes;
    * registers per consumer thread (64 keys of the CTA's block): dK and dV
      (`2 * 64 * head_dim / 128` fp32), S and dP (`2 * 64 * block_m / 128`
      fp32), P and dS as 16-bit operands (`64 * block_m / 128`),
      and 16 for the loop's state; with `fused_dq` at least dK and dV,
      dQ's part (`block_m * head_dim / 128` fp32), dS (`64 * block_m /
      256`) and 16, the phase once S and dP are gone; with `varlen` `+ 8`
      (the sequence's bounds, which the dense kernels read from
      parameters); `<= 240`: `varlen` at head dim 128 needs `block_m <=
      48`. The two phases fit apart only with the wgmma descriptors
      computed at their use, not kept in registers across the loop: the
      dK/dV and dQ kernels get `fmha.descriptors_at_use`;
    * with `fused_dq`, `block_m` a multiple of 64 (dQ's part is a wgmma
      accumulator of `block_m` rows).

    **Kernels.** `fmha-expand-kernels` turns the op into one `gpu.module`
    with a kernel per launch, run in this order (the manifest's
    `launches`, docs/Manifest.md), and one scratch tensor the runtime
    provides, `d_lse` (`[batch, heads_q, 2, padded_seq_q]` f32, `seq_q`
    rounded up to a multiple of `block_m` and 64, with `varlen` the
    longest query sequence `MAXQ` rounded up: D and lse * log2(e) of each
    query row of each sequence).

    * `<name>_prep`: `D = rowsum(dO * O)` and `lse2 = lse * log2(e)` (`+inf`
      where `lse` is `-inf`, so that such a row's P is 0) into `d_lse`;
    * `<name>_dkdv`: one CTA per `block_n` keys of one K/V head, walking
      the query blocks of the group's query heads that see them: S = Q K^T
      and dP = dO V^T, P and dS from them, dV += P^T dO and dK += dS^T Q
      (P and dS staged in shared memory, read transposed; with a `block_m`
      that is not a multiple of 64 the transposes S^T and dP^T instead,
      whose P^T and dS^T are register operands); `dk` and `dv`;
    * `<name>_dq`: one CTA per 128 query rows of one head, walking the key
      blocks they see: S, P, dP and dS again, dQ += dS K; `dq`.

    No sum crosses CTAs (dK and dV are summed over the group inside one
    CTA), so the gradients are the same bits from run to run. The dQ kernel
    recomputes S and dP: seven products per pair of blocks instead of
    five, for no atomics and no fp32 workspace.

    With `fused_dq` the dK/dV kernel computes dQ too, five products per
    pair of blocks: each consumer computes its keys' part of dQ = dS K for
    the query block (dS from registers), which TMA
    adds into a second scratch tensor, `dq_acc` (`[batch, heads_q, seq_q,
    head_dim]` f32, zeroed by the prep kernel); `<name>_post` then writes
    `dq = c * dq_acc`, rounded (the launches: `_prep`, `_dkdv`, `_post`).
    The additions come in a different order from run to run, so dQ's last
    bits may vary; dK and dV do not.

    Example: the backward of a grouped-query causal attention with head dim
    128, and of an f16 one at head dim 64 with dQ fused:

    ```mlir
    fmha.attention_backward @attn_bwd (tensor<?x32x?x128xbf16>,
        tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>,
        tensor<?x32x?x128xbf16>, tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>)
        -> (tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>,
            tensor<?x8x?x128xbf16>)
        causal scale 0.0883883 tile [64, 128] target sm_90a
    fmha.attention_backward @attn_bwd_f16 (tensor<?x?x?x64xf16>,
        tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>,
        tensor<?x?x?x64xf16>, tensor<?x?x?xf32>)
        -> (tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>)
        fused_dq target sm_90a
    ```

    The backward of a varlen causal attention, grouped 32:8:

    ```mlir
    fmha.attention_backward @attn_bwd_varlen (tensor<?x32x128xbf16>,
        tensor<?x8x128xbf16>, tensor<?x8x128xbf16>, tensor<?x32x128xbf16>,
        tensor<?x32x128xbf16>, tensor<32x?xf32>, tensor<?xi32>,
        tensor<?xi32>)
        -> (tensor<?x32x128xbf16>, tensor<?x8x128xbf16>,
            tensor<?x8x128xbf16>)
        varlen causal target sm_90a
    ```
  }];

  let arguments = (ins
    SymbolNameAttr:$sym_name,
    TypeAttrOf<FunctionType>:$function_type,
    UnitAttr:$varlen,
    UnitAttr:$causal,
    OptionalAttr<FMHA_WindowAttr>:$window,
    OptionalAttr<FMHA_ScaleAttr>:$scale,
    UnitAttr:$fused_dq,
    OptionalAttr<FMHA_TileAttr>:$tile,
    FMHA_TargetAttr:$target
  );

  let assemblyFormat = [{
    $sym_name $function_type
    (`varlen` $varlen^)?
    (`causal` $causal^)?
    (`window` $window^)?
    (`scale` $scale^)?
    (`fused_dq` $fused_dq^)?
    (`tile` $tile^)?
    `target` `` $target attr-dict
  }];

  let extraClassDeclaration = [{
    //===------------------------------------------------------------------===//
    // Signature. These return null / ShapedType::kDynamic on IR that does not
    // verify, so they are safe to call from the verifier.
    //===------------------------------------------------------------------===//

    /// Inputs 0 to 5: q, k, v, o, do and lse.
    ::mlir::RankedTensorType getQueryType();
    ::mlir::RankedTensorType getKeyType();
    ::mlir::RankedTensorType getValueType();
    ::mlir::RankedTensorType getOutputType();
    ::mlir::RankedTensorType getOutputGradType();
    ::mlir::RankedTensorType getLseType();
    /// Results 0 to 2: dq, dk and dv.
    ::mlir::RankedTensorType getQueryGradType();
    ::mlir::RankedTensorType getKeyGradType();
    ::mlir::RankedTensorType getValueGradType();
    /// Inputs 6 and 7 of a varlen kernel: cu_seqlens_q and cu_seqlens_k;
    /// null otherwise.
    ::mlir::RankedTensorType getCuSeqlensQType();
    ::mlir::RankedTensorType getCuSeqlensKType();
    /// Rank of q, k, v, o, do, dq, dk and dv: 3 with `varlen` ([total,
    /// heads, head_dim]), else 4.
    int64_t getTokenRank() { return getVarlen() ? 3 : 4; }
    /// The element type of q (and of every tensor but lse).
    ::mlir::Type getElementType();

    /// Sizes of the problem: each is static if any tensor that carries it
    /// has it static, else ShapedType::kDynamic. With `varlen`, the batch is
    /// the size of the cu_seqlens minus one, and seq_q / seq_k are the
    /// total tokens (`total_q`, `total_k`).
    int64_t getBatch();
    int64_t getNumHeadsQ();
    int64_t getNumHeadsKV();
    int64_t getSeqLenQ();
    int64_t getSeqLenK();
    int64_t getHeadDim();

    //===------------------------------------------------------------------===//
    // Effective configuration: the attribute's value or its default.
    //===------------------------------------------------------------------===//

    /// Query rows per step of the dK/dV kernel's loop.
    int64_t getBlockM();
    /// Keys per CTA of the dK/dV kernel, and query rows per CTA of the dQ
    /// kernel.
    int64_t getBlockN();
    /// Rows of a consumer warpgroup's tiles in the main kernels (keys in
    /// the dK/dV kernel, query rows in the dQ kernel): a wgmma's M.
    int64_t getConsumerRows();
    /// Keys per step of the dQ kernel's loop.
    int64_t getQueryGradKeys();
    /// Slots of the rings the main kernels' loops stream through.
    int64_t getStages();
    /// The softmax scale; 1/sqrt(head_dim) by default.
    double getScaleOrDefault();
    /// How many keys to the left (before the diagonal) a query sees;
    /// std::nullopt when unbounded.
    std::optional<int64_t> getLeftWindow();
    /// How many keys to the right (after the diagonal) a query sees: 0 when
    /// causal; std::nullopt when unbounded.
    std::optional<int64_t> getRightWindow();
    /// Query rows of one CTA of the prep kernel.
    int64_t getPrepRows();
    /// Rows the scratch `d_lse` pads seq_q to: a multiple of block_m and of
    /// the dQ kernel's rows, so that every row a main kernel reads was
    /// written.
    int64_t getLsePadRows();

    //===------------------------------------------------------------------===//
    // Resources of one CTA of each main kernel.
    //===------------------------------------------------------------------===//

    /// Shared memory by part, as the docs above count it.
    ::mlir::fmha::SharedMemoryUsage getKeyGradSharedMemory();
    ::mlir::fmha::SharedMemoryUsage getQueryGradSharedMemory();
    /// Registers per consumer thread (sm_90a).
    int64_t getKeyGradRegisters();
    int64_t getQueryGradRegisters();
    /// Whether a dK/dV consumer's registers hold dP^T beside S^T and both
    /// accumulators, so that dP^T can run while P^T is computed.
    bool overlapsKeyGradProducts();
    /// Whether the dK/dV kernel computes S = Q K^T and dP = dO V^T with the
    /// queries as rows (lse2 and D then row vectors, P and dS staged in
    /// shared memory for dV and dK) rather than their transposes: where
    /// block_m is a multiple of 64 (S's rows).
    bool keyGradsQueryMajor();
    /// With fused_dq, whether each consumer computes one column part of
    /// dQ over the keys of every consumer of the CTA (FlashAttention-3's
    /// split: consumer h adds dQ[:, h] = sum_c dS_c K_c[:, h], reading the
    /// other consumers' dS from shared memory), rather than all of dQ's
    /// columns over its own keys: where the head dim is one 128-byte span
    /// of 16-bit elements per consumer (128). Half the reduce-adds, half
    /// the part's registers; Q, K and dK in column parts.
    bool splitsQueryGrads();
    /// The column parts Q, K and dK are loaded and computed in: the
    /// consumers with splitsQueryGrads(), else 1.
    int64_t getQueryGradParts();
  }];
}

//===----------------------------------------------------------------------===//
// MergeStatesOp
//===----------------------------------------------------------------------===//

def FMHA_MergeStatesOp : FMHA_KernelOp<"merge_states"> {
  let summary = "declares a kernel that merges partial attention results";
  let description = [{
    Declares a kernel named `sym_name` that merges `S` partial results of
    attention, each over its own set of keys (the sets disjoint: a cached
    prefix and the rest, cascade attention's shared and unique keys, the
    splits of a long cache), into the result over their union. For every
    batch `b`, query row `t` and head `h`, with `(o_s, lse_s)` the states
    (`lse` natural, as `fmha.attention` returns it):

    ```
    lse[b, h, t]    = log(sum_s exp(lse_s[b, h, t]))
    o[b, t, h, :]   = sum_s exp(lse_s[b, h, t] - lse[b, h, t]) * o_s[b, t, h, :]
    ```

    A state with `lse = -inf` (no key in its set) weighs nothing, whatever
    its `o` holds (even NaN); a row whose states all have `lse = -inf` gets
    `o = 0` and `lse = -inf`, as attention itself returns for a row with no
    keys. The weights and the sum are computed in f32; `o` is rounded to
    its element type once.

    **Signature** (`function_type`), builtin tensors where `?` is a size known
    only at run time:

    | tensor       | shape                                         | element type    |
    |--------------|-----------------------------------------------|-----------------|
    | `o_states`   | `[states, batch, seq, heads, head_dim]`       | `bf16` or `f16` |
    | `lse_states` | `[states, batch, heads, seq]`                 | `f32`           |
    | `o`          | `[batch, seq, heads, head_dim]` (result 0)    | same as `o_states` |
    | `lse`        | `[batch, heads, seq]` (result 1)              | `f32`           |

    These are the layouts `fmha.attention ... kvcache` returns, stacked
    along a leading states dimension (a varlen batch is one sequence of all
    tokens, `batch = 1`). `states` is a size of the call, so one kernel
    merges two states or any number. The kernel reads and writes all four
    through memref descriptors that carry their strides (the manifest marks
    them `strided`): the states need not be one allocation (a state
    stride may be the distance between two tensors), and `o` may be a view.
    The innermost stride of `o_states` and `o` must be 1 and their other
    strides and addresses multiples of 16 bytes (rows move in 128-bit
    loads and stores); `lse_states` and `lse` may have any strides.

    `head_dim` must be static, a multiple of 8 from 8 to 512. Sizes shared
    by several tensors must be equal wherever they are static; static sizes
    are positive and at most 2^31 - 1, `heads` and `batch` at most 65535
    (the grid's y and z).

    **Kernel.** A CTA of one warpgroup merges a block of `rows` query rows
    of one head of one sequence (`rows = getBlockRows()`: `4096 /
    head_dim` rounded up to the rows one repetition of the layout covers,
    so that a state's tile is 32 f32 values per thread): it reads the
    `lse` of the states first and computes the merged `lse` (an online
    log-sum-exp in base 2), then streams the states' `o` tiles with
    predicated 128-bit loads, weighting each by `exp(lse_s - lse)` once
    per row, and writes `o` and `lse` with plain stores bounded by `seq`.
    The grid is `(ceildiv(seq, rows), heads, batch)`; no shared memory, no
    MMA: one role of one warpgroup (`ws-assign-roles`), and several CTAs
    share an SM.

    **Syntax.**

    ```
    fmha.merge_states @name (o_states, lse_states) -> (o, lse)
        target (sm_90a | sm_100a) attr-dict
    ```

    Example: merging states of bf16 attention with head dim 128, and of
    f16 attention with head dim 64 and 8 heads:

    ```mlir
    fmha.merge_states @merge (tensor<?x?x?x?x128xbf16>, tensor<?x?x?x?xf32>)
        -> (tensor<?x?x?x128xbf16>, tensor<?x?x?xf32>) target sm_90a
    fmha.merge_states @merge_f16 (tensor<?x?x?x8x64xf16>,
                                  tensor<?x?x8x?xf32>)
        -> (tensor<?x?x8x64xf16>, tensor<?x8x?xf32>) target sm_100a
    ```
  }];

  let arguments = (ins
    SymbolNameAttr:$sym_name,
    TypeAttrOf<FunctionType>:$function_type,
    FMHA_TargetAttr:$target
  );

  let assemblyFormat = [{
    $sym_name $function_type `target` `` $target attr-dict
  }];

  let extraClassDeclaration = [{
    /// The types of `o_states` (input 0), `lse_states` (input 1), `o`
    /// (result 0) and `lse` (result 1); null on IR that does not verify.
    ::mlir::RankedTensorType getStatesType();
    ::mlir::RankedTensorType getStatesLseType();
    ::mlir::RankedTensorType getOutputType();
    ::mlir::RankedTensorType getLseType();
    /// The element type of o_states and o.
    ::mlir::Type getElementType();
    /// The head dimension (static on IR that verifies), and the number of
    /// heads, ShapedType::kDynamic when no tensor has it static.
    int64_t getHeadDim();
    int64_t getNumHeads();
    int64_t getBatch();
    /// Query rows of one head that one CTA merges.
    int64_t getBlockRows();
  }];
}

#endif // FMHA_DIALECT_FMHA_IR_FMHAOPS_TD
