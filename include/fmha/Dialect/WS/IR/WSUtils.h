//===- WSUtils.h - Helpers shared by the ws dialect and its passes -*- C++
//-*-===//
//
// Part of fmha.
//
//===----------------------------------------------------------------------===//

#ifndef FMHA_DIALECT_WS_IR_WSUTILS_H
#define FMHA_DIALECT_WS_IR_WSUTILS_H

#include "mlir/IR/BuiltinTypes.h"

namespace mlir {
namespace ws {

/// The NVPTX address space of shared memory.
constexpr unsigned kSharedAddressSpace = 3;

/// True when `type` lives in shared memory: memory space 3 or
/// `#gpu.address_space<workgroup>`.
bool isSharedMemory(MemRefType type);

/// True when `type` lives in tensor memory (`#ws.tmem`).
bool isTensorMemory(MemRefType type);

/// Bytes of a statically shaped memref of int or float elements.
int64_t getMemRefBytes(MemRefType type);

} // namespace ws
} // namespace mlir

#endif // FMHA_DIALECT_WS_IR_WSUTILS_H
