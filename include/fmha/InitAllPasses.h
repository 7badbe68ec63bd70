//===- InitAllPasses.h - Register fmha's and the needed passes ---*- C++
//-*-===//
//
// Part of fmha. Registers fmha's passes and pipelines plus the upstream passes
// of the NVVM-to-PTX tail, so that fmha-opt (or an embedding tool) can name
// them on its command line.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_INITALLPASSES_H
#define FMHA_INITALLPASSES_H

namespace mlir {
namespace fmha {

/// Registers fmha's own passes and named pipelines.
void registerFMHAPasses();

/// Registers fmha's passes and the upstream passes its pipelines use
/// (buildSM90Pipeline needs them). Calling it again does no harm.
void registerAllFMHAPasses();

} // namespace fmha
} // namespace mlir

#endif // FMHA_INITALLPASSES_H
