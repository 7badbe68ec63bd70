//===- KernelResources.h - On-chip resources of a kernel --------*- C++ -*-===//
//
// Part of fmha. Plain structs that the fmha ops fill in to describe the
// on-chip resources one CTA of their kernel needs; the verifiers compare them
// with the limits in TargetLimits.h, and passes can reuse them to size
// buffers.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_DIALECT_FMHA_IR_KERNELRESOURCES_H
#define FMHA_DIALECT_FMHA_IR_KERNELRESOURCES_H

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

namespace mlir {
namespace fmha {

/// The dynamic shared memory one CTA needs, broken down into named parts
/// (for example "Q/O", "K/V", "barriers").
struct SharedMemoryUsage {
  /// One buffer (or group of buffers) and its size in bytes.
  struct Part {
    llvm::StringLiteral name;
    int64_t bytes;
  };
  llvm::SmallVector<Part, 4> parts;

  /// Bytes of all parts together.
  int64_t getTotalBytes() const {
    int64_t total = 0;
    for (const Part &part : parts)
      total += part.bytes;
    return total;
  }

  /// Prints the parts as `A 1024, B 2048, barriers 1024`.
  void printParts(llvm::raw_ostream &os) const {
    llvm::interleaveComma(parts, os, [&](const Part &part) {
      os << part.name << ' ' << part.bytes;
    });
  }
};

} // namespace fmha
} // namespace mlir

#endif // FMHA_DIALECT_FMHA_IR_KERNELRESOURCES_H
