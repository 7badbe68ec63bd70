//===- TileInterfaces.td - Interfaces of the tile dialect --*- tablegen -*-===//
//
// Part of fmha. The register-layout interface that the register layouts
// (`#tile.wgmma_acc`, `#tile.tmem_32x32b` and their `#tile.slice`s)
// implement, and against which the lowering of register tensors is written
// once.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_DIALECT_TILE_IR_TILEINTERFACES_TD
#define FMHA_DIALECT_TILE_IR_TILEINTERFACES_TD

include "mlir/IR/OpBase.td"

def Tile_RegisterLayoutAttrInterface
    : AttrInterface<"RegisterLayoutAttrInterface"> {
  let cppNamespace = "::mlir::tile";
  let description = [{
    A layout that spreads a statically shaped tensor over the registers of
    the threads of some warps: which elements a thread holds, in which
    order, and which other lanes hold the same rows or columns. Everything
    the lowering of register tensors needs is asked through this interface,
    so each register op (`tile.reduce`, `tile.broadcast`, `tile.iota`,
    `tensor.splat`, elementwise math, `tile.store_direct`,
    `ws.store_shared`, `ws.load_shared`) is lowered once for every layout.

    The model, in the spirit of Mosaic GPU's tiled layouts: the thread
    (numbered from 0 over the layout's `getNumWarps()` warps, in warp order)
    holds `getValuesPerThread(shape)` values, numbered row-major over
    `getRegisterShape(shape)` (the lowered form of a register tensor is a
    struct of that shape: one struct per instruction fragment where the
    shape has two dimensions). Value `v` is the element at coordinates

    ```
    origin(thread)[d] + getValueOffsets(shape, v)[d]
    ```

    along each dimension `d`, where `buildThreadOrigin` builds `origin` from
    the thread's index at run time and the offsets are static. Values of a
    thread are ordered so that, within one row, their columns increase.

    `getReplicaLaneMasks(d)` says which lanes of a warp hold elements of the
    same index along `d` (the quad of a wgmma row, none for a 32x32b row):
    a row reduction combines a thread's values of a row, then shuffles
    butterfly-wise over the masks of dimension 0.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/"The warps the layout spreads a tensor over.",
      /*retTy=*/"unsigned",
      /*methodName=*/"getNumWarps">,
    InterfaceMethod<
      /*desc=*/[{
        The elements each thread holds of a tensor of `shape` (its values).
      }],
      /*retTy=*/"int64_t",
      /*methodName=*/"getValuesPerThread",
      /*args=*/(ins "::llvm::ArrayRef<int64_t>":$shape)>,
    InterfaceMethod<
      /*desc=*/[{
        How a thread's values of a tensor of `shape` are grouped: values are
        numbered row-major over this shape, whose product is
        `getValuesPerThread(shape)`. A 2-d register shape is
        [fragments, values per fragment], one fragment per MMA instruction
        that reads or writes them together.
      }],
      /*retTy=*/"::llvm::SmallVector<int64_t, 2>",
      /*methodName=*/"getRegisterShape",
      /*args=*/(ins "::llvm::ArrayRef<int64_t>":$shape)>,
    InterfaceMethod<
      /*desc=*/[{
        The coordinates of value `value` of a tensor of `shape` relative to
        the thread's origin (see `buildThreadOrigin`), one per dimension:
        the same for every thread.
      }],
      /*retTy=*/"::llvm::SmallVector<int64_t, 2>",
      /*methodName=*/"getValueOffsets",
      /*args=*/(ins "::llvm::ArrayRef<int64_t>":$shape, "int64_t":$value)>,
    InterfaceMethod<
      /*desc=*/[{
        How many consecutive values hold consecutive elements along the last
        dimension (one row piece a thread may store as a vector). Every run
        starts at a multiple of this count, both among the values and along
        the last dimension.
      }],
      /*retTy=*/"int64_t",
      /*methodName=*/"getContiguousValues",
      /*args=*/(ins "::llvm::ArrayRef<int64_t>":$shape)>,
    InterfaceMethod<
      /*desc=*/[{
        The lane XOR masks `m` such that, for every lane `l`, lanes `l` and
        `l ^ m` of a warp hold elements of the same index along dimension
        `dim`; together they reach every such lane of the warp. Empty when
        each thread is alone with its indices in its warp.
      }],
      /*retTy=*/"::llvm::SmallVector<int64_t, 4>",
      /*methodName=*/"getReplicaLaneMasks",
      /*args=*/(ins "unsigned":$dim)>,
    InterfaceMethod<
      /*desc=*/[{
        Builds (with `arith` ops on i32) the coordinates of the element the
        thread `thread` (an i32 in [0, 32 * getNumWarps())) holds at offsets
        0, one per dimension of a tensor of `shape`; a coordinate that is the
        same for every thread is returned as an attribute and builds
        nothing.
      }],
      /*retTy=*/"::llvm::SmallVector<::mlir::OpFoldResult, 2>",
      /*methodName=*/"buildThreadOrigin",
      /*args=*/(ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
                    "::llvm::ArrayRef<int64_t>":$shape,
                    "::mlir::Value":$thread)>,
  ];
}

#endif // FMHA_DIALECT_TILE_IR_TILEINTERFACES_TD
