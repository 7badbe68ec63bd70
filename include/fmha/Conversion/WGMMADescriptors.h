//===- WGMMADescriptors.h - wgmma matrix descriptors (sm90) -----*- C++ -*-===//
//
// Part of fmha. The 64-bit matrix descriptor a Hopper `wgmma.mma_async`
// takes for an operand in (swizzled) shared memory, encoded in one place.
// Plain integers, no MLIR: the lowering ORs the run-time start address into
// a constant built here, and the unit tests check every field against the
// PTX ISA. The Blackwell descriptors are in UMMADescriptors.h.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_CONVERSION_WGMMADESCRIPTORS_H
#define FMHA_CONVERSION_WGMMADESCRIPTORS_H

#include "fmha/Conversion/MMADescriptorAddress.h"

#include <cstdint>
#include <optional>

namespace mlir {
namespace fmha {
namespace wgmma {

/// Swizzling modes of the matrix descriptor (bits 62-63), PTX ISA
/// 9.7.15.5.1.2.2, "Matrix Descriptor Format".
enum class Swizzle : uint8_t {
  None = 0,
  B128 = 1,
  B64 = 2,
  B32 = 3,
};

/// The swizzling mode of a swizzle span of `bytes` bytes (0 for none, 32, 64
/// or 128, as `#tile.nvmma_shared` and TMA state it); nullopt for others.
std::optional<Swizzle> swizzleFromBytes(unsigned bytes);

/// The fields of a wgmma matrix descriptor (PTX ISA 9.7.15.5.1.2.2). Byte
/// quantities are given in bytes; `encode` keeps bits 4-17 of each
/// (matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4), so they must be
/// 16-byte aligned.
struct MatrixDescriptor {
  /// Shared-memory address of the matrix's first element (bits 0-13).
  uint32_t startAddress = 0;
  /// Leading dimension byte offset (bits 16-29): unused by K-major swizzled
  /// operands (16 bytes by convention); for MN-major swizzled operands the
  /// distance between column blocks one swizzle span wide.
  uint32_t leadingByteOffset = 16;
  /// Stride dimension byte offset (bits 32-45): the distance between groups
  /// of 8 rows (8 x the swizzle span for the canonical swizzled layouts).
  uint32_t strideByteOffset = 0;
  /// Matrix base offset (bits 49-51): 0 when the swizzle pattern starts on
  /// its boundary (1024 bytes for 128-byte swizzling, 512 for 64, 256 for
  /// 32), else (pattern start address >> 7) & 7.
  uint8_t baseOffset = 0;
  Swizzle swizzle = Swizzle::None;
};

/// The 64-bit descriptor of `fields`.
uint64_t encode(const MatrixDescriptor &fields);

/// The start-address field (MMADescriptorAddress.h).
using fmha::encodeStartAddress;

/// The descriptor fields of an operand in the canonical swizzled layout of
/// `#tile.nvmma_shared<swizzle = swizzleBytes>` (start address 0): 8-row
/// groups `8 * swizzleBytes` apart, `leadingBytes` as the leading offset
/// (16 for K-major operands, the column-block distance for MN-major ones).
MatrixDescriptor canonicalDescriptor(unsigned swizzleBytes,
                                     uint32_t leadingBytes);

} // namespace wgmma
} // namespace fmha
} // namespace mlir

#endif // FMHA_CONVERSION_WGMMADESCRIPTORS_H
