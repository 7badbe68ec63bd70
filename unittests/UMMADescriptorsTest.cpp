//===- UMMADescriptorsTest.cpp - Bit layouts of tcgen05.mma descriptors ---===//
//
// Part of fmha. Every expected value is worked out by hand from the PTX ISA
// tables, field by field, in the comment above it: 9.7.16.4.1 (shared
// memory descriptor, Table 40), 9.7.16.4.2 (instruction descriptor,
// Table 42) and 9.7.16.2.1 (shapes, Table 39).
//
//===----------------------------------------------------------------------===//

#include "fmha/Conversion/UMMADescriptors.h"

#include "gtest/gtest.h"

using namespace mlir::fmha::umma;

namespace {

TEST(UMMADescriptors, SwizzleModes) {
  // Table 40, bits 61-63: 0 none, 2 128-byte, 4 64-byte, 6 32-byte.
  EXPECT_EQ(swizzleFromBytes(0), Swizzle::None);
  EXPECT_EQ(static_cast<int>(*swizzleFromBytes(128)), 2);
  EXPECT_EQ(static_cast<int>(*swizzleFromBytes(64)), 4);
  EXPECT_EQ(static_cast<int>(*swizzleFromBytes(32)), 6);
  EXPECT_FALSE(swizzleFromBytes(16).has_value());
}

TEST(UMMADescriptors, SmemKMajor128B) {
  // A K-major bf16 tile with 128-byte swizzling at shared address 0x400:
  //   start 0x400 >> 4 = 0x40                    -> bits 0-13:  0x40
  //   LBO 16 >> 4 = 1 (unused for K-major)       -> bit 16:     0x10000
  //   SBO 8 * 128 = 1024, >> 4 = 0x40            -> bits 32-45: 0x40 << 32
  //   version 0b001                              -> bit 46: 0x4000'0000'0000
  //   base offset 0, relative LBO mode
  //   swizzle 2 (128-byte)                       -> bits 61-63:
  //   0x4000'0000'0000'0000
  SmemDescriptor d = canonicalDescriptor(128, /*kMajor=*/true);
  d.startAddress = 0x400;
  EXPECT_EQ(encode(d), 0x4000404000010040ull);
  // Without the start address, what the lowering ORs it into.
  d.startAddress = 0;
  EXPECT_EQ(encode(d), 0x4000404000010000ull);
  EXPECT_EQ(encode(d) | encodeStartAddress(0x400), 0x4000404000010040ull);
}

TEST(UMMADescriptors, SmemKMajor64B) {
  //   start 0x1230 >> 4 = 0x123
  //   LBO 1 << 16 = 0x10000
  //   SBO 8 * 64 = 512, >> 4 = 0x20 -> 0x20 << 32 = 0x20'0000'0000
  //   version 1 << 46 = 0x4000'0000'0000
  //   swizzle 4 << 61 = 0x8000'0000'0000'0000
  SmemDescriptor d = canonicalDescriptor(64, /*kMajor=*/true);
  d.startAddress = 0x1230;
  EXPECT_EQ(encode(d), 0x8000402000010123ull);
}

TEST(UMMADescriptors, SmemMNMajor128B) {
  // An N-major bf16 B of K = 64 rows and N = 128: column blocks 64 elements
  // (128 bytes) wide, 64 rows deep, 8192 bytes apart.
  //   LBO 8192 >> 4 = 0x200 -> 0x200 << 16 = 0x200'0000
  //   SBO 1024 >> 4 = 0x40  -> 0x40 << 32 = 0x40'0000'0000
  //   version 0x4000'0000'0000, swizzle 2 << 61 = 0x4000'0000'0000'0000
  SmemDescriptor d = canonicalDescriptor(128, /*kMajor=*/false, 8192);
  EXPECT_EQ(encode(d), 0x4000404002000000ull);
}

TEST(UMMADescriptors, SmemAllFields) {
  // 32-byte swizzling, base offset 3, an address past 18 bits:
  //   start 0x43FFF0 & 0x3FFFF = 0x3FFF0, >> 4 = 0x3FFF
  //   LBO 0x2000 >> 4 = 0x200 -> 0x200'0000
  //   SBO 256 >> 4 = 0x10     -> 0x10'0000'0000
  //   version                 -> 0x4000'0000'0000
  //   base offset 3 << 49     -> 0x6'0000'0000'0000
  //   swizzle 6 << 61         -> 0xC000'0000'0000'0000
  SmemDescriptor d;
  d.startAddress = 0x43FFF0;
  d.leadingByteOffset = 0x2000;
  d.strideByteOffset = 256;
  d.baseOffset = 3;
  d.swizzle = Swizzle::B32;
  EXPECT_EQ(encode(d), 0xC006401002003FFFull);
  // Bit 52, the absolute leading-address mode.
  d.leadingAbsolute = true;
  EXPECT_EQ(encode(d), 0xC016401002003FFFull);
}

TEST(UMMADescriptors, SmemVersionBits) {
  // An all-zero descriptor still carries 0b001 in bits 46-48.
  SmemDescriptor d;
  d.leadingByteOffset = 0;
  EXPECT_EQ(encode(d), 1ull << 46);
  EXPECT_EQ(encode(d) >> 46 & 0x7, 1u);
}

TEST(UMMADescriptors, InstrBF16M128N256) {
  // bf16 x bf16 -> f32, both K-major, M = 128, N = 256:
  //   dtype F32 = 1        -> bits 4-5:   0x10
  //   atype BF16 = 1       -> bits 7-9:   0x80
  //   btype BF16 = 1       -> bits 10-12: 0x400
  //   N >> 3 = 32          -> bits 17-22: 32 << 17 = 0x40'0000
  //   M >> 4 = 8           -> bits 24-28: 8 << 24 = 0x800'0000
  InstrDescriptor d;
  d.m = 128;
  d.n = 256;
  EXPECT_EQ(encode(d), 0x08400490u);
}

TEST(UMMADescriptors, InstrF16TransposeB) {
  // f16 x f16 -> f32, B N-major (transpose B), M = 64, N = 64:
  //   dtype 0x10, atype/btype F16 = 0
  //   transpose B          -> bit 16: 0x1'0000
  //   N >> 3 = 8           -> 8 << 17 = 0x10'0000
  //   M >> 4 = 4           -> 4 << 24 = 0x400'0000
  InstrDescriptor d;
  d.aType = d.bType = F16Kind::F16;
  d.transposeB = true;
  d.m = 64;
  d.n = 64;
  EXPECT_EQ(encode(d), 0x04110010u);
}

TEST(UMMADescriptors, InstrF16AccumulatorTransposeA) {
  // f16 x f16 -> f16 (dtype 0), A M-major, M = 128, N = 16:
  //   transpose A          -> bit 15: 0x8000
  //   N >> 3 = 2           -> 2 << 17 = 0x4'0000
  //   M >> 4 = 8           -> 0x800'0000
  InstrDescriptor d;
  d.aType = d.bType = F16Kind::F16;
  d.f32Accumulator = false;
  d.transposeA = true;
  d.m = 128;
  d.n = 16;
  EXPECT_EQ(encode(d), 0x08048000u);
  // Negating A and B sets bits 13 and 14.
  d.negateA = d.negateB = true;
  EXPECT_EQ(encode(d), 0x0804E000u);
}

TEST(UMMADescriptors, InstrF8F6F4) {
  // .kind::f8f6f4, e4m3 x e5m2 -> f32, both K-major, M = 128, N = 128:
  //   dtype F32 = 1        -> bits 4-5:   0x10
  //   atype E4M3 = 0       -> bits 7-9:   0
  //   btype E5M2 = 1       -> bits 10-12: 0x400
  //   N >> 3 = 16          -> bits 17-22: 16 << 17 = 0x20'0000
  //   M >> 4 = 8           -> bits 24-28: 0x800'0000
  InstrDescriptor d;
  d.aType = F8F6F4Kind::E4M3;
  d.bType = F8F6F4Kind::E5M2;
  d.m = 128;
  d.n = 128;
  EXPECT_EQ(encode(d), 0x08200410u);
  // e5m2 x e4m3: atype 1 -> bits 7-9: 0x80, btype 0.
  d.aType = F8F6F4Kind::E5M2;
  d.bType = F8F6F4Kind::E4M3;
  EXPECT_EQ(encode(d), 0x08200090u);
}

TEST(UMMADescriptors, InstrTwoCTAs) {
  // cta_group::2, M = 256: M >> 4 = 16 -> 16 << 24 = 0x1000'0000;
  // N = 128: 16 << 17 = 0x20'0000; bf16/bf16/f32: 0x490.
  InstrDescriptor d;
  d.m = 256;
  d.n = 128;
  EXPECT_EQ(encode(d), 0x10200490u);
}

TEST(UMMADescriptors, Shapes) {
  EXPECT_FALSE(checkF16Shape(128, 256).has_value());
  EXPECT_FALSE(checkF16Shape(64, 8).has_value());
  EXPECT_FALSE(checkF16Shape(128, 24).has_value());
  EXPECT_EQ(*checkF16Shape(32, 64),
            "tcgen05.mma cta_group::1 has M = 64 or 128, got 32");
  EXPECT_EQ(*checkF16Shape(128, 260),
            "tcgen05.mma cta_group::1 has N = 8 to 256 in steps of 8, got 260");
  EXPECT_FALSE(checkF16Shape(256, 128, 2).has_value());
  EXPECT_EQ(*checkF16Shape(64, 128, 2),
            "tcgen05.mma cta_group::2 has M = 128 or 256, got 64");
  EXPECT_EQ(
      *checkF16Shape(128, 24, 2),
      "tcgen05.mma cta_group::2 has N = 16 to 256 in steps of 16, got 24");
}

} // namespace
