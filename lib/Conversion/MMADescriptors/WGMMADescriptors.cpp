//===- WGMMADescriptors.cpp - wgmma matrix descriptors (sm90) -------------===//
//
// Part of fmha. Bit layout from the PTX ISA, section 9.7.15.5.1.2.2
// ("Matrix Descriptor Format" of wgmma.mma_async).
//
//===----------------------------------------------------------------------===//

#include "fmha/Conversion/WGMMADescriptors.h"

#include "DescriptorFields.h"

using namespace mlir::fmha;
using namespace mlir::fmha::wgmma;

std::optional<Swizzle> mlir::fmha::wgmma::swizzleFromBytes(unsigned bytes) {
  return swizzleForSpan<Swizzle>(bytes);
}

uint64_t mlir::fmha::wgmma::encodeStartAddress(uint64_t address) {
  return matrixDescriptorEncode(address);
}

uint64_t mlir::fmha::wgmma::encode(const MatrixDescriptor &fields) {
  return encodeCommonFields(fields) |
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
