//===- DescriptorFields.h - Fields shared by MMA descriptors ----*- C++ -*-===//
//
// Part of fmha. What the wgmma (sm90) and tcgen05.mma (sm100) shared-memory
// descriptors encode alike: addresses and byte offsets as
// matrix-descriptor-encode, and a swizzle field chosen by the span in bytes.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_LIB_CONVERSION_MMADESCRIPTORS_DESCRIPTORFIELDS_H
#define FMHA_LIB_CONVERSION_MMADESCRIPTORS_DESCRIPTORFIELDS_H

#include <cstdint>
#include <optional>

namespace mlir {
namespace fmha {

/// matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4: 14 bits.
inline uint64_t matrixDescriptorEncode(uint64_t x) {
  return (x & 0x3FFFF) >> 4;
}

/// The swizzle field value of a span of `bytes` bytes (0, 32, 64 or 128)
/// among the descriptor's values for those spans; nullopt for other spans.
template <typename Swizzle>
std::optional<Swizzle> swizzleForSpan(unsigned bytes, Swizzle none,
                                      Swizzle b32, Swizzle b64,
                                      Swizzle b128) {
  switch (bytes) {
  case 0:
    return none;
  case 32:
    return b32;
  case 64:
    return b64;
  case 128:
    return b128;
  default:
    return std::nullopt;
  }
}

} // namespace fmha
} // namespace mlir

#endif // FMHA_LIB_CONVERSION_MMADESCRIPTORS_DESCRIPTORFIELDS_H
