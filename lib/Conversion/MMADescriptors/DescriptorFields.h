//===- DescriptorFields.h - Fields shared by MMA descriptors ----*- C++ -*-===//
//
// Part of fmha. What the wgmma (sm90) and tcgen05.mma (sm100) shared-memory
// descriptors encode alike: addresses and byte offsets as
// matrix-descriptor-encode, the base offset, and a swizzle field chosen by
// the span in bytes.
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

/// The fields the two descriptors encode alike: the start address (bits
/// 0-13), the leading (16-29) and stride (32-45) byte offsets, each
/// matrix-descriptor-encoded, and the base offset (49-51).
template <typename Fields> uint64_t encodeCommonFields(const Fields &fields) {
  return matrixDescriptorEncode(fields.startAddress) |
         matrixDescriptorEncode(fields.leadingByteOffset) << 16 |
         matrixDescriptorEncode(fields.strideByteOffset) << 32 |
         uint64_t(fields.baseOffset & 0x7) << 49;
}

/// The value of a descriptor's swizzle field (an enum with `None`, `B32`,
/// `B64` and `B128`) for a span of `bytes` bytes (0, 32, 64 or 128);
/// nullopt for other spans.
template <typename Swizzle>
std::optional<Swizzle> swizzleForSpan(unsigned bytes) {
  switch (bytes) {
  case 0:
    return Swizzle::None;
  case 32:
    return Swizzle::B32;
  case 64:
    return Swizzle::B64;
  case 128:
    return Swizzle::B128;
  default:
    return std::nullopt;
  }
}

} // namespace fmha
} // namespace mlir

#endif // FMHA_LIB_CONVERSION_MMADESCRIPTORS_DESCRIPTORFIELDS_H
