//===- UMMADescriptors.h - tcgen05.mma descriptors (sm100) --------*- C++
//-*-===//
//
// Part of fmha. The two descriptors a Blackwell `tcgen05.mma` takes, encoded
// in one place: the 64-bit shared-memory matrix descriptor of an operand in
// (swizzled) shared memory and the 32-bit instruction descriptor of
// `.kind::f16` and `.kind::f8f6f4`. Plain integers, no MLIR: the lowering ORs
// the runtime start address into a constant built here, and the unit tests
// check every field against values worked out by hand from the PTX ISA.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_CONVERSION_UMMADESCRIPTORS_H
#define FMHA_CONVERSION_UMMADESCRIPTORS_H

#include "fmha/Conversion/MMADescriptorAddress.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
namespace fmha {
namespace umma {

/// Swizzling modes of the shared-memory descriptor (bits 61-63), PTX ISA
/// 9.7.16.4.1, "Shared Memory Descriptor", Table 40. 3, 5 and 7 are invalid.
enum class Swizzle : uint8_t {
  None = 0,
  B128Atom32 = 1, ///< 128-byte swizzling with 32-byte atomicity
  B128 = 2,
  B64 = 4,
  B32 = 6,
};

/// The swizzling mode of a swizzle span of `bytes` bytes (0 for none, 32, 64
/// or 128, as `#tile.nvmma_shared` and TMA state it); nullopt for others.
std::optional<Swizzle> swizzleFromBytes(unsigned bytes);

/// The fields of a shared-memory matrix descriptor (PTX ISA 9.7.16.4.1).
/// Byte quantities are given in bytes; `encode` keeps bits 4-17 of each
/// (matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4), so they must be
/// 16-byte aligned.
struct SmemDescriptor {
  /// Shared-memory address of the matrix's first element (bits 0-13).
  uint32_t startAddress = 0;
  /// Leading dimension byte offset (bits 16-29; 9.7.16.3.1): for K-major
  /// swizzled operands unused (assumed 1, i.e. 16 bytes); for MN-major
  /// swizzled operands the distance between column blocks one swizzle span
  /// wide.
  uint32_t leadingByteOffset = 16;
  /// Stride dimension byte offset (bits 32-45): the distance between groups
  /// of 8 rows (8 x the swizzle span for the canonical swizzled layouts).
  uint32_t strideByteOffset = 0;
  /// Matrix base offset (bits 49-51): 0 when the swizzle pattern starts on
  /// its boundary (1024 bytes for 128-byte swizzling, 512 for 64, 256 for
  /// 32), else (pattern start address >> 7) & 7.
  uint8_t baseOffset = 0;
  /// Leading dimension stride mode (bit 52): false for a relative byte
  /// offset, true for an absolute address (sm_103a only).
  bool leadingAbsolute = false;
  Swizzle swizzle = Swizzle::None;
};

/// Bits 46-48 of every sm100 shared-memory descriptor: the fixed value
/// 0b001 (the descriptor version; Hopper's wgmma descriptor has 0 there).
constexpr uint64_t kSmemDescriptorVersion = 1;

/// The 64-bit descriptor of `fields`.
uint64_t encode(const SmemDescriptor &fields);

/// The start-address field (MMADescriptorAddress.h).
using fmha::encodeStartAddress;

/// The descriptor fields of an operand in the canonical swizzled layout of
/// `#tile.nvmma_shared<swizzle = swizzleBytes>` (start address 0):
/// K-major (rows run along K): 8-row groups are `8 * swizzleBytes` apart,
/// the leading offset is unused; MN-major: additionally `blockBytes`
/// between column blocks one swizzle span wide. `swizzleBytes` must be 32,
/// 64 or 128.
SmemDescriptor canonicalDescriptor(unsigned swizzleBytes, bool kMajor,
                                   uint32_t blockBytes = 0);

/// Element types of `.kind::f16` operands (atype/btype, bits 7-9 / 10-12).
enum class F16Kind : uint8_t { F16 = 0, BF16 = 1 };

/// Element types of `.kind::f8f6f4` operands fmha uses (atype/btype, bits
/// 7-9 / 10-12; PTX ISA 9.7.16.4.2, Table 42: E4M3 = 0, E5M2 = 1, and
/// E2M3 = 3, E3M2 = 4, E2M1 = 5 for the 6- and 4-bit types).
enum class F8F6F4Kind : uint8_t { E4M3 = 0, E5M2 = 1 };

/// An operand's atype / btype code, whose meaning the instruction's kind
/// gives: an F16Kind for `.kind::f16`, an F8F6F4Kind for `.kind::f8f6f4`.
struct OperandType {
  uint8_t code;
  constexpr OperandType(F16Kind kind) : code(static_cast<uint8_t>(kind)) {}
  constexpr OperandType(F8F6F4Kind kind) : code(static_cast<uint8_t>(kind)) {}
};

/// The fields of a `.kind::f16` or `.kind::f8f6f4` instruction descriptor
/// (PTX ISA 9.7.16.4.2, "Instruction descriptor", Table 42: the two kinds
/// share the layout), dense, without saturation or B-matrix reuse shifts.
struct InstrDescriptor {
  OperandType aType = F16Kind::BF16;
  OperandType bType = F16Kind::BF16;
  /// D in f32 (dtype 1, bits 4-5) or in f16 (dtype 0).
  bool f32Accumulator = true;
  bool negateA = false; ///< bit 13
  bool negateB = false; ///< bit 14
  /// Transpose A (bit 15): A is M-major rather than K-major.
  bool transposeA = false;
  /// Transpose B (bit 16): B is N-major rather than K-major.
  bool transposeB = false;
  /// M (bits 24-28, stored as M >> 4) and N (bits 17-22, stored as N >> 3).
  unsigned m = 128, n = 128;
};

/// The 32-bit descriptor of `fields`.
uint32_t encode(const InstrDescriptor &fields);

/// Why `m` x `n` is not a dense `.kind::f16` (or `.kind::f8f6f4`: the same
/// shapes, with K = 32 bytes of either) shape for `ctaGroup` CTAs
/// (PTX ISA 9.7.16.2.1, Table 39: one CTA, M = 64 or 128, N = 8..256 in
/// steps of 8; two CTAs, M = 128 or 256, N = 16..256 in steps of 16), or
/// nullopt when it is one.
std::optional<std::string> checkF16Shape(unsigned m, unsigned n,
                                         unsigned ctaGroup = 1);

} // namespace umma
} // namespace fmha
} // namespace mlir

#endif // FMHA_CONVERSION_UMMADESCRIPTORS_H
