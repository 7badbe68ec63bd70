//===- MMADescriptorAddress.h - MMA descriptor start address ----*- C++ -*-===//
//
// Part of fmha. What the wgmma (sm90, WGMMADescriptors.h) and tcgen05.mma
// (sm100, UMMADescriptors.h) shared-memory descriptors encode alike and the
// lowering needs at run time: the start-address field.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_CONVERSION_MMADESCRIPTORADDRESS_H
#define FMHA_CONVERSION_MMADESCRIPTORADDRESS_H

#include <cstdint>

namespace mlir {
namespace fmha {

/// The start-address field of a wgmma or tcgen05.mma shared-memory
/// descriptor for shared-memory address `address`
/// (matrix-descriptor-encode): what the lowering ORs in at run time into a
/// descriptor encoded with `startAddress = 0`.
uint64_t encodeStartAddress(uint64_t address);

} // namespace fmha
} // namespace mlir

#endif // FMHA_CONVERSION_MMADESCRIPTORADDRESS_H
