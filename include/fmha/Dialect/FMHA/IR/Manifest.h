//===- Manifest.h - The launch manifest of a compiled kernel ------*- C++
//-*-===//
//
// Part of fmha. The one component that writes a kernel's JSON launch
// manifest (docs/Manifest.md), from the final IR alone: the launch contract
// fmha-expand-kernels recorded (`fmha.tensors`, `fmha.params`, `fmha.grid`,
// FMHADialect.td), what the lowering recorded (`ws.num_threads`,
// `ws.smem_bytes`, `nvvm.cluster_dim`) and the `gpu.module`'s
// `#nvvm.target`. `fmha-translate --fmha-manifest` runs it.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_DIALECT_FMHA_IR_MANIFEST_H
#define FMHA_DIALECT_FMHA_IR_MANIFEST_H

#include "mlir/IR/Operation.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir {
namespace fmha {

/// Writes the manifest of the only kernel under `module` that records a
/// launch contract to `os`; reports at the IR what is missing or malformed.
LogicalResult writeManifest(Operation *module, llvm::raw_ostream &os);

} // namespace fmha
} // namespace mlir

#endif // FMHA_DIALECT_FMHA_IR_MANIFEST_H
