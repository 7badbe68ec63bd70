//===- WGMMADescriptors.cpp - wgmma matrix descriptors (sm90) -------------===//
//
// Part of fmha. Bit layout from the PTX ISA, section 9.7.15.5.1.2.2
// ("Matrix Descriptor Format" of wgmma.mma_async).
//
//===----------------------------------------------------------------------===//

#include "fmha/Conversion/WGMMADescriptors.h"

using namespace mlir::fmha::wgmma;

std::optional<Swizzle> mlir::fmha::wgmma::swizzleFromBytes(unsigned bytes) {
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

/// matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4: 14 bits.
static uint64_t descriptorEncode(uint64_t x) { return (x & 0x3FFFF) >> 4; }

uint64_t mlir::fmha::wgmma::encodeStartAddress(uint64_t address) {
  return descriptorEncode(address);
}

uint64_t mlir::fmha::wgmma::encode(const MatrixDescriptor &fields) {
  return descriptorEncode(fields.startAddress) |
         descriptorEncode(fields.leadingByteOffset) << 16 |
         descriptorEncode(fields.strideByteOffset) << 32 |
         uint64_t(fields.baseOffset & 0x7) << 49 |
         uint64_t(static_cast<uint8_t>(fields.swizzle) & 0x3) << 62;
}

MatrixDescriptor mlir::fmha::wgmma::canonicalDescriptor(unsigned swizzleBytes,
                                                        uint32_t leadingBytes) {
  MatrixDescriptor fields;
  fields.swizzle = swizzleFromBytes(swizzleBytes).value_or(Swizzle::None);
  // Groups of 8 rows of one swizzle span each: the swizzle atom.
  fields.strideByteOffset = 8 * swizzleBytes;
  fields.leadingByteOffset = leadingBytes;
  return fields;
}
