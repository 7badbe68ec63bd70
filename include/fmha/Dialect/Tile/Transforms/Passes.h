//===- Passes.h - Passes of the tile dialect ----------------------*- C++ -*-===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_DIALECT_TILE_TRANSFORMS_PASSES_H
#define FMHA_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace tile {

#define GEN_PASS_DECL
#include "fmha/Dialect/Tile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fmha/Dialect/Tile/Transforms/Passes.h.inc"

} // namespace tile
} // namespace mlir

#endif // FMHA_DIALECT_TILE_TRANSFORMS_PASSES_H
