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

/// Threads of a warp.
constexpr int64_t kThreadsPerWarp = 32;
/// Warps of a warpgroup: the unit of wgmma, tcgen05.ld and setmaxnreg.
constexpr int64_t kWarpsPerGroup = 4;
/// The most warps one CTA can have (1024 threads).
constexpr int64_t kMaxWarpsPerCTA = 32;
/// Registers of one SM, shared by the threads of the CTA.
constexpr int64_t kRegistersPerSM = 65536;

/// The kernel attribute of 2-CTA mode (a unit attribute on the kernel,
/// set by fmha-expand-kernels for `fmha.gemm ... ctas 2`): the kernel runs
/// in clusters of two CTAs that issue each MMA together
/// (`tcgen05.mma.cta_group::2`, docs/Development.md, "SM100").
constexpr const char kCtaPairAttrName[] = "ws.cta_pair";

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
