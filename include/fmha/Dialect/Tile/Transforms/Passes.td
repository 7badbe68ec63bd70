#ifndef FMHA_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define FMHA_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileAssignLayouts : Pass<"tile-assign-layouts"> {
  let summary = "give the tensors of tile programs their target layouts";
  let description = [{
    Chooses where each tensor of a tile program lives and how it is laid
    out, as encodings on the tensor types:

    - `tile.dot` operands read from shared memory get
      `#tile.nvmma_shared` with the widest swizzle their rows fill (128, 64
      or 32 bytes); the loads that produce them and their descriptors (kernel
      parameters included) get the same encoding, so TMA writes the layout
      the tensor cores read.
    - On sm_90a, a `tile.dot` operand computed in registers that wgmma
      cannot read there (an A given transposed, any B: the attention
      backward's dS^T for dQ = dS K) keeps its register layout and is
      staged: a `tile.convert_layout` into the `#tile.nvmma_shared` a load
      of its shape would get, right before the first dot of its block
      that reads it (the block's dots share it; `ws-partition-roles`
      turns it into a buffer of the computing role). A K-major register A
      (attention's P) is read from registers.
    - On sm_90a, the descriptor of a `tile.store` (a TMA store) gets the
      `#tile.nvmma_shared` its rows fill, so the staged block is written
      into swizzled rows without bank conflicts (in unswizzled rows 128
      bytes apart or a multiple of it, the 8 rows a warp's wgmma fragment
      covers fall in the same 4 banks) and TMA stores (or, with `reduce
      add`, adds) it box by box; the kernels' tensor maps declare those
      boxes (`LaunchContract::storeTensorMap`). Rows that fill no swizzle
      span stay unswizzled, except for `reduce add`. On sm_100a only
      `reduce add` stores are swizzled: its epilogues stage rows in column
      chunks (`ws-chunk-row-stores`).
    - The accumulator of a `tile.dot` gets the target's accumulator layout
      (`fmha::TargetInfo::getAccumulatorLayout`); on sm_90a
      `#tile.wgmma_acc<instr_n = N, warpgroups = 1>`: one warpgroup holds an
      M x N tile as repeated m64nNk16 fragments.
    - The layout flows to every tensor connected to an accumulator:
      elementwise `arith`/`math` ops, splat constants, `scf.for` iteration
      arguments, results and yields, and stored values.
    - Across a `tile.transpose` it flows transposed: the result gets
      `#tile.transposed<parent = ...>` of the input's layout (and the input
      the parent of a transposed result's), so a swapped GEMM's C^T
      accumulator is stored as C's tile without moving data.
    - A 2-d tile loaded by `tile.load_direct` that no accumulator's layout
      reaches (a program without MMAs, such as `fmha.merge_states`) gets a
      register layout of its own on either target,
      `#tile.blocked<vector = V, lanes = L, warps = 4>`: runs of the widest
      vector of 16 bytes or less that divides a row (8 for 16-bit
      elements: 128-bit loads), `L` lanes per row (as many as fill a warp
      or the row), over one warpgroup; it flows like an accumulator's, and
      row vectors broadcast into it take its `#tile.slice`.
    - What none of these reaches then takes a layout of its own: a 2-d
      splat constant that `tile.store_direct` writes (a buffer cleared,
      as the backward's prep kernel clears `dq_acc`) the
      `#tile.blocked` layout of its shape, and a row vector that
      `tile.load_direct` reads beside the tiles (the backward's `lse`
      rows) the `#tile.slice<dim = 1>` of a laid-out 2-d tile that
      `tile.load_direct` reads with as many rows; both flow as above.

    The target is each kernel's: the `#nvvm.target` chip of its
    `gpu.module` (`sm_90a` or `sm_100a`, what `fmha-expand-kernels`
    attaches, or `--nvvm-attach-target`), read through `fmha::TargetInfo`;
    a tile program outside such a module is an error saying how to attach
    one.

    On sm_100a (Blackwell, `tcgen05.mma`), operands in shared
    memory are chosen as above, but accumulators live in tensor memory:

    - every `tile.dot` accumulator and result, and the `scf.for` positions
      that carry them, get the target's accumulator layout,
      `#tile.tmem<block = [128, N], unpacked = true>` (N at most 256;
      64-row accumulators are not supported yet);
    - a tensor-memory value read by anything else (elementwise math,
      reductions, stores) is first loaded by a `tile.convert_layout` to
      `#tile.tmem_32x32b<warpgroups = 1>`, the `tcgen05.ld` 32x32b layout in
      which thread t of a warpgroup holds row t; that register layout flows
      as the wgmma one does on sm90 (row vectors take its `#tile.slice`);
    - a value computed in registers and accumulated into (attention's
      rescaled O) is stored by a `tile.convert_layout` to `#tile.tmem`
      (`tcgen05.st`); a splat constant accumulator (the zero a loop starts
      from) stays in tensor memory without a store: the first MMA does not
      accumulate;
    - an A operand computed in registers (attention's P) is stored to
      tensor memory packed (`unpacked = false`, two 16-bit elements per
      column), where `tcgen05.mma` reads it.

    ```mlir
    %r = scf.for ... iter_args(%acc = %zero) -> (tensor<128x128xf32, #tile.tmem<block = [128, 128], unpacked = true>>) { ... }
    %v = tile.convert_layout %r : tensor<128x128xf32, #tile.tmem<block = [128, 128], unpacked = true>> -> tensor<128x128xf32, #tile.tmem_32x32b<warpgroups = 1>>
    ```

    ```mlir
    %d = tile.dot %x, %y, %acc {transpose_b} : tensor<128x64xbf16, #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>>, ..., tensor<128x128xf32, #tile.wgmma_acc<instr_n = 128, warpgroups = 1>>
    ```
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

#endif // FMHA_DIALECT_TILE_TRANSFORMS_PASSES_TD
