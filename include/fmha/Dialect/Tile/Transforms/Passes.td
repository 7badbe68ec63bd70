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
    - The accumulator of an sm90 `tile.dot` gets
      `#tile.wgmma_acc<instr_n = N, warpgroups = 1>`: one warpgroup holds an
      M x N tile as repeated m64nNk16 fragments.
    - The layout flows to every tensor connected to an accumulator:
      elementwise `arith`/`math` ops, splat constants, `scf.for` iteration
      arguments, results and yields, and stored values.

    ```mlir
    %d = tile.dot %x, %y, %acc {transpose_b} : tensor<128x64xbf16, #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>>, ..., tensor<128x128xf32, #tile.wgmma_acc<instr_n = 128, warpgroups = 1>>
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", "\"sm90\"",
           "Layouts for this target: sm90 (wgmma)">
  ];
}

#endif // FMHA_DIALECT_TILE_TRANSFORMS_PASSES_TD
