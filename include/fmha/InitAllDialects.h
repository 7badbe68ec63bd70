//===- InitAllDialects.h - Register fmha's and the needed dialects -*- C++
//-*-===//
//
// Part of fmha. One place that lists every dialect fmha's tools load: fmha's
// own three and the upstream dialects the NVVM-to-PTX tail needs. Embedders
// call registerAllFMHADialects() on their DialectRegistry.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_INITALLDIALECTS_H
#define FMHA_INITALLDIALECTS_H

namespace mlir {
class DialectRegistry;
namespace fmha {

/// Adds the fmha, tile and ws dialects to `registry`.
void registerFMHADialects(DialectRegistry &registry);

/// Adds fmha's dialects, the upstream dialects its pipelines produce (arith,
/// math, scf, cf, func, memref, tensor, gpu, nvgpu, nvvm, llvm), their
/// LLVM-IR translations, and the NVVM target attribute interface.
void registerAllFMHADialects(DialectRegistry &registry);

} // namespace fmha
} // namespace mlir

#endif // FMHA_INITALLDIALECTS_H
