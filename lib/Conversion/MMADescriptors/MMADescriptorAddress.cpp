//===- MMADescriptorAddress.cpp - MMA descriptor start address ------------===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#include "fmha/Conversion/MMADescriptorAddress.h"

#include "DescriptorFields.h"

uint64_t mlir::fmha::encodeStartAddress(uint64_t address) {
  return matrixDescriptorEncode(address);
}
