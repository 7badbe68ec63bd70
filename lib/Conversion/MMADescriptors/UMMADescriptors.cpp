//===- UMMADescriptors.cpp - tcgen05.mma descriptors (sm100) --------------===//
//
// Part of fmha. Bit layouts from the PTX ISA, sections 9.7.16.4.1 (shared
// memory descriptor, Table 40) and 9.7.16.4.2 (instruction descriptor,
// Table 42); valid shapes from 9.7.16.2.1 (Table 39).
//
//===----------------------------------------------------------------------===//

#include "fmha/Conversion/UMMADescriptors.h"

#include "DescriptorFields.h"

using namespace mlir::fmha;
using namespace mlir::fmha::umma;

std::optional<Swizzle> mlir::fmha::umma::swizzleFromBytes(unsigned bytes) {
  return swizzleForSpan<Swizzle>(bytes);
}

uint64_t mlir::fmha::umma::encode(const SmemDescriptor &fields) {
  return encodeCommonFields(fields) | kSmemDescriptorVersion << 46 |
         uint64_t(fields.leadingAbsolute) << 52 |
         uint64_t(static_cast<uint8_t>(fields.swizzle) & 0x7) << 61;
}

SmemDescriptor mlir::fmha::umma::canonicalDescriptor(unsigned swizzleBytes,
                                                     bool kMajor,
                                                     uint32_t blockBytes) {
  SmemDescriptor fields;
  fields.swizzle = swizzleFromBytes(swizzleBytes).value_or(Swizzle::None);
  // Groups of 8 rows of one swizzle span each: the swizzle atom.
  fields.strideByteOffset = 8 * swizzleBytes;
  // K-major swizzled layouts do not use the leading offset ("assumed to be
  // 1", in 16-byte units); MN-major ones step between span-wide blocks.
  fields.leadingByteOffset = kMajor ? 16 : blockBytes;
  return fields;
}

uint32_t mlir::fmha::umma::encode(const InstrDescriptor &fields) {
  return uint32_t(fields.f32Accumulator ? 1 : 0) << 4 |
         uint32_t(fields.aType.code & 0x7) << 7 |
         uint32_t(fields.bType.code & 0x7) << 10 |
         uint32_t(fields.negateA) << 13 | uint32_t(fields.negateB) << 14 |
         uint32_t(fields.transposeA) << 15 | uint32_t(fields.transposeB) << 16 |
         uint32_t((fields.n >> 3) & 0x3F) << 17 |
         uint32_t((fields.m >> 4) & 0x1F) << 24;
}

std::optional<std::string>
mlir::fmha::umma::checkF16Shape(unsigned m, unsigned n, unsigned ctaGroup) {
  if (ctaGroup != 1 && ctaGroup != 2)
    return "cta_group must be 1 or 2, got " + std::to_string(ctaGroup);
  unsigned mLow = ctaGroup == 1 ? 64 : 128;
  unsigned nStep = ctaGroup == 1 ? 8 : 16;
  std::string group = "cta_group::" + std::to_string(ctaGroup);
  if (m != mLow && m != 2 * mLow)
    return "tcgen05.mma " + group + " has M = " + std::to_string(mLow) +
           " or " + std::to_string(2 * mLow) + ", got " + std::to_string(m);
  if (n < nStep || n > 256 || n % nStep != 0)
    return "tcgen05.mma " + group + " has N = " + std::to_string(nStep) +
           " to 256 in steps of " + std::to_string(nStep) + ", got " +
           std::to_string(n);
  return std::nullopt;
}
