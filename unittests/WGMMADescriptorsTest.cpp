//===- WGMMADescriptorsTest.cpp - Bit layout of wgmma matrix descriptors --===//
//
// Part of fmha. Every expected value is worked out by hand from the PTX ISA,
// 9.7.15.5.1.2.2 ("Matrix Descriptor Format" of wgmma.mma_async), field by
// field, in the comment above it:
//
//   bits 0-13   matrix-descriptor-encode(matrix start address)
//   bits 16-29  matrix-descriptor-encode(leading dimension byte offset)
//   bits 32-45  matrix-descriptor-encode(stride dimension byte offset)
//   bits 49-51  matrix base offset
//   bits 62-63  swizzle mode: 0 none, 1 128-byte, 2 64-byte, 3 32-byte
//
// where matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4; all other bits 0.
//
//===----------------------------------------------------------------------===//

#include "fmha/Conversion/WGMMADescriptors.h"

#include "gtest/gtest.h"

using namespace mlir::fmha::wgmma;

namespace {

TEST(WGMMADescriptors, SwizzleModes) {
  // Bits 62-63: 0 none, 1 128-byte, 2 64-byte, 3 32-byte.
  EXPECT_EQ(swizzleFromBytes(0), Swizzle::None);
  EXPECT_EQ(static_cast<int>(*swizzleFromBytes(128)), 1);
  EXPECT_EQ(static_cast<int>(*swizzleFromBytes(64)), 2);
  EXPECT_EQ(static_cast<int>(*swizzleFromBytes(32)), 3);
  EXPECT_FALSE(swizzleFromBytes(16).has_value());
}

TEST(WGMMADescriptors, KMajor128B) {
  // A K-major bf16 tile with 128-byte swizzling at shared address 0x400:
  //   start 0x400 >> 4 = 0x40                -> bits 0-13:  0x40
  //   LBO 16 >> 4 = 1 (unused for K-major)   -> bit 16:     0x1'0000
  //   SBO 8 * 128 = 1024, >> 4 = 0x40        -> bits 32-45: 0x40'0000'0000
  //   base offset 0
  //   swizzle 1 (128-byte)                   -> bits 62-63:
  //   0x4000'0000'0000'0000
  MatrixDescriptor d = canonicalDescriptor(128, /*leadingBytes=*/16);
  d.startAddress = 0x400;
  EXPECT_EQ(encode(d), 0x4000004000010040ull);
  // Without the start address, what the lowering ORs it into.
  d.startAddress = 0;
  EXPECT_EQ(encode(d), 0x4000004000010000ull);
  EXPECT_EQ(encode(d) | encodeStartAddress(0x400), 0x4000004000010040ull);
}

TEST(WGMMADescriptors, KMajor64B) {
  //   start 0x1230 >> 4 = 0x123
  //   LBO 1 << 16 = 0x1'0000
  //   SBO 8 * 64 = 512, >> 4 = 0x20 -> 0x20 << 32 = 0x20'0000'0000
  //   swizzle 2 << 62 = 0x8000'0000'0000'0000
  MatrixDescriptor d = canonicalDescriptor(64, /*leadingBytes=*/16);
  d.startAddress = 0x1230;
  EXPECT_EQ(encode(d), 0x8000002000010123ull);
}

TEST(WGMMADescriptors, MNMajor128B) {
  // An N-major bf16 B of K = 64 rows: column blocks 64 elements (128 bytes)
  // wide, 64 rows deep, 8192 bytes apart.
  //   LBO 8192 >> 4 = 0x200 -> 0x200 << 16 = 0x200'0000
  //   SBO 1024 >> 4 = 0x40  -> 0x40 << 32 = 0x40'0000'0000
  //   swizzle 1 << 62 = 0x4000'0000'0000'0000
  MatrixDescriptor d = canonicalDescriptor(128, /*leadingBytes=*/8192);
  EXPECT_EQ(encode(d), 0x4000004002000000ull);
}

TEST(WGMMADescriptors, AllFields) {
  // 32-byte swizzling, base offset 3, an address past 18 bits:
  //   start 0x43FFF0 & 0x3FFFF = 0x3FFF0, >> 4 = 0x3FFF
  //   LBO 0x2000 >> 4 = 0x200 -> 0x200'0000
  //   SBO 256 >> 4 = 0x10     -> 0x10'0000'0000
  //   base offset 3 << 49     -> 0x6'0000'0000'0000
  //   swizzle 3 << 62         -> 0xC000'0000'0000'0000
  MatrixDescriptor d;
  d.startAddress = 0x43FFF0;
  d.leadingByteOffset = 0x2000;
  d.strideByteOffset = 256;
  d.baseOffset = 3;
  d.swizzle = Swizzle::B32;
  EXPECT_EQ(encode(d), 0xC006001002003FFFull);
}

TEST(WGMMADescriptors, ReservedBitsStayZero) {
  // Every field at its widest sets exactly bits 0-13, 16-29, 32-45, 49-51
  // and 62-63; in particular no sm100 version bits (46-48).
  MatrixDescriptor d;
  d.startAddress = d.leadingByteOffset = d.strideByteOffset = 0xFFFFFFFF;
  d.baseOffset = 0xFF;
  d.swizzle = Swizzle::B32;
  uint64_t fields = 0x3FFFull | 0x3FFFull << 16 | 0x3FFFull << 32 |
                    0x7ull << 49 | 0x3ull << 62;
  EXPECT_EQ(encode(d), fields);
}

TEST(WGMMADescriptors, NoSwizzle) {
  // Swizzle mode 0 and no stride: only the leading offset, 16 >> 4 = 1.
  EXPECT_EQ(encode(canonicalDescriptor(0, /*leadingBytes=*/16)), 0x10000ull);
}

} // namespace
