//===- KernelResources.h - On-chip resources of a kernel --------*- C++ -*-===//
//
// Part of fmha. Plain structs that the fmha ops fill in to describe the
// on-chip resources one CTA of their kernel needs; the verifiers compare them
// with the limits in TargetLimits.h. Shared memory is laid out by one
// allocator that both the verifiers' estimates and ws-allocate-smem use, so
// that what a verifier accepts is what the pipeline allocates.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_TARGET_KERNELRESOURCES_H
#define FMHA_TARGET_KERNELRESOURCES_H

#include "fmha/Target/TargetLimits.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

namespace mlir {
namespace fmha {

/// Places shared-memory buffers and mbarriers one after the other, as
/// `ws-allocate-smem` lays out a kernel's dynamic shared memory: every
/// buffer on a limits::kSharedBufferAlignment boundary, mbarriers on 8 bytes.
class SharedMemoryAllocator {
public:
  explicit SharedMemoryAllocator(int64_t start = 0) : end(start) {}

  /// Places a buffer of `bytes` bytes and returns its offset.
  int64_t allocateBuffer(int64_t bytes) {
    end = llvm::alignTo(end, limits::kSharedBufferAlignment);
    int64_t offset = end;
    end += bytes;
    return offset;
  }

  /// Places an array of `count` mbarriers and returns its offset.
  int64_t allocateMBarriers(int64_t count) {
    end = llvm::alignTo(end, limits::kMBarrierBytes);
    int64_t offset = end;
    end += count * limits::kMBarrierBytes;
    return offset;
  }

  /// The end of what is placed so far: the bytes a CTA needs.
  int64_t getEnd() const { return end; }

private:
  int64_t end;
};

/// The dynamic shared memory one CTA needs: its buffers in the order the
/// pipeline allocates them, grouped into named parts (for example "K/V",
/// "Q/O"), then its mbarriers.
struct SharedMemoryUsage {
  /// Buffers that serve one purpose.
  struct Part {
    llvm::StringLiteral name;
    /// The size of each buffer in bytes.
    llvm::SmallVector<int64_t, 4> buffers;
  };
  llvm::SmallVector<Part, 4> parts;
  /// Number of mbarriers (each ring has a full and an empty one per stage).
  int64_t mbarriers = 0;

  /// Adds a part of `count` buffers of `bytes` bytes each.
  void addPart(llvm::StringLiteral name, int64_t count, int64_t bytes) {
    parts.push_back({name, llvm::SmallVector<int64_t, 4>(count, bytes)});
  }

  /// Bytes of all parts and barriers together, laid out by
  /// SharedMemoryAllocator.
  int64_t getTotalBytes() const {
    SharedMemoryAllocator allocator;
    for (const Part &part : parts)
      for (int64_t bytes : part.buffers)
        allocator.allocateBuffer(bytes);
    allocator.allocateMBarriers(mbarriers);
    return allocator.getEnd();
  }

  /// Prints the parts as `K/V 131072, Q/O 65536, barriers 48`: the bytes each
  /// part occupies, alignment padding included, so that they add up to
  /// getTotalBytes().
  void printParts(llvm::raw_ostream &os) const {
    SharedMemoryAllocator allocator;
    for (const Part &part : parts) {
      int64_t start = allocator.getEnd();
      for (int64_t bytes : part.buffers)
        allocator.allocateBuffer(bytes);
      os << part.name << ' ' << allocator.getEnd() - start << ", ";
    }
    int64_t start = allocator.getEnd();
    allocator.allocateMBarriers(mbarriers);
    os << "barriers " << allocator.getEnd() - start;
  }
};

} // namespace fmha
} // namespace mlir

#endif // FMHA_TARGET_KERNELRESOURCES_H
