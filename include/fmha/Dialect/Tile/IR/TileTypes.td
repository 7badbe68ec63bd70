//===- TileTypes.td - Types of the tile dialect ------------*- tablegen -*-===//
//
// Part of fmha. The TMA tensor descriptor type.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_DIALECT_TILE_IR_TILETYPES_TD
#define FMHA_DIALECT_TILE_IR_TILETYPES_TD

include "fmha/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def Tile_TensorDescType : Tile_Type<"TensorDesc", "desc"> {
  let summary = "a TMA tensor descriptor: a global tensor read or written in blocks";
  let description = [{
    A `!tile.desc` stands for a global-memory tensor of rank `rank` that the
    kernel reads or writes one block at a time through the Tensor Memory
    Accelerator. At run time it is a 128-byte `CUtensorMap` passed by value as
    a `__grid_constant__` kernel parameter; the runtime encodes it from the
    actual tensor (address, sizes, strides) and the block shape given here.

    `block` is the tensor one load produces (or one store consumes): its shape
    covers the innermost dimensions of the global tensor; the outer
    `rank - block rank` dimensions have a box size of 1 and are selected by
    their coordinates. After `tile-assign-layouts`, the block's encoding says
    how the block is laid out in shared memory (for example its swizzle).

    The block must be statically shaped, of rank 1 to 5, with every
    dimension in [1, 256] (TMA's box limits) and integer or float elements;
    its encoding, if any, is a `#tile.nvmma_shared`. `rank`, when given, is
    between the block's rank and 5; `rank = 0` (the default, not printed)
    means the block's rank.

    Example: blocks of 128 rows x 64 columns of a 4-d tensor
    `[batch, heads, seq, head_dim]`:

    ```mlir
    !tile.desc<tensor<128x64xbf16>, rank = 4>
    ```
  }];
  let parameters = (ins
    TypeParameter<"RankedTensorType", "the block one load produces or one "
                  "store consumes">:$block,
    DefaultValuedParameter<"unsigned", "0", "rank of the global tensor (0: "
                           "the block's rank)">:$rank);
  let assemblyFormat = "`<` $block (`,` `rank` `=` $rank^)? `>`";
  let genVerifyDecl = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    TypeBuilderWithInferredContext<(ins "RankedTensorType":$block,
                                        CArg<"unsigned", "0">:$rank), [{
      return $_get(block.getContext(), block, rank);
    }]>
  ];
  let extraClassDeclaration = [{
    /// The rank of the global tensor (the block's rank when not given).
    unsigned getGlobalRank() const {
      return getRank() ? getRank() : getBlock().getRank();
    }
    /// Bytes one block occupies.
    int64_t getBlockBytes() const;
  }];
}

#endif // FMHA_DIALECT_TILE_IR_TILETYPES_TD
