//===- SplitMerge.h - Split-KV's last-arrival merge, sizes --------*- C++ -*-===//
//
// Part of fmha. How split-KV's last arrival merges the partial results of
// an `fmha.attention ... split_kv` (sm_90a): the verifier's register
// estimate and the expansion's tile program agree through these.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_DIALECT_FMHA_IR_SPLITMERGE_H
#define FMHA_DIALECT_FMHA_IR_SPLITMERGE_H

#include "fmha/Dialect/FMHA/IR/FMHADialect.h"

namespace mlir {
namespace fmha {

/// The partials whose chunks of rows the merge loads together: as many as
/// the main loop's S, P and O registers (dead by then) hold with the
/// running sum, from limits::kMergeUnroll up to 8.
int64_t getSplitMergeUnroll(AttentionOp op);

} // namespace fmha
} // namespace mlir

#endif // FMHA_DIALECT_FMHA_IR_SPLITMERGE_H
