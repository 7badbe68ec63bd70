//===- TileDialect.td - The tile dialect -------------------*- tablegen -*-===//
//
// Part of fmha. The tile dialect: one CTA's sequential program on tensor
// tiles, between the fmha dialect (what to compute) and ws (warp
// specialization).
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_DIALECT_TILE_IR_TILEDIALECT_TD
#define FMHA_DIALECT_TILE_IR_TILEDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tile";
  let summary = "One CTA's sequential tile program on tensors: how to compute.";
  let description = [{
    One CTA's sequential tile program on tensors: how to compute.

    A tile program is a `gpu.func ... kernel` in a `gpu.module`. Its
    arguments are `!tile.desc` TMA descriptors of the global tensors and
    scalars; its values are statically shaped builtin `tensor`s, each a tile
    the whole CTA works on. Elementwise math is upstream `arith` and `math`
    on tensors, constants are `arith.constant dense<...>` or `tensor.splat`,
    loops are `scf.for`. The tile dialect adds what upstream lacks: grid
    queries (`tile.program_id`, `tile.num_programs`), TMA block transfers
    (`tile.load`, `tile.store`), matrix multiply-accumulate (`tile.dot`),
    reductions and broadcasts along an axis (`tile.reduce`,
    `tile.broadcast`), `tile.iota` for masks, and `tile.convert_layout`.

    The program is sequential: warp specialization (the ws dialect) later
    splits it into producer and consumer roles. Tensors start without
    encodings; `tile-assign-layouts` then gives each tensor a layout
    encoding that says where its elements live: in registers
    (`#tile.wgmma_acc`, `#tile.tmem_32x32b`, `#tile.slice`), in shared
    memory (`#tile.nvmma_shared`) or in Blackwell tensor memory
    (`#tile.tmem`), with `tile.convert_layout` where they must move.

    Example: one Q tile of attention over K/V tiles (online softmax).

    ```mlir
    gpu.module @kernels {
      // One CTA computes one 128-row tile of O = softmax(Q K^T * scale) V for
      // one (batch, head): Q, K, V and O are [batch, heads, seq, 64] bf16 and
      // %scale_log2e is scale * log2(e), so that exp2 computes the exp.
      gpu.func @attn_tile(%q: !tile.desc<tensor<128x64xbf16>, rank = 4>,
                          %k: !tile.desc<tensor<128x64xbf16>, rank = 4>,
                          %v: !tile.desc<tensor<128x64xbf16>, rank = 4>,
                          %o: !tile.desc<tensor<128x64xbf16>, rank = 4>,
                          %seq_len: i32, %scale_log2e: f32) kernel {
        %c0 = arith.constant 0 : i32
        %c128 = arith.constant 128 : i32
        %m_block = tile.program_id x : i32
        %head = tile.program_id y : i32
        %batch = tile.program_id z : i32
        %row = arith.muli %m_block, %c128 : i32
        %qt = tile.load %q[%batch, %head, %row, %c0]
            : !tile.desc<tensor<128x64xbf16>, rank = 4>
        %scale = tensor.splat %scale_log2e : tensor<128x128xf32>
        %len = tensor.splat %seq_len : tensor<128x128xi32>
        %col = tile.iota axis 1 : tensor<128x128xi32>
        %neg_inf = arith.constant dense<0xFF800000> : tensor<128x128xf32>
        %s_zero = arith.constant dense<0.0> : tensor<128x128xf32>
        %m_init = arith.constant dense<0xFF800000> : tensor<128xf32>
        %l_init = arith.constant dense<0.0> : tensor<128xf32>
        %o_init = arith.constant dense<0.0> : tensor<128x64xf32>
        %m, %l, %acc = scf.for %kv = %c0 to %seq_len step %c128
            iter_args(%m_i = %m_init, %l_i = %l_init, %acc_i = %o_init)
            -> (tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>) : i32 {
          %kt = tile.load %k[%batch, %head, %kv, %c0]
              : !tile.desc<tensor<128x64xbf16>, rank = 4>
          %vt = tile.load %v[%batch, %head, %kv, %c0]
              : !tile.desc<tensor<128x64xbf16>, rank = 4>
          // S = Q K^T, in log2 units; keys past the sequence end get -inf.
          %s = tile.dot %qt, %kt, %s_zero {transpose_b}
              : tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x128xf32>
          %s_scaled = arith.mulf %s, %scale : tensor<128x128xf32>
          %kv_b = tensor.splat %kv : tensor<128x128xi32>
          %key = arith.addi %col, %kv_b : tensor<128x128xi32>
          %valid = arith.cmpi slt, %key, %len : tensor<128x128xi32>
          %s_masked = arith.select %valid, %s_scaled, %neg_inf
              : tensor<128x128xi1>, tensor<128x128xf32>
          // Online softmax: new row max, rescale factor, probabilities.
          %m_cur = tile.reduce max %s_masked axis 1
              : tensor<128x128xf32> -> tensor<128xf32>
          %m_new = arith.maximumf %m_i, %m_cur : tensor<128xf32>
          %m_diff = arith.subf %m_i, %m_new : tensor<128xf32>
          %alpha = math.exp2 %m_diff : tensor<128xf32>
          %m_b = tile.broadcast %m_new axis 1
              : tensor<128xf32> -> tensor<128x128xf32>
          %s_shift = arith.subf %s_masked, %m_b : tensor<128x128xf32>
          %p = math.exp2 %s_shift : tensor<128x128xf32>
          // Row sum and accumulator, rescaled by alpha.
          %l_cur = tile.reduce sum %p axis 1
              : tensor<128x128xf32> -> tensor<128xf32>
          %l_scaled = arith.mulf %l_i, %alpha : tensor<128xf32>
          %l_new = arith.addf %l_scaled, %l_cur : tensor<128xf32>
          %alpha_b = tile.broadcast %alpha axis 1
              : tensor<128xf32> -> tensor<128x64xf32>
          %acc_scaled = arith.mulf %acc_i, %alpha_b : tensor<128x64xf32>
          %p16 = arith.truncf %p : tensor<128x128xf32> to tensor<128x128xbf16>
          %acc_new = tile.dot %p16, %vt, %acc_scaled
              : tensor<128x128xbf16>, tensor<128x64xbf16>, tensor<128x64xf32>
          scf.yield %m_new, %l_new, %acc_new
              : tensor<128xf32>, tensor<128xf32>, tensor<128x64xf32>
        }
        // O = acc / l, rounded to bf16.
        %l_b = tile.broadcast %l axis 1 : tensor<128xf32> -> tensor<128x64xf32>
        %out = arith.divf %acc, %l_b : tensor<128x64xf32>
        %out16 = arith.truncf %out : tensor<128x64xf32> to tensor<128x64xbf16>
        tile.store %o[%batch, %head, %row, %c0], %out16
            : !tile.desc<tensor<128x64xbf16>, rank = 4>
        gpu.return
      }
    }
    ```
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Registers the layout encodings, next to their definitions
    /// (TileAttrs.cpp).
    void registerAttributes();
  }];
}

/// Base class of the tile ops.
class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;
/// Base class of the tile attributes.
class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}
/// Base class of the tile types.
class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

#endif // FMHA_DIALECT_TILE_IR_TILEDIALECT_TD
