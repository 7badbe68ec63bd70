//===- TileAttrs.td - Attributes of the tile dialect -------*- tablegen -*-===//
//
// Part of fmha. The enums of the tile ops and the layout encodings that
// `tile-assign-layouts` attaches to the tensors of a tile program.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_DIALECT_TILE_IR_TILEATTRS_TD
#define FMHA_DIALECT_TILE_IR_TILEATTRS_TD

include "fmha/Dialect/Tile/IR/TileDialect.td"
include "fmha/Dialect/Tile/IR/TileInterfaces.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/TensorEncoding.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

// Plain integer enum attributes (as `arith.cmpi`'s predicate): the op formats
// print them as bare keywords, `tile.program_id x`.

def Tile_GridDimAttr : I32EnumAttr<"GridDim",
    "a dimension of the grid: x, y or z",
    [
      I32EnumAttrCase<"x", 0>,
      I32EnumAttrCase<"y", 1>,
      I32EnumAttrCase<"z", 2>
    ]> {
  let cppNamespace = "::mlir::tile";
  let description = [{
    Selects the grid dimension that `tile.program_id` and
    `tile.num_programs` query:

    ```mlir
    %head = tile.program_id y : i32
    ```
  }];
}

def Tile_StoreReduceKindAttr : I32EnumAttr<"StoreReduceKind",
    "how a TMA store combines a tile with what memory holds: add",
    [
      I32EnumAttrCase<"add", 0>
    ]> {
  let cppNamespace = "::mlir::tile";
  let description = [{
    `add`: each element of the tile is added to the element of global
    memory it lands on, atomically per element
    (`cp.reduce.async.bulk.tensor...add`); the order of the adds of
    several CTAs to one element is unspecified.

    ```mlir
    tile.store %dq_acc[%b, %h, %row, %c0], %dq reduce add
        : !tile.desc<tensor<64x128xf32>, rank = 4>
    ```
  }];
}

def Tile_ReduceKindAttr : I32EnumAttr<"ReduceKind",
    "the combining function of tile.reduce: max or sum",
    [
      I32EnumAttrCase<"max", 0>,
      I32EnumAttrCase<"sum", 1>
    ]> {
  let cppNamespace = "::mlir::tile";
  let description = [{
    `max` is the IEEE maximum that `arith.maximumf` computes (a NaN input
    gives NaN); `sum` adds with `arith.addf` in an unspecified order.

    ```mlir
    %m = tile.reduce max %s axis 1 : tensor<128x128xf32> -> tensor<128xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Layout encodings
//===----------------------------------------------------------------------===//

class Tile_LayoutAttr<string name, string attrMnemonic,
                      list<Trait> traits = []>
    : Tile_Attr<name, attrMnemonic,
                [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]
                    # traits> {
  let genVerifyDecl = 1;
  // Print `#wgmma_acc = #tile.wgmma_acc<...>` aliases: layouts repeat on
  // every tensor type of a program.
  let genMnemonicAlias = 1;
}

// A layout of tensors in registers.
class Tile_RegisterLayoutAttr<string name, string attrMnemonic>
    : Tile_LayoutAttr<name, attrMnemonic,
          [DeclareAttrInterfaceMethods<Tile_RegisterLayoutAttrInterface>]>;

def Tile_WgmmaAccAttr : Tile_RegisterLayoutAttr<"WgmmaAcc", "wgmma_acc"> {
  let summary = "register layout of a Hopper wgmma accumulator";
  let description = [{
    The layout in which Hopper's `wgmma.mma_async` with instruction shape
    m64n`instr_n`k16 leaves its accumulator in registers, for a 2-d tensor of
    M x N elements spread over `warpgroups` warpgroups (W, 128 threads each;
    `thread` below numbers the 128 * W threads from 0 in warpgroup order,
    wherever warp specialization places these warpgroups in the CTA).

    The tensor is tiled by tiles of (64 * W) x `instr_n` elements; warpgroup
    g owns rows 64g..64g+63 of every tile. Element (row, col) is held by

    ```
    mr = row / (64 * W)    r = row % (64 * W)
    nr = col / instr_n     c = col % instr_n
    thread = 128 * (r / 64) + 32 * ((r % 64) / 16) + 4 * (r % 8) + (c % 8) / 2
    value  = (mr * (N / instr_n) + nr) * (instr_n / 2)
             + 4 * (c / 8) + 2 * ((r % 16) / 8) + c % 2
    ```

    where `value` numbers the M * N / (128 * W) elements a thread holds (for
    f32, one 32-bit register each; f16 values pair up in registers). Per
    warp, this is the PTX wgmma "D" fragment: lane l holds rows l / 4 and
    l / 4 + 8 of its 16-row slab, columns 2 * (l % 4) + {0, 1} of every
    8-column group. For 16-bit elements the same map is also the layout of a
    wgmma "A" operand read from registers, so `P` can feed `P @ V` without
    moving data.

    Tensors must have rank 2, M a multiple of 64 * W and N a multiple of
    `instr_n`.

    ```mlir
    tensor<128x128xf32, #tile.wgmma_acc<instr_n = 128, warpgroups = 2>>
    ```
  }];
  let parameters = (ins
    AttrParameter<"unsigned", "N of the wgmma instruction m64nNk16: a "
                  "multiple of 8 in [8, 256]">:$instr_n,
    AttrParameter<"unsigned", "warpgroups the tensor's rows are split over, "
                  "in [1, 8]">:$warpgroups);
  let assemblyFormat = "`<` struct(params) `>`";
  let extraClassDeclaration = [{
    /// The rows and columns one repetition of the layout covers: tensors are
    /// multiples of it.
    ::llvm::SmallVector<int64_t, 2> getTileShape() const {
      return {64 * static_cast<int64_t>(getWarpgroups()),
              static_cast<int64_t>(getInstrN())};
    }
  }];
}

def Tile_Tmem32x32bAttr : Tile_RegisterLayoutAttr<"Tmem32x32b", "tmem_32x32b"> {
  let summary = "register layout of tcgen05.ld/st with shape 32x32b";
  let description = [{
    The layout in which Blackwell's `tcgen05.ld.sync.aligned.32x32b` reads a
    2-d tensor (M x N) out of tensor memory into registers (and in which
    `tcgen05.st` writes it back): thread t of a warpgroup holds row t, all of
    its columns in consecutive registers. Warp w of a warpgroup reaches only
    TMEM lanes 32 * (w % 4) .. 32 * (w % 4) + 31, hence the fixed row per
    thread.

    The tensor is spread over `warpgroups` warpgroups (W) that split the
    columns: warpgroup g holds columns g * N / W .. (g + 1) * N / W - 1.
    Rows past 128 repeat the pattern. Element (row, col) is held by
    (`thread` numbering the 128 * W threads from 0 in warpgroup order)

    ```
    thread = 128 * (col / (N / W)) + row % 128
    value  = (row / 128) * (N / W) + col % (N / W)
    ```

    Tensors must have rank 2, M a multiple of 128 and N a multiple of W.

    ```mlir
    tensor<128x128xf32, #tile.tmem_32x32b<warpgroups = 1>>
    ```
  }];
  let parameters = (ins
    AttrParameter<"unsigned", "warpgroups the tensor's columns are split "
                  "over, in [1, 8]">:$warpgroups);
  let assemblyFormat = "`<` struct(params) `>`";
  let extraClassDeclaration = [{
    /// The rows and columns one repetition of the layout covers: tensors are
    /// multiples of it.
    ::llvm::SmallVector<int64_t, 2> getTileShape() const {
      return {128, static_cast<int64_t>(getWarpgroups())};
    }
  }];
}

def Tile_BlockedAttr : Tile_RegisterLayoutAttr<"Blocked", "blocked"> {
  let summary = "register layout of row pieces for wide plain loads";
  let description = [{
    A layout for tensors that no MMA computes, read and written with plain
    global loads and stores (`tile.load_direct`, `tile.store_direct`): each
    thread holds runs of `vector` consecutive elements of a row, so that a
    run of 16-bit elements with `vector = 8` is one 128-bit load, and the
    `lanes` consecutive lanes of a warp that share a row hold consecutive
    runs, so that a warp reads whole rows. For a 2-d tensor of M x N
    elements over `warps` warps (W; `thread` numbers their 32 * W threads),
    with `rows = 32 * W / lanes` rows and `cols = lanes * vector` columns
    per repetition:

    ```
    thread = 32 * ((row % rows) / (32 / lanes)) + lanes * (row % (32 / lanes))
             + (col % cols) / vector
    value  = ((row / rows) * (N / cols) + col / cols) * vector + col % vector
    ```

    Tensors must have rank 2, M a multiple of `rows` and N a multiple of
    `cols`. `tile-assign-layouts` gives it to the tiles a program loads with
    `tile.load_direct` when no MMA decides their layout (`fmha.merge_states`
    streams its states this way): the widest `vector` of 16 bytes or less
    that divides N, and as many lanes per row as fill a warp or the row.

    ```mlir
    tensor<32x128xbf16, #tile.blocked<vector = 8, lanes = 16, warps = 4>>
    ```
  }];
  let parameters = (ins
    AttrParameter<"unsigned", "consecutive elements of a row one thread "
                  "holds: a power of two in [1, 16]">:$vector,
    AttrParameter<"unsigned", "lanes of a warp that share a row: a power of "
                  "two in [1, 32]">:$lanes,
    AttrParameter<"unsigned", "warps the tensor is spread over, in [1, "
                  "32]">:$warps);
  let assemblyFormat = "`<` struct(params) `>`";
  let extraClassDeclaration = [{
    /// The rows and columns one repetition of the layout covers: tensors are
    /// multiples of it.
    ::llvm::SmallVector<int64_t, 2> getTileShape() const {
      return {32 * static_cast<int64_t>(getWarps()) / getLanes(),
              static_cast<int64_t>(getLanes()) * getVector()};
    }
  }];
}

def Tile_SliceAttr : Tile_RegisterLayoutAttr<"Slice", "slice"> {
  let summary = "register layout of a reduction of a 2-d register layout";
  let description = [{
    The layout of the 1-d tensor that `tile.reduce ... axis dim` makes of a
    2-d tensor laid out by `parent` (`#tile.wgmma_acc`,
    `#tile.tmem_32x32b` or `#tile.blocked`), and that `tile.broadcast ... axis dim` expands
    back: element i is held, replicated, by every thread that holds an
    element of row i (`dim = 1`) or of column i (`dim = 0`) of the parent.
    For `dim = 1`, that is the 4 threads of a quad for `#tile.wgmma_acc` and
    one thread per warpgroup for `#tile.tmem_32x32b`, the `lanes` lanes of a
    row for `#tile.blocked`.

    The tensor must have rank 1 and its size must be a multiple of the
    parent's tile along the kept dimension.

    ```mlir
    tensor<128xf32, #tile.slice<dim = 1, parent = #tile.wgmma_acc<instr_n = 128, warpgroups = 2>>>
    ```
  }];
  let parameters = (ins
    AttrParameter<"unsigned", "the dimension of the parent that was reduced: "
                  "0 or 1">:$dim,
    AttrParameter<"::mlir::Attribute", "the 2-d register layout: "
                  "#tile.wgmma_acc, #tile.tmem_32x32b or #tile.blocked">:$parent);
  let assemblyFormat = "`<` struct(params) `>`";
  let builders = [
    AttrBuilderWithInferredContext<(ins "unsigned":$dim,
                                        "::mlir::Attribute":$parent), [{
      return $_get(parent.getContext(), dim, parent);
    }]>
  ];
  let extraClassDeclaration = [{
    /// The parent layout.
    RegisterLayoutAttrInterface getParentLayout() const {
      return ::llvm::cast<RegisterLayoutAttrInterface>(getParent());
    }
    /// The shape of a parent tensor whose reduction along `dim` is a tensor
    /// of `shape`: `shape` along the kept dimension, one parent tile along
    /// `dim` (the thread's indices along the kept dimension do not depend on
    /// the parent's extent along `dim`).
    ::llvm::SmallVector<int64_t, 2>
    getParentShape(::llvm::ArrayRef<int64_t> shape) const;
  }];
}

def Tile_TransposedAttr : Tile_RegisterLayoutAttr<"Transposed", "transposed"> {
  let summary = "register layout of the transpose of a 2-d register layout";
  let description = [{
    The layout of the M x N tensor that `tile.transpose` makes of an N x M
    tensor laid out by `parent` (`#tile.wgmma_acc`, `#tile.tmem_32x32b` or
    `#tile.blocked`): every thread holds the same values in the same
    registers, element (row, col) being the parent's element (col, row).
    Transposing a register tensor therefore moves no data; what changes is
    how its values are stored. A thread's values along a row of the
    transpose are its parent values along a column, so they are rarely
    contiguous: stores write them one by one (a GEMM with `swap_ab` stores
    its `[block_n, block_m]` accumulator as the `[block_m, block_n]` tile of
    C this way).

    The tensor must have rank 2, and its transpose must be a tensor the
    parent can lay out.

    ```mlir
    tensor<8x64xf32, #tile.transposed<parent = #tile.wgmma_acc<instr_n = 8, warpgroups = 1>>>
    ```
  }];
  let parameters = (ins
    AttrParameter<"::mlir::Attribute", "the 2-d register layout of the "
                  "transpose: #tile.wgmma_acc, #tile.tmem_32x32b or "
                  "#tile.blocked">:$parent);
  let assemblyFormat = "`<` struct(params) `>`";
  let builders = [
    AttrBuilderWithInferredContext<(ins "::mlir::Attribute":$parent), [{
      return $_get(parent.getContext(), parent);
    }]>
  ];
  let extraClassDeclaration = [{
    /// The parent layout.
    RegisterLayoutAttrInterface getParentLayout() const {
      return ::llvm::cast<RegisterLayoutAttrInterface>(getParent());
    }
  }];
}

def Tile_NvmmaSharedAttr : Tile_LayoutAttr<"NvmmaShared", "nvmma_shared"> {
  let summary = "NVMMA-swizzled shared memory of TMA, wgmma and tcgen05";
  let description = [{
    A tensor in shared memory, stored the way TMA writes a box with
    `CU_TENSOR_MAP_SWIZZLE_<swizzle>B` and the way wgmma and tcgen05.mma
    matrix descriptors with the same swizzle mode read it.

    Of the last two dimensions, the contiguous one is the last
    (`transposed = false`, row-major) or the second-to-last
    (`transposed = true`); the leading dimensions, if any, index copies
    (pipeline stages, for example). With `swizzle = S` > 0 the contiguous
    dimension is cut into S-byte pieces; each piece across all rows is one
    dense [rows x S bytes] sub-tile (one TMA box), stored one after the
    other. Within a sub-tile, the byte at unswizzled offset `o` is stored at
    `o xor (((o / 128) % (S / 16)) * 16)`: 16-byte chunks are permuted
    within 128-byte lines, a pattern that repeats every 1024 bytes (8 lines
    of 128 bytes). `swizzle = 0` stores the tensor densely without
    permutation.

    `element_bits` is the bit width of the element type; the contiguous
    dimension must span a multiple of S bytes (of 16 bytes when S = 0).

    ```mlir
    tensor<128x64xbf16, #tile.nvmma_shared<swizzle = 128, transposed = false, element_bits = 16>>
    ```
  }];
  let parameters = (ins
    AttrParameter<"unsigned", "swizzle width in bytes: 0, 32, 64 or 128">
      :$swizzle,
    AttrParameter<"bool", "whether the second-to-last dimension, not the "
                  "last, is contiguous">:$transposed,
    AttrParameter<"unsigned", "bit width of the element type: 8, 16 or 32">
      :$element_bits);
  let assemblyFormat = "`<` struct(params) `>`";
  let extraClassDeclaration = [{
    /// The contiguous dimension of a tensor of rank `rank` (at least 2).
    unsigned getContiguousDim(unsigned rank) const {
      return getTransposed() ? rank - 2 : rank - 1;
    }
    /// The layout of a row-major `type` with the widest swizzle its rows
    /// fill (what a TMA load of its shape gets); null where they fill no
    /// swizzle span.
    static NvmmaSharedAttr getRowMajor(::mlir::RankedTensorType type);
  }];
}

def Tile_TmemAttr : Tile_LayoutAttr<"Tmem", "tmem"> {
  let summary = "a tensor resident in Blackwell tensor memory";
  let description = [{
    A 2-d tensor (M x N) in Blackwell tensor memory (TMEM): 128 lanes x 512
    columns of 32-bit cells per CTA, the accumulator of `tcgen05.mma` and
    optionally its A operand.

    The tensor is cut into blocks of `block = [BM, BN]` elements, the D
    tile of one `tcgen05.mma` (BM = 128 or 64, BN <= 256). Blocks are placed
    side by side along the columns, row-major over the block grid: block
    (i, j) starts at column (i * (N / BN) + j) * C, where C is the number of
    columns a block takes. Within a block, column c of row r is at column
    offset c (`unpacked = true`: every element takes a whole 32-bit cell) or
    c * bits / 32 (`unpacked = false`: 32 / bits elements of a narrower type
    share one cell), so C = BN or ceil(BN * bits / 32). With BM = 128 row r
    is lane r; with BM = 64 rows 16q..16q+15 are lanes 32q..32q+15
    (q = 0..3), as `tcgen05.mma` with M = 64 writes them.

    Tensors must have rank 2 and be multiples of the block; elements of 8,
    16 or 32 bits (32-bit ones unpacked); all blocks together take at most
    512 columns.

    ```mlir
    tensor<128x128xf32, #tile.tmem<block = [128, 128], unpacked = true>>
    ```
  }];
  let parameters = (ins
    AttrParameter<"unsigned", "rows of a block: 64 or 128">:$blockM,
    AttrParameter<"unsigned", "columns of a block, in [1, 256]">:$blockN,
    AttrParameter<"bool", "whether every element takes a whole 32-bit "
                  "column">:$unpacked);
  let assemblyFormat = [{
    `<` `block` `=` `[` $blockM `,` $blockN `]` `,` `unpacked` `=` $unpacked `>`
  }];
  let extraClassDeclaration = [{
    /// The 32-bit TMEM columns a tensor of `shape` with elements of
    /// `elementBits` bits takes.
    int64_t getNumColumns(::llvm::ArrayRef<int64_t> shape,
                          unsigned elementBits) const;
  }];
}

#endif // FMHA_DIALECT_TILE_IR_TILEATTRS_TD
