#ifndef FMHA_DIALECT_FMHA_TRANSFORMS_PASSES_TD
#define FMHA_DIALECT_FMHA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FMHAExpandKernels : Pass<"fmha-expand-kernels", "::mlir::ModuleOp"> {
  let summary = "expand fmha kernel ops into tile programs";
  let description = [{
    Replaces each `fmha.gemm` by a `gpu.module` holding one kernel, a
    `gpu.func` whose body is the tile program of one CTA, and marks the
    enclosing module as a GPU container. The `gpu.module` carries the
    `#nvvm.target` of the op's target.

    GEMM (`C = A @ B^T` with B given as [N, K] and `transpose_b`, or
    `C = A @ B` with B given as [K, N]): the kernel is persistent; each CTA
    walks output tiles in grouped order (8 tile rows at a time, for L2
    reuse), and for each computes `consumers` tiles of block_m x block_n
    stacked along M, one accumulator chain per tile, looping over K in
    block_k steps:

    ```mlir
    %acc:2 = scf.for %kt = %c0 to %ktiles step %c1 iter_args(%a0 = %zero, %a1 = %zero) -> (...) : i32 {
      %x0 = tile.load %a[%m0, %k] : !tile.desc<tensor<128x64xbf16>>
      %x1 = tile.load %a[%m1, %k] : !tile.desc<tensor<128x64xbf16>>
      %y = tile.load %b[%n0, %k] : !tile.desc<tensor<128x64xbf16>>
      %d0 = tile.dot %x0, %y, %a0 {transpose_b} : ...
      %d1 = tile.dot %x1, %y, %a1 {transpose_b} : ...
      scf.yield %d0, %d1 : ...
    }
    ```
    then converts each accumulator to C's element type and stores it.

    Kernel parameters are tensor descriptors for A, B and C and the sizes
    M, N, K as i32; the manifest launches one CTA per SM.

    Attention forward (`fmha.attention`, sm_90a): with `schedule
    per_block` the grid is (query tiles, heads, batch); persistent (the
    default where two Q slots fit) the grid is min(num_sms, work items) and
    each CTA loops over work items (a query block, or with masks a pair of
    them), the kernel marked `fmha.item_slots` (the Q ring's slots). For
    each block a CTA takes `consumers` Q tiles of block_m rows and, for
    each, runs an online softmax over the K/V tiles of block_n keys that
    its masks leave visible: S = Q K^T scaled by scale * log2(e), the
    sequence-length, causal (diagonal aligned bottom-right) and window
    masks, the running row max m and row sum l, P = exp2(S - m) kept
    unnormalised, O = O * exp2(m_old - m_new) + P V, and at the end O times
    the reciprocal of l and, on request, LSE = (m + log2 l) * ln 2 (rows with no visible key get
    O = 0 and LSE = -inf). The KV head of query head h is h / (heads_q /
    heads_kv), so GQA and MQA read K and V without copies. Parameters: Q, K,
    V, O (and LSE) descriptors, then batch, heads_q, heads_kv, seq_q, seq_k
    as i32. The kernel records its launch contract (tensors, their
    symbolic shapes, parameters, grid) as the attributes `fmha.tensors`,
    `fmha.params` and `fmha.grid` (the fmha dialect's description), from
    which `fmha-translate --fmha-manifest` writes the JSON manifest of the
    final kernel, and the pipeline depth as `fmha.stages`.

    Varlen attention (`varlen`) takes Q, K and V descriptors of rank 3
    ([heads, total, head_dim] views of the packed tensors), O
    (`[total_q, heads_q, head_dim]`), LSE (`[heads_q, total_q]`) and the two
    cu_seqlens as memrefs, then batch, heads_q, heads_kv, max_seqlen_q,
    total_q, total_k as i32; a work item is (sequence, head, query block),
    its bounds read from the cu_seqlens (`memref.load`, clamped to the
    totals), and O and LSE are stored by `tile.store_direct` into views
    (`memref.reinterpret_cast`) that end where the sequence ends. The
    caller passes the batch and max_seqlen_q (`fmha.sizes`).

    Attention against KV caches (`kvcache`) takes Q, K, V and O descriptors
    of rank 4 over the `[blocks, heads, rows, head_dim]` views of the
    `[blocks, rows, heads, head_dim]` tensors (dims `[0, 2, 1, 3]`), LSE,
    `cache_seqlens` and the block table (paged) as memrefs, then batch,
    heads_q, heads_kv, seq_q and max_len (or page_size) as i32; each work
    item reads its cache length (clamped to the cache's capacity), and a
    paged K/V tile is one box at row `n0 % page_size` of page
    `block_table[b][n0 / page_size]` (indices clamped to the table).

    Attention backward (`fmha.attention_backward`, docs/Backward.md): one
    `gpu.module` holds a kernel per launch of the call, listed in launch
    order by the module's `fmha.launches`. `<name>_prep` (a CTA per 64
    query rows of one head: grid (rows of `d_lse`, heads_q, batch)) reads
    O, dO and lse with plain loads, and writes `D = rowsum(dO * O)` and
    `lse2 = lse * log2(e)` (`+inf` for a row without keys) into the
    scratch `d_lse` (`[batch, heads_q, 2, seq_q rounded up]`).
    `<name>_dkdv` (grid (key blocks of block_n, heads_kv, batch)) holds a
    block of keys in two consumers of 64 and walks the query blocks of the
    group's heads: S^T = K Q^T, P^T = 2^(c S^T - lse2), dP^T = V dO^T,
    dS^T = P^T (dP^T - D), dV += P^T dO, dK += dS^T Q; dK and dV go out
    by TMA. `<name>_dq` (grid (query blocks of 128, heads_q, batch)) holds
    64 query rows per consumer and walks the key blocks: S, P, dP and dS
    again, dQ += dS K. Nothing is summed across CTAs: the gradients are
    the same bits from run to run. `backward-kernels` builds a subset, for
    tests.

    fp8 attention's V^T (`fmha.transpose_values`): a CTA per 128 keys of
    one KV head of one sequence loads their rows with `tile.load_direct`
    and stores them with `tile.store_direct ... row_dims 4` into a view of
    V^T (`memref.reinterpret_cast`) whose rows are the keys in the order of
    the key permutation and whose columns are `keys` elements apart.
  }];
  let options = [
    ListOption<"backwardKernels", "backward-kernels", "std::string",
               "the kernels of fmha.attention_backward to build, of prep, "
               "dkdv and dq (default: all three)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::tile::TileDialect"];
}

def FMHAVerifyTarget : Pass<"fmha-verify-target", "::mlir::ModuleOp"> {
  let summary = "check that a module's kernels have targets that can run them";
  let description = [{
    The first pass of the pipelines: before anything is lowered, it checks
    each kernel against its own target, the `#nvvm.target` of its
    `gpu.module` (an `fmha.attention` or `fmha.gemm` names its target, and
    `fmha-expand-kernels` attaches it), asking `fmha::TargetInfo` what the
    target has:

    - a `gpu.module` holding `tile` or `ws` ops (a kernel written below the
      fmha level) has a target: without one, the error says how to attach
      it (`--nvvm-attach-target="chip=sm_90a features=+ptx86"`, or a
      `targets = [#nvvm.target<...>]` attribute on the `gpu.module`);
    - every `#nvvm.target` of a `gpu.module` names a chip fmha compiles for
      (`sm_90a`, `sm_100a`), all of them the same one;
    - no kernel uses what its target does not have: `ws.tcgen05_mma`, the
      tensor-memory ops and types (`#ws.tmem`, `#tile.tmem`,
      `#tile.tmem_32x32b`) need tensor memory and `ws.cta_pair` kernels
      MMAs of CTA pairs (sm_100a), `#tile.wgmma_acc` tensors need wgmma
      (sm_90a).

    The pass takes no options: the target is in the IR.

    Example of an error:
    ```
    'ws.tcgen05_mma' op is a tcgen05/tensor-memory operation, which sm_90a (the gpu.module's #nvvm.target) does not have: it needs sm_100a
    ```
  }];
}

def FMHAModuleToBinary : Pass<"fmha-module-to-binary", "::mlir::ModuleOp"> {
  let summary = "gpu-module-to-binary that fails when it reports an error";
  let description = [{
    Runs upstream `gpu-module-to-binary` with `format` and `toolkit`, and
    fails when it reports an error: the upstream pass reports some errors
    (a `toolkit` that does not exist, a failed `ptxas`) but still succeeds,
    so a tool would exit 0. The pipelines end with this pass.
  }];
  let options = [
    Option<"format", "format", "std::string", "\"isa\"",
           "What to embed: isa (PTX) or bin (a cubin)">,
    Option<"toolkit", "toolkit", "std::string", "\"\"",
           "CUDA toolkit whose ptxas makes cubins">
  ];
}

#endif // FMHA_DIALECT_FMHA_TRANSFORMS_PASSES_TD
