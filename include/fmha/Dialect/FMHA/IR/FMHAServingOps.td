//===- FMHAServingOps.td - fmha ops that move keys, values -*- tablegen -*-===//
//
// Part of fmha. Kernel declarations that copy keys and values into the
// layouts attention kernels read: the KV caches of `fmha.attention ...
// kvcache` (`fmha.append_kv`) and fp8 attention's transposed V
// (`fmha.transpose_values`). Kept apart from FMHAOps.td, with their own
// header, so that code which does not build them does not depend on them.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_DIALECT_FMHA_IR_FMHASERVINGOPS_TD
#define FMHA_DIALECT_FMHA_IR_FMHASERVINGOPS_TD

include "fmha/Dialect/FMHA/IR/FMHADialect.td"
include "fmha/Dialect/FMHA/IR/FMHAAttrs.td"
include "mlir/IR/CommonAttrConstraints.td"

//===----------------------------------------------------------------------===//
// AppendKVOp
//===----------------------------------------------------------------------===//

def FMHA_AppendKVOp : FMHA_KernelOp<"append_kv"> {
  let summary = "declares a kernel that writes new tokens' keys and values "
                "into a KV cache";
  let description = [{
    Declares a kernel named `sym_name` that appends the keys and values of
    `seq_new` new tokens to each sequence of a KV cache, as
    `flash_attn_with_kvcache` does with `k_new` and `v_new` before it
    attends. For every batch `b`, new token `t` and KV head `h`, with
    `L = cache_seqlens[b]` (the sequence's length before the new tokens)
    and `p = L + t`:

    ```
    k_cache[b, p, h, :] = k_new[b, t, h, :]                        (dense)
    k_cache[block_table[b, p / P], p % P, h, :] = k_new[b, t, h, :] (paged)
    ```

    and the same for `v`. The results are the caches, written in place:
    the caller passes them like the inputs (the manifest lists them as
    outputs), and rows other than the new tokens' keep what they hold. A
    position outside the cache (`L < 0`, `p` past a dense cache's
    capacity or past `max_pages * P`) or a block-table entry outside the
    pool writes nothing, so that bad values never write outside the
    caches; the lengths after the call are `cache_seqlens + seq_new`,
    which the caller computes.

    **Signature** (`function_type`), builtin tensors where `?` is a size known
    only at run time:

    | tensor          | shape                                          | element type    |
    |-----------------|------------------------------------------------|-----------------|
    | `k_new`         | `[batch, seq_new, heads_kv, head_dim]`         | `bf16` or `f16` |
    | `v_new`         | same as `k_new`                                | same as `k_new` |
    | `cache_seqlens` | `[batch]`                                      | `i32`           |
    | `block_table`   | `[batch, max_pages]` (paged caches only)       | `i32`           |
    | `k_cache`       | `[batch, capacity, heads_kv, head_dim]` or, paged, `[num_pages, P, heads_kv, head_dim]` (result 0) | same as `k_new` |
    | `v_cache`       | same as `k_cache` (result 1)                   | same as `k_new` |

    With four inputs the caches are paged: `P`, the page size, must be a
    static power of two of at least 16. `head_dim` must be static, a
    multiple of 8 up to 512. Sizes shared by several tensors must be equal
    wherever they are static; static sizes are positive and at most
    2^31 - 1, `heads_kv` and `batch` at most 65535 (the grid's y and z).
    All six tensors are read and written through memref descriptors with
    the caller's strides (the manifest marks them `strided`); the
    innermost stride of the four 16-bit tensors must be 1 and their other
    strides and addresses multiples of 16 bytes (rows move in 128-bit
    loads and stores).

    **Kernel.** A CTA of one warpgroup copies a block of `rows` new tokens
    (`rows = getBlockRows()`: the rows one repetition of `#tile.blocked`
    covers at this head dim, 16, 8 and 4 at head dims 64, 128 and 256) of
    one KV head of one sequence: grid `(ceildiv(seq_new, rows), heads_kv,
    batch)`. The block's rows are loaded with predicated 128-bit loads
    (`tile.load_direct`) and stored with bounded ones
    (`tile.store_direct`) through views that start at the block's first
    token and end at its last, so that the loads' and stores' own bounds
    mask the rows outside it. In a paged cache the block's positions may
    span two pages: the CTA copies the part in each aligned group of
    `rows` positions (which never crosses a page) with one load and one
    store, after reading the group's page from the block table. One role
    (`ws-assign-roles`' plain policy), no shared memory, no MMA.

    **Syntax.**

    ```
    fmha.append_kv @name (k_new, v_new, cache_seqlens[, block_table])
        -> (k_cache, v_cache) target (sm_90a | sm_100a) attr-dict
    ```

    Example: a dense bf16 cache with head dim 128 and 8 KV heads, and a
    paged f16 cache with pages of 64 rows:

    ```mlir
    fmha.append_kv @append (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>,
                            tensor<?xi32>)
        -> (tensor<?x?x8x128xbf16>, tensor<?x?x8x128xbf16>) target sm_90a
    fmha.append_kv @append_paged (tensor<?x?x?x64xf16>, tensor<?x?x?x64xf16>,
                                  tensor<?xi32>, tensor<?x?xi32>)
        -> (tensor<?x64x?x64xf16>, tensor<?x64x?x64xf16>) target sm_100a
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
    /// The types of `k_new` (input 0), `cache_seqlens` (input 2),
    /// `block_table` (input 3, null for a dense cache) and `k_cache`
    /// (result 0); null on IR that does not verify.
    ::mlir::RankedTensorType getNewType();
    ::mlir::RankedTensorType getSeqlensType();
    ::mlir::RankedTensorType getTableType();
    ::mlir::RankedTensorType getCacheType();
    /// Whether the caches are paged (a block table is given).
    bool isPaged();
    /// The element type of the four key and value tensors.
    ::mlir::Type getElementType();
    /// The head dimension (static on IR that verifies), the number of KV
    /// heads and the batch, ShapedType::kDynamic when no tensor has it
    /// static.
    int64_t getHeadDim();
    int64_t getNumHeads();
    int64_t getBatch();
    /// The page size of a paged cache, ShapedType::kDynamic otherwise.
    int64_t getPageSize();
    /// New tokens of one KV head that one CTA copies.
    int64_t getBlockRows();
  }];
}

//===----------------------------------------------------------------------===//
// TransposeValuesOp
//===----------------------------------------------------------------------===//

def FMHA_TransposeValuesOp : FMHA_KernelOp<"transpose_values"> {
  let summary = "declares a kernel that transposes V for fp8 attention";
  let description = [{
    Declares a kernel named `sym_name` that copies the values `v` of fp8
    attention into the layout its kernel reads them in (`fmha.attention`
    with 8-bit inputs, docs/FP8Attention.md): an 8-bit wgmma reads both
    operands K-major, so the P V product needs V with the keys innermost,
    and the P fragment it reads from registers holds the keys of each
    group of 16 in a permuted order. For every batch `b`, KV head `h`,
    key `k = 16 g + 8 a + 2 t + c` (`a`, `c` in [0, 2), `t` in [0, 4)) and
    head-dim index `d`:

    ```
    vt[b, h, d, 16 g + 4 t + 2 a + c] = v[b, h, k, d]   (k < seq_k)
    vt[b, h, d, 16 g + 4 t + 2 a + c] = 0               (seq_k <= k < keys)
    ```

    where `keys` is `seq_k` rounded up to a multiple of 16: the padding
    keys read as zeros (their scores are masked, and a zero value keeps
    `0 * v` finite). Every element of `vt` is written.

    **Signature** (`function_type`), builtin tensors where `?` is a size
    known only at run time:

    | tensor | shape                                    | element type             |
    |--------|------------------------------------------|--------------------------|
    | `v`    | `[batch, heads_kv, seq_k, head_dim]`     | `f8E4M3FN` or `f8E5M2`   |
    | `vt`   | `[batch, heads_kv, head_dim, keys]` (result) | same as `v`          |

    `head_dim` must be static, a multiple of 16 up to 256. Sizes shared by
    the two tensors must be equal wherever they are static, and `keys`,
    when static with `seq_k`, `seq_k` rounded up to 16; static sizes are
    positive and at most 2^31 - 1, `heads_kv` and `batch` at most 65535
    (the grid's y and z). `v` is read through a memref descriptor with the
    caller's strides (the manifest marks it `strided`): its innermost
    stride must be 1, its other strides and its address multiples of 16
    bytes. `vt` is dense.

    **Kernel.** A CTA of one warpgroup copies 128 keys of one KV head of
    one sequence: grid `(ceildiv(keys, 128), heads_kv, batch)`. Each thread
    loads one key's row with predicated 128-bit loads (`tile.load_direct`,
    rows past `seq_k` read zeros) and stores it byte by byte into a view
    of `vt` whose rows are the keys (`tile.store_direct ... row_dims 4`
    over the dimensions `[g, a, t, c]` of a key, with `vt`'s strides
    `[16, 2, 4, 1]`) and whose columns are `head_dim`, `keys` bytes
    apart: the 32 lanes of a warp hold 32 consecutive keys, so each store
    of a warp fills 32 consecutive bytes of one row of `vt`. One role
    (`ws-assign-roles`' plain policy), no shared memory, no MMA.

    **Syntax.**

    ```
    fmha.transpose_values @name (v) -> (vt) target (sm_90a | sm_100a)
        attr-dict
    ```

    Example: V of head dim 128 with 8 KV heads:

    ```mlir
    fmha.transpose_values @vt (tensor<?x8x?x128xf8E4M3FN>)
        -> (tensor<?x8x128x?xf8E4M3FN>) target sm_90a
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
    /// The types of `v` (input 0) and `vt` (result 0); null on IR that
    /// does not verify.
    ::mlir::RankedTensorType getValuesType();
    ::mlir::RankedTensorType getTransposedType();
    /// The head dimension (static on IR that verifies), the number of KV
    /// heads and the batch, ShapedType::kDynamic when no tensor has it
    /// static.
    int64_t getHeadDim();
    int64_t getNumHeads();
    int64_t getBatch();
    /// Keys of one group of V's permutation.
    static constexpr int64_t kKeyGroup = 16;
    /// Keys one CTA copies: a warpgroup, a key per thread.
    static constexpr int64_t kBlockKeys = 128;
  }];
}

#endif // FMHA_DIALECT_FMHA_IR_FMHASERVINGOPS_TD
